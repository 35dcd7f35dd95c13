"""Runs fixed-seed network steps through PyTorch and saves their results
(an .npz of float64 arrays), or compares two such files.

    python3 gputest/networks.py run OUT.npz
    python3 gputest/networks.py compare PLAIN.npz OTHER.npz [identical]

The steps (issue 25): a transformer encoder block (attention on PyTorch's
math path, so its products are batched GEMMs) forward and backward, and
three SGD steps of an MLP, in float32, float16 and bfloat16. nn.Linear
with a bias reaches cublasLtMatmul, bmm and matmul of 3-d tensors the
strided-batched routines, the backward passes the plain GEMMs.

compare checks every array of OTHER against PLAIN's: bit-identical with
"identical" (the shim passing every call through), else a normwise
relative error max|a - b| / max|b| within the type's tolerance (the shim
serving its calls, rounding differently from cuBLAS's kernels) or, where
that difference is larger, an error against the float64 reference no more
than twice the plain run's. The reference is each step run again in
float64 on the host, from the same rounded weights and inputs (never
through the GPU, where its products would go through the shim too): two
runs' rounding differences grow through a backward pass, and the
reference tells a kernel less accurate than cuBLAS's from one that rounds
otherwise."""
import copy
import sys

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

TOL = {"float32": 1e-4, "float16": 2e-2, "bfloat16": 6e-2}


def encoder(dt, out):
    torch.manual_seed(11)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, dropout=0.0,
                                             batch_first=True, device="cuda", dtype=dt)
    layer.train()
    x = torch.randn(4, 128, 256, device="cuda", dtype=dt, requires_grad=True)
    # A fixed random projection of y as the loss: the layer ends in a LayerNorm (weight 1,
    # bias 0 at initialisation) whose rows' mean square is 1 whatever its input, so a loss
    # like y.square().mean() has a gradient of rounding noise only before the norm.
    probe = torch.randn(4, 128, 256, device="cuda", dtype=torch.float32)
    ref_layer = copy.deepcopy(layer).to("cpu", torch.float64)
    ref_x = x.detach().cpu().double().requires_grad_()
    name = str(dt)[6:]
    for lay, inp, pr, prefix in ((layer, x, probe.float(), ""), (ref_layer, ref_x, probe.cpu().double(), "ref/")):
        with sdpa_kernel(SDPBackend.MATH):
            y = lay(inp)
            (y.to(pr.dtype) * pr).sum().backward()
        out[f"{prefix}encoder/{name}/y"] = y.detach()
        out[f"{prefix}encoder/{name}/dx"] = inp.grad
        for pname, p in lay.named_parameters():
            out[f"{prefix}encoder/{name}/grad/{pname}"] = p.grad


def mlp(dt, out):
    torch.manual_seed(12)
    net = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 512)).to("cuda", dt)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    x = torch.randn(64, 512, device="cuda", dtype=dt)
    target = torch.randn(64, 512, device="cuda", dtype=dt)
    name = str(dt)[6:]
    ref_net = copy.deepcopy(net).to("cpu", torch.float64)
    runs = ((net, opt, x, target, torch.float32, ""),
            (ref_net, torch.optim.SGD(ref_net.parameters(), lr=0.05), x.cpu().double(), target.cpu().double(),
             torch.float64, "ref/"))
    for model, sgd, xi, ti, acc, prefix in runs:
        for step in range(3):
            sgd.zero_grad()
            loss = (model(xi).to(acc) - ti.to(acc)).square().mean()
            loss.backward()
            sgd.step()
            out[f"{prefix}mlp/{name}/loss{step}"] = loss.detach().reshape(1)
        for pname, p in model.named_parameters():
            out[f"{prefix}mlp/{name}/param/{pname}"] = p.detach()


def run(path):
    out = {}
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        encoder(dt, out)
        mlp(dt, out)
    torch.cuda.synchronize()
    np.savez(path, **{k: v.double().cpu().numpy() for k, v in out.items()})
    print(f"{len(out)} arrays written to {path}")


def compare(plain_path, other_path, identical, values=lambda key, a: a):
    """Checks every array of OTHER against PLAIN's (see the module's text); values(key, a) is a
    saved array's values (linear.py saves bfloat16 as its bits)."""
    plain, other = np.load(plain_path), np.load(other_path)
    bad, worst, accurate = [], {}, []
    keys = sorted(k for k in set(plain.files) | set(other.files) if not k.startswith("ref/"))
    for key in keys:
        if key not in plain.files or key not in other.files:
            bad.append(f"{key}: in one run only")
            continue
        a, b = other[key], plain[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            bad.append(f"{key}: {a.dtype}{a.shape} vs plain {b.dtype}{b.shape}")
            continue
        dtype = key.split("/")[1]
        if identical:
            if a.tobytes() != b.tobytes():
                bad.append(f"{key}: not bit-identical")
            continue
        va, vb = values(key, a), values(key, b)
        err = float(np.max(np.abs(va - vb)) / max(float(np.max(np.abs(vb))), 1e-30))
        if not err <= worst.get(dtype, (-1.0, ""))[0]:
            worst[dtype] = (err, key)
        if err <= TOL[dtype]:
            continue
        ref = "ref/" + key
        if ref in plain.files:
            # as accurate as the plain run: against the float64 reference, at most twice its error
            vr = values(key, plain[ref])
            scale = max(float(np.max(np.abs(vr))), 1e-30)
            e_other, e_plain = float(np.max(np.abs(va - vr))) / scale, float(np.max(np.abs(vb - vr))) / scale
            if e_other <= 2 * e_plain:  # NaN fails
                accurate.append(f"{key}: {err:.3g} from the plain run; against float64 {e_other:.3g}, plain {e_plain:.3g}")
                continue
            bad.append(f"{key}: error {err:.3g} > {TOL[dtype]:.3g}; against float64 {e_other:.3g}, plain {e_plain:.3g}")
            continue
        bad.append(f"{key}: error {err:.3g} > {TOL[dtype]:.3g}")  # NaN fails
    kind = "bit-identical" if identical else "within tolerance or as accurate"
    print(f"{other_path.split('/')[-1]}: {len(keys) - len(bad)}/{len(keys)} arrays {kind}")
    for dtype, (err, key) in sorted(worst.items()):
        print(f"  worst {dtype}: {err:.3g} ({key})")
    for a in accurate:
        print("  beyond tolerance, as accurate as the plain run:", a)
    for b in bad:
        print("  OUT OF TOLERANCE" if not identical else "  DIFFERENT", b)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "identical"))
