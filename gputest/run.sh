#!/usr/bin/env bash
# gputest/run.sh: every shim check that needs the GPU machine, in one call.
# It builds nothing with Go (the GPU machine has none): run ./build.sh here
# first and carry build/device. Results go to $OUT (default /tmp/isaac-gpu).
#
#   1. environment: device, driver, CUDA, cuBLAS, cuDNN, PyTorch, CuPy
#   2. the shim's entry points compiled against the real cuBLAS, cuBLASLt and
#      cuDNN headers (gputest/prototypes.sh)
#   3. the CUDA driver binding's and the benchmark timer's GPU tests
#      (build/device/cuda.test, devbench.test)
#   4. PyTorch torch.mm and CuPy a @ b under LD_PRELOAD: bit-identical when
#      forwarded (ISAAC_DISABLE=1, ISAAC_POLICY=never), within tolerance of
#      the vendor when served (the default policy with the embedded weights,
#      twice with one new cache directory: the first process compiles the
#      chosen kernels in the background while the vendor takes those calls,
#      the second finds them on disk; and ISAAC_POLICY=always)
#   4b. PyTorch's convolutions through cuDNN's graph API (graph_convs.py)
#   5. an nvcc-built C program linked -lisaac -lcublas vs -lcublas: identical
#   6. host overhead per call, 10,000 small SGEMMs, shim vs cuBLAS in one process
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-/tmp/isaac-gpu}
mkdir -p "$out"
dev=$root/build/device
lib=$dev/libisaac.so
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$cuda/bin:$PATH
work=$(mktemp -d)
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
fail=0

say "== 1. environment ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
{
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
	nvcc --version | tail -2
	ls -l "$cuda"/lib64/libcublas.so.* 2>/dev/null
	ls -l /usr/lib/x86_64-linux-gnu/libcudnn.so.* 2>/dev/null
	python3 -c "import torch, cupy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), 'cupy', cupy.__version__, 'cublas', cupy.cuda.cublas.getVersion(cupy.cuda.device.get_cublas_handle()))"
} >"$out/env.txt" 2>&1
cat "$out/env.txt" | tee -a "$summary"

say "== 2. prototypes against the vendor headers"
cudnn_h=$(bash gputest/cudnn_header.sh)
bash gputest/prototypes.sh 2>&1 | tee -a "$summary"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1

say "== 3. CUDA driver binding on the GPU"
"$dev/cuda.test" -test.v -test.run 'GPU' >"$out/cuda_test.txt" 2>&1 || fail=1
grep -E '^(--- |ok|FAIL|PASS)|device 0|smem|SMs|JIT error' "$out/cuda_test.txt" | tee -a "$summary"
"$dev/devbench.test" -test.v -test.run 'GPU' >"$out/devbench_test.txt" 2>&1 || fail=1
grep -E '^(--- |ok|FAIL|PASS)' "$out/devbench_test.txt" | tee -a "$summary"

say "== 4. PyTorch and CuPy: plain; ISAAC_DISABLE=1; ISAAC_POLICY=never; default policy (auto, embedded weights: a new cache, then the same cache warm); ISAAC_POLICY=always"
python3 gputest/frameworks.py "$work/plain.json" >"$work/frameworks_plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/frameworks.py "$work/disabled.json" >"$out/frameworks_forwarded.txt" 2>&1 || fail=1
ISAAC_POLICY=never ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/frameworks.py "$work/never.json" >>"$out/frameworks_forwarded.txt" 2>&1 || fail=1
ISAAC_CACHE_DIR=$work/cache ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/frameworks.py "$work/default.json" >"$out/frameworks_default.txt" 2>&1 || fail=1
ISAAC_CACHE_DIR=$work/cache ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/frameworks.py "$work/default_warm.json" >"$out/frameworks_default_warm.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/frameworks.py "$work/served.json" >"$out/frameworks_served.txt" 2>&1 || fail=1
python3 gputest/compare_frameworks.py "$work/plain.json" served="$work/default.json" served="$work/default_warm.json" served="$work/served.json" \
	identical="$work/disabled.json" identical="$work/never.json" | tee -a "$summary" || fail=1
grep -h '^isaac:' "$out/frameworks_forwarded.txt" "$out/frameworks_default.txt" "$out/frameworks_default_warm.txt" "$out/frameworks_served.txt" | tee -a "$summary"

