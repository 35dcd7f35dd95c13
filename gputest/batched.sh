#!/usr/bin/env bash
# Batched GEMMs of real programs under LD_PRELOAD (issue 25): PyTorch's bmm, baddbmm, matmul of
# 3-d tensors and an attention's products, and CuPy's batched matmul (gputest/batched.py), which
# call cuBLAS's strided-batched routines: without the shim, passed through (bit-identical), served
# under ISAAC_POLICY=always and under the default policy (twice, one cache): within tolerance of
# the vendor's path, ISAAC_LOG showing served strided-batched calls. Then a transformer encoder
# block's forward and backward and an MLP's training steps (gputest/networks.py) likewise. Run on the GPU machine from
# the repository root with build/device built by ./build.sh; OUT names the folder for the results.
set -uo pipefail
out=${OUT:-gputest-batched}
mkdir -p "$out"
lib=$PWD/build/device/libisaac.so
work=$(mktemp -d)
fail=0
python3 gputest/batched.py "$work/plain.json" >"$out/plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 ISAAC_LOG=1 LD_PRELOAD=$lib python3 gputest/batched.py "$work/disabled.json" >"$out/disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/always LD_PRELOAD=$lib python3 gputest/batched.py "$work/always.json" >"$out/always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/batched.py "$work/default.json" >"$out/default.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/batched.py "$work/default_warm.json" >"$out/default_warm.txt" 2>&1 || fail=1
python3 gputest/compare_frameworks.py "$work/plain.json" identical="$work/disabled.json" served="$work/always.json" \
	served="$work/default.json" served="$work/default_warm.json" >"$out/compare.txt" 2>&1 || fail=1
cat "$out/compare.txt"
# A transformer encoder block forward and backward and an MLP's training steps (gputest/networks.py).
python3 gputest/networks.py run "$work/net_plain.npz" >"$out/net_plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_disabled.npz" >"$out/net_disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/always LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_always.npz" >"$out/net_always.txt" 2>&1 || fail=1
ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/networks.py run "$work/net_default.npz" >"$out/net_default.txt" 2>&1 || fail=1
{
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_disabled.npz" identical
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_always.npz"
	python3 gputest/networks.py compare "$work/net_plain.npz" "$work/net_default.npz"
} >"$out/net_compare.txt" 2>&1 || fail=1
cat "$out/net_compare.txt"
grep -h '^isaac:' "$out"/*.txt
grep -q 'StridedBatched[A-Za-z_0-9]*=' "$out/always.txt" || { echo "ISAAC_LOG shows no strided-batched call"; fail=1; }
echo "fail=$fail"
exit $fail
