# A shared compile cache: ccache with a real redis-server on loopback as its
# remote storage. A project built in one folder with one OPKIT_HOME and one
# local cache; then a copy in another folder, with another OPKIT_HOME (the SDKs
# imported again, at another path) and an empty local cache: its clean build
# takes >= 90% of its compiles from the remote cache, and the libraries load
# and register in both real frameworks.
source "$(dirname "$0")/common.sh"
command -v redis-server >/dev/null || fail "redis-server not installed (scripts/setup.sh installs redis-server)"
command -v ccache >/dev/null || fail "ccache not installed (scripts/setup.sh installs ccache)"

port_file="$work/redis.port"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$work" \
  --logfile "$work/redis.log" --daemonize no &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
grep -q PONG <(redis-cli -p "$port" ping) || fail "redis-server did not start"
export OPKIT_CACHE_REMOTE="redis://127.0.0.1:$port"

# Machine A: the shared SDK store, its own local cache.
export CCACHE_DIR="$work/ccache-a"
run_opkit 0 new shared_op
start=$(date +%s.%N)
run_opkit 0 -C shared_op build --tf 1.12,2.10.1
first=$(python3 -c "import time; print('%.1f' % (time.time() - $start))")
expect_contains "$work/out" '^ +ccache: 0 hits \(0 remote\), 3 misses$'
# The commands name the SDK through a link in the build folder, the same on every machine.
[ "$(readlink shared_op/build/tf-2.10.1/sdk)" = "$OPKIT_HOME/sdks/tensorflow-2.10.1" ] || fail "no sdk link"
expect_contains shared_op/build/tf-2.10.1/build.ninja ' -Itf-2\.10\.1/sdk/include'
if grep -q -- '-Winvalid-pch' shared_op/build/tf-2.10.1/build.ninja; then fail "the PCH is used with a remote cache"; fi

# Machine B: another folder, another OPKIT_HOME with the SDKs imported again, an empty local cache.
mkdir -p "$work/b"
cp -r shared_op "$work/b/copied_op"
rm -rf "$work/b/copied_op/build"
export OPKIT_HOME="$work/home-b"
export CCACHE_DIR="$work/ccache-b"
run_opkit 0 sdk add "$(wheel_for 1.12.0)"
run_opkit 0 sdk add "$(wheel_for 2.10.1)"
start=$(date +%s.%N)
run_opkit 0 -C "$work/b/copied_op" build --tf 1.12,2.10.1
second=$(python3 -c "import time; print('%.1f' % (time.time() - $start))")
python3 - "$work/out" <<'PY'
import re, sys
stats = [tuple(map(int, m)) for m in re.findall(r"ccache: (\d+) hits? \((\d+) remote\), (\d+) miss", open(sys.argv[1]).read())]
assert len(stats) == 2, stats
hits = sum(s[0] for s in stats); remote = sum(s[1] for s in stats); misses = sum(s[2] for s in stats)
assert remote >= 0.9 * (hits + misses), "remote hits %d of %d compiles" % (remote, hits + misses)
PY
# ccache's own statistics agree: everything came from the remote storage.
CCACHE_DIR="$work/ccache-b" ccache --print-stats >"$work/stats-b"
expect_contains "$work/stats-b" '^remote_storage_hit	[1-9]'
echo "clean build on machine A: ${first}s; the copy on machine B, from the remote cache: ${second}s"

# What came out of the cache loads and registers in both real frameworks.
run_opkit 0 -C "$work/b/copied_op" test --tf 1.12,2.10.1
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "not matched twice"

# --no-cache turns it off whatever the settings say.
run_opkit 0 -C "$work/b/copied_op" build --tf 2.10.1 --no-cache --build-dir "$work/b/nocache"
if grep -q 'ccache' "$work/b/nocache/tf-2.10.1/build.ninja"; then fail "--no-cache still used ccache"; fi
if grep -q 'ccache:' "$work/out"; then fail "--no-cache reported cache stats"; fi
echo "build_cache_redis: ok"
