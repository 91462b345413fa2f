# A 1.12 build with the C++11 ABI flag deliberately wrong links fine, but the
# real loader refuses it; opkit test shows the loader's message and the symbol.
source "$(dirname "$0")/common.sh"
run_opkit 0 new abi_probe
cd abi_probe
# opkit build's own check refuses it ...
run_opkit 1 build --tf 1.12 --abi 1
expect_contains "$work/out" '^tf-1\.12\.0 +CHECK FAILED'
# ... so build it with the check off, and let the real loader speak.
run_opkit 0 build --tf 1.12 --abi 1 --no-check
expect_contains "$work/err" 'building with _GLIBCXX_USE_CXX11_ABI=1'
python3 -c "import json; a=json.load(open('build/tf-1.12.0/compile_commands.json'))[0]['arguments']; \
assert '-D_GLIBCXX_USE_CXX11_ABI=1' in a, a"

run_opkit 1 test --tf 1.12
expect_contains "$work/out" '^tensorflow-1\.12\.0: LOAD FAILED '
# The loader names the missing symbol: one spelled with the new ABI's std::__cxx11 string.
expect_contains "$work/out" 'loader: .*libabi_probe\.so: undefined symbol: _ZN10tensorflow[A-Za-z0-9_]*NSt7__cxx1112basic_string'

# Rebuilt with the SDK's own flag, it loads.
run_opkit 0 build --tf 1.12
expect_contains "$work/out" '^tf-1\.12\.0 +built \(3 compiled\)'
run_opkit 0 test --tf 1.12
expect_contains "$work/out" 'matches opkit.yaml'
