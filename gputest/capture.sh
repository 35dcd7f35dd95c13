#!/usr/bin/env bash
# gputest/capture.sh: GEMMs captured into CUDA graphs, and bad arguments, on
# the GPU machine (build here with ./build.sh, carry build/device). Results
# go to $OUT. With build/old/libisaac.so (a build of an earlier commit,
# carried too) the C-level checks also run against it, to show what they
# catch.
#
#   1. the driver binding's calls outside stream order during a capture, in
#      each mode, on the capturing thread and on another, with and without
#      the relaxed mode (cuda.test TestGPUCaptureUnsafeCalls)
#   2. the server: a captured call in each mode × policy × state of its
#      decision, replayed and checked; captures while eight threads serve
#      (serve.test TestGPUCapture*), and the earlier capture and check tests
#   3. gputest/capture.cu through the shim as an application sees it: 16
#      threads with their own handles and streams, then captures of every
#      kind in each mode, then captures while the threads run; plain cuBLAS,
#      ISAAC_POLICY=never, the default policy (a new cache directory) and
#      always
#   4. gputest/edge_cases.cu: one table of invalid and edge-case arguments
#      for every entry point, the vendor and the exported symbol in one
#      process, under each policy (rows that may crash the vendor in
#      processes of their own)
#   5. gputest/graphs.py: torch.cuda.graph around matmuls of each type and
#      torch.compile(mode="reduce-overhead"), plain and under LD_PRELOAD
#
# SECTIONS="1 2 3" runs only those sections (all by default), to fit the
# device's ten minutes a call; COUNT=n runs the server's captures while
# threads serve n times.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-/tmp/isaac-capture}
mkdir -p "$out"
dev=$root/build/device
lib=$dev/libisaac.so
old=$root/build/old/libisaac.so
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$cuda/bin:$PATH
work=$(mktemp -d)
summary=$out/capture_summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
fail=0
sections=${SECTIONS:-1 2 3 4 5}
want() { [[ " $sections " == *" $1 "* ]]; }

say "== environment ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$summary"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" 2>&1 | tee -a "$summary"
ls -l "$cuda"/lib64/libcublas.so.* 2>/dev/null | head -2 | tee -a "$summary"
cudnn_h=$(ls /usr/include/cudnn.h /usr/include/x86_64-linux-gnu/cudnn.h "$cuda"/include/cudnn.h 2>/dev/null | head -1)
if [ -z "$cudnn_h" ]; then
	cudnn_h=$(python3 -c "import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], 'include', 'cudnn.h'))" 2>/dev/null)
fi
cudnn_inc=$(dirname "$cudnn_h")
cudnn_lib=$(ls -d "$cudnn_inc"/../lib 2>/dev/null)

if want 1; then
say "== 1. the binding's calls outside stream order during a capture"
"$dev/cuda.test" -test.run '^TestGPUCaptureUnsafeCalls$' -test.v >"$out/unsafe_calls.txt" 2>&1 || fail=1
grep -E 'relaxed=false|^--- |FAIL' "$out/unsafe_calls.txt" | grep -E 'valid=false|--- |FAIL' | cut -c1-220 | tee -a "$summary"
fi

if want 2; then
say "== 2. kernels and server: captured calls by mode × policy × state, captures while threads serve"
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/kernels.test" -test.run '^TestGPU(GraphCapture|StreamWorkspace)$' \
	-test.v -test.timeout 10m >"$out/engine_capture.txt" 2>&1 || fail=1
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/serve.test" -test.run '^TestGPU(CaptureStates|MeasuredDispatch)$' \
	-test.v -test.timeout 10m >>"$out/engine_capture.txt" 2>&1 || fail=1
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/serve.test" -test.run '^TestGPUCaptureWhileServing$' \
	-test.v -test.count "${COUNT:-1}" -test.timeout 10m >>"$out/engine_capture.txt" 2>&1 || fail=1
grep -E '^(--- |ok|FAIL|PASS)|capture_gpu_test.go.*(reason|valid|capture:)' "$out/engine_capture.txt" | cut -c1-200 | tee -a "$summary"
fi

if want 3; then
say "== 3. capture.cu through the shim"
nvcc -O2 -g -std=c++17 -Xlinker -export-dynamic -o "$work/capture" gputest/capture.cu -lcublas -ldl -lpthread >"$work/nvcc.txt" 2>&1 ||
	{ cat "$work/nvcc.txt" | tee -a "$summary"; fail=1; }
