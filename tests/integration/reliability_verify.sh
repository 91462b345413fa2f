# `opkit package verify` on packages made to fool it (issue 16): exactly the
# files at their manifest paths, one manifest per package, the manifest's
# types checked, entries hashed as they stream (a 3 GiB entry costs no memory).
source "$(dirname "$0")/common.sh"
mkpkg() { # <out.tar.gz> <manifest JSON or @file> [name=content]... : a package as opkit writes one
  python3 - "$@" <<'PY'
import hashlib, io, json, sys, tarfile
out, manifest, *members = sys.argv[1:]
files = dict(m.split("=", 1) for m in members)
if manifest == "@auto":
    manifest = json.dumps({"schema": "opkit.manifest/1", "files": [
        {"path": p, "size": len(c.encode()), "sha256": hashlib.sha256(c.encode()).hexdigest()}
        for p, c in sorted(files.items()) if not p.startswith("extra/")]})
with tarfile.open(out, "w:gz") as t:
    for name, data in [("opkit-manifest.json", manifest)] + sorted(files.items()):
        info = tarfile.TarInfo(name)
        info.size = len(data.encode())
        t.addfile(info, io.BytesIO(data.encode()))
PY
}

# A sound package verifies.
mkpkg good.tar.gz @auto lib/libop.so=library notes.txt=notes
run_opkit 0 package verify good.tar.gz

# Cut-short archives (libarchive gives no message for some): one line, exit 2.
head -c 46 good.tar.gz >cut.tar.gz
run_opkit 2 package verify cut.tar.gz
expect_one_error_line
expect_contains "$work/err" 'cut\.tar\.gz: (damaged archive|cannot open archive|damaged entry)'

# A swapped library hidden behind a nested manifest listing it: refused.
python3 - <<'PY'
import hashlib, io, json, tarfile
swapped = "evil library"
top = {"schema": "opkit.manifest/1", "files": [
    {"path": "lib/libop.so", "size": 7, "sha256": hashlib.sha256(b"library").hexdigest()}]}
nested = {"schema": "opkit.manifest/1", "files": [
    {"path": "libop.so", "size": len(swapped), "sha256": hashlib.sha256(swapped.encode()).hexdigest()}]}
with tarfile.open("nested.tar.gz", "w:gz") as t:
    for name, data in [("opkit-manifest.json", json.dumps(top)), ("lib/opkit-manifest.json", json.dumps(nested)),
                       ("lib/libop.so", swapped)]:
        info = tarfile.TarInfo(name); info.size = len(data.encode()); t.addfile(info, io.BytesIO(data.encode()))
PY
run_opkit 1 package verify nested.tar.gz
expect_contains "$work/out" 'lib/libop\.so: sha256 or size differs from the manifest'
expect_contains "$work/out" 'lib/opkit-manifest\.json: in the package but not in the manifest'

# Files the manifest does not list, and files it lists that are missing: refused.
mkpkg extra.tar.gz @auto lib/libop.so=library extra/payload.sh=boom
run_opkit 1 package verify extra.tar.gz
expect_contains "$work/out" 'extra/payload\.sh: in the package but not in the manifest'
# An entry twice (the second would win on extraction): refused.
python3 - <<'PY'
import hashlib, io, json, tarfile
m = {"files": [{"path": "lib/libop.so", "size": 7, "sha256": hashlib.sha256(b"library").hexdigest()}]}
with tarfile.open("twice.tar.gz", "w:gz") as t:
    for name, data in [("opkit-manifest.json", json.dumps(m)), ("lib/libop.so", "library"), ("lib/libop.so", "swapped")]:
        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data.encode()))
PY
run_opkit 2 package verify twice.tar.gz
expect_one_error_line
expect_contains "$work/err" 'lib/libop\.so appears twice in the package'

# Manifests of the wrong JSON types: one error line, exit 2 (they once aborted).
i=0
for manifest in '[]' '"x"' '{"files": [1]}' '{"files": [{"path": 7, "size": 1, "sha256": "x"}]}' \
                '{"files": [{"path": "a", "size": 1, "sha256": {"x": 1}}]}' '{"files": "all"}' 'not json'; do
  i=$((i + 1))
  mkpkg "types$i.tar.gz" "$manifest" a=1
  run_opkit 2 package verify "types$i.tar.gz" --json
  expect_one_error_line
  expect_contains "$work/err" "types$i\.tar\.gz: opkit-manifest\.json: "
done

# An entry name that is not text is printed escaped.
python3 - <<'PY'
import io, json, tarfile
with tarfile.open("binary.tar.gz", "w:gz", encoding="utf-8", errors="surrogateescape") as t:
    for name, data in [("opkit-manifest.json", json.dumps({"files": []})), ("bad\udcff\x01name", "x")]:
        info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data.encode()))
PY
run_opkit 1 package verify binary.tar.gz
expect_contains "$work/out" 'bad\\xff\\x01name: in the package but not in the manifest'

# A 3 GiB entry (sparse, so the test stays small) is hashed as it streams.
truncate -s 3G big.bin
printf '{"files": []}' >opkit-manifest.json
tar --sparse -czf big.tar.gz opkit-manifest.json big.bin
rm -f big.bin
python3 - "$OPKIT" <<'PY' || fail "package verify of a 3 GiB entry"
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "package", "verify", "big.tar.gz"], capture_output=True, text=True)
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
assert r.returncode == 1, (r.returncode, r.stderr)
assert "big.bin: in the package but not in the manifest" in r.stdout, r.stdout
assert peak_mb < 200, f"verify held {peak_mb:.0f} MB for a 3 GiB entry"
print(f"3 GiB entry verified in {peak_mb:.0f} MB")
PY
echo "reliability_verify: ok"
