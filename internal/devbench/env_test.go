package devbench

import (
	"testing"

	"github.com/isaacgo/isaac/internal/gate"
	"github.com/isaacgo/isaac/internal/l2evict"
	"github.com/isaacgo/isaac/internal/ptxas"
)

func TestDeviceKey(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA H100 80GB HBM3": "h100", "NVIDIA H200": "h200", "NVIDIA A100-SXM4-40GB": "a100",
		"NVIDIA GeForce RTX 4090": "geforce-rtx-4090",
		// a Grace Hopper's GPU is not an H200, whose weights it would
		// take were "h200" matched first; an L40S not an L4
		"NVIDIA GH200 480GB": "gh200", "NVIDIA H200 NVL": "h200", "NVIDIA L40S": "l40s", "NVIDIA L4": "l4",
	} {
		if got := DeviceKey(name); got != want {
			t.Errorf("DeviceKey(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestDriverVersionRE(t *testing.T) {
	line := "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct  7 00:00:00 UTC 2025\n"
	if got := driverVersionRE.FindString(line); got != "580.159.04" {
		t.Errorf("driver version %q", got)
	}
}

func TestFlushFromEnv(t *testing.T) {
	for _, def := range []Flush{FlushRead, FlushWrite} {
		for v, want := range map[string]Flush{"": def, "read": FlushRead, "write": FlushWrite} {
			t.Setenv("ISAAC_BENCH_FLUSH", v)
			if got, err := FlushFromEnv(def); err != nil || got != want {
				t.Errorf("ISAAC_BENCH_FLUSH=%q, default %v: %v, %v; want %v", v, def, got, err, want)
			}
		}
	}
	t.Setenv("ISAAC_BENCH_FLUSH", "both")
	if _, err := FlushFromEnv(FlushRead); err == nil {
		t.Error("ISAAC_BENCH_FLUSH=both accepted")
	}
	if FlushRead.String() == FlushWrite.String() {
		t.Error("the two flushes describe themselves alike")
	}
}

// TestPTXASReadFlush assembles the read flush's (l2evict's) and the
// blocking timer's (gate's) kernels for sm_70 and sm_90: no spills, no
// stack.
func TestPTXASReadFlush(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	for _, arch := range []string{"sm_70", "sm_90"} {
		for _, src := range []string{l2evict.PTX, gate.PTX} {
			rep, err := ptxas.Compile(src, arch)
			if err != nil {
				t.Fatalf("%s: %v", arch, err)
			}
			if rep.SpillBytes() != 0 || rep.MaxRegisters() == 0 {
				t.Errorf("%s: %d registers, %d bytes spilled", arch, rep.MaxRegisters(), rep.SpillBytes())
			}
		}
	}
}
