#!/usr/bin/env bash
# gputest/gemm.sh: the GEMM kernels' checks on the GPU machine (build here
# with ./build.sh, carry build/device). Results go to $OUT.
#
#   1. the differential test: random inputs of every data type and layout
#      through ISAAC's kernels and cuBLAS on the same buffers, both checked
#      against the exact reference (engine.test -test.run GPUDifferential)
#   2. compute-sanitizer memcheck on a sample of it
#   3. the disk cache (a second process loads compiled kernels), graph
#      capture of a split-K GEMM, ISAAC_CONFIG, the one-pass split-K
#      (exact and bit-identical run to run) and the streams' kept split-K
#      workspaces, the default policy through the
#      model (disk cache of choices, ISAAC_SEARCH=async, ISAAC_WEIGHTS), the
#      driver binding's tests
#   4. a speed sample of the heuristic's kernels against cuBLAS
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/isaac-gpu}
mkdir -p "$out"
dev=$PWD/build/device
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
export ISAAC_CACHE_DIR=$(mktemp -d)
fail=0
summary=$out/gemm_summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

say "== 1. differential test against cuBLAS ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader))"
ISAAC_GPU_REPORT=$out/differential.txt "$dev/engine.test" -test.run '^TestGPUDifferential$' -test.v \
	-test.timeout 20m >"$out/differential_log.txt" 2>&1 || fail=1
grep -E '^\s+(type|sgemm|dgemm|hgemm|gemmex)|worst case|--- |FAIL|cases:' "$out/differential_log.txt" | cut -c1-300 | tee -a "$summary"

say "== 2. compute-sanitizer memcheck on a sample"
ISAAC_GPU_CASES=3 ISAAC_GPU_CONFIGS=3 ISAAC_GPU_MAXWORK=2000000 ISAAC_GPU_SEED=5 \
	compute-sanitizer --tool memcheck --error-exitcode 9 "$dev/engine.test" -test.run '^TestGPUDifferential$' \
	>"$out/memcheck.txt" 2>&1 || fail=1
grep -E 'ERROR SUMMARY|--- |differential test' "$out/memcheck.txt" | tee -a "$summary"

say "== 3. disk cache, graph capture, ISAAC_CONFIG, one-pass split-K, CUDA driver binding"
"$dev/engine.test" -test.run '^TestGPU(DiskCache|GraphCapture|ForcedConfig|OnePassSplitK|StreamWorkspace|ServeAuto|ServeWeights|MeasuredDispatch)$' -test.v >"$out/engine_tests.txt" 2>&1 || fail=1
"$dev/cuda.test" -test.run 'GPU' -test.v >>"$out/engine_tests.txt" 2>&1 || fail=1
grep -E '^--- ' "$out/engine_tests.txt" | tee -a "$summary"

say "== 4. speed sample: the heuristic's kernels vs cuBLAS (CUDA events, median of 20)"
"$dev/engine.test" -test.run XXX -test.bench GPUGemm -test.benchtime 20x >"$out/bench.txt" 2>&1 || fail=1
"$dev/engine.test" -test.run XXX -test.bench GPUCallOverhead -test.benchtime 1x >>"$out/bench.txt" 2>&1 || fail=1
grep Benchmark "$out/bench.txt" | tee -a "$summary"

say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
