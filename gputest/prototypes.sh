#!/usr/bin/env bash
# gputest/prototypes.sh: the shim's entry points compiled against the real
# cuBLAS, cuBLASLt and cuDNN headers of the GPU machine (CI checks them against
# internal/cabitest's vendor_api.h). A prototype that differs from the
# vendor's is a "conflicting types" error: each file is compiled in C, and
# entry_points.h once more in C++, where cublasHgemm's __half is checked too.
# Prints one line per check and the compiler's errors; exits 1 on a mismatch.
set -uo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cudnn_h=$(bash gputest/cudnn_header.sh)
headers=("-DISAAC_VENDOR_HEADERS=<cublas_v2.h>" "-DISAAC_VENDOR_HEADERS2=<cudnn.h>" "-DISAAC_VENDOR_HEADERS3=<cublasLt.h>"
	-I"$cuda/include" -I"$(dirname "$cudnn_h")" -Ishim)
fail=0
# The files that define exported entry points (internal/cabitest's TestPrototypes lists the same).
for f in cublas_entry.c cudnn_entry.c cudnn_graph_entry.c graph_plans.c handle_state.c lt_entry.c lt_state.c; do
	if gcc -fsyntax-only -Wall -Werror "${headers[@]}" "shim/$f" >"$work/proto.txt" 2>&1; then
		echo "prototypes $f: match cublas_v2.h, cublasLt.h and $cudnn_h"
	else
		echo "prototypes $f: MISMATCH"; cat "$work/proto.txt"; fail=1
	fi
done
printf '#include <cublas_v2.h>\n#include <cublasLt.h>\n#include <cudnn.h>\nextern "C" {\n#include "entry_points.h"\n}\n' >"$work/prototypes.cc"
if g++ -fsyntax-only -Wall -Werror "${headers[@]}" "$work/prototypes.cc" >"$work/proto.txt" 2>&1; then
	echo "prototypes entry_points.h (C++, cublasHgemm's __half included): match"
else
	echo "prototypes entry_points.h (C++): MISMATCH"; cat "$work/proto.txt"; fail=1
fi
exit $fail
