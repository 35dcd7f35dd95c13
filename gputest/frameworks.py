"""Runs fixed-seed GEMMs through PyTorch (torch.mm) and CuPy (a @ b) and
prints one JSON object: a SHA-256 of each result's bytes. gputest/run.sh runs
it with and without LD_PRELOAD=libisaac.so and compares: bit-identical results
mean the shim changed nothing it did not serve."""
import hashlib
import json
import sys

import cupy
import numpy as np
import torch

SHAPES = [(128, 64, 96), (1000, 999, 37), (1, 512, 256), (257, 1, 1024), (64, 64, 64), (513, 257, 129)]


def digest(array_bytes):
    return hashlib.sha256(array_bytes).hexdigest()[:16]


def torch_cases(out):
    gen = torch.Generator(device="cuda").manual_seed(1234)
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        for m, n, k in SHAPES:
            for layout in ("NN", "TN", "NT"):
                a = torch.randn(m, k, generator=gen, device="cuda").to(dt)
                b = torch.randn(k, n, generator=gen, device="cuda").to(dt)
                if layout[0] == "T":
                    a = a.t().contiguous().t()
                if layout[1] == "T":
                    b = b.t().contiguous().t()
                c = torch.mm(a, b)
                raw = c.view(torch.int16) if dt == torch.bfloat16 else c
                out[f"torch/{str(dt)[6:]}/{m}x{n}x{k}/{layout}"] = digest(raw.cpu().numpy().tobytes())
    torch.cuda.synchronize()


def cupy_cases(out):
    rng = np.random.default_rng(99)
    for dt in (np.float32, np.float16, np.float64):
        for m, n, k in SHAPES:
            a = cupy.asarray(rng.standard_normal((m, k)).astype(dt))
            b = cupy.asarray(rng.standard_normal((k, n)).astype(dt))
            c = a @ b
            out[f"cupy/{np.dtype(dt).name}/{m}x{n}x{k}"] = digest(cupy.asnumpy(c).tobytes())
    cupy.cuda.Device().synchronize()


def main():
    out = {}
    torch_cases(out)
    cupy_cases(out)
    json.dump(out, open(sys.argv[1], "w"), indent=0, sort_keys=True)
    print(f"{len(out)} results written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
