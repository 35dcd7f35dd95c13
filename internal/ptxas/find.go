// Package ptxas locates NVIDIA's ptxas assembler and runs it on PTX text.
// It exists for tests and tooling that check generated PTX without a GPU;
// the library itself never needs ptxas (the CUDA driver JIT-compiles PTX).
package ptxas

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// EnvVar names an explicit ptxas binary; it takes precedence over all else.
const EnvVar = "ISAAC_PTXAS"

// ErrNotFound is returned by Find when no ptxas binary is available.
var ErrNotFound = errors.New("ptxas not found (set " + EnvVar + " or run scripts/fetch-ptxas.sh build/tools)")

// Find returns the path of a ptxas binary: $ISAAC_PTXAS, then
// build/tools/ptxas relative to the module root (the nearest parent of the
// working directory holding go.mod), then ptxas on PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		if isExec(p) {
			return p, nil
		}
		return "", errors.New("ptxas: " + EnvVar + "=" + p + " is not an executable file")
	}
	if root, ok := moduleRoot(); ok {
		p := filepath.Join(root, "build", "tools", "ptxas")
		if isExec(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p, nil
	}
	return "", ErrNotFound
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
