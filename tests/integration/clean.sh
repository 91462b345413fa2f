#!/usr/bin/env bash
# opkit clean [--all]: the build folder goes, under its lock (a running build
# is waited for; --no-wait refuses, exit 4); --all also removes the project's
# libraries' CPU findings kept in $OPKIT_HOME/cache/cpu, a library's removed
# from the folder since included; nothing outside the
# project is ever removed.
source "$(dirname "$0")/common.sh"
command -v flock >/dev/null || fail "flock (util-linux) is missing: apt-get install util-linux"
run_opkit 0 new clean_op
cd clean_op
run_opkit 0 clean
expect_contains "$work/out" '^nothing to remove: no build/$'
run_opkit 0 build --tf 1.12
[ -f build/tf-1.12.0/libclean_op.so ] || fail "the build made no library"

# --- a build holds the folder: --no-wait refuses naming it, plain clean waits for it
printf 'opkit build --tf 9.9 (pid 4242)' >build/.opkit-build.lock
flock build/.opkit-build.lock sleep 3 &
holder=$!
sleep 0.5
run_opkit 4 clean --no-wait
expect_one_error_line
expect_contains "$work/err" 'build: in use by opkit build --tf 9\.9 \(pid 4242\)'
[ -f build/tf-1.12.0/libclean_op.so ] || fail "clean --no-wait removed the held folder"
run_opkit 0 clean
expect_contains "$work/err" 'waiting for opkit build --tf 9\.9 \(pid 4242\) to finish'
expect_contains "$work/out" '^removed build/ \([0-9.]+ [KMG]?i?B\)$'
wait "$holder"
[ ! -e build ] || fail "clean left $(find build)"

# --- --all: also the CPU findings kept for this project's libraries (those removed since included), and no others
kept() { grep -rlF -- "$PWD/build/" "$OPKIT_HOME/cache/cpu" 2>/dev/null | wc -l || true; }
run_opkit 0 build --tf 1.12 --cpu x86-64-v2
[ "$(kept)" -ge 1 ] || fail "the build kept no CPU findings for $PWD/build"
total() { find "$OPKIT_HOME/cache/cpu" -type f | wc -l; }
others=$(($(total) - $(kept)))
# A library removed since it was checked (renamed, dropped from opkit.yaml): its findings go too.
rm build/tf-1.12.0/libclean_op.so
run_opkit 0 clean --all
expect_contains "$work/out" '^removed [1-9][0-9]* kept CPU findings? from '
[ "$(kept)" -eq 0 ] || fail "clean --all left CPU findings of $PWD/build"
[ "$(total)" -eq "$others" ] || fail "clean --all removed other projects' CPU findings"
[ ! -e build ] || fail "clean --all left the build folder"

# --- never outside the project: its parent, itself, a link out of it
mkdir ../elsewhere
touch ../elsewhere/keep
ln -s ../elsewhere linked
for dir in .. . linked ../elsewhere /; do
  run_opkit 2 clean --build-dir "$dir"
  expect_one_error_line
  expect_contains "$work/err" 'not a folder inside the project .*: opkit clean removes nothing outside it'
done
[ -f ../elsewhere/keep ] || fail "clean removed ../elsewhere/keep"
[ -f opkit.yaml ] || fail "clean removed the project"

# --- from a folder inside the project, as build does; none outside a project
mkdir -p build/tf-1.12.0
cd src
run_opkit 0 clean
[ ! -e ../build ] || fail "clean from src/ left the build folder"
cd "$work"
run_opkit 2 clean
expect_contains "$work/err" 'no opkit.yaml here or in any folder above'
echo "PASS: $test_name"
