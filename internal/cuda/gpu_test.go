package cuda

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"testing"
)

// gpu skips the test unless a CUDA driver and a device are present, and
// makes device 0's primary context current on the test's locked OS thread.
func gpu(t testing.TB) Device {
	t.Helper()
	if err := Load(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if n, err := DeviceCount(); err != nil || n == 0 {
		t.Skipf("no GPU: %d devices, %v", n, err)
	}
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	d, err := GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RetainPrimaryContext(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.ReleasePrimaryContext() })
	return d
}

// A test kernel with a 24-byte structure parameter:
// out[i] = coef.a*x[i] + coef.b + coef.c for i < n.
const axpyPTX = `
.version 7.8
.target sm_80
.address_size 64

.visible .entry axpy_struct(
	.param .u64 out,
	.param .u64 x,
	.param .s32 n,
	.param .align 8 .b8 coef[24]
)
{
	.reg .pred %p;
	.reg .s32 %r<8>;
	.reg .u64 %rd<8>;
	.reg .f64 %fd<8>;

	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [x];
	ld.param.s32 %r1, [n];
	ld.param.f64 %fd1, [coef];
	ld.param.f64 %fd2, [coef+8];
	ld.param.s32 %r2, [coef+16];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r6, %r3, %r4, %r5;
	setp.ge.s32 %p, %r6, %r1;
	@%p bra DONE;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.s32 %rd5, %r6, 8;
	add.u64 %rd6, %rd4, %rd5;
	ld.global.f64 %fd3, [%rd6];
	cvt.rn.f64.s32 %fd4, %r2;
	fma.rn.f64 %fd5, %fd1, %fd3, %fd2;
	add.f64 %fd6, %fd5, %fd4;
	add.u64 %rd7, %rd3, %rd5;
	st.global.f64 [%rd7], %fd6;
DONE:
	ret;
}
`

func TestGPUDevice(t *testing.T) {
	d := gpu(t)
	name, err := d.Name()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := DriverVersion()
	mem, _ := d.TotalMemory()
	t.Logf("device 0: %s, driver CUDA %d, %d MiB", name, v, mem>>20)
	for _, a := range []struct {
		attr     DeviceAttribute
		name     string
		min, max int
	}{
		{AttrMaxThreadsPerBlock, "max threads/block", 1024, 1024},
		{AttrWarpSize, "warp size", 32, 32},
		{AttrMultiprocessorCount, "SMs", 1, 1024},
		{AttrComputeCapabilityMajor, "cc major", 7, 20},
		{AttrMaxSharedPerBlockOptin, "smem/block opt-in", 48 << 10, 1 << 20},
		{AttrMaxSharedPerSM, "smem/SM", 64 << 10, 1 << 20},
		{AttrMaxRegistersPerSM, "regs/SM", 32768, 1 << 20},
		{AttrL2CacheSize, "L2 bytes", 1 << 20, 1 << 30},
		{AttrMaxBlocksPerSM, "blocks/SM", 8, 64},
		{AttrReservedSharedPerBlock, "reserved smem/block", 0, 4096},
		{AttrMemoryPoolsSupported, "memory pools", 1, 1},
	} {
		got, err := d.Attribute(a.attr)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		t.Logf("%-20s %d", a.name, got)
		if got < a.min || got > a.max {
			t.Errorf("%s = %d, outside [%d, %d]: wrong attribute number?", a.name, got, a.min, a.max)
		}
	}
	ctx, err := CurrentContext()
	if err != nil || ctx == 0 {
		t.Fatalf("CurrentContext = %v, %v", ctx, err)
	}
	id, err := ctx.ID()
	if err != nil || id == 0 {
		t.Errorf("context ID = %d, %v", id, err)
	}
	if cd, err := CurrentDevice(); err != nil || cd != d {
		t.Errorf("CurrentDevice = %v, %v", cd, err)
	}
}

