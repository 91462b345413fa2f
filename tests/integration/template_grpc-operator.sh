# The grpc-operator template (a Phantoscope operator): opkit new -> build (nothing to
# compile) -> opkit test starts the gRPC server and passes; the generated files agree
# with opkit.yaml and with each other; the Dockerfile and Makefile check out statically
# (no Docker engine here); a wrong vector size makes `opkit test` fail, and the server
# is stopped either way.
source "$(dirname "$0")/common.sh"

command -v python3 >/dev/null || fail "python3 is missing: run scripts/setup.sh"
command -v make >/dev/null || fail "make is missing: apt-get install make"

# The pid `opkit test` printed for server.py must be gone: stopped even on failure.
expect_server_stopped() {
  local pid
  pid=$(sed -n 's/.*server\.py (pid \([0-9]*\)) stopped.*/\1/p' "$work/out")
  [ -n "$pid" ] || { cat "$work/out" >&2; fail "opkit test did not report stopping server.py"; }
  if kill -0 "$pid" 2>/dev/null; then fail "server.py (pid $pid) is still running after opkit test"; fi
}

# make -n's commands, continuation lines joined, blanks squeezed.
make_dry_run() {
  make -s -n "$@" | python3 -c 'import sys; print(sys.stdin.read().replace("\\\n", " "))' | tr -s ' \t' ' '
}

run_opkit 0 new --list
expect_contains "$work/out" '^grpc-operator +Phantoscope'

run_opkit 0 new color_search --template grpc-operator
expect_contains "$work/out" 'op ColorSearch, template grpc-operator'
for file in opkit.yaml server.py custom_operator.py utils.py rpc/rpc.proto data/prepare_model.sh \
  requirements.txt requirements-gpu.txt Dockerfile Makefile .dockerignore .gitignore README.md \
  tests/opkit_test_color_search.py; do
  [ -f "color_search/$file" ] || fail "opkit new did not write $file"
done
if grep -rn '{{' color_search; then fail "a mustache tag was left unrendered"; fi
cd color_search

run_opkit 0 build
expect_contains "$work/out" 'nothing to compile'

# The service itself: stubs from rpc.proto, server.py on loopback, a real gRPC client.
run_opkit 0 test
expect_contains "$work/out" "^Identity: name='color_search', endpoint='127\.0\.0\.1:[0-9]+', type='encoder', input='image', output='vector', dimension='512', metricType='L2'"
expect_contains "$work/out" '^Healthy: healthy'
expect_contains "$work/out" '^Execute\(datas\): 2 vectors of 512 floats, L2 norm 1'
expect_contains "$work/out" '^Execute\(urls\): 2 vectors, equal to those from the same images as data'
expect_contains "$work/out" '^Execute\(bad base64\): INVALID_ARGUMENT'
expect_contains "$work/out" '^Execute\(file URL\): INVALID_ARGUMENT'
expect_contains "$work/out" 'server\.py \(pid [0-9]+\) stopped, exit 0'
expect_contains "$work/out" '^tests/opkit_test_color_search\.py: passed'
expect_server_stopped

# Consistency: parse every generated file (stdlib only) and prove the op's name, input,
# output, the gRPC methods and messages, and the vector dimension agree everywhere.
cat >"$work/consistency.py" <<'EOF'
import ast
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
problems = []


def agree(what, *values):
    if any(value != values[0] for value in values[1:]):
        problems.append(f"{what} disagree: {values}")


def read(path):
    return (root / path).read_text()


def module(path):
    return ast.parse(read(path), path)


# opkit.yaml, in the shape the template writes (args as flow mappings): no YAML library.
manifest = read("opkit.yaml")
top = dict(re.findall(r"^(name|version|template): *(\S+)$", manifest, re.M))
op_name = re.search(r"^op:\n  name: *(\S+)$", manifest, re.M).group(1)


def op_args(section):
    block = re.search(rf"^  {section}:\n((?:    .*\n)+)", manifest, re.M).group(1)
    return re.findall(r"- \{name: *(\w+), *type: *(\w+)\}", block)


inputs, outputs = op_args("inputs"), op_args("outputs")
sources = re.findall(r"^  - (\S+)$", manifest.split("\nsources:\n")[1], re.M)
yaml_dimension = re.search(r"dimension (\d+) as generated", manifest).group(1)
agree("opkit.yaml template", top["template"], "grpc-operator")
agree("opkit.yaml op name and the CamelCase of its name", op_name,
      "".join(part.capitalize() for part in top["name"].split("_")))
agree("opkit.yaml inputs", inputs, [("image", "string")])
agree("opkit.yaml outputs", outputs, [("vector", "float")])
for source in sources:
    if not (root / source).is_file():
        problems.append(f"opkit.yaml sources: {source} does not exist")

# custom_operator.py: the constants, and the properties Phantoscope reads return them.
tree = module("custom_operator.py")
constants = {node.targets[0].id: node.value.value for node in tree.body
             if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)}
