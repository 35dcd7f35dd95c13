"""Where a short convolution's time goes on PyTorch's default path (cuDNN's
graph API) with libisaac.so preloaded under its default policy: for each
layer, passed through (isaac_passthrough(1): cuDNN's engine as PyTorch picks
it) and as the shim answers it, in one process, alternating:

- host: what the Python loop spends to enqueue one call (perf_counter around
  20 calls after a synchronization, no synchronization inside: the GPU runs
  behind, so this is PyTorch's, cuDNN's and the shim's host time), median of
  9 batches;
- span: CUDA events around the same 20 calls (µs a call: what graph_layers.py
  reports; where the loop is host-bound it is the host time);
- kernels: what torch.profiler (CUPTI) records the GPU running for 5 calls,
  per call: the count of kernels, memsets and copies, their names and their
  summed GPU time.

Each layer is first called 40 times, paused LAYERS_PAUSE seconds (1.5) and
called 20 more times, as graph_layers.py does, so that the shim's decision
and check are made before anything is timed. Layers: graph_layers.py's, those
matching LAYERS (comma-separated substrings of "type/layout name", e.g.
"float32/nchw cnn/rn50-s3-1x1-reduce-n1"; default: the CNN layers at batch 1
and 8 and Table 5's conv7 and conv14), in FP32 (TF32 allowed) NCHW and FP16
channels_last. Measures; checks nothing.

usage: ISAAC_LOG=1 LD_PRELOAD=libisaac.so python3 graph_host.py"""
import collections
import os
import statistics
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from graph_layers import layers, switch


def host_and_span(f, calls=20):
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    host = (time.perf_counter() - t0) * 1e6 / calls
    b.record()
    b.synchronize()
    return host, a.elapsed_time(b) * 1000 / calls


def kernels(f, calls=5):
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
    names, gpu, count = collections.Counter(), 0.0, 0
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        names[e.name[:60]] += 1
        count += 1
        gpu += e.device_time
    return count / calls, gpu / calls, {n: c / calls for n, c in names.items()}


def main():
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = True
    pause = float(os.environ.get("LAYERS_PAUSE", "1.5"))
    want = [w for w in os.environ.get("LAYERS", "").split(",") if w]
    default = lambda name: name in ("table5/conv7", "table5/conv14") or name.startswith("cnn/") and not name.endswith("-n32")
    print("layer | mode | host us/call | span us/call | kernels/call | kernels' GPU us/call | kernels")
    for dt, fmt in ((torch.float32, "nchw"), (torch.float16, "nhwc")):
        for name, n, c, h, w, k, r, s, pad, stride, g in layers():
            label = f"{str(dt)[6:]}/{fmt} {name}"
            if want and not any(x in label for x in want) or not want and not default(name):
                continue
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
                t = {"plain": [], "isaac": []}
                for rd in range(9):
                    for mode in (("plain", "isaac") if rd % 2 == 0 else ("isaac", "plain")):
                        switch(1 if mode == "plain" else 0)
                        f(); f()
                        t[mode].append(host_and_span(f))
                for mode in ("plain", "isaac"):
                    switch(1 if mode == "plain" else 0)
                    f(); f()
                    kc, kg, kn = kernels(f)
                    host = statistics.median(h for h, _ in t[mode])
                    span = statistics.median(s for _, s in t[mode])
                    desc = "; ".join(f"{v:g}x {n}" for n, v in sorted(kn.items(), key=lambda i: -i[1]))
                    print(f"{label} | {mode} | {host:.2f} | {span:.2f} | {kc:g} | {kg:.2f} | {desc}", flush=True)
                switch(0)
            del x, wt


if __name__ == "__main__":
    main()
