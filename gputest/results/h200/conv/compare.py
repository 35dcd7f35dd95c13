#!/usr/bin/env python3
"""Compare builds of one call side by side (gputest/results/h200/conv).

usage: compare.py copies CALL BASE VARIANT...    BenchmarkGPUConvCopies logs: CALL/bench/copies-<build>.log
       compare.py table5 CALL BASE VARIANT...    bench_compare CSVs: CALL/bench/t5-<build>/table5.csv
       compare.py dispatch CSV...                a suite's dispatch and model columns
       compare.py eval CSV...                    eval-conv.csv files, their convolutions together
       compare.py evalpair A,A2... B,B2...      two weights' eval-conv.csv files, on the convolutions both have
       compare.py drift CSV...                   the dispatch's check times against the benchmark's
       compare.py host TXT...                    gputest/graph_host.py's output: passed through against served

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
evalpair: the model's S for two sets of eval-conv.csv files (each set
comma-separated, e.g. one set of weights' calls), over the convolutions in both.
drift: over the served rows of dispatch CSVs (their plans carry the check's
times), by the number of candidates checked, how far the benchmark's time of
ours and of cuDNN lies above the check's (median, p90); the second round's time
of the kept candidate over its first round's; the served rows below 1.0x; and
how many served rows a check bound of a fraction of a microsecond more would
have forwarded, with their speed-ups.
host: per graph_host.py output, each layer's span passed through over served
(the A/B ratio graph_layers.py reports) with its host time and GPU time both
ways, the layers split by whether the GPU ran the same kernels both ways (the
call went to cuDNN, or PyTorch did not call cuDNN at all) or ours; per group
the geometric mean of the ratios and the median and range of the host time
the shim added, and the layers below 0.97x.
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


CONV_KEY = ['type', 'math', 'layout', 'flip', 'n', 'c', 'h', 'w', 'k', 'r', 's', 'g', 'pad', 'stride', 'dil']


def evalpair(a, b):
    def load(paths):
        return {tuple(r[k] for k in CONV_KEY): float(r['model_s'])
                for p in paths.split(',') for r in csv.DictReader(open(p, encoding='utf-8')) if r.get('model_s')}
    sa, sb = load(a), load(b)
    common = [k for k in sa if k in sb]
    print(f'{len(common)} convolutions in both')
    for name, d in (('A', sa), ('B', sb)):
        s = sorted(d[k] for k in common)
        print(f'{name} model  median {100 * quantile(s, 0.5):5.1f}%  p90 {100 * quantile(s, 0.9):6.1f}%  mean {100 * sum(s) / len(s):5.1f}%')


CHECK = re.compile(r'\((checked|measured): ours ([\d.]+) µs( re-timed)?(?: of candidates \[([^\]]*)\] µs)?, cuDNN ([\d.]+) µs\)')


def drift(paths):
    served = []
    for p in paths:
        for r in csv.DictReader(open(p, encoding='utf-8')):
            m = CHECK.search(r['dispatch_config'])
            if not m or m.group(1) != 'checked':
                continue
            cands = [float(x) for x in m.group(4).split()] if m.group(4) else []
            served.append(dict(name=f"{r['name']} {r['dtype']} {r['layout']}", ours=float(m.group(2)), retimed=bool(m.group(3)),
                               cands=cands, cudnn=float(m.group(5)), bench_ours=float(r['dispatch_us']),
                               bench_cudnn=float(r['vendor_us']), speedup=float(r['dispatch_speedup'])))
    print(f'{len(served)} served rows, {sum(s["retimed"] for s in served)} of them re-timed')
    for lo, hi in ((1, 3), (4, 7), (8, 1 << 30)):
        rows = [s for s in served if lo <= max(len(s['cands']), 1) <= hi]
        if not rows:
            continue
        o = sorted(s['bench_ours'] / s['ours'] - 1 for s in rows)
        v = sorted(s['bench_cudnn'] / s['cudnn'] - 1 for s in rows)
        print(f'{lo}-{hi if hi < 1 << 30 else "":>2} candidates: {len(rows):3d} rows; benchmark over check: ours median {100 * quantile(o, 0.5):4.1f}% '
              f'p90 {100 * quantile(o, 0.9):4.1f}%, cuDNN median {100 * quantile(v, 0.5):4.1f}% p90 {100 * quantile(v, 0.9):4.1f}%')
    again = sorted(s['ours'] / min(s['cands']) - 1 for s in served if s['retimed'] and s['cands'])
    if again:
        print(f'second round over first: median {100 * quantile(again, 0.5):.1f}% p90 {100 * quantile(again, 0.9):.1f}% max {100 * again[-1]:.1f}%')
    for s in sorted(served, key=lambda s: s['speedup']):
        if s['speedup'] >= 1:
            break
        print(f"below 1.0x: {s['name']} {s['speedup']:.3f}x, {s['bench_ours']} against {s['bench_cudnn']} µs; "
              f"check: ours {s['ours']}{' re-timed' if s['retimed'] else ''}, cuDNN {s['cudnn']} µs")
    for us in (0.25, 0.5, 1.0):
        lost = sorted(s['speedup'] for s in served if s['ours'] * 1.05 + us > s['cudnn'])
        print(f'a bound of 5 % and {us} µs forwards {len(lost)}: ' + ' '.join(f'{x:.3f}' for x in lost))


def host(paths):
    for path in paths:
        rows = {}
        with open(path) as f:
            for line in f:
                p = [x.strip() for x in line.split('|')]
                if len(p) == 7 and p[1] in ('plain', 'isaac'):
                    rows.setdefault(p[0], {})[p[1]] = p
        print(f'{path}: {len(rows)} layers; span passed through over served, host and GPU µs a call (passed through -> served)')
        groups = {'same kernels (forwarded, or not cuDNN)': [], 'ours': []}
        for layer, v in rows.items():
            if 'plain' not in v or 'isaac' not in v:
                continue
            a, b = v['plain'], v['isaac']
            r = {'layer': layer, 'ratio': float(a[3]) / float(b[3]), 'dhost': float(b[2]) - float(a[2]),
                 'host': (float(a[2]), float(b[2])), 'gpu': (float(a[5]), float(b[5]))}
            groups['same kernels (forwarded, or not cuDNN)' if a[6] == b[6] else 'ours'].append(r)
        for name, rs in groups.items():
            if not rs:
                continue
            d = sorted(r['dhost'] for r in rs)
            print(f'  {name}: {len(rs)} layers, geomean {geomean([r["ratio"] for r in rs]):.3f}x; host added median '
                  f'{quantile(d, 0.5):+.2f} µs, {d[0]:+.2f} to {d[-1]:+.2f}')
            for r in sorted(rs, key=lambda r: r['ratio']):
                if r['ratio'] < 0.97:
                    print(f'    {r["ratio"]:.3f}x {r["layer"]}: host {r["host"][0]:.2f} -> {r["host"][1]:.2f}, '
                          f'GPU {r["gpu"][0]:.2f} -> {r["gpu"][1]:.2f}')
        print(f'  all: geomean {geomean([r["ratio"] for g in groups.values() for r in g]):.3f}x')


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
    elif what == 'evalpair':
        evalpair(sys.argv[2], sys.argv[3])
    elif what == 'drift':
        drift(sys.argv[2:])
    elif what == 'host':
        host(sys.argv[2:])
    else:
        sys.exit(__doc__)
