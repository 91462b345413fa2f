# Outputs are complete or absent (issue 16): a build killed at random moments
# never leaves a cut-short library where packages look; package refuses a
# library that is not what opkit build recorded (cut short, changed, or its
# record damaged); a package killed at random moments leaves the old archive or
# the new one; two packages written at once into one dist/ are both whole.
# OPKIT_KILL_ROUNDS sets how many kills (5 here; the acceptance run uses 20).
source "$(dirname "$0")/common.sh"
rounds=${OPKIT_KILL_ROUNDS:-5}
run_opkit 0 new sure_op
cd sure_op
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init
lib=build/tf-1.12.0/libsure_op.so

# --- kill -9 of opkit build at random moments: the library is absent or whole, a rerun builds it
for round in $(seq "$rounds"); do
  rm -rf build
  "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.3, 6.0), 2))")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # ninja dies with opkit (PR_SET_PDEATHSIG), and its compilers with it.
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=""
    for p in $(pgrep -x ninja || true); do
      case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$work"/*) left="$left $p" ;; esac
    done
    [ -z "$left" ] && break
    sleep 0.3
  done
  [ -z "$left" ] || fail "round $round: ninja (pids$left) still runs 3 s after opkit build was killed"
  if [ -e "$lib" ]; then
    python3 - "$lib" <<'PY' || fail "round $round: a killed build left $lib cut short"
import sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF" and len(data) > 4096, len(data)
PY
  fi
  run_opkit 0 build --tf 1.12
  [ -s "$lib" ] || fail "round $round: the rerun did not build $lib"
  run_opkit 0 package easyrec --tf 1.12 --version "k$round" --no-build
  run_opkit 0 package verify "dist/easy_rec_ext_k${round}_overlay.tar.gz"
done
# No leftover temporary link outputs either.
[ -z "$(find build -name '*.tmp')" ] || fail "temporary link outputs left: $(find build -name '*.tmp')"

# --- package refuses a library that is not what the build recorded, and writes nothing
rm -rf dist
cp "$lib" "$work/good.so"
: >"$lib"                         # what a kill during the link used to leave
touch -r "$work/good.so" "$lib"
run_opkit 2 package easyrec --tf 1.12 --version cut --no-build
expect_one_error_line
expect_contains "$work/err" 'libsure_op\.so: not a complete library .*rerun `opkit build`'
cp "$work/good.so" "$lib" && printf 'x' >>"$lib"
run_opkit 2 package easyrec --tf 1.12 --version changed --no-build
expect_one_error_line
expect_contains "$work/err" 'libsure_op\.so: differs from the library .*opkit-build\.json records'
cp "$work/good.so" "$lib"
cp build/tf-1.12.0/opkit-build.json "$work/record.json"
printf '{"libraries": [1' >build/tf-1.12.0/opkit-build.json
run_opkit 2 package easyrec --tf 1.12 --version damaged --no-build
expect_one_error_line
expect_contains "$work/err" "opkit-build\.json: not a record opkit build wrote"
cp "$work/record.json" build/tf-1.12.0/opkit-build.json
[ ! -e dist ] || [ -z "$(ls -A dist)" ] || fail "a refused package wrote $(ls -A dist)"

# --- SOURCE_DATE_EPOCH past what a zip can hold is refused
SOURCE_DATE_EPOCH=99999999999999 run_opkit 2 package easyrec --tf 1.12 --version epoch --no-build
expect_one_error_line
expect_contains "$work/err" "SOURCE_DATE_EPOCH='99999999999999': not a number of seconds between 0 and"

# --- text that would become a METADATA header line is one printable line
run_opkit 2 package wheel --tf 1.12 --no-build --requires $'tensorflow\nRequires-Dist: evil'
expect_one_error_line
expect_contains "$work/err" "--requires 'tensorflow\\\\nRequires-Dist: evil': a requirement is one line of printable text"
[ ! -e dist ] || [ -z "$(ls -A dist)" ] || fail "a refused wheel wrote $(ls -A dist)"

