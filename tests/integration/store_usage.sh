#!/usr/bin/env bash
# What the store costs is shown (issue 51): `sdk list` and `sdk info` give each
# SDK's size in human units (and `cuda` in words), `sdk usage` every part of
# the store with its size, path and what removes it, each equal to `du -s`
# of that path (allocated blocks, which the report names: a sparse file, hard
# links and a link to a big file outside are counted as du counts them, not
# as `du -sb`'s apparent bytes); `sdk gc` removes what it says (the CPU
# findings of a library no longer there, empty pip folders). A wheel `sdk
# fetch` downloaded whole is kept (venv_kept_wheel: the release's venv
# installs it from there).
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home" OPKIT_VENVS="$work/venvs" OPKIT_CUDA_TOOLCHAINS="$work/toolchains"
unset OPKIT_INDEX_URL PIP_INDEX_URL

# --- an SDK fetched by ranges from a local index
wheel=$(wheel_for 1.12.0)
mkdir -p "$work/index"
ln -s "$wheel" "$work/index/"
start_index_server "$work/index"
run_opkit 0 sdk fetch tensorflow==1.12.0 --index-url "$index_url"
expect_contains "$work/out" 'only what the SDK keeps'
[ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "a range fetch left $(ls -A "$OPKIT_HOME/downloads") in downloads/"

# --- sdk list: a size column and the total; --json keeps numbers, equal to du -s
sdk="$OPKIT_HOME/sdks/tensorflow-1.12.0"
du_b() { du -s --block-size=1 "$1" | cut -f1; }
run_opkit 0 sdk list
expect_contains "$work/out" '^tensorflow-1\.12\.0 +1\.12\.0 +[0-9]+\.[0-9] MB  abi=0 c\+\+11 '
expect_contains "$work/out" '^1 SDK, [0-9]+\.[0-9] MB on disk; all the store costs: opkit sdk usage$'
run_opkit 0 sdk list --json
expect_json_schema opkit.sdk-list-1 "$work/out"
listed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["size_bytes"])' "$work/out")
[ "$listed" -eq "$(du_b "$sdk")" ] || fail "sdk list --json size_bytes $listed, du -s $(du_b "$sdk")"
# --- sdk info: the size in human units, cuda in words, no raw JSON
run_opkit 0 sdk info 1.12
expect_contains "$work/out" '^size +[0-9]+\.[0-9] MB on disk$'
expect_contains "$work/out" '^cuda +none \(a CPU build\)$'
! grep -E '^(cuda|warnings|defines) .*[][{}]' "$work/out" || fail "sdk info printed raw JSON"
run_opkit 0 sdk info 1.12 --json
expect_json_schema opkit.sdk-1 "$work/out"
python3 -c 'import json, sys; i = json.load(open(sys.argv[1])); assert i["size_bytes"] == int(sys.argv[2]) and i["cuda"]["is_cuda_build"] is False, i' \
  "$work/out" "$(du_b "$sdk")" || fail "sdk info --json: size_bytes or cuda"

# --- each part, measured as du -s measures it: a sparse file, hard links, a link out, tiny files
mkdir -p "$OPKIT_HOME/pch/gone-sdk/k" "$OPKIT_HOME/portable/p" "$OPKIT_HOME/probes/gone-sdk" \
  "$OPKIT_TEST_WORK/$test_name/toolchains/cuda-0.0" "$OPKIT_HOME/cache/symbols/usr" "$OPKIT_HOME/downloads/pip-x-1"
truncate -s 50M "$OPKIT_HOME/pch/gone-sdk/k/sparse.gch"
head -c 3000000 /dev/urandom >"$OPKIT_HOME/portable/p/members.a"
ln "$OPKIT_HOME/portable/p/members.a" "$OPKIT_HOME/portable/p/again.a"
ln -s "$wheel" "$OPKIT_HOME/probes/gone-sdk/link-out.whl"
for i in $(seq 40); do echo "$i" >"$OPKIT_HOME/cache/symbols/usr/f$i.idx"; done
echo stray >"$OPKIT_HOME/stray.txt"
run_opkit 0 sdk usage --json
expect_json_schema opkit.sdk-usage-1 "$work/out"
cp "$work/out" "$work/usage.json"
python3 - "$work/usage.json" "$OPKIT_HOME" <<'PY' || fail "sdk usage --json differs from du"
import json, os, subprocess, sys
report, home = json.load(open(sys.argv[1])), sys.argv[2]
assert report["measure"] == "allocated", report["measure"]
def du(path, *flags):
    out = subprocess.run(["du", "-s", *flags, path], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])
