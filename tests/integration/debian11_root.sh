# Fixture: a real older system for load tests, the Debian 11 root (glibc 2.31,
# libstdc++ up to GLIBCXX_3.4.28, Python 3.9 with tensorflow-cpu 2.10.1) that
# scripts/debian11-root.sh makes once per machine in the tests' shared cache.
source "$(dirname "$0")/common.sh"
root=$(bash "$OPKIT_SOURCE_DIR/scripts/debian11-root.sh") ||
  fail "scripts/debian11-root.sh could not make the Debian 11 root (needs root, debootstrap: scripts/setup.sh installs it, and network)"
[ -f "$root/.opkit-complete" ] || fail "$root: incomplete Debian 11 root"
chroot "$root" /opt/tf/bin/python -c 'import tensorflow as tf; assert tf.__version__ == "2.10.1", tf.__version__' ||
  fail "$root: its TensorFlow does not import"
echo "$root" >"$OPKIT_TEST_HOME/debian11-root.path"
