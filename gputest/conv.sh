#!/usr/bin/env bash
# The convolutions of a real program under LD_PRELOAD (issue 23): torchvision-style ResNet-18 and
# ResNet-50 forwards (gputest/resnet.py) through PyTorch's legacy cuDNN path, without the shim,
# with it passing everything through, and with it serving every convolution it can
# (ISAAC_POLICY=always); results within tolerance of the run without the shim, and ISAAC_LOG
# showing served cudnnConvolutionForward calls. Then (RESNET_TIME=1) each forward timed without
# the shim and under the convolution dispatch (ISAAC_CONV_AUTO=1, or CONV_AUTO), its results (after the
# dispatch has settled) within tolerance too: dispatch.txt; every dispatch run logs (ISAAC_LOG). Run on the GPU machine from the repository root
# with build/device built by ./build.sh; OUT names the folder for the results. ISAAC_LIB names
# another libisaac.so; CONV_WEIGHTS a convolution weights file (what `isaac-tune calibrate
# -conv-out` writes for a GPU without shipped ones), put in the served and dispatch runs' caches
# as calibrate would have put it there. RESNET_REPEAT=N (default 1) times the plain runs and the
# dispatch's second runs N times each, alternately, so that the comparison can be set against the
# plain runs' own spread from process to process: repeat.txt. RESNET_AB=N (default 0: none) also
# compares each forward with and without the shim in one process, a program's second run under the
# dispatch: N rounds of a batch passed through (isaac_passthrough) and a batch served, in turn: ab.txt.
# CONV_AUTO is the dispatch runs' ISAAC_CONV_AUTO (default 1; empty: the device's default,
# serve.convDispatchMeasured).
# CONV_API=graph runs every forward but the FP32 reference through PyTorch's default path, cuDNN's
# graph API (cudnnBackendExecute), instead of the legacy entry point.
set -uo pipefail
# RESNET_AB is the A/B run's alone: the other runs (some without the shim) must not see it.
ab=${RESNET_AB:-0}
unset RESNET_AB
auto=${CONV_AUTO-1}
out=${OUT:-gputest-conv}
mkdir -p "$out"
lib=${ISAAC_LIB:-$PWD/build/device/libisaac.so}
work=$(mktemp -d)
if [ -n "${CONV_WEIGHTS:-}" ]; then
	for c in cache cache-auto; do mkdir -p "$work/$c/weights" && cp "$CONV_WEIGHTS" "$work/$c/weights/" || exit 1; done
fi
entry=cudnnConvolutionForward
if [ "${CONV_API:-legacy}" = graph ]; then
	export RESNET_API=graph
	unset TORCH_CUDNN_V8_API_DISABLED
	entry=cudnnBackendExecute
else
	export TORCH_CUDNN_V8_API_DISABLED=1
fi
fail=0
python3 gputest/resnet.py "$work/plain.json" >"$out/plain.txt" 2>&1 || fail=1
ISAAC_DISABLE=1 LD_PRELOAD=$lib python3 gputest/resnet.py "$work/disabled.json" >"$out/disabled.txt" 2>&1 || fail=1
ISAAC_POLICY=always ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache LD_PRELOAD=$lib python3 gputest/resnet.py "$work/served.json" >"$out/served.txt" 2>&1 || fail=1
RESNET_API= TORCH_CUDNN_V8_API_DISABLED=1 RESNET_TF32=0 python3 gputest/resnet.py "$work/fp32.json" >"$out/fp32.txt" 2>&1 || fail=1
python3 - "$work/plain.json" "$work/disabled.json" "$work/served.json" "$work/fp32.json" >"$out/compare.txt" 2>&1 <<'PY' || fail=1
import json, math, sys
plain, disabled, served, fp32 = (json.load(open(p)) for p in sys.argv[1:])
def err(a, b):
    return max(abs(x - y) for x, y in zip(a, b)) / max(max(abs(x) for x in a), 1e-30)
