// Package cudnn calls the real cuDNN, loaded with dlopen, for tests and
// benchmarks that compare ISAAC's convolutions with the vendor's in one
// process, through the legacy entry point a caller of
// cudnnConvolutionForward uses. It is never part of libisaac.so.
package cudnn

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>

typedef struct {
	int algo, status;
	float time;
	size_t memory;
	int determinism, mathType, reserved[3];
} algo_perf;

static void *lib;
static int (*p_create)(void **);
static int (*p_destroy)(void *);
static int (*p_set_stream)(void *, void *);
static int (*p_create_desc)(void **);
static int (*p_destroy_desc)(void *);
static int (*p_tensor)(void *, int, int, int, int, int, int, int, int, int);
static int (*p_filter)(void *, int, int, int, int, int, int);
static int (*p_conv)(void *, int, int, int, int, int, int, int, int);
static int (*p_conv_math)(void *, int);
static int (*p_conv_groups)(void *, int);
static int (*p_get_algo)(void *, void *, void *, void *, void *, int, int *, algo_perf *);
static int (*p_find_algo)(void *, void *, const void *, void *, const void *, void *, void *, void *, int, int *, algo_perf *, void *, size_t);
static int (*p_ws_size)(void *, void *, void *, void *, void *, int, size_t *);
static int (*p_forward)(void *, const void *, void *, const void *, void *, const void *, void *, int, void *, size_t, const void *, void *, void *);
static size_t (*p_version)(void);

#define SYM(p, name) (*(void **)(&p) = dlsym(lib, name))
static int cudnn_load(void)
{
	static const char *names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL};
	for (int i = 0; names[i] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	int ok = SYM(p_create, "cudnnCreate") && SYM(p_destroy, "cudnnDestroy") && SYM(p_set_stream, "cudnnSetStream") &&
		SYM(p_tensor, "cudnnSetTensor4dDescriptorEx") && SYM(p_filter, "cudnnSetFilter4dDescriptor") &&
		SYM(p_conv, "cudnnSetConvolution2dDescriptor") && SYM(p_conv_math, "cudnnSetConvolutionMathType") && SYM(p_conv_groups, "cudnnSetConvolutionGroupCount") &&
		SYM(p_get_algo, "cudnnGetConvolutionForwardAlgorithm_v7") &&
		SYM(p_find_algo, "cudnnFindConvolutionForwardAlgorithmEx") &&
		SYM(p_ws_size, "cudnnGetConvolutionForwardWorkspaceSize") && SYM(p_forward, "cudnnConvolutionForward") &&
		SYM(p_version, "cudnnGetVersion");
	return ok ? 0 : -2;
}

