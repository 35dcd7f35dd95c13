package ptx

import (
	"fmt"
	"strings"
)

// Param is one kernel parameter: its name, PTX type and size in bytes.
type Param struct {
	Name    string
	PTXType string // ".u64", ".s32", ".f32", ".f64", ".b16", or ".align 64 .b8" for a Size-byte structure
	Size    int
}

// decl is the parameter's PTX declaration.
func (p Param) decl() string {
	if strings.HasSuffix(p.PTXType, ".b8") {
		return fmt.Sprintf(".param %s p_%s[%d]", p.PTXType, p.Name, p.Size)
	}
	return fmt.Sprintf(".param %s p_%s", p.PTXType, p.Name)
}

// Kernel is one generated entry point and what a runtime needs to launch it.
// It holds no I/O: the PTX is loaded with cuModuleLoadData, the function is
// looked up by Name.
type Kernel struct {
	Name        string
	PTX         string
	Block       [3]int
	SharedBytes int     // dynamic shared memory per block
	Params      []Param // in ABI order (see the package documentation)
	Reduce      *Kernel // split-K reduction to launch after this one, or nil
	// TensorMaps (GemmConfig.TMA) are the tensor maps the kernel takes by
	// value after the ABI's parameters, in order; the host encodes them
	// for each call.
	TensorMaps []TensorMap

	tileM, tileN int  // GEMM: block tile; reduce: 0
	splits       int  // KG
	wsElem       int  // workspace element size (bytes)
	vec          int  // reduce: vector width of its loads (elements)
	cluster      int  // blocks per cluster along z (1: none)
	serial       bool // KG > 1 finished in this kernel (one pass, no Reduce)
	tileCounters int  // one-pass: arrival counters per tile (splitCounters)

	grouped    GroupedConfig // a direct grouped convolution kernel's configuration
	groupedVec int           // and its class's channels per thread

	window      WindowConfig // a convolution window kernel's configuration
	windowClass WindowClass  // and its class

	persistent bool // GemmConfig.PS: the blocks walk the tiles (Grid, Persistent)

	waitsOnPrior bool // WaitsOnPrior
}

// WaitsOnPrior reports whether the kernel's threads first wait for the
// grids before it in its stream to complete (griddepcontrol.wait) and touch
// no memory before: it may then be launched as a programmatic dependent of
// the one before it (cuda.LaunchEx), its blocks starting as that grid's
// end. Launched plainly, the wait returns at once.
func (k *Kernel) WaitsOnPrior() bool { return k.waitsOnPrior }

// waitsOnPrior reports whether the GEMM kernel of class in for arch waits
// for the grids before it (Kernel.WaitsOnPrior): a convolution's, on sm_90,
// which the NHWC copies' transposes may precede.
func waitsOnPrior(in InputClass, arch string) bool { return in.Conv != NotConv && arch == "sm_90" }

// Persistent reports whether the kernel is persistent (GemmConfig.PS): its
// blocks walk the output tiles, so the runtime launches at most as many as
// the device holds at once (Grid's count of tiles, capped).
func (k *Kernel) Persistent() bool { return k.persistent }

// Grid is the launch grid for an m×n×k problem (m, n ≥ 1; the runtime does
// not launch when m or n is 0). The reduction kernel's grid is one-
// dimensional and bounded (it loops); for the GEMM kernel the runtime must
// check that ceil(n/NL) ≤ 65535. With KG > 1, m·n must be below 2³¹ (the
// reduction indexes the output with 32-bit integers): see SplitLimit.
func (k *Kernel) Grid(m, n, kk int) [3]int {
	if k.tileM == 0 {
		return [3]int{reduceGrid(m, n, k.splits, k.vec), 1, 1}
	}
	if k.persistent {
		return [3]int{ceilDiv(m, k.tileM) * ceilDiv(n, k.tileN), 1, 1} // the tiles: cap at the resident blocks
	}
	return [3]int{ceilDiv(m, k.tileM), ceilDiv(n, k.tileN), k.splits * max(1, k.cluster)}
}

