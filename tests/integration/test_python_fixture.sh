# opkit test --python on op code that opkit did not write (tests/fixtures/acme_ops,
# adopted by `opkit init`): every library's ops run on test vectors in real TF
# 1.12.0 (Python 3.6) and 2.10.1 (Python 3.10): attrs with values, string
# tensors, two outputs, int64/bool/half, a file the op reads named relative to
# the project, expected errors; Python names as TensorFlow generates them. The
# text library uses Status::OK(), so it builds for 1.12 and 2.10.1, not 2.15.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/acme_ops" acme_ops
cd acme_ops
run_opkit 0 init --tf 1.12,2.10.1 --ops

# The vectors, under each op of the opkit.yaml that init wrote.
python3 - <<'PY'
vectors = {
    "HashStrings": """
          - name: salted
            attrs: {num_buckets: 1000, salt: s1}
            inputs: {keys: [apple, kiwi, ""]}
            outputs: {buckets: [200, 700, 896]}""",
    "LookupVocab": """
          - name: default id
            attrs: {vocab_file: {file: acme/text/testdata/vocab.txt}}
            inputs: {keys: {dtype: string, value: [banana, kiwi, apple]}}
            outputs: {ids: [1, -1, 0], found: [true, false, true]}
          - attrs: {vocab_file: {file: acme/text/testdata/vocab.txt}, default_id: 7}
            inputs: {keys: [cherry, "1"]}
            outputs: {ids: [2, 7], found: [true, false]}
          - name: rejects a matrix
            attrs: {vocab_file: {file: acme/text/testdata/vocab.txt}}
            inputs: {keys: [[apple]]}
            error: keys must be a vector""",
    "JoinStrings": """
          - attrs: {separator: "+"}
            inputs: {parts: ["1", "2", three]}
            outputs: {joined: "1+2+three"}""",
    "Acme>LoadKVEmbed": """
          - name: half rows
            attrs: {combiner: sum}
            inputs:
              ids: [1, 0]
              table: {dtype: half, value: [[0.5, 1.5], [2.25, -1]]}
            outputs: {embeddings: [[2.25, -1], [0.5, 1.5]]}
            tolerance: 0.001""",
    "Acme>KVEmbedGrad": """
          - inputs:
              ids: [0, 2, 0]
              grads: {dtype: float, value: [[1, 2], [3, 4], [5, 6]]}
              num_rows: 3
            outputs: {table_grad: [[6, 8], [0, 0], [3, 4]]}
          - name: no rows
            inputs: {ids: [0], grads: {dtype: double, value: [[1]]}, num_rows: 0}
            error: num_rows must be positive, got 0
          - name: nan and inf
            inputs: {ids: [0], grads: {dtype: float, value: [[.nan, -.inf, .inf]]}, num_rows: 2}
            outputs: {table_grad: [[.nan, -.inf, .inf], [0, 0, 0]]}
          - name: T set, as inferred
            attrs: {T: double}
            inputs: {ids: [1], grads: {dtype: double, value: [[2]]}, num_rows: 2}
            outputs: {table_grad: [[0], [2]]}
          - name: T set otherwise
            attrs: {T: half}
            inputs: {ids: [1], grads: {dtype: double, value: [[2]]}, num_rows: 2}
            error: attr T is float64 as TensorFlow infers it from the inputs, not float16 as the vector sets it""",
    "Acme>Resampler": """
          - inputs:
              data: {dtype: float, value: [[0, 10, 20]]}
              warp: {dtype: float, value: [[0.5, 1.25, 5]]}
            outputs: {output: [[5, 12.5, 20]]}""",
}
text = open("opkit.yaml").read()
for op, block in vectors.items():
    line = f"      - name: {op}\n"
    assert line in text, op
    text = text.replace(line, line + "        tests:" + block + "\n")
open("opkit.yaml", "w").write(text)
PY

run_opkit 0 build
run_opkit 0 test --python --tf 1.12,2.10.1
cp "$work/out" "$work/text.out"
for v in 1.12.0 2.10.1; do
  sed -n "/^tensorflow $v (Python): .*tf-$v-py3\.[0-9]*\/bin\/python$/,/^  all test vectors match$/p" "$work/text.out" >"$work/$v"
  expect_contains "$work/$v" 'all test vectors match'
  expect_contains "$work/$v" '^    HashStrings \(hash_strings\) vector 0 "salted": ok$'
  expect_contains "$work/$v" '^    LookupVocab \(lookup_vocab\) vector 2 "rejects a matrix": ok$'
