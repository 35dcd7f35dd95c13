package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
)

// imagePath names the cubin of a PTX text for one architecture and driver
// under the runtime's cache directory: the name is a hash of all three, so a
// driver update recompiles. "" when the runtime keeps nothing.
func (rt *Runtime) imagePath(ptxText, arch string, driver int) string {
	dir := rt.cacheDir
	if dir == "" {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(ptxText))
	h.Write([]byte{0})
	h.Write([]byte(arch))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(driver)))
	return filepath.Join(dir, "kernels", arch, hex.EncodeToString(h.Sum(nil)[:16])+".cubin")
}

// readImage returns the cached image at path, or nil.
func readImage(path string) []byte {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// writeImage stores an image atomically (write, then rename), ignoring
// errors: the disk cache is an optimization.
func writeImage(path string, image []byte) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(image)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
