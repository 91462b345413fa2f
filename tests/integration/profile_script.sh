# `opkit profile script` prints the sh script that records a target opkit cannot
# run on (CentOS 7) with nothing but its Python (2.7 or 3). Run inside a real
# older system (the Debian 11 root, with the root's own python3) and here (pyenv's
# Python 2.7 and 3.6, this machine's python3), it gives the profile `opkit profile
# capture` makes of the same system, equal as JSON, and `opkit check --profile`
# judges with it as with the capture. Bad input is one line, exit 2, no output;
# no Python is exit 3.
source "$(dirname "$0")/common.sh"
root=$(cat "$OPKIT_TEST_HOME/debian11-root.path")
[ -x "$root/usr/bin/python3" ] || fail "no Debian 11 root: run the debian11_root fixture (scripts/debian11-root.sh)"
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
newest() { ls -d "$pyenv_root"/versions/"$1".*/bin/python"$1" 2>/dev/null | sort -V | tail -n 1; }
python27=$(newest 2.7)
python36=$(newest 3.6)
[ -n "$python27" ] || fail "no Python 2.7 in $pyenv_root/versions (pyenv install 2.7.18)"
[ -n "$python36" ] || fail "no Python 3.6 in $pyenv_root/versions (pyenv install 3.6.15)"

run_opkit 0 profile script
cp "$work/out" capture.sh
expect_contains capture.sh '^#!/bin/sh$'
[ ! -s "$work/err" ] || fail "opkit profile script wrote to stderr"

# same_profile <script's> <capture's> [root]: equal as JSON values. A capture
# with --root says where it read ("... captured from ROOT"); the script, run in
# that system, says what capture run there would ("N libraries captured").
same_profile() {
  python3 - "$@" <<'PY' || fail "$1 differs from $2"
import json, sys
script, capture = (json.load(open(path)) for path in sys.argv[1:3])
if len(sys.argv) > 3:
    assert capture.pop("description") == "%d libraries captured from %s" % (len(capture["libraries"]), sys.argv[3])
    assert script.pop("description") == "%d libraries captured" % len(script["libraries"]), script["description"]
    # A root is files: its capture records no CPU; the script, run on a machine, records that machine's.
    assert "cpu" not in capture, capture["cpu"]
    script.pop("cpu", None)
else:
    assert capture["cpu"]["flags"] and script["cpu"] == capture["cpu"], (script.get("cpu"), capture.get("cpu"))
if script != capture:
    for key in capture:
        if script.get(key) != capture[key]:
            print("differs at %r" % key, file=sys.stderr)
    for mine, theirs in zip(script["libraries"], capture["libraries"]):
        for key in theirs:
            if mine.get(key) != theirs[key]:
                print("%s: %r differs: %.300r vs %.300r" % (theirs["soname"], key, mine.get(key), theirs[key]),
                      file=sys.stderr)
    sys.exit(1)
PY
}

