#!/usr/bin/env bash
# bench_compare/scripts/ncu_conv.sh: Nsight Compute on the kernels ISAAC's
# default dispatch runs for chosen convolution rows, on the GPU machine with
# build/device carried. Each line of the list is "suite input-regex type"
# (bench_compare's -suite, -inputs and -convtypes); the report for line i goes to
# $OUT/ncu_conv_<i>_<suite>_<input>_<type>.txt. bench_compare runs the row once
# (both layouts, no warm-up), so ncu captures the heuristic's kernels first:
# the NHWC copies' transposes and the implicit GEMM (names isaac_transpose*,
# isaac_gemm*, isaac_gconv*), the first ${COUNT:-8} of them.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/isaac-ncu}
mkdir -p "$out"
dev=$PWD/build/device
list=${1:-bench_compare/cases/ncu_conv_cases.txt}
i=0
grep -v '^#' "$list" | while read -r suite input dtype; do
	[ -z "$suite" ] && continue
	i=$((i + 1))
	rep=$out/ncu_conv_${i}_${suite}_${input//[^A-Za-z0-9-]/}_${dtype}.txt
	echo "== $suite $input $dtype" >"$rep"
	ncu --clock-control none -k 'regex:isaac_(gemm|transpose|gconv)' -c "${COUNT:-8}" \
		--section SpeedOfLight --section Occupancy --section LaunchStats \
		--section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
		--section WarpStateStats --section SchedulerStats \
		"$dev/bench_compare" -suite "$suite" -inputs "$input" -convtypes "$dtype" \
		-repeats 1 -warmup 0 -out "$(mktemp -d)" >>"$rep" 2>&1
	grep -E '^  isaac_|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Grid Size|Block Size' "$rep" | head -${LINES_MAX:-80}
done