say "== 4b. PyTorch's convolutions through cuDNN's graph API (graph_convs.py: ours and cuDNN's against float64)"
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/graph-cache LD_PRELOAD=$lib python3 gputest/graph_convs.py 200 1 same >"$out/graph_convs_always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/graph-cache LD_PRELOAD=$lib python3 gputest/graph_convs.py 100 2 >"$out/graph_convs_default.txt" 2>&1 || fail=1
for f in graph_convs_always graph_convs_default; do
	say "$f: $(grep -E '^[0-9]+ convolutions' "$out/$f.txt")"
	grep -h '^isaac: pid' "$out/$f.txt" | tee -a "$summary"
done
grep -q 'served by entry ([^)]*cudnnBackendExecute=[1-9]' "$out/graph_convs_always.txt" || { say "no graph-API convolution served"; fail=1; }
grep -q 'served by the entry point from kept launches [1-9]' "$out/graph_convs_always.txt" || { say "no convolution served from kept launches"; fail=1; }

say "== 5. nvcc program linked -lisaac -lcublas"
nvcc -O2 -o "$work/gemm_isaac" gputest/gemm_link.cu -L"$dev" -lisaac -lcublas -Xlinker -rpath="$dev" >"$work/nvcc.txt" 2>&1 &&
	nvcc -O2 -o "$work/gemm_plain" gputest/gemm_link.cu -lcublas >>"$work/nvcc.txt" 2>&1 || { cat "$work/nvcc.txt" | tee -a "$summary"; fail=1; }
ldd "$work/gemm_isaac" | grep -E 'isaac|cublas' | tee -a "$summary"
ISAAC_POLICY=never ISAAC_LOG=1 "$work/gemm_isaac" >"$out/link_isaac.txt" 2>&1
"$work/gemm_plain" >"$work/link_plain.txt" 2>&1
if diff <(grep -v '^isaac:' "$out/link_isaac.txt") "$work/link_plain.txt" >/dev/null; then
	say "linked program, ISAAC_POLICY=never: $(grep -vc '^isaac:' "$out/link_isaac.txt") results identical to plain cuBLAS"
else
	say "linked program: DIFFERENT"; diff "$out/link_isaac.txt" "$work/link_plain.txt" | tee -a "$summary"; fail=1
fi
ISAAC_LOG=1 "$work/gemm_isaac" >>"$out/link_isaac.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 "$work/gemm_isaac" >>"$out/link_isaac.txt" 2>&1 || fail=1
grep '^isaac:' "$out/link_isaac.txt" | tee -a "$summary"

say "== 5b. nvcc cuDNN program linked -lisaac -lcudnn (cudnnConvolutionForward)"
nvcc -O2 -o "$work/conv_isaac" gputest/conv_link.cu -I"$(dirname "$cudnn_h")" -L"$dev" -lisaac -lcudnn -Xlinker -rpath="$dev" >"$work/nvcc.txt" 2>&1 &&
	nvcc -O2 -o "$work/conv_plain" gputest/conv_link.cu -I"$(dirname "$cudnn_h")" -lcudnn >>"$work/nvcc.txt" 2>&1 || { cat "$work/nvcc.txt" | tee -a "$summary"; fail=1; }
ISAAC_LOG=1 "$work/conv_isaac" >"$out/conv_isaac.txt" 2>&1
"$work/conv_plain" >"$work/conv_plain.txt" 2>&1
if diff <(grep -v '^isaac:' "$out/conv_isaac.txt") "$work/conv_plain.txt" >/dev/null; then
	say "conv program: $(grep -vc '^isaac:' "$out/conv_isaac.txt") results identical to plain cuDNN"
else
	say "conv program: DIFFERENT"; diff "$out/conv_isaac.txt" "$work/conv_plain.txt" | tee -a "$summary"; fail=1
fi
grep '^isaac:' "$out/conv_isaac.txt" | tee -a "$summary"

say "== 6. host time per call vs cuBLAS, side by side: shim forwarding after Go decides (never), the default policy (auto), served by our kernel (always), ISAAC_DISABLE=1"
nvcc -O2 -o "$work/overhead" bench_compare/harness/host_overhead.c -L"$dev" -lisaac -lcublas -Xlinker -rpath="$dev" -ldl || fail=1
for round in 1 2 3; do
	echo "go-forwards  $(ISAAC_POLICY=never "$work/overhead" calls 16)"
	echo "auto         $("$work/overhead" calls 16)"
	echo "served       $(ISAAC_POLICY=always "$work/overhead" calls 16)"
	echo "disabled     $(ISAAC_DISABLE=1 "$work/overhead" calls 16)"
done >"$out/overhead.txt" 2>&1
cat "$out/overhead.txt" | tee -a "$summary"

say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
