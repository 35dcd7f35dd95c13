package ptx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// groupedClasses are the direct kernel's classes: every data type, both
// thread orders.
func groupedClasses() []GroupedClass {
	var out []GroupedClass
	for _, t := range []DataType{F16, BF16, F32, F64} {
		compute := F32
		if t == F64 {
			compute = F64
		}
		for _, inner := range []bool{false, true} {
			out = append(out, GroupedClass{Data: t, Compute: compute, ChannelsInner: inner})
		}
	}
	return out
}

func TestGroupedLegal(t *testing.T) {
	good := GroupedClass{Data: F16, Compute: F32}
	for _, c := range []struct {
		cfg GroupedConfig
		cls GroupedClass
	}{
		{GroupedConfig{Threads: 96, Columns: 1}, good},
		{GroupedConfig{Threads: 128, Columns: 3}, good},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F64, Compute: F32}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F32, Compute: F64}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F16}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, Taps: 8, StrideW: 1, TapStepW: 1}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1}},
		// vectors of channels: channel-inner threads with a window, at most 4 and 16 bytes
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 16}},
		{GroupedConfig{Threads: 128, Columns: 1, Vec: 8}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1, Vec: 3}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F64, Compute: F64, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, Vec: 3}},
		// rows of taps: a window of columns, strides and steps, taps and sums that fit registers
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, TapsH: 3, StrideH: 1, TapStepH: 1}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 5, TapStepH: 1}},
		{GroupedConfig{Threads: 128, Columns: 1}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 1}},
		{GroupedConfig{Threads: 128, Columns: 1, Rows: 2}, GroupedClass{Data: F32, Compute: F32, ChannelsInner: true, Taps: 5, StrideW: 1, TapStepW: 1, TapsH: 5, StrideH: 1, TapStepH: 1, Vec: 4}},
		{GroupedConfig{Threads: 128, Columns: 1, Rows: 2}, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 1, TapStepH: 1, Vec: 8}},
		{GroupedConfig{Threads: 128, Columns: 1, Rows: 2}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1, TapStepW: 1}},
		{GroupedConfig{Threads: 128, Columns: 1, Rows: 3}, GroupedClass{Data: F16, Compute: F32, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 1, TapStepH: 1}},
		{GroupedConfig{Threads: 128, Columns: 8, Rows: 4}, GroupedClass{Data: F32, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 1, TapStepH: 1, Vec: 4}},
		{GroupedConfig{Threads: 512, Columns: 8, Rows: 4}, GroupedClass{Data: F64, Compute: F64, Taps: 7, StrideW: 4, TapStepW: 4, TapsH: 7, StrideH: 1, TapStepH: 1}},
	} {
		if LegalGrouped(c.cfg, c.cls) == nil {
			t.Errorf("%v %+v legal", c.cfg, c.cls)
		}
	}
	if err := LegalGrouped(GroupedConfig{Threads: 256, Columns: 4}, good); err != nil {
		t.Error(err)
	}
	for _, cfg := range []GroupedConfig{{Threads: 256, Columns: 4, Rows: 4}, {Threads: 256, Columns: 4, Rows: 2, Vec: 2}, {Threads: 128, Columns: 4, Vec: 8}} {
		if err := LegalGrouped(cfg, GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 2, TapStepH: -1, Vec: 8}); err != nil && cfg.Vec != 0 {
			t.Errorf("%v: %v", cfg, err)
		}
	}
}

