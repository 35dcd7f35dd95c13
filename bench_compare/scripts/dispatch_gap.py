#!/usr/bin/env python3
"""Where a suite's default dispatch falls short of its sweep's ceiling, and why.

Usage: python3 bench_compare/scripts/dispatch_gap.py <sweep.csv> <run.csv> [<run.csv> ...]

sweep.csv is bench_compare -sweep's output for the suite (its speedup column the best of each row's timed
configurations against the vendor), the runs bench_compare -model's for the same suite (several runs of one
set of weights: each row's dispatch speed-up is their geomean). A row's ceiling is max(1, the sweep's best):
forwarding is always allowed. Each row short of its ceiling by more than 1 % is put in one class by its
dispatch_config:
  margin     forwarded by the check although its fastest candidate measured faster than the vendor there (the
             check's margin, ours x ratio + micros <= vendor, turned it)
  candidates forwarded by the check because its candidates measured slower (the model's candidates miss the
             sweep's best)
  served     served, but slower than the sweep's best
  predicted  forwarded by the models' prediction, never timed
and the classes' shares of the gap are printed as ln sums and as geomean factors over all rows.
"""
import csv
import math
import re
import sys


def key(r):
    return (r["suite"], r["dtype"], r["m"], r["n"], r["k"], r["layout"])


def main(sweep, runs):
    best = {key(r): max(1.0, float(r["speedup"])) for r in csv.DictReader(open(sweep))}
    tables = [{key(r): r for r in csv.DictReader(open(f))} for f in runs]
    first = tables[0]
    classes = {c: [0, 0.0] for c in ("margin", "candidates", "served", "predicted")}
    rows = []  # (ln ceiling, ln dispatch) of each row
    for k, r in first.items():
        if k not in best or any(k not in t for t in tables):
            continue
        d = math.exp(sum(math.log(float(t[k]["dispatch_speedup"])) for t in tables) / len(tables))
        rows.append((math.log(best[k]), math.log(d)))
        gap = math.log(best[k] / d)
        if gap <= 0.01:
            continue
        c = r["dispatch_config"]
        m = re.search(r"ours ([\d.]+) µs.*cuBLAS ([\d.]+) µs\)", c)
        if c.startswith("cuBLAS (predicted"):
            cls = "predicted"
        elif c.startswith("cuBLAS") and m and float(m.group(1)) < float(m.group(2)):
            cls = "margin"
        elif c.startswith("cuBLAS"):
            cls = "candidates"
        else:
            cls = "served"
        classes[cls][0] += 1
        classes[cls][1] += gap
        print(f"  {cls:10} {' '.join(k):44} ceiling {best[k]:.3f}  dispatch {d:.3f}  {c[:90]}")
    n = len(rows)
    ceiling = math.exp(sum(c for c, _ in rows) / n)
    dispatch = math.exp(sum(d for _, d in rows) / n)
    total = sum(g for cls, (cnt, g) in classes.items())
    print(f"{', '.join(runs)}: {n} rows; dispatch {dispatch:.3f}x, ceiling {ceiling:.3f}x (the sweep's best or forwarding)")
    print(f"the rows short of their ceiling by more than 1 %: ln {total:.3f}, a geomean factor of {math.exp(total / n):.4f}")
    for cls, (cnt, g) in classes.items():
        print(f"  {cls:10} {cnt:3} rows  ln {g:.3f}  factor {math.exp(g / n):.4f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
