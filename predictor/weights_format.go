package predictor

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// A weights file is zstd-compressed: the magic "ISAACW", a little-endian
// uint32 format version, a uint32 length and that many bytes of JSON
// Header, then every model's parameters as little-endian float64 in
// Header.Models order (per model: per layer W then B, then Mean, Std).

// FormatVersion is the weights format this package reads and writes.
const FormatVersion = 1

var magic = []byte("ISAACW")

// Header describes a weights file.
type Header struct {
	Format  int           `json:"format"`
	Device  DeviceID      `json:"device"`
	Models  []ModelHeader `json:"models"`
	Dataset string        `json:"dataset"`           // sha256 of the training data files, in order ("+" that of the vendor-only files, when used)
	Samples int           `json:"samples"`           // training data rows
	Trained string        `json:"trained"`           // RFC 3339 date
	Commit  string        `json:"commit,omitempty"`  // source commit of the trainer
	Comment string        `json:"comment,omitempty"` // free text: how it was trained
}

// DeviceID names the GPU the weights were measured on.
type DeviceID struct {
	Name       string `json:"name"`        // "NVIDIA H100 80GB HBM3"
	Key        string `json:"key"`         // "h100"
	ComputeCap string `json:"compute_cap"` // "9.0"
	SMs        int    `json:"sms"`
}

// ModelHeader describes one MLP of the file.
type ModelHeader struct {
	Name    string  `json:"name"`    // "config" (kernel performance) or "vendor" (cuBLAS time)
	Target  string  `json:"target"`  // what it predicts
	Schema  string  `json:"schema"`  // feature schema (InputSchema or ConfigSchema)
	Sizes   []int   `json:"sizes"`   // of every member
	Members int     `json:"members"` // networks averaged (an ensemble); 0 means 1
	YMean   float64 `json:"y_mean"`
	YStd    float64 `json:"y_std"`
	TestMSE float64 `json:"test_mse"` // MSE on held-out inputs, in the target's units
	// Check are raw feature rows and the trainer's own predictions for
	// them, made before export: decoded weights must reproduce them
	// exactly.
	Check []Check `json:"check,omitempty"`
}

// Check is one feature row and the prediction the trainer made for it.
type Check struct {
	X []float64 `json:"x"`
	Y float64   `json:"y"`
}

// Verify recomputes the model's check predictions and reports the first
// that differs from the trainer's: Predict must reproduce them exactly, and
// the run-time form (Score) within ScoreTolerance.
func (m *Model) Verify() error {
	for i, c := range m.Check {
		if len(c.X) != m.Nets[0].Sizes[0] {
			return fmt.Errorf("predictor: model %q check %d has %d features, the net %d", m.Name, i, len(c.X), m.Nets[0].Sizes[0])
		}
		if y := m.Nets.Predict(c.X, 1)[0]; y != c.Y {
			return fmt.Errorf("predictor: model %q check %d: predicts %v, the trainer predicted %v", m.Name, i, y, c.Y)
		}
		if y := m.Nets.Score(c.X, 1)[0]; math.Abs(y-c.Y) > ScoreTolerance {
			return fmt.Errorf("predictor: model %q check %d: the run-time form predicts %v, the trainer %v", m.Name, i, y, c.Y)
		}
	}
	return nil
}

// ScoreTolerance bounds the difference between the run-time (float32)
// prediction and the trainer's, in ln TFLOP/s: 1e-4 is a rate 0.01 % off.
const ScoreTolerance = 1e-4

// Model is one named MLP and its description.
type Model struct {
	ModelHeader
	Nets Ensemble
}

// Weights is a decoded weights file.
type Weights struct {
	Header
	Models []Model
}

// Model finds a model by name.
func (w *Weights) Model(name string) (*Model, bool) {
	for i := range w.Models {
		if w.Models[i].Name == name {
			return &w.Models[i], true
		}
	}
	return nil, false
}

// ConfigModel is the weights' GEMM configuration model ("config") where
// its schema is one this build knows (ConfigLayoutOf).
func (w *Weights) ConfigModel() (*Model, bool) {
	m, ok := w.Model("config")
	if !ok {
		return nil, false
	}
	_, known := ConfigLayoutOf(m.Schema)
	return m, known
}

