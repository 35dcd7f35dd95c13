package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/ptx"
)

// seedKey identifies an input across runs: data type, layout and shape.
type seedKey struct {
	dtype, layout string
	m, n, k       int
}

func seedKeyOf(in input) seedKey {
	return seedKey{in.DType.Name, in.Layout, in.M, in.N, in.K}
}

// seedSet holds configurations recorded by earlier runs, per input: a sweep
// screens them beside its random candidates, so that a new sweep starts from
// the best configurations already found (and a kernel-family change is
// measured against them), instead of depending on its random draw.
type seedSet map[seedKey][]ptx.GemmConfig

// readSeeds reads the ISAAC configuration columns ("config", and the
// "heuristic_config" of sweeps) of recorded result CSVs.
func readSeeds(r io.Reader, into seedSet) error {
	rows, err := report.ReadCSV(r)
	if err != nil {
		return err
	}
	for _, row := range rows {
		key := seedKey{row.DType, row.Layout, row.M, row.N, row.K}
		for _, text := range []string{row.Config, altConfig(row, "heuristic")} {
			if text == "" {
				continue
			}
			c, err := ptx.ParseConfig(text)
			if err != nil {
				return fmt.Errorf("seed %s %dx%dx%d: %w", row.DType, row.M, row.N, row.K, err)
			}
			if !slices.Contains(into[key], c) {
				into[key] = append(into[key], c)
			}
		}
	}
	return nil
}

// loadSeeds reads a comma-separated list of result CSV paths.
func loadSeeds(paths string) (seedSet, error) {
	seeds := seedSet{}
	for _, p := range strings.Split(paths, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		err = readSeeds(f, seeds)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return seeds, nil
}

// altConfig is the configuration of the row's extra column name, or "".
func altConfig(r report.Row, name string) string {
	for _, a := range r.Alt {
		if a.Name == name {
			return a.Config
		}
	}
	return ""
}
