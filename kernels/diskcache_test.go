package kernels

import (
	"os"
	"path/filepath"
	"testing"
)

func TestImageCache(t *testing.T) {
	dir := t.TempDir()
	rt := New(dir)
	p := filepath.Join(dir, "kernels", "sm_90", "x.cubin")
	if readImage(p) != nil {
		t.Fatal("image before writing")
	}
	writeImage(p, []byte("\x7fELF image"))
	if got := readImage(p); string(got) != "\x7fELF image" {
		t.Errorf("read back %q", got)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "kernels", "sm_90", ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if a, b := rt.imagePath("ptx", "sm_90", 13000), rt.imagePath("ptx", "sm_90", 13010); a == b {
		t.Error("a driver update does not change the image name")
	}
	if a, b := rt.imagePath("ptx", "sm_90", 13000), rt.imagePath("ptx", "sm_80", 13000); a == b {
		t.Error("the architecture does not change the image name")
	}
	os.RemoveAll(dir)
}
