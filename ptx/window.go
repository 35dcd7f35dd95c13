package ptx

import "fmt"

// WindowClass is what a convolution's window kernel is specialized for:
// 16-bit data (F16 or BF16) computed with F32 accumulators on mma.sync,
// and the vectors x's rows and the filter's rows are read in.
//
// The window kernel is a direct convolution on tensor cores for layers
// whose reduction is short per channel (few channels, or a wide filter on
// few channels) and whose x lies with rows of pixels contiguous (NCHW):
// each block stages the window of x its output tile reads (every channel
// of a chunk, the tile's rows and columns with the filter's reach, padding
// as zeros) in shared memory with coalesced row loads, and the filter's
// chunk beside it; the reduction over (channel, filter row, filter column)
// reads its operands through a table of offsets into the window, so the
// im2col matrix is never built and x is read from memory once.
//
// XVec > 1 reads x's rows in vectors of XVec elements: the caller
// guarantees contiguous rows (x's w stride 1), W and x's other strides
// multiples of XVec and x aligned to XVec elements, so that an aligned
// vector lies wholly inside a row or wholly in its padding. WVec > 1 reads
// the filter's rows in vectors: the caller guarantees the filter in
// K×C×R×S order, C·R·S and every chunk's R·S·CC multiples of WVec
// (WindowGeometryOf keeps the chunks so), the filter aligned to WVec.
type WindowClass struct {
	Data       DataType // F16 or BF16
	XVec, WVec int      // 1, 2, 4 or 8 (0: 1)
}

func (c WindowClass) xVec() int { return max(c.XVec, 1) }
func (c WindowClass) wVec() int { return max(c.WVec, 1) }

// WindowConfig is the window kernel's configuration: the output pixels a
// block computes (Pixels, as rows of one image: WindowGeometry shapes the
// tile), the output channels it computes (Channels), the warps along each
// (WarpsM × WarpsN warps, each computing Pixels/WarpsM pixels of
// Channels/WarpsN channels), and the shared memory a block may use (KB, in
// KiB: the channels staged per chunk are as many as fit).
//
// Shifted reads the products' A operand (pixels × reduction) with
// ldmatrix instead of element by element: after staging the window, the
// block writes S copies of it in 16-byte units of 8 consecutive output
// columns, copy s holding each column's tap s (so that a unit's 8 elements
// are 8 pixels' operand for one (channel, filter row, filter column),
// whatever the stride, dilation and the window's misalignment), and each
// 16×16 A fragment is one ldmatrix.trans of four units. Its tiles are rows
// of whole units (TQ a multiple of 8).
//
// Direct writes y from the accumulators' registers (each thread its
// fragments' pixels and channels) instead of through shared memory by rows
// of consecutive columns.
type WindowConfig struct {
	Pixels, Channels int
	WarpsM, WarpsN   int
	KB               int
	Shifted, Direct  bool
}

func (c WindowConfig) String() string {
	s := fmt.Sprintf("window m%d k%d w%dx%d s%d", c.Pixels, c.Channels, c.WarpsM, c.WarpsN, c.KB)
	if c.Shifted {
		s += " shifted"
	}
	if c.Direct {
		s += " direct"
	}
	return s
}

// warps is the block's warps.
func (c WindowConfig) warps() int { return c.WarpsM * c.WarpsN }

// mTiles and nTiles are a warp's mma tiles (16 pixels, 8 channels) along
// each dimension.
func (c WindowConfig) mTiles() int { return c.Pixels / c.WarpsM / 16 }
func (c WindowConfig) nTiles() int { return c.Channels / c.WarpsN / 8 }

// windowPitch is the epilogue's row of accumulators in shared memory, in
// floats: a block's pixels and four more, so that a warp's fragment
// stores fall in distinct banks.
func (c WindowConfig) windowPitch() int { return c.Pixels + 4 }

