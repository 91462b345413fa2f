# The release matrix (`ctest -L matrix`; not in the full tier): every
# TensorFlow minor release the index has from 2.4 to the newest, with 1.12 and
# 1.15, and every torch minor release from 2.5 to the newest, each at its
# newest patch, read from the index itself (a new release joins by itself):
#   opkit sdk fetch (by ranges: the fetch summary says so), opkit new with
#   the framework's template, opkit build, opkit check, opkit test (the load
#   probe in the real framework library).
# It ends by writing the table of each release's derived facts and results
# into docs/framework-facts.md (between its matrix markers), dated.
# MATRIX_ONLY="tensorflow:2.21 torch:2.15" limits it to those (a quick rerun).
# The SDKs stay in a home of the shared cache, so a rerun fetches nothing.
source "$(dirname "$0")/../integration/common.sh"
export OPKIT_HOME="${OPKIT_MATRIX_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/matrix-home}"
mkdir -p "$OPKIT_HOME"
index=${OPKIT_MATRIX_INDEX:-https://pypi.org/simple/}

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

results="$work/results.jsonl"
: >"$results"
failures=0
while read -r framework minor; do
  name="$framework-$minor"
  log="$work/$name.log"
  step=fetch
  status=ok
  (
    set -e
    "$OPKIT" sdk fetch "$framework==$minor" --index-url "$index" --json >"$work/$name.fetch.json"
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sdk"]["id"])' "$work/$name.fetch.json")
    "$OPKIT" sdk info "$id" --json >"$work/$name.sdk.json"
    project="m_${framework}_${minor//./_}"
    cd "$work"
    rm -rf "$project"
    if [ "$framework" = torch ]; then
      "$OPKIT" new "$project" -t torch-op --torch "$id" >/dev/null
    else
      "$OPKIT" new "$project" --tf "$id" >/dev/null
    fi
    cd "$project"
    echo build >"$work/$name.step"
    "$OPKIT" build
    echo check >"$work/$name.step"
    "$OPKIT" check
    echo test >"$work/$name.step"
    "$OPKIT" test
    echo done >"$work/$name.step"
  ) >"$log" 2>&1 || status=failed
  step=$(cat "$work/$name.step" 2>/dev/null || echo fetch)
  if [ "$status" != ok ]; then
    failures=$((failures + 1))
    echo "matrix: $name failed at $step:" >&2
    tail -5 "$log" >&2
  else
    echo "matrix: $name passed" >&2
  fi
  python3 - "$framework" "$minor" "$status" "$step" "$work/$name.fetch.json" "$work/$name.sdk.json" >>"$results" <<'PY'
import json, os, sys
framework, minor, status, step, fetch, info = sys.argv[1:]
row = {"framework": framework, "minor": minor, "status": status, "step": step}
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
    result = "fetch, build, check, test pass" if r["status"] == "ok" else f"**fails at {r['step']}**"
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