// BatchGrid is Grid for a batch of batch problems (a batched class's
// kernel): the z slices of each after the previous one's, or a persistent
// kernel's tiles of every matrix (the runtime caps them).
func (k *Kernel) BatchGrid(m, n, kk, batch int) [3]int {
	g := k.Grid(m, n, kk)
	if k.persistent {
		g[0] *= batch
		return g
	}
	g[2] *= batch
	return g
}

// Cluster is the thread-block cluster shape to launch with (cuLaunchKernelEx),
// or 0 when the kernel uses none.
func (k *Kernel) Cluster() int {
	if k.cluster > 1 {
		return k.cluster
	}
	return 0
}

// WorkspaceBytes is the size of the device workspace the kernels need for
// their partial tiles (0 when KG == 1): KG slices of M·N elements. The GEMM
// kernel and its Reduce kernel share one workspace.
func (k *Kernel) WorkspaceBytes(m, n, kk int) int {
	if k.splits <= 1 {
		return 0
	}
	return k.splits * m * n * k.wsElem
}

// Counters is how many 32-bit arrival counters a one-pass split-K kernel
// needs at its counters parameter (one per tile, and with a two-level split
// one more per group of each tile); 0 for kernels that need
// none (KG == 1 or a Reduce kernel). They must be zero at the launch, and
// the kernel leaves them zero when it ends, so a buffer of counters that
// only ever serves launches ordered one after another (one stream) is
// zeroed once, when it is made.
func (k *Kernel) Counters(m, n int) int {
	if !k.serial || k.tileM == 0 {
		return 0
	}
	return ceilDiv(m, k.tileM) * ceilDiv(n, k.tileN) * k.tileCounters
}

// SplitLimit reports whether an m×n output can use the kernel: always when
// KG == 1, and when m·n < 2³¹ otherwise.
func (k *Kernel) SplitLimit(m, n int) bool { return k.splits <= 1 || m*n < 1<<31 }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// abiParams is the parameter list shared by all kernels of a class.
func abiParams(compute DataType) []Param {
	st := ".f32"
	switch compute {
	case F16:
		st = ".b16"
	case F64:
		st = ".f64"
	}
	ss := compute.Size()
	return []Param{
		{"A", ".u64", 8}, {"B", ".u64", 8}, {"C", ".u64", 8},
		{"M", ".s32", 4}, {"N", ".s32", 4}, {"K", ".s32", 4},
		{"lda", ".s32", 4}, {"ldb", ".s32", 4}, {"ldc", ".s32", 4},
		{"alpha", st, ss}, {"beta", st, ss},
		{"alphaPtr", ".u64", 8}, {"betaPtr", ".u64", 8},
		{"workspace", ".u64", 8}, {"counters", ".u64", 8},
	}
}

// gemmParams are the GEMM kernel's parameters for class in with tensor
// maps maps: the ABI's, the maps', a convolution's or a batch's.
func gemmParams(in InputClass, maps []TensorMap) []Param {
	out := append(abiParams(in.Compute), tensorMapParams(maps)...)
	return append(append(append(out, convParamsOf(in)...), batchParamsOf(in)...), epilogueParamsOf(in)...)
}

// convParamsOf is ConvParams for a convolution's class, none for a GEMM's.
func convParamsOf(in InputClass) []Param {
	if in.Conv == NotConv {
		return nil
	}
	return ConvParams()
}

