"""`opkit test` for the {{op_name}} PopART custom op: what can be checked without the Poplar SDK.

The C++ can only be compiled and run with Graphcore's SDK and an IPU, so this checks that
every file describes the op in opkit.yaml, with the ONNX identity of the .cpp:
  1. {{name}}_custom_op.cpp: the OperatorIdentifiers of the op and its grad op (same domain
     and version, not PopART's own), its OpDefinition (inputs, outputs, attributes, types).
  2. create_onnx_with_custom_op.py: the model it writes passes onnx.checker.check_model with
     full_check, first as PopRT gets it (the custom domain only declared in opset_import), then
     against a schema made from opkit.yaml; its node matches the op.
  3. custom_shape_inference.py, run through a stand-in for PopRT's poprt.passes: y gets x's
     shape and dtype.
  4. run.sh and README.md: the same poprt line, naming the model, library and shape file.
Exit 0 when all agree; 1 with one MISMATCH line per disagreement.
"""
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
import types

import onnx
import yaml
from onnx import TensorProto, checker, defs, helper

ROOT = os.environ.get("OPKIT_PROJECT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPP = "{{name}}_custom_op.cpp"
GENERATOR = "create_onnx_with_custom_op.py"
SHAPE_FILE = "custom_shape_inference.py"

# opkit dtype -> the enum name shared by onnx.TensorProto and popart::DataType.
DTYPES = {"half": "FLOAT16", "float": "FLOAT", "double": "DOUBLE", "bfloat16": "BFLOAT16", "bool": "BOOL",
          "int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64", "uint8": "UINT8",
          "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64", "string": "STRING"}
# opkit attr type -> ONNX AttributeProto type and popart::Attributes accessor.
ATTRS = {"float": ("FLOAT", "Float"), "int": ("INT", "Int"), "bool": ("INT", "Int"), "string": ("STRING", "String"),
         "list(int)": ("INTS", "Ints"), "shape": ("INTS", "Ints"), "list(float)": ("FLOATS", "Floats"),
         "tensor": ("TENSOR", "Tensor")}
RESERVED_DOMAINS = {"", "ai.onnx", "ai.onnx.ml", "ai.graphcore"}

mismatches = []


def mismatch(message):
    mismatches.append(message)
    print("MISMATCH " + message)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def call_args(text, pattern):
    """The text between the parentheses after the first match of the regex `pattern`, or None."""
    found = re.search(pattern + r"\s*\(", text)
    if found is None:
        return None
    depth, i = 0, found.end() - 1
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    return None


# --- opkit.yaml ---------------------------------------------------------------------------
with open(os.path.join(ROOT, "opkit.yaml"), encoding="utf-8") as f:
    manifest = yaml.safe_load(f)
op = manifest["op"]
OP = op["name"]
INPUTS = [a["name"] for a in op.get("inputs") or []]
OUTPUTS = [a["name"] for a in op.get("outputs") or []]
TYPE_ATTRS = {a["name"]: [DTYPES[t] for t in a.get("allowed") or []] for a in op.get("attrs") or [] if a["type"] == "type"}
NODE_ATTRS = {a["name"]: a["type"] for a in op.get("attrs") or [] if a["type"] != "type"}
ARG_TYPES = {a["name"]: a["type"] for a in (op.get("inputs") or []) + (op.get("outputs") or [])}
for attr_name, attr_type in list(NODE_ATTRS.items()):
    if attr_type not in ATTRS:
        mismatch(f"opkit.yaml: attr {attr_name} of type {attr_type} has no ONNX attribute type")
        del NODE_ATTRS[attr_name]


def allowed_types(arg):
    """The tensor types an input or output may have, as TensorProto names."""
    t = ARG_TYPES[arg]
    return TYPE_ATTRS[t] if t in TYPE_ATTRS else [DTYPES[t]]


print("opkit.yaml  op {} ({}) -> ({}); attrs {}; types {}".format(
    OP, ", ".join(INPUTS), ", ".join(OUTPUTS), NODE_ATTRS, TYPE_ATTRS))

# --- 1. the C++ op --------------------------------------------------------------------------
cpp = read(CPP)
if re.search(r"^\s*namespace\s+popart\s*\{", cpp, re.M):
    mismatch(f"{CPP}: code is placed in namespace popart; keep the op in its own namespace")
ids = {m.group(3): (m.group(1), m.group(2), int(m.group(4))) for m in re.finditer(
    r'popart::OperatorIdentifier\s+(\w+)\s*=\s*\{\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*(\d+)\s*\}', cpp)}
if OP not in ids:
    mismatch(f"{CPP}: no OperatorIdentifier for op type '{OP}' (opkit.yaml op.name); found {sorted(ids)}")
    sys.exit(1)
_, DOMAIN, VERSION = ids[OP]
if DOMAIN in RESERVED_DOMAINS:
    mismatch(f"{CPP}: domain '{DOMAIN}' is reserved (ONNX's or PopART's own); use one of your own, e.g. custom.ops")
grad = ids.get(OP + "Grad")
if grad is None:
    mismatch(f"{CPP}: no OperatorIdentifier for the grad op '{OP}Grad'")
elif grad[1:] != (DOMAIN, VERSION):
    mismatch(f"{CPP}: grad op {OP}Grad is {grad[1]} v{grad[2]}, the op is {DOMAIN} v{VERSION}")

# The constructor arguments of `popart::OpCreator<OPOp> variable(...)`.
creator = call_args(cpp, r"OpCreator<\s*" + OP + r"Op\s*>\s*\w+")
if creator is None:
    mismatch(f"{CPP}: no popart::OpCreator<{OP}Op>, so PopART could not create the op from a model")
    creator = ""
for kind, expected in (("Inputs", INPUTS), ("Outputs", OUTPUTS)):
    found = re.findall(r'\{\s*"(\w+)"\s*,\s*(\w+)\s*\}', call_args(creator, r"OpDefinition::" + kind) or "")
    if [n for n, _ in found] != expected:
        mismatch(f"{CPP}: OpDefinition {kind} {[n for n, _ in found]} != opkit.yaml {expected}")
    for name, type_var in found:
        types_text = re.search(r"DataTypes\s+" + type_var + r"\s*=\s*\{([^}]*)\}", cpp)
        cpp_types = re.findall(r"DataType::(\w+)", types_text.group(1)) if types_text else []
        if name in ARG_TYPES and sorted(cpp_types) != sorted(allowed_types(name)):
            mismatch(f"{CPP}: {name} accepts {cpp_types}, opkit.yaml says {allowed_types(name)}")
cpp_attrs = re.findall(r'\{\s*"(\w+)"\s*,\s*\{', call_args(creator, r"OpDefinition::Attributes") or "")
if sorted(cpp_attrs) != sorted(NODE_ATTRS):
    mismatch(f"{CPP}: OpDefinition attributes {cpp_attrs} != opkit.yaml {sorted(NODE_ATTRS)}")
for name, kind in NODE_ATTRS.items():
    if not re.search(r"getAttribute<popart::Attributes::" + ATTRS[kind][1] + r'>\(\s*"' + name + '"', creator):
        mismatch(f"{CPP}: the creator does not read attribute {name} as Attributes::{ATTRS[kind][1]}")
for what in (f"OpxCreator<{OP}Opx>", f"OpxCreator<{OP}GradOpx>"):
    if what not in cpp:
        mismatch(f"{CPP}: no popart::popx::{what}: PopART would find no Opx to lower the op")
print(f"{CPP}  {DOMAIN}::{OP} v{VERSION}, grad {OP}Grad; OpDefinition and creator checked")

# --- 2. the ONNX model ----------------------------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    run = subprocess.run([sys.executable, GENERATOR, "--output_dir", tmp], cwd=ROOT, capture_output=True, text=True)
    written = sorted(os.listdir(tmp))
    if run.returncode != 0 or len(written) != 1:
        print(run.stdout + run.stderr)
        mismatch(f"{GENERATOR} exited {run.returncode} and wrote {written}, expected one .onnx file")
        sys.exit(1)
    MODEL = written[0]
    model = onnx.load(os.path.join(tmp, MODEL))

try:
    # How PopRT gets the model: no schema for the op. The checker accepts a node of a domain
    # it has no schema for, but only if the model imports that domain.
    checker.check_model(model, full_check=True)
except (checker.ValidationError, onnx.shape_inference.InferenceError) as e:
    mismatch(f"{GENERATOR}: onnx.checker.check_model(full_check=True) fails: {e}")
imports = {o.domain: o.version for o in model.opset_import}
nodes = [n for n in model.graph.node if n.op_type == OP]
if len(nodes) != 1:
    mismatch(f"{GENERATOR}: {len(nodes)} nodes of op_type {OP}, expected 1 (op types: {[n.op_type for n in model.graph.node]})")
    sys.exit(1)
node = nodes[0]
if node.domain != DOMAIN:
    mismatch(f"{GENERATOR}: node domain '{node.domain}' != '{DOMAIN}' of the OperatorIdentifier in {CPP}")
if imports.get(node.domain) != VERSION:
    mismatch(f"{GENERATOR}: opset_import has {node.domain or 'ai.onnx'} at version {imports.get(node.domain)}, "
             f"the op is version {VERSION} in {CPP}")
if list(node.input) != INPUTS or list(node.output) != OUTPUTS:
    mismatch(f"{GENERATOR}: node {list(node.input)} -> {list(node.output)}, opkit.yaml {INPUTS} -> {OUTPUTS}")
node_attrs = {a.name: onnx.AttributeProto.AttributeType.Name(a.type) for a in node.attribute}
for name, kind in NODE_ATTRS.items():
    if node_attrs.get(name) != ATTRS[kind][0]:
        mismatch(f"{GENERATOR}: attribute {name} is {node_attrs.get(name, 'absent')}, opkit.yaml says {kind} "
                 f"({ATTRS[kind][0]})")
for name in sorted(set(node_attrs) - set(NODE_ATTRS)):
    mismatch(f"{GENERATOR}: attribute {name} is not in opkit.yaml")
values = {vi.name: TensorProto.DataType.Name(vi.type.tensor_type.elem_type)
          for vi in list(model.graph.input) + list(model.graph.output)}
for arg in INPUTS + OUTPUTS:
    if arg in values and values[arg] not in allowed_types(arg):
        mismatch(f"{GENERATOR}: {arg} is {values[arg]}, the op accepts {allowed_types(arg)}")
print(f"{MODEL}  check_model(full_check) passed with opset_import {imports}; node {node.domain}::{node.op_type} "
      f"{list(node.input)} -> {list(node.output)} attrs {node_attrs}")

# The same model against a schema made from opkit.yaml: now the checker also validates the
# node itself (input count, attribute names and types, tensor types) and infers y.


def type_str(arg):
    """A schema's type for an input or output: its type attr's name, or tensor(<dtype>)."""
    t = ARG_TYPES[arg]
    return t if t in TYPE_ATTRS else f"tensor({DTYPES[t].lower()})"


schema = defs.OpSchema(
    OP, DOMAIN, VERSION,
    inputs=[defs.OpSchema.FormalParameter(n, type_str(n)) for n in INPUTS],
    outputs=[defs.OpSchema.FormalParameter(n, type_str(n)) for n in OUTPUTS],
    type_constraints=[(n, [f"tensor({t.lower()})" for t in ts], "") for n, ts in TYPE_ATTRS.items()],
    attributes=[defs.OpSchema.Attribute(n, getattr(defs.OpSchema.AttrType, ATTRS[k][0]), "", required=False)
                for n, k in NODE_ATTRS.items()],
)
defs.register_schema(schema)
try:
    checker.check_model(model, full_check=True)
    print(f"{MODEL}  check_model(full_check) passed against the opkit.yaml schema for {DOMAIN}::{OP} v{VERSION}")
except (checker.ValidationError, onnx.shape_inference.InferenceError) as e:
    mismatch(f"{GENERATOR}: the node does not fit opkit.yaml's op: {str(e).splitlines()[0]}")
finally:
    defs.deregister_schema(OP, VERSION, DOMAIN)

# --- 3. the shape inference file ------------------------------------------------------------
# A stand-in for the four names custom_shape_inference.py takes from PopRT's poprt.passes
# (PopRT is not on PyPI): unknown dimensions read as 0, as the PopRT example expects.
registered = {}


def register_shape_func(op_types):
    def register(cls):
        for t in op_types:
            registered[t] = cls
        return cls
    return register


def _value_info(graph, name):
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        if vi.name == name:
            return vi
    return None


def get_shape(graph, name):
    vi = _value_info(graph, name)
    if vi is None or not vi.type.tensor_type.HasField("shape"):
        return None
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def get_dtype(graph, name):
    vi = _value_info(graph, name)
    return vi.type.tensor_type.elem_type if vi is not None and vi.type.tensor_type.elem_type else None


class ShapeFunc:
    def update_value_info(self, model, value_info):
        for known in list(model.graph.output) + list(model.graph.value_info):
            if known.name == value_info.name:
                known.CopyFrom(value_info)
                return model
        model.graph.value_info.append(value_info)
        return model


passes = types.ModuleType("poprt.passes")
passes.ShapeFunc, passes.get_shape, passes.get_dtype = ShapeFunc, get_shape, get_dtype
passes.register_shape_func = register_shape_func
sys.modules["poprt"] = types.ModuleType("poprt")
sys.modules["poprt.passes"] = sys.modules["poprt"].passes = passes
spec = importlib.util.spec_from_file_location("custom_shape_inference", os.path.join(ROOT, SHAPE_FILE))
spec.loader.exec_module(importlib.util.module_from_spec(spec))

if OP not in registered:
    mismatch(f"{SHAPE_FILE}: registers a shape function for {sorted(registered)}, not for {OP}")
else:
    infer = registered[OP]()
    for dtype in allowed_types(INPUTS[0]):
        m = onnx.ModelProto()
        m.CopyFrom(model)
        m.graph.input[0].type.tensor_type.elem_type = getattr(TensorProto, dtype)
        y = _value_info(m.graph, OUTPUTS[0])
        y.type.tensor_type.elem_type = 0
        y.type.tensor_type.ClearField("shape")
        m, ok = infer(m, next(n for n in m.graph.node if n.op_type == OP))
        x_info = (get_shape(m.graph, INPUTS[0]), get_dtype(m.graph, INPUTS[0]))
        y_info = (get_shape(m.graph, OUTPUTS[0]), get_dtype(m.graph, OUTPUTS[0]))
        if not ok or y_info != x_info:
            mismatch(f"{SHAPE_FILE}: for a {dtype} {INPUTS[0]} of shape {x_info[0]} it returned {ok} and "
                     f"{OUTPUTS[0]} {y_info}, expected True and {x_info}")
    # An input of unknown size cannot be inferred yet: the function must say so.
    m = onnx.ModelProto()
    m.CopyFrom(model)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    _value_info(m.graph, OUTPUTS[0]).type.tensor_type.ClearField("shape")
    if infer(m, next(n for n in m.graph.node if n.op_type == OP))[1]:
        mismatch(f"{SHAPE_FILE}: claims to have inferred {OUTPUTS[0]} from an input of unknown size")
    print(f"{SHAPE_FILE}  registered for {OP}: {OUTPUTS[0]} gets {INPUTS[0]}'s shape for "
          f"{allowed_types(INPUTS[0])}; an unknown input size is left for later")

# --- 4. the poprt run line ------------------------------------------------------------------


def poprt_line(text, where):
    """The tokens of the (backslash-continued) poprt command in text."""
    joined = re.sub(r"\\\n", " ", text)
    lines = [line.strip() for line in joined.splitlines() if re.match(r"\s*(poprt|python3? -m poprt\.cli)\s", line)]
    if len(lines) != 1:
        mismatch(f"{where}: expected one poprt command line, found {len(lines)}")
        return None
    return shlex.split(lines[0])


def flag(tokens, name):
    values = []
    if name in tokens:
        for token in tokens[tokens.index(name) + 1:]:
            if token.startswith("--"):
                break
            values.append(token)
    return values


run_line = poprt_line(read("run.sh"), "run.sh")
readme_line = poprt_line(read("README.md"), "README.md")
if run_line and readme_line and run_line != readme_line:
    mismatch(f"README.md and run.sh run different poprt lines:\n  {' '.join(readme_line)}\n  {' '.join(run_line)}")
if run_line:
    target = re.search(r"^TARGET\s*:?=\s*(\S+)", read("Makefile"), re.M)
    target = target.group(1) if target else None
    if flag(run_line, "--input_model") != [MODEL]:
        mismatch(f"run.sh: --input_model {flag(run_line, '--input_model')}, {GENERATOR} writes {MODEL}")
    if target not in flag(run_line, "--custom_library_so_paths"):
        mismatch(f"run.sh: --custom_library_so_paths {flag(run_line, '--custom_library_so_paths')} does not "
                 f"load the library the Makefile builds ({target})")
    shape_files = ",".join(flag(run_line, "--custom_shape_inference")).split(",")
    if SHAPE_FILE not in shape_files:
        mismatch(f"run.sh: --custom_shape_inference {shape_files} does not register {SHAPE_FILE}")
    print("run.sh      " + " ".join(run_line))

if mismatches:
    print(f"{len(mismatches)} mismatch(es): the files do not describe the same op")
    sys.exit(1)
print(f"all files agree: {DOMAIN}::{OP} v{VERSION} ({', '.join(INPUTS)}) -> ({', '.join(OUTPUTS)})")
