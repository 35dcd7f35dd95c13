"""Where a ResNet forward's time goes, with and without the shim: ResNet-18 and
ResNet-50 (resnet.py's networks and weights) at batch 1 in FP32 (TF32 allowed,
PyTorch's default), NCHW and channels_last. For each: the forward's GPU span
(CUDA events around 5 forwards, median of 11), its host time (the Python call
of 5 forwards returning, without a synchronization: what the host spends to
enqueue them), then torch.profiler over 5 forwards: the operators' CPU time and
the GPU kernels each forward ran (names, counts, time). Run as resnet.py is:
40 forwards and a 2-second pause first (under the shim's dispatch its
decisions are made in the background and checked on these calls), 20 more.

usage: TORCH_CUDNN_V8_API_DISABLED=1 python3 resnet_profile.py"""
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

from resnet import Basic, Bottleneck, ResNet, settle


def spans(m, x):
    """GPU and host milliseconds per forward (medians of 11 batches of 5)."""
    gpu, host = [], []
    for _ in range(11):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        a.record()
        for _ in range(5):
            m(x)
        b.record()
        host.append((time.perf_counter() - t0) * 1e3 / 5)
        b.synchronize()
        gpu.append(a.elapsed_time(b) / 5)
    return statistics.median(gpu), statistics.median(host)


def main():
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.benchmark = False
    for name, block, layers in (("resnet18", Basic, [2, 2, 2, 2]), ("resnet50", Bottleneck, [3, 4, 6, 3])):
        torch.manual_seed(1)
        net = ResNet(block, layers).cuda().eval()
        for fmt in ("nchw", "channels_last"):
            m = net
            x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1)).cuda()
            if fmt == "channels_last":
                m, x = m.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last)
            settle(m, x)
            with torch.no_grad():
                gpu, host = spans(m, x)
                print(f"== {name}/float32/{fmt}/n1: GPU span {gpu:.3f} ms, host enqueue {host:.3f} ms a forward")
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                    for _ in range(5):
                        m(x)
                    torch.cuda.synchronize()
                print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12, max_name_column_width=60))
                try:
                    print(prof.key_averages().table(sort_by="self_device_time_total", row_limit=12, max_name_column_width=60))
                except (KeyError, AttributeError, ValueError):
                    print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=12, max_name_column_width=60))
            m.to(memory_format=torch.contiguous_format)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
