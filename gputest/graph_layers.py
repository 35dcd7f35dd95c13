"""The layers of bench_compare's Table 5 and CNN suites (internal/suites/conv.go)
as PyTorch runs them by default, through cuDNN's graph API, each timed with
and without the shim in one process: libisaac.so preloaded under its default
policy, every layer first called 40 times, a pause of 1.5 s (the dispatch's
decisions and checks are made on those calls and in the background), 20 more
calls; then ROUNDS rounds that each time a batch of 10 calls with the shim
switched to a pure pass-through (isaac_passthrough(1): cuDNN's engine as
PyTorch picks it) and a batch with it on, in turn (the order alternating
from round to round), each after 2 untimed calls of its own, CUDA events
around the batch. L2 is not flushed: each layer runs back to back, as in a
network. FP32 (TF32 allowed, PyTorch's default for cuDNN) and FP16, NCHW and
channels_last.

Prints per layer the medians of both (µs per call), their ratio and the
rounds the shim was faster; then the geomean per type and layout and over
all. Exits 0 (it measures; it checks nothing).

With ROUNDS 0 the layers are only called (40, the pause, 20): a first run that
leaves the dispatch's kernels and choices in ISAAC_CACHE_DIR for the next.
LAYERS_TYPES (e.g. "float16/nhwc,float32/nchw") keeps those types and
layouts only; LAYERS_PAUSE sets the pause in seconds.

usage: ISAAC_LOG=1 LD_PRELOAD=libisaac.so python3 graph_layers.py [ROUNDS]"""
import os
import ctypes
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

switch = ctypes.CDLL(None).isaac_passthrough
switch.argtypes, switch.restype = [ctypes.c_int], ctypes.c_int

TABLE5 = [  # N, P, Q, K, C, R, S (stride 1, no padding)
    (16, 79, 341, 32, 1, 5, 20), (16, 38, 166, 32, 32, 5, 10), (16, 24, 240, 32, 16, 3, 3),
    (16, 12, 120, 64, 32, 3, 3), (8, 54, 54, 64, 64, 3, 3), (8, 27, 27, 128, 128, 3, 3),
    (16, 14, 14, 48, 512, 5, 5), (16, 7, 7, 128, 832, 5, 5), (8, 112, 112, 128, 64, 3, 3),
    (8, 56, 56, 256, 128, 3, 3), (16, 128, 39, 174, 64, 5, 5), (16, 256, 19, 87, 128, 5, 5),
    (16, 7, 7, 512, 512, 3, 3), (16, 7, 7, 2048, 1024, 1, 1),
]
CNN = [  # name, C, H, W, K, R, S, pad, stride, groups
    ("rn50-stem", 3, 224, 224, 64, 7, 7, 3, 2, 1), ("rn50-s1-3x3", 64, 56, 56, 64, 3, 3, 1, 1, 1),
    ("rn50-s1-1x1-reduce", 256, 56, 56, 64, 1, 1, 0, 1, 1), ("rn50-s1-1x1-expand", 64, 56, 56, 256, 1, 1, 0, 1, 1),
    ("rn50-s2-3x3-stride2", 128, 56, 56, 128, 3, 3, 1, 2, 1), ("rn50-s2-3x3", 128, 28, 28, 128, 3, 3, 1, 1, 1),
    ("rn50-s3-3x3", 256, 14, 14, 256, 3, 3, 1, 1, 1), ("rn50-s3-1x1-reduce", 1024, 14, 14, 256, 1, 1, 0, 1, 1),
    ("rn50-s4-3x3", 512, 7, 7, 512, 3, 3, 1, 1, 1), ("rn50-s4-1x1-expand", 512, 7, 7, 2048, 1, 1, 0, 1, 1),
    ("mobilenet-dw-3x3", 128, 56, 56, 128, 3, 3, 1, 1, 128),
]


def layers():
    for i, (n, p, q, k, c, r, s) in enumerate(TABLE5):
        yield f"table5/conv{i + 1}", n, c, p + r - 1, q + s - 1, k, r, s, 0, 1, 1
    for b in (1, 8, 32):
        for name, c, h, w, k, r, s, pad, stride, g in CNN:
            yield f"cnn/{name}-n{b}", b, c, h, w, k, r, s, pad, stride, g


def batch_us(f, calls=10):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(calls):
        f()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1000 / calls


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = True
    runs = []
    keep = [k for k in os.environ.get("LAYERS_TYPES", "").split(",") if k]
    pause = float(os.environ.get("LAYERS_PAUSE", "1.5"))
    for dt in (torch.float32, torch.float16):
        for fmt in ("nchw", "nhwc"):
            if keep and f"{str(dt)[6:]}/{fmt}" not in keep:
                continue
            for name, n, c, h, w, k, r, s, pad, stride, g in layers():
                x = torch.randn(n, c, h, w, device="cuda", dtype=dt)
                wt = torch.randn(k, c // g, r, s, device="cuda", dtype=dt)
                if fmt == "nhwc":
                    x, wt = x.to(memory_format=torch.channels_last), wt.to(memory_format=torch.channels_last)
                f = lambda: F.conv2d(x, wt, stride=stride, padding=pad, groups=g)
                with torch.no_grad():
                    for _ in range(40):
                        f()
                    torch.cuda.synchronize()
                    time.sleep(pause)
                    for _ in range(20):
                        f()
                    times = {"plain": [], "isaac": []}
                    for rd in range(rounds):
                        for mode in (("plain", "isaac") if rd % 2 == 0 else ("isaac", "plain")):
                            switch(1 if mode == "plain" else 0)
                            f(); f()
                            times[mode].append(batch_us(f))
                    switch(0)
                if rounds == 0:
                    del x, wt
                    continue
                p, i = statistics.median(times["plain"]), statistics.median(times["isaac"])
                wins = sum(a > b for a, b in zip(times["plain"], times["isaac"]))
                key = f"{str(dt)[6:]}/{fmt}"
                runs.append((key, name, p / i))
                print(f"{key} {name}  plain {p:.1f} us  isaac {i:.1f} us  {p / i:.3f}x  {wins}/{rounds}", flush=True)
                del x, wt
    if not runs:
        print("layers called, none timed (ROUNDS 0)")
        return
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    for key in sorted({k for k, _, _ in runs}):
        for suite in ("table5", "cnn"):
            v = [r for k, n, r in runs if k == key and n.startswith(suite)]
            if v:
                print(f"{key} {suite}: {len(v)} layers, geomean {g(v):.3f}x, min {min(v):.3f}x, max {max(v):.3f}x")
    v = [r for _, _, r in runs]
    print(f"all {len(v)} layers: geomean {g(v):.3f}x, min {min(v):.3f}x, max {max(v):.3f}x, "
          f"{sum(r < 0.97 for r in v)} below 0.97x")


if __name__ == "__main__":
    main()
