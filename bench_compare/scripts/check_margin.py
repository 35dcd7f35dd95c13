#!/usr/bin/env python3
"""How the GEMM check's rule (serve where ours x ratio + micros <= cuBLAS, each
the fastest of the check's samples; serve/check.go's gemmCheck) would decide
on bench_compare -model runs' forwarded rows under other ratios and margins.

The dispatch column's text of a forwarded row holds the check's own times,
"cuBLAS (measured: ours X µs of candidates [a b c] µs, cuBLAS Y µs)". Where
the check's fastest candidate is the model's first (a), the same run's
model column timed that kernel as the benchmark times every column, so the
row's true ratio is vendor_us / model_us: a rule that would serve the row is
then right or wrong by that ratio. Also: how the check's cuBLAS time
compares with the benchmark's, by call length.

usage: check_margin.py CSV...   (bench_compare -model CSVs: table4.csv, csv.csv, ...)
"""
import csv
import re
import sys

FWD = re.compile(r'ours ([\d.]+) µs of candidates \[([\d. ]+)\] µs, cuBLAS ([\d.]+) µs')
ANY = re.compile(r'ours ([\d.]+) µs(?: re-timed)? of candidates \[([\d. ]+)\] µs, cuBLAS ([\d.]+) µs')


def main(files):
    judged, checks = [], []
    for f in files:
        for r in csv.DictReader(open(f)):
            text = r.get('dispatch_config', '')
            m = ANY.search(text)
            if m:
                checks.append((float(r['vendor_us']), float(m.group(3))))
            m = FWD.search(text)
            if not m or not text.startswith('cuBLAS') or not r.get('model_us'):
                continue
            ours, cands, cub = float(m.group(1)), [float(x) for x in m.group(2).split()], float(m.group(3))
            if min(cands) != cands[0]:
                continue
            judged.append((ours, cub, float(r['vendor_us']) / float(r['model_us'])))
    print(f'{len(files)} files; {len(checks)} rows with a check; the check\'s cuBLAS time less the benchmark\'s:')
    for lo, hi in [(0, 10), (10, 30), (30, 100), (100, float('inf'))]:
        d = sorted(c - v for v, c in checks if lo <= v < hi)
        if d:
            print(f'  cuBLAS {lo}-{hi} µs: {len(d)} rows, median {d[len(d) // 2]:+.2f} µs, p10 {d[len(d) // 10]:+.2f}, p90 {d[9 * len(d) // 10]:+.2f}')
    print(f'{len(judged)} forwarded rows whose check\'s fastest candidate is the model\'s first; a rule would serve:')
    for ratio, micros in [(1.02, 1), (1.02, 0.5), (1.03, 0.3), (1.02, 0.3), (1.05, 0), (1.02, 0), (1.0, 0)]:
        serve = [t for o, c, t in judged if o * ratio + micros <= c]
        slower = [t for t in serve if t < 1.0]
        worst = f'{min(serve):.3f}' if serve else '-'
        print(f'  ratio {ratio:.2f} + {micros} µs: {len(serve):3d} rows, {len(slower)} of them slower than cuBLAS '
              f'({sum(t < 0.97 for t in serve)} below 0.97), the slowest {worst}')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
