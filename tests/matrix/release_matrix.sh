# The release matrix (`ctest -L matrix`; not in the full tier): every
# TensorFlow minor release the index has from 2.4 to the newest, with 1.12 and
# 1.15, and every torch minor release from 2.5 to the newest, each at its
# newest patch, read from the index itself (a new release joins by itself):
#   opkit sdk fetch (by ranges: the fetch's JSON must say so), opkit new with
#   the framework's template, opkit build, opkit check, opkit test (the load
#   probe in the real framework library), and on the oldest and the newest
#   release of each framework opkit test --python (the template's vectors in
#   a real venv of that release, from PyPI).
# It runs as a new user does: no pip configuration (PIP_CONFIG_FILE=/dev/null)
# and no --index-url, so the fetch finds PyPI by pip's default
# (OPKIT_MATRIX_INDEX=URL runs it against another index, given to pip as
# PIP_INDEX_URL).
# It ends by writing the table of each release's derived facts and results
# into docs/framework-facts.md (between its matrix markers), dated.
# MATRIX_ONLY="tensorflow:2.21 torch:2.15" limits it to those (a quick rerun).
# The SDKs stay in a home of the shared cache, so a rerun fetches nothing.
source "$(dirname "$0")/../integration/common.sh"
export OPKIT_HOME="${OPKIT_MATRIX_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/matrix-home}"
mkdir -p "$OPKIT_HOME"
index=${OPKIT_MATRIX_INDEX:-https://pypi.org/simple/}
export PIP_CONFIG_FILE=/dev/null
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX PIP_FIND_LINKS
[ -z "${OPKIT_MATRIX_INDEX:-}" ] || export PIP_INDEX_URL="$OPKIT_MATRIX_INDEX"

# The minor releases, newest patch of each, that the index has: "framework minor" lines.
python3 - "$index" "${MATRIX_ONLY:-}" >"$work/releases" <<'PY' || fail "cannot read the release list from $index"
import json, re, sys, urllib.request
index, only = sys.argv[1].rstrip("/") + "/", sys.argv[2].split()

def versions(project):
    request = urllib.request.Request(index + project + "/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=120) as r:
        doc = json.load(r)
    found = set()
    for f in doc["files"]:
        m = re.match(r"[^-]+-(\d+)\.(\d+)\.(\d+)-.*linux.*x86_64\.whl$", f["filename"])
        if m and not f.get("yanked"):
            found.add(tuple(int(x) for x in m.groups()))
    return found

def minors(found, keep):
    newest = {}
    for v in sorted(found):
        if keep(v[:2]):
            newest[v[:2]] = v
    return [".".join(map(str, v[:2])) for v in sorted(newest)]

tf = minors(versions("tensorflow"), lambda m: m in ((1, 12), (1, 15)) or m >= (2, 4))
torch = minors(versions("torch"), lambda m: m >= (2, 5))
for framework, names in (("tensorflow", tf), ("torch", torch)):
    for minor in names:
        if not only or f"{framework}:{minor}" in only:
            print(framework, minor)
PY
[ -s "$work/releases" ] || fail "no releases to run (MATRIX_ONLY=${MATRIX_ONLY:-})"
echo "matrix: $(wc -l <"$work/releases") releases: $(tr '\n' ' ' <"$work/releases")" >&2
# The oldest and the newest of each framework run test --python too.
python_runs=" $(awk '{ if (!($1 in first)) first[$1] = $2; last[$1] = $2 } END { for (f in first) printf "%s:%s %s:%s ", f, first[f], f, last[f] }' "$work/releases")"

results="$work/results.jsonl"
: >"$results"
failures=0
while read -r framework minor; do
  name="$framework-$minor"
  log="$work/$name.log"
  step=fetch
  status=ok
  # Each release's steps in a subshell that stops at the first failure (set -e
  # holds there only outside a condition: its status is read after it).
  set +e
  (
    set -e
    "$OPKIT" sdk fetch "$framework==$minor" --json >"$work/$name.fetch.json"
    python3 - "$work/$name.fetch.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
if not (f["ranged"] or f["already_present"]):
    sys.exit(f"fetched the whole wheel, not by ranges: {f['wheel']}")
PY
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sdk"]["id"])' "$work/$name.fetch.json")
    "$OPKIT" sdk info "$id" --json >"$work/$name.sdk.json"
    version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$work/$name.sdk.json")
    project="m_${framework}_${minor//./_}"
    cd "$work"
    rm -rf "$project"
    if [ "$framework" = torch ]; then
      "$OPKIT" new "$project" -t torch-op --torch "$version" >/dev/null
    else
      "$OPKIT" new "$project" --tf "$version" >/dev/null
    fi
    cd "$project"
    echo build >"$work/$name.step"
    "$OPKIT" build
    echo check >"$work/$name.step"
    libraries=$(find build -mindepth 2 -maxdepth 2 -name '*.so' | sort)
    [ -n "$libraries" ] || { echo "no library under build/" >&2; exit 1; }
    # shellcheck disable=SC2086 # one path per line, none with a space
    "$OPKIT" check $libraries
    echo test >"$work/$name.step"
    "$OPKIT" test
    if [[ "$python_runs" == *" $framework:$minor "* ]]; then
      echo "test --python" >"$work/$name.step"
      "$OPKIT" test --python
      echo python >"$work/$name.python"
    fi
    echo done >"$work/$name.step"
  ) >"$log" 2>&1
  [ $? -eq 0 ] || status=failed
  set -e
  step=$(cat "$work/$name.step" 2>/dev/null || echo fetch)
  if [ "$status" != ok ]; then
    failures=$((failures + 1))
    echo "matrix: $name failed at $step:" >&2
    tail -5 "$log" >&2
  else
    echo "matrix: $name passed" >&2
  fi
  python3 - "$framework" "$minor" "$status" "$step" "$work/$name.fetch.json" "$work/$name.sdk.json" "$work/$name.python" >>"$results" <<'PY'
import json, os, sys
framework, minor, status, step, fetch, info, python = sys.argv[1:]
row = {"framework": framework, "minor": minor, "status": status, "step": step, "python_ran": os.path.exists(python)}
if os.path.exists(fetch) and os.path.getsize(fetch):
    f = json.load(open(fetch))
    row.update(wheel=f["wheel"], ranged=f["ranged"], wheel_bytes=f["wheel_bytes"], wire_bytes=f["wire_bytes"],
               already=f["already_present"])
if os.path.exists(info) and os.path.getsize(info):
    s = json.load(open(info))
    row.update(id=s["id"], version=s["version"], std=s["cxx_standard"], abi=s["cxx11_abi"], tag=s["wheel_tag"],
               python=s.get("requires_python", ""), library=s["framework_library"], origins=s.get("origins", {}))
print(json.dumps(row))
PY
done <"$work/releases"

# The table, into docs/framework-facts.md between its markers (a partial run,
# MATRIX_ONLY, updates only its own rows).
python3 - "$results" "$OPKIT_SOURCE_DIR/docs/framework-facts.md" <<'PY' || fail "cannot write the table"
import datetime, json, re, sys
results, doc_path = sys.argv[1:]
rows = {}
text = open(doc_path).read()
begin, end = "<!-- matrix:begin -->", "<!-- matrix:end -->"
if begin in text:
    for line in text[text.index(begin):text.index(end)].splitlines():
        m = re.match(r"\| (tensorflow|torch) (\d+\.\d+) \|", line)
        if m:
            rows[(m.group(1), m.group(2))] = line
def short(origin):
    if not origin:
        return "?"
    if origin.startswith("the table"):
        return "table " + origin.split("range ")[-1]
    return origin.replace("the wheel's ", "").split(" (")[0]
today = datetime.date.today().isoformat()
for line in open(results):
    r = json.loads(line)
    o = r.get("origins", {})
    result = (("fetch, build, check, test, test --python pass" if r.get("python_ran") else "fetch, build, check, test pass")
              if r["status"] == "ok" else f"**fails at {r['step']}**")
    read = (f"{100 * r['wire_bytes'] / r['wheel_bytes']:.0f}% by ranges" if r.get("ranged") and r.get("wheel_bytes")
            else "in the store" if r.get("already") else "whole")
    rows[(r["framework"], r["minor"])] = (
        f"| {r['framework']} {r['minor']} | {r.get('version', '?')} | {r.get('tag', '?')} | {r.get('python') or '—'} "
        f"| C++{r.get('std', '?')} ({short(o.get('cxx_standard'))}) | {r.get('abi', '?')} ({short(o.get('cxx11_abi'))}) "
        f"| {short(o.get('version'))} | {read} | {result} ({today}) |")
def key(k):
    return (k[0], tuple(int(x) for x in k[1].split(".")))
table = "\n".join([begin,
    "| release | newest patch | wheel tag | Requires-Python | C++ standard (from) | C++11 ABI (from) | version (from) | wheel read | result |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"] + [rows[k] for k in sorted(rows, key=key)] + [end])
if begin in text:
    text = text[:text.index(begin)] + table + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n## The release matrix\n\nMade by `ctest -L matrix` (tests/matrix/release_matrix.sh): each release's newest patch, fetched from PyPI by ranges, built from the template, checked and probed in the real framework library. Each fact says where it came from: a file of the wheel, or the table's range.\n\n" + table + "\n"
open(doc_path, "w").write(text)
PY
[ "$failures" -eq 0 ] || fail "$failures of $(wc -l <"$work/releases") releases failed (logs: $work/*.log)"
