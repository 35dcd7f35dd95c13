"""compare_frameworks.py PLAIN served=PATH... identical=PATH...: checks
gputest/frameworks.py outputs. Every served run (the default policy, which
serves where the model predicts a win, and ISAAC_POLICY=always) must be within
tolerance: its normwise error at most max(4 x the vendor's, a floor per data
type). Every identical run (the shim forwarding every call: ISAAC_DISABLE=1 or
ISAAC_POLICY=never) must be bit-identical to PLAIN."""
import json
import sys

FLOOR = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-14}

plain = json.load(open(sys.argv[1]))
runs = [a.split("=", 1) for a in sys.argv[2:]]
if not runs or any(kind not in ("served", "identical") for kind, _ in runs):
    sys.exit(__doc__)
all_same, bad = True, []
for kind, path in runs:
    other = json.load(open(path))
    name = path.split("/")[-1]
    if kind == "identical":
        same = sum(plain[k]["digest"] == other[k]["digest"] for k in plain)
        all_same &= same == len(plain)
        print(f"{name}: {same}/{len(plain)} results bit-identical to plain")
        continue
    identical, worst, out = 0, {}, []
    for key, p in plain.items():
        s = other[key]
        dtype = key.split("/")[1]
        tol = max(4 * p["err"], FLOOR[dtype])
        identical += s["digest"] == p["digest"]
        w = worst.setdefault(dtype, [0.0, 0.0, ""])
        if s["err"] > w[0]:
            w[:] = [s["err"], p["err"], key]
        if s["err"] > tol:
            out.append(f"{name} {key}: error {s['err']:.3g} > tolerance {tol:.3g} (vendor {p['err']:.3g})")
    print(f"{name}: {len(plain) - len(out)}/{len(plain)} within tolerance ({identical} bit-identical to the vendor)")
    for dtype, (e, v, key) in sorted(worst.items()):
        print(f"  worst {dtype}: ours {e:.3g} vs vendor {v:.3g} ({key})")
    bad += out
for b in bad:
    print("  OUT OF TOLERANCE", b)
sys.exit(1 if bad or not all_same else 0)
