# Distributed compiles on distcc: two helper hosts, each a network namespace
# this test makes (veth pair, its own subnet) running distccd restricted to
# that subnet. `opkit build` of a 10-source op for two versions sends compiles
# to both helpers (their logs name the files), links locally, and the libraries
# load and register in the real frameworks. A helper killed mid-build does not
# fail the build: distcc compiles that work locally.
source "$(dirname "$0")/common.sh"
command -v distcc >/dev/null && command -v distccd >/dev/null || fail "distcc not installed (scripts/setup.sh installs distcc)"
[ "$(id -u)" -eq 0 ] || fail "making network namespaces needs root (CI runs as root)"

tag="opk$$"
hosts=()
cleanup() {
  for i in 1 2; do
    ip netns pids "$tag-h$i" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$tag-h$i" 2>/dev/null || true
    ip link del "$tag-v$i" 2>/dev/null || true
  done
}
trap cleanup EXIT
# Subnets derived from the PID, so concurrent runs on one machine do not collide.
net=$(( $$ % 200 + 20 ))
start_helper() { # <i>: helper i at 10.<net>.<i>.2, this machine at 10.<net>.<i>.1
  local i=$1 ns="$tag-h$1"
  ip netns add "$ns"
  ip link add "$tag-v$i" type veth peer name "$tag-p$i"
  ip link set "$tag-p$i" netns "$ns"
  ip addr add "10.$net.$i.1/24" dev "$tag-v$i"
  ip link set "$tag-v$i" up
  ip netns exec "$ns" ip addr add "10.$net.$i.2/24" dev "$tag-p$i"
  ip netns exec "$ns" ip link set "$tag-p$i" up
  ip netns exec "$ns" ip link set lo up
  : >"$work/helper$i.log"
  chmod 666 "$work/helper$i.log"
  ip netns exec "$ns" distccd --daemon --no-detach --listen "10.$net.$i.2" --allow "10.$net.$i.0/24" \
    --jobs 2 --log-file "$work/helper$i.log" --log-level info &
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/10.$net.$i.2/3632") 2>/dev/null && break
    sleep 0.1
  done
  hosts+=("10.$net.$i.2/2")
}
start_helper 1
start_helper 2
export OPKIT_DISTCC_HOSTS="${hosts[*]}"
export CCACHE_DIR="$work/ccache" # empty: every compile is a miss, so it goes to the helpers

# A 10-source op: the template's op and kernels, and 8 more sources using TF's headers.
run_opkit 0 new dist_op
cd dist_op
for n in 1 2 3 4 5 6 7 8; do
  cat >"src/part$n.cc" <<EOF
#include "tensorflow/core/framework/tensor.h"
namespace dist_op {
int part$n(const tensorflow::Tensor& t) { return t.dims() + $n; }
}  // namespace dist_op
EOF
  sed -i "s|^  - src/dist_op_kernels.cc|  - src/dist_op_kernels.cc\n  - src/part$n.cc|" opkit.yaml
done
[ "$(grep -c '^  - src/' opkit.yaml)" -eq 10 ] || fail "the op does not list 10 sources"

run_opkit 0 -v build --tf 1.12,2.10.1
expect_contains build/tf-2.10.1/build.ninja 'DISTCC_HOSTS=10\.'
expect_contains build/tf-2.10.1/build.ninja 'pool link_pool'
# Both helpers compiled some of the sources, and said which.
for i in 1 2; do
  grep -E 'COMPILE_OK.*(part[0-9]|dist_op_(op|kernels))\.cc' "$work/helper$i.log" >"$work/helper$i.ok" \
    || { cat "$work/helper$i.log" >&2; fail "helper $i compiled nothing"; }
done
echo "helper 1: $(wc -l <"$work/helper1.ok") compiles, helper 2: $(wc -l <"$work/helper2.ok")"
run_opkit 0 test --tf 1.12,2.10.1
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "not matched twice"

# A helper dies mid-build: the build still succeeds (distcc falls back to this machine).
export CCACHE_DIR="$work/ccache-2"
before=$(grep -c COMPILE_OK "$work/helper1.log" || true)
"$OPKIT" build --tf 1.12,2.10.1 --build-dir build-2 >"$work/out2" 2>"$work/err2" &
build_pid=$!
for _ in $(seq 600); do
  [ "$(grep -c COMPILE_OK "$work/helper1.log" || true)" -gt "$before" ] && break
  sleep 0.1
done
ip netns pids "$tag-h1" | xargs -r kill -9
rc=0
wait "$build_pid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/out2" "$work/err2" >&2; fail "the build failed when a helper died (exit $rc)"; }
expect_contains "$work/out2" '^tf-2\.10\.1 +built \(11 compiled\) '
run_opkit 0 test --tf 1.12,2.10.1 --build-dir build-2
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "not matched twice after the helper died"
echo "build_distcc: ok"
