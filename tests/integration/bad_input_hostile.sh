# Hostile input (issue 16): identifiers read from a wheel never become paths
# outside the store, long fields never crash a parser, text from untrusted
# files reaches messages escaped, and every refusal is one line, exit 2, with
# nothing left behind.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"
hostile() { python3 "$(dirname "$0")/hostile_wheel.py" "$@"; }
no_leftovers() {
  local left
  left=$(find "$OPKIT_HOME" -mindepth 2 -name '.opkit-partial*' 2>/dev/null)
  [ -z "$left" ] || fail "$1 left staging behind: $left"
  [ -z "$(ls -A "$OPKIT_HOME/sdks" 2>/dev/null | grep -v '^\.')" ] || fail "$1 left an SDK: $(ls -A "$OPKIT_HOME/sdks")"
}
header() { printf '#define TF_MAJOR_VERSION 1\n#define TF_MINOR_VERSION 12\n#define TF_PATCH_VERSION 0\n#define TF_VERSION_SUFFIX "%s"\n' "$1"; }

# --- an SDK id made from version.h never escapes the store (it once replaced a folder outside it)
mkdir -p "$work/home/sdks/tensorflow-1.12.0-rc0"
hostile "$work/escape.whl" --version-h "$(header '-rc0/../../../outside')"
run_opkit 2 -q sdk add "$work/escape.whl"
expect_one_error_line
expect_contains "$work/err" 'escape\.whl: include/tensorflow/core/public/version\.h: its defines make no plain version'
[ ! -e "$work/outside" ] && [ ! -e "$work/home/outside" ] || fail "the import wrote outside the store"
rmdir "$work/home/sdks/tensorflow-1.12.0-rc0"
no_leftovers "the escaping suffix"

# --- 300k-character fields (std::regex once overflowed its stack on them: SIGSEGV)
# (The texts go through files: one argument may not exceed 128 KiB.)
long=$(head -c 300000 /dev/zero | tr '\0' a)
header "-$long" >"$work/long-suffix.txt"
hostile "$work/long-suffix.whl" --version-h "@$work/long-suffix.txt"
run_opkit 2 -q sdk add "$work/long-suffix.whl"
expect_one_error_line
expect_contains "$work/err" 'long-suffix\.whl: .*version\.h: its defines make no plain version'
no_leftovers "a long version suffix"

printf 'Metadata-Version: 2.1\nName: %s\nVersion: 1.12.0\n' "$long" >"$work/long-name.txt"
hostile "$work/long-name.whl" --metadata "@$work/long-name.txt"
run_opkit 2 -q sdk add "$work/long-name.whl"
expect_one_error_line
expect_contains "$work/err" "dist-info/METADATA: Name 'a{64}\.\.\.': not a plausible value"
no_leftovers "a long METADATA Name"

echo "build_info = OrderedDict([('cuda_version', '$long')])" >"$work/long-info.txt"
hostile "$work/long-info.whl" --build-info "@$work/long-info.txt"
run_opkit 2 -q sdk add "$work/long-info.whl"
expect_one_error_line
expect_contains "$work/err" "build_info\.py: cuda_version 'a{64}\.\.\.': not a plausible value"
no_leftovers "a long build_info.py value"

# --- a cut-short wheel (libarchive gives no message for some): one line, exit 2
head -c 88 "$work/long-info.whl" >"$work/cut.whl"
run_opkit 2 -q sdk add "$work/cut.whl"
expect_one_error_line
no_leftovers "a cut-short wheel"

