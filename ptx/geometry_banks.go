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

// fragLoad is the byte address of each lane's first element of a warp's
// fragment load from o with access acc (see fragAccess), for a line stride
// of stride elements, and the bytes each lane reads.
func (g geometry) fragLoad(o operandGeom, acc fragAccess, stride int) ([]int, int) {
	addrs := make([]int, 32)
	for l := range addrs {
		mn, k := l/4*acc.mnStep, (l%4)*acc.kStep
		if o.kContig {
			addrs[l] = (mn*stride + k) * g.es
		} else {
			addrs[l] = (k*stride + mn) * g.es
		}
	}
	return addrs, acc.size
}

// fragPad is the padding, in elements, of operand o's (a is g.a)
// shared-memory lines for scalar fragment loads: the smallest multiple of
// 16 bytes (up to 128) whose stride gives the fewest wavefronts per fragment
// load. 16 bytes is what every other path uses; f64 fragments from
// m/n-contiguous tiles of a power-of-two width need 32 (lanes of one k row
// then fall in disjoint bank halves), which halves their wavefronts. The
// answer depends only on the layout, the line length, the element size and
// the access; it is memoized because Legal (which the predictor runs on
// thousands of candidates) derives the geometry too.
func (g geometry) fragPad(o operandGeom, a bool) int {
	acc := g.fragAccess(o, a)
	key := fragPadKey{o.kContig, o.lc, g.es, acc}
	if v, ok := fragPads.Load(key); ok {
		return v.(int)
	}
	best, bestW := 16/g.es, 0
	for bytes := 16; bytes <= 128; bytes += 16 {
		pad := bytes / g.es
		w := wavefronts(g.fragLoad(o, acc, o.lc+pad))
		if bestW == 0 || w < bestW {
			best, bestW = pad, w
		}
	}
	fragPads.Store(key, best)
	return best
}

type fragPadKey struct {
	kContig bool
	lc, es  int
	acc     fragAccess
}

var fragPads sync.Map // fragPadKey → int