# --- kill -9 of opkit package at random moments: dist/ holds the old archive or
# the complete new one (never a cut-short one), and a rerun writes the new one.
# The two differ only in SOURCE_DATE_EPOCH, so each is known byte for byte.
rm -rf dist
archive=dist/easy_rec_ext_kp_overlay.tar.gz
SOURCE_DATE_EPOCH=1700000000 run_opkit 0 package easyrec --tf 1.12 --version kp --no-build
cp "$archive" "$work/new.tar.gz"
start=$(date +%s.%N)
SOURCE_DATE_EPOCH=1600000000 run_opkit 0 package easyrec --tf 1.12 --version kp --no-build
took=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
cp "$archive" "$work/old.tar.gz"
cmp -s "$work/old.tar.gz" "$work/new.tar.gz" && fail "the archives for two SOURCE_DATE_EPOCHs are identical: the test proves nothing"
# Kills that come after package ended prove nothing: rounds go on (up to four
# times as many) until at least one came while it ran.
killed_during=0 round=0
while [ "$round" -lt "$rounds" ] || { [ "$killed_during" -eq 0 ] && [ "$round" -lt $((rounds * 4)) ]; }; do
  round=$((round + 1))
  cp "$work/old.tar.gz" "$archive"
  delay=$(python3 -c "import random, sys; print(round(random.uniform(0, float(sys.argv[1])), 3))" "$took")
  SOURCE_DATE_EPOCH=1700000000 "$OPKIT" package easyrec --tf 1.12 --version kp --no-build >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  rc=0
  wait "$pid" 2>/dev/null || rc=$?
  [ "$rc" -eq 137 ] && killed_during=$((killed_during + 1))
  cmp -s "$archive" "$work/old.tar.gz" || cmp -s "$archive" "$work/new.tar.gz" ||
    fail "round $round: a package killed after $delay s left $archive neither the old nor the new archive"
  # What a kill may leave besides: its hidden temporary, never another visible file.
  [ -z "$(ls -A dist | grep -v -e '^easy_rec_ext_kp_overlay\.tar\.gz$' -e '^\.easy_rec_ext_kp_overlay\.tar\.gz\.tmp\.')" ] ||
    fail "round $round: a killed package left $(ls -A dist)"
  SOURCE_DATE_EPOCH=1700000000 run_opkit 0 package easyrec --tf 1.12 --version kp --no-build
  cmp -s "$archive" "$work/new.tar.gz" || fail "round $round: the rerun after a kill did not write the new archive"
  # The rerun removed what the killed one left (its temporary is unlocked now).
  [ -z "$(ls -A dist | grep -v '^easy_rec_ext_kp_overlay\.tar\.gz$')" ] ||
    fail "round $round: after the rerun dist/ still holds $(ls -A dist)"
  run_opkit 0 package verify "$archive"
done
package_kills=$round
[ "$killed_during" -ge 1 ] || fail "none of $package_kills kills came while package ran ($took s): the test proves nothing"

# --- two packages into one dist/ at once: both succeed, and the archive is whole
for round in 1 2 3; do
  rm -rf dist
  "$OPKIT" package easyrec --tf 1.12 --version same --no-build >"$work/a.out" 2>"$work/a.err" &
  a=$!
  "$OPKIT" package easyrec --tf 1.12 --version same --no-build >"$work/b.out" 2>"$work/b.err" &
  b=$!
  wait "$a" || fail "round $round: the first concurrent package failed: $(cat "$work/a.err")"
  wait "$b" || fail "round $round: the second concurrent package failed: $(cat "$work/b.err")"
  run_opkit 0 package verify dist/easy_rec_ext_same_overlay.tar.gz
  [ -z "$(ls -A dist | grep -v '^easy_rec_ext_same_overlay\.tar\.gz$')" ] || fail "leftovers in dist/: $(ls -A dist)"
done
echo "reliability_outputs: ok ($rounds kills of build, $package_kills of package, $killed_during of them while it ran)"
