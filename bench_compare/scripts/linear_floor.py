#!/usr/bin/env python3
"""Set the nn.Linear suite's default dispatch against its floor.

Usage: python3 bench_compare/scripts/linear_floor.py <linear.csv> <floor-linear.csv>

linear.csv is bench_compare -suite linear -model's output, floor-linear.csv bench_compare
-suite linear -floor's (a kernel that only reads each row's compulsory bytes, under the same
timer). A row can run no faster than its floor, so cuBLASLt's time over the floor is the most
any kernel could gain on it. Per data type, and over the rows of 16 or fewer tokens that issue
25's 1.3x target names: the dispatch's geomean against cuBLASLt, the floor's (the ceiling), and
the dispatch's share of what the floor allows.
"""
import csv
import math
import sys


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main(bench, floors):
    floor = {}
    for r in csv.DictReader(open(floors)):
        floor[(r["dtype"], r["m"], r["n"], r["k"], r["layout"])] = float(r["floor_us"])
    rows = []
    for r in csv.DictReader(open(bench)):
        f = floor.get((r["dtype"], r["m"], r["n"], r["k"], r["layout"]))
        if f is None:
            sys.exit(f"no floor for {r['name']} {r['dtype']}")
        tokens = int(r["name"].rsplit("-t", 1)[1])
        rows.append((r["dtype"], tokens, float(r["vendor_us"]), float(r["dispatch_us"]), f, r["name"]))
    print("dtype              rows  tokens  dispatch  ceiling (cuBLASLt/floor)  dispatch/ceiling")
    for dt in sorted({r[0] for r in rows}) + ["all"]:
        for sel, label in ((lambda t: True, "any"), (lambda t: t <= 16, "<=16")):
            rs = [r for r in rows if (dt == "all" or r[0] == dt) and sel(r[1])]
            d = geomean(v / u for _, _, v, u, _, _ in rs)
            c = geomean(v / f for _, _, v, _, f, _ in rs)
            print(f"{dt:18} {len(rs):4}  {label:6}  {d:7.3f}x  {c:7.3f}x                  {d / c * 100:5.1f} %")
    print("\nrows of <= 16 tokens, 16-bit data: cuBLASLt, dispatch and floor (µs), the floor's GB/s")
    for dt, t, v, u, f, name in rows:
        if t <= 16 and dt not in ("s", "d"):
            print(f"{dt:18} {name:28} {v:8.2f} {u:8.2f} {f:8.2f}  ceiling {v / f:5.2f}x")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
