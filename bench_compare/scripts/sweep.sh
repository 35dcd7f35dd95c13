#!/usr/bin/env bash
# bench_compare/scripts/sweep.sh: the Table 4 sweep on the GPU machine (build here
# with ./build.sh, carry build/device), in two groups that each fit in one
# device call: FP32/FP64, then FP16/BF16, one bench_compare run per data
# type (the rows of a group's CSV: its types' in turn). Each run also screens the
# configurations recorded for the same inputs in $SEED (the committed sweep),
# so a new sweep starts from the best already found. The runs' CSVs are
# merged into $OUT/sweep-table4.csv (header once; the .env of the first run),
# the layout of results/<device>/sweep/: copy $OUT there and run
#   go run ./bench_compare -replot <dir>/sweep-table4.csv -targets
#
# "types NAME DTYPES" runs one group of data types of one's own into
# sweep-table4-NAME.*: a group split over two device calls.
#
# "wide [shapes]" sweeps the inputs of a shapes file again with N=${N:-400}
# candidates: bench_compare/cases/sweep_wide_shapes.csv (FP32/FP64 LINPACK and
# LAPACK, the default) into sweep-wide.csv, sweep_wide_<name>_shapes.csv
# into sweep-wide-<name>.csv. The merged CSV takes those inputs' rows from
# the sweep-wide*.csv files present (each row a whole measurement: cuBLAS
# and ISAAC in one process).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/isaac-sweep}
seed=${SEED:-results/h100/sweep/sweep-table4.csv}
n=${N:-120}
dev=$PWD/build/device
mkdir -p "$out"
run() { # name dtypes: one bench_compare run per data type (each fits a device call's limit)
	local tmp dt first=1
	: >"$out/sweep-table4-$1.progress.log"
	for dt in ${2//,/ }; do
		tmp=$(mktemp -d)
		"$dev/bench_compare" -suite table4 -dtypes "$dt" -sweep "$n" -seed "$seed" -out "$tmp" >>"$out/sweep-table4-$1.progress.log" 2>&1
		if [ $first = 1 ]; then
			cp "$tmp/sweep-table4.csv" "$out/sweep-table4-$1.csv"
			cp "$tmp/sweep-table4.env" "$out/sweep-table4-$1.env"
			first=0
		else
			tail -n +2 "$tmp/sweep-table4.csv" >>"$out/sweep-table4-$1.csv"
		fi
		tail -n 1 "$out/sweep-table4-$1.progress.log"
	done
}
case "${1:-all}" in
wide)
	shapes=${2:-bench_compare/cases/sweep_wide_shapes.csv}
	name=$(basename "$shapes" .csv)
	name=${name#sweep_wide}
	name=sweep-wide${name%_shapes}
	name=${name//_/-}
	tmp=$(mktemp -d)
	"$dev/bench_compare" -suite csv -shapes "$shapes" -sweep "${N:-400}" -seed "$seed" -out "$tmp" \
		>"$out/$name.progress.log" 2>&1
	cp "$tmp/sweep-csv.csv" "$out/$name.csv"
	cp "$tmp/sweep-csv.env" "$out/$name.env"
	tail -n 1 "$out/$name.progress.log"
	;;
sd) run sd s,d ;;
16bit) run 16bit h,hgemmex-f32acc,bf16gemmex-f32acc ;;
types) run "$2" "$3" ;; # a group of one's own: sweep.sh types NAME DTYPES (to split a group over device calls)
all)
	run sd s,d
	run 16bit h,hgemmex-f32acc,bf16gemmex-f32acc
	;;
*)
	echo "usage: $0 [sd|16bit|all|wide [shapes]|types NAME DTYPES]" >&2
	exit 2
	;;
esac
if [ -f "$out/sweep-table4-sd.csv" ] && [ -f "$out/sweep-table4-16bit.csv" ]; then
	{
		cat "$out/sweep-table4-sd.csv"
		tail -n +2 "$out/sweep-table4-16bit.csv"
	} >"$out/sweep-table4.csv"
	for wide in "$out"/sweep-wide*.csv; do
		[ -f "$wide" ] || continue
		# rows keyed by suite, dtype, m, n, k, layout; configurations are quoted
		# (commas inside), so the key is the line up to the 7th comma
		awk -F, 'NR == FNR { if (FNR > 1) wide[$1","$3","$4","$5","$6","$7] = $0; next }
			FNR == 1 || !(($1","$3","$4","$5","$6","$7) in wide) { print; next }
			{ print wide[$1","$3","$4","$5","$6","$7] }' "$wide" "$out/sweep-table4.csv" >"$out/sweep-table4.csv.tmp"
		mv "$out/sweep-table4.csv.tmp" "$out/sweep-table4.csv"
	done
	cp "$out/sweep-table4-sd.env" "$out/sweep-table4.env"
	echo "merged $out/sweep-table4.csv"
fi