func (m *MLP) arrays() [][]float64 {
	var a [][]float64
	for l := range m.W {
		a = append(a, m.W[l], m.B[l])
	}
	return append(a, m.Mean, m.Std)
}

// Encode writes w in the weights format.
func Encode(out io.Writer, w *Weights) error {
	h := w.Header
	h.Format = FormatVersion
	h.Models = nil
	for _, m := range w.Models {
		if len(m.Nets) == 0 {
			return fmt.Errorf("predictor: model %q has no network", m.Name)
		}
		mh := m.ModelHeader
		first := m.Nets[0]
		mh.Sizes, mh.Members = first.Sizes, len(m.Nets)
		mh.YMean, mh.YStd = first.YMean, first.YStd
		for _, n := range m.Nets[1:] {
			if fmt.Sprint(n.Sizes) != fmt.Sprint(first.Sizes) || n.YMean != first.YMean || n.YStd != first.YStd {
				return fmt.Errorf("predictor: model %q: members differ in shape or target scaling", m.Name)
			}
		}
		h.Models = append(h.Models, mh)
	}
	js, err := json.Marshal(h)
	if err != nil {
		return err
	}
	var raw bytes.Buffer
	raw.Write(magic)
	binary.Write(&raw, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&raw, binary.LittleEndian, uint32(len(js)))
	raw.Write(js)
	var b [8]byte
	for _, m := range w.Models {
		for _, net := range m.Nets {
			for _, arr := range net.arrays() {
				for _, v := range arr {
					binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
					raw.Write(b[:])
				}
			}
		}
	}
	enc, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		return err
	}
	if _, err := enc.Write(raw.Bytes()); err != nil {
		enc.Close()
		return err
	}
	return enc.Close()
}

// Decode reads a weights file, refusing other format versions and
// structurally inconsistent contents.
func Decode(in []byte) (*Weights, error) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(in, nil)
	if err != nil {
		return nil, fmt.Errorf("predictor: weights: %w", err)
	}
	if len(raw) < len(magic)+8 || !bytes.Equal(raw[:len(magic)], magic) {
		return nil, errors.New("predictor: not an ISAAC weights file")
	}
	p := raw[len(magic):]
	if v := binary.LittleEndian.Uint32(p); v != FormatVersion {
		return nil, fmt.Errorf("predictor: weights format %d, this build reads %d", v, FormatVersion)
	}
	n := int(binary.LittleEndian.Uint32(p[4:]))
	p = p[8:]
	if n > len(p) {
		return nil, errors.New("predictor: truncated weights header")
	}
	w := &Weights{}
	if err := json.Unmarshal(p[:n], &w.Header); err != nil {
		return nil, fmt.Errorf("predictor: weights header: %w", err)
	}
	p = p[n:]
	for _, mh := range w.Header.Models {
		if len(mh.Sizes) < 2 {
			return nil, fmt.Errorf("predictor: model %q has sizes %v", mh.Name, mh.Sizes)
		}
		for _, s := range mh.Sizes {
			if s <= 0 || s > 1<<16 {
				return nil, fmt.Errorf("predictor: model %q has sizes %v", mh.Name, mh.Sizes)
			}
		}
		if mh.Members < 0 || mh.Members > 64 {
			return nil, fmt.Errorf("predictor: model %q has %d members", mh.Name, mh.Members)
		}
		var nets Ensemble
		for i := 0; i < max(1, mh.Members); i++ {
			net := NewMLP(mh.Sizes)
			net.YMean, net.YStd = mh.YMean, mh.YStd
			for _, arr := range net.arrays() {
				if len(p) < 8*len(arr) {
					return nil, fmt.Errorf("predictor: model %q: truncated parameters", mh.Name)
				}
				for i := range arr {
					arr[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
				}
				p = p[8*len(arr):]
			}
			if err := net.check(); err != nil {
				return nil, fmt.Errorf("model %q: %w", mh.Name, err)
			}
			nets = append(nets, net)
		}
		w.Models = append(w.Models, Model{ModelHeader: mh, Nets: nets})
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("predictor: %d bytes after the last model", len(p))
	}
	return w, nil
}
