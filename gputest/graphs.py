"""graphs.py OUT.json: GEMMs inside CUDA graphs through PyTorch. Captures a @ b
(and addmm, matmul + relu, a sequence of mixed GEMMs) with torch.cuda.graph for
every GEMM type PyTorch sends to cuBLAS (float32 with and without TF32,
float64, float16, bfloat16), shapes and layouts NN/TN/NT, replays each graph on
fresh inputs and compares with a float64 CPU reference; then runs a small MLP
through torch.compile(mode="reduce-overhead") (inductor's CUDA graph trees),
inference in float32 and bfloat16 and a float32 training step. Writes every
result (normwise error max|out - ref| / max|ref|, tolerance, pass) and the
environment to OUT.json; exits 1 if any case failed or raised.

gputest/capture.sh runs it without the shim, with LD_PRELOAD=libisaac.so (the
default policy) and with ISAAC_POLICY=always: every run must pass, since a
GEMM captured into a graph must be served or forwarded without breaking the
capture and must compute on the inputs present at replay. Most cases warm up
before the capture, as the CUDA graphs docs recommend; one per type captures
a shape the process has never run (the shim's first call of it)."""
import copy
import json
import math
import os
import sys
import warnings
import zlib

import torch
from torch import nn

SHAPES = [(64, 64, 64), (333, 257, 129), (2560, 16, 2560), (33, 17, 4099), (1024, 1024, 1024), (128, 4096, 64)]
LAYOUTS = ("NN", "TN", "NT")
# name, dtype, TF32 allowed, tolerance on the normwise error
GEMM_TYPES = [("float32", torch.float32, False, 1e-5), ("tf32", torch.float32, True, 2e-3),
              ("float64", torch.float64, False, 1e-12), ("float16", torch.float16, False, 5e-3),
              ("bfloat16", torch.bfloat16, False, 3e-2)]
DTYPE = {name: dt for name, dt, _, _ in GEMM_TYPES}
TOL = {name: tol for name, _, _, tol in GEMM_TYPES}
MODE_SHAPE = (333, 257, 129)  # the shape captured with thread_local and relaxed too
COLD_SHAPES = {"float32": (347, 263, 131), "tf32": (349, 269, 137), "float64": (353, 271, 139),
               "float16": (359, 277, 149), "bfloat16": (367, 281, 151)}  # captured without a warm-up
MULTI = [("float32", (333, 257, 129), "NN"), ("float16", (1024, 1024, 1024), "TN"), ("bfloat16", (2560, 16, 2560), "NT"),
         ("float64", (64, 64, 64), "NN"), ("float32", (33, 17, 4099), "TN"), ("bfloat16", (128, 4096, 64), "NT")]
REPLAYS = 2
CALLS = 6  # compiled calls: cudagraph trees warm up on the first, record on the second, replay after
STEPS = 5
results = []


def text(e):
    parts = []
    while e is not None and len(parts) < 3:
        parts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    return " <- ".join(parts)[:4000]


def record(name, err, tol, error=None):
    ok = error is None and err <= tol  # NaN compares false
    r = {"name": name, "err": err if err is None or math.isfinite(err) else str(err), "tol": tol, "ok": ok}
    if error is not None:
        r["error"] = error
    results.append(r)
    if not ok:
        print(f"  FAIL {name}: {error if error is not None else f'err {err:.3g} > tol {tol:.3g}'}")


def normwise(out, ref):
    diff = (out.detach().cpu().double() - ref).abs().max().item()  # NaN propagates
    return diff / max(ref.abs().max().item(), 1e-30)


def seed(name):
    torch.manual_seed(zlib.crc32(name.encode()))


def operand(rows, cols, dt, trans):
    """A GPU matrix; with trans a transposed view of a contiguous one, so cuBLAS gets op T."""
    if trans:
        return torch.empty(cols, rows, dtype=dt, device="cuda").t()
    return torch.empty(rows, cols, dtype=dt, device="cuda")


def fill(statics):
    """Copies fresh random data into the static inputs; returns it on the CPU."""
    host = [torch.randn(s.shape, dtype=torch.float64).to(s.dtype) for s in statics]
    for s, h in zip(statics, host):
        s.copy_(h)
    return host


