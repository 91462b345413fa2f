# `opkit package saved-model`: the export must be a real SavedModel (a
# saved_model.pb the wire-format reader parses as one), refused input writes
# nothing, and assets/ holds exactly what the latest run asked for plus the
# user's own files, which opkit never replaces or removes. The SavedModel is
# exported by a real TensorFlow, and loads with the op from assets/.
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION, PYTHON (the python_tf fixture)
export TF_CPP_MIN_LOG_LEVEL=3

run_opkit 0 new py_op
cd py_op
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init
run_opkit 0 build --tf "$TF_VERSION"

"$PYTHON" - "$work/export" <<'PY'
import sys, tensorflow as tf
class Plus(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x + 1.0
tf.saved_model.save(Plus(), sys.argv[1])
PY
pb="$work/export/saved_model.pb"
[ -s "$pb" ] || fail "TensorFlow wrote no saved_model.pb"

# tree <dir>: every file (and link) with its content hash, and every folder.
tree() {
  (cd "$1" && find . -mindepth 1 \( -type d -printf 'd %p\n' \) -o \( -type l -printf 'l %p %l\n' \) \
    -o \( -type f -exec sha256sum {} + \) | sort)
}
# refused <dir> <regex>: exit 2, one error line matching <regex>, <dir> unchanged.
refused() {
  local dir=$1 regex=$2 before
  before=$(tree "$dir")
  run_opkit 2 package saved-model "$dir" --tf "$TF_VERSION" --asset "$work/fg.json"
  expect_one_error_line
  expect_contains "$work/err" "$regex"
  [ "$before" = "$(tree "$dir")" ] || fail "a refused run changed $dir"
}
echo '{"features": []}' >"$work/fg.json"

# --- not a SavedModel: exit 2, one line naming the file and what is wrong, nothing written
mkdir "$work/empty" && : >"$work/empty/saved_model.pb"
refused "$work/empty" 'empty/saved_model\.pb: not a SavedModel: the file is empty$'
# The first half of the real one, in a copy of the real export with a user's asset.
cp -r "$work/export" "$work/truncated"
mkdir -p "$work/truncated/assets" && echo 'user' >"$work/truncated/assets/vocab.txt"
size=$(stat -c %s "$pb")
head -c $((size / 2)) "$pb" >"$work/truncated/saved_model.pb"
refused "$work/truncated" "truncated/saved_model\.pb: not a SavedModel protobuf: byte [0-9]+: .*runs past the end"
# Random bytes, a text file, a frozen GraphDef-like message, the JSON asset itself.
mkdir "$work/random" && head -c 4096 /dev/urandom >"$work/random/saved_model.pb"
refused "$work/random" 'random/saved_model\.pb: not a SavedModel protobuf: byte [0-9]+: '
mkdir "$work/text" && printf 'saved_model_schema_version: 1\nmeta_graphs {\n}\n' >"$work/text/saved_model.pb"
refused "$work/text" 'text/saved_model\.pb: not a SavedModel protobuf: byte 0: field 14 is a group'
mkdir "$work/json" && cp "$work/fg.json" "$work/json/saved_model.pb"
refused "$work/json" 'json/saved_model\.pb: not a SavedModel protobuf: '
# A nested meta graph that is garbage: SavedModel{schema 1, meta_graphs: 3 bytes of 0xff}.
mkdir "$work/nested" && printf '\x08\x01\x12\x03\xff\xff\xff' >"$work/nested/saved_model.pb"
refused "$work/nested" 'nested/saved_model\.pb: not a SavedModel protobuf: byte 4: meta_graphs\[0\]: truncated field tag'
# Text format: refused when empty or without a meta graph.
mkdir "$work/pbtxt-empty" && printf '\n\n' >"$work/pbtxt-empty/saved_model.pbtxt"
refused "$work/pbtxt-empty" 'pbtxt-empty/saved_model\.pbtxt: not a SavedModel: the file is empty$'
mkdir "$work/pbtxt-bad" && echo 'saved_model_schema_version: 1' >"$work/pbtxt-bad/saved_model.pbtxt"
refused "$work/pbtxt-bad" 'pbtxt-bad/saved_model\.pbtxt: not a text-format SavedModel: no `meta_graphs \{ \.\.\. \}` message$'

# --- the real export is accepted; assets/ = this run's assets + the user's own files
mkdir -p "$work/export/assets/sub"
echo 'the user vocabulary' >"$work/export/assets/vocab.txt"
echo 'nested' >"$work/export/assets/sub/y.txt"
touch -d '2001-02-03 04:05:06' "$work/export/assets/vocab.txt"
user_before=$(tree "$work/export/assets"; stat -c '%y %a' "$work/export/assets/vocab.txt")
echo '{"extra": 1}' >"$work/extra.json"
# --dry-run: what assets/ would hold (the user's files, the library, the
# assets, the manifest), and nothing written.
export_state() { (cd "$work/export" && find . -printf '%p %s %T@\n' | sort; find . -type f -exec sha256sum {} + | sort); }
state_before=$(export_state)
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json" --asset "$work/extra.json" --dry-run
expect_contains "$work/out" '^would write .*/export/assets \(6 files, [0-9]+ bytes\); nothing written \(--dry-run\)$'
for f in extra.json fg.json libpy_op.so opkit-manifest.json sub/y.txt vocab.txt; do
  expect_contains "$work/out" "^ +[0-9]+  ${f//./\\.}\$"
done
[ "$(export_state)" = "$state_before" ] || fail "package saved-model --dry-run changed the export"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json" --asset "$work/extra.json" --dry-run --json
expect_json_schema opkit.package-saved-model-1 "$work/out"
python3 - "$work/out" <<'PY' || fail "package saved-model --dry-run --json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["written"] is False, r
assert [a["path"] for a in r["assets"]] == ["extra.json", "fg.json", "libpy_op.so", "sub/y.txt", "vocab.txt", "opkit-manifest.json"], r["assets"]
assert r["model_tf"] == r["serving_tf"] and r["model_tf"].startswith("2."), (r["model_tf"], r["serving_tf"])
PY
[ "$(export_state)" = "$state_before" ] || fail "package saved-model --dry-run --json changed the export"
# The model's own TF: an older --tf cannot load it (exit 1, both versions named,
# nothing written, nothing built); without --tf, a project none of whose
# targets is the model's TF must be told which (exit 2).
model_tf=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['model_tf'])" "$work/out")
run_opkit 1 package saved-model "$work/export" --tf 1.12
expect_one_error_line
expect_contains "$work/err" "export: exported by TF ${model_tf//./\\.}, but --tf 1\.12 is TF 1\.12\.0, which cannot load a SavedModel written by a newer TF"
[ ! -d build/tf-1.12.0 ] || fail "a refused package saved-model built for 1.12"
run_opkit 2 package saved-model "$work/export"
expect_one_error_line
expect_contains "$work/err" "export: exported by TF ${model_tf//./\\.}, which none of the project's targets \(1\.12, 2\.10\.1\) is \(pass --tf"
[ "$(export_state)" = "$state_before" ] || fail "a refused package saved-model changed the export"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json" --asset "$work/extra.json"
expect_contains "$work/out" '^saved_model\.pb: schema version 1, 1 meta graph \(serve\)$'
expect_contains "$work/out" '^  extra\.json$'
added() {
  python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['added_by_opkit']))" \
    "$work/export/assets/opkit-manifest.json"
}
[ "$(added)" = "extra.json fg.json libpy_op.so" ] || fail "added_by_opkit: $(added)"
files() { (cd "$work/export/assets" && find . -type f | sort | tr '\n' ' '); }
[ "$(files)" = "./extra.json ./fg.json ./libpy_op.so ./opkit-manifest.json ./sub/y.txt ./vocab.txt " ] \
  || fail "assets after the first run: $(files)"