names = [p["name"] for p in report["parts"]]
for wanted in ["sdks", "pch", "portable", "probes", "venvs", "toolchains", "downloads", "cpu_findings",
               "symbol_indexes", "locks", "other"]:
    assert wanted in names, (wanted, names)
for part in report["parts"]:
    if part["name"] == "other":
        measured = sum(du(os.path.join(home, item["name"]), "--block-size=1") for item in part["items"])
        assert [i["name"] for i in part["items"]] == ["stray.txt"], part["items"]
    elif os.path.lexists(part["path"]):
        measured = du(part["path"], "--block-size=1")
        assert measured == du(part["path"], "-k") * 1024, part["path"]
    else:
        measured = 0
    assert abs(part["bytes"] - measured) <= measured / 100, (part["name"], part["bytes"], measured)
    assert part["removed_by"], part["name"]
    print(f'{part["name"]}: {part["bytes"]} (du -s: {measured})')
assert report["total_bytes"] == sum(p["bytes"] for p in report["parts"])
parts = {p["name"]: p for p in report["parts"]}
items = {(p["name"], i["name"]): i["bytes"] for p in report["parts"] for i in p["items"]}
# allocated, not apparent: the sparse 50 MB header takes almost nothing, a hard link counts once,
# a link counts itself, not the wheel it leads to
sparse = os.path.join(home, "pch", "gone-sdk")
assert items["pch", "gone-sdk"] < 1_000_000 < du(sparse, "-b"), (items["pch", "gone-sdk"], du(sparse, "-b"))
assert 3_000_000 <= items["portable", "p"] < 3_200_000, items["portable", "p"]
assert items["probes", "gone-sdk"] < 100_000, items["probes", "gone-sdk"]
assert parts["sdks"]["items"][0]["name"] == "tensorflow-1.12.0", parts["sdks"]["items"]
assert parts["downloads"]["removed_by"][-1].startswith("opkit sdk gc --downloads"), parts["downloads"]
PY
run_opkit 0 sdk usage
expect_contains "$work/out" "^opkit's store in $OPKIT_HOME \(sizes: disk space allocated, as \`du -s\` counts it\)$"
for title in SDKs 'precompiled headers' 'portable archives' 'load probes' 'Python venvs' 'CUDA toolchains' \
  downloads 'CPU findings' 'symbol indexes' locks; do
  expect_contains "$work/out" "^$title +[0-9.]+ [kMG]?B +[0-9]+ files? +/"
done
expect_contains "$work/out" "^ +[0-9.]+ [kMG]?B  $OPKIT_HOME/stray\.txt$"
expect_contains "$work/out" '^ +removed by: opkit sdk remove SDK$'
expect_contains "$work/out" '^total +[0-9.]+ [kMG]?B$'

# --- gc removes what it says: pip's folders, the probe and headers of a removed SDK, the CPU findings of a
# library no longer there (and not those of one still there)
mkdir -p "$OPKIT_HOME/cache/cpu/aaaa" "$OPKIT_HOME/cache/cpu/bbbb"
printf '{"key": "cpu 2\\n%s\\n1\\n"}\n' "$work/gone/libx.so" >"$OPKIT_HOME/cache/cpu/aaaa/cpu-1.json"
printf '{"key": "cpu 2\\n%s\\n1\\n"}\n' "$wheel" >"$OPKIT_HOME/cache/cpu/bbbb/cpu-1.json"
run_opkit 0 sdk gc --json
expect_json_schema opkit.sdk-gc-1 "$work/out"
for gone in downloads/pip-x-1 pch/gone-sdk probes/gone-sdk cache/cpu/aaaa; do
  [ ! -e "$OPKIT_HOME/$gone" ] || fail "sdk gc left $gone"
  grep -qF "$OPKIT_HOME/$gone\"" "$work/out" || fail "sdk gc did not report $gone: $(cat "$work/out")"
done
[ -d "$OPKIT_HOME/cache/cpu/bbbb" ] || fail "sdk gc removed the CPU findings of a library still there"
echo "PASS: $test_name"
