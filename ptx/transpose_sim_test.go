package ptx

import (
	"fmt"
	"testing"
)

// A simulation of the transposes kernels' pairs jobs with their values
// (TestTransposesSimulated follows the tiles and rows jobs' elements by
// the addresses they were loaded from; a pairs job's words hold two
// elements and are shuffled by prmt, so here the values move): every thread
// of every block runs with the source tensors' elements known (element e
// of job i's source holds transposeSimValue(i, e)), shared memory holds
// what the block's threads stored before the barrier, and each store to
// a destination carries its value. The test checks that every element of
// each packed copy is written once, with the element of the source its
// place stands for, that nothing is read outside the sources' extents and
// nothing written outside the copies.

// transposeSimJob is one job of a simulated transposes kernel: dims (A,
// B, C, D) and element strides, moved into a packed (A, C, D, B) (a rows
// job: C = 1, its strides[2] unused).
type transposeSimJob struct {
	job           TransposeJob
	dims, strides [4]int
}

// blocks are the job's blocks along x and y and in all.
func (j transposeSimJob) blocks() (gx, gy, n int) {
	d := j.dims
	switch {
	case j.job.Rows():
		gx, n, _ := TransposeRowsBlocks(d[0], d[1], d[3])
		return gx, 0, n
	case j.job == TransposePairs:
		return TransposePairsBlocks(d[0], d[1], d[2], d[3])
	}
	return TransposeTileBlocks(d[0], d[1], d[2], d[3])
}

// extent is one past the largest element offset of the job's source.
func (j transposeSimJob) extent() int64 {
	e := int64(1)
	for i, d := range j.dims {
		e += int64(d-1) * int64(j.strides[i])
	}
	return e
}

// transposeSimValue is the 16-bit value of element e of job i's source.
func transposeSimValue(i int, e int64) int64 { return (e*3 + 1 + int64(i)*0x5555) & 0xffff }

func TestTransposePairsSimulated(t *testing.T) {
	t.Parallel()
	packed := func(a, b, c, d int) [4]int { return [4]int{b * c * d, c * d, d, 1} }
	x := func(a, b, c, d int) transposeSimJob {
		return transposeSimJob{TransposePairs, [4]int{a, b, 1, c * d}, [4]int{b * c * d, c * d, 0, 1}}
	}
	for _, jobs := range [][]transposeSimJob{
		{x(2, 64, 8, 16)}, // whole tiles
		{x(1, 2, 1, 2)},   // one word
		{x(3, 70, 5, 26)}, // partial tiles both ways
		{{TransposePairs, [4]int{2, 66, 3, 130}, [4]int{66*404 + 6, 404, 134, 1}}}, // a slice: padded rows, planes and images
		{x(2, 36, 6, 12), {TransposeRows, [4]int{10, 36, 1, 9}, packed(10, 36, 1, 9)}},
		{{TransposeRows, [4]int{10, 6, 1, 9}, packed(10, 6, 1, 9)}, x(2, 6, 7, 20)},
		{x(2, 36, 6, 12), {RowsJob(9), [4]int{10, 36, 1, 9}, packed(10, 36, 1, 9)}}, // a filter's 3x3 taps, two groups of loads
		{x(1, 8, 4, 34), x(2, 4, 2, 66)},
	} {
		var kinds []TransposeJob
		for _, j := range jobs {
			if !PairsFit(0, j.dims, j.strides) && j.job == TransposePairs {
				t.Fatalf("%+v: not a pairs job", j)
			}
			kinds = append(kinds, j.job)
		}
		t.Run(fmt.Sprint(jobs), func(t *testing.T) { checkTransposesSimulated(t, kinds, jobs) })
	}
}

