#!/usr/bin/env bash
# gputest/wgmma.sh: the wgmma (sm_90a) kernels on the GPU machine (build here
# with ./build.sh, carry build/device). Results go to $OUT.
#
#   1. TestGPUWarpgroupLayout (where every element of A and B lands, swizzled
#      and unswizzled tiles, cluster and grid splits) and TestGPUWarpgroup:
#      every wgmma math, operand layout and configuration family against the
#      exact reference
#   2. the conformance test's random wgmma cases only (ISAAC_GPU_WGMMA per
#      16-bit type), and a compute-sanitizer memcheck sample of them
#   3. a speed sample: fixed wgmma configurations against cuBLAS on
#      gputest/wgmma_shapes.csv (bench_compare -config)
#   4. with SWEEP=1, the 16-bit Table 4 sweep (bench_compare/scripts/sweep.sh 16bit)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/isaac-wgmma}
mkdir -p "$out"
dev=$PWD/build/device
export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
export ISAAC_CACHE_DIR=$(mktemp -d)
fail=0
summary=$out/wgmma_summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

say "== 1. TestGPUWarpgroup ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader))"
"$dev/kernels.test" -test.run '^TestGPUWarpgroup(Layout)?$' -test.v >"$out/wgmma_test.txt" 2>&1 || fail=1
grep -E -- '--- |FAIL|[1-9][0-9]* of 512 elements wrong|runs \(' "$out/wgmma_test.txt" | cut -c1-300 | head -60 | tee -a "$summary"

say "== 2. conformance test, wgmma cases only; memcheck sample"
types=hgemm,gemmex_f16_f32,gemmex_bf16_f32
ISAAC_GPU_CASES=0 ISAAC_GPU_CONFIGS=0 ISAAC_GPU_WIDE_SIMT=0 ISAAC_GPU_PIPELINED=0 ISAAC_GPU_WGMMA=${WGMMA_CASES:-150} ISAAC_GPU_TYPES=$types \
	"$dev/gemmcheck.test" -test.run '^TestGPUConformance$/^kernels$' -test.v >"$out/wgmma_differential.txt" 2>&1 || fail=1
grep -E '^\s+(type|hgemm|gemmex)|worst case|--- |FAIL' "$out/wgmma_differential.txt" | cut -c1-300 | head -40 | tee -a "$summary"
ISAAC_GPU_CASES=0 ISAAC_GPU_CONFIGS=0 ISAAC_GPU_WIDE_SIMT=0 ISAAC_GPU_PIPELINED=0 ISAAC_GPU_WGMMA=3 ISAAC_GPU_TYPES=$types ISAAC_GPU_MAXWORK=4000000 ISAAC_GPU_SEED=7 \
	compute-sanitizer --tool memcheck --error-exitcode 9 "$dev/gemmcheck.test" -test.run '^TestGPUConformance$/^kernels$' \
	>"$out/wgmma_memcheck.txt" 2>&1 || fail=1
grep -E 'ERROR SUMMARY|--- ' "$out/wgmma_memcheck.txt" | tee -a "$summary"

say "== 3. speed sample: fixed wgmma configurations vs cuBLAS"
for cfg in \
	"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16" \
	"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16" \
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16" \
	"ms=2,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=5,math=wgmma_f16"; do
	tmp=$(mktemp -d)
	"$dev/bench_compare" -suite csv -shapes gputest/wgmma_shapes.csv -config "$cfg" -repeats 10 -out "$tmp" \
		>"$tmp/log.txt" 2>&1 || fail=1
	say "-- $cfg"
	cat "$tmp"/*.csv | tee -a "$summary"
	tail -n 3 "$tmp/log.txt" >>"$summary"
done

if [ "${SWEEP:-0}" = 1 ]; then
	say "== 4. 16-bit Table 4 sweep"
	OUT=$out/sweep bash bench_compare/scripts/sweep.sh 16bit 2>&1 | tee -a "$summary"
fi
say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
