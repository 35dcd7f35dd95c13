#!/usr/bin/env bash
# gputest/cudnn_header.sh: prints the path of the GPU machine's cudnn.h (the
# system's, CUDA's, or else the one in PyTorch's nvidia.cudnn wheel).
cuda=${CUDA_HOME:-/usr/local/cuda}
h=$(ls /usr/include/cudnn.h /usr/include/x86_64-linux-gnu/cudnn.h "$cuda"/include/cudnn.h 2>/dev/null | head -1)
if [ -z "$h" ]; then
	h=$(python3 -c "import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], 'include', 'cudnn.h'))" 2>/dev/null)
fi
echo "$h"
