# opkit sdk fetch torch==V against a package index on loopback holding PyPI's
# real torch wheels (and decoys): it picks the wheel of the table's first
# python tag, fetches only the members the SDK keeps with range requests (the
# server's log counts the bytes: under a fifth of the wheel), and imports the
# same SDK as `opkit sdk add` of the whole wheel (the sdks_torch fixture's).
# PyPI's torch is the CUDA build: the default variant, as torch-V-cuda; a
# CPU-only one is refused with the reason.
source "$(dirname "$0")/common.sh"
added="$OPKIT_HOME-torch/sdks" # the fixture's, from the whole wheels
export OPKIT_HOME="$work/home"
unset OPKIT_INDEX_URL PIP_INDEX_URL

torch_wheel() { # <version>
  local wheel
  wheel=$(ls "$(wheel_cache)/torch-$1"/torch-"$1"-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || fail "no torch $1 wheel in $(wheel_cache): run scripts/fetch-wheels.sh --torch"
  echo "$wheel"
}
root="$work/index"
mkdir -p "$root"
ln -s "$(torch_wheel 2.5.1)" "$(torch_wheel 2.8.0)" "$root/"
# Decoys: other pythons, platforms and versions.
for f in torch-2.5.1-cp39-cp39-manylinux1_x86_64.whl torch-2.5.1-cp310-none-macosx_11_0_arm64.whl \
         torch-2.5.0-cp310-cp310-manylinux1_x86_64.whl torch-2.8.0-cp310-cp310-win_amd64.whl; do
  echo decoy >"$root/$f"
done
rm -f "$work/port"
python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$root" --port-file "$work/port" \
  --log "$work/log" 2>"$work/server.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 300); do [ -s "$work/port" ] && break; sleep 0.1; done # it hashes the wheels first
[ -s "$work/port" ] || { cat "$work/server.err"; fail "index server did not start"; }
url="http://127.0.0.1:$(cat "$work/port")/simple/"

# torch==2.5.1: the cp310 wheel, by ranges, as torch-2.5.1-cuda.
run_opkit 0 sdk fetch torch==2.5.1 --index-url "$url"
expect_contains "$work/out" '^torch-2\.5\.1-cuda: fetched torch-2\.5\.1-cp310-cp310-manylinux1_x86_64\.whl from http://127\.0\.0\.1:[0-9]+/simple/, downloaded [0-9.]+ MB of 906\.4 MB in [0-9]+ requests \(only what the SDK keeps\)'
wheel=torch-2.5.1-cp310-cp310-manylinux1_x86_64.whl
[ "$(grep '^GET /files/' "$work/log" | grep -vc "^GET /files/$wheel range=bytes=[0-9]*-[0-9]* status=206 ")" -eq 0 ] ||
  fail "a request for other than a range of the chosen file"
sent=$(awk '/^GET \/files\// { for (i = 1; i <= NF; i++) if ($i ~ /^sent=/) n += substr($i, 6) } END { print n + 0 }' "$work/log")
size=$(stat -L -c %s "$(torch_wheel 2.5.1)")
echo "torch range fetch: the server sent $sent of $size bytes"
[ "$((sent * 100))" -le "$((size * 20))" ] || fail "the range fetch sent $sent bytes, more than 20% of $size"

# torch==2.8 (a prefix): the newest 2.8 on the index, its cp311 wheel (the table's first tag for 2.8).
run_opkit 0 sdk fetch torch==2.8 --index-url "$url"
expect_contains "$work/out" '^torch-2\.8\.0-cuda: fetched torch-2\.8\.0-cp311-cp311-manylinux_2_28_x86_64\.whl '
# Again: already there, nothing asked of the index's files.
gets=$(grep -c '^GET /files/' "$work/log")
run_opkit 0 sdk fetch torch==2.8.0 --index-url "$url"
expect_contains "$work/out" '^torch-2\.8\.0-cuda: already in the store'
[ "$(grep -c '^GET /files/' "$work/log")" -eq "$gets" ] || fail "a present SDK was fetched again"

# The same SDKs as the whole wheels give: every kept file, and the facts.
for id in torch-2.5.1-cuda torch-2.8.0-cuda; do
  [ -d "$added/$id" ] || fail "the sdks_torch fixture has no $id"
  (cd "$added/$id" && find include lib version.py -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/added.sums"
  (cd "$OPKIT_HOME/sdks/$id" && find include lib version.py -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/fetched.sums"
  cmp -s "$work/added.sums" "$work/fetched.sums" || fail "$id: the fetched SDK's files differ from the whole wheel's"
  python3 - "$added/$id/sdk.json" "$OPKIT_HOME/sdks/$id/sdk.json" <<'PY'
import json, sys
added, fetched = (json.load(open(p)) for p in sys.argv[1:])
for record in (added, fetched):
    record.pop("source", None)  # where each came from
    record.pop("path", None)
assert added == fetched, (added, fetched)
PY
done

# A CPU-only torch is not on a package index: refused, with the reason and what to do.
run_opkit 2 sdk fetch torch==2.5.1 --variant cpu --index-url "$url"
expect_one_error_line
expect_contains "$work/err" 'torch==2\.5\.1 --variant cpu: no CPU-only build of torch 2\.5\.1 is published on a package index'
expect_contains "$work/err" 'leave out --variant'
# A framework opkit has no table for.
run_opkit 2 sdk fetch jax==0.4.30 --index-url "$url"
expect_contains "$work/err" "'jax==0\.4\.30': expected tensorflow==VERSION or torch==VERSION"
