# The easyrec-layer template: the op builds and registers for PAI's TF 1.12 and
# EAS's TF 2.10.1; the Keras layer, packed by `opkit package easyrec` with an
# EasyRec checkout, loads its library from easy_rec/python/ops/<dir>/ and runs
# in a real TensorFlow; every file agrees with opkit.yaml and EasyRec's rules.
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION, PYTHON
export TF_CPP_MIN_LOG_LEVEL=3

run_opkit 0 new text_norm --template easyrec-layer
cd text_norm
# Consistency: op, layer, __init__ line, pipeline.config and opkit.yaml agree.
python3 - "$OPKIT_SOURCE_DIR/configs/packages/easyrec.yaml" <<'PY'
import re, sys, pathlib, importlib.util, types
root = pathlib.Path(".")
yaml = (root / "opkit.yaml").read_text()
assert re.search(r"^template: easyrec-layer$", yaml, re.M)
op = re.search(r"^  name: (\w+)$", yaml, re.M).group(1)
assert op == "TextNorm"
assert re.findall(r'REGISTER_OP\("(\w+)"\)', (root / "src/text_norm_op.cc").read_text()) == [op]
layer = (root / "easy_rec/python/layers/keras/text_norm_layer.py").read_text()
assert f"class {op}Layer(Layer):" in layer and "_LIBRARY = 'libtext_norm.so'" in layer
assert "text_norm_ops.text_norm(x)" in layer  # TF's snake_case name of TextNorm
add = (root / "easy_rec/python/layers/keras/__init__.py.add").read_text().strip()
assert add == f"from .text_norm_layer import {op}Layer", add
config = (root / "samples/pipeline.config").read_text()
assert f"class_name: '{op}Layer'" in config and "feature_type: PassThroughFeature" in config and "raw_input {" in config
# The layer's ops-folder rule is EasyRec's, as opkit's config states it.
rules = pathlib.Path(sys.argv[1]).read_text()
fake_tf = types.ModuleType("tensorflow"); fake_tf.__version__ = "0"
sys.modules["tensorflow"] = fake_tf
keras = types.ModuleType("tensorflow.python.keras.layers"); keras.Layer = object
for name in ("tensorflow.python", "tensorflow.python.keras"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["tensorflow.python.keras.layers"] = keras
fake_tf.load_op_library = lambda path: None
spec = importlib.util.spec_from_file_location("layer", root / "easy_rec/python/layers/keras/text_norm_layer.py")
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
for version, want in [("1.12.0", "1.12"), ("1.12.0-PAI", "1.12_pai"), ("1.15.5", "1.15"), ("2.10.1", "2.10"), ("2.15.1", "2.15")]:
    assert mod.ops_dir_name(version) == want, (version, mod.ops_dir_name(version))
    assert f"dir: {want}" in rules or f'dir: "{want}"' in rules or want.count(".") == 1, want
print("consistent")
PY

run_opkit 0 build --tf "1.12,2.10.1,$TF_VERSION"
run_opkit 0 test --tf "1.12,2.10.1,$TF_VERSION"
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 3 ] || fail "not matched three times"

# An EasyRec checkout stand-in: the package structure the layer lives in.
er="$work/EasyRec"
mkdir -p "$er/easy_rec/python/layers/keras" "$er/easy_rec/python/ops/1.12" "$er/pai_jobs"
echo "__version__ = '0.8.7'" >"$er/easy_rec/version.py"
touch "$er/easy_rec/__init__.py" "$er/easy_rec/python/__init__.py" "$er/easy_rec/python/layers/__init__.py"
printf 'from .blocks import MLP\n' >"$er/easy_rec/python/layers/keras/__init__.py"
printf 'class MLP(object):\n  pass\n' >"$er/easy_rec/python/layers/keras/blocks.py"
echo "EasyRec's own" >"$er/easy_rec/python/ops/1.12/libcustom_ops.so"
echo "print('run')" >"$er/pai_jobs/run.py"
run_opkit 0 package easyrec --easyrec-dir "$er" --version layer_v1 --tf "1.12,2.10.1,$TF_VERSION"
tarball=dist/easy_rec_ext_layer_v1_res.tar.gz
tar tzf "$tarball" >"$work/list"
for path in easy_rec/python/layers/keras/text_norm_layer.py easy_rec/python/ops/1.12_pai/libtext_norm.so \
            easy_rec/python/ops/2.10/libtext_norm.so "easy_rec/python/ops/${TF_VERSION%.*}/libtext_norm.so" \
            easy_rec/python/ops/1.12/libcustom_ops.so run.py; do
  grep -qx "$path" "$work/list" || fail "$path not in the package"
done
grep -q '\.add$' "$work/list" && fail "a .add file was packed"
init=$(tar xzOf "$tarball" easy_rec/python/layers/keras/__init__.py)
[ "$init" = "$(printf 'from .blocks import MLP\nfrom .text_norm_layer import TextNormLayer')" ] || fail "__init__.py: $init"
grep -qx 'from .text_norm_layer import TextNormLayer' "$er/easy_rec/python/layers/keras/__init__.py" && fail "the checkout was modified"
run_opkit 0 package verify "$tarball"

# The packed layer runs in a real TensorFlow, loading its library the EasyRec way.
mkdir -p "$work/site" && tar xzf "$tarball" -C "$work/site"
(cd "$work/site" && "$PYTHON" - <<'PY')
import numpy as np, tensorflow as tf
from easy_rec.python.layers.keras import TextNormLayer
layer = TextNormLayer(params=None)
out = layer([tf.constant([3.0, 4.0, 5.0])]).numpy()
assert list(out) == [3.0, 0.0, 0.0], out
print("TextNormLayer ran in TensorFlow", tf.__version__)
PY
