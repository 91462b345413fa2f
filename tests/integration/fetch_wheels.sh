# Fixture: the two official wheels, downloaded once with pip into a shared cache.
source "$(dirname "$0")/common.sh"
bash "$OPKIT_SOURCE_DIR/scripts/fetch-wheels.sh" >"$work/wheels"
[ "$(wc -l <"$work/wheels")" -eq 3 ] || fail "expected three wheels"
expect_contains "$work/wheels" 'tensorflow-1\.12\.0-cp36-cp36m-manylinux1_x86_64\.whl$'
expect_contains "$work/wheels" 'tensorflow_cpu-2\.10\.1-cp310-cp310-manylinux.*manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'tensorflow-1\.15\.5-cp37-cp37m-manylinux2010_x86_64\.whl$'
