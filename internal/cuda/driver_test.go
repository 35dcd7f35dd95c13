package cuda

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestParamsLayout checks that parameters are packed at their natural
// alignment, as a kernel's .param list lays them out.
func TestParamsLayout(t *testing.T) {
	var p Params
	p.U16(0xabcd).U64(1).I32(-2).Bytes(make([]byte, 24), 16).F32(1.5)
	want := []int{0, 8, 16, 32, 56}
	if p.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", p.Len(), len(want))
	}
	for i, off := range want {
		if int(p.offsets[i]) != off {
			t.Errorf("param %d at offset %d, want %d", i, p.offsets[i], off)
		}
	}
	if got := binary.LittleEndian.Uint32(p.buf[56:]); got != math.Float32bits(1.5) {
		t.Errorf("f32 bits %#x", got)
	}
	p.Reset()
	if p.Len() != 0 || len(p.buf) != 0 {
		t.Errorf("Reset left %d params, %d bytes", p.Len(), len(p.buf))
	}
	for i := 0; i <= MaxParams; i++ {
		p.I32(int32(i))
	}
	if _, _, err := p.pointers(); err == nil {
		t.Errorf("%d params accepted, limit is %d", p.Len(), MaxParams)
	}
}

// TestNoDriver checks that a missing driver is an error, not a crash.
func TestNoDriver(t *testing.T) {
	if os.Getenv("ISAAC_CUDA_CHILD") != "" {
		t.Skip("child run")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadChild$", "-test.v")
	cmd.Env = append(os.Environ(), "ISAAC_CUDA_CHILD=nodriver", "ISAAC_LIBCUDA=/nonexistent/libcuda.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("cannot load the CUDA driver")) {
		t.Errorf("child output lacks the load error:\n%s", out)
	}
}

// TestFakeDriver loads a fake libcuda.so.1 built by the test and checks the
// loader's cuGetProcAddress requests and the launch parameter plumbing.
func TestFakeDriver(t *testing.T) {
	if os.Getenv("ISAAC_CUDA_CHILD") != "" {
		t.Skip("child run")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, "testdata/fake_libcuda.c").CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	logPath := filepath.Join(t.TempDir(), "launch.log")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadChild$", "-test.v")
	cmd.Env = append(os.Environ(), "ISAAC_CUDA_CHILD=fake", "ISAAC_LIBCUDA="+lib, "FAKE_CUDA_LOG="+logPath)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("fake driver ok")) {
		t.Errorf("child did not confirm:\n%s", out)
	}
	got, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("the fake driver saw no launch: %v", err)
	}
	// The parameters the child packed: s32 -7, a 24-byte struct 01..18,
	// u64 0x1122334455667788, f32 2.5, b16 0x3c00, each by value.
	want := "grid=3,2,1 block=128,1,1 shared=4096 version=12000 flags_ok=1 params=" +
		"f9ffffff" + "0102030405060708090a0b0c0d0e0f101112131415161718" +
		"8877665544332211" + "00002040" + "003c\n"
	if string(got) != want {
		t.Errorf("the fake driver saw\n %q\nwant\n %q", got, want)
	}
}