done
expect_contains "$work/1.12.0" '^tensorflow 1\.12\.0 \(Python\): .*/tf-1\.12\.0-py3\.6/bin/python$'
expect_contains "$work/2.10.1" '^tensorflow 2\.10\.1 \(Python\): .*/tf-2\.10\.1-py3\.10/bin/python$'
expect_contains "$work/2.10.1" '^    Acme>LoadKVEmbed \(acme_load_kv_embed\) vector 0 "half rows": ok$'
# YAML's .nan and .inf reach Python as floats, come back, and a NaN expected matches a NaN got.
expect_contains "$work/2.10.1" '^    Acme>KVEmbedGrad \(acme_kv_embed_grad\) vector 2 "nan and inf": ok$'
# A type attr the wrapper infers from the inputs may be set: checked against what TF infers.
expect_contains "$work/2.10.1" '^    Acme>KVEmbedGrad \(acme_kv_embed_grad\) vector 3 "T set, as inferred": ok$'
expect_contains "$work/2.10.1" '^    Acme>KVEmbedGrad \(acme_kv_embed_grad\) vector 4 "T set otherwise": ok$'
if grep -q 'Acme>' "$work/1.12.0"; then fail "namespaced ops ran in 1.12, which does not build them"; fi

# --json: one record per (version, vector), with the values expected and got.
run_opkit 0 test --python --json
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["schema"] == "opkit.test-python/1" and report["ok"] and not report["problems"], report
records = report["records"]
per_version = {}
for r in records:
    per_version.setdefault(r["version"], []).append((r["op"], r["vector"]))
assert sorted(per_version["1.12.0"]) == sorted(
    [("HashStrings", 0), ("LookupVocab", 0), ("LookupVocab", 1), ("LookupVocab", 2), ("JoinStrings", 0)]), per_version
assert len(per_version["2.10.1"]) == 12, per_version
for r in records:
    assert r["ok"], r
    if r["op"] == "LookupVocab" and r["vector"] == 0:
        assert r["actual"] == {"outputs": {"ids": [1, -1, 0], "found": [True, False, True]}}, r
        assert r["expected"] == r["actual"], r
    if r["op"] == "JoinStrings":
        assert r["actual"]["outputs"]["joined"] == "1+2+three", r
    if r["op"] == "LookupVocab" and r["vector"] == 2:
        assert r["expected"] == {"error": "keys must be a vector"}, r
        assert r["actual"]["error"].startswith("InvalidArgumentError: keys must be a vector"), r
    if r["op"] == "Acme>KVEmbedGrad" and r["vector"] == 2:
        nan, inf = {"$float": "nan"}, {"$float": "inf"}
        grad = [[nan, {"$float": "-inf"}, inf], [0.0, 0.0, 0.0]]
        assert r["actual"] == {"outputs": {"table_grad": grad}}, r
        assert r["expected"] == {"outputs": {"table_grad": [[nan, {"$float": "-inf"}, inf], [0, 0, 0]]}}, r
    if r["op"] == "Acme>LoadKVEmbed":
        assert r["python_name"] == "acme_load_kv_embed", r
        assert r["actual"]["outputs"]["embeddings"] == [[2.25, -1.0], [0.5, 1.5]], r
PY

# The text library's source does not compile for 2.15 (Status::OK() is gone there).
run_opkit 1 build --tf 2.15.1 --lib text --build-dir build-2.15
expect_contains "$work/err" "text_ops\.cc:[0-9]+:[0-9]+: error: .OK. is not a member of .tsl::Status"

# A wrong expectation fails in the versions that run it, showing both values.
sed -i 's/outputs: {ids: \[2, 7\], found: \[true, false\]}/outputs: {ids: [2, 8], found: [true, false]}/' opkit.yaml
run_opkit 1 test --python --lib text
for v in 1.12.0 2.10.1; do
  grep -A2 "^    LookupVocab (lookup_vocab) vector 1: MISMATCH$" "$work/out" >/dev/null || fail "no mismatch in $v"
