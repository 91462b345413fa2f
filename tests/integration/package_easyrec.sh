# opkit package easyrec: deploy_ext.sh's tarball layout, EasyRec's ops-folder
# rule, version validation, reproducibility and the manifest.
source "$(dirname "$0")/common.sh"

run_opkit 0 new rec_op
cd rec_op
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init
run_opkit 0 build --tf 1.12,2.10.1

# --- the overlay alone: stock 1.12 -> ops/1.12, 2.10.1 -> ops/2.10 (major.minor)
run_opkit 0 package easyrec --version v1_0-rc
tarball=dist/easy_rec_ext_v1_0-rc_res.tar.gz
[ -f "$tarball" ] || fail "no $tarball"
expect_contains "$work/err" 'ops overlay only'
expect_contains "$work/out" '^upload:  odpscmd -e "add archive easy_rec_ext_v1_0-rc_res\.tar\.gz -f;"$'
expect_contains "$work/out" '-Dres_project=<the project you uploaded to> -Dversion=v1_0-rc'
tar tzf "$tarball" | grep -v '/$' | sort >"$work/list"
printf '%s\n' easy_rec/python/ops/1.12/librec_op.so easy_rec/python/ops/2.10/librec_op.so opkit-manifest.json >"$work/want"
diff "$work/want" "$work/list" || fail "overlay layout differs"
tar tzvf "$tarball" >"$work/listing"
expect_contains "$work/listing" '^-rwxr-xr-x 0/0 .* easy_rec/python/ops/1\.12/librec_op\.so$'
cmp <(tar xzOf "$tarball" easy_rec/python/ops/2.10/librec_op.so) build/tf-2.10.1/librec_op.so || fail "library bytes differ"
run_opkit 0 package verify "$tarball"

# --- PAI-TF 1.12 -> ops/1.12_pai
run_opkit 0 package easyrec --version pai --tf 1.12 --flavor pai
tar tzf dist/easy_rec_ext_pai_res.tar.gz >"$work/list"
expect_contains "$work/list" '^easy_rec/python/ops/1\.12_pai/librec_op\.so$'
run_opkit 2 package easyrec --version x --tf 2.10.1 --flavor pai
expect_one_error_line
expect_contains "$work/err" "flavor 'pai' does not apply to TensorFlow 2\.10\.1"
run_opkit 2 package easyrec --version x --flavor tpu
expect_one_error_line

# --- 1.15 -> ops/1.15, and DeepRec (1.15 with IS_ON_PAI) -> ops/DeepRec: built for the real 1.15.5
run_opkit 0 build --tf 1.15
run_opkit 0 package easyrec --version v115 --tf 1.15
tar tzf dist/easy_rec_ext_v115_res.tar.gz >"$work/list"
expect_contains "$work/list" '^easy_rec/python/ops/1\.15/librec_op\.so$'
run_opkit 0 package easyrec --version deeprec --tf 1.15 --flavor deeprec
tar tzf dist/easy_rec_ext_deeprec_res.tar.gz >"$work/list"
expect_contains "$work/list" '^easy_rec/python/ops/DeepRec/librec_op\.so$'
readelf -d build/tf-1.15.5/librec_op.so >"$work/dyn115"
expect_contains "$work/dyn115" 'NEEDED.*\[libtensorflow_framework\.so\.1\]'

# --- reproducible: same inputs, same bytes (mtimes from the last commit)
cp "$tarball" "$work/first.tar.gz"
touch src/*.cc build/tf-*/librec_op.so
sleep 1
run_opkit 0 package easyrec --version v1_0-rc
cmp "$work/first.tar.gz" "$tarball" || fail "packaging twice gave different bytes"
gzip -l "$tarball" >/dev/null
[ "$(od -An -tu4 -j4 -N4 "$tarball" | tr -d ' ')" = 0 ] || fail "gzip header carries a timestamp"
expect_contains "$work/listing" " $(git log -1 --format=%cd --date=format-local:%Y-%m-%d -- . 2>/dev/null || true)"
SOURCE_DATE_EPOCH=1700000000 "$OPKIT" package easyrec --version epoch >/dev/null 2>&1
TZ=UTC tar tzvf dist/easy_rec_ext_epoch_res.tar.gz >"$work/listing"
expect_contains "$work/listing" ' 2023-11-14 22:13 easy_rec/python/ops/1\.12/librec_op\.so$'

