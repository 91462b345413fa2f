# Sourced (after common.sh) by the tests that load libraries in the real older
# system, the Debian 11 root made by the debian11_root fixture (glibc 2.31,
# libstdc++ up to GLIBCXX_3.4.28, Python 3.9 with tensorflow-cpu 2.10.1 in
# /opt/tf). Sets $root, and $scratch: a folder inside the root for the
# libraries to load, removed on exit.
root=$(cat "$OPKIT_TEST_HOME/debian11-root.path")
[ -x "$root/opt/tf/bin/python" ] || fail "no Debian 11 root: run the debian11_root fixture (scripts/debian11-root.sh)"

scratch=$(mktemp -d "$root/tmp/opkit-$test_name.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# inside_root <path under $root>: the same path as the root's processes see it.
inside_root() {
  echo "/${1#"$root"/}"
}

# in_root_python <python program> [args...]: runs the program with the root's
# TensorFlow (args are paths as seen inside the root, see inside_root); its
# output in $work/root.out, its exit status returned.
in_root_python() {
  local program=$1
  shift
  local rc=0
  # TensorFlow reads /proc/self/exe: a private mount and PID namespace gets a
  # /proc of its own in the root, gone when the process ends.
  unshare --mount --pid --fork --mount-proc="$root/proc" \
    chroot "$root" /usr/bin/env -i TF_CPP_MIN_LOG_LEVEL=3 /opt/tf/bin/python -c "$program" "$@" \
    >"$work/root.out" 2>&1 || rc=$?
  return $rc
}

# in_root <library> <python code using the module m>: copies the library into
# $scratch and loads it with the root's TF (tf.load_op_library) as m, then runs
# the code; output in $work/root.out.
in_root() {
  local name
  name=$(basename "$1")
  cp "$1" "$scratch/$name"
  in_root_python "import sys, tensorflow as tf; m = tf.load_op_library(sys.argv[1]); $2" \
    "$(inside_root "$scratch/$name")"
}