// KernelName is the deterministic entry name for (cfg, in).
func KernelName(cfg GemmConfig, in InputClass) string {
	kc, pp := "", ""
	if cfg.KC > 1 {
		kc = fmt.Sprintf("kc%d", cfg.KC)
	}
	if cfg.PP != 0 {
		pp = fmt.Sprintf("_pp%d", cfg.PP)
	}
	if cfg.MR != 0 {
		pp += fmt.Sprintf("_mr%d", cfg.MR)
	}
	if cfg.TMA != 0 {
		pp += fmt.Sprintf("_tma%d", cfg.TMA)
	}
	if cfg.PS != 0 {
		pp += fmt.Sprintf("_ps%d", cfg.PS)
	}
	return fmt.Sprintf("isaac_gemm_%s_ms%dns%dml%dnl%du%dks%dkl%dkg%d%sva%dvb%dst%d_%s%s", in,
		cfg.MS, cfg.NS, cfg.ML, cfg.NL, cfg.U, cfg.KS, cfg.KL, cfg.KG, kc, cfg.VecA, cfg.VecB, cfg.Stages, cfg.Math, pp)
}

// GenerateGemm emits the kernel(s) for (cfg, in) targeting arch ("sm_80" or
// "sm_90"). It fails if Legal rejects the configuration for a device of that
// architecture with H100/A100 limits; callers that know their device should
// call Legal with its limits first.
func GenerateGemm(cfg GemmConfig, in InputClass, arch string) (*Kernel, error) {
	var dev DeviceLimits
	switch arch {
	case "sm_80":
		dev = A100()
	case "sm_90":
		dev = H100()
	default:
		return nil, fmt.Errorf("ptx: unsupported arch %q (want sm_80 or sm_90)", arch)
	}
	// Shared memory limits differ between devices; the caller's Legal call
	// is authoritative, here only the architecture-independent rules matter.
	dev.MaxSharedPerBlockOptin, dev.MaxSharedPerSM = 1<<30, 1<<30
	if err := Legal(cfg, in, dev); err != nil {
		return nil, err
	}
	g := newGeometry(cfg, in)
	name := KernelName(cfg, in)
	maps := tensorMapsOf(g)
	k := &Kernel{
		Name:        name,
		PTX:         emitGemm(g, name, arch),
		Block:       [3]int{g.block, 1, 1},
		SharedBytes: g.sharedBytes,
		Params:      gemmParams(in, maps),
		TensorMaps:  maps,
		tileM:       cfg.ML, tileN: cfg.NL,
		splits: cfg.KG, wsElem: g.epiType.Size(), cluster: g.kc,
		serial: serialSplit(g), persistent: cfg.PS == 1,
		waitsOnPrior: waitsOnPrior(in, arch),
	}
	if k.serial {
		k.tileCounters = splitCounters(g)
	}
	if cfg.KG > 1 && !k.serial {
		rname := name + "_reduce"
		k.Reduce = &Kernel{
			Name:   rname,
			PTX:    emitReduce(g, rname, arch),
			Block:  [3]int{reduceThreads, 1, 1},
			Params: abiParams(in.Compute),
			splits: cfg.KG, wsElem: g.epiType.Size(), vec: reduceVec(g.epiType),
		}
	}
	return k, nil
}

// header is the PTX module preamble.
func header(arch string) string {
	version := "7.8"
	if arch == "sm_90a" {
		version = "8.0"
	}
	return ".version " + version + "\n.target " + arch + "\n.address_size 64\n\n"
}

// entry wraps a body into a .visible .entry with the ABI parameters.
func entry(name string, params []Param, b *builder) string {
	return entryMaxReg(name, params, 0, b)
}

// entryMaxReg is entry with a .maxnreg directive when maxReg > 0.
func entryMaxReg(name string, params []Param, maxReg int, b *builder) string {
	var s strings.Builder
	fmt.Fprintf(&s, ".visible .entry %s(\n", name)
	for i, p := range params {
		sep := ","
		if i == len(params)-1 {
			sep = ""
		}
		fmt.Fprintf(&s, "\t%s%s\n", p.decl(), sep)
	}
	s.WriteString(")\n")
	if maxReg > 0 {
		fmt.Fprintf(&s, ".maxnreg %d\n", maxReg)
	}
	s.WriteString("{\n")
	s.WriteString(b.decls())
	s.WriteString(b.body.String())
	s.WriteString("}\n")
	return s.String()
}
