package jitlink

import (
	"bytes"
	"errors"
	"testing"
)

func TestTarget(t *testing.T) {
	for ptx, want := range map[string]string{
		".version 8.0\n.target sm_90a\n.address_size 64\n": "sm_90a",
		"// x\n.target sm_80, texmode_independent\n":      "sm_80",
		"\t.target  sm_90\n":                               "sm_90",
	} {
		if got, err := Target(ptx); got != want || err != nil {
			t.Errorf("Target(%q) = %q, %v; want %q", ptx, got, err, want)
		}
	}
	if _, err := Target(".version 8.0\n.address_size 64\n"); err == nil {
		t.Error("a PTX text without .target was accepted")
	}
}

// testPTX is a whole module: one kernel that stores its thread index.
const testPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry store_tid(.param .u64 out)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r1;
	ret;
}
`

// TestCompile: where nvJitLink is present (the GPU machine) a PTX module
// compiles into an ELF cubin and a broken one gives the library's log;
// where it is not (CI), every call says so with ErrUnavailable.
func TestCompile(t *testing.T) {
	if err := Available(); err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Available: %v, not ErrUnavailable", err)
		}
		if _, err := Compile(testPTX); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Compile without the library: %v", err)
		}
		t.Skipf("nvJitLink not present: %v", err)
	}
	major, minor, err := Version()
	if err != nil || major < 12 {
		t.Fatalf("version %d.%d, %v", major, minor, err)
	}
	t.Logf("nvJitLink %d.%d", major, minor)
	image, err := Compile(testPTX)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(image, []byte("\x7fELF")) {
		t.Errorf("the cubin is not an ELF image: % x", image[:min(8, len(image))])
	}
	var e *Error
	if _, err := Compile(testPTX[:len(testPTX)-3] + "bad;\n}\n"); !errors.As(err, &e) || e.Log == "" {
		t.Errorf("broken PTX: %v (want an *Error with a log)", err)
	}
}