bad = 0
for k, v in plain.items():
    if disabled[k]["digest"] != v["digest"]:
        print(f"{k}: pass-through differs from plain cuDNN"); bad += 1
    e = err(v["y"], served[k]["y"])
    if "float32" in k:
        # TF32 (PyTorch's default for cuDNN's convolutions): ours and cuDNN's
        # each against FP32 convolutions; ours within twice cuDNN's error.
        ref = fp32[k]["y"]
        ec, eo = err(ref, v["y"]), err(ref, served[k]["y"])
        tol = max(1e-3, 2 * ec)
        print(f"{k}: served max relative error {e:.2e} from cuDNN; against FP32: ours {eo:.2e}, cuDNN's TF32 {ec:.2e} (tolerance {tol:.2e})")
        bad += not eo <= tol
    else:
        print(f"{k}: served max relative error {e:.2e} (tolerance 2e-2)")
        bad += not e <= 2e-2
print(f"{len(plain)} outputs, {bad} outside tolerance or not identical when passed through")
sys.exit(1 if bad else 0)
PY
RESNET_TIME=1 python3 gputest/resnet.py "$work/plain-timed.json" >"$out/plain-timed.txt" 2>&1 || fail=1
# The dispatch twice with one cache: the first run compiles its kernels (in the background, while
# cuDNN takes the calls) and leaves them and its choices on disk; the second, timed, is a program's
# second run.
ISAAC_CONV_AUTO=$auto ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache-auto LD_PRELOAD=$lib python3 gputest/resnet.py "$work/dispatch-first.json" >"$out/dispatch-first.txt" 2>&1 || fail=1
ISAAC_CONV_AUTO=$auto ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache-auto RESNET_TIME=1 LD_PRELOAD=$lib python3 gputest/resnet.py "$work/dispatch.json" >"$out/dispatch-run.txt" 2>&1 || fail=1
if [ "$ab" -gt 0 ]; then
	ISAAC_CONV_AUTO=$auto ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache-auto RESNET_AB=$ab LD_PRELOAD=$lib python3 gputest/resnet.py "$work/ab.json" >"$out/ab-run.txt" 2>&1 || fail=1
	python3 - "$work/ab.json" >"$out/ab.txt" 2>&1 <<'PY' || fail=1
import json, math, statistics, sys
runs = json.load(open(sys.argv[1]))
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print("each forward in one process: batches of 5 passed through (plain) and served (isaac), in turn")
print("run  rounds  plain_ms median (p10-p90)  isaac_ms median (p10-p90)  speed-up of the medians  rounds isaac faster")
q = lambda v, f: sorted(v)[min(len(v) - 1, int(f * len(v)))]
ratios = []
for k, v in runs.items():
    p, i = v["ab"]["plain"], v["ab"]["isaac"]
    r = statistics.median(p) / statistics.median(i)
    ratios.append(r)
    wins = sum(a > b for a, b in zip(p, i))
    print(f"{k}  {len(p)}  {statistics.median(p):.3f} ({q(p, .1):.3f}-{q(p, .9):.3f})  "
          f"{statistics.median(i):.3f} ({q(i, .1):.3f}-{q(i, .9):.3f})  {r:.3f}x  {wins}/{len(p)}")
print(f"{len(ratios)} forwards: speed-up of the medians geomean {g(ratios):.3f}x, min {min(ratios):.3f}x, max {max(ratios):.3f}x")
PY
	tail -1 "$out/ab.txt"
fi
repeat=${RESNET_REPEAT:-1}
for ((i = 2; i <= repeat; i++)); do
	RESNET_TIME=1 python3 gputest/resnet.py "$work/plain-timed-$i.json" >"$out/plain-timed-$i.txt" 2>&1 || fail=1
	ISAAC_CONV_AUTO=$auto ISAAC_LOG=1 ISAAC_CACHE_DIR=$work/cache-auto RESNET_TIME=1 LD_PRELOAD=$lib python3 gputest/resnet.py "$work/dispatch-$i.json" >"$out/dispatch-run-$i.txt" 2>&1 || fail=1
