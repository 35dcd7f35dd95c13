package ptxas

import (
	"strings"
	"testing"
)

const tinyPTX = `.version 7.8
.target sm_80
.address_size 64
.visible .entry tiny(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	.shared .align 4 .b8 buf[256];
	ld.param.u64 %rd0, [p];
	cvta.to.global.u64 %rd1, %rd0;
	mov.u32 %r0, %tid.x;
	st.shared.u32 [buf], %r0;
	st.global.u32 [%rd1], %r0;
	ret;
}
`

func TestParse(t *testing.T) {
	log := `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k1' for 'sm_80'
ptxas info    : Function properties for k1
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, 1024 bytes smem, 400 bytes cmem[0]
`
	r := Parse(log)
	if len(r.Functions) != 1 {
		t.Fatalf("functions: %+v", r.Functions)
	}
	f := r.Functions[0]
	if f.Name != "k1" || f.Registers != 40 || f.SpillStores != 4 || f.SpillLoads != 12 || f.StackFrame != 8 || f.SharedBytes != 1024 {
		t.Fatalf("parsed %+v", f)
	}
}

func TestCompile(t *testing.T) {
	if _, err := Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	for _, arch := range []string{"sm_80", "sm_90"} {
		r, err := Compile(tinyPTX, arch)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Functions) != 1 || r.Functions[0].Name != "tiny" || r.Functions[0].Registers == 0 || r.Functions[0].SharedBytes != 256 {
			t.Fatalf("%s: %+v\n%s", arch, r.Functions, r.Log)
		}
	}
	if _, err := Compile("garbage", "sm_80"); err == nil {
		t.Fatal("expected failure")
	}
}

// PTX with a byte beyond ASCII is refused, as the driver's JIT refuses it,
// before any ptxas runs.
func TestCompileRefusesNonASCII(t *testing.T) {
	_, err := CompileWith("/nonexistent/ptxas", ".version 8.0\n// 2·lane\n", "sm_90")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want a non-ASCII byte on line 2", err)
	}
}
