#!/usr/bin/env python3
"""Summarize TestGPUConvTiming's log lines (internal/convcheck).

usage: summarize.py timing.log > timing-summary.csv   (geomeans on stderr)

The vendor's best is the faster of the two cuDNN algorithms the test times
(cudnnGetConvolutionForwardAlgorithm_v7's pick and the fastest of
cudnnFindConvolutionForwardAlgorithmEx, each the median of 5 L2-flushed
runs): FindEx ranks by its own untimed-flush runs, so its pick is not always
the faster one here.
"""
import math
import re
import sys

LINE = re.compile(r'go:\d+: (\S+) (\S+) (\S+): cuDNN v7 ([\d.]+) µs \(algo (\d+)\), fastest ([\d.]+) µs \(algo (\d+)\); '
                  r'ours heuristic ([\d.]+) µs, best of (\d+) ([\d.]+) µs')


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


rows = []
for ln in open(sys.argv[1], encoding="utf-8"):
    m = LINE.search(ln)
    if m:
        layer, typ, layout, v7, a7, fb, ab, oh, _, ob = m.groups()
        best = min(float(v7), float(fb))
        rows.append((layer, typ, layout, float(v7), int(a7), float(fb), int(ab), best, float(oh), float(ob)))
print("layer,type,layout,cudnn_v7_us,cudnn_v7_algo,cudnn_find_us,cudnn_find_algo,vendor_best_us,"
      "ours_heuristic_us,ours_best_us,heuristic_speedup,best_speedup")
for r in rows:
    print("%s,%s,%s,%.1f,%d,%.1f,%d,%.1f,%.1f,%.1f,%.3f,%.3f" % (r + (r[7] / r[8], r[7] / r[9])))
for typ, layout in [("pseudo_half", "nchw"), ("pseudo_half", "nhwc"), ("float", "nchw")]:
    for suite, name in [("conv", "Table 5"), ("rn50", "ResNet-50 layers")]:
        sel = [r for r in rows if r[1] == typ and r[2] == layout and r[0].startswith(suite)]
        if sel:
            h, b = [r[7] / r[8] for r in sel], [r[7] / r[9] for r in sel]
            print("%s %s %s (%d): heuristic geomean %.2fx, best of the draws %.2fx (%.2f-%.2f), %d of %d >= 1.0x" %
                  (typ, layout, name, len(sel), geomean(h), geomean(b), min(b), max(b), sum(x >= 1 for x in b), len(sel)),
                  file=sys.stderr)