run_opkit 0 package verify "$work/export/assets"

# A second run without extra.json takes it back, and only it.
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json"
expect_contains "$work/out" '^removed extra\.json \(an earlier run added it; this one did not\)$'
[ "$(files)" = "./fg.json ./libpy_op.so ./opkit-manifest.json ./sub/y.txt ./vocab.txt " ] \
  || fail "assets after the second run: $(files)"
# Without any --asset: no stale asset is left; the user's files stay, untouched.
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION"
expect_contains "$work/out" '^removed fg\.json '
[ "$(files)" = "./libpy_op.so ./opkit-manifest.json ./sub/y.txt ./vocab.txt " ] \
  || fail "assets after a run without --asset: $(files)"
[ "$(added)" = "libpy_op.so" ] || fail "added_by_opkit: $(added)"
user_after=$(tree "$work/export/assets" | grep -v -e libpy_op -e opkit-manifest; stat -c '%y %a' "$work/export/assets/vocab.txt")
[ "$user_after" = "$user_before" ] || fail "the user's own assets changed: $user_before // $user_after"
# The same run again changes nothing.
first=$(tree "$work/export")
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION"
[ "$first" = "$(tree "$work/export")" ] || fail "a repeated run changed the export"
run_opkit 0 package verify "$work/export/assets"
[ -z "$(find "$work/export" -maxdepth 1 \( -name '.opkit-partial.*' -o -name 'assets.old.*' \))" ] \
  || fail "staging left behind"

