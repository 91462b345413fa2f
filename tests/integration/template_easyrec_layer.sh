# The easyrec-layer template, rendered for each EasyRec release as
# configs/packages/easyrec.yaml describes it: 0.7.x takes raw strings as
# IdFeature columns read by feature name, 0.8.2 and later through a raw_input
# block of PassThroughFeature columns; a release without backbone components
# is refused. The op does real work on text and builds and registers for PAI's
# TF 1.12, EAS's TF 2.10.1 and the venv's TF; the raw_input layer runs in a real
# TensorFlow. (The 0.7.1 route runs end to end with EasyRec's own release in
# easyrec_journey.)
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION, PYTHON
export TF_CPP_MIN_LOG_LEVEL=3

# A release without components: one line, exit 2, nothing written.
run_opkit 2 new old_one --template easyrec-layer --easyrec 0.6.4
expect_one_error_line
expect_contains "$work/err" 'EasyRec 0\.6\.4: no backbone components .*needs EasyRec 0\.7\.0 or newer'
[ ! -e old_one ] || fail "a refused new left old_one/"
run_opkit 2 new not_er --template tensorflow-op --easyrec 0.7.1
expect_one_error_line
expect_contains "$work/err" 'template tensorflow-op is not rendered for an EasyRec release'
mkdir -p "$work/odd-checkout/easy_rec" && echo "__version__ = 'main'" >"$work/odd-checkout/easy_rec/version.py"
run_opkit 2 new odd --template easyrec-layer --easyrec-dir "$work/odd-checkout"
expect_one_error_line
expect_contains "$work/err" "'main': not an EasyRec release \(expected e\.g\. 0\.7\.1\) in .*/odd-checkout/easy_rec/version\.py"
mkdir -p "$work/not_a_checkout"
run_opkit 2 new nc --template easyrec-layer --easyrec-dir "$work/not_a_checkout"
expect_one_error_line
expect_contains "$work/err" 'not_a_checkout: not an EasyRec checkout \(no easy_rec/version\.py\)'

# 0.7.1, from a checkout's easy_rec/version.py, and the default (the newest row).
mkdir -p "$work/EasyRec071/easy_rec" && echo "__version__ = '0.7.1'" >"$work/EasyRec071/easy_rec/version.py"
run_opkit 0 new term_match --output term_match_071 --template easyrec-layer --easyrec-dir "$work/EasyRec071" --json
expect_json_schema opkit.new-1 "$work/out"
expect_contains "$work/out" '"release": "0\.7\.1"'
run_opkit 0 new term_match --template easyrec-layer
expect_contains "$work/out" '^for EasyRec >= 0\.8\.2: raw strings as PassThroughFeature columns, through a raw_input block$'

python3 - <<'PY'
import re, pathlib
for folder, raw_input in (("term_match_071", False), ("term_match", True)):
    root = pathlib.Path(folder)
    yaml = (root / "opkit.yaml").read_text()
    op = re.search(r"^  name: (\w+)$", yaml, re.M).group(1)
    assert op == "TermMatch", op
    assert re.findall(r'REGISTER_OP\("(\w+)"\)', (root / "src/term_match_op.cc").read_text()) == [op]
    layer = (root / "easy_rec/python/layers/keras/term_match_layer.py").read_text()
    config = (root / "samples/pipeline.config").read_text()
    assert f"class {op}Layer(Layer):" in layer and f"class_name: '{op}Layer'" in config
    assert "{{" not in layer + config + yaml, "unrendered mustache"
    has = lambda text, *words: all(w in text for w in words)
    if raw_input:   # 0.8.2+: PassThroughFeature and a raw_input block; no feature lookup
        assert has(config, "feature_type: PassThroughFeature", "raw_input {") and "raw_features" not in config
        assert "_raw_features" not in layer and "texts = list(inputs)" in layer
    else:           # 0.7.x: neither exists (its protos reject them); IdFeature columns read by name
        code = "\n".join(l for l in config.splitlines() if not l.strip().startswith("#"))
        assert not re.search(r"PassThroughFeature|raw_input", code), "0.7.1 cannot parse these"
        assert has(config, "key: 'raw_features'", "feature_type: IdFeature")
        assert "texts = _raw_features(self.raw_features)" in layer
print("both routes rendered")
PY

cd term_match
run_opkit 0 build --tf "1.12,2.10.1,$TF_VERSION"
run_opkit 0 test --tf "1.12,2.10.1,$TF_VERSION"
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 3 ] || fail "not matched three times"

# The raw_input layer (EasyRec >= 0.8.2 hands it the raw tensors) in a real TF,
# loading its library the EasyRec way from easy_rec/python/ops/<major.minor>/.
site="$work/site"
mkdir -p "$site/easy_rec/python/ops/${TF_VERSION%.*}" "$site/easy_rec/python/layers/keras"
cp build/tf-"$TF_VERSION"/libterm_match.so "$site/easy_rec/python/ops/${TF_VERSION%.*}/"
cp easy_rec/python/layers/keras/term_match_layer.py "$site/easy_rec/python/layers/keras/"
(cd "$site/easy_rec/python/layers/keras" && "$PYTHON" - <<'PY') || fail "the raw_input layer did not run"
import numpy as np, tensorflow as tf
import term_match_layer as m
class Params(object):  # what EasyRec's Parameter gives for st_params
    def get_or_default(self, key, default):
        return {"separator": "|"}.get(key, default)
layer = m.TermMatchLayer(Params())
out = layer([tf.constant(["a|b", "x", "war|action|crime"]), tf.constant(["b|c", "y", "crime|war"])]).numpy()
assert out.shape == (3, 1) and np.allclose(out[:, 0], [0.5, 0.0, 2.0 / 3.0]), out
print("TermMatchLayer ran in TensorFlow", tf.__version__)
PY