func TestGPULaunchStructParam(t *testing.T) {
	gpu(t)
	mod, info, err := LoadPTX(axpyPTX, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Unload()
	t.Logf("JIT info log: %s", info)
	f, err := mod.Function("axpy_struct")
	if err != nil {
		t.Fatal(err)
	}
	if regs, err := f.Attribute(FuncNumRegs); err != nil || regs <= 0 {
		t.Errorf("registers = %d, %v", regs, err)
	}
	if err := f.SetMaxDynamicShared(64 << 10); err != nil {
		t.Errorf("raising the dynamic shared-memory limit: %v", err)
	}
	const n = 1000
	x := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(x[8*i:], math.Float64bits(float64(i)*0.5))
	}
	dx, err := Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	defer dx.Free()
	dout, err := Alloc(len(x))
	if err != nil {
		t.Fatal(err)
	}
	defer dout.Free()
	if err := dx.CopyFromHost(x); err != nil {
		t.Fatal(err)
	}
	s, err := NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := dout.MemsetD32Async(0x7fc00000, 2*n, s); err != nil { // poison: NaNs
		t.Fatal(err)
	}
	if st, err := s.CaptureStatus(); err != nil || st != CaptureNone {
		t.Errorf("capture status %v, %v", st, err)
	}
	coef := make([]byte, 24)
	binary.LittleEndian.PutUint64(coef[0:], math.Float64bits(3))
	binary.LittleEndian.PutUint64(coef[8:], math.Float64bits(-1))
	binary.LittleEndian.PutUint32(coef[16:], 7)
	var p Params
	p.Ptr(uintptr(dout)).Ptr(uintptr(dx)).I32(n).Bytes(coef, 8)
	start, _ := NewEvent()
	stop, _ := NewEvent()
	defer start.Destroy()
	defer stop.Destroy()
	start.Record(s)
	if err := Launch(f, Dim3{(n + 127) / 128, 1, 1}, Dim3{128, 1, 1}, 0, s, &p); err != nil {
		t.Fatal(err)
	}
	stop.Record(s)
	if err := stop.Synchronize(); err != nil {
		t.Fatal(err)
	}
	ms, err := stop.Elapsed(start)
	if err != nil || ms <= 0 {
		t.Errorf("elapsed %v ms, %v", ms, err)
	}
	out := make([]byte, len(x))
	if err := dout.CopyToHost(out); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
		if want := 3*float64(i)*0.5 - 1 + 7; got != want {
			t.Fatalf("out[%d] = %v, want %v", i, got, want)
		}
	}
	// The same kernel in clusters of 2 blocks (sm_90+).
	d, _ := CurrentDevice()
	if cc, _ := d.Attribute(AttrComputeCapabilityMajor); cc >= 9 {
		dout.MemsetD32Async(0, 2*n, s)
		if err := LaunchCluster(f, Dim3{8, 1, 1}, Dim3{128, 1, 1}, Dim3{2, 1, 1}, 0, s, &p); err != nil {
			t.Fatal(err)
		}
		s.Synchronize()
		dout.CopyToHost(out)
		if got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*999:])); got != 3*999*0.5+6 {
			t.Errorf("cluster launch: out[999] = %v", got)
		}
	}
}

func TestGPUJITErrorLog(t *testing.T) {
	gpu(t)
	_, _, err := LoadPTX(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n", 0)
	var jerr *JITError
	if !errors.As(err, &jerr) {
		t.Fatalf("bad PTX: error %v, want a *JITError", err)
	}
	if len(jerr.Log) == 0 {
		t.Error("JIT error log is empty")
	}
	t.Logf("JIT error (expected): %v", err)
}

func TestGPUCompileAndLoadImage(t *testing.T) {
	gpu(t)
	image, info, err := CompilePTX(axpyPTX)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cubin %d bytes; JIT info: %s", len(image), info)
	if len(image) < 4 || string(image[1:4]) != "ELF" {
		t.Fatalf("compiled image is not an ELF cubin: % x", image[:min(8, len(image))])
	}
	mod, err := LoadImage(image)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Unload()
	if _, err := mod.Function("axpy_struct"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CompilePTX("not ptx"); err == nil {
		t.Error("compiling garbage succeeded")
	}
}

// An event reports its work done without waiting once the stream has
// finished it, and elapsed times between two done events are readable.
func TestGPUEventDone(t *testing.T) {
	gpu(t)
	s, err := NewStream()
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Destroy()
	b, err := NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destroy()
	buf, err := Alloc(64 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if err := a.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := buf.MemsetD32Async(1, 16<<20, s); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	for _, e := range []Event{a, b} {
		if done, err := e.Done(); !done || err != nil {
			t.Errorf("after the stream finished: done %v, %v", done, err)
		}
	}
	if ms, err := b.Elapsed(a); err != nil || ms <= 0 {
		t.Errorf("elapsed %v ms, %v", ms, err)
	}
}

// BenchmarkGPUTensorMapEncode is the host time of encoding one tensor map
// (cuTensorMapEncodeTiled through the loaded driver, with a context
// current): what a TMA kernel's call on new operands pays per map.
func BenchmarkGPUTensorMapEncode(b *testing.B) {
	gpu(b)
	desc := TensorMapTiled{Type: TensorMapUint16, Base: 0x7f0000000000, Dims: [2]uint64{4096, 4096},
		Stride: 8192, Box: [2]uint32{64, 128}, Swizzle: Swizzle128B, Promotion: L2Promotion256B}
	var m [TensorMapBytes]byte
	for b.Loop() {
		if err := desc.Encode(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGPUCurrent is the host time of what every served call asks the
// driver first, with device 0's primary context current: the context, its
// ID and its device, by Current's one call into C and by the three calls
// it replaces.
func BenchmarkGPUCurrent(b *testing.B) {
	d := gpu(b)
	ctx, err := d.RetainPrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	defer d.ReleasePrimaryContext()
	// Each sub-benchmark runs on a goroutine of its own: its thread needs
	// the context current.
	current := func(b *testing.B) {
		runtime.LockOSThread()
		b.Cleanup(runtime.UnlockOSThread)
		if err := ctx.SetCurrent(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
	}
	b.Run("one-call", func(b *testing.B) {
		current(b)
		for b.Loop() {
			if c, _, _, err := Current(); err != nil || c != ctx {
				b.Fatalf("Current: %#x, %v; want %#x", c, err, ctx)
			}
		}
	})
	b.Run("three-calls", func(b *testing.B) {
		current(b)
		for b.Loop() {
			c, _ := CurrentContext()
			c.ID()
			CurrentDevice()
		}
	})
}