// LegalWindow reports whether cfg and cls make a kernel.
func LegalWindow(cfg WindowConfig, cls WindowClass) error {
	switch {
	case cls.Data != F16 && cls.Data != BF16:
		return fmt.Errorf("ptx: window convolution of %v (16-bit data only)", cls.Data)
	case !isPow2(cls.xVec()) || cls.xVec() > 8 || !isPow2(cls.wVec()) || cls.wVec() > 8:
		return fmt.Errorf("ptx: window convolution of vectors of %d and %d elements", cls.XVec, cls.WVec)
	case cfg.Pixels != 64 && cfg.Pixels != 128 && cfg.Pixels != 256:
		return fmt.Errorf("ptx: window convolution of %d pixels a block", cfg.Pixels)
	case cfg.Channels != 16 && cfg.Channels != 32 && cfg.Channels != 64 && cfg.Channels != 128:
		return fmt.Errorf("ptx: window convolution of %d channels a block", cfg.Channels)
	case cfg.warps() != 4 && cfg.warps() != 8 || !isPow2(cfg.WarpsM) || !isPow2(cfg.WarpsN):
		return fmt.Errorf("ptx: window convolution of %d×%d warps", cfg.WarpsM, cfg.WarpsN)
	case cfg.Pixels%(16*cfg.WarpsM) != 0 || cfg.Channels%(8*cfg.WarpsN) != 0:
		return fmt.Errorf("ptx: window convolution: %d×%d warps do not tile %d pixels × %d channels", cfg.WarpsM, cfg.WarpsN, cfg.Pixels, cfg.Channels)
	case cfg.mTiles()*cfg.nTiles()*4 > 128:
		return fmt.Errorf("ptx: window convolution: %d accumulators a thread", cfg.mTiles()*cfg.nTiles()*4)
	case cfg.KB < 16 || cfg.KB > 200:
		return fmt.Errorf("ptx: window convolution of %d KiB of shared memory", cfg.KB)
	case !cfg.Direct && cfg.Channels*cfg.windowPitch()*4 > cfg.KB<<10:
		return fmt.Errorf("ptx: window convolution: the epilogue's %d bytes exceed %d KiB", cfg.Channels*cfg.windowPitch()*4, cfg.KB)
	}
	return nil
}

// Window is a window kernel's configuration (zero for other kernels).
func (k *Kernel) Window() WindowConfig { return k.window }

// WindowClass is a window kernel's class (zero for other kernels).
func (k *Kernel) WindowClass() WindowClass { return k.windowClass }

// WindowProblem is a convolution in the window kernel's terms: x
// (N×C×H×W), the filter (K×C×R×S), y (N×K×P×Q), element strides of x, y
// (n, c, h, w) and the filter (k, c, r, s), the padding, the strides, and
// the taps' offsets within the window (0, or the last tap's for a flipped
// filter) and steps (the dilation, negative for a flipped filter).
type WindowProblem struct {
	N, C, H, W, K, R, S, P, Q int
	PadH, PadW, StrH, StrW    int
	HO, WO, HStep, WStep      int
	X, Y, Filter              [4]int
}

// WindowGeometry is how a window kernel of configuration cfg and class cls
// tiles a problem: TP rows of TQ output columns a block tile (TP·TQ ≤
// cfg.Pixels; PB×QB tiles an image), the window's rows HS and columns WS
// (its row in shared memory: the tile's reach, rounded to whole vectors of
// XVec with a vector's worth more for the tile's misalignment), the
// channels a chunk stages (CC) and its reduction J = CC·R·S, padded to JP
// (a multiple of 16), and the shared memory's layout in bytes: three
// tables of JP 32-bit entries (x's offsets, the filter's offsets, the
// channel of each reduction index), the filter's chunk (Channels rows of
// JP+8 elements) at WsOff, the window of CC+1 channels (the last one
// zeros, for the padding of the reduction) at XsOff, the accumulators
// (Channels rows of Pixels+4 floats) at EOff = XsOff, over the window once
// the tile's products are done, Bytes in all. Where one
// chunk holds every channel, each block computes Tiles tiles in turn (its
// filter staged once), else one.
//
// A Shifted configuration's window has no zero plane; its copies lie at
// CpOff (after the window) in 16-byte units: the unit of channel c,
// window row h, the tile's column group cg (NG = TQ/8 groups) and tap s is
// c·PLU + h·RPU + cg·S + s, a channel's plane of PLU units and a row of
// RPU, padded so that RPU ≡ S and PLU ≡ R·S (mod 8): the eight units an
// ldmatrix reads for eight consecutive reduction indices (channel, filter
// row, filter column) then lie in distinct banks. A plane of zeros follows
// the CC channels' (for the indices past J).
type WindowGeometry struct {
	TP, TQ, PB, QB int
	HS, WS         int
	CC, J, JP      int
	XsOff, WsOff   int
	EOff, Bytes    int
	Tiles          int
	NG, RPU, PLU   int
	CpOff          int
	XCV, WCV       int // the vectors of a row of the window and of the filter's chunk
}

