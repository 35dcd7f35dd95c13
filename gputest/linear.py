"""Runs fixed-seed linear layers through PyTorch and saves their outputs (an
.npz), or compares two such files.

    python3 gputest/linear.py run OUT.npz
    python3 gputest/linear.py compare PLAIN.npz OTHER.npz [identical]

The layers, in float32, float16 and bfloat16: F.linear(x, W, b), nn.Linear
with and without a bias, for tokens x in -> out of 1x4096->4096,
8x4096->11008, 16x4096->14336, 64x768->3072, 512x1024->4096 and
4096x4096->4096 (float32's largest with 1024 tokens), and 3-d inputs
(4x128x768 -> 768); torch.addmm(b, x, W.t()); F.gelu(F.linear(...),
approximate="tanh"); and torch._addmm_activation (bias and GELU or ReLU
fused). A linear layer with a bias and more than one token reaches
cublasLtMatmul with the BIAS epilogue (_addmm_activation GELU_BIAS or
RELU_BIAS), one without a bias cublasGemmEx or cublasSgemm.

Outputs are saved in their own type (bfloat16 as its bits, int16: numpy has
no bfloat16). compare checks every array of OTHER against PLAIN's (the run
without the shim): bit-identical with "identical" (the shim forwarding every
call, ISAAC_DISABLE=1), else a normwise relative error max|a - b| / max|b|
within the type's tolerance (networks.py's TOL: the shim serving calls with
kernels that round differently from cuBLAS's)."""
import sys

import numpy as np
import torch
import torch.nn.functional as F

import networks

# (tokens, in, out)
SHAPES = [(1, 4096, 4096), (8, 4096, 11008), (16, 4096, 14336), (64, 768, 3072), (512, 1024, 4096),
          (4096, 4096, 4096)]
FP32_MAX_TOKENS = 1024  # float32's 4096-token layer runs with 1024: fast on the FP32 paths as well
FUSED = {(8, 4096, 11008), (64, 768, 3072), (512, 1024, 4096)}  # addmm, GELU and _addmm_activation cases


def save(out, key, t):
    t = t.detach().contiguous()
    out[key] = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).cpu().numpy()


def values(key, a):
    """A saved array's values as float32 (bfloat16 from its bits; every type here is exact in
    float32, and float32's rounding of the difference is far below every tolerance)."""
    if key.split("/")[1] == "bfloat16":
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def layers(dt, out):
    name = str(dt)[6:]
    gen = torch.Generator(device="cuda").manual_seed(31)

    def randn(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, device="cuda") * scale).to(dt)

    for tokens, fin, fout in SHAPES:
        if dt == torch.float32:
            tokens = min(tokens, FP32_MAX_TOKENS)
        key = f"linear/{name}/{tokens}x{fin}to{fout}"
        x = randn(tokens, fin)
        w = randn(fout, fin, scale=fin ** -0.5)
        b = randn(fout)
        save(out, f"{key}/F.linear", F.linear(x, w, b))
        torch.manual_seed(fout + fin)
        with_bias = torch.nn.Linear(fin, fout, bias=True, device="cuda", dtype=dt)
        save(out, f"{key}/nn.Linear", with_bias(x))
        del with_bias
        without = torch.nn.Linear(fin, fout, bias=False, device="cuda", dtype=dt)
        save(out, f"{key}/nn.Linear-nobias", without(x))
        del without
        if (tokens, fin, fout) in FUSED:
            save(out, f"{key}/addmm", torch.addmm(b, x, w.t()))
            save(out, f"{key}/gelu", F.gelu(F.linear(x, w, b), approximate="tanh"))
            if hasattr(torch, "_addmm_activation"):
                save(out, f"{key}/addmm_gelu", torch._addmm_activation(b, x, w.t(), use_gelu=True))
                save(out, f"{key}/addmm_relu", torch._addmm_activation(b, x, w.t(), use_gelu=False))
        del x, w, b
    # 3-d inputs: batch 4, sequence 128, 768 -> 768.
    key = f"linear/{name}/4x128x768to768"
    x = randn(4, 128, 768)
    w = randn(768, 768, scale=768 ** -0.5)
    b = randn(768)
    save(out, f"{key}/F.linear", F.linear(x, w, b))
    save(out, f"{key}/gelu", F.gelu(F.linear(x, w, b), approximate="tanh"))
    torch.manual_seed(7)
    layer = torch.nn.Linear(768, 768, bias=True, device="cuda", dtype=dt)
    save(out, f"{key}/nn.Linear", layer(x))
    layer = torch.nn.Linear(768, 768, bias=False, device="cuda", dtype=dt)
    save(out, f"{key}/nn.Linear-nobias", layer(x))


def run(path):
    out = {}
    with torch.no_grad():
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            layers(dt, out)
            torch.cuda.empty_cache()
    torch.cuda.synchronize()
    np.savez(path, **out)
    print(f"{len(out)} arrays written to {path}")


def compare(plain_path, other_path, identical):
    return networks.compare(plain_path, other_path, identical, values)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "identical"))
    else:
        sys.exit(__doc__)
