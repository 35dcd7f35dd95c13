package predictor

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func randomMLP(sizes []int, seed uint64) *MLP {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := NewMLP(sizes)
	for l := range m.W {
		for i := range m.W[l] {
			m.W[l][i] = rng.NormFloat64() / 4
		}
		for i := range m.B[l] {
			m.B[l][i] = rng.NormFloat64() / 10
		}
	}
	for i := range m.Mean {
		m.Mean[i], m.Std[i] = rng.NormFloat64(), 0.5+rng.Float64()
	}
	m.YMean, m.YStd = 1.5, 2.5
	return m
}

// Weights survive Encode/Decode bit for bit, so predictions from decoded
// weights equal the trainer's exactly.
func TestWeightsRoundTrip(t *testing.T) {
	cfg := randomMLP([]int{ConfigFeatures, 16, 8, 1}, 1)
	cfg2 := randomMLP([]int{ConfigFeatures, 16, 8, 1}, 9)
	cfg2.Mean, cfg2.Std, cfg2.YMean, cfg2.YStd = cfg.Mean, cfg.Std, cfg.YMean, cfg.YStd
	ven := randomMLP([]int{InputFeatures, 4, 1}, 2)
	w := &Weights{
		Header: Header{Device: DeviceID{Name: "NVIDIA H100 80GB HBM3", Key: "h100", ComputeCap: "9.0", SMs: 132}, Dataset: "abc", Samples: 7},
		Models: []Model{
			{ModelHeader: ModelHeader{Name: "config", Schema: ConfigSchema, TestMSE: 0.05}, Nets: Ensemble{cfg, cfg2}},
			{ModelHeader: ModelHeader{Name: "vendor", Schema: InputSchema}, Nets: Ensemble{ven}},
		},
	}
	var buf bytes.Buffer
	if err := Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != FormatVersion || got.Device != w.Device || got.Dataset != "abc" || len(got.Models) != 2 {
		t.Fatalf("header %+v", got.Header)
	}
	m, ok := got.Model("config")
	if !ok || m.Schema != ConfigSchema || m.TestMSE != 0.05 {
		t.Fatalf("config model %+v", m)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 37
	x := make([]float64, n*ConfigFeatures)
	for i := range x {
		x[i] = rng.NormFloat64() * 3
	}
	if m.Members != 2 || len(m.Nets) != 2 {
		t.Fatalf("%d members decoded, %d networks", m.Members, len(m.Nets))
	}
	want, have := Ensemble{cfg, cfg2}.Predict(x, n), m.Nets.Predict(x, n)
	for i := range want {
		if want[i] != have[i] {
			t.Fatalf("row %d: decoded weights predict %v, the original %v", i, have[i], want[i])
		}
	}
}

func TestWeightsRejectsBadInput(t *testing.T) {
	w := &Weights{Models: []Model{{ModelHeader: ModelHeader{Name: "config"}, Nets: Ensemble{randomMLP([]int{3, 2, 1}, 5)}}}}
	var buf bytes.Buffer
	if err := Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for name, in := range map[string][]byte{
		"empty":     nil,
		"not zstd":  []byte("hello"),
		"truncated": good[:len(good)/2],
	} {
		if _, err := Decode(in); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// Another format version is refused with a message that says so.
	var v2 bytes.Buffer
	if err := encodeRaw(&v2, func(raw []byte) []byte { raw[len(magic)] = 2; return raw }, w); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(v2.Bytes()); err == nil || !strings.Contains(err.Error(), "format 2") {
		t.Errorf("version 2: %v", err)
	}
}

func TestFeatures(t *testing.T) {
	in := Input{Type: "hgemm", TransA: true, M: 4096, N: 16, K: 60000, AlignA: 8, AlignB: 8, AlignC: 8}
	x := make([]float64, ConfigFeatures)
	c := parse(t, "ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=8,kc=2,va=8,vb=8,st=3,math=mma_f16acc")
	PutConfig(x, in, c)
	if x[0] != 12 || x[1] != 4 || x[6] != 1 || x[7] != 0 {
		t.Errorf("input features %v", x[:8])
	}
	if x[8+3] != 1 || x[8+0] != 0 {
		t.Errorf("type one-hot %v", x[8:15])
	}
	d := x[InputFeatures:]
	if d[2] != 7 || d[7] != 3 || d[8] != 1 {
		t.Errorf("config features %v", d[:12])
	}
	tail := d[12+len(ConfigV3.Maths):]
	// 32 row tiles × 1 column tile × 8 × 2 = 512 blocks; tiles fully used; 60000/16 per split.
	if tail[0] != 9 || tail[1] != 0 || tail[2] != 0 {
		t.Errorf("derived features %v", tail)
	}
	for _, l := range []*ConfigLayout{ConfigV2, ConfigV3} {
		if len(strings.Split(l.Schema, ",")) != l.Width {
			t.Errorf("schema names %d features, vector has %d", len(strings.Split(l.Schema, ",")), l.Width)
		}
	}
	if ConfigSchema != ConfigV3.Schema || ConfigFeatures != ConfigV3.Width || ConfigV3.Width != ConfigV2.Width+1+6 {
		t.Errorf("this build's schema: %d features, v2 %d, v3 %d", ConfigFeatures, ConfigV2.Width, ConfigV3.Width)
	}
}

// Schema v3 tells a configuration from its staged, persistent, pipelined
// and register-capped twins, each by its own features alone, and has a
// feature for wgmma_tf32; v2 tells none of them apart (Describes leaves
// them out) and writes the plain configuration's features for each.
func TestFeaturesOfTwins(t *testing.T) {
	in := Input{Type: "gemmex_f16_f32", TransA: true, M: 4096, N: 4096, K: 4096, AlignA: 8, AlignB: 8, AlignC: 8}
	plain := parse(t, "ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	twins := []string{"tma=1", "tma=2", "tma=2,ps=1"}
	f64 := parse(t, "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8")
	staging := func(l *ConfigLayout, c ptx.GemmConfig) []float64 {
		x := make([]float64, l.Width)
		l.Put(x, in, c)
		return x[ConfigV2.Width+1:]
	}
	base2 := make([]float64, ConfigV2.Width)
	ConfigV2.Put(base2, in, plain)
	for i, tw := range twins {
		c := parse(t, plain.String()+","+tw)
		want := []float64{0, 0, 0, 0, 0, 0}
		want[min(i, 1)] = 1
		if i == 2 {
			want[2] = 1
		}
		if got := staging(ConfigV3, c); !slices.Equal(got, want) {
			t.Errorf("%s: v3 staging features %v, want %v", tw, got, want)
		}
		if ConfigV2.Describes(c) || !ConfigV3.Describes(c) {
			t.Errorf("%s: v2 describes it %v, v3 %v", tw, ConfigV2.Describes(c), ConfigV3.Describes(c))
		}
	}
	pp := parse(t, f64.String()+",pp=1,mr=128")
	if got := staging(ConfigV3, pp); !slices.Equal(got, []float64{0, 0, 0, 1, 1, 7}) {
		t.Errorf("pp=1,mr=128: v3 staging features %v", got)
	}
	tf32 := parse(t, "ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32")
	if ConfigV2.Describes(tf32) || !ConfigV3.Describes(tf32) || ConfigV2.Describes(pp) {
		t.Error("v2 describes wgmma_tf32 or a pipelined configuration, or v3 does not describe wgmma_tf32")
	}
	if l, ok := ConfigLayoutOf(ConfigV2.Schema); !ok || l != ConfigV2 {
		t.Error("ConfigLayoutOf does not know v2")
	}
	if _, ok := ConfigLayoutOf("gemm-config-v1:log2_m"); ok {
		t.Error("ConfigLayoutOf knows a schema this build does not")
	}
}

// A v2 network widened to v3 predicts what it did on every configuration
// v2 describes (their new features are zero), and its new features'
// weights are zero.
func TestWiden(t *testing.T) {
	net := randomMLP([]int{ConfigV2.Width, 16, 8, 1}, 3)
	w, err := Widen(net, ConfigV2, ConfigV3)
	if err != nil {
		t.Fatal(err)
	}
	if w.Sizes[0] != ConfigV3.Width {
		t.Fatalf("widened to %d inputs", w.Sizes[0])
	}
	in := Input{Type: "gemmex_f16_f32", TransA: true, M: 3000, N: 700, K: 1200, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, s := range []string{
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=2,va=8,vb=8,st=3,math=mma_f16",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,va=4,vb=4,st=3,math=ffma",
	} {
		c := parse(t, s)
		x2, x3 := make([]float64, ConfigV2.Width), make([]float64, ConfigV3.Width)
		ConfigV2.Put(x2, in, c)
		ConfigV3.Put(x3, in, c)
		a, b := net.Predict(x2, 1)[0], w.Predict(x3, 1)[0]
		if d := a - b; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: v2 %.6f, widened %.6f", s, a, b)
		}
	}
	if _, err := Widen(w, ConfigV3, ConfigV2); err == nil {
		t.Error("narrowed v3 to v2")
	}
}
