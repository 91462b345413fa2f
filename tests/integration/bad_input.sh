# Bad input: one clear error line, the documented exit code, nothing half-written.
source "$(dirname "$0")/common.sh"

# An invalid project name (`opkit new NAME`): exit 2, no project folder.
for name in 9lives "bad name" "zero__out" "_zero" "class" "int" "pass"; do
  run_opkit 2 new "$name"
  expect_one_error_line
  expect_contains "$work/err" 'invalid project name'
  [ -z "$(ls -A "$work")" ] || [ "$(ls -A "$work")" = "$(printf 'err\nout')" ] || { ls -A "$work"; fail "'$name' left files behind"; }
done

# An existing folder is never overwritten.
mkdir -p taken && touch taken/keep
run_opkit 2 new zero_out --output taken
expect_one_error_line
[ "$(ls -A taken)" = "keep" ] || fail "existing folder was modified"

# A missing SDK: exit 3, the error names the command that would add it, no build output.
run_opkit 0 new zero_out
cd zero_out
run_opkit 3 build --tf 1.12,2.4
expect_one_error_line
expect_contains "$work/err" 'tensorflow 2\.4: no SDK imported .*opkit sdk add'
[ ! -e build ] || fail "build/ was created although an SDK is missing"

# A malformed opkit.yaml: exit 2 with file:line:col, no build output.
cp opkit.yaml opkit.yaml.good
printf 'name: zero_out\nop:\n  name: ZeroOut\n  inputs: [\n' >opkit.yaml
run_opkit 2 build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $work/zero_out/opkit\.yaml:[0-9]+:[0-9]+: invalid YAML"
[ ! -e build ] || fail "build/ was created from a malformed opkit.yaml"

# Well-formed YAML that breaks opkit.yaml's rules: still file:line:col.
sed 's/name: ZeroOut/name: zeroOut/' opkit.yaml.good >opkit.yaml
run_opkit 2 build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "opkit\.yaml:7:9: invalid op name 'zeroOut'"
sed 's/type: T$/type: Q/' opkit.yaml.good >opkit.yaml
run_opkit 2 build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "opkit\.yaml:[0-9]+:[0-9]+: type 'Q' is neither a dtype nor a type attr"
sed 's/^sources:/srcs:/' opkit.yaml.good >opkit.yaml
run_opkit 2 build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "unknown key 'srcs'"
[ ! -e build ] || fail "build/ was created from an invalid opkit.yaml"

# No opkit.yaml at all; an invalid version; an unknown flag.
cd "$work"
run_opkit 2 build
expect_one_error_line
expect_contains "$work/err" 'no opkit\.yaml here'
run_opkit 2 -C zero_out build --tf 2.x
cp zero_out/opkit.yaml.good zero_out/opkit.yaml
run_opkit 2 -C zero_out build --tf 2.x
expect_one_error_line
expect_contains "$work/err" "'2\.x': invalid TensorFlow version"
run_opkit 2 build --no-such-flag

# Compile-sharing settings: a bad build.cache (file:line:col), a bad OPKIT_CACHE,
# and a cache asked for where ccache is missing (exit 3, naming it); nothing built.
printf 'build:\n  cache: maybe\n' >>zero_out/opkit.yaml
run_opkit 2 -C zero_out build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" 'opkit\.yaml:[0-9]+:[0-9]+: build\.cache must be auto, on or off'
cp zero_out/opkit.yaml.good zero_out/opkit.yaml
OPKIT_CACHE=maybe run_opkit 2 -C zero_out build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" 'OPKIT_CACHE: must be auto, on or off'
mkdir -p "$work/nocache-bin"
for tool in g++ ninja; do ln -sf "$(command -v $tool)" "$work/nocache-bin/$tool"; done
PATH="$work/nocache-bin" run_opkit 3 -C zero_out build --tf 2.10.1 --cache
expect_one_error_line
expect_contains "$work/err" 'ccache: not found in PATH'
[ ! -e zero_out/build ] || fail "build/ was created with a missing ccache"

# Symbol names that are not UTF-8 (an untrusted ELF file): --json and a
# captured profile carry U+FFFD for the bad bytes; nothing aborts.
printf 'extern int nowhere __asm__("opkit_bad\\xff\\xfename");\nint defined_bad __asm__("opkit_def\\xffined") = 1;\nint get(void) { return nowhere + defined_bad; }\n' >"$work/bad8.c"
gcc -shared -fPIC -o "$work/libbad8.so" "$work/bad8.c"
run_opkit 1 check "$work/libbad8.so" --runtime host --json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); names=[s['mangled'] for f in r['findings'] for s in f['symbols']]; assert names==['opkit_bad\ufffd\ufffdname'], names" "$work/out"
run_opkit 0 profile capture --lib "$work/libbad8.so" -o "$work/bad8.json"
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); assert any('opkit_def\ufffdined' in str(l['symbols']) for l in p['libraries']), p" "$work/bad8.json"
