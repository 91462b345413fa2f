# `opkit profile capture` records a target's real libraries; `opkit check
# --profile` then judges against exactly them. Bad input to check is one line.
source "$(dirname "$0")/common.sh"
fw="$OPKIT_HOME/sdks/tensorflow-2.10.1/lib/libtensorflow_framework.so.2"

run_opkit 0 profile capture -o sys.json --name this-machine
expect_contains "$work/out" '^sys\.json: 8 libraries \(this-machine\)$'
run_opkit 0 profile capture --lib "$fw" --lib "$(g++ -print-file-name=libstdc++.so.6)" -o fw.json
python3 - <<'PY'
import json
p = json.load(open("fw.json"))
assert p["schema"] == "opkit.profile/1"
# The libraries named first, then the system's, each soname once.
(fw, cxx) = p["libraries"][:2]
sonames = [l["soname"] for l in p["libraries"]]
assert len(sonames) == len(set(sonames)) and "libc.so.6" in sonames, sonames
assert fw["soname"] == "libtensorflow_framework.so.2" and fw["framework"] and fw["symbols_known"], fw["soname"]
assert len(fw["symbols"]) > 10000, len(fw["symbols"])
assert "GLIBCXX_3.4.21" in cxx["versions"], cxx["versions"][:5]
PY

run_opkit 0 new captured_op
run_opkit 0 -C captured_op build --tf 2.10.1
lib=captured_op/build/tf-2.10.1/libcaptured_op.so
# The system-only capture plus the SDK's framework (from --tf): loads.
run_opkit 0 check "$lib" --tf 2.10.1 --profile sys.json
expect_contains "$work/out" 'loads against tensorflow 2.10.1 on this-machine$'
# A capture with the framework passed by --lib (as docs/check.md says): the
# system libraries are recorded too, so the op loads without --tf.
run_opkit 0 check "$lib" --profile fw.json --json
python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "loads", r["findings"]
PY
run_opkit 0 profile list
expect_contains "$work/out" '^manylinux2014 +manylinux2014 / manylinux_2_17'
expect_contains "$work/out" '^tensorflow-1\.12 '

# Bad input: one line, exit 2 (3 for a missing SDK), nothing written.
run_opkit 2 check /etc/hostname --runtime host
expect_one_error_line
expect_contains "$work/err" '/etc/hostname: not an ELF file'
run_opkit 2 check "$lib" --runtime centos5
expect_one_error_line
expect_contains "$work/err" "'centos5': unknown runtime"
run_opkit 2 check "$lib" --profile nope.json
expect_one_error_line
echo '{"schema": "opkit.profile/1", "name": 1}' >bad.json
run_opkit 2 check "$lib" --profile bad.json
expect_one_error_line
expect_contains "$work/err" 'bad\.json: malformed profile'
run_opkit 3 check "$lib" --tf 9.9
expect_one_error_line
run_opkit 2 profile capture --lib /etc/hostname -o never.json
expect_one_error_line
[ ! -e never.json ] || fail "a failed capture wrote its output"
