# The popart-op template: opkit new -> opkit build without the PopART SDK (the errors
# it must give, since the SDK cannot be had here) -> opkit test passes; every generated
# file names the same op, domain and version; a broken generator makes opkit test fail.
source "$(dirname "$0")/common.sh"
unset POPART_SDK POPLAR_SDK

command -v python3 >/dev/null || fail "python3 is missing: run scripts/setup.sh (apt-get install python3 python3-venv)"
command -v make >/dev/null || fail "make is missing: run scripts/setup.sh (apt-get install make)"

run_opkit 0 new --list
expect_contains "$work/out" '^popart-op +Graphcore PopART'
run_opkit 0 new leaky_relu --template popart-op
cd leaky_relu
for f in opkit.yaml leaky_relu_custom_op.cpp Makefile custom_shape_inference.py create_onnx_with_custom_op.py \
  run.sh README.md tests/opkit_test_leaky_relu.py .gitignore; do
  [ -f "$f" ] || fail "opkit new did not write $f"
done
python3 -m py_compile custom_shape_inference.py create_onnx_with_custom_op.py tests/opkit_test_leaky_relu.py
bash -n run.sh
expect_contains README.md '^None of them is on PyPI or in Debian'

# --- opkit build without the SDK -------------------------------------------------------------
# No SDK at all: exit 3 (missing), one line naming both ways to give it, nothing built.
run_opkit 3 build
expect_one_error_line
expect_contains "$work/err" '^opkit: error: PopART SDK not found: pass --popart-sdk DIR or set POPART_SDK'
[ ! -e build ] || fail "build/ was created without an SDK"
# A folder that is not a PopART SDK: exit 2 (input error), from the flag and from the variable.
mkdir -p "$work/empty"
run_opkit 2 build --popart-sdk "$work/empty"
expect_one_error_line
expect_contains "$work/err" "$work/empty.*: not a PopART SDK \(no include/popart\)"
POPART_SDK="$work/empty" run_opkit 2 build
expect_contains "$work/err" 'not a PopART SDK'
[ ! -e build ] || fail "build/ was created from a folder that is not an SDK"

# What make would run with an SDK (a dry run: nothing is compiled).
make -n POPART_SDK=/opt/sdk/popart >"$work/make-n" 2>&1 || { cat "$work/make-n" >&2; fail "make -n failed"; }
for flag in '-std=c\+\+14' '-fPIC' '-DONNX_NAMESPACE=onnx' '-I/opt/sdk/popart/include' ' leaky_relu_custom_op\.cpp ' \
  '-shared' '-L/opt/sdk/popart/lib' '-lpopart -lpopops -lpoplar' '-o build/libleaky_relu\.so'; do
  expect_contains "$work/make-n" "$flag"
done
# opkit really hands the SDK to that Makefile: with an SDK folder whose include/popart is
# empty (no headers are faked), the compiler runs and fails on the first SDK header.
mkdir -p "$work/bare-sdk/include/popart"
command -v g++ >/dev/null || fail "g++ is missing: run scripts/setup.sh"
run_opkit 1 build --popart-sdk "$work/bare-sdk" -j 1
expect_contains "$work/out" '^leaky_relu: FAILED$'
expect_contains "$work/err" "-I$work/bare-sdk/include"
expect_contains "$work/err" 'fatal error: (poplar|popops|popart)/.*: No such file or directory'
rm -rf build

# --- opkit test --------------------------------------------------------------------------------
run_opkit 0 test
expect_contains "$work/out" 'check_model\(full_check\) passed with opset_import'
expect_contains "$work/out" 'check_model\(full_check\) passed against the opkit.yaml schema for custom\.ops::LeakyRelu v1'
expect_contains "$work/out" "custom_shape_inference\.py +registered for LeakyRelu: y gets x's shape"
expect_contains "$work/out" '^all files agree: custom\.ops::LeakyRelu v1 \(x\) -> \(y\)$'
expect_contains "$work/out" '^tests/opkit_test_leaky_relu\.py: passed \(exit 0\)$'

# --- consistency, read independently of the project's own test (stdlib only) ----------------
cat >"$work/consistency.py" <<'EOF'
"""Reads every generated file of a popart-op project and checks that the op name, domain,
version, inputs, outputs, attributes and run line agree with each other and opkit.yaml."""
import ast
import os
import re
import shlex
import sys

root = sys.argv[1]


