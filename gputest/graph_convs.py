"""Random convolutions through PyTorch's default path, cuDNN's graph API
(cudnnBackendExecute), with libisaac.so preloaded: each computed by the shim
and, in the same process, by cuDNN (isaac_passthrough(1)), both against a
float64 reference on the CPU. Every type PyTorch sends to cuDNN (FP32 with
TF32 allowed and not, FP16, BF16, FP64), NCHW and channels_last, strides,
padding, dilation, groups and depthwise layers, batches 1 to 8.

The bound, per convolution: the shim's largest error relative to the
reference's largest magnitude at most twice cuDNN's, or the type's
tolerance (FP64 1e-12, FP32 1e-5, TF32 4e-3, FP16 4e-3, BF16 3e-2),
whichever is larger. The shim computes each convolution twice, the second
time on copies of x and the filter at other addresses: under
ISAAC_POLICY=always the second call is the one the entry point serves from
the first call's launches, in C (shim/conv_repeats.h), and with the third
argument `same` it must give the first call's result bit for bit. Prints one
line a convolution and a summary; exits 1 on any convolution outside the
bound (or, with `same`, whose two results differ).

usage: ISAAC_POLICY=always ISAAC_LOG=1 LD_PRELOAD=libisaac.so python3 graph_convs.py [N [SEED [same]]]"""
import ctypes
import random
import sys

import torch
import torch.nn.functional as F

switch = ctypes.CDLL(None).isaac_passthrough  # the preloaded shim's
switch.argtypes, switch.restype = [ctypes.c_int], ctypes.c_int

TYPES = [  # name, dtype, allow_tf32, tolerance
    ("fp32", torch.float32, False, 1e-5),
    ("tf32", torch.float32, True, 4e-3),
    ("fp16", torch.float16, True, 4e-3),
    ("bf16", torch.bfloat16, True, 3e-2),
    ("fp64", torch.float64, True, 1e-12),
]


def draw(rng):
    name, dt, tf32, tol = rng.choice(TYPES)
    groups = rng.choice([1, 1, 1, 2, 4, "dw"])
    c = rng.choice([1, 3, 8, 16, 24, 32, 64, 96])
    if groups == "dw":
        groups, k = c, c
    else:
        c = max(groups, c - c % groups)
        k = groups * rng.choice([1, 4, 8, 16, 32])
    r, s = rng.choice([(1, 1), (3, 3), (5, 5), (7, 7), (1, 3), (3, 1)])
    pad = rng.choice([0, 0, 1, 2, 3])
    stride = rng.choice([1, 1, 2, 3])
    dil = rng.choice([1, 1, 1, 2])
    h = rng.randint(max(1, (r - 1) * dil + 1 - 2 * pad), 40)
    w = rng.randint(max(1, (s - 1) * dil + 1 - 2 * pad), 40)
    n = rng.choice([1, 2, 4, 8])
    cl = rng.random() < 0.5
    return dict(name=name, dt=dt, tf32=tf32, tol=tol, n=n, c=c, h=h, w=w, k=k, r=r, s=s,
                groups=groups, pad=pad, stride=stride, dil=dil, cl=cl)


def run(case, seed):
    g = torch.Generator().manual_seed(seed)
    x64 = torch.randn(case["n"], case["c"], case["h"], case["w"], generator=g, dtype=torch.float64)
    w64 = torch.randn(case["k"], case["c"] // case["groups"], case["r"], case["s"], generator=g, dtype=torch.float64)
    x, w = x64.to(case["dt"]), w64.to(case["dt"])
    # The reference of what the device computes: the inputs as rounded to the type.
    ref = F.conv2d(x.double(), w.double(), stride=case["stride"], padding=case["pad"],
                   dilation=case["dil"], groups=case["groups"])
    x, w = x.cuda(), w.cuda()
    if case["cl"]:
        x, w = x.to(memory_format=torch.channels_last), w.to(memory_format=torch.channels_last)
    torch.backends.cudnn.allow_tf32 = case["tf32"]
    conv = lambda x, w: F.conv2d(x, w, stride=case["stride"], padding=case["pad"], dilation=case["dil"],
                                 groups=case["groups"]).double().cpu()
    ours = conv(x, w)
    again = conv(x.clone(), w.clone())  # other addresses: served from the first call's launches where they are kept
    switch(1)
    cudnn = conv(x, w)
    switch(0)
    scale = max(ref.abs().max().item(), 1e-30)
    eo = max((ours - ref).abs().max().item(), (again - ref).abs().max().item()) / scale
    ec = (cudnn - ref).abs().max().item() / scale
    return eo, ec, max(2 * ec, case["tol"]), torch.equal(ours, again)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    same = len(sys.argv) > 3 and sys.argv[3] == "same"
    rng = random.Random(seed)
    torch.backends.cudnn.benchmark = False
    bad = differs = 0
    for i in range(count):
        case = draw(rng)
        eo, ec, tol, identical = run(case, seed * 100000 + i)
        ok = eo <= tol and (identical or not same)
        bad += not ok
        differs += not identical
        desc = " ".join(f"{k}={v}" for k, v in case.items() if k not in ("dt", "tol"))
        note = "" if identical else "  (second call differs)"
        print(f"{i} {desc}: ours {eo:.2e} cuDNN {ec:.2e} bound {tol:.2e}{note}{'' if ok else '  OUTSIDE'}")
    print(f"{count} convolutions, {bad} outside the bound, {differs} whose second call differs from the first")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