def capture(fn, statics, mode, warm=True):
    """Warms fn up on a side stream as the CUDA graphs docs recommend (unless warm is
    False), then captures it."""
    if warm:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn(*statics)
        torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, capture_error_mode=mode):
        outs = fn(*statics)
    return g, outs


def graph_case(names, tols, make, fn, ref, mode="global", warm=True):
    """Captures fn(*statics) (a list of outputs) on the static inputs make() returns,
    replays it REPLAYS times on fresh inputs and records each output's worst error
    against ref(*the same inputs on the CPU)."""
    seed(names[0])
    try:
        statics = make()
        fill(statics)
        g, outs = capture(fn, statics, mode, warm)
        errs = [[] for _ in names]
        for _ in range(REPLAYS):
            host = fill(statics)
            g.replay()
            torch.cuda.synchronize()
            for e, out, r in zip(errs, outs, ref(*host)):
                e.append(normwise(out, r))
        for name, tol, e in zip(names, tols, errs):
            record(name, math.nan if any(math.isnan(x) for x in e) else max(e), tol)
    except Exception as ex:
        for name, tol in zip(names, tols):
            record(name, None, tol, text(ex))
        try:
            torch.cuda.synchronize()
        except Exception:
            pass


def mm_operands(dt, shape, layout):
    m, n, k = shape
    return [operand(m, k, dt, layout[0] == "T"), operand(k, n, dt, layout[1] == "T")]


def gemm_type_cases(label, dt, tol):
    for m, n, k in SHAPES:
        for layout in LAYOUTS:
            graph_case([f"graph/{label}/{m}x{n}x{k}/{layout}/global"], [tol],
                       lambda: mm_operands(dt, (m, n, k), layout),
                       lambda a, b: [a @ b], lambda a, b: [a.double() @ b.double()])
    m, n, k = MODE_SHAPE
    for mode in ("thread_local", "relaxed"):
        graph_case([f"graph/{label}/{m}x{n}x{k}/NN/{mode}"], [tol], lambda: mm_operands(dt, MODE_SHAPE, "NN"),
                   lambda a, b: [a @ b], lambda a, b: [a.double() @ b.double()], mode)
    graph_case([f"graph/{label}/addmm/{m}x{n}x{k}/TN"], [tol],
               lambda: [operand(m, n, dt, False)] + mm_operands(dt, MODE_SHAPE, "TN"),
               lambda c, a, b: [torch.addmm(c, a, b, beta=0.5, alpha=1.25)],
               lambda c, a, b: [0.5 * c.double() + 1.25 * (a.double() @ b.double())])
    m, n, k = 128, 4096, 64
    graph_case([f"graph/{label}/relu/{m}x{n}x{k}/NT"], [tol], lambda: mm_operands(dt, (m, n, k), "NT"),
               lambda a, b: [torch.relu(a @ b)], lambda a, b: [torch.relu(a.double() @ b.double())])
    m, n, k = COLD_SHAPES[label]
    graph_case([f"graph/{label}/cold/{m}x{n}x{k}/NN"], [tol], lambda: mm_operands(dt, (m, n, k), "NN"),
               lambda a, b: [a @ b], lambda a, b: [a.double() @ b.double()], warm=False)


def multi_case():
    """One graph: the MULTI GEMMs in sequence, then the first one's output times one more matrix."""
    names = [f"graph/multi/{i}/{label}/{m}x{n}x{k}/{layout}" for i, (label, (m, n, k), layout) in enumerate(MULTI)]
    names.append(f"graph/multi/{len(MULTI)}/float32/chain")
    tols = [TOL[label] for label, _, _ in MULTI] + [TOL["float32"]]

    def make():
        statics = [x for label, shape, layout in MULTI for x in mm_operands(DTYPE[label], shape, layout)]
        return statics + [operand(MULTI[0][1][1], 96, torch.float32, False)]

    def fn(*t):
        outs = [torch.mm(t[i], t[i + 1]) for i in range(0, len(t) - 1, 2)]
        return outs + [outs[0] @ t[-1]]

    def ref(*t):
        outs = [t[i].double() @ t[i + 1].double() for i in range(0, len(t) - 1, 2)]
        return outs + [outs[0] @ t[-1].double()]

    graph_case(names, tols, make, fn, ref)