def read(path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


# opkit.yaml, as the template writes it (block mappings, flow-style list items).
yaml_op, section, sources = {"inputs": [], "outputs": [], "attrs": []}, None, []
for line in read("opkit.yaml").splitlines():
    if re.match(r"^\S", line):
        section = line.split(":")[0]
    elif section == "op" and re.match(r"^  name: ", line):
        yaml_op["name"] = line.split(":", 1)[1].strip()
    elif section == "op" and re.match(r"^  (inputs|outputs|attrs):", line):
        sub = line.strip().rstrip(":")
    elif section == "op" and re.match(r"^    - \{", line):
        yaml_op[sub].append(dict(kv.split(": ", 1) for kv in re.findall(r"(\w+: [^,\[\]}]+|\w+: \[[^\]]*\])", line)))
    elif section == "sources" and re.match(r"^  - ", line):
        sources.append(line.strip()[2:])
node_attrs = sorted(a["name"] for a in yaml_op["attrs"] if a["type"] != "type")

cpp_file = [s for s in sources if s.endswith(".cpp")]
assert len(cpp_file) == 1, f"opkit.yaml sources {sources}: expected one .cpp"
cpp = read(cpp_file[0])
ids = re.findall(r'OperatorIdentifier\s+\w+\s*=\s*\{\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*(\d+)\s*\}', cpp)
op_id = [i for i in ids if not i[1].endswith("Grad")]
grad_id = [i for i in ids if i[1].endswith("Grad")]
assert len(op_id) == 1 and len(grad_id) == 1, f"expected one op and one grad OperatorIdentifier, got {ids}"
cpp_inputs = re.findall(r'"(\w+)"', re.search(r"OpDefinition::Inputs\((.*?)\)", cpp, re.S).group(1))
cpp_outputs = re.findall(r'"(\w+)"', re.search(r"OpDefinition::Outputs\((.*?)\)", cpp, re.S).group(1))
cpp_attrs = re.findall(r'\{\s*"(\w+)"\s*,\s*\{', re.search(r"OpDefinition::Attributes\((.*?)\)\)", cpp, re.S).group(1))
cpp_reads = re.findall(r'getAttribute<popart::Attributes::\w+>\(\s*"(\w+)"', cpp)
cpp_in_popart = bool(re.search(r"^\s*namespace\s+popart\s*\{", cpp, re.M))

gen = ast.parse(read("create_onnx_with_custom_op.py"))
consts = {t.id: n.value.value for n in gen.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
          for t in n.targets if isinstance(t, ast.Name)}


def value(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return consts[node.id]
    if isinstance(node, ast.List):
        return [value(e) for e in node.elts]
    return ast.dump(node)


def calls(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None)) == name]


make_node = calls(gen, "make_node")
assert len(make_node) == 1, "create_onnx_with_custom_op.py: expected one make_node call"
kw = {k.arg: k.value for k in make_node[0].keywords}
gen_op, gen_in, gen_out = (value(a) for a in make_node[0].args[:3])
gen_domain = value(kw.pop("domain"))
gen_imports = {value(c.args[0]): value(c.args[1]) for c in calls(gen, "make_opsetid")}
gen_values = [value(c.args[0]) for c in calls(gen, "make_tensor_value_info")]
gen_model = [v for v in consts.values() if isinstance(v, str) and v.endswith(".onnx")]

shape = ast.parse(read("custom_shape_inference.py"))
shape_ops = [value(c.args[0]) for c in calls(shape, "register_shape_func")]
shape_ops = [o for ops in shape_ops for o in ops]


def poprt(text):
    lines = [l for l in re.sub(r"\\\n", " ", text).splitlines() if re.match(r"\s*poprt\s", l)]
    assert len(lines) == 1, f"expected one poprt line, got {lines}"
    tokens = shlex.split(lines[0])
    flags, current = {}, None
    for t in tokens[1:]:
        if t.startswith("--"):
            current = flags.setdefault(t, [])
        else:
            current.append(t)
    return flags


run_sh, readme = poprt(read("run.sh")), poprt(read("README.md"))
makefile = dict(re.findall(r"^(SOURCES|TARGET)\s*:?=\s*(.*)$", read("Makefile"), re.M))

