# The default runtime accepts what the framework itself starts on: the
# official tensorflow-addons 0.18.0 wheel (built for TF 2.10, whose op
# libraries run AVX in their static initialisers, as TF's own build flags
# make them) passes `opkit check` against the stock TF 2.10.1 (`tensorflow`,
# the CUDA build it was made for) with every one of its eight op libraries,
# with no CPU finding. Against tensorflow-cpu 2.10.1, six of them lack the
# CUDA runtime their GPU kernels call (the GPU build provides it): check and
# the real tf.load_op_library agree on each. Their device code is CUDA 11.2's,
# TF 2.10.1's own, so the CUDA build gets no cuda-runtime warning. So do TF's own framework
# libraries of every SDK the suite imports load by their release's default.
source "$(dirname "$0")/common.sh"
wheel=$(ls "$(wheel_cache)"/tfa-0.18.0/tensorflow_addons-0.18.0-cp310-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || fail "no tensorflow-addons 0.18.0 wheel in $(wheel_cache): run scripts/fetch-wheels.sh"
mkdir addons && (cd addons && unzip -q "$wheel" 'tensorflow_addons/custom_ops/*')
mapfile -t libraries < <(find addons/tensorflow_addons/custom_ops -name '_*.so' | sort)
[ "${#libraries[@]}" -eq 8 ] || fail "expected the wheel's eight op libraries, found ${#libraries[@]}"
for lib in "${libraries[@]}"; do
  run_opkit 0 check "$lib" --tf tensorflow-2.10.1-cuda
  expect_contains "$work/out" "^$lib: loads against tensorflow 2\\.10\\.1 on tensorflow-2\\.10$"
  if grep -q 'cpu-feature' "$work/out"; then fail "$lib refused for its CPU use: $(cat "$work/out")"; fi
  # Their device code is CUDA 11.2's (PTX ISA 7.2), the framework's own: no driver warning.
  if grep -q 'cuda-runtime' "$work/out"; then fail "$lib warned of its CUDA runtime: $(cat "$work/out")"; fi
done
# tensorflow-cpu 2.10.1: the real loader (the venv of `opkit test --python`, made once) is the judge.
run_opkit 0 new venv_maker --tf 2.10.1
(cd venv_maker && run_opkit 0 build && run_opkit 0 test --python)
python=$(ls "$OPKIT_VENVS"/tf-2.10.1-py3.*/bin/python | head -n 1)
refused=0
for lib in "${libraries[@]}"; do
  rc=0
  TF_CPP_MIN_LOG_LEVEL=3 "$python" "$OPKIT_SOURCE_DIR/tests/integration/tf_load.py" "$work/$lib" >"$work/load.out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$work/load.out" >&2; fail "$lib: TF's Python errored ($rc)"; }
  run_opkit "$([ "$rc" -eq 0 ] && echo 0 || echo 1)" check "$lib" --tf 2.10.1
  if grep -q 'cpu-feature' "$work/out"; then fail "$lib refused for its CPU use: $(cat "$work/out")"; fi
  if [ "$rc" -eq 3 ]; then
    refused=$((refused + 1))
    symbol=$(sed -n 's/.*undefined symbol: \([A-Za-z_0-9]*\).*/\1/p' "$work/load.out")
    [ -n "$symbol" ] || fail "$lib: refused for another reason: $(cat "$work/load.out")"
    expect_contains "$work/out" "error \\[unresolved-symbol\\]"
    expect_contains "$work/out" "^      $symbol$"
  fi
done
[ "$refused" -eq 6 ] || fail "expected tensorflow-cpu 2.10.1 to refuse six of the eight, it refused $refused"
# Their initialisers do run AVX at load: a CPU without it is refused, naming the instruction.
run_opkit 1 check "${libraries[0]}" --tf 2.10.1 --cpu x86-64-v2
expect_contains "$work/out" 'error \[cpu-feature-at-load\] runs avx[0-9a-z]* instructions while it loads'
# TF's own framework library of every TF SDK here loads by its release's default.
accepted=""
for sdk in "$OPKIT_HOME"/sdks/tensorflow-[0-9]*; do
  case $sdk in *-cuda) continue ;; esac
  v=${sdk##*/tensorflow-}
  lib=$(find "$sdk/lib" -name 'libtensorflow_framework.so*' -type f | head -n 1)
  run_opkit 0 check "$lib" --tf "$v"
  if grep -q 'cpu-feature-at-load' "$work/out"; then fail "TF $v's own library refused for its load-time code"; fi
  echo "TF $v's own framework library: accepted by default" >&2
  accepted="$accepted $v"
done
for v in 1.12.0 1.15.5 2.10.1 2.15.1; do
  [[ " $accepted " == *" $v "* ]] || fail "no TF $v SDK to check (the sdks and python_tf fixtures import them)"
done
echo "check_addons: ok"
