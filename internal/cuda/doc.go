// Package cuda is ISAAC's binding of the CUDA driver API. The driver is
// loaded at first use with dlopen("libcuda.so.1") and every entry point is
// resolved with cuGetProcAddress for one ABI version, so the library builds
// without CUDA headers or libraries, loads on machines without a GPU, and
// works in whatever context the calling application made current: nothing
// here creates a context except Device.RetainPrimaryContext, for tools and
// tests that have no application around them.
//
// Kernel parameters are packed by value into a byte buffer (Params), so any
// parameter width works.
package cuda

/*
#cgo CFLAGS: -O2 -Wall -fvisibility=hidden
#cgo LDFLAGS: -ldl -lpthread
*/
import "C"
