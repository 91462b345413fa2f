# Packaging on bad input and a full disk (issue "Reliability, third round",
# points 5, 9, 10, 11, 12): each refusal is one error line naming the file the
# user knows (never a hidden staging folder or temporary), the documented exit
# code (2 for bad or hostile input, 4 when the disk is full), and nothing
# partial left behind.
source "$(dirname "$0")/common.sh"
no_staging_named() { # the error line names no internal staging folder or temporary
  if grep -Eq '\.opkit-partial|\.tmp\.[0-9]+\.' "$work/err"; then
    cat "$work/err" >&2
    fail "the error names an internal staging path"
  fi
}

run_opkit 0 new pk
cd pk
run_opkit 0 -q build --tf 1.12
mkdir -p "$work/exp"
echo 'meta_graphs { }' >"$work/exp/saved_model.pbtxt"

# --- 5: EXPORT_DIR/assets a symbolic link to an outside folder: refused, the
# link and the folder untouched (once replaced by a folder of hard links to its files)
mkdir -p "$work/outside"
echo vocab >"$work/outside/vocab.txt"
ln -s ../outside "$work/exp/assets"
run_opkit 2 -q package saved-model "$work/exp" --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'exp/assets: a symbolic link \(to \.\./outside\), not a folder: opkit replaces assets/ as a whole'
[ -L "$work/exp/assets" ] || fail "the assets/ link was replaced"
[ "$(ls -A "$work/outside")" = vocab.txt ] || fail "the outside folder changed: $(ls -A "$work/outside")"
[ "$(stat -c %h "$work/outside/vocab.txt")" = 1 ] || fail "the outside file was hard-linked"
[ -z "$(ls -A "$work/exp" | grep -v -x -e assets -e saved_model.pbtxt)" ] || fail "left in the export: $(ls -A "$work/exp")"
rm "$work/exp/assets"

# --- 10: package verify refuses members an extraction would turn against the
# machine, even when the manifest lists them: exit 2 (hostile archive), not "verified"
hostile_package() { # <out.tar.gz> <member> <type: file|symlink>: a package whose manifest lists the member
  python3 - "$@" <<'PY'
import hashlib, io, json, sys, tarfile
out, member, kind = sys.argv[1:]
data = b"payload"
manifest = {"schema": "opkit.manifest/1", "files": [
    {"path": member, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}]}
with tarfile.open(out, "w:gz") as t:
    text = json.dumps(manifest).encode()
    info = tarfile.TarInfo("opkit-manifest.json"); info.size = len(text); t.addfile(info, io.BytesIO(text))
    info = tarfile.TarInfo(member)
    if kind == "symlink":
        info.type, info.linkname = tarfile.SYMTYPE, "/etc"
        t.addfile(info)
    else:
        info.size = len(data); t.addfile(info, io.BytesIO(data))
PY
}
hostile_package dotdot.tar.gz ../evil.sh file
run_opkit 2 package verify dotdot.tar.gz
expect_one_error_line
expect_contains "$work/err" "dotdot\.tar\.gz: member '\.\./evil\.sh': a path out of the folder it is unpacked in; refusing a hostile archive"
hostile_package deep.tar.gz lib/../../evil.sh file
run_opkit 2 package verify deep.tar.gz
expect_one_error_line
expect_contains "$work/err" "member 'lib/\.\./\.\./evil\.sh': a path out of the folder"
hostile_package absolute.tar.gz /tmp/evil.sh file
run_opkit 2 package verify absolute.tar.gz
expect_one_error_line
expect_contains "$work/err" "member '/tmp/evil\.sh': a path out of the folder"
hostile_package link.tar.gz lib symlink
run_opkit 2 package verify link.tar.gz
expect_one_error_line
expect_contains "$work/err" "link\.tar\.gz: member 'lib': a link or a device, which no opkit package holds"
# The manifest alone naming a path out of the package: refused as hostile too.
python3 - <<'PY'
import io, json, tarfile
manifest = json.dumps({"files": [{"path": "../evil.sh", "size": 1, "sha256": "00"}]}).encode()
with tarfile.open("listed.tar.gz", "w:gz") as t:
    info = tarfile.TarInfo("opkit-manifest.json"); info.size = len(manifest); t.addfile(info, io.BytesIO(manifest))
PY
run_opkit 2 package verify listed.tar.gz
expect_one_error_line
expect_contains "$work/err" "listed\.tar\.gz: opkit-manifest\.json: files\[0\]: path '\.\./evil\.sh' leaves the package's folder"
[ ! -e "$work/evil.sh" ] && [ ! -e /tmp/evil.sh ] || fail "verify wrote a member"

# --- 11: a 65,000-character member name in a wheel: one short line, exit 2
# (once a 65 KB line naming the staging folder, exit 4), nothing left in the store
export OPKIT_HOME="$work/home"
long=$(head -c 65000 /dev/zero | tr '\0' a)
python3 "$OPKIT_SOURCE_DIR/tests/integration/hostile_wheel.py" "$work/long.whl" --entry "tensorflow/include/$long.h=x"
run_opkit 2 -q sdk add "$work/long.whl"
expect_one_error_line
expect_contains "$work/err" "archive entry 'tensorflow/include/a+\.\.\.' \(65021 bytes\): a name longer than opkit keeps"
no_staging_named
[ "$(wc -c <"$work/err")" -lt 600 ] || fail "the error line is $(wc -c <"$work/err") bytes"
[ -z "$(ls -A "$OPKIT_HOME/sdks" 2>/dev/null)" ] || fail "sdk add left in the store: $(ls -A "$OPKIT_HOME/sdks")"
export OPKIT_HOME="$OPKIT_TEST_HOME"