# --- bytes that are not UTF-8: refused, and printed escaped (the line stays printable)
printf 'Metadata-Version: 2.1\nName: tensor\377flow\nVersion: 1.12.0\n' >"$work/bad-name.txt"
hostile "$work/bad-name.whl" --metadata "@$work/bad-name.txt"
run_opkit 2 -q sdk add "$work/bad-name.whl"
expect_one_error_line
expect_contains "$work/err" "Name 'tensor\\\\xffflow': not a plausible value"
no_leftovers "a non-UTF-8 METADATA Name"
# A wheel path that is not UTF-8: one printable error line, also with --json.
cp "$work/long-info.whl" "$work/$(printf 'bad\377path.whl')"
run_opkit 2 -q sdk add "$work/$(printf 'bad\377path.whl')" --json
expect_one_error_line
expect_contains "$work/err" 'bad\\xffpath\.whl'
LC_ALL=C grep -q "$(printf '\377')" "$work/err" && fail "a raw non-UTF-8 byte reached the error line"
no_leftovers "a non-UTF-8 wheel path"

# --- a zip bomb: 3 GiB of zeros in a 14 MB wheel (once imported, filling the
# disk) is refused from its declared size before a byte is written; one that
# declares 1000 bytes and inflates to 1.5 GiB is stopped at the 1 GiB limit
hostile "$work/bomb.whl" --zeros tensorflow/include/bomb.h=3221225472
run_opkit 2 -q sdk add "$work/bomb.whl"
expect_one_error_line
expect_contains "$work/err" 'bomb\.whl: tensorflow/include/bomb\.h: too large for an SDK: .* limited to 1073741824 bytes \(1 GiB\)'
no_leftovers "a zip bomb"
hostile "$work/liar.whl" --zeros tensorflow/include/bomb.h=1610612736 --declare 1000
grep -q ' 1000 .*bomb\.h' <(unzip -l "$work/liar.whl") || fail "the liar wheel does not declare 1000 bytes"
run_opkit 2 -q sdk add "$work/liar.whl"
expect_one_error_line
expect_contains "$work/err" 'liar\.whl: tensorflow/include/bomb\.h: too large for an SDK'
no_leftovers "a zip bomb with a false size"
rm -f "$work/bomb.whl" "$work/liar.whl"

# --- an entry whose path ends in '..' names a folder: one line, exit 2, not a
# "cannot create" naming a staging path (once exit 4)
hostile "$work/dots.whl" --entry 'tensorflow/include/a/..=x'
run_opkit 2 -q sdk add "$work/dots.whl"
expect_one_error_line
expect_contains "$work/err" "archive entry 'tensorflow/include/a/\.\.': a path with '\.\.' in it names no file"
no_leftovers "an entry named a/.."

# --- OPKIT_HOME naming a file (once "no SDKs", exit 0)
touch "$work/home-file"
for args in "sdk list" "sdk add $work/dots.whl" "sdk gc"; do
  rc=0
  # shellcheck disable=SC2086
  OPKIT_HOME="$work/home-file" "$OPKIT" $args >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$work/err" >&2; fail "opkit $args with OPKIT_HOME a file: exit $rc, expected 2"; }
  expect_one_error_line
  expect_contains "$work/err" 'home-file: the opkit home .* is not a folder'
done

# --- a FIFO (which would block a read forever), a symlink loop, a missing file:
# one line, exit 2, at once, for each command that reads a file
mkfifo "$work/fifo"
ln -s "$work/loop-a" "$work/loop-b" && ln -s "$work/loop-b" "$work/loop-a"
for args in "sdk add $work/fifo" "package verify $work/fifo" "check $work/fifo" \
            "sdk add $work/loop-a" "package verify $work/loop-a" "check $work/loop-a" \
            "sdk add $work/missing.whl" "package verify $work/missing.tar.gz" "check $work/missing.so"; do
  rc=0
  # shellcheck disable=SC2086
  timeout 20 "$OPKIT" $args >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$work/err" >&2; fail "opkit $args: exit $rc, expected 2 (124: it blocked)"; }
  expect_one_error_line
done

# --- text typed on the command line never reaches generated files unchecked
cd "$work"
run_opkit 2 new inject --tf '1.12-x"]'
expect_one_error_line
expect_contains "$work/err" "1\.12-x\"\]'?: invalid TensorFlow version"
[ ! -e inject ] || fail "new wrote a project from an invalid --tf"

