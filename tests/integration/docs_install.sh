# The README's install section, run as written (readme_block.py): the block
# between <!-- install --> and <!-- /install -->, from the source folder, in a
# fresh HOME whose ~/.local/bin is on PATH, as Debian's ~/.profile puts it
# once the folder exists. The build folder is the suite's own (nothing left to
# compile), so what this proves is the walk: Debian's packages, the binary,
# its man page and completions installed where the README says, `opkit` found
# on PATH and `man` finding its page with no MANPATH set. The time a fresh
# clone takes is measured by hand (the README states it).
source "$(dirname "$0")/common.sh"
python3 "$OPKIT_SOURCE_DIR/tests/integration/readme_block.py" extract "$OPKIT_SOURCE_DIR/README.md" install \
  "$work/install.sh" "$work/expected.txt" 3 || fail "no install block in README.md"

home="$work/me"
mkdir -p "$home"
rc=0
(
  cd "$OPKIT_SOURCE_DIR"
  unset MANPATH
  export HOME="$home" OPKIT_BUILD_DIR
  OPKIT_BUILD_DIR=$(dirname "$OPKIT")
  PATH="$home/.local/bin:$PATH" bash "$work/install.sh"
) >"$work/run.out" 2>"$work/run.err" || rc=$?
[ "$rc" -eq 0 ] || fail_run "$work/run.out" "$work/run.err" "the README's install section failed (exit $rc)"
python3 "$OPKIT_SOURCE_DIR/tests/integration/readme_block.py" compare "$work/expected.txt" "$work/run.out" "$work/run.err" 1 ||
  fail "the install section shows output the run did not print"

# Where the README says, and the same files as the build made.
share="$home/.local/share"
for file in "$home/.local/bin/opkit" "$share/man/man1/opkit.1" "$share/bash-completion/completions/opkit"; do
  [ -s "$file" ] || fail "the install section installed no $file"
done
cmp -s "$OPKIT" "$home/.local/bin/opkit" || fail "$home/.local/bin/opkit is not the build's opkit"
grep -q "^$share/man/man1/opkit.1" "$work/run.out" || fail "man -w opkit did not find the installed page"
# bash-completion's loader looks in $XDG_DATA_HOME/bash-completion/completions (~/.local/share).
grep -q 'complete -F' "$share/bash-completion/completions/opkit" || fail "the bash completion defines no completion"
echo "PASS: $test_name"
