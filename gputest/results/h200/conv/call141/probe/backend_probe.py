"""Drive PyTorch's default (graph API) convolution path under backend_probe.so."""
import os, sys, torch
import torch.nn.functional as F
out = os.environ.get("PROBE_OUT", "/tmp/probe.txt")
def label(s):
    torch.cuda.synchronize()
    with open(out, "a") as f:
        f.write("\n=== " + s + "\n")
dev = "cuda"
torch.manual_seed(0)
def case(name, n, c, h, w, k, r, s, dtype, cl=False, stride=1, pad=0, dil=1, groups=1, bias=False, tf32=True, bench=False):
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = bench
    x = torch.randn(n, c, h, w, device=dev, dtype=dtype)
    wt = torch.randn(k, c // groups, r, s, device=dev, dtype=dtype)
    b = torch.randn(k, device=dev, dtype=dtype) if bias else None
    if cl:
        x = x.to(memory_format=torch.channels_last); wt = wt.to(memory_format=torch.channels_last)
    label(f"{name}: n{n} c{c} {h}x{w} k{k} {r}x{s} {dtype} cl={cl} stride={stride} pad={pad} dil={dil} groups={groups} bias={bias} tf32={tf32} bench={bench}")
    y = F.conv2d(x, wt, b, stride=stride, padding=pad, dilation=dil, groups=groups)
    y2 = F.conv2d(x, wt, b, stride=stride, padding=pad, dilation=dil, groups=groups)
    torch.cuda.synchronize()
    with open(out, "a") as f:
        f.write(f"--- y {tuple(y.shape)} strides {y.stride()} ptr x {x.data_ptr():#x} w {wt.data_ptr():#x} y {y.data_ptr():#x} y2 {y2.data_ptr():#x}\n")
case("fp32 tf32", 2, 16, 20, 20, 32, 3, 3, torch.float32, pad=1)
case("fp32 fma", 2, 16, 20, 20, 32, 3, 3, torch.float32, pad=1, tf32=False)
case("fp16 nchw", 2, 16, 20, 20, 32, 3, 3, torch.float16, pad=1)
case("fp16 cl", 2, 16, 20, 20, 32, 3, 3, torch.float16, pad=1, cl=True)
case("bf16 nchw", 2, 16, 20, 20, 32, 3, 3, torch.bfloat16, pad=1)
case("bf16 cl", 2, 16, 20, 20, 32, 3, 3, torch.bfloat16, pad=1, cl=True)
case("fp64", 2, 16, 20, 20, 32, 3, 3, torch.float64, pad=1)
case("stride dil", 2, 16, 21, 19, 24, 3, 5, torch.float16, stride=2, pad=2, dil=2)
case("grouped", 2, 16, 20, 20, 32, 3, 3, torch.float16, pad=1, groups=4)
case("depthwise cl", 2, 32, 20, 20, 32, 3, 3, torch.float16, pad=1, groups=32, cl=True)
case("bias", 2, 16, 20, 20, 32, 1, 1, torch.float16, bias=True)
case("bench", 4, 64, 28, 28, 64, 3, 3, torch.float16, pad=1, bench=True, cl=True)
case("fp32 bench fma", 4, 64, 28, 28, 64, 3, 3, torch.float32, pad=1, bench=True, tf32=False)
label("ResNet-ish block fp16 channels_last")
torch.backends.cudnn.benchmark = False
m = torch.nn.Sequential(torch.nn.Conv2d(3, 64, 7, 2, 3, bias=False), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
                        torch.nn.Conv2d(64, 64, 3, 1, 1, bias=False), torch.nn.BatchNorm2d(64), torch.nn.ReLU()).cuda().half().eval()
m = m.to(memory_format=torch.channels_last)
with torch.no_grad():
    y = m(torch.randn(8, 3, 224, 224, device=dev, dtype=torch.half).to(memory_format=torch.channels_last))
torch.cuda.synchronize()
label("done " + torch.__version__ + " cudnn " + str(torch.backends.cudnn.version()))
