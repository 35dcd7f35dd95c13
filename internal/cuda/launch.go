package cuda

/*
#include "calls.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"
)

// Stream is a CUstream (0 is the legacy default stream).
type Stream uintptr

// Params packs kernel parameters by value, each at its natural alignment, as
// the kernel's .param list declares them. Any width works (structures,
// vectors), unlike APIs limited to 8-byte arguments. A Params can be Reset
// and reused to avoid allocation on hot paths.
type Params struct {
	buf     []byte
	offsets []C.int
}

// MaxParams is the most parameters one launch takes.
const MaxParams = C.ISAAC_MAX_KERNEL_PARAMS

// Reset empties p, keeping its storage.
func (p *Params) Reset() { p.buf = p.buf[:0]; p.offsets = p.offsets[:0] }

// Len is the number of parameters.
func (p *Params) Len() int { return len(p.offsets) }

func (p *Params) slot(size, align int) []byte {
	off := (len(p.buf) + align - 1) &^ (align - 1)
	if n := off + size - len(p.buf); n > 0 {
		p.buf = append(p.buf, make([]byte, n)...) // zeroed padding and slot, no temporary
	}
	p.offsets = append(p.offsets, C.int(off))
	return p.buf[off : off+size]
}

// U64 appends a 64-bit parameter (a device pointer, or .u64/.s64).
func (p *Params) U64(v uint64) *Params { binary.LittleEndian.PutUint64(p.slot(8, 8), v); return p }

// Ptr appends a device pointer.
func (p *Params) Ptr(v uintptr) *Params { return p.U64(uint64(v)) }

// I32 appends a .s32 parameter.
func (p *Params) I32(v int32) *Params {
	binary.LittleEndian.PutUint32(p.slot(4, 4), uint32(v))
	return p
}

// U32 appends a .u32 parameter.
func (p *Params) U32(v uint32) *Params { binary.LittleEndian.PutUint32(p.slot(4, 4), v); return p }

// U16 appends a .b16 parameter (e.g. an f16 scalar's bits).
func (p *Params) U16(v uint16) *Params { binary.LittleEndian.PutUint16(p.slot(2, 2), v); return p }

// F32 appends a .f32 parameter.
func (p *Params) F32(v float32) *Params { return p.U32(math.Float32bits(v)) }

// F64 appends a .f64 parameter.
func (p *Params) F64(v float64) *Params { return p.U64(math.Float64bits(v)) }

// Bytes appends a parameter of arbitrary size and alignment (a .param
// .align A .b8 name[N] structure).
func (p *Params) Bytes(b []byte, align int) *Params { copy(p.slot(len(b), align), b); return p }

// Arg is the bytes of parameter i as packed (up to the next parameter's
// offset, or the end): for tests and diagnostics.
func (p *Params) Arg(i int) []byte {
	end := len(p.buf)
	if i+1 < len(p.offsets) {
		end = int(p.offsets[i+1])
	}
	return p.buf[p.offsets[i]:end]
}

// Packed is a copy of p's bytes and of each parameter's offset in them (a
// launch kept to be made again, kernels.Recording).
func (p *Params) Packed() ([]byte, []int32) {
	offs := make([]int32, len(p.offsets))
	for i, o := range p.offsets {
		offs[i] = int32(o)
	}
	return append([]byte(nil), p.buf...), offs
}

// Dim3 is a grid or block shape.
type Dim3 [3]uint32

var errTooManyParams = errors.New("cuda: too many kernel parameters")

func (p *Params) pointers() (*C.uchar, *C.int, error) {
	if len(p.offsets) > MaxParams {
		return nil, nil, errTooManyParams
	}
	if len(p.offsets) == 0 {
		return nil, nil, nil
	}
	return (*C.uchar)(unsafe.Pointer(&p.buf[0])), &p.offsets[0], nil
}

// Launch launches f on stream with the given shape, dynamic shared memory
// and parameters (cuLaunchKernel).
func Launch(f Function, grid, block Dim3, sharedBytes int, stream Stream, p *Params) error {
	args, offs, err := p.pointers()
	if err != nil {
		return err
	}
	r := C.isaac_cuda_launch(C.uintptr_t(f), (*C.uint)(&grid[0]), (*C.uint)(&block[0]),
		C.uint(sharedBytes), C.uintptr_t(stream), args, offs, C.int(p.Len()))
	return check("cuLaunchKernel", r)
}

// LaunchCluster launches f with thread-block clusters of the given shape
// (cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, sm_90+).
func LaunchCluster(f Function, grid, block, cluster Dim3, sharedBytes int, stream Stream, p *Params) error {
	return LaunchEx(f, grid, block, cluster, false, sharedBytes, stream, p)
}

// LaunchEx launches f through cuLaunchKernelEx: with thread-block clusters
// of the given shape unless it is zero, and with dependent as a
// programmatic dependent launch (sm_90+): f's blocks may start while the
// grid before it in the stream is still running, so f must wait for that
// grid (griddepcontrol.wait) before it reads or writes memory.
func LaunchEx(f Function, grid, block, cluster Dim3, dependent bool, sharedBytes int, stream Stream, p *Params) error {
	args, offs, err := p.pointers()
	if err != nil {
		return err
	}
	dep := C.int(0)
	if dependent {
		dep = 1
	}
	r := C.isaac_cuda_launch_ex(C.uintptr_t(f), (*C.uint)(&grid[0]), (*C.uint)(&block[0]),
		(*C.uint)(&cluster[0]), dep, C.uint(sharedBytes), C.uintptr_t(stream), args, offs, C.int(p.Len()))
	return check("cuLaunchKernelEx", r)
}

// LaunchRecord is one kernel launch kept as data, to be made again by C
// code elsewhere in the process (the shim's repeated convolutions): the
// kernel, its shape, its parameters as packed and the addresses patched
// into them on each repeat.
type LaunchRecord struct {
	Fn                   Function
	Grid, Block, Cluster Dim3 // Cluster zero: no clusters
	Dependent            bool // a programmatic dependent of the grid before it
	SharedBytes          int
	Params               []byte  // as Params packed them
	Offsets              []int32 // each parameter's offset in Params
	Patches              []Patch
}

// Patch is an address that a repeated launch takes from its call: the 8
// bytes at At in the parameters become the call's address Operand plus Add.
type Patch struct {
	At, Operand int
	Add         int64
}

// LaunchEntries are the C functions with which code outside this package
// launches kernels as Launch and LaunchEx do, reads the current context's
// ID and asks whether a stream is being captured (isaac_cuda_launch,
// isaac_cuda_launch_ex, isaac_cuda_current_id, isaac_cuda_capturing), as
// addresses, with the driver loaded (an error where it cannot be).
func LaunchEntries() (launch, launchEx, currentID, capturing unsafe.Pointer, err error) {
	if err := Load(); err != nil {
		return nil, nil, nil, nil, err
	}
	return unsafe.Pointer(C.isaac_cuda_launch), unsafe.Pointer(C.isaac_cuda_launch_ex),
		unsafe.Pointer(C.isaac_cuda_current_id), unsafe.Pointer(C.isaac_cuda_capturing), nil
}

// Make launches l on stream with the addresses operands patched in, as the
// shim's C repeats it (tests compare the two ways of launching a record).
func (l LaunchRecord) Make(stream Stream, operands [3]uintptr) error {
	p := &Params{buf: append([]byte(nil), l.Params...), offsets: make([]C.int, len(l.Offsets))}
	for i, o := range l.Offsets {
		p.offsets[i] = C.int(o)
	}
	for _, pt := range l.Patches {
		if pt.At < 0 || pt.At+8 > len(p.buf) || pt.Operand < 0 || pt.Operand > 2 {
			return errors.New("cuda: a patch outside the launch's parameters")
		}
		binary.LittleEndian.PutUint64(p.buf[pt.At:], uint64(operands[pt.Operand])+uint64(pt.Add))
	}
	if l.Dependent || l.Cluster != (Dim3{}) {
		return LaunchEx(l.Fn, l.Grid, l.Block, l.Cluster, l.Dependent, l.SharedBytes, stream, p)
	}
	return Launch(l.Fn, l.Grid, l.Block, l.SharedBytes, stream, p)
}