// Every class's kernels assemble for sm_80 and sm_90 without spilling.
func TestPTXASGrouped(t *testing.T) {
	bin, err := ptxas.Find()
	if err != nil {
		t.Skipf("no ptxas: %v", err)
	}
	var classes []GroupedClass
	for _, cls := range groupedClasses() {
		classes = append(classes, cls)
		cls.Taps, cls.StrideW, cls.TapStepW = 7, 2, -2 // the widest window
		classes = append(classes, cls)
		tall := cls // the rows unrolled: 7×7 taps in registers, or 3×3 of vectors
		tall.TapsH, tall.StrideH, tall.TapStepH = 7, 2, -2
		classes = append(classes, tall)
		if cls.ChannelsInner { // vectors of channels: the widest that fit 16 bytes
			cls.Vec = 16 / cls.Data.Size()
			classes = append(classes, cls)
			cls.Taps, cls.TapsH, cls.StrideH, cls.TapStepH = 3, 3, 1, 1
			classes = append(classes, cls)
		}
	}
	for _, cls := range classes {
		for _, cfg := range []GroupedConfig{{Threads: 64, Columns: 1}, {Threads: 256, Columns: 4}, {Threads: 128, Columns: 8}, {Threads: 512, Columns: 4, Rows: 2},
			{Threads: 128, Columns: 4, Rows: 4}, {Threads: 128, Columns: 2, Rows: 4, Vec: 4}, {Threads: 256, Columns: 2, Rows: 2, Vec: 2}} {
			if LegalGrouped(cfg, cls) != nil {
				continue
			}
			for _, arch := range []string{"sm_80", "sm_90"} {
				k, err := GenerateGroupedConv(cls, cfg, arch)
				if err != nil {
					t.Fatal(err)
				}
				r, err := ptxas.CompileWith(bin, k.PTX, arch)
				if err != nil {
					t.Fatalf("%s %s: %v", k.Name, arch, err)
				}
				if r.SpillBytes() > 0 {
					t.Errorf("%s %s: spills %d bytes", k.Name, arch, r.SpillBytes())
				}
				// A row outside x is skipped by some of a warp's threads
				// only: never a branch the PTX declares uniform.
				if strings.Contains(k.PTX, "bra.uni $L_GC_ROW") || strings.Contains(k.PTX, "bra.uni $L_GC_SKIP") {
					t.Errorf("%s: a uniform branch over the rows outside x", k.Name)
				}
			}
		}
	}
}

// The kernel run on the CPU (every thread, every instruction, values in
// float64: the data are small integers, exact in every type) against a
// direct reference, over layouts, filter formats, groups, padding,
// stride, dilation, flips and β = 0 over NaN. Reads outside x and the
// filter, and writes outside y's view, fail the test.
func TestGroupedConvSimulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 48; trial++ {
		cls := groupedClasses()[trial%8]
		cfg := GroupedConfig{Threads: []int{64, 128}[trial%2], Columns: []int{1, 2, 4, 8}[trial/2%4]}
		pr, flip, layouts := randomGrouped(rng)
		if trial >= 24 { // the windowed kernel, specialized for the filter's width, stride and dilation
			cls.Taps, cls.StrideW, cls.TapStepW = pr.S, pr.StrW, pr.WStep
		}
		if trial >= 36 { // and its height, stride and dilation: the rows unrolled, 1, 2 or 4 a thread
			cls.TapsH, cls.StrideH, cls.TapStepH = pr.R, pr.StrH, pr.HStep
			cfg.Rows = []int{1, 2, 4}[trial%3]
		}
		for LegalGrouped(cfg, cls) != nil && cfg.Columns > 1 { // fewer columns where the registers run out
			cfg.Columns /= 2
		}
		beta := []float64{0, 0.5}[trial/3%2]
		t.Run(fmt.Sprintf("%d", trial), func(t *testing.T) {
			checkGroupedSimulated(t, cls, cfg, pr, flip, layouts, 2, beta)
		})
	}
	// Depthwise convolutions in NHWC with vectors of channels (Vec).
	for trial := 0; trial < 24; trial++ {
		cls := groupedClasses()[trial%8]
		if !cls.ChannelsInner {
			cls = groupedClasses()[(trial+1)%8]
		}
		vec := []int{2, 4, 8}[trial%3]
		for vec*cls.Data.Size() > 16 {
			vec /= 2
		}
		cfg := GroupedConfig{Threads: 64, Columns: []int{1, 2, 4, 8}[trial/2%4]}
		pr, flip, _ := randomGrouped(rng)
		pr.G = vec * (1 + rng.IntN(3))
		pr.C, pr.K = pr.G, pr.G
		pr.X = [4]int{pr.H * pr.W * pr.C, 1, pr.W * pr.C, pr.C}
		pr.Y = [4]int{pr.P * pr.Q * pr.K, 1, pr.Q * pr.K, pr.K}
		pr.Filter = [4]int{pr.R * pr.S, pr.R * pr.S, pr.S, 1}
		cls.Taps, cls.StrideW, cls.TapStepW, cls.Vec = pr.S, pr.StrW, pr.WStep, vec
		if trial >= 12 {
			cls.TapsH, cls.StrideH, cls.TapStepH = pr.R, pr.StrH, pr.HStep
			cfg.Rows = []int{1, 2, 4}[trial%4%3]
			cfg.Vec = vec >> (trial / 4 % 2) // some with fewer channels than the class allows
		}
		for LegalGrouped(cfg, cls) != nil && cfg.Columns > 1 { // fewer columns where the registers run out
			cfg.Columns /= 2
		}
		beta := []float64{0, 0.5}[trial/3%2]
		t.Run(fmt.Sprintf("vec%d", trial), func(t *testing.T) {
			checkGroupedSimulated(t, cls, cfg, pr, flip, "x nhwc y nhwc filter kcrs", 2, beta)
		})
	}
}

