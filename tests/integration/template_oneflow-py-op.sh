# The oneflow-py-op template: opkit new -> build (nothing to compile) -> test
# (numpy: known values, backward vs central differences, the cpp_def's
# shape/dtype rules); a consistency check across every generated file and
# opkit.yaml, proven to catch mismatches; and a broken backward that opkit test
# must fail. OneFlow itself cannot be installed here (see the template README).
source "$(dirname "$0")/common.sh"

command -v python3 >/dev/null || fail "python3 is missing: run scripts/setup.sh"
python3 -m venv --help >/dev/null 2>&1 || fail "python3 -m venv does not work: run scripts/setup.sh (python3-venv)"

# consistency.py <project>: the op name, inputs, outputs and attrs agree across
# <name>/<name>_cpp_def.cpp (its registration macros), <name>_py_api.py,
# <name>_py_kernel.py, the tests and opkit.yaml; file names follow OneFlow's
# naming contract. Python stdlib only.
cat >"$work/consistency.py" <<'PY'
import ast, os, re, sys

root = sys.argv[1]


def fail(msg):
    print("INCONSISTENT: " + msg)
    sys.exit(1)


def expect(ok, msg):
    if not ok:
        fail(msg)


def load_yaml(text):
    """The YAML subset opkit.yaml is written in: maps, block lists, one-line flow maps/lists."""
    rows = []
    for raw in text.splitlines():
        line = "" if raw.lstrip().startswith("#") else re.sub(r"\s+#.*$", "", raw)
        if line.strip():
            rows.append((len(line) - len(line.lstrip()), line.strip()))

    def scalar(s):
        s = s.strip()
        return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"" else s

    def flow(s):
        s = s.strip()
        if s.startswith("[") and s.endswith("]"):
            return [scalar(v) for v in s[1:-1].split(",") if v.strip()]
        if s.startswith("{") and s.endswith("}"):
            return {scalar(k): flow(v) for k, _, v in (p.partition(":") for p in s[1:-1].split(",") if p.strip())}
        return scalar(s)

    def block(i, indent):
        if rows[i][1].startswith("- "):
            items = []
            while i < len(rows) and rows[i][0] == indent and rows[i][1].startswith("- "):
                item = rows[i][1][2:]
                if not item.startswith("{") and re.match(r"^\w+:\s", item):
                    key, _, value = item.partition(":")
                    item = {key: flow(value)}
                else:
                    item = flow(item)
                items.append(item)
                i += 1
            return items, i
        mapping = {}
        while i < len(rows) and rows[i][0] == indent:
            key, _, rest = rows[i][1].partition(":")
            i += 1
            if rest.strip():
                mapping[key] = flow(rest)
            elif i < len(rows) and rows[i][0] > indent:
                mapping[key], i = block(i, rows[i][0])
            else:
                mapping[key] = None
        return mapping, i

    doc, end = block(0, 0)
    expect(end == len(rows), "opkit.yaml: could not read line {!r}".format(rows[end][1] if end < len(rows) else ""))
    return doc


manifest = load_yaml(open(os.path.join(root, "opkit.yaml")).read())
name = manifest["name"]
camel = "".join(part.capitalize() for part in name.split("_"))
op = manifest["op"]
ins = [a["name"] for a in op["inputs"]]
outs = [a["name"] for a in op["outputs"]]
types = {a["name"]: a["type"] for a in op["inputs"] + op["outputs"]}
attrs = [(a["name"], a["type"]) for a in op["attrs"] or []]
fw_type, bw_type = name + "_forward", name + "_backward"
expect(manifest["template"] == "oneflow-py-op", "opkit.yaml: template is {}".format(manifest["template"]))
expect(op["name"] == camel, "opkit.yaml: op.name {} is not the CamelCase of {}".format(op["name"], name))

# Naming contract: the folder is the module, named after the op; its files are <module>_<role>.
roles = {"cpp_def": name + "/" + name + "_cpp_def.cpp", "py_api": name + "/" + name + "_py_api.py",
         "py_kernel": name + "/" + name + "_py_kernel.py"}