operator = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CustomOperator")
returned = {}
for fn in operator.body:
    if isinstance(fn, ast.FunctionDef) and any(getattr(d, "id", "") == "property" for d in fn.decorator_list):
        value = fn.body[-1].value
        if isinstance(value, ast.Call):  # str(DIMENSION)
            value = value.args[0]
        returned[fn.name] = value.id
agree("CustomOperator properties", returned, {"name": "NAME", "type": "TYPE", "input": "INPUT", "output": "OUTPUT",
                                              "dimension": "DIMENSION", "metric_type": "METRIC_TYPE"})
agree("op name: opkit.yaml name, custom_operator.py NAME", top["name"], constants["NAME"])
agree("input: opkit.yaml, custom_operator.py INPUT", inputs[0][0], constants["INPUT"])
agree("output: opkit.yaml, custom_operator.py OUTPUT", outputs[0][0], constants["OUTPUT"])
agree("TYPE (an encoder answers vectors)", constants["TYPE"], "encoder")
readme = read("README.md")
agree("dimension: custom_operator.py DIMENSION, opkit.yaml, README.md, BINS**3",
      constants["DIMENSION"], int(yaml_dimension),
      int(re.search(r"L2-normalised vector of (\d+) floats", readme).group(1)), constants["BINS"] ** 3)
for path in ("custom_operator.py", "rpc/rpc.proto", "README.md"):
    if op_name not in read(path):
        problems.append(f"{path} does not name the op {op_name}")

# rpc/rpc.proto: Phantoscope's package, service, methods and messages.
proto = read("rpc/rpc.proto")
agree("proto package", re.search(r"^package (\w+);", proto, re.M).group(1), "omnisearch")
service = re.search(r"service (\w+) \{(.*?)\n\}", proto, re.S)
agree("proto service", service.group(1), "Operator")
rpcs = {m: (req, rep) for m, req, rep in re.findall(r"rpc (\w+) \((\w+)\) returns \((\w+)\)", service.group(2))}
agree("proto methods", sorted(rpcs), ["Execute", "Healthy", "Identity"])
messages = {name: dict((f, t) for t, f in re.findall(r"^\s*(?:repeated )?(\w+) (\w+) = \d+;", body, re.M))
            for name, body in re.findall(r"^message (\w+) \{(.*?)\}", proto, re.S | re.M)}
for request, reply in rpcs.values():
    for message in (request, reply):
        if message not in messages:
            problems.append(f"rpc.proto: message {message} is used but not defined")
agree("ExecuteRequest fields", messages["ExecuteRequest"], {"urls": "string", "datas": "string"})
agree("Vector (the output's type)", messages["Vector"], {"element": outputs[0][1]})
agree("IdentityReply fields", sorted(messages["IdentityReply"]),
      sorted(["name", "endpoint", "type", "input", "output", "dimension", "metricType"]))

# server.py: its servicer implements exactly the proto's methods, and every message
# and field it uses is in the proto.
tree = module("server.py")
servicer = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "OperatorServicer")
agree("OperatorServicer base", ast.unparse(servicer.bases[0]), "rpc_pb2_grpc." + service.group(1) + "Servicer")
agree("server.py methods and proto methods",
      sorted(f.name for f in servicer.body if isinstance(f, ast.FunctionDef) and f.name[0].isupper()), sorted(rpcs))
calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
if not any(ast.unparse(c.func) == "rpc_pb2_grpc.add_OperatorServicer_to_server" for c in calls):
    problems.append("server.py does not register OperatorServicer")
for call in calls:
    name = ast.unparse(call.func)
    if name.startswith("rpc_pb2."):
        message = name.split(".", 1)[1]
        used = {k.arg for k in call.keywords}
        if message not in messages or not used <= set(messages[message]):
            problems.append(f"server.py: {message}({', '.join(sorted(used))}) does not match rpc.proto")
        if message == "IdentityReply":
            agree("IdentityReply fields set by server.py", sorted(used), sorted(messages["IdentityReply"]))
execute = next(f for f in servicer.body if isinstance(f, ast.FunctionDef) and f.name == "Execute")
request_fields = {n.attr for n in ast.walk(execute)
                  if isinstance(n, ast.Attribute) and ast.unparse(n.value) == "request"}
agree("ExecuteRequest fields read by Execute", sorted(request_fields), sorted(messages["ExecuteRequest"]))
if not any(isinstance(n, ast.ImportFrom) and n.module == "custom_operator" and n.names[0].name == "CustomOperator"
           for n in tree.body):
    problems.append("server.py does not import CustomOperator from custom_operator")
endpoint = next(c for c in calls if ast.unparse(c.func) == "os.getenv" and c.args[0].value == "OP_ENDPOINT")
port = endpoint.args[1].value.rsplit(":", 1)[1]

# Dockerfile: what it copies covers every module server.py needs, it generates the
# stubs, installs the chosen requirements, exposes the served port, runs server.py.
docker = read("Dockerfile").replace("\\\n", " ")
copied = set()
for line in re.findall(r"^COPY (.*)$", docker, re.M):
    copied.update(word.rstrip("/") for word in line.split()[:-1])
