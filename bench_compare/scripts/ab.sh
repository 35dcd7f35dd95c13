#!/usr/bin/env bash
# bench_compare/scripts/ab.sh: the same (input, configuration) pairs through two
# builds of bench_compare, side by side on the GPU machine, to measure a
# kernel-family change on fixed configurations (the sweep picks the best
# configuration and so cannot show what a change does to one).
#
#   OLD=<bench_compare of the old commit> NEW=<of the new> OUT=<dir> bench_compare/scripts/ab.sh <cases>
#
# Each line of <cases> is "m n k layout dtype config"; every pair runs
# through OLD, then NEW, in two rounds (-config, 21 repeats, L2 flushed;
# cuBLAS in the same process; ROUNDS sets the rounds). Lines of $OUT/ab.txt: round, build, dtype,
# m n k, config, then bench_compare's CSV row (its column after the first
# quoted configuration is the configuration's median time).
set -uo pipefail
cases=${1:?usage: OLD=… NEW=… OUT=… $0 <cases>}
out=${OUT:-/tmp/isaac-ab}
mkdir -p "$out"
for round in $(seq 1 "${ROUNDS:-2}"); do
	for b in OLD NEW; do
		bin=${!b}
		grep -v '^#' "$cases" | while read -r m n k layout dtype config; do
			[ -z "$m" ] && continue
			csv=$(mktemp --suffix .csv)
			printf 'm,n,k,layout,dtype,suite\n%s,%s,%s,%s,%s,ab\n' "$m" "$n" "$k" "$layout" "$dtype" >"$csv"
			d=$(mktemp -d)
			ISAAC_CACHE_DIR=$(mktemp -d) "$bin" -suite csv -shapes "$csv" -config "$config" -repeats 21 -out "$d" >/dev/null 2>&1
			echo "$round ${b,,} $dtype $m $n $k $config $(tail -n 1 "$d/csv.csv")" | tee -a "$out/ab.txt"
		done
	done
done