for path in roles.values():
    expect(os.path.isfile(os.path.join(root, path)), "missing " + path)
for entry in os.listdir(os.path.join(root, name)):
    expect(entry in ("out", "__pycache__") or re.fullmatch(re.escape(name) + r"_(cpp_def\.cpp|cpp_kernel\.cpp|py_api\.py|py_kernel\.py)", entry),
           "{}/{} does not follow the naming contract <name>_<role>".format(name, entry))
expect(manifest["sources"] == list(roles.values()), "opkit.yaml: sources {} != {}".format(manifest["sources"], list(roles.values())))

# cpp_def: the registration macros.
text = open(os.path.join(root, roles["cpp_def"])).read()
text = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
parts = re.split(r'\b(REGISTER_USER_OP(?:_GRAD)?)\("(\w+)"\)', text)
regs = list(zip(parts[1::3], parts[2::3], parts[3::3]))
expect(sorted((m, t) for m, t, _ in regs) == sorted([("REGISTER_USER_OP", fw_type), ("REGISTER_USER_OP", bw_type), ("REGISTER_USER_OP_GRAD", fw_type)]),
       "cpp_def registers {}, expected ops {} and {} and the gradient of {}".format([(m, t) for m, t, _ in regs], fw_type, bw_type, fw_type))
cpp_types = {"std::string": "string", "int32_t": "int", "int64_t": "int", "float": "float", "double": "float",
             "bool": "bool", "DataType": "type", "Shape": "shape"}
ops = {}
for macro, op_type, body in regs:
    if macro == "REGISTER_USER_OP":
        ops[op_type] = {
            "inputs": re.findall(r'\.Input\("(\w+)"\)', body),
            "outputs": re.findall(r'\.Output\("(\w+)"\)', body),
            "attrs": [(n, cpp_types.get(t, t), d.strip()) for t, n, d in re.findall(r'\.Attr<([\w:]+)>\("(\w+)"(?:,\s*([^)]*))?\)', body)],
            "dtype_rules": dict(re.findall(r'\*ctx->Dtype4ArgNameAndIndex\("(\w+)",\s*0\)\s*=\s*\*ctx->Dtype4ArgNameAndIndex\("(\w+)",\s*0\)', body)),
        }
    else:
        grad = {"op_type": re.findall(r'OpTypeName\("(\w+)"\)', body),
                "binds": re.findall(r'InputBind\("(\w+)",\s*ctx->FwOp\(\)\.(input|output_grad|output)\("(\w+)",\s*0\)\)', body),
                "outputs": re.findall(r'\.Output\("(\w+)"\)', body),
                "input_grads": re.findall(r'InputGradBind\(user_op::OpArg\("(\w+)",\s*0\).*?\.output\("(\w+)",\s*0\)', body, flags=re.S)}
fw, bw = ops[fw_type], ops[bw_type]
expect(fw["inputs"] == ins, "cpp_def {} inputs {} != opkit.yaml {}".format(fw_type, fw["inputs"], ins))
expect(fw["outputs"] == outs, "cpp_def {} outputs {} != opkit.yaml {}".format(fw_type, fw["outputs"], outs))
expect([(n, t) for n, t, _ in fw["attrs"]] == attrs, "cpp_def {} attrs {} != opkit.yaml {}".format(fw_type, fw["attrs"], attrs))
for op_type in (fw_type, bw_type):
    expect(("device_sub_tag", "string", '"py"') in ops[op_type]["attrs"],
           "cpp_def {} lacks .Attr<std::string>(\"device_sub_tag\", \"py\"), which routes it to the Python kernel".format(op_type))
for out, src in fw["dtype_rules"].items():
    expect(types.get(out) == types.get(src), "cpp_def gives {} the dtype of {}, opkit.yaml types them {} and {}".format(
        out, src, types.get(out), types.get(src)))