done
expect_contains "$work/out" '^      expected ids = \[2,8\], found = \[true,false\]$'
expect_contains "$work/out" '^      actual   ids = \[2,7\], found = \[true,false\]$'
[ "$(grep -c '^  FAILED$' "$work/out")" -eq 2 ] || fail "expected both versions to fail"
sed -i 's/ids: \[2, 8\]/ids: [2, 7]/' opkit.yaml

# An expected error that does not come: a mismatch showing what came instead.
sed -i 's/error: keys must be a vector/error: keys must be sorted/' opkit.yaml
run_opkit 1 test --python --tf 2.10.1 --lib text
expect_contains "$work/out" '^      expected error containing "keys must be sorted"$'
expect_contains "$work/out" '^      actual   error InvalidArgumentError: keys must be a vector'
sed -i 's/error: keys must be sorted/error: keys must be a vector/' opkit.yaml

# Bad vectors are input errors, with file:line:col, before anything runs (--no-build:
# an opkit.yaml changed since the build would otherwise be rebuilt first).
cp opkit.yaml "$work/good.yaml"
sed -i 's#{file: acme/text/testdata/vocab.txt}, default_id: 7#{file: acme/text/testdata/missing.txt}, default_id: 7#' opkit.yaml
run_opkit 2 test --python --no-build --tf 2.10.1 --lib text
expect_one_error_line
expect_contains "$work/err" 'opkit\.yaml:[0-9]+:[0-9]+: test data file .*acme/text/testdata/missing\.txt does not exist'
cp "$work/good.yaml" opkit.yaml
# A file of the project only: a symlink out of it is refused where it is read
# (absolute paths and ../ are refused by opkit.yaml's parser: unit tests).
echo secret >"$work/outside.txt"
ln -s "$work/outside.txt" acme/text/testdata/link.txt
sed -i 's#{file: acme/text/testdata/vocab.txt}, default_id: 7#{file: acme/text/testdata/link.txt}, default_id: 7#' opkit.yaml
run_opkit 2 test --python --no-build --tf 2.10.1 --lib text
expect_one_error_line
expect_contains "$work/err" 'opkit\.yaml:[0-9]+:[0-9]+: test data file .*acme/text/testdata/link\.txt leads outside the project'
rm acme/text/testdata/link.txt
cp "$work/good.yaml" opkit.yaml
sed -i 's/            error: num_rows must be positive, got 0/&\n            outputs: {table_grad: [[1]]}/' opkit.yaml
run_opkit 2 test --python --no-build --tf 2.10.1 --lib embed
expect_one_error_line
expect_contains "$work/err" 'opkit\.yaml:[0-9]+:[0-9]+: a test vector expects either outputs or an error, not both'
cp "$work/good.yaml" opkit.yaml
sed -i 's/attrs: {num_buckets: 1000, salt: s1}/attrs: {num_buckets: 1000, salt: s1, seed: 3}/' opkit.yaml
run_opkit 2 test --python --no-build --tf 2.10.1 --lib text
expect_one_error_line
expect_contains "$work/err" "opkit\.yaml:[0-9]+:[0-9]+: the op has no attr 'seed' \(it has: num_buckets, salt\)"
cp "$work/good.yaml" opkit.yaml

# A library that fails its check: its findings, not a build log.
run_opkit 0 build --tf 1.12 --lib text --abi 1 --no-check --build-dir build-abi
run_opkit 1 test --python --tf 1.12 --lib text --build-dir build-abi
expect_one_error_line
expect_contains "$work/err" '_text_ops\.so: will not load in tensorflow 1\.12\.0: \[dual-abi-mismatch\]'
expect_contains "$work/err" 'opkit check .* --tf 1\.12'

# A venv whose TensorFlow is not the SDK's: said, and nothing runs.
mkdir -p "$work/venvs"
ln -s "$OPKIT_VENVS/tf-2.10.1-py3.10" "$work/venvs/tf-1.12.0-py3.6"
OPKIT_VENVS="$work/venvs" run_opkit 3 test --python --no-build --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'tf-1\.12\.0-py3\.6: its TensorFlow is 2\.10\.1, but the libraries were built against tensorflow-1\.12\.0'