done
if [ "$repeat" -gt 1 ]; then
	python3 - "$repeat" "$work" >"$out/repeat.txt" 2>&1 <<'PY' || fail=1
import json, math, statistics, sys
n, work = int(sys.argv[1]), sys.argv[2]
name = lambda kind, i: f"{work}/{kind}{'' if i == 1 else f'-{i}'}.json"
plain = [json.load(open(name("plain-timed", i))) for i in range(1, n + 1)]
disp = [json.load(open(name("dispatch", i))) for i in range(1, n + 1)]
print(f"{n} plain and {n} dispatch runs, alternately, each a process (the dispatch's from one settled cache)")
print("run  plain_ms (each run)  dispatch_ms (each run)  plain max/min  speed-up of the medians")
ratios, spreads = [], []
for k in plain[0]:
    p, d = [r[k]["ms"] for r in plain], [r[k]["ms"] for r in disp]
    ratio, spread = statistics.median(p) / statistics.median(d), max(p) / min(p)
    ratios.append(ratio); spreads.append(spread)
    print(f"{k}  {' '.join(f'{x:.3f}' for x in p)}  {' '.join(f'{x:.3f}' for x in d)}  {spread:.2f}  {ratio:.3f}x")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print(f"{len(ratios)} runs: speed-up of the medians geomean {g(ratios):.3f}x, min {min(ratios):.3f}x, max {max(ratios):.3f}x; "
      f"plain runs' max/min geomean {g(spreads):.2f}, largest {max(spreads):.2f}")
PY
fi
python3 - "$work/plain-timed.json" "$work/dispatch.json" "$work/fp32.json" "$work/plain.json" >"$out/dispatch.txt" 2>&1 <<'PY' || fail=1
import json, math, sys
plain, disp = (json.load(open(p)) for p in sys.argv[1:3])
plain_first = json.load(open(sys.argv[4]))
bad, ratios = 0, []
print("run  plain_ms  dispatch_ms  speed-up  max_rel_err_after (FP32 runs: against FP32 convolutions)")
fp32 = json.load(open(sys.argv[3]))
for k, v in plain.items():
    d = disp[k]
    err = max(abs(x - y) for x, y in zip(v["y_after"], d["y_after"])) / max(max(abs(x) for x in v["y_after"]), 1e-30)
    tol = 2e-2
    if "float32" in k:  # as above: within twice cuDNN's own TF32 error (against FP32 convolutions)
        ref = fp32[k]["y"]
        e = lambda y: max(abs(x - z) for x, z in zip(ref, y)) / max(max(abs(x) for x in ref), 1e-30)
        tol, err = max(1e-3, 2 * e(plain_first[k]["y"])), e(d["y_after"])
    bad += not err <= tol
    ratios.append(v["ms"] / d["ms"])
    print(f"{k}  {v['ms']:.3f}  {d['ms']:.3f}  {v['ms'] / d['ms']:.3f}x  {err:.2e}")
g = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"{len(plain)} runs: geomean {g:.3f}x, min {min(ratios):.3f}x, max {max(ratios):.3f}x; {bad} outside tolerance")
sys.exit(1 if bad else 0)
PY
grep -h '^isaac:' "$out/dispatch-run.txt" >"$out/isaac_log_dispatch.txt"
grep -h '^isaac:' "$out/served.txt" | tee "$out/isaac_log.txt"
grep -q "served by entry ([^)]*$entry=[1-9]" "$out/isaac_log.txt" || { echo "no convolution reached the shim, or none was served" | tee -a "$out/compare.txt"; fail=1; }
tail -1 "$out/compare.txt"
exit $fail
