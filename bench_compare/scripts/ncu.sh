#!/usr/bin/env bash
# bench_compare/scripts/ncu.sh: Nsight Compute on chosen (input, configuration)
# pairs, run on the GPU machine with build/device carried. Each line of the
# list below is "m n k layout dtype config"; the report for line i goes to
# $OUT/ncu_<i>_<dtype>_<m>x<n>x<k>.txt. The kernels run through bench_compare
# (-suite csv, one repeat) so they see the same buffers and scalars as the
# benchmark; ncu captures the configuration's GEMM kernel (matched by name) and,
# with KG > 1, its reduction. With ALL=1 it captures every kernel of the run
# instead (the first ${COUNT:-12}: cuBLAS's, the L2 flush's and ISAAC's), to set
# the vendor's kernels beside ours. SECTIONS adds ncu sections (space-separated,
# e.g. MemoryWorkloadAnalysis_Tables for shared-memory bank conflicts).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/isaac-ncu}
mkdir -p "$out"
dev=$PWD/build/device
list=${1:-bench_compare/cases/ncu_cases.txt}
i=0
grep -v '^#' "$list" | while read -r m n k layout dtype config; do
	[ -z "$m" ] && continue
	i=$((i + 1))
	csv=$(mktemp --suffix .csv)
	printf 'm,n,k,layout,dtype,suite\n%s,%s,%s,%s,%s,ncu\n' "$m" "$n" "$k" "$layout" "$dtype" >"$csv"
	rep=$out/ncu_${i}_${dtype}_${m}x${n}x${k}.txt
	echo "== $m x $n x $k $layout $dtype $config" >"$rep"
	name=$(echo "$config" | sed 's/,math=/_/; s/,pp=/_pp/; s/,mr=/_mr/; s/,tma=/_tma/; s/[=,]//g') # the kernel's name ends so
	filter=(-k "regex:${name}" -c 2)
	if [ "${ALL:-0}" = 1 ]; then
		filter=(-c "${COUNT:-12}")
	fi
	extra=()
	for sec in ${SECTIONS:-}; do
		extra+=(--section "$sec")
	done
	ncu --clock-control none "${filter[@]}" "${extra[@]}" \
		--section SpeedOfLight --section Occupancy --section LaunchStats \
		--section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
		--section WarpStateStats --section SchedulerStats \
		"$dev/bench_compare" -suite csv -shapes "$csv" -config "$config" \
		-repeats 1 -warmup 0 -out "$(mktemp -d)" >>"$rep" 2>&1
	grep -E 'Context [0-9]+, Stream|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Stall|Issue Slots Busy|L1/TEX Hit|Grid Size|Block Size' "$rep" | head -${LINES_MAX:-40}
done
