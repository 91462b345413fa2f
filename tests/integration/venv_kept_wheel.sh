#!/usr/bin/env bash
# No second download of a release (issue 51): a wheel `sdk fetch` downloaded
# whole (here: an index that serves no ranges; pip download alike) is kept in
# downloads/, and the release's venv (`opkit test --python`) installs that
# file instead of asking pip for the release again; the index serves the
# wheel once, and the installed wheel leaves downloads/. A stand-in Python
# records what pip is asked (the real venvs: python_tf).
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home" OPKIT_VENVS="$work/venvs" OPKIT_CUDA_TOOLCHAINS="$work/toolchains"
unset OPKIT_INDEX_URL PIP_INDEX_URL

# --- a fetch from an index that serves no ranges: the whole wheel comes, and stays in downloads/
wheel=$(wheel_for 1.12.0)
name=$(basename "$wheel")
mkdir -p "$work/index"
ln -s "$wheel" "$work/index/"
start_index_server "$work/index" ignore-ranges
run_opkit 0 sdk fetch tensorflow==1.12.0 --index-url "$index_url"
expect_contains "$work/out" 'the whole wheel'
[ -f "$OPKIT_HOME/downloads/$name" ] || fail "the whole wheel was not kept in downloads/: $(ls -A "$OPKIT_HOME/downloads")"
cmp -s "$wheel" "$OPKIT_HOME/downloads/$name" || fail "the kept wheel differs from the index's"
# The whole wheel's downloads (a range request the server answered with the whole file is dropped at once).
served() { grep -c "^GET /files/$name range=- status=200 sent=$(stat -L -c %s "$wheel")\$" "$work/index.log" || true; }
[ "$(served)" -eq 1 ] || fail "the wheel was downloaded $(served) times: $(cat "$work/index.log")"

# --- the release's venv installs the kept wheel
cat >"$work/python3.6" <<SH
#!/bin/sh
[ "\$1 \$2" = "-m venv" ] || exit 3
mkdir -p "\$3/bin"
printf '#!/bin/sh\necho "\$*" >>"$work/pip.log"\n' >"\$3/bin/pip"
chmod +x "\$3/bin/pip"
SH
chmod +x "$work/python3.6"
run_opkit 0 new usage_op --tf 1.12
cd usage_op
run_opkit 0 build --no-pch # quicker than the SDK's header, which this test does not need
OPKIT_PYTHON_3_6="$work/python3.6" "$OPKIT" test --python >"$work/out" 2>"$work/err" || true
cd "$work"
grep -q "install .*$OPKIT_HOME/downloads/$name" "$work/pip.log" 2>/dev/null ||
  { cat "$work/err" "$work/pip.log" >&2; fail "the venv did not install the kept wheel"; }
grep -q 'install .*tensorflow==1\.12\.0' "$work/pip.log" && fail "the venv asked pip for tensorflow==1.12.0 again"
[ "$(served)" -eq 1 ] || fail "the wheel was downloaded again: $(cat "$work/index.log")"
[ ! -e "$OPKIT_HOME/downloads/$name" ] || fail "the installed wheel was left in downloads/"

echo "PASS: $test_name"