# --- opkit.yaml: duplicate keys, an alias bomb, out-of-range numbers and nodes
# of the wrong kind are one file:line:col line (they once aborted or ran for minutes)
run_opkit 0 new yamlcheck
cd yamlcheck
cp opkit.yaml good.yaml
yaml_refused() { # <regex>: opkit.yaml as it is now is refused, quickly, before anything is built
  local rc=0
  timeout 20 "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$work/err" >&2; fail "opkit.yaml refused with exit $rc, expected 2"; }
  expect_one_error_line
  expect_contains "$work/err" "$1"
  [ ! -e build ] || fail "build/ was made from a refused opkit.yaml"
}
sed 's/^version: 0.1.0$/version: 0.1.0\nversion: 0.2.0/' good.yaml >opkit.yaml
yaml_refused "opkit\.yaml:5:1: duplicate key 'version'"
python3 - <<'PY'
text = open("good.yaml").read()
bomb = "".join(f"    l{i}: &l{i} [*l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}]\n" for i in range(1, 10))
text = text.replace("  tests:\n", "  tests:\n    - name: bomb\n      attrs:\n        l0: &l0 [lol]\n" + bomb.replace("    l", "        l") + "      inputs: {to_zero: {dtype: int32, value: [1]}}\n      outputs: {zeroed: [1]}\n", 1)
open("opkit.yaml", "w").write(text)
PY
yaml_refused 'opkit\.yaml:[0-9]+:[0-9]+: the document expands to more than 100000 nodes'
sed 's/^      outputs: {zeroed: \[\[5, 0\], \[0, 0\]\]}$/&\n      tolerance: 1e999/' good.yaml >opkit.yaml
yaml_refused 'opkit\.yaml:[0-9]+:[0-9]+: tolerance must be a number >= 0'
sed 's/^      outputs: {zeroed: \[\[5, 0\], \[0, 0\]\]}$/&\n      tolerance: abc/' good.yaml >opkit.yaml
yaml_refused 'opkit\.yaml:[0-9]+:[0-9]+: tolerance must be a number >= 0'
sed 's/^    - inputs: {to_zero: {dtype: int32, value: \[\[5, 4\], \[3, 2\]\]}}$/    - inputs: 7/' good.yaml >opkit.yaml
grep -q 'inputs: 7' opkit.yaml || fail "the test's edit of opkit.yaml did not apply"
yaml_refused 'opkit\.yaml'
# Every input the fuzzer found crashing parse_manifest is a seed now; one more by hand: a scalar for a kernel.
sed 's/^    - device: CPU$/    - CPU/' good.yaml >opkit.yaml
yaml_refused 'opkit\.yaml'
# A scalar where a list belongs (once silently read as no kernels at all)
python3 -c "
import re, sys
text = open('good.yaml').read()
text, n = re.subn(r'  kernels:\n(    .*\n)+', '  kernels: CPU\n', text)
assert n == 1, 'no kernels list in good.yaml'
open('opkit.yaml', 'w').write(text)"
yaml_refused "opkit\.yaml:[0-9]+:12: 'kernels' must be a list"
# Op names whose generated Python function would be a keyword (the module
# would not load) or one TensorFlow skips
for op in Pass Class Print; do
  sed "s/^  name: Yamlcheck$/  name: $op/" good.yaml >opkit.yaml
  grep -q "name: $op" opkit.yaml || fail "the test's edit of the op name did not apply"
  yaml_refused "opkit\.yaml:[0-9]+:[0-9]+: op name '$op': TensorFlow"
done
cp good.yaml opkit.yaml

# --- --tf with no version in it is a mistake, not "the defaults"
run_opkit 2 build --tf ""
expect_one_error_line
expect_contains "$work/err" "--tf '': an empty version"
run_opkit 2 build --tf 1.12,
expect_one_error_line
[ ! -e build ] || fail "build/ was made for an empty --tf"
echo "bad_input_hostile: ok"
