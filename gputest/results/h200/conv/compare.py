#!/usr/bin/env python3
"""Compare builds of one call side by side (gputest/results/h200/conv).

usage: compare.py copies CALL BASE VARIANT...    BenchmarkGPUConvCopies logs: CALL/bench/copies-<build>.log
       compare.py table5 CALL BASE VARIANT...    bench_compare CSVs: CALL/bench/t5-<build>/table5.csv
       compare.py dispatch CSV...                a suite's dispatch and model columns
       compare.py eval CSV...                    eval-conv.csv files, their convolutions together

copies: each Table 5 layer's copies time per build and its speed-up over BASE,
and the geometric mean of the speed-ups per type and layout and in all.
table5: per type and layout, the geometric mean of cuDNN's time (the faster of
its two algorithms) over the served kernel's (the heuristic's path and
configuration, column ours) per build, and the rows whose served time moved
by more than 5 %.
dispatch: the geometric means of the dispatch and model columns (the vendor's
time over ours), the rows served (the dispatch ran ours) and those below 1.0x,
in all and, for convolution suites, per type and layout.
eval: each chooser's suboptimality S (median, p90, mean, S = 0) over the
convolutions of every eval-conv.csv given (e.g. two calls' held-out
convolutions), with the quantiles eval-conv itself takes.
"""
import csv
import math
import re
import sys

COPIES = re.compile(r'BenchmarkGPUConvCopies/(\S+?)/(\S+?)-\d+\s.*?([\d.]+) copies_us')


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def copies(call, builds):
    times = {}
    for b in builds:
        for ln in open(f'{call}/bench/copies-{b}.log', encoding='utf-8'):
            m = COPIES.search(ln)
            if m:
                times.setdefault((m.group(1), m.group(2)), {})[b] = float(m.group(3))
    base = builds[0]
    gains = {b: {} for b in builds[1:]}
    for (variant, layer), t in times.items():
        cells = [f'{variant:14s} {layer:7s} {base} {t[base]:7.2f} µs']
        for b in builds[1:]:
            g = t[base] / t[b]
            gains[b].setdefault(variant, []).append(g)
            cells.append(f'{b} {t[b]:7.2f} µs ({g:.2f}x)')
        print('  '.join(cells))
    for b in builds[1:]:
        every = [g for gs in gains[b].values() for g in gs]
        per = ', '.join(f'{v} {geomean(gs):.3f}x' for v, gs in gains[b].items())
        print(f'{b} over {base}: {per}; all {len(every)} {geomean(every):.3f}x ({min(every):.2f}-{max(every):.2f})')


def load(path):
    return {(r['name'], r['dtype'], r['layout']): r for r in csv.DictReader(open(path, encoding='utf-8'))}


def table5(call, builds):
    runs = {b: load(f'{call}/bench/t5-{b}/table5.csv') for b in builds}
    base = builds[0]
    keys = sorted({(k[1], k[2]) for k in runs[base]})
    for dt, lay in keys:
        cells = []
        for b in builds:
            s = [float(r['vendor_us']) / float(r['ours_us']) for k, r in runs[b].items() if k[1:] == (dt, lay)]
            cells.append(f'{b} {geomean(s):.3f}x')
        print(f'{dt} {lay} ({len(s)} rows), served kernel against cuDNN: ' + ', '.join(cells))
    for b in builds[1:]:
        for k, r in runs[base].items():
            o, n = float(r['ours_us']), float(runs[b][k]['ours_us'])
            if abs(o / n - 1) > 0.05:
                print(f'  {b}: {k[0]} {k[1]} {k[2]} served {o:.1f} -> {n:.1f} µs ({o / n:.2f}x): {r["config"][:60]}')


def dispatch(paths):
    for p in paths:
        rows = list(csv.DictReader(open(p, encoding='utf-8')))
        groups = {'all': rows}
        if rows and {r.get('layout') for r in rows} <= {'nchw', 'nhwc'}:
            for r in rows:
                groups.setdefault(f"{r['dtype']} {r['layout']}", []).append(r)
        for g, rs in groups.items():
            d = [float(r['vendor_us']) / float(r['dispatch_us']) for r in rs]
            m = [float(r['vendor_us']) / float(r['model_us']) for r in rs]
            served = [(float(r['vendor_us']) / float(r['dispatch_us']), r) for r in rs
                      if not r['dispatch_config'].startswith(('cuBLAS', 'cuDNN'))]
            below = [f"{r['name']} {x:.3f}x" for x, r in served if x < 1.0]
            xs = [x for x, _ in served]
            print(f'{p} {g}: dispatch {geomean(d):.3f}x, model {geomean(m):.3f}x over {len(rs)} rows; '
                  f'{len(xs)} served ({min(xs, default=0):.2f}-{max(xs, default=0):.2f}x), '
                  f'{len(below)} of them below 1.0x' + (f' ({", ".join(below)})' if below else ''))


def quantile(xs, q):
    """xs sorted; the element eval-conv's quantile takes (index floor(q n))."""
    if not xs:
        return float('nan')
    return xs[min(len(xs) - 1, int(math.floor(q * len(xs))))]


def evals(paths):
    rows = [r for p in paths for r in csv.DictReader(open(p, encoding='utf-8'))]
    choosers = [c[:-2] for c in rows[0] if c.endswith('_s')] if rows else []
    print(f'{len(rows)} convolutions of {len(paths)} files')
    for c in choosers:
        s = sorted(float(r[c + '_s']) for r in rows if r[c + '_s'] != '')
        zero = sum(1 for x in s if x <= 0)
        print(f'{c:12s} median {100 * quantile(s, 0.5):5.1f}%  p90 {100 * quantile(s, 0.9):6.1f}%  '
              f'mean {100 * sum(s) / len(s):5.1f}%  S = 0 on {zero} of {len(s)}')


if __name__ == '__main__':
    what = sys.argv[1]
    if what == 'copies':
        copies(sys.argv[2], sys.argv[3:])
    elif what == 'table5':
        table5(sys.argv[2], sys.argv[3:])
    elif what == 'dispatch':
        dispatch(sys.argv[2:])
    elif what == 'eval':
        evals(sys.argv[2:])
    else:
        sys.exit(__doc__)