expect(sorted(fw["dtype_rules"]) == sorted(outs), "cpp_def infers the dtype of {}, expected every output {}".format(sorted(fw["dtype_rules"]), outs))
# The gradient: the backward op's inputs are bound to forward args; it yields d<input> for each input.
expect(grad["op_type"] == [bw_type], "grad registration builds {}, expected {}".format(grad["op_type"], bw_type))
expect([b[0] for b in grad["binds"]] == bw["inputs"], "grad binds {} but {} has inputs {}".format([b[0] for b in grad["binds"]], bw_type, bw["inputs"]))
for _, what, arg in grad["binds"]:
    expect(arg in (ins if what == "input" else outs), "grad binds FwOp().{}(\"{}\"), not an {} of {}".format(what, arg, "input" if what == "input" else "output", fw_type))
expect(bw["outputs"] == ["d" + i for i in ins] == grad["outputs"], "{} outputs {} (built with {}), expected {}".format(bw_type, bw["outputs"], grad["outputs"], ["d" + i for i in ins]))
expect(sorted(grad["input_grads"]) == sorted((i, "d" + i) for i in ins), "InputGradBind {} != {}".format(grad["input_grads"], [(i, "d" + i) for i in ins]))

# py_api: each wrapper function is named after the op type it builds, with that op's args and attrs.
tree = ast.parse(open(os.path.join(root, roles["py_api"])).read())
wrapped = {}
for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
    calls = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and isinstance(node.args[0], ast.Constant):
            calls.setdefault(node.func.attr, []).append(node.args[0].value)
    if "Op" not in calls:
        continue
    (op_type,) = calls["Op"]
    expect(fn.name == op_type and op_type in ops, "py_api {}() builds op {}; a wrapper must be named after an op type of the cpp_def".format(fn.name, op_type))
    # user_op_builder builds the chain outermost-last, so ast.walk sees the calls last-first.
    expect(calls.get("Input", [])[::-1] == ops[op_type]["inputs"], "py_api {}() inputs {} != cpp_def {}".format(fn.name, calls.get("Input", [])[::-1], ops[op_type]["inputs"]))
    expect(calls.get("Output", [])[::-1] == ops[op_type]["outputs"], "py_api {}() outputs {} != cpp_def {}".format(fn.name, calls.get("Output", [])[::-1], ops[op_type]["outputs"]))
    expect(set(calls.get("Attr", [])) <= {a[0] for a in ops[op_type]["attrs"]}, "py_api {}() sets attrs {} the cpp_def does not declare".format(fn.name, calls.get("Attr")))
    expect([a.arg for a in fn.args.args][:len(ops[op_type]["inputs"])] == ops[op_type]["inputs"], "py_api {}() parameters {} do not start with the inputs {}".format(fn.name, [a.arg for a in fn.args.args], ops[op_type]["inputs"]))
    wrapped[op_type] = fn.name
expect(fw_type in wrapped, "py_api has no {}() wrapper".format(fw_type))

# py_kernel: forward(args) / backward(args), unpacking args in the cpp_def's input order.
tree = ast.parse(open(os.path.join(root, roles["py_kernel"])).read())
functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
for fn_name, op_type in (("forward", fw_type), ("backward", bw_type)):
    expect(fn_name in functions, "py_kernel has no {}()".format(fn_name))
    fn = functions[fn_name]
    expect(len(fn.args.args) == 1, "py_kernel {}() must take one argument (the list of inputs)".format(fn_name))
    param = fn.args.args[0].arg
    unpacked = [[e.id for e in n.targets[0].elts] for n in ast.walk(fn) if isinstance(n, ast.Assign)
                and isinstance(n.value, ast.Name) and n.value.id == param and isinstance(n.targets[0], (ast.Tuple, ast.List))]
    expect(unpacked == [ops[op_type]["inputs"]], "py_kernel {}() unpacks {} as {}, the cpp_def's {} inputs are {}".format(
        fn_name, param, unpacked, op_type, ops[op_type]["inputs"]))

