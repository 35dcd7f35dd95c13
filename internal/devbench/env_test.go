package devbench

import "testing"

func TestDeviceKey(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA H100 80GB HBM3": "h100", "NVIDIA H200": "h200", "NVIDIA A100-SXM4-40GB": "a100",
		"NVIDIA GeForce RTX 4090": "geforce-rtx-4090",
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
