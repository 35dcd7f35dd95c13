#!/usr/bin/env bash
# gputest/gemm.sh: the GEMM checks on the GPU machine (build here with
# ./build.sh, carry build/device). Results go to $OUT.
#
#   1. the conformance table (internal/gemmcheck: random inputs of every
#      served type and layout, odd sizes, padding, offsets, scalars; every
#      kernel family on random legal configurations) through every
#      implementation against one error bound (gemmcheck.test
#      TestGPUConformance): ISAAC's kernels, its server under
#      ISAAC_POLICY=always, cuBLAS, and libisaac.so's C entry points from a
#      plain cuBLAS client
#   2. compute-sanitizer memcheck on a sample of it through the kernels
#   3. the kernel runtime's and the server's GPU tests: the disk cache,
#      graph capture of a split-K GEMM, the one-pass split-K (exact and
#      bit-identical run to run), the streams' kept split-K workspaces,
#      ISAAC_CONFIG, the default policy through the model (disk cache of
#      choices, ISAAC_SEARCH=async, ISAAC_WEIGHTS), the check of a decision
#      to serve, the driver binding's tests
#   4. a speed sample of the heuristic's kernels against cuBLAS
#
# TABLE="ISAAC_GPU_CASES=.. ..." resizes the table (gemmcheck.TableSizeFromEnv).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/isaac-gpu}
mkdir -p "$out/conformance"
dev=$PWD/build/device
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
export ISAAC_CACHE_DIR=$(mktemp -d)
fail=0
summary=$out/gemm_summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
table=(${TABLE:-})

say "== 1. conformance: kernels, server, cuBLAS, C ABI ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader))"
env "${table[@]}" ISAAC_GPU_REPORT_DIR=$out/conformance ISAAC_LIB=$dev/libisaac.so \
	"$dev/gemmcheck.test" -test.run '^TestGPUConformance$' -test.v -test.timeout 30m \
	>"$out/conformance_log.txt" 2>&1 || fail=1
grep -E -- '--- |calls through|FAIL' "$out/conformance_log.txt" | cut -c1-300 | tee -a "$summary"
cat "$out"/conformance/*.txt 2>/dev/null | grep -E '^[a-z-]+: [0-9]+ cases|^(type|sgemm|dgemm|hgemm|gemmex)' | tee -a "$summary"

say "== 2. compute-sanitizer memcheck on a sample"
ISAAC_GPU_CASES=3 ISAAC_GPU_CONFIGS=3 ISAAC_GPU_WGMMA=2 ISAAC_GPU_WIDE_SIMT=2 ISAAC_GPU_PIPELINED=2 ISAAC_GPU_TMA=2 \
	ISAAC_GPU_MAXWORK=2000000 ISAAC_GPU_SEED=5 \
	compute-sanitizer --tool memcheck --error-exitcode 9 "$dev/gemmcheck.test" -test.run '^TestGPUConformance$/^kernels$' \
	>"$out/memcheck.txt" 2>&1 || fail=1
grep -E 'ERROR SUMMARY|^--- ' "$out/memcheck.txt" | tee -a "$summary"

say "== 3. disk cache, graph capture, one-pass split-K, workspaces, ISAAC_CONFIG, the default policy, CUDA driver binding"
"$dev/kernels.test" -test.run '^TestGPU(DiskCache|GraphCapture|OnePassSplitK|SplitReruns|StreamWorkspace|Registers)$' -test.v >"$out/engine_tests.txt" 2>&1 || fail=1
"$dev/serve.test" -test.run '^TestGPU(ForcedConfig|ServeAuto|ServeWeights|MeasuredDispatch|Hold)$' -test.v >>"$out/engine_tests.txt" 2>&1 || fail=1
"$dev/cuda.test" -test.run 'GPU' -test.v >>"$out/engine_tests.txt" 2>&1 || fail=1
grep -E '^--- ' "$out/engine_tests.txt" | tee -a "$summary"

say "== 4. speed sample: the heuristic's kernels vs cuBLAS (CUDA events, median of 20)"
"$dev/kernels.test" -test.run XXX -test.bench GPUGemm -test.benchtime 20x >"$out/bench.txt" 2>&1 || fail=1
"$dev/kernels.test" -test.run XXX -test.bench GPUCallOverhead -test.benchtime 1x >>"$out/bench.txt" 2>&1 || fail=1
grep Benchmark "$out/bench.txt" | tee -a "$summary"

say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
