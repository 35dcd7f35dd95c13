package ptxas

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Function holds the resource usage ptxas -v reports for one entry function.
type Function struct {
	Name        string
	Registers   int
	SpillStores int // bytes
	SpillLoads  int // bytes
	SharedBytes int // static shared memory (dynamic shared memory is not counted)
	StackFrame  int // bytes
}

// Report is the result of one ptxas run.
type Report struct {
	Arch      string
	Functions []Function
	Log       string // full stdout+stderr of ptxas
}

// MaxRegisters is the largest register count over all functions.
func (r Report) MaxRegisters() int {
	m := 0
	for _, f := range r.Functions {
		m = max(m, f.Registers)
	}
	return m
}

// SpillBytes is the total of spill stores and loads over all functions.
func (r Report) SpillBytes() int {
	s := 0
	for _, f := range r.Functions {
		s += f.SpillStores + f.SpillLoads
	}
	return s
}

// Compile assembles ptx for arch (e.g. "sm_80") with ptxas -v, using the
// binary Find returns, and parses the resource report. On failure the error
// carries the complete ptxas log.
func Compile(ptx string, arch string) (Report, error) {
	bin, err := Find()
	if err != nil {
		return Report{}, err
	}
	return CompileWith(bin, ptx, arch)
}

// CompileWith is Compile with an explicit ptxas binary.
func CompileWith(bin, ptx, arch string) (Report, error) {
	// The driver's JIT refuses PTX with a byte beyond ASCII, even in a
	// comment ("Unexpected non-ASCII character"); the toolkit's ptxas
	// passes it, so it is refused here as the device would.
	for i := 0; i < len(ptx); i++ {
		if ptx[i] >= 0x80 {
			line := 1 + strings.Count(ptx[:i], "\n")
			return Report{}, fmt.Errorf("ptxas: a non-ASCII byte on line %d (the driver's JIT refuses it)", line)
		}
	}
	dir, err := os.MkdirTemp("", "ptxas-*")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(src, []byte(ptx), 0o644); err != nil {
		return Report{}, err
	}
	cmd := exec.Command(bin, "-arch="+arch, "-v", "-o", filepath.Join(dir, "k.cubin"), src)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	runErr := cmd.Run()
	rep := Parse(out.String())
	rep.Arch = arch
	if runErr != nil {
		return rep, fmt.Errorf("ptxas -arch=%s failed: %v\n%s", arch, runErr, out.String())
	}
	return rep, nil
}

var (
	reEntry = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	reFrame = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	reUsed  = regexp.MustCompile(`Used (\d+) registers`)
	reSmem  = regexp.MustCompile(`(\d+) bytes smem`)
)

// Parse extracts per-function resource usage from ptxas -v output.
func Parse(log string) Report {
	rep := Report{Log: log}
	var cur *Function
	for _, line := range bytes.Split([]byte(log), []byte("\n")) {
		s := string(line)
		if m := reEntry.FindStringSubmatch(s); m != nil {
			rep.Functions = append(rep.Functions, Function{Name: m[1]})
			cur = &rep.Functions[len(rep.Functions)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := reFrame.FindStringSubmatch(s); m != nil {
			cur.StackFrame, _ = strconv.Atoi(m[1])
			cur.SpillStores, _ = strconv.Atoi(m[2])
			cur.SpillLoads, _ = strconv.Atoi(m[3])
		}
		if m := reUsed.FindStringSubmatch(s); m != nil {
			cur.Registers, _ = strconv.Atoi(m[1])
			if sm := reSmem.FindStringSubmatch(s); sm != nil {
				cur.SharedBytes, _ = strconv.Atoi(sm[1])
			}
		}
	}
	return rep
}