# 1. Inside the Debian 11 root, with only what the root has (its /bin/sh, its
# /usr/bin/python3): the script is copied into a scratch folder, removed on exit.
scratch=$(mktemp -d "$root/tmp/opkit-profile-script.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp capture.sh "$scratch/capture.sh"
rc=0
unshare --mount --pid --fork --mount-proc="$root/proc" \
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin /bin/sh "/${scratch#"$root"/}/capture.sh" --name debian-11 \
  >root-script.json 2>root.err || rc=$?
[ "$rc" -eq 0 ] || { cat root.err >&2; fail "the script exited $rc in the Debian 11 root"; }
[ ! -s root.err ] || { cat root.err >&2; fail "the script wrote to stderr in the Debian 11 root"; }
run_opkit 0 profile capture --root "$root" --name debian-11 -o root-capture.json
same_profile root-script.json root-capture.json "$root"
python3 - <<'PY' || fail "root-script.json is not the Debian 11 root's"
import json
libs = {l["soname"]: l for l in json.load(open("root-script.json"))["libraries"]}
assert len(libs) == 8, sorted(libs)
assert libs["libc.so.6"]["path"] == "/lib/x86_64-linux-gnu/libc.so.6", libs["libc.so.6"]["path"]
assert "GLIBC_2.30" in libs["libc.so.6"]["versions"] and "GLIBC_2.32" not in libs["libc.so.6"]["versions"]
assert "GLIBCXX_3.4.28" in libs["libstdc++.so.6"]["versions"] and "GLIBCXX_3.4.29" not in libs["libstdc++.so.6"]["versions"]
assert ["memcpy", "GLIBC_2.2.5", True] in libs["libc.so.6"]["symbols"]
assert ["memcpy", "GLIBC_2.14", False] in libs["libc.so.6"]["symbols"]
PY

# 2. This machine, under Python 2.7, 3.6 (CentOS 7's two) and its own python3.
run_opkit 0 profile capture --name this-machine -o host-capture.json
for python in "$python27" "$python36" python3; do
  rc=0
  OPKIT_PYTHON=$python sh capture.sh --name this-machine >host-script.json 2>host.err || rc=$?
  [ "$rc" -eq 0 ] || { cat host.err >&2; fail "the script exited $rc under $python"; }
  [ ! -s host.err ] || { cat host.err >&2; fail "the script wrote to stderr under $python"; }
  same_profile host-script.json host-capture.json
done

# --lib as capture takes it: the path as given (a relative symlink here),
# read where it leads; a library without SONAME is named after that path.
libstdcxx=$(python3 -c 'import json, sys; print([l["path"] for l in json.load(open(sys.argv[1]))["libraries"] if l["soname"] == "libstdc++.so.6"][0])' host-capture.json)
ln -s "$libstdcxx" cxx-alias.so
printf 'int opkit_answer(void) { return 42; }\n' >answer.c
cc -shared -fPIC -o libanswer.so answer.c
ln -s libanswer.so answer-link.so
run_opkit 0 profile capture --name picked --lib cxx-alias.so --lib answer-link.so -o picked-capture.json
OPKIT_PYTHON=$python27 sh capture.sh --name picked --lib cxx-alias.so --lib=answer-link.so >picked-script.json ||
  fail "the script failed with --lib"
same_profile picked-script.json picked-capture.json
python3 - <<'PY' || fail "picked-script.json did not record the libraries as given"
import json
libraries = json.load(open("picked-script.json"))["libraries"]
cxx, answer = libraries[:2]  # the named ones first, then the system's without a second libstdc++
sonames = [l["soname"] for l in libraries]
assert sonames.count("libstdc++.so.6") == 1 and "libc.so.6" in sonames, sonames
assert (cxx["soname"], cxx["path"]) == ("libstdc++.so.6", "cxx-alias.so"), cxx["path"]
assert (answer["soname"], answer["path"]) == ("answer-link.so", "answer-link.so"), answer["soname"]
assert ["opkit_answer", "", False] in answer["symbols"], answer["symbols"]
PY

# The interpreter it picks: python3, then python, then python2 (on PATH only).
mkdir pythons
for name in python3 python python2; do
  printf '#!/bin/sh\necho %s >>"%s/picked"\nexec "%s" "$@"\n' "$name" "$work" "$python27" >"pythons/$name"
  chmod +x "pythons/$name"
done
for expected in python3 python python2; do
  rm -f picked
  env -i PATH="$work/pythons" /bin/sh capture.sh --name this-machine >host-script.json || fail "no profile with $expected"
  [ "$(cat picked)" = "$expected" ] || fail "the script ran $(cat picked), expected $expected"
  rm "pythons/$expected"
done
same_profile host-script.json host-capture.json

# 3. opkit check judges with the script's profiles as with the captures: this
# machine's libstdc++ loads here, and needs glibc versions Debian 11 lacks.
sh capture.sh --name this-machine >host-script.json
run_opkit 0 check "$libstdcxx" --profile host-script.json
expect_contains "$work/out" 'loads against this-machine$'
# The root's capture records no CPU and the script's records this machine's,
# so the libraries are compared without the CPU check (on a CPU without
# RDSEED libstdc++'s std::random_device is a cpu-feature warning in one only).
run_opkit 1 check "$libstdcxx" --profile root-script.json --cpu none --json
cp "$work/out" check-script.json
expect_contains check-script.json 'the target provides libc\.so\.6 up to GLIBC_2\.30'
run_opkit 1 check "$libstdcxx" --profile root-capture.json --cpu none --json
python3 - check-script.json "$work/out" <<'PY' || fail "check judged the script's profile differently from the capture's"
import json, sys
script, capture = (json.load(open(path)) for path in sys.argv[1:])
assert script["verdict"] == capture["verdict"] == "fails", (script["verdict"], capture["verdict"])
assert script["findings"] == capture["findings"]
assert any(f["kind"] == "version-too-new" for f in script["findings"]), script["findings"]
PY

# 4. Bad input: exit 2, one line naming the file, nothing on stdout; as capture says.
head -c 100 "$libstdcxx" >truncated.so
echo 'not a library' >notes.txt
# expect_script_error <code> <regex> <python or ""> <args...>
expect_script_error() {
  local code=$1 pattern=$2 python=$3 rc=0
  shift 3
  OPKIT_PYTHON=$python sh capture.sh "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" -eq "$code" ] || { cat "$work/err" >&2; fail "capture.sh $* under '$python' exited $rc, expected $code"; }
  [ ! -s "$work/out" ] || fail "capture.sh $* under '$python' wrote to stdout on error"
  expect_one_error_line
  expect_contains "$work/err" "$pattern"
}
for python in "$python27" "$python36" python3; do
  expect_script_error 2 "^opkit: error: .*/truncated\.so: truncated or malformed ELF: " "$python" --lib truncated.so
  expect_script_error 2 "^opkit: error: .*/notes\.txt: not an ELF file$" "$python" --lib "$libstdcxx" --lib notes.txt
  expect_script_error 2 "^opkit: error: .*/missing\.so: no such library$" "$python" --lib missing.so
  expect_script_error 2 "^opkit: error: --bogus: unknown argument" "$python" --bogus
  expect_script_error 2 "^opkit: error: --name: needs a value" "$python" --name
done
run_opkit 2 profile capture --lib truncated.so -o never.json
expect_one_error_line
run_opkit 2 profile capture --lib notes.txt -o never.json
expect_contains "$work/err" 'notes\.txt: not an ELF file$'

# No Python: exit 3, one line.
mkdir no-python
rc=0
env -i PATH="$work/no-python" /bin/sh capture.sh >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 3 ] || fail "with no Python the script exited $rc, expected 3"
[ ! -s "$work/out" ] || fail "with no Python the script wrote to stdout"
expect_one_error_line
expect_contains "$work/err" 'no Python on PATH'
expect_script_error 3 "OPKIT_PYTHON=$work/no-python/python3: no such interpreter" "$work/no-python/python3"