# The tests and the README use the same module and op names.
opkit_test = open(os.path.join(root, "tests", "opkit_test_{}.py".format(name))).read()
expect('MODULE = "{}"'.format(name) in opkit_test, "tests/opkit_test_{}.py does not test module {}".format(name, name))
of_test = open(os.path.join(root, "test_{}.py".format(name))).read()
expect('custom_op_module("{}"'.format(name) in of_test and ".api.{}(".format(fw_type) in of_test, "test_{}.py does not load module {} and call {}".format(name, name, fw_type))
readme = open(os.path.join(root, "README.md")).read()
expect(all(s in readme for s in (fw_type, bw_type, 'custom_op_module("{}"'.format(name))), "README.md does not name {}, {}".format(fw_type, bw_type))

print("consistent: {} = {}({}) -> ({}), attrs {}; gradient {}({}) -> ({}); files {}".format(
    op["name"], fw_type, ", ".join(ins), ", ".join(outs), ", ".join("{}: {}".format(*a) for a in attrs),
    bw_type, ", ".join(bw["inputs"]), ", ".join(bw["outputs"]), ", ".join(roles.values())))
PY

run_opkit 0 new --list
expect_contains "$work/out" '^oneflow-py-op +OneFlow Python-kernel custom op'

# Two names: snake_case and CamelCase input give the same file and op names.
for input in my_sigmoid UserSigmoid; do
  run_opkit 0 new "$input" --template oneflow-py-op
done
[ -d user_sigmoid ] || fail "opkit new UserSigmoid did not make user_sigmoid/"
expect_contains user_sigmoid/opkit.yaml '^  name: UserSigmoid$'

cd my_sigmoid
for f in opkit.yaml README.md .gitignore my_sigmoid/my_sigmoid_cpp_def.cpp my_sigmoid/my_sigmoid_py_api.py \
  my_sigmoid/my_sigmoid_py_kernel.py test_my_sigmoid.py tests/opkit_test_my_sigmoid.py; do
  [ -f "$f" ] || fail "opkit new did not write $f"
