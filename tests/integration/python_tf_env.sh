# Fixture: a venv with a real TensorFlow this machine's python3 imports (made
# once per machine by scripts/python-tf-env.sh), and that version's SDK
# imported from the very wheel the venv was installed from.
source "$(dirname "$0")/common.sh"
mapfile -t env < <(bash "$OPKIT_SOURCE_DIR/scripts/python-tf-env.sh")
tf=${env[0]}
python=${env[1]}
[ -x "$python" ] || fail "no venv python: run scripts/python-tf-env.sh"
py=$(python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
run_opkit 0 sdk add "$(wheel_for "$tf-cp$py")"
printf 'TF_VERSION=%s\nPYTHON=%s\n' "$tf" "$python" >"$OPKIT_TEST_HOME/python-tf.env"
"$python" -c "import tensorflow as tf; assert tf.__version__ == '$tf', tf.__version__"
