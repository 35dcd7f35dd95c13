"""Runs fixed-seed GEMMs through PyTorch (torch.mm) and CuPy (a @ b) and
writes one JSON object: for each result a SHA-256 of its bytes and its
normwise error against a float64 reference, max|c - ref| / max|ref|.

gputest/run.sh runs it without the shim, with LD_PRELOAD=libisaac.so and
ISAAC_DISABLE=1 (pass-through: results must be bit-identical), and with the
shim serving (results must be within tolerance of the vendor path)."""
import hashlib
import json
import sys

import cupy
import numpy as np
import torch

SHAPES = [(128, 64, 96), (1000, 999, 37), (1, 512, 256), (257, 1, 1024), (64, 64, 64), (513, 257, 129),
          (32, 32, 60000), (2048, 16, 1024)]


def record(out, key, c, ref):
    c64 = c.astype(np.float64)
    err = float(np.max(np.abs(c64 - ref)) / max(np.max(np.abs(ref)), 1e-300))
    out[key] = {"digest": hashlib.sha256(c.tobytes()).hexdigest()[:16], "err": err}


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
                # the reference on the host: through the GPU, a float64 product would go
                # through the shim too (a wrong FP64 kernel made every type's look wrong)
                ref = torch.mm(a.cpu().double(), b.cpu().double()).numpy()
                host = c.float().cpu().numpy() if dt == torch.bfloat16 else c.cpu().numpy()
                record(out, f"torch/{str(dt)[6:]}/{m}x{n}x{k}/{layout}", host, ref)
    torch.cuda.synchronize()


def cupy_cases(out):
    rng = np.random.default_rng(99)
    for dt in (np.float32, np.float16, np.float64):
        for m, n, k in SHAPES:
            a = rng.standard_normal((m, k)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            c = cupy.asnumpy(cupy.asarray(a) @ cupy.asarray(b))
            record(out, f"cupy/{np.dtype(dt).name}/{m}x{n}x{k}", c, a.astype(np.float64) @ b.astype(np.float64))
    cupy.cuda.Device().synchronize()


def main(cases=(torch_cases, cupy_cases)):
    """Runs the case functions and writes their results to argv[1]."""
    out = {}
    for run in cases:
        run(out)
    json.dump(out, open(sys.argv[1], "w"), indent=0, sort_keys=True)
    print(f"{len(out)} results written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