func checkTransposesSimulated(t *testing.T, kinds []TransposeJob, jobs []transposeSimJob) {
	k, err := GenerateTransposes(2, kinds, "sm_90", TriggerAtStart)
	if err != nil {
		t.Fatal(err)
	}
	prog := parseProgram(k.PTX)
	srcs, dsts := [2]int64{simX, simW}, [2]int64{simY, simY + 1<<36}
	params := map[string]int64{}
	var n [2]int
	var gxy [2][2]int
	for i, j := range jobs {
		if j.extent() > 1<<16 { // transposeSimValue is one-to-one below
			t.Fatalf("job %d: an extent of %d elements", i, j.extent())
		}
		pre := fmt.Sprintf("p_j%d_", i)
		params[pre+"src"], params[pre+"dst"] = srcs[i], dsts[i]
		gx, gy, blocks := j.blocks()
		n[i], gxy[i] = blocks, [2]int{gx, gy}
		vals := map[string]int{"dA": j.dims[0], "dB": j.dims[1], "dC": j.dims[2], "dD": j.dims[3],
			"sA": j.strides[0], "sB": j.strides[1], "sC": j.strides[2], "sD": j.strides[3], "gx": gx, "gy": gy}
		for _, name := range transposeParams(j.job) {
			params[pre+name] = int64(vals[name])
		}
	}
	first := jobs[0]
	grid, z0, ok := TransposeGrid(first.job, first.dims, gxy[0][0], gxy[0][1], n[1])
	if !ok {
		t.Fatalf("grid %v", grid)
	}
	if len(jobs) == 2 {
		params["p_z0"], params["p_n1"] = int64(z0), int64(n[1])
	}
	var bad error
	load := func(op string, a, bytes int64) (int64, bool) {
		for i, j := range jobs {
			if off := a - srcs[i]; off >= 0 && off < 2*j.extent() {
				if off%bytes != 0 || off+bytes > 2*j.extent() {
					break
				}
				v := int64(0)
				for h := int64(0); h < bytes/2; h++ {
					v |= transposeSimValue(i, off/2+h) << (16 * h)
				}
				return v, true
			}
		}
		if bad == nil {
			bad = fmt.Errorf("%s of %d bytes at %#x, outside the sources", op, bytes, a)
		}
		return 0, false
	}
	// A block of a single pairs job over whole tiles: each of a warp's
	// shared accesses is to 32 distinct banks.
	whole := len(jobs) == 1 && jobs[0].job == TransposePairs && jobs[0].dims[1]%pairsTile == 0 && jobs[0].dims[3]%pairsTile == 0
	written := map[int64]int64{} // destination byte address → value
	grid3 := [3]int64{int64(grid[0]), int64(grid[1]), int64(grid[2])}
	for bz := range grid3[2] {
		for by := range grid3[1] {
			for bx := range grid3[0] {
				block := [3]int64{bx, by, bz}
				smem := map[int64]int64{}
				for tid := range int64(k.Block[0]) {
					if _, _, err := simRun(prog, params, tid, block, grid3, smem, nil, true, &simHooks{load: load, stopAtBarrier: true}); err != nil {
						t.Fatal(err)
					}
				}
				var accesses [][]int64 // each thread's shared addresses in order
				hooks := &simHooks{load: load, shared: func(op string, a, n int64, store bool) {
					if bad == nil && (a < 0 || a+n > int64(k.SharedBytes)) {
						bad = fmt.Errorf("%s at %d (+%d) outside the block's %d bytes", op, a, n, k.SharedBytes)
					}
					accesses[len(accesses)-1] = append(accesses[len(accesses)-1], a)
				}}
				for tid := range int64(k.Block[0]) {
					accesses = append(accesses, nil)
					_, stores, err := simRun(prog, params, tid, block, grid3, smem, nil, false, hooks)
					if err != nil {
						t.Fatal(err)
					}
					if bad != nil {
						t.Fatalf("block %v thread %d: %v", block, tid, bad)
					}
					for _, s := range stores {
						if !s.known || s.addr%2 != 0 || s.addr%s.bytes != 0 {
							t.Fatalf("block %v thread %d: a store of %d bytes at %#x (value known %v)", block, tid, s.bytes, s.addr, s.known)
						}
						for h := int64(0); h < s.bytes/2; h++ {
							if _, twice := written[s.addr+2*h]; twice {
								t.Fatalf("block %v thread %d: %#x written twice", block, tid, s.addr+2*h)
							}
							written[s.addr+2*h] = s.val >> (16 * h) & 0xffff
						}
					}
				}
				if err := distinctBanks(accesses); whole && err != nil {
					t.Fatalf("block %v: %v", block, err)
				}
			}
		}
	}
	want := 0
	for i, j := range jobs {
		d, s := j.dims, j.strides
		if j.job.Rows() {
			d[2], s[2] = 1, 0
		}
		for a := range d[0] {
			for b := range d[1] {
				for c := range d[2] {
					for e := range d[3] {
						at := dsts[i] + 2*int64(((a*d[2]+c)*d[3]+e)*d[1]+b)
						src := int64(a*s[0] + b*s[1] + c*s[2] + e*s[3])
						got, ok := written[at]
						if !ok || got != transposeSimValue(i, src) {
							t.Fatalf("job %d: the copy's element (%d, %d, %d, %d) is %#x (written %v), want source element %d's %#x",
								i, a, c, e, b, got, ok, src, transposeSimValue(i, src))
						}
						want++
					}
				}
			}
		}
	}
	if len(written) != want {
		t.Fatalf("%d elements written, %d in the copies", len(written), want)
	}
}

