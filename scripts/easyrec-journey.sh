#!/usr/bin/env bash
# The EasyRec user's whole journey, with opkit's outputs and EasyRec's own
# released code (pai-easy-rec 0.7.1 from PyPI), as the seed document
# describes it: an op on raw text and the Keras component that calls it,
# built for TF 1.12 (training) and TF 2.10.1 (serving), tested in both real
# frameworks, packed into an EasyRec resource; the resource unpacked into a
# fresh folder trains, evaluates and exports in the real TF 1.12; the export
# gets the 2.10.1 library as an asset and is served by the real TF 2.10.1.
#
# Usage: OPKIT=/path/to/opkit bash scripts/easyrec-journey.sh WORK_DIR
# The SDKs of 1.12 and 2.10.1 must be imported (opkit sdk add/fetch). Writes,
# under WORK_DIR: EasyRec/ (the release's easy_rec package, the user's
# checkout), term_match/ (the opkit project), resource/ (the unpacked
# resource, its data, model_dir and export), rows.csv, served.json (TF
# 2.10.1's predictions and the op's outputs beside Python's), trained.json
# (TF 1.12's predictions on the same export), times.txt and logs/.
# Exit 0 only when the served predictions equal TF 1.12's within 1e-5 and the
# op's outputs equal Python's.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
opkit=${OPKIT:?set OPKIT to the opkit binary}
work=${1:?usage: easyrec-journey.sh WORK_DIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
logs="$work/logs"
rm -rf "$logs" && mkdir -p "$logs"
: >"$work/times.txt"
export TF_CPP_MIN_LOG_LEVEL=2
export OPKIT_VENVS="${OPKIT_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venvs}"

# step <name> <command...>: runs a step with its output in logs/<name>.log;
# records its time; on failure shows the log's end and stops.
step() {
  local name=$1 start ms
  shift
  start=$(date +%s%N)
  echo "journey: $name ..." >&2
  if ! "$@" >"$logs/$name.log" 2>&1; then
    echo "journey: step $name failed: $*" >&2
    tail -n 30 "$logs/$name.log" >&2
    exit 1
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  printf '%-22s %4d.%d s\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) >>"$work/times.txt"
}

er_python=$(bash "$scripts/easyrec-env.sh")

# The user's EasyRec: the release's easy_rec package, unchanged.
site=$("$er_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$work/EasyRec" && mkdir -p "$work/EasyRec"
cp -r "$site/easy_rec" "$work/EasyRec/"
find "$work/EasyRec" -name __pycache__ -prune -exec rm -rf {} +

cd "$work"
rm -rf term_match
step new "$opkit" new term_match --template easyrec-layer --easyrec-dir "$work/EasyRec"
cd term_match
step build "$opkit" build --tf 1.12,2.10.1
step test "$opkit" test --tf 1.12,2.10.1
step test-python "$opkit" test --python --tf 1.12,2.10.1
# Off PAI, stock TF 1.12 reads easy_rec/python/ops/1.12/: --flavor stock.
step package-easyrec "$opkit" package easyrec --easyrec-dir "$work/EasyRec" --flavor stock --tf 1.12,2.10.1
resource_tar=$(ls "$PWD"/dist/easy_rec_ext_*_res.tar.gz)

# The resource, unpacked into a fresh folder, is all the training side runs.
run="$work/resource"
rm -rf "$run" && mkdir -p "$run"
tar xzf "$resource_tar" -C "$run"
cp samples/pipeline.config "$run/"
"$er_python" samples/make_data.py "$run/data" 2000
cd "$run"
where=$(PYTHONPATH="$run" "$er_python" -c 'import easy_rec.python.layers.keras.term_match_layer as m; print(m.__file__)' 2>/dev/null | tail -n 1)
case "$where" in
  "$run"/*) ;;
  *) echo "journey: the layer was imported from $where, not from the unpacked resource $run" >&2; exit 1 ;;
esac
step train-1.12 env PYTHONPATH="$run" "$er_python" -m easy_rec.python.train_eval --pipeline_config_path pipeline.config
step eval-1.12 env PYTHONPATH="$run" "$er_python" -m easy_rec.python.eval --pipeline_config_path pipeline.config
rm -rf export
step export-1.12 env PYTHONPATH="$run" "$er_python" -m easy_rec.python.export --pipeline_config_path pipeline.config \
  --export_dir export
export_dir=$(ls -d "$run"/export/*/ | tail -n 1)
export_dir=${export_dir%/}

# The serving library goes into the export's assets/.
cd "$work/term_match"
step package-saved-model "$opkit" package saved-model "$export_dir" --tf 2.10.1

# Serving: the real TF 2.10.1 loads the asset library, then the model, and
# runs serving_default; TF 1.12 runs the same export with its own library.
head -n 16 "$run/data/eval.csv" >"$work/rows.csv"
tf210_python="$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python"
step serve-2.10.1 sh -c '"$0" "$1" --export "$2" --rows "$3" --assets --check-op term_match >"$4"' \
  "$tf210_python" "$scripts/easyrec/predict.py" "$export_dir" "$work/rows.csv" "$work/served.json"
step predict-1.12 sh -c '"$0" "$1" --export "$2" --rows "$3" --library "$4" >"$5"' \
  "$er_python" "$scripts/easyrec/predict.py" "$export_dir" "$work/rows.csv" \
  "$run/easy_rec/python/ops/1.12/libterm_match.so" "$work/trained.json"

python3 - "$work/served.json" "$work/trained.json" <<'PY'
import json, sys
served, trained = (json.load(open(p)) for p in sys.argv[1:3])
assert served["tf_version"] == "2.10.1" and trained["tf_version"] == "1.12.0", (served["tf_version"], trained["tf_version"])
probs = served["predictions"]["probs"]
worst = max(abs(a - b) for a, b in zip(probs, trained["predictions"]["probs"]))
if len(probs) != len(trained["predictions"]["probs"]) or worst > 1e-5:
    sys.exit("journey: TF 2.10.1's predictions differ from TF 1.12's by %g" % worst)
print("served by TF %s (library %s from assets/), %d rows; TF 1.12.0 on the same export differs by at most %.1e"
      % (served["tf_version"], ", ".join(served["libraries"]), len(probs), worst))
print("%-6s %-34s %-34s %-9s %s" % ("label", "query", "title", "term_match", "probs"))
rows = [line.rstrip("\n").split(",") for line in open(sys.argv[1].replace("served.json", "rows.csv"))]
for row, ratio, p in zip(rows, served["op"]["outputs"], probs):
    print("%-6s %-34s %-34s %-9.4f  %.6f" % (row[0], row[2], row[3], ratio, p))
PY