needed, todo = {"server.py"}, ["server.py"]
while todo:
    for node in ast.walk(module(todo.pop())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) else []
        for name in names:
            if (root / f"{name}.py").is_file() and f"{name}.py" not in needed:
                needed.add(f"{name}.py")
                todo.append(f"{name}.py")
for path in sorted(needed | {"requirements.txt", "requirements-gpu.txt", "rpc/rpc.proto", "data"}):
    if path not in copied:
        problems.append(f"Dockerfile does not COPY {path}")
ignored = read(".dockerignore").split()
for path in copied:
    if any(path == i.rstrip("/") or path.startswith(i) for i in ignored):
        problems.append(f".dockerignore excludes {path}, which the Dockerfile copies")
for pattern, what in [
        (r"^ARG base_tag=\S+\nFROM \$\{base_tag\}\nARG requirements=requirements\.txt$", "base and requirements ARGs"),
        (r"^RUN pip install .*-r \$\{requirements\}$", "pip install -r ${requirements}"),
        (r"^RUN cd data && bash prepare_model\.sh$", "running data/prepare_model.sh"),
        (r"^RUN python -m grpc_tools\.protoc -I rpc --python_out=rpc --grpc_python_out=rpc rpc/rpc\.proto$", "stubs"),
        (r'^CMD \["python", "server\.py"\]$', "running server.py")]:
    if not re.search(pattern, docker, re.M):
        problems.append(f"Dockerfile: no {what}")
agree("port: server.py's default OP_ENDPOINT, Dockerfile EXPOSE, Dockerfile OP_ENDPOINT", port,
      re.search(r"^EXPOSE (\d+)$", docker, re.M).group(1),
      re.search(r"OP_ENDPOINT=\S+:(\d+)", docker).group(1))
agree("Makefile IMAGE_NAME and the op name", re.search(r"^IMAGE_NAME \?= (\S+)$", read("Makefile"), re.M).group(1),
      top["name"])

for problem in problems:
    print("MISMATCH " + problem)
if problems:
    sys.exit(1)
print(f"consistent: {op_name} ({top['name']}), {inputs[0][0]} -> {outputs[0][0]}[{constants['DIMENSION']}], "
      f"methods {', '.join(sorted(rpcs))}, {len(needed)} modules in the image, port {port}")
EOF
python3 "$work/consistency.py" . >"$work/consistency.out" 2>&1 || { cat "$work/consistency.out" >&2; fail "generated files disagree"; }
expect_contains "$work/consistency.out" '^consistent: ColorSearch \(color_search\), image -> vector\[512\], methods Execute, Healthy, Identity, 3 modules in the image, port 80$'

# The consistency check itself catches a disagreement: a renamed field in server.py.
cp -r "$work/color_search" "$work/drifted"
sed -i 's/metricType=operator.metric_type/metric_type=operator.metric_type/' "$work/drifted/server.py"
if python3 "$work/consistency.py" "$work/drifted" >"$work/drifted.out" 2>&1; then fail "the consistency check missed a renamed IdentityReply field"; fi
expect_contains "$work/drifted.out" '^MISMATCH server\.py: IdentityReply\(.*metric_type.*\) does not match rpc\.proto'
rm -rf "$work/drifted"

# The Makefile, dry-run: cpu and gpu build the same Dockerfile with their base image and
# requirements file, named by IMAGE_NAME and TAG (default: opkit.yaml's version).
make_dry_run cpu gpu >"$work/make.out"
expect_contains "$work/make.out" '^docker build --build-arg base_tag=ubuntu:24\.04 --build-arg requirements=requirements\.txt -t psoperator/color_search:0\.1\.0 -f Dockerfile \.$'
expect_contains "$work/make.out" '^docker build --build-arg base_tag=nvidia/cuda:[^ ]+ --build-arg requirements=requirements-gpu\.txt -t psoperator/color_search-gpu:0\.1\.0 -f Dockerfile \.$'
make_dry_run cpu gpu IMAGE_NAME=colors TAG=2.0 REGISTRY=example.com/ops >"$work/make.out"
expect_contains "$work/make.out" ' -t example\.com/ops/colors:2\.0 -f Dockerfile'
expect_contains "$work/make.out" ' -t example\.com/ops/colors-gpu:2\.0 -f Dockerfile'
make -s data >"$work/data.out" 2>&1 || { cat "$work/data.out" >&2; fail "make data failed"; }
expect_contains "$work/data.out" 'Model has been prepared successfully'
bash -n data/prepare_model.sh || fail "data/prepare_model.sh has a syntax error"

# Negative: the model's output no longer has the declared size (7 levels: 343 cells).
sed -i 's/^BINS = 8$/BINS = 7/' custom_operator.py
grep -q '^BINS = 7$' custom_operator.py || fail "the sed did not break custom_operator.py"
run_opkit 1 test
expect_contains "$work/out" '^FAIL: Execute\(datas\): vector 0 has 343 elements, but custom_operator\.py declares DIMENSION = 512$'
expect_contains "$work/out" '^tests/opkit_test_color_search\.py: FAILED \(exit 1\)'
expect_server_stopped

echo "PASS: $test_name"
