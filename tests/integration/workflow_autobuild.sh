# cargo's workflow: `opkit test` and `opkit package` build what is missing or
# out of date first (progress on stderr), `--no-build` refuses as before, a
# failed build stops them with the build's exit code, and `package --dry-run`
# lists what it would write and leaves the tree as it was.
source "$(dirname "$0")/common.sh"

run_opkit 0 new auto_op --tf 1.12
cd auto_op

# --no-build on a fresh project: today's refusal.
run_opkit 3 test --no-build
expect_one_error_line
expect_contains "$work/err" 'libauto_op\.so: not built for tensorflow-1\.12\.0 \(run `opkit build --tf 1\.12` first\)'
run_opkit 3 package wheel --no-build
expect_one_error_line
[ ! -e build/tf-1.12.0/libauto_op.so ] || fail "--no-build built"

# Without opkit build: test builds, then tests.
run_opkit 0 test
expect_contains "$work/err" '^building tensorflow-1\.12\.0 first: not built yet$'
expect_contains "$work/err" '^tensorflow-1\.12\.0: built \([0-9]+ compiled\)$'
expect_contains "$work/out" '^  matches opkit\.yaml$'
[ -f build/tf-1.12.0/libauto_op.so ] || fail "test did not build the library"

# Up to date: no build.
run_opkit 0 test
if grep -q 'first:' "$work/err"; then fail "an up-to-date project was rebuilt: $(cat "$work/err")"; fi

# A touched source is rebuilt before the test.
sleep 1
echo "// touched" >>src/auto_op_kernels.cc
run_opkit 0 test
expect_contains "$work/err" '^building tensorflow-1\.12\.0 first: sources changed$'
expect_contains "$work/err" '^tensorflow-1\.12\.0: built \(1 compiled\)$'
expect_contains "$work/out" '^  matches opkit\.yaml$'

# A source that does not compile: the build's exit code and one error line after its log.
cp src/auto_op_kernels.cc "$work/kernels.bak"
echo "this is not C++" >>src/auto_op_kernels.cc
run_opkit 1 test
expect_contains "$work/err" '^opkit: error: build failed: tensorflow-1\.12\.0 '
[ "$(grep -c '^opkit: error:' "$work/err")" -eq 1 ] || fail "more than one error line"
grep -q 'MISMATCH\|matches' "$work/out" && fail "tested after a failed build"
# --no-build tests what is built (the last good library).
run_opkit 0 test --no-build
expect_contains "$work/out" '^  matches opkit\.yaml$'
cp "$work/kernels.bak" src/auto_op_kernels.cc

# package: the same, and --dry-run writes nothing.
run_opkit 0 package wheel
expect_contains "$work/err" 'building tensorflow-1\.12\.0 first: sources changed'
ls dist/*.whl >/dev/null || fail "no wheel"
snapshot() { find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; find . | sort; }
snapshot >"$work/before"
build_before=$(find build -type f -newer opkit.yaml -print0 | sort -z | xargs -0 sha256sum)
run_opkit 0 package wheel --dry-run -o dist-dry
expect_contains "$work/out" '^would write .*dist-dry/auto_op-.*\.whl \([0-9]+ files, [0-9]+ bytes before compression\); nothing written \(--dry-run\)$'
expect_contains "$work/out" '^ +[0-9]+  auto_op/tf-1\.12\.0/libauto_op\.so$'
expect_contains "$work/out" '^ +[0-9]+  auto_op-.*\.dist-info/RECORD$'
run_opkit 0 package easyrec --version dry --dry-run
expect_contains "$work/out" '^would write .*dist/easy_rec_ext_dry_overlay\.tar\.gz \('
expect_contains "$work/out" '  easy_rec/python/ops/1\.12_pai/libauto_op\.so$'
# A source touched after the last build: --dry-run says it would build, and still builds nothing.
echo "// touched again" >>src/auto_op_kernels.cc
run_opkit 0 package wheel --dry-run
expect_contains "$work/err" 'note: tensorflow-1\.12\.0 is out of date \(sources changed\); a run without --dry-run builds it first'
snapshot >"$work/after"
sed -i '/auto_op_kernels\.cc$/d' "$work/before" "$work/after"
diff "$work/before" "$work/after" || fail "package --dry-run changed the tree"
[ ! -e dist-dry ] || fail "--dry-run made its output folder"
[ "$build_before" = "$(find build -type f -newer opkit.yaml -print0 | sort -z | xargs -0 sha256sum)" ] ||
  fail "package --dry-run changed build/"