rows = [
    ("op name", yaml_op["name"], {"cpp OperatorIdentifier": op_id[0][1], "cpp grad (minus Grad)": grad_id[0][1][:-4],
                                  "generator make_node": gen_op, "shape inference registers": ",".join(shape_ops)}),
    ("domain", op_id[0][0], {"cpp grad": grad_id[0][0], "generator node": gen_domain,
                             "generator opset_import": gen_domain if gen_domain in gen_imports else "(not imported)"}),
    ("version", str(op_id[0][2]), {"cpp grad": str(grad_id[0][2]), "generator opset_import": str(gen_imports.get(gen_domain))}),
    ("inputs", str([a["name"] for a in yaml_op["inputs"]]), {"cpp OpDefinition": str(cpp_inputs), "generator node": str(gen_in)}),
    ("outputs", str([a["name"] for a in yaml_op["outputs"]]), {"cpp OpDefinition": str(cpp_outputs), "generator node": str(gen_out)}),
    ("graph values", str(gen_in + gen_out), {"generator value infos": str(gen_values)}),
    ("attrs", str(node_attrs), {"cpp OpDefinition": str(sorted(cpp_attrs)), "cpp creator reads": str(sorted(cpp_reads)),
                                "generator node": str(sorted(kw))}),
    ("sources", str(sources), {"Makefile SOURCES": str(makefile["SOURCES"].split())}),
    ("model", str(gen_model), {"run.sh --input_model": str(run_sh["--input_model"])}),
    ("library", makefile["TARGET"], {"run.sh --custom_library_so_paths": " ".join(run_sh["--custom_library_so_paths"])}),
    ("shape file", "custom_shape_inference.py", {"run.sh --custom_shape_inference": " ".join(run_sh["--custom_shape_inference"])}),
    ("run line", str(run_sh), {"README.md": str(readme)}),
    ("own namespace", "True", {"cpp not in namespace popart": str(not cpp_in_popart)}),
    ("own domain", "True", {"not ai.graphcore/ai.onnx": str(op_id[0][0] not in ("", "ai.onnx", "ai.graphcore"))}),
]
bad = 0
for what, expected, seen in rows:
    print(f"{what:14} {expected}")
    for where, got in seen.items():
        ok = got == expected
        bad += not ok
        print(f"  {'ok ' if ok else 'BAD'} {where}: {got}")
sys.exit(1 if bad else 0)
EOF
python3 "$work/consistency.py" . >"$work/consistency.out" 2>&1 || { cat "$work/consistency.out" >&2; fail "the generated files disagree"; }
grep -q 'BAD' "$work/consistency.out" && fail "consistency reported BAD"
expect_contains "$work/consistency.out" '^domain +custom\.ops$'
expect_contains "$work/consistency.out" '^version +1$'
expect_contains "$work/consistency.out" 'ok +cpp grad \(minus Grad\): LeakyRelu$'

# --- negative cases: a broken file makes opkit test fail (exit 1), naming the mismatch ---------
# break <name> <file> <sed expression> <regex opkit test must print>
break_case() {
  rm -rf "$work/broken"
  cp -r "$work/leaky_relu" "$work/broken"
  sed -i "$3" "$work/broken/$2"
  if cmp -s "$work/leaky_relu/$2" "$work/broken/$2"; then fail "$1: sed '$3' changed nothing in $2"; fi
  run_opkit 1 -C "$work/broken" test
  expect_contains "$work/out" "$4"
  expect_contains "$work/out" '^tests/opkit_test_leaky_relu\.py: FAILED \(exit 1\)$'
}
# The generator's domain (node and opset_import both) no longer matches the C++.
break_case domain create_onnx_with_custom_op.py 's/^DOMAIN = "custom\.ops"/DOMAIN = "custom.opz"/' \
  "^MISMATCH create_onnx_with_custom_op\.py: node domain 'custom\.opz' != 'custom\.ops' of the OperatorIdentifier in leaky_relu_custom_op\.cpp$"
python3 "$work/consistency.py" "$work/broken" >"$work/consistency.out" 2>&1 && fail "the consistency check missed the broken domain"
expect_contains "$work/consistency.out" 'BAD +generator node: custom\.opz'
# The node's domain is not imported by the model: the ONNX checker itself refuses it.
break_case opset create_onnx_with_custom_op.py 's/helper\.make_opsetid(DOMAIN, VERSION)/helper.make_opsetid("other.domain", VERSION)/' \
  "check_model\(full_check=True\) fails: No opset import for domain 'custom\.ops'"
# alpha written as an INT attribute: the schema made from opkit.yaml refuses it.
break_case attr-type create_onnx_with_custom_op.py 's/alpha=float(alpha)/alpha=int(alpha * 100)/' \
  "MISMATCH create_onnx_with_custom_op\.py: attribute alpha is INT, opkit\.yaml says float"
# The grad op's identifier drifts from the op's.
break_case grad leaky_relu_custom_op.cpp 's/{"custom\.ops", "LeakyReluGrad", 1}/{"custom.ops", "LeakyReluGrad", 2}/' \
  "MISMATCH leaky_relu_custom_op\.cpp: grad op LeakyReluGrad is custom\.ops v2, the op is custom\.ops v1"
# The shape function is registered for another op type.
break_case shape custom_shape_inference.py 's/register_shape_func(\["LeakyRelu"\])/register_shape_func(["LeakyReLU"])/' \
  "MISMATCH custom_shape_inference\.py: registers a shape function for \['LeakyReLU'\], not for LeakyRelu"
# run.sh loads a library the Makefile does not build.
break_case run-line run.sh 's#--custom_library_so_paths build/libleaky_relu\.so#--custom_library_so_paths custom_ops.so#' \
  'MISMATCH README\.md and run\.sh run different poprt lines'
