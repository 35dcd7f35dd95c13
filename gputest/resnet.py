"""ResNet-18 and ResNet-50 forwards through PyTorch's legacy cuDNN path
(TORCH_CUDNN_V8_API_DISABLED=1: cudnnConvolutionForward), or its default
one (RESNET_API=graph: cuDNN's graph API), so that LD_PRELOAD=libisaac.so
intercepts their convolutions. The networks are the
torchvision architectures written out here (torchvision need not be
installed), with fixed-seed weights; batches 1 and 32, FP32 and FP16, NCHW and
channels_last. Writes one JSON object: per run the output's float64 values'
digest and the output itself (for the comparison of a run with the shim
against one without: gputest/conv.sh).

With RESNET_TF32=0 FP32 convolutions do not use TF32 (cuDNN's FMA math type),
the reference for the error TF32 makes (PyTorch allows TF32 in cuDNN's
convolutions by default). With RESNET_TIME=1 each run is also timed: 40 forwards and a 2-second
pause (under the shim's dispatch its decisions are made in the background and
checked on these calls), 20 more, then the median of 11 timed batches of 5
forwards (CUDA events), in milliseconds per forward, as "ms".

With RESNET_AB=N (the shim preloaded) each run is instead compared with and
without the shim in this one process: settled as above under the shim, then N
rounds that each time a batch of 5 forwards with the shim switched to a pure
pass-through (isaac_passthrough(1): cuDNN called as without it) and a batch
with it on, in turn (the order alternating from round to round), each after 2
untimed forwards of its own, as "ab": both lists of milliseconds per forward.
The noise from process to process (gputest/results/h200/conv/call128/resnet/
repeat.txt) then does not enter the comparison.

With RESNET_API=graph the forwards take PyTorch's default path instead,
cuDNN's graph API (cudnnBackendExecute), which the shim serves too.

usage: TORCH_CUDNN_V8_API_DISABLED=1 python3 resnet.py out.json
       RESNET_API=graph python3 resnet.py out.json"""
import ctypes
import hashlib
import json
import os
import statistics
import sys
import time

import torch
from torch import nn

if os.environ.get("RESNET_API") == "graph":
    assert os.environ.get("TORCH_CUDNN_V8_API_DISABLED") != "1", "RESNET_API=graph: PyTorch's default path, without TORCH_CUDNN_V8_API_DISABLED"
else:
    assert os.environ.get("TORCH_CUDNN_V8_API_DISABLED") == "1", "set TORCH_CUDNN_V8_API_DISABLED=1 (the legacy cuDNN API), or RESNET_API=graph"


class Basic(nn.Module):
    expansion = 1

    def __init__(self, cin, c, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, c, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(c)
        self.down = None
        if stride != 1 or cin != c:
            self.down = nn.Sequential(nn.Conv2d(cin, c, 1, stride, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, c, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, c, 1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, stride, 1, bias=False)
        self.b2 = nn.BatchNorm2d(c)
        self.c3 = nn.Conv2d(c, 4 * c, 1, bias=False)
        self.b3 = nn.BatchNorm2d(4 * c)
        self.down = None
        if stride != 1 or cin != 4 * c:
            self.down = nn.Sequential(nn.Conv2d(cin, 4 * c, 1, stride, bias=False), nn.BatchNorm2d(4 * c))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = torch.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, block, layers):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        stages, cin = [], 64
        for i, n in enumerate(layers):
            c = 64 << i
            for j in range(n):
                stages.append(block(cin, c, 2 if j == 0 and i > 0 else 1))
                cin = c * block.expansion
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, 1000)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def settle(m, x):
    """40 forwards of m on x, a 2-second pause (under the shim's dispatch its
    decisions are made in the background and checked on these calls), 20 more."""
    with torch.no_grad():
        for _ in range(40):
            m(x)
        torch.cuda.synchronize()
        time.sleep(2)
        for _ in range(20):
            m(x)


def forward_ms(m, x):
    """The median time of one forward of m on x, in milliseconds (RESNET_TIME)."""
    settle(m, x)
    with torch.no_grad():
        return statistics.median(batch_ms(m, x) for _ in range(11))


def batch_ms(m, x):
    """Milliseconds per forward of a batch of 5 forwards of m on x (CUDA events)."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(5):
        m(x)
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / 5


def ab_ms(m, x, rounds):
    """RESNET_AB: per forward of m on x, the milliseconds of `rounds` batches
    of 5 with the shim passing every call through and as many with it on."""
    switch = ctypes.CDLL(None).isaac_passthrough  # the preloaded shim's
    switch.argtypes, switch.restype = [ctypes.c_int], ctypes.c_int
    settle(m, x)
    out = {"plain": [], "isaac": []}
    with torch.no_grad():
        for r in range(rounds):
            for mode in (("plain", "isaac") if r % 2 == 0 else ("isaac", "plain")):
                switch(1 if mode == "plain" else 0)
                for _ in range(2):
                    m(x)
                out[mode].append(batch_ms(m, x))
    switch(0)
    return out


def main():
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.benchmark = False
    if os.environ.get("RESNET_TF32") == "0":  # FP32 convolutions in FP32 (FMA math): the reference for TF32's error
        torch.backends.cudnn.allow_tf32 = False
    out = {}
    for name, block, layers in (("resnet18", Basic, [2, 2, 2, 2]), ("resnet50", Bottleneck, [3, 4, 6, 3])):
        torch.manual_seed(1)
        net = ResNet(block, layers).cuda().eval()
        for dt in (torch.float32, torch.float16):
            for fmt in ("nchw", "channels_last"):
                for n in (1, 32):
                    m = net.to(dt)
                    x = torch.randn(n, 3, 224, 224, generator=torch.Generator().manual_seed(n), dtype=torch.float32)
                    x = x.to(dt).cuda()
                    if fmt == "channels_last":
                        m, x = m.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last)
                    with torch.no_grad():
                        y = m(x).double().cpu()
                    key = f"{name}/{str(dt)[6:]}/{fmt}/n{n}"
                    out[key] = {"digest": hashlib.sha256(y.numpy().tobytes()).hexdigest()[:16],
                                "y": y.flatten()[:2000].tolist()}
                    if int(os.environ.get("RESNET_AB", "0")) > 0:
                        out[key]["ab"] = ab_ms(m, x, int(os.environ["RESNET_AB"]))
                    elif os.environ.get("RESNET_TIME") == "1":
                        out[key]["ms"] = forward_ms(m, x)
                        with torch.no_grad():  # the result again, once any dispatch has settled
                            out[key]["y_after"] = m(x).double().cpu().flatten()[:2000].tolist()
                    m.to(memory_format=torch.contiguous_format)
    torch.cuda.synchronize()
    json.dump(out, open(sys.argv[1], "w"))
    print(f"{len(out)} results written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
