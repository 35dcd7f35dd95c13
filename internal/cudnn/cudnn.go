// Package cudnn reaches the real cuDNN, loaded with dlopen, for tests and
// benchmarks. It is never part of libisaac.so.
package cudnn

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>

static long cudnn_version(void)
{
	static const char *names[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL};
	void *lib = NULL;
	for (int i = 0; names[i] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	size_t (*f)(void) = (size_t (*)(void))dlsym(lib, "cudnnGetVersion");
	return f ? (long)f() : -1;
}
*/
import "C"

import "errors"

// Version is cuDNN's version number (e.g. 91900 for 9.19.0).
func Version() (int, error) {
	v := C.cudnn_version()
	if v < 0 {
		return 0, errors.New("cudnn: libcudnn.so not found")
	}
	return int(v), nil
}
