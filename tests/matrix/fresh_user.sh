# A new user's first hour with the newest releases (`ctest -L matrix`): a fresh
# OPKIT_HOME, no pip configuration and no --index-url, so opkit finds PyPI by
# pip's default index and fetches by ranges.
#   tensorflow==2.21.0: under 30% of the wheel read, then opkit new, build
#   --tf 2.21 and test (the probe in the real libtensorflow_framework).
#   torch==2.15.0: only the members the SDK keeps read (about a third of the
#   wheel: libtorch_cpu.so alone is about 450 MB unpacked), then opkit new -t
#   torch-op, build --torch 2.15 and test (the real libtorch_cpu).
# It reads about 200 MB from PyPI each run: the home is new every time.
source "$(dirname "$0")/../integration/common.sh"
export OPKIT_HOME="$work/home"
export PIP_CONFIG_FILE=/dev/null
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX PIP_FIND_LINKS

# fetch <requirement> <most of the wheel read, as a fraction>: by ranges, and
# no more than the members the SDK keeps (as the fetch said it would read).
fetch() {
  run_opkit 0 sdk fetch "$1" --json
  cp "$work/out" "$work/fetch.json"
  expect_contains "$work/err" '^fetching [0-9]+ of [0-9]+ members \([0-9.]+ MB of [0-9.]+ MB\) in [0-9]+ range requests'
  python3 - "$work/fetch.json" "$work/err" "$2" <<'PY'
import json, re, sys
f, err, most = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), float(sys.argv[3])
assert f["ranged"] and not f["already_present"], f
share = f["wire_bytes"] / f["wheel_bytes"]
assert share < most, f"read {share:.1%} of {f['wheel']}, more than {most:.0%}"
kept = float(re.search(r"^fetching \d+ of \d+ members \(([0-9.]+) MB of", err, re.M).group(1)) * 1e6
# What comes over the wire beyond the kept members' compressed bytes: the
# central directory, local headers, and the small gaps a request spans
# between two kept members (TF 2.21.0: 59.2 MB for 57.1 MB kept).
assert f["wire_bytes"] <= kept * 1.1 + 1e6, (f["wire_bytes"], kept)
print(f"{f['wheel']}: {f['wire_bytes'] / 1e6:.1f} of {f['wheel_bytes'] / 1e6:.1f} MB ({share:.1%})")
PY
}

fetch tensorflow==2.21.0 0.30
expect_contains "$work/err" '^tensorflow-cpu 2\.21\.0: taking its manylinux_2_27_x86_64 wheel \(the oldest glibc it is published for, 2\.27\)'
cd "$work"
run_opkit 0 new fresh_tf --tf 2.21
cd fresh_tf
run_opkit 0 build --tf 2.21
expect_contains "$work/out" '^tf-2\.21\.0 +built \(3 compiled\) .*/build/tf-2\.21\.0/libfresh_tf\.so$'
run_opkit 0 test
expect_contains "$work/out" '^tensorflow-2\.21\.0: loaded .*libfresh_tf\.so into the real libtensorflow_framework \(2\.21\.0\)'
expect_contains "$work/out" '^  matches opkit.yaml$'

cd "$work"
fetch torch==2.15.0 0.40
run_opkit 0 new fresh_torch -t torch-op --torch 2.15
cd fresh_torch
run_opkit 0 build --torch 2.15
expect_contains "$work/out" '^torch-2\.15\.0-cuda +built '
python3 -c "import json,sys; a=json.load(open('build/torch-2.15.0-cuda/compile_commands.json'))[0]['arguments']; \
assert '-std=c++20' in a, a"
run_opkit 0 test
expect_contains "$work/out" '^torch-2\.15\.0-cuda: loaded .*/libfresh_torch\.so into the real libtorch_cpu \(2\.15\.0\)'
echo "fresh_user: passed" >&2
