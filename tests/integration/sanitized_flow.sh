# The main job end to end under AddressSanitizer and UndefinedBehaviorSanitizer
# (opkit_sanitized, cmake/OpkitSanitized.cmake): adopting an existing op tree,
# building it for TF 1.12 and 2.10.1 (portable link, check), loading it into the
# real frameworks, checking a library, packaging an EasyRec overlay and verifying it, and
# the bad-input paths that parse untrusted bytes (a truncated ELF, a zip that is
# not one). Any sanitizer report ends the process with a failure, and stderr is
# searched for one as well.
source "$(dirname "$0")/common.sh"
: "${OPKIT_SANITIZED:?run through ctest, which sets OPKIT_SANITIZED}"
OPKIT="$OPKIT_SANITIZED"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

no_reports() {
  if grep -Eq 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$work/err"; then
    cat "$work/err" >&2
    fail "a sanitizer reported during: $*"
  fi
}
step() { # step <expected-exit-code> <args...>
  run_opkit "$@"
  no_reports "opkit ${*:2}"
}

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/acme_ops" acme_ops
cd acme_ops
step 0 init --tf 1.12,2.10.1
step 0 build
expect_contains "$work/out" 'tf-1\.12\.0'
expect_contains "$work/out" 'tf-2\.10\.1'
step 0 build # the no-op build: kept verdicts, nothing compiled
expect_contains "$work/out" 'up to date'
lib=$(ls build/tf-2.10.1/*text_ops.so | head -n 1)
step 0 check "$lib" --tf 2.10.1 --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert (r if isinstance(r, dict) else r[0])["verdict"] == "loads", r' "$work/out" ||
  fail "check --json does not say the library loads"
step 0 test
expect_contains "$work/out" 'Acme>'
step 0 package easyrec --tf 1.12,2.10.1 --version 0_1_0 -o "$work/dist"
tarball=$(ls "$work"/dist/*.tar.gz | head -n 1)
step 0 package verify "$tarball"

# Untrusted bytes: a truncated library and a wheel that is not a zip.
head -c 700 "$lib" >"$work/truncated.so"
step 2 check "$work/truncated.so" --tf 2.10.1
head -c 3000 "$(wheel_for 2.10.1)" >"$work/broken.whl"
rc=0
"$OPKIT" -q sdk add "$work/broken.whl" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] || fail "sdk add accepted a truncated wheel"
no_reports "opkit sdk add broken.whl"
expect_one_error_line
echo "sanitized flow: no reports"
