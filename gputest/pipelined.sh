#!/usr/bin/env bash
# gputest/pipelined.sh: the kernels with fragments pipelined across tiles
# (ptx.GemmConfig.PP, "pp=1") on the GPU machine (build here with
# ./build.sh, carry build/device). Results go to $OUT.
#
#   1. the conformance test's pipelined cases only (ISAAC_GPU_PIPELINED per
#      type: random mma.sync and SIMT configurations of the sweep's space with
#      pp=1) against cuBLAS and the exact reference, and a compute-sanitizer
#      memcheck sample of them; TestGPURegisters (the driver's register
#      counts within a cap, mr, and capped kernels' results)
#   2. side by side with their plain twins: bench_compare -cases on
#      bench_compare/cases/ab_cases_pp.txt (every FP32/FP64 Table 4 row's best swept
#      configuration and its pp=1 twin, and cuBLAS-shaped FP64 blocks), each
#      input's configurations interleaved with cuBLAS on the same buffers
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/isaac-pipelined}
mkdir -p "$out"
dev=$PWD/build/device
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
export ISAAC_CACHE_DIR=$(mktemp -d)
fail=0
summary=$out/pipelined_summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
only=(ISAAC_GPU_CASES=0 ISAAC_GPU_CONFIGS=0 ISAAC_GPU_WGMMA=0 ISAAC_GPU_WIDE_SIMT=0)

say "== 1. conformance test, pipelined cases only ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader))"
env "${only[@]}" ISAAC_GPU_PIPELINED=${PP_CASES:-30} \
	"$dev/gemmcheck.test" -test.run '^TestGPUConformance$/^kernels$' -test.v >"$out/pipelined_differential.txt" 2>&1 || fail=1
grep -E '^\s+(type|sgemm|dgemm|hgemm|gemmex)|worst case|--- |FAIL' "$out/pipelined_differential.txt" | cut -c1-300 | head -40 | tee -a "$summary"
env "${only[@]}" ISAAC_GPU_PIPELINED=3 ISAAC_GPU_MAXWORK=4000000 ISAAC_GPU_SEED=11 \
	compute-sanitizer --tool memcheck --error-exitcode 9 "$dev/gemmcheck.test" -test.run '^TestGPUConformance$/^kernels$' \
	>"$out/pipelined_memcheck.txt" 2>&1 || fail=1
grep -E 'ERROR SUMMARY|--- ' "$out/pipelined_memcheck.txt" | tee -a "$summary"

"$dev/kernels.test" -test.run '^TestGPURegisters$' -test.v >"$out/registers_test.txt" 2>&1 || fail=1
grep -E -- '--- |registers' "$out/registers_test.txt" | tee -a "$summary"

say "== 2. pipelined twins beside the plain configurations (bench_compare -cases)"
"$dev/bench_compare" -cases bench_compare/cases/ab_cases_pp.txt -out "$out" >"$out/cases.progress.log" 2>&1 || fail=1
tail -n 3 "$out/cases.progress.log" | tee -a "$summary"

say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