// WindowGeometryOf is pr's geometry under cfg and cls, or an error where
// not even one channel's window and filter fit cfg.KB. Each block computes
// one tile (Tiles, WindowTiles sets it).
func WindowGeometryOf(cfg WindowConfig, cls WindowClass, pr WindowProblem) (WindowGeometry, error) {
	g := WindowGeometry{Tiles: 1}
	// The tile: as few blocks as cover the image, the widest rows among them.
	best := -1
	if cfg.Shifted {
		// Rows of whole units: as few blocks as cover the image, the
		// most rows among them (the fewest window rows a pixel).
		for tq := min(cfg.Pixels, ceilDiv(pr.Q, 8)*8); tq >= 8; tq -= 8 {
			tp := min(pr.P, cfg.Pixels/tq)
			blocks := ceilDiv(pr.P, tp) * ceilDiv(pr.Q, tq)
			if best < 0 || blocks < best {
				best = blocks
				g.TP, g.TQ, g.PB, g.QB = tp, tq, ceilDiv(pr.P, tp), ceilDiv(pr.Q, tq)
			}
		}
	}
	for qb := ceilDiv(pr.Q, cfg.Pixels); qb <= pr.Q && !cfg.Shifted; qb++ {
		tq := ceilDiv(pr.Q, qb)
		if tq < min(pr.Q, 16) {
			break
		}
		if ceilDiv(pr.Q, tq) != qb {
			continue
		}
		tp := min(pr.P, cfg.Pixels/tq)
		blocks := ceilDiv(pr.P, tp) * qb
		if best < 0 || blocks < best {
			best = blocks
			g.TP, g.TQ, g.PB, g.QB = tp, tq, ceilDiv(pr.P, tp), qb
		}
	}
	g.HS = (g.TP-1)*pr.StrH + (pr.R-1)*abs(pr.HStep) + 1
	g.WS = (g.TQ-1)*pr.StrW + (pr.S-1)*abs(pr.WStep) + 1
	if v := cls.xVec(); v > 1 {
		g.WS = ceilDiv(g.WS+v-1, v) * v
	}
	plane := g.HS * g.WS
	epi := cfg.Channels * cfg.windowPitch() * 4
	if cfg.Direct {
		epi = 0
	}
	planes, copies := 1, 0 // the window's zero plane, the copies' bytes a channel
	if cfg.Shifted {
		g.NG = g.TQ / 8
		g.RPU = g.NG * pr.S
		for g.RPU%8 != pr.S%8 {
			g.RPU++
		}
		g.PLU = g.HS * g.RPU
		for g.PLU%8 != pr.R*pr.S%8 {
			g.PLU++
		}
		planes, copies = 0, 16*g.PLU
	}
	bytes := func(cc int) (jp, xs, ws, e, total int) {
		jp = ceilDiv(cc*pr.R*pr.S, 16) * 16
		ws = 12 * jp
		xs = ws + cfg.Channels*(jp+8)*2
		end := xs + ceilDiv((cc+planes)*plane*2, 16)*16 + (cc+1)*copies
		return jp, xs, ws, xs, max(end, xs+epi)
	}
	// Every channel in one chunk where they fit, else the most that fit of
	// a multiple the filter's vectors allow (R·S·CC a multiple of WVec),
	// in chunks of equal channels.
	if _, _, _, _, total := bytes(pr.C); total <= cfg.KB<<10 {
		g.CC = pr.C
	} else {
		step := 1
		for step*pr.R*pr.S%cls.wVec() != 0 {
			step++
		}
		cc := 0
		for c := step; c < pr.C; c += step {
			if _, _, _, _, total := bytes(c); total > cfg.KB<<10 {
				break
			}
			cc = c
		}
		if cc == 0 {
			return g, fmt.Errorf("ptx: window convolution: %d channels' window (%d×%d) and filter exceed %d KiB", step, g.HS, g.WS, cfg.KB)
		}
		g.CC = ceilDiv(ceilDiv(pr.C, ceilDiv(pr.C, cc)), step) * step
	}
	g.J = g.CC * pr.R * pr.S
	g.JP, g.XsOff, g.WsOff, g.EOff, g.Bytes = bytes(g.CC)
	if cfg.Shifted {
		g.CpOff = g.XsOff + ceilDiv(g.CC*plane*2, 16)*16
	}
	g.XCV, g.WCV = g.WS/cls.xVec(), g.J/cls.wVec()
	return g, nil
}

// WindowTiles sets g.Tiles for a device that holds resident blocks of the
// kernel at once: where one chunk holds every channel, as many tiles a
// block as spread the tiles over one wave of blocks.
func (g *WindowGeometry) WindowTiles(pr WindowProblem, resident int) {
	g.Tiles = 1
	if g.CC >= pr.C && resident > 0 {
		g.Tiles = ceilDiv(pr.N*g.PB*g.QB, resident)
	}
}