# The wheel is reproducible too.
run_opkit 0 package wheel -o "$work/w1"
touch build/tf-*/librec_op.so python/*.py
run_opkit 0 package wheel -o "$work/w2"
cmp "$work"/w1/*.whl "$work"/w2/*.whl || fail "wheel packaging twice gave different bytes"

# --- a tampered package fails verification
mkdir -p "$work/t" && tar xzf "$tarball" -C "$work/t"
printf 'x' >>"$work/t/easy_rec/python/ops/2.10/librec_op.so"
run_opkit 1 package verify "$work/t"
expect_contains "$work/out" 'easy_rec/python/ops/2\.10/librec_op\.so: sha256 or size differs from the manifest'

# --- with an EasyRec checkout: easy_rec/ as deploy_ext.sh packs it (no *.pyc), run.py,
# third-party folders present in pai_jobs/, and EasyRec's own libcustom_ops.so untouched.
er="$work/EasyRec"
mkdir -p "$er/easy_rec/python/ops/1.12" "$er/easy_rec/python/ops/2.10" "$er/easy_rec/python/layers" "$er/pai_jobs/datahub"
echo "__version__ = '0.8.7'" >"$er/easy_rec/version.py"
echo "import os" >"$er/easy_rec/__init__.py"
echo "# layer" >"$er/easy_rec/python/layers/custom.py"
echo "compiled" >"$er/easy_rec/python/layers/custom.pyc"
echo "EasyRec's own" >"$er/easy_rec/python/ops/1.12/libcustom_ops.so"
echo "stale" >"$er/easy_rec/python/ops/2.10/librec_op.so"
echo "print('run')" >"$er/pai_jobs/run.py"
echo "datahub" >"$er/pai_jobs/datahub/__init__.py"
run_opkit 0 package easyrec --easyrec-dir "$er"
full=dist/easy_rec_ext_0.8.7_res.tar.gz
tar tzf "$full" | grep -v '/$' | sort >"$work/list"
printf '%s\n' datahub/__init__.py easy_rec/__init__.py easy_rec/python/layers/custom.py \
  easy_rec/python/ops/1.12/libcustom_ops.so easy_rec/python/ops/1.12/librec_op.so \
  easy_rec/python/ops/2.10/librec_op.so easy_rec/version.py opkit-manifest.json run.py >"$work/want"
diff "$work/want" "$work/list" || fail "full layout differs"
[ "$(tar xzOf "$full" easy_rec/python/ops/1.12/libcustom_ops.so)" = "EasyRec's own" ] || fail "libcustom_ops.so was replaced"
cmp <(tar xzOf "$full" easy_rec/python/ops/2.10/librec_op.so) build/tf-2.10.1/librec_op.so || fail "stale op not replaced"
expect_contains "$work/err" 'not packed: lz4, cprotobuf, kafka, faiss, tensorflow_probability'
run_opkit 0 package verify "$full"

# --- bad input: one line, exit 2, no package
rm -rf dist
run_opkit 2 package easyrec --version '1.0.0'
expect_one_error_line
expect_contains "$work/err" "'1\.0\.0': invalid EasyRec resource version \(deploy_ext\.sh allows only \[0-9A-Za-z_-\]\)"
run_opkit 2 package easyrec --version 'a b'
run_opkit 2 package easyrec
expect_contains "$work/err" '--version is required without --easyrec-dir'
run_opkit 2 package easyrec --version ok --easyrec-dir "$work/nothing-here"
expect_one_error_line
[ ! -e dist ] || [ -z "$(ls -A dist)" ] || { ls dist; fail "a failed package left files"; }
cd "$work"
run_opkit 0 new custom_ops
run_opkit 2 -C custom_ops package easyrec --version v
expect_contains "$work/err" 'libcustom_ops\.so: EasyRec ships a library of that name'
