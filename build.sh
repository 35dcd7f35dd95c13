#!/usr/bin/env bash
# ISAAC for Go: set up and build, or test.
#
#   ./build.sh          fetch Go modules (and ptxas for the PTX tests, where
#                       Debian's archive is reachable), build build/libisaac.so
#                       with its header, and the GPU test binaries in build/device
#   ./build.sh test     build, then go vet, gofmt -l, go test ./... (C-level ABI tests of
#                       libisaac.so included); GPU tests skip without a GPU
#
# Needs Go >= 1.26 and gcc: nothing else. No CUDA installation is used.
set -euo pipefail
cd "$(dirname "$0")"

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: $1 is required ($2)" >&2; exit 1; }; }
need go "install Go 1.26 or newer"
need gcc "install gcc for cgo"
export CGO_ENABLED=1

setup() {
	go mod download
	if [ -x scripts/fetch-ptxas.sh ] || [ -f scripts/fetch-ptxas.sh ]; then
		bash scripts/fetch-ptxas.sh build/tools ||
			echo "build.sh: ptxas unavailable; PTX assembly tests will skip" >&2
	fi
}

build() {
	mkdir -p build/device
	go build -buildmode=c-shared -o build/libisaac.so .
	# libisaac.h includes shim.h, which includes vendor_types.h.
	cp shim/shim.h shim/vendor_types.h build/
	# GPU-side test binaries (the GPU machine has no Go): see gputest/README.md.
	go test -c -o build/device/cuda.test ./internal/cuda
	go test -c -o build/device/kernels.test ./kernels
	go test -c -o build/device/serve.test ./serve
	go test -c -o build/device/gemmcheck.test ./internal/gemmcheck
	go test -c -o build/device/devbench.test ./internal/devbench
	go test -c -o build/device/l2evict.test ./internal/l2evict
	go test -c -o build/device/convcheck.test ./internal/convcheck
	# The results' provenance names the commit the program was built from
	# (with "-dirty" when the tree had changes).
	commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
	if [ "$commit" != unknown ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
		commit=$commit-dirty
	fi
	go build -ldflags "-X main.buildCommit=$commit" -o build/device/bench_compare ./bench_compare
	go build -ldflags "-X main.buildCommit=$commit" -o build/device/isaac-tune ./cmd/isaac-tune
	cp build/libisaac.so build/libisaac.h shim/shim.h shim/vendor_types.h build/device/
	echo "built build/libisaac.so"
}

case "${1:-build}" in
build)
	setup
	build
	;;
test)
	setup
	build
	go vet ./...
	# Go files as gofmt writes them.
	unformatted=$(gofmt -l $(find . -name '*.go' -not -path './build/*'))
	if [ -n "$unformatted" ]; then
		echo "build.sh: not gofmt-formatted (run gofmt -w on them):" $unformatted >&2
		exit 1
	fi
	ISAAC_LIB="$PWD/build/libisaac.so" go test -count=1 ./...
	;;
*)
	echo "usage: $0 [test]" >&2
	exit 2
	;;
esac