done
[ "$(find . -type f | wc -l)" -eq 8 ] || { find . -type f; fail "opkit new wrote other files"; }
expect_contains my_sigmoid/my_sigmoid_cpp_def.cpp '^REGISTER_USER_OP\("my_sigmoid_forward"\)$'
expect_contains my_sigmoid/my_sigmoid_cpp_def.cpp '^REGISTER_USER_OP_GRAD\("my_sigmoid_forward"\)$'
expect_contains README.md 'PyPI.s `oneflow` 0\.9\.0 is a large CUDA build'
# Every Python file at least compiles (the two that import oneflow cannot run here).
python3 - my_sigmoid/*.py test_my_sigmoid.py tests/opkit_test_my_sigmoid.py <<'PY'
import sys
for path in sys.argv[1:]:
    compile(open(path).read(), path, "exec")
PY

run_opkit 0 build
expect_contains "$work/out" '^nothing to compile: a oneflow-py-op project is Python'

# opkit test: numpy in the shared venv (made on the first run, then cached in OPKIT_HOME).
run_opkit 0 test
expect_contains "$work/out" '^ok +forward\(\) known values \(float32'
expect_contains "$work/out" '^ok +shape/dtype rules of the cpp_def hold for float64'
expect_contains "$work/out" '^ok +backward\(\) matches the finite-difference gradient of forward\(\) in x, shape \(3, 4\)'
expect_contains "$work/out" '^tests/opkit_test_my_sigmoid\.py: passed \(exit 0\)$'
if grep -q '^FAIL' "$work/out"; then cat "$work/out" >&2; fail "opkit test passed with a FAIL line"; fi

# Consistency across the generated files, for both projects.
for project in "$work/my_sigmoid" "$work/user_sigmoid"; do
  python3 "$work/consistency.py" "$project" >"$work/consistency.out" || { cat "$work/consistency.out" >&2; fail "$project is inconsistent"; }
done
expect_contains "$work/consistency.out" '^consistent: UserSigmoid = user_sigmoid_forward\(x\) -> \(y\), attrs device_sub_tag: string; gradient user_sigmoid_backward\(y, dy\) -> \(dx\)'
(cd "$work/user_sigmoid" && run_opkit 0 test)

# The consistency check catches each kind of mismatch (on copies of the project).
check_catches() { # <file> <sed expression> <expected message regex>
  rm -rf "$work/mutant" && cp -r "$work/my_sigmoid" "$work/mutant"
  sed -i "$2" "$work/mutant/$1"
  ! cmp -s "$work/my_sigmoid/$1" "$work/mutant/$1" || fail "sed '$2' changed nothing in $1"
  if python3 "$work/consistency.py" "$work/mutant" >"$work/consistency.out"; then
    fail "consistency check missed: $1 with sed '$2'"
  fi
  expect_contains "$work/consistency.out" "$3"
}
check_catches my_sigmoid/my_sigmoid_py_api.py 's/\.Output("y")/.Output("out")/' 'py_api my_sigmoid_forward\(\) outputs'
check_catches my_sigmoid/my_sigmoid_py_api.py 's/\.Op("my_sigmoid_forward")/.Op("my_sigmoid_fwd")/' 'py_api my_sigmoid_forward\(\) builds op my_sigmoid_fwd'
check_catches my_sigmoid/my_sigmoid_py_kernel.py 's/(y, dy) = args/(dy, y) = args/' 'py_kernel backward\(\) unpacks'
check_catches my_sigmoid/my_sigmoid_py_kernel.py 's/^def forward(args)/def fwd(args)/' 'py_kernel has no forward\(\)'
check_catches my_sigmoid/my_sigmoid_cpp_def.cpp 's/OpTypeName("my_sigmoid_backward")/OpTypeName("my_sigmoid_grad")/' 'grad registration builds'
check_catches my_sigmoid/my_sigmoid_cpp_def.cpp 's/"device_sub_tag", "py"/"device_sub_tag", "cpu"/' 'lacks .*device_sub_tag'
check_catches opkit.yaml 's/{name: x, type: float}/{name: in, type: float}/' 'cpp_def my_sigmoid_forward inputs \[.x.\] != opkit.yaml \[.in.\]'
check_catches opkit.yaml 's/{name: y, type: float}/{name: y, type: double}/' 'cpp_def gives y the dtype of x'
check_catches opkit.yaml 's/name: MySigmoid/name: Sigmoid/' 'op.name Sigmoid is not the CamelCase'
rm -rf "$work/mutant" && cp -r "$work/my_sigmoid" "$work/mutant"
mv "$work/mutant/my_sigmoid/my_sigmoid_py_api.py" "$work/mutant/my_sigmoid/api.py"
python3 "$work/consistency.py" "$work/mutant" >"$work/consistency.out" && fail "a renamed py_api file went unnoticed"
expect_contains "$work/consistency.out" 'missing my_sigmoid/my_sigmoid_py_api\.py'

# NEGATIVE: a wrong factor in backward() makes opkit test fail with the finite-difference mismatch.
sed -i 's/dx = dy \* y \* (1 - y)/dx = 2 * dy * y * (1 - y)/' my_sigmoid/my_sigmoid_py_kernel.py
grep -q 'dx = 2 \* dy' my_sigmoid/my_sigmoid_py_kernel.py || fail "the sed did not break backward()"
run_opkit 1 test
expect_contains "$work/out" '^FAIL +backward\(\) matches the finite-difference gradient of forward\(\) in x, shape \(3, 4\)'
expect_contains "$work/out" "backward\(\) does not match the finite-difference gradient of forward\(\): at x\[[0-9, ]+\] backward gives dx="
expect_contains "$work/out" '^tests/opkit_test_my_sigmoid\.py: FAILED \(exit 1\)$'
# ... and a forward() that returns float64 for float32 input breaks the cpp_def's dtype rule.
sed -i 's/dx = 2 \* dy/dx = dy/; s/return np.asarray(y, dtype=x.dtype)/return np.asarray(y, dtype=np.float64)/' my_sigmoid/my_sigmoid_py_kernel.py
run_opkit 1 test
expect_contains "$work/out" 'forward\(\) output y has dtype float64, but the cpp_def infers y = dtype of x \(float32\)'
if grep -q '^FAIL +backward' "$work/out"; then cat "$work/out" >&2; fail "restoring backward() did not fix it"; fi
echo "PASS: $test_name"