// WindowGrid is the launch grid of a window kernel: a block per Tiles
// tiles of the images, a row of blocks per Channels output channels.
func WindowGrid(cfg WindowConfig, g WindowGeometry, pr WindowProblem) [3]int {
	return [3]int{ceilDiv(pr.N*g.PB*g.QB, g.Tiles), ceilDiv(pr.K, cfg.Channels), 1}
}

// WindowIntParams are the window kernel's integer parameters, in order,
// after x, w, y and α, β (f32): y's N, K, P, Q and x's C, H, W; the tile
// (TP, TQ, PB, QB); the padding and strides; the window (HS, WS, its
// plane HS·WS); the chunk (CC, J, JP, R·S, S); the taps' offsets and
// steps in the window; x's, y's and the filter's element strides; the
// shared memory's offsets of the window, the filter and the accumulators;
// the tiles a block computes and the tiles of all images; the dividers
// (DivMagic: multiplier, shift) of HS, QB and PB; a Shifted kernel's
// copies (NG, RPU, PLU, their offset, and the dividers of S and NG·S);
// the dividers of NG, of the vectors of a row of the window and of the
// filter's chunk, and of TQ.
var WindowIntParams = []string{
	"N", "K", "P", "Q", "C", "H", "W",
	"TP", "TQ", "PB", "QB",
	"padH", "padW", "strH", "strW",
	"HS", "WS", "plane",
	"CC", "J", "JP", "RS", "S",
	"hO", "wO", "hStep", "wStep",
	"xsN", "xsC", "xsH", "xsW", "ysN", "ysC", "ysH", "ysW",
	"wsK", "wsC", "wsR", "wsS",
	"xsOff", "wsOff", "eOff", "tiles", "tilesAll",
	"hsM", "hsL", "qbM", "qbL", "pbM", "pbL",
	"NG", "rpu", "plu", "cpOff", "sM", "sL", "ngsM", "ngsL",
	"ngM", "ngL", "xcvM", "xcvL", "wcvM", "wcvL", "tqM", "tqL",
}

// Ints are the kernel's integer parameters (WindowIntParams) for pr with
// geometry g.
func (pr WindowProblem) Ints(g WindowGeometry) []int {
	return []int{
		pr.N, pr.K, pr.P, pr.Q, pr.C, pr.H, pr.W,
		g.TP, g.TQ, g.PB, g.QB,
		pr.PadH, pr.PadW, pr.StrH, pr.StrW,
		g.HS, g.WS, g.HS * g.WS,
		g.CC, g.J, g.JP, pr.R * pr.S, pr.S,
		pr.HO, pr.WO, pr.HStep, pr.WStep,
		pr.X[0], pr.X[1], pr.X[2], pr.X[3], pr.Y[0], pr.Y[1], pr.Y[2], pr.Y[3],
		pr.Filter[0], pr.Filter[1], pr.Filter[2], pr.Filter[3],
		g.XsOff, g.WsOff, g.EOff, g.Tiles, pr.N * g.PB * g.QB,
		magic(g.HS), magicL(g.HS), magic(g.QB), magicL(g.QB), magic(g.PB), magicL(g.PB),
		g.NG, g.RPU, g.PLU, g.CpOff, magic(pr.S), magicL(pr.S), magic(max(g.NG*pr.S, 1)), magicL(max(g.NG*pr.S, 1)),
		magic(max(g.NG, 1)), magicL(max(g.NG, 1)), magic(max(g.XCV, 1)), magicL(max(g.XCV, 1)), magic(max(g.WCV, 1)), magicL(max(g.WCV, 1)),
		magic(g.TQ), magicL(g.TQ),
	}
}

// magic and magicL are DivMagic's multiplier (as the kernel's 32-bit
// parameter) and shift.
func magic(d int) int {
	m, _ := DivMagic(d)
	return int(int32(m))
}

func magicL(d int) int {
	_, l := DivMagic(d)
	return l
}

// windowParams are the window kernel's parameters in order.
func windowParams() []Param {
	ps := []Param{{"x", ".u64", 8}, {"w", ".u64", 8}, {"y", ".u64", 8}, {"alpha", ".f32", 4}, {"beta", ".f32", 4}}
	for _, n := range WindowIntParams {
		ps = append(ps, Param{n, ".s32", 4})
	}
	return ps
}

// DivMagic is the multiplier and shift that divide a 32-bit numerator
// below 2³¹ by d ≥ 1 without a division: n/d = (mulhi(n, M) + n) >> L
// (Granlund and Montgomery's round-up method; n below 2³¹ keeps the sum
// within 32 bits).
func DivMagic(d int) (m uint32, l int) {
	for 1<<l < d {
		l++
	}
	return uint32((uint64(1)<<32*(uint64(1)<<l-uint64(d)))/uint64(d) + 1), l
}
