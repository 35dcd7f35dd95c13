#!/usr/bin/env python3
"""Flush call 1's Table 4 rows: ln(write-flush time / read-flush time) of cuBLAS and of the heuristic's kernel (geomean
of the two runs of each), against each row's footprint (A, B and C bytes), and the two read runs' own scatter.
Usage, from the repository root: python3 gputest/results/h200/flush/call1/compare.py"""
import csv, math, os, statistics as st

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "bench")


def load(run):
    return {(r["suite"], r["dtype"], r["m"], r["n"], r["k"], r["layout"]): r for r in csv.DictReader(open(os.path.join(D, run, "table4.csv")))}


R, W = [load("read-1"), load("read-2")], [load("write-1"), load("write-2")]
rows = []
for k in R[0]:
    size = {"h": 2, "d": 8}[k[1]]
    m, n, kk = int(k[2]), int(k[3]), int(k[4])
    mb = (m * kk + kk * n + m * n) * size / 1e6
    g = lambda runs, c: math.sqrt(float(runs[0][k][c]) * float(runs[1][k][c]))
    rows.append((mb, k, g(R, "vendor_us"), math.log(g(W, "vendor_us") / g(R, "vendor_us")),
                 math.log(g(W, "ours_us") / g(R, "ours_us")), math.log(float(R[1][k]["vendor_us"]) / float(R[0][k]["vendor_us"]))))
rows.sort()
print("suite        type      m     n     k  footprint  cuBLAS (read)  ln(write/read): cuBLAS  heuristic's kernel  (read-2/read-1, cuBLAS)")
for mb, k, vu, v, o, rr in rows:
    print(f"{k[0]:12} {k[1]:2} {k[2]:>7} {k[3]:>5} {k[4]:>5} {mb:7.0f} MB {vu:10.2f} µs {v:+19.3f} {o:+19.3f} {rr:+21.3f}")
print(f"all {len(rows)} rows: median cuBLAS {st.median(r[3] for r in rows):+.3f}, heuristic's kernel {st.median(r[4] for r in rows):+.3f}; "
      f"the read runs' scatter |ln| median {st.median(abs(r[5]) for r in rows):.3f}")
for lo, hi in [(0, 5), (5, 20), (20, 70), (70, math.inf)]:
    s = [r for r in rows if lo <= r[0] < hi]
    print(f"footprint {lo}-{hi} MB: {len(s):2} rows, median cuBLAS {st.median(r[3] for r in s):+.3f}, heuristic's kernel {st.median(r[4] for r in s):+.3f}")
