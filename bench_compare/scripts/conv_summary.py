#!/usr/bin/env python3
"""Summarize bench_compare's convolution suites (table5.csv, cnn.csv, depthwise.csv) against issue 23's targets.

Usage: python3 bench_compare/scripts/conv_summary.py results/h100/conv

Per type and layout: the geometric mean of cuDNN's faster algorithm's time over ISAAC's as served
under ISAAC_POLICY=always (and over the best of the row's sweep, where the run had one), rows at
>= 1.0x; with -model's columns, the model's choice and the default dispatch (issue 24's targets:
every row together, served rows below 1.0x, rows below 0.97x); the deep reductions conv7/conv8 against cudnnGetConvolutionForwardAlgorithm_v7's pick;
the depthwise rows' share of the memory roofline; the ceiling the roofline allows (cuDNN's time
over the roofline's), so that a target beyond it shows as such.
"""
import bisect
import csv
import math
import os
import sys


def geomean(xs):
    xs = [x for x in xs if x == x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def num(r, k):
    try:
        return float(r.get(k) or "nan")
    except ValueError:
        return float("nan")


def bestUS(r):
    """ISAAC's best time of the row: the sweep's where it had one, else the served one."""
    s = num(r, "sweep_best_us")
    return s if s > 0 else num(r, "ours_us")


def main(folder):
    for suite in ("table5", "cnn", "depthwise"):
        path = os.path.join(folder, suite + ".csv")
        if not os.path.exists(path):
            continue
        rows = list(csv.DictReader(open(path)))
        model = "dispatch_us" in rows[0]
        print(f"## {suite} ({len(rows)} rows)\n")
        if model:
            print("| type | layout | served (heuristic) | best of sweep (where swept) | rows >= 1.0x | model's choice | dispatch | dispatch rows served | roofline ceiling |")
            print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
        else:
            print("| type | layout | served | best of sweep (where swept) | rows >= 1.0x | roofline ceiling |")
            print("|---|---|--:|--:|--:|--:|")
        for dt in ("h_pseudo", "bf16", "s_fma", "s_tf32"):
            for lay in ("nchw", "nhwc"):
                rs = [r for r in rows if r["dtype"] == dt and r["layout"] == lay]
                if not rs:
                    continue
                served = geomean([num(r, "vendor_us") / num(r, "ours_us") for r in rs])
                best = geomean([num(r, "vendor_us") / bestUS(r) for r in rs])
                ceil = geomean([num(r, "vendor_us") / num(r, "roofline_us") for r in rs])
                ok = sum(1 for r in rs if num(r, "speedup") >= 1)
                if model:
                    m = geomean([num(r, "vendor_us") / num(r, "model_us") for r in rs])
                    d = geomean([num(r, "vendor_us") / num(r, "dispatch_us") for r in rs])
                    nserved = sum(1 for r in rs if not r.get("dispatch_config", "").startswith("cuDNN"))
                    print(f"| {dt} | {lay} | {served:.2f}x | {best:.2f}x | {ok} of {len(rs)} | {m:.2f}x | {d:.2f}x | {nserved} of {len(rs)} | {ceil:.1f}x |")
                else:
                    print(f"| {dt} | {lay} | {served:.2f}x | {best:.2f}x | {ok} of {len(rs)} | {ceil:.1f}x |")
        print()
        if model:
            d = [num(r, "vendor_us") / num(r, "dispatch_us") for r in rows]
            srv = [(r, num(r, "vendor_us") / num(r, "dispatch_us")) for r in rows if not r.get("dispatch_config", "").startswith("cuDNN")]
            print(f"Default dispatch, every row of every type and layout: geomean {geomean(d):.2f}x over {len(d)} rows; "
                  f"served {len(srv)} rows, {sum(1 for _, x in srv if x < 1)} of them below 1.0x; "
                  f"rows below 0.97x: {sum(1 for x in d if x < 0.97)}")
            for r, x in srv:
                if x < 1:
                    print(f"- served below 1.0x: {r['name']} {r['dtype']} {r['layout']} {x:.3f}x ({r.get('dispatch_config', '')})")
            for r in rows:
                x = num(r, "vendor_us") / num(r, "dispatch_us")
                if x < 0.97:
                    print(f"- below 0.97x: {r['name']} {r['dtype']} {r['layout']} {x:.3f}x ({r.get('dispatch_config', '')})")
            print()
        deep = [r for r in rows if r["name"] in ("conv7", "conv8")]
        if deep:
            print("Deep reductions against the v7 pick (target 2x):\n")
            for r in deep:
                line = (f"- {r['name']} {r['dtype']} {r['layout']}: heuristic {num(r, 'cudnn_v7_us') / num(r, 'ours_us'):.2f}x "
                        f"(best of sweep {num(r, 'cudnn_v7_us') / bestUS(r):.2f}x)")
                if model:
                    # Our kernels as the model chooses and as the dispatch
                    # serves them (a forwarded row runs cuDNN's fastest
                    # algorithm: not ours).
                    line += f", model's choice {num(r, 'cudnn_v7_us') / num(r, 'model_us'):.2f}x"
                    if r.get("dispatch_config", "").startswith("cuDNN"):
                        line += ", dispatch forwards"
                    else:
                        line += f", dispatch {num(r, 'cudnn_v7_us') / num(r, 'dispatch_us'):.2f}x"
                print(line)
            print()
        dw = [r for r in rows if "dw" in r["name"]]
        if dw:
            floor = readFloor(folder)
            print("Depthwise rows, share of the memory roofline (target 60 %)"
                  + (", and the share a kernel that only reads the row's bytes reaches (floor)" if floor else "") + ":\n")
            for r in dw:
                line = (f"- {r['name']} {r['dtype']} {r['layout']}: served {num(r, 'roofline_us') / num(r, 'ours_us') * 100:.0f} %, "
                        f"best configuration {num(r, 'roofline_us') / bestUS(r) * 100:.0f} % "
                        f"({r.get('sweep_best_config', '')}), cuDNN {num(r, 'roofline_us') / num(r, 'vendor_us') * 100:.0f} %")
                if floor:
                    line += f", floor {num(r, 'roofline_us') / floor(num(r, 'roofline_us') * 1e-6 * BANDWIDTH) * 100:.0f} %"
                print(line)
            print()


# BANDWIDTH is the H100's memory bandwidth the rows' roofline takes (bytes/s, the .env's bandwidth_gbs).
BANDWIDTH = 3352.32e9


def readFloor(folder):
    """The floor of reading b bytes under bench_compare's method, interpolated between the
    GEMM floor runs' inputs (../floor/floor-*.csv beside the convolution folder: a kernel that
    only reads the input's bytes, L2 flushed, timed as the benchmarks are); None without them."""
    pts = []
    for name in ("floor-table4.csv", "floor-heldout.csv"):
        path = os.path.join(folder, "..", "floor", name)
        if os.path.exists(path):
            pts += [(int(r["bytes"]), float(r["floor_us"])) for r in csv.DictReader(open(path))]
    if not pts:
        return None
    pts.sort()
    xs = [p[0] for p in pts]

    def floor(b):
        i = bisect.bisect_left(xs, b)
        if i == 0:
            return pts[0][1]
        if i == len(pts):
            return pts[-1][1] * b / pts[-1][0]
        (x0, y0), (x1, y1) = pts[i - 1], pts[i]
        return y0 + (y1 - y0) * (b - x0) / (x1 - x0)
    return floor


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/h100/conv")