// randomGrouped draws a small grouped convolution with x and y in NCHW,
// NHWC or a padded NCHW slice, and the filter in either format.
func randomGrouped(rng *rand.Rand) (GroupedProblem, bool, string) {
	pr := GroupedProblem{N: 1 + rng.IntN(2), H: 1 + rng.IntN(6), W: 1 + rng.IntN(9), R: 1 + rng.IntN(3), S: 1 + rng.IntN(3), StrH: 1 + rng.IntN(2), StrW: 1 + rng.IntN(2)}
	pr.G = 1 + rng.IntN(4)
	pr.C, pr.K = pr.G*(1+rng.IntN(3)), pr.G*(1+rng.IntN(2))
	dilH, dilW := 1+rng.IntN(2), 1+rng.IntN(2)
	padH, padW := rng.IntN(3), rng.IntN(3)
	for pr.H+2*padH < (pr.R-1)*dilH+1 {
		padH++
	}
	for pr.W+2*padW < (pr.S-1)*dilW+1 {
		padW++
	}
	pr.P, pr.Q = (pr.H+2*padH-((pr.R-1)*dilH+1))/pr.StrH+1, (pr.W+2*padW-((pr.S-1)*dilW+1))/pr.StrW+1
	flip := rng.IntN(2) == 0
	pr.HOff, pr.WOff, pr.HStep, pr.WStep = -padH, -padW, dilH, dilW
	if flip {
		pr.HOff, pr.HStep = pr.HOff+(pr.R-1)*dilH, -dilH
		pr.WOff, pr.WStep = pr.WOff+(pr.S-1)*dilW, -dilW
	}
	names := []string{"nchw", "nhwc", "sliced"}
	lx, ly := rng.IntN(3), rng.IntN(3)
	tensor := func(l, c, h, w int) [4]int {
		switch l {
		case 1:
			return [4]int{h * w * c, 1, w * c, c}
		case 2:
			return [4]int{(c + 1) * (h + 1) * (w + 2), (h + 1) * (w + 2), w + 2, 1}
		}
		return [4]int{c * h * w, h * w, w, 1}
	}
	pr.X, pr.Y = tensor(lx, pr.C, pr.H, pr.W), tensor(ly, pr.K, pr.P, pr.Q)
	cg := pr.C / pr.G
	filter := "kcrs"
	pr.Filter = [4]int{cg * pr.R * pr.S, pr.R * pr.S, pr.S, 1}
	if rng.IntN(2) == 0 {
		filter, pr.Filter = "krsc", [4]int{pr.R * pr.S * cg, 1, pr.S * cg, cg}
	}
	return pr, flip, fmt.Sprintf("x %s y %s filter %s", names[lx], names[ly], filter)
}