def graph_cases():
    prev = torch.backends.cuda.matmul.allow_tf32
    try:
        for label, dt, tf32, tol in GEMM_TYPES:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            gemm_type_cases(label, dt, tol)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    multi_case()


def mlp():
    return nn.Sequential(nn.Linear(256, 512, bias=False), nn.GELU(), nn.Linear(512, 512, bias=False), nn.ReLU(),
                         nn.Linear(512, 128, bias=True))


def cudagraph_skips():
    from torch._dynamo.utils import counters
    return counters["inductor"]["cudagraph_skips"]


def record_skips(prefix, skips):
    """Inductor falls back to no CUDA graph silently; a skip means the case tested nothing."""
    record(f"{prefix}/cudagraphs", float(skips), 0.0,
           None if skips == 0 else f"inductor skipped CUDA graphs {skips} times (see its warnings)")


def compiled_inference(label, dt, tol):
    prefix = f"compile/mlp/{label}"
    seed(prefix)
    try:
        model = mlp().to("cuda", dt)
        ref_model = copy.deepcopy(model).cpu().double()
        skips = cudagraph_skips()
        fast = torch.compile(model, mode="reduce-overhead")
        with torch.no_grad():
            for i in range(CALLS):
                x = torch.randn(64, 256, dtype=torch.float64).to(dt)
                torch.compiler.cudagraph_mark_step_begin()
                out = fast(x.cuda())
                record(f"{prefix}/call{i}", normwise(out, ref_model(x.double())), tol)
        record_skips(prefix, cudagraph_skips() - skips)
    except Exception as e:
        record(f"{prefix}/compile", None, tol, text(e))


def train_step(model, x):
    loss = model(x).pow(2).sum()
    loss.backward()
    return loss.detach()


def compiled_training(tol=1e-4):
    """Forward, loss and backward compiled; compares the first Linear's weight gradient
    (weights never stepped) with the same step in float64 on the CPU."""
    prefix = "compile/train/float32"
    seed(prefix)
    try:
        model = mlp().cuda()
        ref_model = copy.deepcopy(model).cpu().double()
        skips = cudagraph_skips()
        step = torch.compile(train_step, mode="reduce-overhead")
        for i in range(STEPS):
            x = torch.randn(64, 256, dtype=torch.float64)
            model.zero_grad(set_to_none=True)
            torch.compiler.cudagraph_mark_step_begin()
            step(model, x.float().cuda())
            got = model[0].weight.grad.detach().cpu()
            ref_model.zero_grad(set_to_none=True)
            train_step(ref_model, x.float().double())
            record(f"{prefix}/step{i}", normwise(got, ref_model[0].weight.grad), tol)
        record_skips(prefix, cudagraph_skips() - skips)
    except Exception as e:
        record(f"{prefix}/compile", None, tol, text(e))


def group(name):
    parts = name.split("/")
    return "/".join(parts[:3] if parts[0] == "compile" else parts[:2])


def summarize():
    groups = {}
    for r in results:
        groups.setdefault(group(r["name"]), []).append(r)
    for g, rs in groups.items():
        errs = [r for r in rs if isinstance(r["err"], float) and r["tol"] > 0]
        worst = max(errs, key=lambda r: r["err"] / r["tol"], default=None)
        tail = f", worst {worst['err']:.3g} (tol {worst['tol']:.3g}, {worst['name']})" if worst else ""
        print(f"{g}: {sum(r['ok'] for r in rs)}/{len(rs)} within tolerance{tail}")


def main():
    warnings.filterwarnings("ignore", message="Please use the new API settings to control TF32")
    warnings.filterwarnings("ignore", message="TensorFloat32 tensor cores for float32 matrix multiplication")
    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(),
           "ld_preload": os.environ.get("LD_PRELOAD", ""), "isaac_policy": os.environ.get("ISAAC_POLICY", "")}
    graph_cases()
    compiled_inference("float32", torch.float32, 1e-4)
    compiled_inference("bfloat16", torch.bfloat16, 5e-2)
    compiled_training()
    with open(sys.argv[1], "w") as f:
        json.dump({"results": results, "env": env}, f, indent=1)
    summarize()
    passed = sum(r["ok"] for r in results)
    print(f"graphs: {passed}/{len(results)} within tolerance")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
