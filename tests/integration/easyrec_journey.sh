# The EasyRec user's whole journey with EasyRec's own release (pai-easy-rec
# 0.7.1 from PyPI, in a Python 3.6 venv with the real TF 1.12.0) and no
# stand-in: scripts/easyrec-journey.sh makes the op and its layer for the
# checkout's release, builds, tests and packs them, trains, evaluates and
# exports from the unpacked resource in TF 1.12, adds the 2.10.1 library to the
# export's assets/ and serves it in the real TF 2.10.1, whose predictions must
# equal TF 1.12's on the same export and whose op must agree with Python.
# Then what must fail does: the model without the asset ("Op type not
# registered"), a kernel whose output is broken (the op disagrees with
# Python), the 1.12 library packed as the asset (2.10.1 cannot load it), and
# `package saved-model` of a 2.10.1 export with --tf 1.12 (exit 1, nothing written).
source "$(dirname "$0")/common.sh"
export TF_CPP_MIN_LOG_LEVEL=3
journey="$work/journey"
scripts="$OPKIT_SOURCE_DIR/scripts"

OPKIT="$OPKIT" bash "$scripts/easyrec-journey.sh" "$journey" >"$work/journey.out" ||
  fail "the journey failed (its logs: $journey/logs)"
cat "$work/journey.out"
expect_contains "$work/journey.out" '^served by TF 2\.10\.1 \(library libterm_match\.so from assets/\), 16 rows'
expect_contains "$journey/logs/new.log" '^for EasyRec 0\.7\.1: raw strings as IdFeature columns'
expect_contains "$journey/logs/test-python.log" '^tensorflow 1\.12\.0 \(Python\)'
expect_contains "$journey/logs/test-python.log" '^tensorflow 2\.10\.1 \(Python\)'
[ "$(grep -c "^  all test vectors match$" "$journey/logs/test-python.log")" -eq 2 ] || fail "opkit test --python did not match in both versions"
# The resource held the stock 1.12 library and the serving one, and the layer
# was resolved by EasyRec's own lookup from easy_rec.python.layers.keras.
tar tzf "$journey"/term_match/dist/easy_rec_ext_0.7.1_res.tar.gz >"$work/members"
grep -qx 'easy_rec/python/ops/1.12/libterm_match.so' "$work/members" || fail "no ops/1.12 library in the resource"
grep -qx 'easy_rec/python/ops/2.10/libterm_match.so' "$work/members" || fail "no ops/2.10 library in the resource"
expect_contains "$journey/logs/train-1.12.log" "TermMatchLayer|term_match"
er_python=$(bash "$scripts/easyrec-env.sh")
tf210_python="$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python"
export_dir=$(ls -d "$journey"/resource/export/*/ | tail -n 1)
export_dir=${export_dir%/}
python3 - "$journey/served.json" <<'PY' || fail "served.json"
import json, sys
served = json.load(open(sys.argv[1]))
op = served["op"]
assert op["max_abs_diff"] <= 1e-6 and len(op["outputs"]) == 16, op
assert any(0 < x < 1 for x in op["python"]) and any(x == 1 for x in op["python"]), "rows without variety"
assert len(set(round(p, 6) for p in served["predictions"]["probs"])) > 1, "the model predicts one value"
PY

# Without the asset library the 2.10.1 process cannot even load the model.
rc=0
"$tf210_python" "$scripts/easyrec/predict.py" --export "$export_dir" --rows "$journey/rows.csv" \
  >"$work/no-asset.out" 2>"$work/no-asset.err" || rc=$?
[ "$rc" -ne 0 ] || fail "the model served without its asset library"
expect_contains "$work/no-asset.err" "Op type not registered 'TermMatch'"

# A broken kernel (one term too many in every denominator): the journey's op
# check catches it in TF 2.10.1.
cp -r "$journey/term_match" "$work/broken"
sed -i 's|static_cast<float>(found) / static_cast<float>(terms)|static_cast<float>(found) / static_cast<float>(terms + 1)|' \
  "$work/broken/src/term_match_kernels.cc"
grep -q 'terms + 1' "$work/broken/src/term_match_kernels.cc" || fail "the kernel was not broken"
(cd "$work/broken" && rm -rf build && "$OPKIT" build --tf 2.10.1 >"$work/broken-build.out" 2>&1) ||
  fail "the broken kernel did not build"
rc=0
"$tf210_python" "$scripts/easyrec/predict.py" --export "$export_dir" --rows "$journey/rows.csv" \
  --library "$work/broken/build/tf-2.10.1/libterm_match.so" --check-op term_match \
  >"$work/broken.out" 2>"$work/broken.err" || rc=$?
[ "$rc" -eq 1 ] || fail "a broken kernel passed the op check (exit $rc)"
expect_contains "$work/broken.err" '^predict: the op term_match disagrees with the Python computation'

# The 1.12 library as the asset: `--tf 1.12` on a 1.12 export is accepted (the
# versions agree), but the serving TF 2.10.1 cannot load that library.
cp -r "$export_dir" "$work/export-112lib"
(cd "$journey/term_match" && "$OPKIT" package saved-model "$work/export-112lib" --tf 1.12 >"$work/pack112.out" 2>&1) ||
  fail "package saved-model --tf 1.12 on a 1.12 export failed"
rc=0
"$tf210_python" "$scripts/easyrec/predict.py" --export "$work/export-112lib" --rows "$journey/rows.csv" --assets \
  >"$work/112lib.out" 2>"$work/112lib.err" || rc=$?
[ "$rc" -ne 0 ] || fail "TF 2.10.1 served with the 1.12 library"
expect_contains "$work/112lib.err" 'libtensorflow_framework\.so: cannot open shared object file'

# A 2.10.1 export packed with --tf 1.12: exit 1, naming both versions, nothing
# written. Without --tf the model's own version picks the library.
"$tf210_python" - "$work/export-210" <<'PY' || fail "TF 2.10.1 could not save a model"
import sys, tensorflow as tf
class Plus(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x + 1.0
tf.saved_model.save(Plus(), sys.argv[1])
PY
tree_of() { (cd "$1" && find . -printf '%p %s\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(tree_of "$work/export-210")
cd "$journey/term_match"
run_opkit 1 package saved-model "$work/export-210" --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'export-210: exported by TF 2\.10\.1, but --tf 1\.12 is TF 1\.12\.0, which cannot load a SavedModel written by a newer TF'
[ "$before" = "$(tree_of "$work/export-210")" ] || fail "a refused package saved-model changed the export"
run_opkit 0 package saved-model "$work/export-210" --dry-run
expect_contains "$work/out" '^exported by TF 2\.10\.1; library for TF 2\.10\.1$'
run_opkit 0 package saved-model "$export_dir" --dry-run
expect_contains "$work/out" '^exported by TF 1\.12\.0; library for TF 1\.12\.0$'
run_opkit 0 package saved-model "$work/export-210" --tf 1.12 --force --dry-run
echo "easyrec_journey: passed"
