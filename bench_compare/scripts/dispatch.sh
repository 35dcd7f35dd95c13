#!/usr/bin/env bash
# bench_compare/scripts/dispatch.sh: the measurements of the model-driven dispatch on
# the GPU machine (build here with ./build.sh, carry build/device), in one
# device call of about four minutes. Results go to $OUT (default
# /tmp/isaac-dispatch), in the layout of results/<device>/:
#
#   model/    Table 4 with the model's choice and the default dispatch
#             (bench_compare -suite table4 -model)
#   heldout/  the 48 held-out odd shapes of heldout_shapes.csv, likewise
#   overhead.csv, overhead.env
#             host time per call (forwarded, auto, served, disabled) and the
#             first-call latency: cuBLAS's own, the heuristic compiled in
#             line, the model's choice (a new kernel compiled in the
#             background), cold and with a warm disk cache
#   firstchoice.txt
#             BenchmarkFirstChoice: the model's choice for a new shape (CPU)
#
# Every run starts from an empty disk cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/isaac-dispatch}
dev=$PWD/build/device
mkdir -p "$out/model" "$out/heldout"
say() { echo "== $*"; }

say "Table 4: model's choice and dispatch"
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/bench_compare" -suite table4 -model -out "$out/model" \
	>"$out/model/table4.progress.log" 2>&1
tail -n 2 "$out/model/table4.progress.log"

say "held-out shapes"
tmp=$(mktemp -d)
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/bench_compare" -suite csv -shapes bench_compare/cases/heldout_shapes.csv -model -out "$tmp" \
	>"$out/heldout/heldout.progress.log" 2>&1
for f in "$tmp"/csv.* "$tmp"/csv-*; do
	[ -e "$f" ] || continue
	base=${f##*/}
	cp "$f" "$out/heldout/heldout${base#csv}"
done
tail -n 2 "$out/heldout/heldout.progress.log"

say "host overhead and first-call latency"
otmp=$(mktemp -d)
ISAAC_CACHE_DIR=$(mktemp -d) "$dev/bench_compare" -suite "" -overhead -lib "$dev/libisaac.so" -out "$otmp" \
	>"$out/overhead.progress.log" 2>&1
cp "$otmp"/overhead.* "$out/" 2>/dev/null || true
grep -E '^first call' "$out/overhead.progress.log" || tail -n 5 "$out/overhead.progress.log"

say "latency of the model's choice (CPU)"
(cd serve && ISAAC_CACHE_DIR=$(mktemp -d) "$dev/serve.test" -test.run XXX -test.bench FirstChoice -test.benchtime 3x) \
	>"$out/firstchoice.txt" 2>&1
grep Benchmark "$out/firstchoice.txt"
