#!/usr/bin/env python3
"""Set the attention suite's default dispatch against what its rows allow.

Usage: python3 bench_compare/scripts/attention_floor.py <attention.csv> <floor-attention.csv> [DTYPE=FLOORDTYPE ...]

attention.csv is bench_compare -suite attention -model's output (one or more data types),
floor-attention.csv bench_compare -suite attention -floor's: for each row, a kernel that only reads
the whole batch's A, B and C under the same timer. The floor CSV names no batch, so its rows are
matched to the suite's by their order within a data type (the suite's order; m, n, k and layout
checked). A row can run no faster than its bound, the larger of that floor and the CSV's
roofline_us (whose compute term is the flops at the tensor cores' peak), so cuBLAS's time over the
bound is the most any kernel could gain on it: the ceiling. Per data type and product (QKᵀ, PV):
the dispatch's and the model's geomean against cuBLAS, the ceiling's, and how near cuBLAS runs to
its bound. DTYPE=FLOORDTYPE takes a data type's floors from another's of the same operand widths (a floor
reads bytes, not values: bf16gemmex-f32acc=hgemmex-f32acc), said in the output.
"""
import csv
import math
import sys
from collections import defaultdict


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def bound_rows(bench, floors, alias):
    floor = defaultdict(list)
    for r in csv.DictReader(open(floors)):
        floor[r["dtype"]].append(r)
    for dt, src in alias.items():
        if dt not in floor:
            floor[dt] = floor[src]
            print(f"{dt}: the floors of {src} (same operand widths)")
    seen = defaultdict(int)
    rows = []
    for r in csv.DictReader(open(bench)):
        dt = r["dtype"]
        i = seen[dt]
        seen[dt] += 1
        if i >= len(floor[dt]):
            sys.exit(f"no floor for {dt} row {i} ({r['name']})")
        f = floor[dt][i]
        if any(f[c] != r[c] for c in ("m", "n", "k", "layout")):
            sys.exit(f"{dt} row {i}: floor {f['m']}x{f['n']}x{f['k']} {f['layout']} against {r['name']}")
        bound = max(float(f["floor_us"]), float(r["roofline_us"]))
        rows.append(dict(dtype=dt, name=r["name"], product=r["name"].split("-")[0], vendor=float(r["vendor_us"]),
                         dispatch=float(r["dispatch_us"]), model=float(r["model_us"]), bound=bound,
                         floor=float(f["floor_us"]), roofline=float(r["roofline_us"])))
    return rows


def main(bench, floors, alias):
    rows = bound_rows(bench, floors, alias)
    print("dtype              product  rows  dispatch  model   ceiling (cuBLAS/bound)  dispatch/ceiling  cuBLAS at bound (median, min-max)")
    for dt in sorted({r["dtype"] for r in rows}):
        for prod in ("qk", "pv", "all"):
            rs = [r for r in rows if r["dtype"] == dt and prod in ("all", r["product"])]
            if not rs:
                continue
            d = geomean(r["vendor"] / r["dispatch"] for r in rs)
            m = geomean(r["vendor"] / r["model"] for r in rs)
            c = geomean(r["vendor"] / r["bound"] for r in rs)
            at = sorted(r["bound"] / r["vendor"] * 100 for r in rs)
            print(f"{dt:18} {prod:7} {len(rs):5}  {d:7.3f}x {m:6.3f}x  {c:7.3f}x                {d / c * 100:5.1f} %"
                  f"            {at[len(at) // 2]:5.1f} % ({at[0]:.1f}-{at[-1]:.1f} %)")
        # Where the 1.1x target lies beyond the bound: rows whose ceiling is under 1.1x.
        rs = [r for r in rows if r["dtype"] == dt]
        beyond = [r for r in rs if r["vendor"] / r["bound"] < 1.1]
        print(f"{dt:18} rows whose ceiling is under 1.1x: {len(beyond)} of {len(rs)}")
    print("\nrows: dtype, name, cuBLAS, dispatch, model, floor, roofline (µs), ceiling")
    for r in rows:
        print(f"{r['dtype']:18} {r['name']:20} {r['vendor']:9.2f} {r['dispatch']:9.2f} {r['model']:9.2f} "
              f"{r['floor']:9.2f} {r['roofline']:9.2f}  {r['vendor'] / r['bound']:5.2f}x")


if __name__ == "__main__":
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[3:]):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:]))
