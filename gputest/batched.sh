#!/usr/bin/env bash
# Batched GEMMs of real programs under LD_PRELOAD (issue 25): PyTorch's bmm, baddbmm, matmul of
# 3-d tensors and an attention's products, and CuPy's batched matmul (gputest/batched.py), which
# call cuBLAS's strided-batched routines: without the shim, passed through (bit-identical), served
# under ISAAC_POLICY=always and under the default policy (twice, one cache): within tolerance of
# the vendor's path, ISAAC_LOG showing served strided-batched calls. Then a transformer encoder
# block's forward and backward and an MLP's training steps (gputest/networks.py) likewise, and
# linear layers (gputest/linear.py: F.linear, nn.Linear, addmm, the fused bias and GELU or ReLU),
# whose products with a bias reach cublasLtMatmul: ISAAC_LOG of the always run must show served
# cublasLtMatmul calls. Run on the GPU machine from the repository root with build/device built by
# ./build.sh; OUT names the folder for the results; PARTS (default "bmm networks linear") the parts
# to run.
set -uo pipefail
parts=" ${PARTS:-bmm networks linear} "
out=${OUT:-gputest-batched}
mkdir -p "$out"
lib=$PWD/build/device/libisaac.so
work=$(mktemp -d)
fail=0
if [[ $parts == *" bmm "* ]]; then
python3 gputest/batched.py "$work/plain.json" >"$out/plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/batched.py "$work/disabled.json" >"$out/disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/always LD_PRELOAD=$lib python3 gputest/batched.py "$work/always.json" >"$out/always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/batched.py "$work/default.json" >"$out/default.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/batched.py "$work/default_warm.json" >"$out/default_warm.txt" 2>&1 || fail=1
python3 gputest/compare_frameworks.py "$work/plain.json" identical="$work/disabled.json" served="$work/always.json" \
	served="$work/default.json" served="$work/default_warm.json" >"$out/compare.txt" 2>&1 || fail=1
cat "$out/compare.txt"
fi
# A transformer encoder block forward and backward and an MLP's training steps (gputest/networks.py).
if [[ $parts == *" networks "* ]]; then
python3 gputest/networks.py run "$work/net_plain.npz" >"$out/net_plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_disabled.npz" >"$out/net_disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/always LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_always.npz" >"$out/net_always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_default.npz" >"$out/net_default.txt" 2>&1 || fail=1
{
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_disabled.npz" identical || fail=1
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_always.npz" || fail=1
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_default.npz" || fail=1
} >"$out/net_compare.txt" 2>&1
cat "$out/net_compare.txt"
fi
# Linear layers (gputest/linear.py): cublasLtMatmul with a bias epilogue, and the plain GEMMs.
if [[ $parts == *" linear "* ]]; then
python3 gputest/linear.py run "$work/lin_plain.npz" >"$out/lin_plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/linear.py run "$work/lin_disabled.npz" >"$out/lin_disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/always LD_PRELOAD=$lib python3 gputest/linear.py run "$work/lin_always.npz" >"$out/lin_always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/linear.py run "$work/lin_default.npz" >"$out/lin_default.txt" 2>&1 || fail=1
{
	python3 gputest/linear.py compare "$work/lin_plain.npz" "$work/lin_disabled.npz" identical || fail=1
	python3 gputest/linear.py compare "$work/lin_plain.npz" "$work/lin_always.npz" || fail=1
	python3 gputest/linear.py compare "$work/lin_plain.npz" "$work/lin_default.npz" || fail=1
} >"$out/lin_compare.txt" 2>&1
cat "$out/lin_compare.txt"
rm -f "$work"/lin_*.npz
fi
grep -h '^isaac:' "$out"/*.txt
if [[ $parts == *" bmm "* ]]; then
	grep -q 'StridedBatched[A-Za-z_0-9]*=' "$out/always.txt" || { echo "ISAAC_LOG shows no strided-batched call"; fail=1; }
fi
if [[ $parts == *" linear "* ]]; then
	grep -q 'served by entry ([^)]*cublasLtMatmul=[1-9]' "$out/lin_always.txt" ||
		{ echo "ISAAC_LOG of the always linear run shows no served cublasLtMatmul call"; fail=1; }
fi
echo "fail=$fail"
exit $fail