# --asset never replaces a user's own file with other content; the same content is fine (and stays theirs).
mkdir -p "$work/other" && echo 'another vocabulary' >"$work/other/vocab.txt"
before=$(tree "$work/export")
run_opkit 2 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/other/vocab.txt"
expect_one_error_line
expect_contains "$work/err" 'assets/vocab\.txt: already there and not put there by opkit, and .*other/vocab\.txt differs'
[ "$before" = "$(tree "$work/export")" ] || fail "a refused --asset changed the export"
cp -p "$work/export/assets/vocab.txt" "$work/other/vocab.txt"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/other/vocab.txt"
[ "$(added)" = "libpy_op.so" ] || fail "a user's file became opkit's: $(added)"
# Two assets with one name are refused.
run_opkit 2 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json" --asset "$work/fg.json"
expect_one_error_line
expect_contains "$work/err" 'fg\.json: assets/fg\.json is already taken by '
# An asset opkit added that was edited since is kept (with a warning), never deleted.
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json"
echo 'edited' >>"$work/export/assets/fg.json"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION"
expect_contains "$work/err" 'assets/fg\.json: added by an earlier run but changed since: kept'
grep -q edited "$work/export/assets/fg.json" || fail "an edited asset was not kept"
rm "$work/export/assets/fg.json"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION"

# --- TensorFlow loads the packaged export, and the op from its assets/
"$PYTHON" - "$work/export" <<'PY'
import os, sys, numpy as np, tensorflow as tf
export = sys.argv[1]
lib = tf.load_op_library(os.path.join(export, "assets", "libpy_op.so"))
assert (lib.py_op(np.array([4, 5], dtype=np.int32)).numpy() == [4, 0]).all()
model = tf.saved_model.load(export)
assert model(tf.constant([1.0])).numpy()[0] == 2.0
print("saved-model: loaded, op ran from assets/")
PY

# --- a text-format export (the real one, converted): accepted, and TensorFlow loads it
cp -r "$work/export" "$work/export-text"
rm -rf "$work/export-text/assets"
"$PYTHON" - "$work/export-text" <<'PY'
import os, sys
from google.protobuf import text_format
from tensorflow.core.protobuf import saved_model_pb2
export = sys.argv[1]
model = saved_model_pb2.SavedModel()
with open(os.path.join(export, "saved_model.pb"), "rb") as f:
    model.ParseFromString(f.read())
with open(os.path.join(export, "saved_model.pbtxt"), "w") as f:
    f.write(text_format.MessageToString(model))
os.remove(os.path.join(export, "saved_model.pb"))
PY
run_opkit 0 package saved-model "$work/export-text" --tf "$TF_VERSION"
expect_contains "$work/out" '^saved_model\.pbtxt: text format'
"$PYTHON" - "$work/export-text" <<'PY'
import os, sys, tensorflow as tf
export = sys.argv[1]
tf.load_op_library(os.path.join(export, "assets", "libpy_op.so"))
assert tf.saved_model.load(export)(tf.constant([1.0])).numpy()[0] == 2.0
print("saved-model (pbtxt): loaded")
PY