static int create_desc(const char *create, uintptr_t *d)
{
	int (*f)(void **) = (int (*)(void **))dlsym(lib, create);
	void *p = NULL;
	int s = f ? f(&p) : -1;
	*d = (uintptr_t)p;
	return s;
}
static int destroy_desc(const char *destroy, uintptr_t d)
{
	int (*f)(void *) = (int (*)(void *))dlsym(lib, destroy);
	return f ? f((void *)d) : -1;
}
static long cudnn_version(void) { return p_version ? (long)p_version() : -1; }
static int cudnn_create(uintptr_t *h) { void *p = NULL; int s = p_create(&p); *h = (uintptr_t)p; return s; }
static int cudnn_destroy(uintptr_t h) { return p_destroy((void *)h); }
static int cudnn_set_stream(uintptr_t h, uintptr_t s) { return p_set_stream((void *)h, (void *)s); }
static int cudnn_tensor(uintptr_t d, int t, int n, int c, int h, int w, int sn, int sc, int sh, int sw)
{
	return p_tensor((void *)d, t, n, c, h, w, sn, sc, sh, sw);
}
static int cudnn_filter(uintptr_t d, int t, int format, int k, int c, int h, int w) { return p_filter((void *)d, t, format, k, c, h, w); }
static int cudnn_conv(uintptr_t d, int ph, int pw, int sh, int sw, int dh, int dw, int mode, int compute, int math, int groups)
{
	int s = p_conv((void *)d, ph, pw, sh, sw, dh, dw, mode, compute);
	if (!s)
		s = p_conv_math((void *)d, math);
	return s ? s : p_conv_groups((void *)d, groups);
}
// first_ok is the first successful algorithm of a ranked list (-3: none).
static int first_ok(const algo_perf *perf, int n, int *algo, size_t *mem, float *ms)
{
	for (int i = 0; i < n; i++)
		if (perf[i].status == 0) {
			*algo = perf[i].algo;
			*mem = perf[i].memory;
			*ms = perf[i].time;
			return 0;
		}
	return -3;
}
static int cudnn_get_algo(uintptr_t h, uintptr_t x, uintptr_t w, uintptr_t c, uintptr_t y, int *algo, size_t *ws)
{
	algo_perf perf[16];
	int n = 0;
	float ms;
	int s = p_get_algo((void *)h, (void *)x, (void *)w, (void *)c, (void *)y, 16, &n, perf);
	return s ? s : first_ok(perf, n, algo, ws, &ms);
}
static int cudnn_find_algo(uintptr_t h, uintptr_t x, uintptr_t xp, uintptr_t w, uintptr_t wp, uintptr_t c, uintptr_t y, uintptr_t yp,
	uintptr_t ws, size_t wsBytes, int *algo, size_t *need, float *ms)
{
	algo_perf perf[16];
	int n = 0;
	int s = p_find_algo((void *)h, (void *)x, (const void *)xp, (void *)w, (const void *)wp, (void *)c, (void *)y, (void *)yp,
		16, &n, perf, (void *)ws, wsBytes);
	return s ? s : first_ok(perf, n, algo, need, ms);
}
static int cudnn_forward(uintptr_t h, const void *alpha, uintptr_t x, uintptr_t xp, uintptr_t w, uintptr_t wp, uintptr_t c, int algo,
	uintptr_t ws, size_t wsBytes, const void *beta, uintptr_t y, uintptr_t yp)
{
	return p_forward((void *)h, alpha, (void *)x, (const void *)xp, (void *)w, (const void *)wp, (void *)c, algo,
		(void *)ws, wsBytes, beta, (void *)y, (void *)yp);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

var load = sync.OnceValue(func() error {
	switch C.cudnn_load() {
	case -1:
		return errors.New("cudnn: libcudnn.so not found")
	case -2:
		return errors.New("cudnn: libcudnn.so lacks an entry point")
	}
	return nil
})

// Version is cuDNN's version number (e.g. 91900 for 9.19.0).
func Version() (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	return int(C.cudnn_version()), nil
}

// Handle is a cuDNN handle, created in the current context.
type Handle uintptr

// New creates a handle.
func New() (Handle, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var h C.uintptr_t
	if s := C.cudnn_create(&h); s != 0 {
		return 0, fmt.Errorf("cudnnCreate: status %d", s)
	}
	return Handle(h), nil
}

// Destroy destroys the handle.
func (h Handle) Destroy() { C.cudnn_destroy(C.uintptr_t(h)) }

// Conv is a convolution's descriptors, made from a request as the caller
// that made the request would have made them.
type Conv struct {
	h          Handle
	c          *request.Conv
	x, w, y, d C.uintptr_t
}

func descriptor(kind string, d *C.uintptr_t) error {
	name := C.CString("cudnnCreate" + kind + "Descriptor")
	defer C.free(unsafe.Pointer(name))
	if s := C.create_desc(name, d); s != 0 {
		return fmt.Errorf("cudnnCreate%sDescriptor: status %d", kind, s)
	}
	return nil
}

// Describe makes c's descriptors (2-d convolutions, with c's group count).
func (h Handle) Describe(c *request.Conv) (*Conv, error) {
	v := &Conv{h: h, c: c}
	for _, d := range []struct {
		kind string
		p    *C.uintptr_t
	}{{"Tensor", &v.x}, {"Tensor", &v.y}, {"Filter", &v.w}, {"Convolution", &v.d}} {
		if err := descriptor(d.kind, d.p); err != nil {
			v.Destroy()
			return nil, err
		}
	}
	tensor := func(d C.uintptr_t, t request.Tensor) C.int {
		return C.cudnn_tensor(d, C.int(t.Type), C.int(t.Dims[0]), C.int(t.Dims[1]), C.int(t.Dims[2]), C.int(t.Dims[3]),
			C.int(t.Strides[0]), C.int(t.Strides[1]), C.int(t.Strides[2]), C.int(t.Strides[3]))
	}
	for _, set := range []struct {
		name   string
		status C.int
	}{
		{"cudnnSetTensor4dDescriptorEx(x)", tensor(v.x, c.X)},
		{"cudnnSetTensor4dDescriptorEx(y)", tensor(v.y, c.Y)},
		{"cudnnSetFilter4dDescriptor", C.cudnn_filter(v.w, C.int(c.W.Type), C.int(c.W.Format), C.int(c.W.Dims[0]), C.int(c.W.Dims[1]), C.int(c.W.Dims[2]), C.int(c.W.Dims[3]))},
		{"cudnnSetConvolution2dDescriptor", C.cudnn_conv(v.d, C.int(c.Pad[0]), C.int(c.Pad[1]), C.int(c.Stride[0]), C.int(c.Stride[1]),
			C.int(c.Dilation[0]), C.int(c.Dilation[1]), C.int(c.Mode), C.int(c.Compute), C.int(c.MathType), C.int(max(c.Groups, 1)))},
	} {
		if set.status != 0 {
			v.Destroy()
			return nil, fmt.Errorf("%s: status %d", set.name, set.status)
		}
	}
	return v, nil
}

// Destroy destroys the descriptors.
func (v *Conv) Destroy() {
	for _, d := range []struct {
		kind string
		p    C.uintptr_t
	}{{"Tensor", v.x}, {"Tensor", v.y}, {"Filter", v.w}, {"Convolution", v.d}} {
		if d.p != 0 {
			name := C.CString("cudnnDestroy" + d.kind + "Descriptor")
			C.destroy_desc(name, d.p)
			C.free(unsafe.Pointer(name))
		}
	}
}

// Algo is a forward algorithm and the workspace it needs.
type Algo struct {
	Algo           int
	WorkspaceBytes int
	FoundMS        float64 // cudnnFindConvolutionForwardAlgorithmEx's time (0: not found by timing)
}

// Heuristic is the algorithm cudnnGetConvolutionForwardAlgorithm_v7 ranks
// first (what most programs run).
func (v *Conv) Heuristic() (Algo, error) {
	var algo C.int
	var ws C.size_t
	if s := C.cudnn_get_algo(C.uintptr_t(v.h), v.x, v.w, v.d, v.y, &algo, &ws); s != 0 {
		return Algo{}, fmt.Errorf("cudnnGetConvolutionForwardAlgorithm_v7: status %d", s)
	}
	return Algo{Algo: int(algo), WorkspaceBytes: int(ws)}, nil
}

// Fastest is the algorithm cudnnFindConvolutionForwardAlgorithmEx times
// fastest on the request's tensors with a workspace of up to wsBytes at ws
// (it overwrites y).
func (v *Conv) Fastest(ws uintptr, wsBytes int) (Algo, error) {
	var algo C.int
	var need C.size_t
	var ms C.float
	c := v.c
	if s := C.cudnn_find_algo(C.uintptr_t(v.h), v.x, C.uintptr_t(c.XPtr), v.w, C.uintptr_t(c.WPtr), v.d, v.y, C.uintptr_t(c.YPtr),
		C.uintptr_t(ws), C.size_t(wsBytes), &algo, &need, &ms); s != 0 {
		return Algo{}, fmt.Errorf("cudnnFindConvolutionForwardAlgorithmEx: status %d", s)
	}
	return Algo{Algo: int(algo), WorkspaceBytes: int(need), FoundMS: float64(ms)}, nil
}

// Forward runs the convolution with algorithm a and its workspace at ws,
// on the request's stream, alpha and beta from the request (host memory:
// double for double data, float otherwise).
func (v *Conv) Forward(a Algo, ws uintptr) error {
	c := v.c
	if s := C.cudnn_set_stream(C.uintptr_t(v.h), C.uintptr_t(c.Stream)); s != 0 {
		return fmt.Errorf("cudnnSetStream: status %d", s)
	}
	scal := (*[2]uint64)(C.malloc(16))
	defer C.free(unsafe.Pointer(scal))
	scal[0], scal[1] = c.Alpha.Bits, c.Beta.Bits
	if s := C.cudnn_forward(C.uintptr_t(v.h), unsafe.Pointer(&scal[0]), v.x, C.uintptr_t(c.XPtr), v.w, C.uintptr_t(c.WPtr), v.d, C.int(a.Algo),
		C.uintptr_t(ws), C.size_t(a.WorkspaceBytes), unsafe.Pointer(&scal[1]), v.y, C.uintptr_t(c.YPtr)); s != 0 {
		return fmt.Errorf("cudnnConvolutionForward (algo %d): status %d", a.Algo, s)
	}
	return nil
}
