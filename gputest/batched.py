"""Runs fixed-seed batched GEMMs through PyTorch (torch.bmm, torch.baddbmm,
torch.matmul on 3-d tensors, an attention's QK^T and PV products) and CuPy
(matmul of 3-d arrays), which call cuBLAS's strided-batched routines, and
writes one JSON object as gputest/frameworks.py does: for each result a
SHA-256 of its bytes and its normwise error against a float64 reference.

gputest/batched.sh runs it without the shim, with ISAAC_DISABLE=1 (results
bit-identical) and with the shim serving (ISAAC_POLICY=always, and the
default policy twice with one cache): within tolerance of the vendor's path
(gputest/compare_frameworks.py), ISAAC_LOG counting served strided-batched
calls."""
import cupy
import numpy as np
import torch

from frameworks import main as write_results
from frameworks import record

# (batch, m, n, k): attention-like products, odd sizes, a batch of one.
SHAPES = [(32, 128, 128, 64), (64, 256, 64, 256), (7, 100, 37, 53), (1, 64, 64, 64), (512, 16, 16, 16),
          (3, 1000, 1, 257), (96, 128, 128, 128)]


def host(t):
    return t.float().cpu().numpy() if t.dtype == torch.bfloat16 else t.cpu().numpy()


def torch_cases(out):
    gen = torch.Generator(device="cuda").manual_seed(4321)
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        name = str(dt)[6:]
        for b, m, n, k in SHAPES:
            a = torch.randn(b, m, k, generator=gen, device="cuda").to(dt)
            w = torch.randn(b, k, n, generator=gen, device="cuda").to(dt)
            c0 = torch.randn(b, m, n, generator=gen, device="cuda").to(dt)
            record(out, f"torch/{name}/bmm/{b}x{m}x{n}x{k}", host(torch.bmm(a, w)),
                   torch.bmm(a.cpu().double(), w.cpu().double()).numpy())
            record(out, f"torch/{name}/bmm_t/{b}x{m}x{n}x{k}", host(torch.bmm(a, w.transpose(1, 2).contiguous().transpose(1, 2))),
                   torch.bmm(a.cpu().double(), w.cpu().double()).numpy())
            record(out, f"torch/{name}/baddbmm/{b}x{m}x{n}x{k}", host(torch.baddbmm(c0, a, w, beta=0.5, alpha=1.5)),
                   torch.baddbmm(c0.cpu().double(), a.cpu().double(), w.cpu().double(), beta=0.5, alpha=1.5).numpy())
            record(out, f"torch/{name}/matmul/{b}x{m}x{n}x{k}", host(torch.matmul(a, w)),
                   torch.matmul(a.cpu().double(), w.cpu().double()).numpy())
        # attention's math path: scores = Q K^T, out = softmax(scores) V, batch x heads folded
        q = torch.randn(4, 8, 128, 64, generator=gen, device="cuda").to(dt)
        kk = torch.randn(4, 8, 128, 64, generator=gen, device="cuda").to(dt)
        v = torch.randn(4, 8, 128, 64, generator=gen, device="cuda").to(dt)
        s = torch.matmul(q, kk.transpose(-1, -2))
        record(out, f"torch/{name}/attn_qk", host(s), torch.matmul(q.cpu().double(), kk.cpu().double().transpose(-1, -2)).numpy())
        p = torch.softmax(s.float(), dim=-1).to(dt)
        record(out, f"torch/{name}/attn_pv", host(torch.matmul(p, v)), torch.matmul(p.cpu().double(), v.cpu().double()).numpy())
    torch.cuda.synchronize()


def cupy_cases(out):
    rng = np.random.default_rng(77)
    for dt in (np.float32, np.float16, np.float64):
        for b, m, n, k in SHAPES:
            a = rng.standard_normal((b, m, k)).astype(dt)
            w = rng.standard_normal((b, k, n)).astype(dt)
            c = cupy.asnumpy(cupy.matmul(cupy.asarray(a), cupy.asarray(w)))
            record(out, f"cupy/{np.dtype(dt).name}/matmul/{b}x{m}x{n}x{k}", c,
                   np.matmul(a.astype(np.float64), w.astype(np.float64)))
    cupy.cuda.Device().synchronize()


if __name__ == "__main__":
    write_results((torch_cases, cupy_cases))
