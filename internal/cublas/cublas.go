// Package cublas calls the real cuBLAS and cuBLASLt (lt.go), loaded with
// dlopen, for tests and benchmarks that compare ISAAC's kernels with the
// vendor's in one process. It is never part of libisaac.so.
package cublas

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef int (*set_ptr_fn)(void *, void *);
typedef int (*set_int_fn)(void *, int);
typedef int (*gemmex_fn)(void *, int, int, int, int, int, const void *, const void *, int, int,
	const void *, int, int, const void *, void *, int, int, int, int);
typedef int (*gemm_sb_fn)(void *, int, int, int, int, int, const void *, const void *, int, int, long long,
	const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
typedef int (*gemm_batched_fn)(void *, int, int, int, int, int, const void *, const void *const *, int, int,
	const void *const *, int, int, const void *, void *const *, int, int, int, int, int);

static void *lib;
static create_fn p_create;
static destroy_fn p_destroy;
static set_ptr_fn p_set_stream;
static set_int_fn p_set_pointer_mode, p_set_math_mode;
static gemmex_fn p_gemmex;
static gemm_sb_fn p_gemm_sb;
static gemm_batched_fn p_gemm_batched;

static int cublas_load(void)
{
	static const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
	for (int i = 0; names[i] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	p_create = (create_fn)dlsym(lib, "cublasCreate_v2");
	p_destroy = (destroy_fn)dlsym(lib, "cublasDestroy_v2");
	p_set_stream = (set_ptr_fn)dlsym(lib, "cublasSetStream_v2");
	p_set_pointer_mode = (set_int_fn)dlsym(lib, "cublasSetPointerMode_v2");
	p_set_math_mode = (set_int_fn)dlsym(lib, "cublasSetMathMode");
	p_gemmex = (gemmex_fn)dlsym(lib, "cublasGemmEx");
	p_gemm_sb = (gemm_sb_fn)dlsym(lib, "cublasGemmStridedBatchedEx");
	p_gemm_batched = (gemm_batched_fn)dlsym(lib, "cublasGemmBatchedEx");
	return p_create && p_destroy && p_set_stream && p_set_pointer_mode && p_set_math_mode && p_gemmex ? 0 : -2;
}
typedef int (*get_version_fn)(void *, int *);
static int cublas_version(uintptr_t h, int *v)
{
	get_version_fn f = (get_version_fn)dlsym(lib, "cublasGetVersion_v2");
	return f ? f((void *)h, v) : -1;
}
static int cublas_create(uintptr_t *h) { void *p = NULL; int s = p_create(&p); *h = (uintptr_t)p; return s; }
static int cublas_destroy(uintptr_t h) { return p_destroy((void *)h); }
static int cublas_set_stream(uintptr_t h, uintptr_t s) { return p_set_stream((void *)h, (void *)s); }
static int cublas_set_pointer_mode(uintptr_t h, int m) { return p_set_pointer_mode((void *)h, m); }
static int cublas_set_math_mode(uintptr_t h, int m) { return p_set_math_mode((void *)h, m); }
static int cublas_gemmex(uintptr_t h, int ta, int tb, int m, int n, int k, uintptr_t alpha,
	uintptr_t A, int at, int lda, uintptr_t B, int bt, int ldb, uintptr_t beta, uintptr_t C, int ct,
	int ldc, int compute)
{
	return p_gemmex((void *)h, ta, tb, m, n, k, (const void *)alpha, (const void *)A, at, lda,
		(const void *)B, bt, ldb, (const void *)beta, (void *)C, ct, ldc, compute, -1);
}
static int cublas_gemm_sb(uintptr_t h, int ta, int tb, int m, int n, int k, uintptr_t alpha,
	uintptr_t A, int at, int lda, long long sa, uintptr_t B, int bt, int ldb, long long sb,
	uintptr_t beta, uintptr_t C, int ct, int ldc, long long sc, int batch, int compute)
{
	if (!p_gemm_sb)
		return -3;
	return p_gemm_sb((void *)h, ta, tb, m, n, k, (const void *)alpha, (const void *)A, at, lda, sa,
		(const void *)B, bt, ldb, sb, (const void *)beta, (void *)C, ct, ldc, sc, batch, compute, -1);
}
static int cublas_gemm_batched(uintptr_t h, int ta, int tb, int m, int n, int k, uintptr_t alpha,
	uintptr_t A, int at, int lda, uintptr_t B, int bt, int ldb, uintptr_t beta, uintptr_t C, int ct,
	int ldc, int batch, int compute)
{
	if (!p_gemm_batched)
		return -3;
	return p_gemm_batched((void *)h, ta, tb, m, n, k, (const void *)alpha, (const void *const *)A, at, lda,
		(const void *const *)B, bt, ldb, (const void *)beta, (void *const *)C, ct, ldc, batch, compute, -1);
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/request"
)

var load = sync.OnceValue(func() error {
	switch C.cublas_load() {
	case -1:
		return errors.New("cublas: libcublas.so not found")
	case -2:
		return errors.New("cublas: libcublas.so lacks an entry point")
	}
	return nil
})

// Handle is a cuBLAS handle, created in the current context.
type Handle uintptr

// New creates a handle.
func New() (Handle, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var h C.uintptr_t
	if s := C.cublas_create(&h); s != 0 {
		return 0, fmt.Errorf("cublasCreate: status %d", s)
	}
	return Handle(h), nil
}

// Destroy destroys the handle.
func (h Handle) Destroy() { C.cublas_destroy(C.uintptr_t(h)) }

// Version is cuBLAS's version number (e.g. 130100 for 13.1.0).
func (h Handle) Version() (int, error) {
	var v C.int
	if s := C.cublas_version(C.uintptr_t(h), &v); s != 0 {
		return 0, fmt.Errorf("cublasGetVersion: status %d", s)
	}
	return int(v), nil
}

// setState sets the handle's stream, pointer mode and math mode to g's.
func (h Handle) setState(g *request.Gemm) error {
	hh := C.uintptr_t(h)
	if s := C.cublas_set_stream(hh, C.uintptr_t(g.Stream)); s != 0 {
		return fmt.Errorf("cublasSetStream: status %d", s)
	}
	if s := C.cublas_set_pointer_mode(hh, C.int(g.PointerMode)); s != 0 {
		return fmt.Errorf("cublasSetPointerMode: status %d", s)
	}
	if s := C.cublas_set_math_mode(hh, C.int(g.MathMode)); s != 0 {
		return fmt.Errorf("cublasSetMathMode: status %d", s)
	}
	return nil
}

// scalars returns g's alpha and beta as the call passes them: g's device
// pointers, or host copies of g's Bits in C memory (freed by the returned
// function, after the call).
func scalars(g *request.Gemm) (alpha, beta C.uintptr_t, free func()) {
	if g.PointerMode != request.PointerHost {
		return C.uintptr_t(g.Alpha.Ptr), C.uintptr_t(g.Beta.Ptr), func() {}
	}
	scal := (*[2]uint64)(C.malloc(16))
	scal[0], scal[1] = g.Alpha.Bits, g.Beta.Bits
	return C.uintptr_t(uintptr(unsafe.Pointer(&scal[0]))), C.uintptr_t(uintptr(unsafe.Pointer(&scal[1]))),
		func() { C.free(unsafe.Pointer(scal)) }
}

// GemmArrays runs g's matrices with cublasGemmBatchedEx, the batched GEMM
// of arrays of pointers: a, b and c are device arrays of g.Batch pointers
// to the matrices of A, B and C (MatrixPointers' of g's strided layout),
// on g's stream, pointer mode and math mode.
func (h Handle) GemmArrays(g *request.Gemm, a, b, c uintptr) error {
	if err := h.setState(g); err != nil {
		return err
	}
	alpha, beta, free := scalars(g)
	defer free()
	s := C.cublas_gemm_batched(C.uintptr_t(h), C.int(g.TransA), C.int(g.TransB), C.int(g.M), C.int(g.N), C.int(g.K),
		alpha, C.uintptr_t(a), C.int(g.AType), C.int(g.LDA), C.uintptr_t(b), C.int(g.BType), C.int(g.LDB),
		beta, C.uintptr_t(c), C.int(g.CType), C.int(g.LDC), C.int(g.Batch), C.int(g.Compute))
	if s != 0 {
		return fmt.Errorf("cublasGemmBatchedEx: status %d", s)
	}
	return nil
}

// MatrixPointers are the addresses of the batch matrices of a strided
// layout: base plus i·stride elements of size bytes, for i < batch (a
// stride of 0: one matrix for every entry).
func MatrixPointers(base uintptr, stride int64, size int, batch int64) []uint64 {
	out := make([]uint64, batch)
	for i := range out {
		out[i] = uint64(base) + uint64(int64(i)*stride*int64(size))
	}
	return out
}

// ArraysAlignment is the alignment in bytes cuBLAS's documentation asks of
// every matrix pointer in the arrays its batched GEMMs of pointers take
// (cublas<t>gemmBatched, cublasGemmBatchedEx): given FP16 matrices at
// odd element offsets, cublasGemmBatchedEx ends in a misaligned address
// (gputest/results/h200/batched/call26).
const ArraysAlignment = 16

// ArraysAligned reports whether every pointer MatrixArrays would make for
// g is a multiple of ArraysAlignment: what cuBLAS's batched GEMM of arrays
// of pointers may be given.
func ArraysAligned(g *request.Gemm) bool {
	for _, m := range []struct {
		base   uintptr
		stride int64
		size   int
	}{{g.A, g.StrideA, g.AType.Size()}, {g.B, g.StrideB, g.BType.Size()}, {g.C, g.StrideC, g.CType.Size()}} {
		if m.base%ArraysAlignment != 0 || m.stride*int64(m.size)%ArraysAlignment != 0 {
			return false
		}
	}
	return true
}

// MatrixArrays are device arrays of the addresses of g's matrices of A, B
// and C (MatrixPointers of g's strided layout), for GemmArrays: what a
// caller of the arrays-of-pointers entry point would pass for the same
// matrices. The caller frees them.
func MatrixArrays(g *request.Gemm) ([3]cuda.DevicePtr, error) {
	var arr [3]cuda.DevicePtr
	for i, m := range []struct {
		base   uintptr
		stride int64
		size   int
	}{{g.A, g.StrideA, g.AType.Size()}, {g.B, g.StrideB, g.BType.Size()}, {g.C, g.StrideC, g.CType.Size()}} {
		ptrs := MatrixPointers(m.base, m.stride, m.size, g.Batch)
		raw := make([]byte, 8*len(ptrs))
		for j, p := range ptrs {
			binary.LittleEndian.PutUint64(raw[8*j:], p)
		}
		d, err := cuda.Alloc(len(raw))
		if err == nil {
			if err = d.CopyFromHost(raw); err != nil {
				d.Free()
			}
		}
		if err != nil {
			for _, p := range arr[:i] {
				p.Free()
			}
			return [3]cuda.DevicePtr{}, err
		}
		arr[i] = d
	}
	return arr, nil
}

// Gemm runs g with cublasGemmEx (the legacy Sgemm/Dgemm/Hgemm are GemmEx
// with the matching compute type), or a strided-batched g with
// cublasGemmStridedBatchedEx, on g's stream, pointer mode and math mode.
// Host scalars are read from g's Bits.
func (h Handle) Gemm(g *request.Gemm) error {
	if err := h.setState(g); err != nil {
		return err
	}
	hh := C.uintptr_t(h)
	alpha, beta, free := scalars(g)
	defer free()
	if g.Entry.Batched() {
		s := C.cublas_gemm_sb(hh, C.int(g.TransA), C.int(g.TransB), C.int(g.M), C.int(g.N), C.int(g.K),
			alpha, C.uintptr_t(g.A), C.int(g.AType), C.int(g.LDA), C.longlong(g.StrideA), C.uintptr_t(g.B), C.int(g.BType),
			C.int(g.LDB), C.longlong(g.StrideB), beta, C.uintptr_t(g.C), C.int(g.CType), C.int(g.LDC), C.longlong(g.StrideC),
			C.int(g.Batch), C.int(g.Compute))
		if s != 0 {
			return fmt.Errorf("cublasGemmStridedBatchedEx: status %d", s)
		}
		return nil
	}
	s := C.cublas_gemmex(hh, C.int(g.TransA), C.int(g.TransB), C.int(g.M), C.int(g.N), C.int(g.K),
		alpha, C.uintptr_t(g.A), C.int(g.AType), C.int(g.LDA), C.uintptr_t(g.B), C.int(g.BType),
		C.int(g.LDB), beta, C.uintptr_t(g.C), C.int(g.CType), C.int(g.LDC), C.int(g.Compute))
	if s != 0 {
		return fmt.Errorf("cublasGemmEx: status %d", s)
	}
	return nil
}
