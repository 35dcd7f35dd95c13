package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
)

// caseInput is one input of a cases file with the configurations listed
// for it, in file order.
type caseInput struct {
	input
	Configs []ptx.GemmConfig
}

// readCases reads lines "m n k layout dtype config" (ab.sh's cases format;
// '#' starts a comment line) and groups the configurations by input, in
// the order inputs first appear.
func readCases(r io.Reader) ([]caseInput, error) {
	var out []caseInput
	index := map[input]int{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 6 {
			return nil, fmt.Errorf("cases line %d: want \"m n k layout dtype config\", got %q", line, text)
		}
		var dims [3]int
		for i := range dims {
			v, err := strconv.Atoi(f[i])
			if err != nil || v < 1 {
				return nil, fmt.Errorf("cases line %d: dimension %q", line, f[i])
			}
			dims[i] = v
		}
		layout := strings.ToUpper(f[3])
		if len(layout) != 2 || strings.Trim(layout, "NT") != "" {
			return nil, fmt.Errorf("cases line %d: layout %q", line, f[3])
		}
		d, err := dtypeByName(f[4])
		if err != nil {
			return nil, fmt.Errorf("cases line %d: %w", line, err)
		}
		cfg, err := ptx.ParseConfig(f[5])
		if err != nil {
			return nil, fmt.Errorf("cases line %d: %w", line, err)
		}
		in := input{suites.Shape{Suite: "cases", M: dims[0], N: dims[1], K: dims[2], Layout: layout}, d}
		i, ok := index[in]
		if !ok {
			i = len(out)
			index[in] = i
			out = append(out, caseInput{input: in})
		}
		out[i].Configs = append(out[i].Configs, cfg)
	}
	return out, sc.Err()
}

// runCases measures a cases file in this process: per input, cuBLAS, the
// heuristic's configuration and every listed configuration, interleaved on
// the same buffers (bench.measureSetup), so that configurations of one input are
// compared within one set of repeats. Lines of <out>/cases.txt: the input,
// the configuration, cuBLAS's median and the configuration's, in µs, and
// their ratio.
func runCases(b *bench, path, out string, progress io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	inputs, err := readCases(f)
	f.Close()
	if err != nil {
		return err
	}
	w, err := os.Create(filepath.Join(out, "cases.txt"))
	if err != nil {
		return err
	}
	defer w.Close()
	fmt.Fprintf(w, "# %s, %s, cuBLAS %s, %s, commit %s; %s; %d repeats\n# m n k layout dtype config cublas_us config_us speedup\n",
		b.Env.Device, b.Env.Driver, b.Env.CUBLAS, b.Env.Date, b.Env.Commit, b.Env.Method, b.Repeats)
	for i, ci := range inputs {
		s, err := b.setup(ci.input)
		if err != nil {
			return err
		}
		// A configuration whose kernel does not load (Legal's register
		// estimate can admit one the driver refuses) is reported and left
		// out; the others are still compared.
		var kept []ptx.GemmConfig
		for _, c := range ci.Configs {
			if err := b.Kernels.Prepare(s.g, c); err != nil {
				fmt.Fprintf(w, "# %d %d %d %s %s %s: does not load: %v\n", ci.M, ci.N, ci.K, ci.Layout, ci.DType.Name, c, err)
				continue
			}
			kept = append(kept, c)
		}
		engines := []engine{{Name: "ours"}} // the heuristic's, as in every run
		for j := range kept {
			engines = append(engines, engine{Name: fmt.Sprintf("c%d", j+1), Config: &kept[j]})
		}
		row, err := b.measureSetup(ci.input, s, engines)
		s.free()
		if err != nil {
			return fmt.Errorf("%s %dx%dx%d %s: %w", ci.DType.Name, ci.M, ci.N, ci.K, ci.Layout, err)
		}
		for j, a := range row.Alt {
			fmt.Fprintf(w, "%d %d %d %s %s %s %.3f %.3f %.4f\n", ci.M, ci.N, ci.K, ci.Layout, ci.DType.Name,
				kept[j], row.VendorUS, a.US, row.VendorUS/a.US)
		}
		fmt.Fprintf(progress, "[%3d/%d] cases %-18s %5dx%-5dx%-5d %s  cuBLAS %9.1f µs  %d of %d configurations\n",
			i+1, len(inputs), ci.DType.Name, ci.M, ci.N, ci.K, ci.Layout, row.VendorUS, len(kept), len(ci.Configs))
	}
	return nil
}