run_capture() { # name, env...
	local name=$1
	shift
	env "$@" timeout 300 "$work/capture" >"$out/capture_$name.txt" 2>&1
	local rc=$?
	say "capture.cu $name (rc $rc): $(grep -E '^phase [234]:|^capture:' "$out/capture_$name.txt" | tr '\n' ' ')"
	grep -h '^isaac:' "$out/capture_$name.txt" | cut -c1-400 | tee -a "$summary"
	return $rc
}
run_capture plain || fail=1
run_capture never LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_POLICY=never || fail=1
run_capture default LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
run_capture always LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_POLICY=always ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
if [ -f "$old" ]; then
	run_capture old_default LD_PRELOAD=$old ISAAC_LOG=1 ISAAC_CACHE_DIR=$(mktemp -d) ||
		say "(the earlier build fails, as expected of the bug)"
fi
fi

if want 4; then
say "== 4. edge cases: the vendor and the exported symbol, one table"
nvcc -O2 -std=c++17 -o "$work/edge" gputest/edge_cases.cu -I"$cudnn_inc" ${cudnn_lib:+-L"$cudnn_lib"} -lcublasLt -lcublas -lcudnn -ldl -lpthread \
	>"$work/nvcc_edge.txt" 2>&1 || { cat "$work/nvcc_edge.txt" | tee -a "$summary"; fail=1; }
run_edge() { # name, env...
	local name=$1
	shift
	env "$@" timeout 300 "$work/edge" --csv "$out/edge_$name.csv" >"$out/edge_$name.txt" 2>&1
	local rc=$?
	say "edge $name (rc $rc): $(grep -E '^edge cases:|accepts cublasGemmAlgo_t' "$out/edge_$name.txt" | tr '\n' ' ')"
	grep -E 'DIFFERENT|TOUCHED|mismatch' "$out/edge_$name.txt" | grep -v '^edge cases:' | head -20 | tee -a "$summary"
	for row in $("$work/edge" --list-risky 2>/dev/null); do
		env "$@" timeout 60 "$work/edge" --row "$row" >>"$out/edge_${name}_risky.txt" 2>&1
		echo "rc $? $row" >>"$out/edge_${name}_risky.txt"
	done
	return $rc
}
run_edge plain || fail=1
run_edge never LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_POLICY=never || fail=1
run_edge default LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
run_edge always LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_POLICY=always ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
if [ -f "$old" ]; then
	run_edge old_always LD_PRELOAD=$old ISAAC_LOG=1 ISAAC_POLICY=always ISAAC_CACHE_DIR=$(mktemp -d) ||
		say "(the earlier build differs, as expected of the bug)"
fi
# The risky rows: each one's status and outcome must match the plain run's.
for name in never default always; do
	if diff <(grep -v '^isaac:' "$out/edge_plain_risky.txt") <(grep -v '^isaac:' "$out/edge_${name}_risky.txt") >/dev/null; then
		say "edge risky rows, $name: identical to plain ($(grep -c '^rc ' "$out/edge_${name}_risky.txt") rows)"
	else
		say "edge risky rows, $name: DIFFERENT from plain"
		diff <(grep -v '^isaac:' "$out/edge_plain_risky.txt") <(grep -v '^isaac:' "$out/edge_${name}_risky.txt") | head -20 | tee -a "$summary"
		fail=1
	fi
done
fi

if want 5; then
say "== 5. PyTorch: torch.cuda.graph and torch.compile(mode=\"reduce-overhead\")"
run_graphs() { # name, env...
	local name=$1
	shift
	env "$@" PYTHONUNBUFFERED=1 timeout 400 python3 gputest/graphs.py "$out/graphs_$name.json" >"$out/graphs_$name.txt" 2>&1
	local rc=$?
	say "graphs $name (rc $rc): $(grep -E '^graphs:' "$out/graphs_$name.txt")"
	grep -h '^isaac:' "$out/graphs_$name.txt" | cut -c1-400 | tee -a "$summary"
	return $rc
}
run_graphs plain || fail=1
run_graphs default LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
run_graphs always LD_PRELOAD=$lib ISAAC_LOG=1 ISAAC_POLICY=always ISAAC_CACHE_DIR=$(mktemp -d) || fail=1
fi

say "== done: $([ $fail = 0 ] && echo all checks passed || echo FAILURES)"
exit $fail
