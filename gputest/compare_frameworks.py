"""compare_frameworks.py PLAIN SERVED [IDENTICAL ...]: checks
gputest/frameworks.py outputs. The served run (ISAAC_POLICY=always) must be
within tolerance: its normwise error at most max(4 x the vendor's, a floor per
data type). Every IDENTICAL run (the shim forwarding every call: ISAAC_DISABLE=1,
or the default policy with no model weights) must be bit-identical to PLAIN."""
import json
import sys

FLOOR = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-14}

plain, served = (json.load(open(p)) for p in sys.argv[1:3])
all_same = True
for path in sys.argv[3:]:
    other = json.load(open(path))
    same = sum(plain[k]["digest"] == other[k]["digest"] for k in plain)
    all_same &= same == len(plain)
    print(f"{path.split('/')[-1]}: {same}/{len(plain)} results bit-identical to plain")
bad, identical, worst = [], 0, {}
for key, p in plain.items():
    s = served[key]
    dtype = key.split("/")[1]
    tol = max(4 * p["err"], FLOOR[dtype])
    identical += s["digest"] == p["digest"]
    w = worst.setdefault(dtype, [0.0, 0.0, ""])
    if s["err"] > w[0]:
        w[:] = [s["err"], p["err"], key]
    if s["err"] > tol:
        bad.append(f"{key}: error {s['err']:.3g} > tolerance {tol:.3g} (vendor {p['err']:.3g})")
print(f"served: {len(plain) - len(bad)}/{len(plain)} within tolerance ({identical} bit-identical to the vendor)")
for dtype, (e, v, key) in sorted(worst.items()):
    print(f"  worst {dtype}: ours {e:.3g} vs vendor {v:.3g} ({key})")
for b in bad:
    print("  OUT OF TOLERANCE", b)
sys.exit(1 if bad or not all_same else 0)
