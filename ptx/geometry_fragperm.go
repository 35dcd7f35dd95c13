package ptx

// fragPerm is how the f64 m16n8k8 / m16n8k16 kernels map the instruction's
// logical rows, columns and k slots onto the tile in shared memory, so that
// each thread reads two of its fragment registers with one 16-byte
// ld.shared.v2.f64 instead of two 8-byte loads.
//
//   - k: the sum over k does not depend on the order of its terms, so A and
//     B may both read the instruction's k slot tig+4j (the fragment tables'
//     columns) from physical k = kStep·tig + j of the k-step. A thread's
//     slots are then consecutive in k: a k-contiguous tile (A 'T', B 'N')
//     gives them in pairs. kStep is 2 for k8 and 4 for k16 (1: identity).
//   - m: A's logical rows gid and gid+8 of an m16 tile are physical rows
//     2·gid and 2·gid+1, consecutive in an m-contiguous tile (A 'N'); with
//     m8n8k4, row gid of m-tile 2p+q is physical row 16p + 2·gid + q (needs
//     an even MS). The accumulators follow (elements() gives their rows).
//   - n: column gid of n-tile 2p+q (q = 0, 1) of a warp is physical column
//     16p + 2·gid + q, so an n-contiguous tile (B 'T') gives the same
//     register of two neighbouring n-tiles in one load. Needs an even NS.
//
// All three keep the pair 16-byte aligned: the thread's first element is
// at an even element offset of a 16-byte aligned row. m8n8k4 has one k slot
// per thread (kStep 1); other maths use the identity.
type fragPerm struct {
	kStep int
	m, n  bool
}

func (g geometry) fragPerm() fragPerm {
	switch g.cfg.Math {
	case MMA_F64_K8, MMA_F64_K16:
		return fragPerm{
			kStep: g.mmaK / 4,
			m:     g.in.TransA == N,
			n:     g.in.TransB == T && g.cfg.NS%2 == 0,
		}
	case MMA_F64:
		// m8n8k4: one k slot per thread, so no k pairs; the rows of
		// m-tiles 2p and 2p+1 interleave like the columns of n-tiles.
		return fragPerm{
			kStep: 1,
			m:     g.in.TransA == N && g.cfg.MS%2 == 0,
			n:     g.in.TransB == T && g.cfg.NS%2 == 0,
		}
	}
	return fragPerm{kStep: 1}
}

// kPhys is the physical k offset, within a k-step, of the fragment tables' k
// offset dk (a multiple of 4 for f64) from the thread's first slot.
func (p fragPerm) kPhys(dk int) int {
	if p.kStep == 1 {
		return dk
	}
	return dk / 4
}

// mRow is the physical row offset, from the thread's first row (gid, or
// 2·gid with m interleaved), of the fragment tables' row offset dr (0 or 8)
// in m-tile mi: m16 tiles interleave their own two halves, m8 tiles (m8n8k4)
// interleave in pairs.
func (p fragPerm) mRow(mi, dr, mmaM int) int {
	switch {
	case !p.m:
		return mi*mmaM + dr
	case mmaM == 16:
		return mi*16 + dr/8
	}
	return mi/2*16 + mi%2
}

// nPhys is the physical column offset, from the warp's first column, of
// n-tile ni's column 0 (plus the thread's column, gid or 2·gid).
func (p fragPerm) nPhys(ni, mmaN int) int {
	if p.n {
		return ni/2*2*mmaN + ni%2
	}
	return ni * mmaN
}

// nCol is the physical column offset of the fragment tables' accumulator
// column offset c (0 or 1) from the thread's first column (2·tig, or 4·tig
// with n interleaved).
func (p fragPerm) nCol(c int) int {
	if p.n {
		return 2 * c
	}
	return c
}

// fragAccess is the shared-memory access of one fragment load of a warp on
// the scalar path: lane (gid, tig) = (lane/4, lane%4) reads size bytes at
// (mn = mnStep·gid, k = kStep·tig) of the tile.
type fragAccess struct {
	mnStep, kStep, size int
}

// fragAccess is operand o's (a is g.a) fragment access.
func (g geometry) fragAccess(o operandGeom, a bool) fragAccess {
	ka := g.cfg.Math.layout().ka
	acc := fragAccess{mnStep: 1, kStep: ka, size: g.es}
	if ka == 2 && o.kContig {
		acc.size = 2 * g.es // two 16-bit elements consecutive along k: one b32
	}
	p := g.fragPerm()
	if p.kStep > 1 {
		acc.kStep = p.kStep
		if o.kContig {
			acc.size = 16
		}
	}
	if !o.kContig && ((a && p.m) || (!a && p.n)) {
		acc.mnStep, acc.size = 2, 16
	}
	return acc
}