func fakeDriverChild(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if v, err := DriverVersion(); err != nil || v != 13000 {
		t.Errorf("DriverVersion = %d, %v", v, err)
	}
	if v, err := Device(1).Attribute(AttrMultiprocessorCount); err != nil || v != 161 {
		t.Errorf("Attribute = %d, %v; want 161 from the fake", v, err)
	}
	// The current context, its ID and its device in one call, as the
	// three calls give them, without the three calls' allocations.
	if ctx, id, d, err := Current(); err != nil || ctx != 0xc0ffee0 || id != 77 || d != 1 {
		t.Errorf("Current = %#x, %d, %d, %v; want the fake's 0xc0ffee0, 77, 1", ctx, id, d, err)
	}
	ctx, err := CurrentContext()
	if err != nil || ctx != 0xc0ffee0 {
		t.Errorf("CurrentContext = %#x, %v", ctx, err)
	}
	if id, err := ctx.ID(); err != nil || id != 77 {
		t.Errorf("ID = %d, %v", id, err)
	}
	if d, err := CurrentDevice(); err != nil || d != 1 {
		t.Errorf("CurrentDevice = %d, %v", d, err)
	}
	one := testing.AllocsPerRun(100, func() { Current() })
	three := testing.AllocsPerRun(100, func() {
		c, _ := CurrentContext()
		c.ID()
		CurrentDevice()
	})
	if one != 0 || three <= one {
		t.Errorf("allocations: Current %v a call, the three calls %v", one, three)
	}
	t.Logf("allocations a call: Current %v, the three calls %v", one, three)
	st := make([]byte, 24)
	for i := range st {
		st[i] = byte(i + 1)
	}
	var p Params
	p.I32(-7).Bytes(st, 8).U64(0x1122334455667788).F32(2.5).U16(0x3c00)
	if err := Launch(Function(1), Dim3{3, 2, 1}, Dim3{128, 1, 1}, 4096, 0, &p); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	// A tensor map: the fake driver writes back what it was given.
	var tm [TensorMapBytes]byte
	desc := TensorMapTiled{Type: TensorMapUint16, Base: 0x7000_0000_1000, Dims: [2]uint64{2560, 77},
		Stride: 5120, Box: [2]uint32{64, 128}, Swizzle: Swizzle128B, Promotion: L2Promotion256B}
	if err := desc.Encode(&tm); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	le := binary.LittleEndian
	if le.Uint64(tm[0:]) != 0x7000_0000_1000 || le.Uint64(tm[8:]) != 2560 || le.Uint64(tm[16:]) != 77 ||
		le.Uint64(tm[24:]) != 5120 || le.Uint32(tm[32:]) != 64 || le.Uint32(tm[36:]) != 128 ||
		le.Uint32(tm[40:]) != 1 || le.Uint32(tm[44:]) != 1 {
		t.Errorf("tensor map arguments: % x", tm[:48])
	}
	// type, rank, interleave, swizzle, L2 promotion, out-of-bounds fill
	if got, want := tm[48:54], []byte{1, 2, 0, 3, 3, 0}; !bytes.Equal(got, want) {
		t.Errorf("tensor map enums % x, want % x", got, want)
	}
	// An im2col map: x of 2×9×11×64 halves in NHWC with a 3×3 filter's box.
	im := TensorMapIm2col{Type: TensorMapUint16, Base: 0x7000_0000_2000, Dims: [4]uint64{64, 11, 9, 2},
		Strides: [3]uint64{128, 128 * 11, 128 * 99}, Lower: [2]int32{-1, -2}, Upper: [2]int32{-1, 0},
		Channels: 64, Pixels: 128, ElemStrides: [4]uint32{1, 2, 1, 1}, Swizzle: Swizzle128B, Promotion: L2Promotion256B}
	if err := im.Encode(&tm); err != nil {
		t.Fatalf("Encode im2col: %v", err)
	}
	u16 := func(off int) int16 { return int16(le.Uint16(tm[off:])) }
	if le.Uint64(tm[0:]) != 0x7000_0000_2000 || le.Uint32(tm[8:]) != 64 || le.Uint32(tm[12:]) != 11 || le.Uint32(tm[16:]) != 9 ||
		le.Uint32(tm[20:]) != 2 || le.Uint32(tm[24:]) != 128 || le.Uint32(tm[28:]) != 128*11 || le.Uint32(tm[32:]) != 128*99 ||
		u16(36) != -1 || u16(38) != -2 || u16(40) != -1 || u16(42) != 0 || le.Uint16(tm[44:]) != 64 || le.Uint16(tm[46:]) != 128 {
		t.Errorf("im2col map arguments: % x", tm[:48])
	}
	if got, want := tm[48:57], []byte{1, 2, 1, 1, 1, 0, 3, 3, 0}; !bytes.Equal(got, want) {
		t.Errorf("im2col map strides and enums % x, want % x", got, want)
	}
	if got := (&Error{Code: 1, Call: "cuTest"}).Error(); got != "cuTest: CUDA_ERROR_INVALID_VALUE (1): fake error" {
		t.Errorf("error text %q", got)
	}
	t.Log("fake driver ok")
}

// TestLoadChild runs in a child process, where the driver is loaded from
// $ISAAC_LIBCUDA (the loader loads once per process).
func TestLoadChild(t *testing.T) {
	switch os.Getenv("ISAAC_CUDA_CHILD") {
	case "nodriver":
		err := Load()
		if !errors.Is(err, ErrNoDriver) {
			t.Fatalf("Load with no driver: %v, want ErrNoDriver", err)
		}
		if _, err := DeviceCount(); err == nil {
			t.Fatal("DeviceCount without a driver succeeded")
		}
		t.Log(err)
	case "fake":
		fakeDriverChild(t)
	default:
		t.Skip("runs only as a child of TestNoDriver / TestFakeDriver")
	}
}
