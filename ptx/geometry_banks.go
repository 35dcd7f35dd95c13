package ptx

import "sync"

// Shared-memory bank model of sm_70 and newer: 32 banks of 4 bytes; a warp's
// request takes as many wavefronts as the most distinct 4-byte words any
// one bank is asked for.

const (
	smemBanks    = 32
	smemBankSize = 4
)

// wavefronts is the number of shared-memory wavefronts of one warp request
// in which lane l reads size bytes at byte address addrs[l].
func wavefronts(addrs []int, size int) int {
	words := make([]map[int]bool, smemBanks)
	most := 0
	for _, a := range addrs {
		for w := a / smemBankSize; w < (a+size+smemBankSize-1)/smemBankSize; w++ {
			bank := w % smemBanks
			if words[bank] == nil {
				words[bank] = map[int]bool{}
			}
			words[bank][w] = true
			most = max(most, len(words[bank]))
		}
	}
	return most
}

// fragLoad is the bytes per lane of a scalar mma fragment load from o and
// the byte address of each lane's first element (groupID = lane/4 along m/n,
// threadID_in_group = lane%4 along k, scaled by the layout's k multiplier),
// for a line stride of stride elements.
func (g geometry) fragLoad(o operandGeom, stride int) ([]int, int) {
	ka := g.cfg.Math.layout().ka
	size := g.es
	if ka == 2 && o.kContig {
		size = 2 * g.es // two 16-bit elements consecutive along k: one b32
	}
	addrs := make([]int, 32)
	for l := range addrs {
		mn, k := l/4, (l%4)*ka
		if o.kContig {
			addrs[l] = (mn*stride + k) * g.es
		} else {
			addrs[l] = (k*stride + mn) * g.es
		}
	}
	return addrs, size
}

// fragPad is the padding, in elements, of operand o's shared-memory lines
// for scalar fragment loads: the smallest multiple of 16 bytes (up to 128)
// whose stride gives the fewest wavefronts per fragment load. 16 bytes is
// what every other path uses; f64 fragments from m/n-contiguous tiles of a
// power-of-two width need 32 (lanes of one k row then fall in disjoint bank
// halves), which halves their wavefronts. The answer depends only on the
// layout, the line length, the element size and the math's k multiplier;
// it is memoized because Legal (which the predictor runs on thousands of
// candidates) derives the geometry too.
func (g geometry) fragPad(o operandGeom) int {
	key := fragPadKey{o.kContig, o.lc, g.es, g.cfg.Math.layout().ka}
	if v, ok := fragPads.Load(key); ok {
		return v.(int)
	}
	best, bestW := 16/g.es, 0
	for bytes := 16; bytes <= 128; bytes += 16 {
		pad := bytes / g.es
		w := wavefronts(g.fragLoad(o, o.lc+pad))
		if bestW == 0 || w < bestW {
			best, bestW = pad, w
		}
	}
	fragPads.Store(key, best)
	return best
}

type fragPadKey struct {
	kContig    bool
	lc, es, ka int
}

var fragPads sync.Map // fragPadKey → int