func checkGroupedSimulated(t *testing.T, cls GroupedClass, cfg GroupedConfig, pr GroupedProblem, flip bool, layouts string, alpha, beta float64) {
	k, err := GenerateGroupedConv(cls, cfg, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	es := int64(cls.Data.Size())
	const xBase, wBase, yBase = int64(1) << 40, int64(2) << 40, int64(3) << 40
	mem := map[int64]float64{}
	span := func(dims, st [4]int) int {
		last := 0
		for i := range dims {
			last += (dims[i] - 1) * st[i]
		}
		return last + 1
	}
	xN := span([4]int{pr.N, pr.C, pr.H, pr.W}, pr.X)
	for i := 0; i < xN; i++ {
		mem[xBase+int64(i)*es] = float64(i%7 - 3)
	}
	cg := pr.C / pr.G
	for i := 0; i < pr.K*cg*pr.R*pr.S; i++ {
		mem[wBase+int64(i)*es] = float64(i%5 - 2)
	}
	yN := span([4]int{pr.N, pr.K, pr.P, pr.Q}, pr.Y)
	for i := 0; i < yN; i++ {
		mem[yBase+int64(i)*es] = math.NaN()
		if beta != 0 {
			mem[yBase+int64(i)*es] = float64(i%3 - 1)
		}
	}
	view := map[int64]bool{}
	want := map[int64]float64{}
	for n := 0; n < pr.N; n++ {
		for kk := 0; kk < pr.K; kk++ {
			g := kk / (pr.K / pr.G)
			for p := 0; p < pr.P; p++ {
				for q := 0; q < pr.Q; q++ {
					sum := 0.0
					for c := 0; c < cg; c++ {
						for r := 0; r < pr.R; r++ {
							for s := 0; s < pr.S; s++ {
								h, w := p*pr.StrH+pr.HOff+r*pr.HStep, q*pr.StrW+pr.WOff+s*pr.WStep
								if h < 0 || h >= pr.H || w < 0 || w >= pr.W {
									continue
								}
								x := mem[xBase+int64(n*pr.X[0]+(g*cg+c)*pr.X[1]+h*pr.X[2]+w*pr.X[3])*es]
								f := mem[wBase+int64(kk*pr.Filter[0]+c*pr.Filter[1]+r*pr.Filter[2]+s*pr.Filter[3])*es]
								sum += x * f
							}
						}
					}
					a := yBase + int64(n*pr.Y[0]+kk*pr.Y[1]+p*pr.Y[2]+q*pr.Y[3])*es
					view[a] = true
					want[a] = alpha * sum
					if beta != 0 {
						want[a] += beta * mem[a]
					}
				}
			}
		}
	}
	pr.Vec = k.GroupedVec() // the configuration's channels a thread, as the launch takes them
	params := map[string]float64{"p_x": float64(xBase), "p_w": float64(wBase), "p_y": float64(yBase), "p_alpha": alpha, "p_beta": beta}
	for i, v := range pr.Ints(cfg) {
		params["p_"+GroupedIntParams[i]] = float64(v)
	}
	prog := parseProgram(k.PTX)
	threads := GroupedThreads(cfg, pr.Vec, pr.N, pr.K, pr.P, pr.Q)
	grid, _ := GroupedGrid(cfg, threads)
	written := map[int64]int{}
	for bx := 0; bx < grid[0]; bx++ {
		for tid := 0; tid < cfg.Threads; tid++ {
			if err := simGrouped(prog, params, tid, bx, mem, func(a int64, v float64) error {
				if !view[a] {
					return fmt.Errorf("store outside y's view at %#x", a)
				}
				written[a]++
				mem[a] = v
				return nil
			}); err != nil {
				t.Fatalf("%s %+v %s %s: thread %d of block %d: %v", cfg, cls, layouts, fmtProblem(pr, flip), tid, bx, err)
			}
		}
	}
	for a, v := range want {
		if written[a] != 1 || mem[a] != v {
			t.Fatalf("%s %+v %s %s: y at %#x = %g written %d times, want %g once", cfg, cls, layouts, fmtProblem(pr, flip), a, mem[a], written[a], v)
		}
	}
}

func fmtProblem(pr GroupedProblem, flip bool) string {
	return fmt.Sprintf("n%d c%d h%d w%d k%d g%d r%d s%d p%d q%d str%d,%d off%d,%d step%d,%d flip=%v",
		pr.N, pr.C, pr.H, pr.W, pr.K, pr.G, pr.R, pr.S, pr.P, pr.Q, pr.StrH, pr.StrW, pr.HOff, pr.WOff, pr.HStep, pr.WStep, flip)
}

// simGrouped runs one thread of the direct kernel: integer registers as
// int64, floating-point and 16-bit registers as float64 (conversions are
// exact for the test's data), loads from mem (an address not in it is an
// error), stores through store.
func simGrouped(prog []simInstr2, params map[string]float64, tid, bx int, mem map[int64]float64, store func(int64, float64) error) error {
	regs := map[string]float64{"%tid.x": float64(tid), "%ctaid.x": float64(bx)}
	val := func(a string) float64 {
		if v, ok := regs[a]; ok {
			return v
		}
		if strings.HasPrefix(a, "0f") || strings.HasPrefix(a, "0d") {
			bits, _ := strconv.ParseUint(a[2:], 16, 64)
			if a[1] == 'f' {
				return float64(math.Float32frombits(uint32(bits)))
			}
			return math.Float64frombits(bits)
		}
		v, err := strconv.ParseInt(a, 0, 64)
		if err != nil {
			panic(fmt.Sprintf("operand %q", a))
		}
		return float64(v)
	}
	i32 := func(a string) int64 { return int64(int32(int64(val(a)))) }
	for pc, steps := 0, 0; pc < len(prog); steps++ {
		if steps > 1e6 {
			return fmt.Errorf("no end")
		}
		in := prog[pc]
		pc++
		if in.guard != "" && (regs[in.guard] != 0) == in.neg {
			continue
		}
		a := in.args
		op := in.op
		switch {
		case op == "ret":
			return nil
		case strings.HasPrefix(op, "bra"):
			pc = in.target
		case strings.HasPrefix(op, "ld.param"):
			regs[a[0]] = params[strings.Trim(a[1], "[]")]
		case op == "cvta.to.global.u64", op == "cvt.f32.f16", op == "cvt.rn.f16.f32", op == "cvt.rn.bf16.f32":
			regs[a[0]] = val(a[1])
		case op == "mov.b32" && strings.HasPrefix(a[1], "{"):
			regs[a[0]] = val(strings.TrimSpace(strings.Trim(strings.Split(a[1], ",")[1], "{} ")))
		case strings.HasPrefix(op, "mov."):
			regs[a[0]] = val(a[1])
		case op == "mad.lo.s32":
			regs[a[0]] = float64(int32(i32(a[1])*i32(a[2]) + i32(a[3])))
		case op == "mul.lo.s32":
			regs[a[0]] = float64(int32(i32(a[1]) * i32(a[2])))
		case op == "shr.u32":
			regs[a[0]] = float64(uint32(i32(a[1])) >> uint32(i32(a[2])))
		case op == "shl.b32":
			regs[a[0]] = float64(int32(i32(a[1]) << i32(a[2])))
		case op == "div.u32":
			regs[a[0]] = float64(uint32(i32(a[1])) / uint32(i32(a[2])))
		case op == "add.s32":
			regs[a[0]] = float64(int32(i32(a[1]) + i32(a[2])))
		case op == "sub.s32":
			regs[a[0]] = float64(int32(i32(a[1]) - i32(a[2])))
		case op == "mul.wide.s32":
			regs[a[0]] = float64(i32(a[1]) * i32(a[2]))
		case op == "add.s64":
			regs[a[0]] = val(a[1]) + val(a[2])
		case strings.HasPrefix(op, "setp."):
			x, y := val(a[1]), val(a[2])
			var r bool
			switch op {
			case "setp.ge.s32":
				r = i32(a[1]) >= i32(a[2])
			case "setp.lt.s32":
				r = i32(a[1]) < i32(a[2])
			case "setp.lt.u32":
				r = uint32(i32(a[1])) < uint32(i32(a[2]))
			case "setp.neu.f32", "setp.neu.f64":
				r = x != y || math.IsNaN(x) || math.IsNaN(y)
			default:
				return fmt.Errorf("unsimulated %s", op)
			}
			regs[a[0]] = map[bool]float64{true: 1}[r]
		case op == "and.pred":
			regs[a[0]] = map[bool]float64{true: 1}[val(a[1]) != 0 && val(a[2]) != 0]
		case strings.HasPrefix(op, "ld.global"):
			addr := int64(val(strings.Trim(a[1], "[]")))
			for i, r := range braceRegs(a[0]) { // a vector's elements one after another
				v, ok := mem[addr+int64(i)*elemBytes(op)]
				if !ok {
					return fmt.Errorf("%s outside the tensors at %#x", op, addr+int64(i)*elemBytes(op))
				}
				regs[r] = v
			}
		case strings.HasPrefix(op, "st.global"):
			addr := int64(val(strings.Trim(a[0], "[]")))
			for i, r := range braceRegs(a[1]) {
				if err := store(addr+int64(i)*elemBytes(op), val(r)); err != nil {
					return err
				}
			}
		case strings.HasPrefix(op, "fma.rn."):
			regs[a[0]] = val(a[1])*val(a[2]) + val(a[3])
		case strings.HasPrefix(op, "mul.rn."):
			regs[a[0]] = val(a[1]) * val(a[2])
		default:
			return fmt.Errorf("unsimulated %s", op)
		}
	}
	return fmt.Errorf("fell off the end")
}

// elemBytes is the size of one element of a load's or store's type.
func elemBytes(op string) int64 {
	i := strings.LastIndexByte(op, '.')
	bits, err := strconv.Atoi(op[i+2:])
	if err != nil {
		panic(op)
	}
	return int64(bits / 8)
}

// A kernel with unrolled rows reads the rows outside x by predicated loads
// where groupedRegisters' estimate is at most 128 (straight-line rows), and
// branches around them above it; both forms compute the convolution, with
// padding rows at the top and bottom, on the CPU.
func TestGroupedStraightRows(t *testing.T) {
	light := GroupedClass{Data: F16, Compute: F32, ChannelsInner: true, Taps: 3, StrideW: 1, TapStepW: 1, TapsH: 3, StrideH: 1, TapStepH: 1, Vec: 1}
	heavy := light
	heavy.Vec = 4
	for _, tc := range []struct {
		cls      GroupedClass
		cfg      GroupedConfig
		straight bool
	}{
		{light, GroupedConfig{Threads: 64, Columns: 8, Rows: 2, Vec: 1}, true},
		{heavy, GroupedConfig{Threads: 64, Columns: 4, Rows: 4, Vec: 4}, false},
	} {
		if got := groupedStraightRows(tc.cls.forConfig(tc.cfg), tc.cfg); got != tc.straight {
			t.Errorf("%v: straight rows %v (estimate %d registers)", tc.cfg, got, groupedRegisters(tc.cfg, tc.cls))
		}
		k, err := GenerateGroupedConv(tc.cls, tc.cfg, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		if branches := strings.Contains(k.PTX, "GC_ROW"); branches == tc.straight {
			t.Errorf("%v: a branch around rows %v", tc.cfg, branches)
		}
		// 8 channels of 5×6 pixels, "same" padding: the first and last
		// output rows read a row outside x.
		pr := GroupedProblem{N: 2, H: 5, W: 6, R: 3, S: 3, StrH: 1, StrW: 1, HOff: -1, WOff: -1, HStep: 1, WStep: 1, G: 8, C: 8, K: 8, P: 5, Q: 6, Vec: tc.cls.forConfig(tc.cfg).vec()}
		pr.X = [4]int{pr.H * pr.W * pr.C, 1, pr.W * pr.C, pr.C}
		pr.Y = [4]int{pr.P * pr.Q * pr.K, 1, pr.Q * pr.K, pr.K}
		pr.Filter = [4]int{pr.R * pr.S, pr.R * pr.S, pr.S, 1}
		t.Run(tc.cfg.String(), func(t *testing.T) {
			checkGroupedSimulated(t, tc.cls.forConfig(tc.cfg), tc.cfg, pr, false, "x nhwc y nhwc filter kcrs", 2, 0)
		})
	}
}
