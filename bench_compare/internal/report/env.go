package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// envPeakPrefix prefixes the keys of Env.PeakTFLOPs.
const envPeakPrefix = "peak_tflops."

// envField is one "key: value" line of an .env file: its key and the Env
// field it holds (a *string, *int or *float64).
type envField struct {
	key   string
	field any
}

// envFields lists e's fields in the order WriteEnv writes them; the peak
// rates go between bandwidth_gbs and method.
func envFields(e *Env) (head, tail []envField) {
	return []envField{
			{"date", &e.Date}, {"device", &e.Device}, {"device_key", &e.DeviceKey},
			{"compute_cap", &e.ComputeCap}, {"sms", &e.SMs}, {"sm_clock_mhz", &e.SMClockMHz},
			{"mem_clock_mhz", &e.MemClockMHz}, {"bus_width_bits", &e.BusWidthBits},
			{"l2_bytes", &e.L2Bytes}, {"driver", &e.Driver}, {"cublas", &e.CUBLAS},
			{"cudnn", &e.CUDNN}, {"bandwidth_gbs", &e.BandwidthGBs},
		}, []envField{
			{"method", &e.Method}, {"commit", &e.Commit},
		}
}

// format renders the field's value so that parse gives it back exactly:
// strings quoted (Go syntax) when they have surrounding spaces, control
// characters or a leading quote, floats in their shortest exact form.
func (f envField) format() string {
	switch p := f.field.(type) {
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	s := *f.field.(*string)
	quote := s != strings.TrimSpace(s) || strings.HasPrefix(s, `"`) ||
		strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f })
	if quote {
		return strconv.Quote(s)
	}
	return s
}

// parse sets the field from its (unquoted) value; an empty value is zero.
func (f envField) parse(val string) (err error) {
	switch p := f.field.(type) {
	case *string:
		*p = val
	case *int:
		*p = 0
		if val != "" {
			*p, err = strconv.Atoi(val)
		}
	case *float64:
		*p = 0
		if val != "" {
			*p, err = strconv.ParseFloat(val, 64)
		}
	}
	return err
}

// WriteEnv writes e as "key: value" lines in a fixed order; the peak rates
// come as "peak_tflops.<class>: <value>" lines sorted by class.
func WriteEnv(w io.Writer, e Env) error {
	classes := make([]string, 0, len(e.PeakTFLOPs))
	for c := range e.PeakTFLOPs {
		if c == "" || strings.ContainsAny(c, ": \t\r\n") {
			return fmt.Errorf("bench_compare: peak TFLOP/s class %q is not a usable key", c)
		}
		classes = append(classes, c)
	}
	sort.Strings(classes)
	head, tail := envFields(&e)
	for _, c := range classes {
		v := e.PeakTFLOPs[c]
		head = append(head, envField{envPeakPrefix + c, &v})
	}
	bw := bufio.NewWriter(w)
	for _, f := range append(head, tail...) {
		fmt.Fprintln(bw, strings.TrimSuffix(f.key+": "+f.format(), " "))
	}
	return bw.Flush()
}

// readEnv parses the format of WriteEnv. Blank lines and lines starting with
// '#' are ignored, and so are unknown keys; a repeated key keeps its last value.
func readEnv(r io.Reader) (Env, error) {
	var e Env
	head, tail := envFields(&e)
	fields := map[string]envField{}
	for _, f := range append(head, tail...) {
		fields[f.key] = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			return Env{}, fmt.Errorf("bench_compare: env line %d: %q is not \"key: value\"", line, text)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if strings.HasPrefix(val, `"`) {
			u, err := strconv.Unquote(val)
			if err != nil {
				return Env{}, fmt.Errorf("bench_compare: env line %d: bad quoted value %s", line, val)
			}
			val = u
		}
		f, ok := fields[key]
		var peak float64
		c, isPeak := strings.CutPrefix(key, envPeakPrefix)
		if !ok && isPeak && c != "" {
			f, ok = envField{key, &peak}, true
		}
		if ok && f.parse(val) != nil {
			return Env{}, fmt.Errorf("bench_compare: env line %d: %s=%q is not a number", line, key, val)
		}
		if f.field == &peak {
			if e.PeakTFLOPs == nil {
				e.PeakTFLOPs = map[string]float64{}
			}
			e.PeakTFLOPs[c] = peak
		}
	}
	return e, sc.Err()
}