// distinctBanks checks that the threads of each warp, the k-th shared
// access of each (accesses[tid], 4-byte words), hit 32 distinct banks.
func distinctBanks(accesses [][]int64) error {
	for w := 0; w+32 <= len(accesses); w += 32 {
		for k := range accesses[w] {
			seen := map[int64]int{}
			for l := range 32 {
				if len(accesses[w+l]) != len(accesses[w]) {
					return fmt.Errorf("warp %d: lanes of %d and %d shared accesses", w/32, len(accesses[w]), len(accesses[w+l]))
				}
				bank := accesses[w+l][k] / 4 % 32
				if o, dup := seen[bank]; dup {
					return fmt.Errorf("warp %d, shared access %d: lanes %d and %d on bank %d", w/32, k, o, l, bank)
				}
				seen[bank] = l
			}
		}
	}
	return nil
}

// FuzzTransposesSimulated runs a transposes kernel of one or two jobs of
// any kind over 2-byte tensors of drawn dimensions and strides through the
// simulation of checkTransposesSimulated, against the packed copy each job
// defines: every element of each copy written once with its source's
// value, nothing read outside the sources or written outside the copies.
// A rows job is the one RowsJob gives for its rows, or TransposeRows for
// any row up to RowsMaxD; a pairs job is drawn only where PairsFit allows.
func FuzzTransposesSimulated(f *testing.F) {
	f.Add(uint8(0x10), uint8(2), uint8(36), uint8(6), uint8(12), uint8(0), uint8(0), uint8(3), uint8(10), uint8(9), uint8(0))
	f.Add(uint8(0x21), uint8(1), uint8(70), uint8(2), uint8(37), uint8(3), uint8(1), uint8(4), uint8(5), uint8(25), uint8(2))
	f.Add(uint8(0x02), uint8(2), uint8(66), uint8(3), uint8(130), uint8(2), uint8(0), uint8(1), uint8(3), uint8(32), uint8(0))
	f.Add(uint8(0x13), uint8(1), uint8(7), uint8(1), uint8(17), uint8(0), uint8(0), uint8(2), uint8(69), uint8(1), uint8(5))
	f.Fuzz(func(t *testing.T, kinds, a, b, c, d, pad, gap, a1, b1, d1, pad1 uint8) {
		// kinds: the low nibble the first job's kind (mod 3: tiles, rows,
		// pairs), the high nibble the second's (mod 4, 3: no second job).
		job := func(kind uint8, a, b, c, d, pad, gap int) (transposeSimJob, bool) {
			a, b, c, d = 1+a%3, 1+b%70, 1+c%3, 1+d%70
			pad, gap = pad%4, gap%3
			switch kind % 3 {
			case 1: // rows of d elements, C merged away
				d = 1 + d%RowsMaxD
				st := [4]int{b*(d+pad) + gap, d + pad, 0, 1}
				j := TransposeRows
				if pad%2 == 0 {
					j = RowsJob(d)
				}
				return transposeSimJob{j, [4]int{a, b, 1, d}, st}, true
			case 2: // pairs: even rows and channels, even strides
				b, d, pad, gap = b+b%2, d+d%2, pad-pad%2, gap-gap%2
				st := [4]int{c*b*(d+pad) + gap, d + pad, b * (d + pad), 1}
				j := transposeSimJob{TransposePairs, [4]int{a, b, c, d}, st}
				return j, PairsFit(0, j.dims, j.strides)
			}
			st := [4]int{(b*c)*(d+pad) + gap, d + pad, b * (d + pad), 1 + pad%2}
			if st[3] == 2 {
				st = [4]int{(b*c)*(2*d+pad) + gap, 2*d + pad, b * (2*d + pad), 2}
			}
			return transposeSimJob{TransposeTiles, [4]int{a, b, c, d}, st}, true
		}
		first, ok := job(kinds&15, int(a), int(b), int(c), int(d), int(pad), int(gap))
		if !ok {
			t.Skip("not a pairs job")
		}
		jobs := []transposeSimJob{first}
		if kinds>>4%4 != 3 { // a second job
			second, ok := job(kinds>>4, int(a1), int(b1), int(c), int(d1), int(pad1), int(gap))
			if !ok {
				t.Skip("not a pairs job")
			}
			jobs = append(jobs, second)
		}
		var kindsOf []TransposeJob
		for _, j := range jobs {
			if j.extent() > 1<<16 {
				t.Skip("an extent beyond the simulated values")
			}
			kindsOf = append(kindsOf, j.job)
		}
		checkTransposesSimulated(t, kindsOf, jobs)
	})
}
