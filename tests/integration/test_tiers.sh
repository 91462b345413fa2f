#!/usr/bin/env bash
# The suite's tiers, as CTest sees them (ctest --show-only=json-v1 of this build):
# every test has its own time limit, and one above 900 s says why
# (OPKIT_TIMEOUT_WHY in its environment); the quick tier (ctest -L quick) holds
# the unit tests and the fuzz replays, and no test that needs a TF venv, the
# Debian root or the CUDA wheel, directly or through the fixtures it requires.
source "$(dirname "$0")/common.sh"
build_dir=$(dirname "$OPKIT")
(cd "$build_dir" && ctest --show-only=json-v1) >"$work/tests.json" || fail "ctest --show-only failed in $build_dir"
python3 - "$work/tests.json" <<'PY' || fail "the tiers are not as described"
import json, sys

tests = {}
for test in json.load(open(sys.argv[1]))["tests"]:
    tests[test["name"]] = {p["name"]: p["value"] for p in test.get("properties", [])}

def listed(props, name):
    value = props.get(name, [])
    return value if isinstance(value, list) else [value]

problems = []
for name, props in tests.items():
    limit = props.get("TIMEOUT")
    why = [e for e in listed(props, "ENVIRONMENT") if e.startswith("OPKIT_TIMEOUT_WHY=") and len(e) > 30]
    if limit is None:
        problems.append(f"{name}: no TIMEOUT of its own (CTest's default is 1500 s)")
    elif limit > 900 and not why:
        problems.append(f"{name}: TIMEOUT {limit:.0f} s without OPKIT_TIMEOUT_WHY")

setups = {}  # fixture -> the fixtures its setup tests require
for props in tests.values():
    for fixture in listed(props, "FIXTURES_SETUP"):
        setups.setdefault(fixture, set()).update(listed(props, "FIXTURES_REQUIRED"))

def needs(fixtures, seen=()):
    found = set(fixtures)
    for fixture in fixtures:
        if fixture not in seen:
            found |= needs(setups.get(fixture, ()), seen + (fixture,))
    return found

slow = {"python_tf", "python_torch", "debian11_root", "sdks_cuda"}
quick = sorted(name for name, props in tests.items() if "quick" in listed(props, "LABELS"))
for name in quick:
    bad = needs(listed(tests[name], "FIXTURES_REQUIRED")) & slow
    if bad:
        problems.append(f"{name}: in the quick tier but needs {', '.join(sorted(bad))}")
for name in tests:
    if (name == "unit" or (name.startswith("fuzz.") and name.endswith(".replay"))) and name not in quick:
        problems.append(f"{name}: not in the quick tier")
print(f"{len(tests)} tests, {len(quick)} quick")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems or len(quick) < 20 else 0)
PY
echo "test_tiers: ok"