# --- 12: package easyrec --easyrec-dir: a link out of the checkout (to
# /etc/passwd) is refused, nothing written; a link inside it is packed as
# deploy_ext.sh's tar -h packs it
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/easyrec_checkout" "$work/er"
for proto in "$work"/er/easy_rec/python/protos/*.proto; do # generated before: no protoc needed
  echo "# generated" >"${proto%.proto}_pb2.py"
done
ln -s ../version.py "$work/er/easy_rec/python/same_version.py"
ln -s /etc/passwd "$work/er/easy_rec/python/passwd"
run_opkit 2 -q package easyrec --easyrec-dir "$work/er" --version v1 --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'er/easy_rec/python/passwd: a symbolic link to /etc/passwd, outside .*/er: refusing to pack it into a resource meant for upload'
[ -z "$(ls -A dist 2>/dev/null)" ] || fail "package easyrec left in dist/: $(ls -A dist)"
# A linked folder out of the checkout, too.
rm "$work/er/easy_rec/python/passwd"
ln -s /etc "$work/er/easy_rec/python/etc"
run_opkit 2 -q package easyrec --easyrec-dir "$work/er" --version v1 --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'er/easy_rec/python/etc: a symbolic link to /etc, outside '
rm "$work/er/easy_rec/python/etc"
run_opkit 0 -q package easyrec --easyrec-dir "$work/er" --version v1 --tf 1.12
cmp <(tar xzOf dist/easy_rec_ext_v1_res.tar.gz easy_rec/python/same_version.py) "$work/er/easy_rec/version.py" ||
  fail "a link inside the checkout was not packed as its target"
rm -rf dist

# --- 9 and 11: a full disk. Each case runs with a small tmpfs mounted in a
# private mount namespace (unshare -rm: no root needed). Where that cannot be
# had the test fails: it never passes by skipping.
mkdir -p "$work/full"
unshare -rm bash -c "mount -t tmpfs -o size=4k tmpfs '$work/full'" ||
  fail "no private tmpfs (unshare -rm): util-linux's unshare and user namespaces are needed (sysctl kernel.unprivileged_userns_clone=1, or run as root)"
export -f run_opkit fail
export work OPKIT test_name
on_full_disk() { # <size> <bash snippet>: runs it with a tmpfs of <size> on $work/full; $work/left lists what was left there
  unshare -rm bash -c "set -euo pipefail; mount -t tmpfs -o size=$1 tmpfs '$work/full'; $2
                       find '$work/full' -mindepth 1 >'$work/left'"
}
expect_disk_full() { # <regex>: the one error line, with the cause "No space left on device", naming no staging path
  expect_one_error_line
  expect_contains "$work/err" "$1: No space left on device\$"
  no_staging_named
}
expect_left() { # <regex of what may be left>
  if grep -Ev "$1" "$work/left"; then
    fail "left on the full disk (above)"
  fi
}

# An archive into a full folder: "No space left on device", not "Write error"; no temporary left.
on_full_disk 4k 'run_opkit 4 -q package easyrec --version v1 --tf 1.12 --output-dir "$work/full/dist"'
expect_disk_full 'full/dist/easy_rec_ext_v1_overlay\.tar\.gz: cannot write( archive| [^:]+)'
expect_left '/full/dist$'

# package saved-model into an export on a full disk: not "Input/output error"; assets/ not half made.
on_full_disk 16k 'cp "$work/exp/saved_model.pbtxt" "$work/full/"
                  run_opkit 4 -q package saved-model "$work/full" --tf 1.12'
expect_disk_full 'full/assets/libpk\.so: cannot write'
expect_left '/full/saved_model\.pbtxt$'

# package tf-serving's bundle folder on a full disk: named as the bundle's file, no staging folder left.
on_full_disk 4k 'run_opkit 4 -q package tf-serving -o "$work/full/ts"'
expect_disk_full 'full/ts/pk/[^ ]+: cannot write'
expect_left '/full/ts$'

# sdk add into a full store: the wheel named, not the staging folder; nothing left.
python3 "$OPKIT_SOURCE_DIR/tests/integration/hostile_wheel.py" "$work/big.whl" --zeros tensorflow/include/big.h=1000000
on_full_disk 256k 'OPKIT_HOME="$work/full" run_opkit 4 -q sdk add "$work/big.whl"'
expect_disk_full 'big\.whl: include/big\.h: cannot write'
expect_left '/full/(sdks|sdks/\.lock|locks.*)$'

# A build into a full folder ends with an opkit line about the disk, whatever
# step found it full (a file opkit writes, a compile, the link): exit 4.
for size in 24k 96k; do
  on_full_disk "$size" 'CCACHE_DISABLE=1 run_opkit 4 build --tf 1.12 --build-dir "$work/full/b"'
  [ "$(grep -c '^opkit: error: ' "$work/err")" = 1 ] || { cat "$work/err" >&2; fail "a full build folder ($size): not one opkit error"; }
  expect_contains "$work/err" '^opkit: error: .*full/b.*: No space left on device$'
  expect_contains "$work/err" '^opkit: error: [^ ]*full/b(/[^ ]*)?: cannot (build|write)'
  no_staging_named
  if grep -E '/\.[^/]*\.tmp\.|\.opkit-partial' "$work/left"; then
    fail "a full build folder ($size) kept temporaries (above)"
  fi
done
echo "bad_input_packaging: ok"
