package ptx

// allTypeCombos are the (A/B, C, compute, tf32) combinations the family serves.
var allTypeCombos = []InputClass{
	{AType: F32, BType: F32, CType: F32, Compute: F32},
	{AType: F32, BType: F32, CType: F32, Compute: F32, AllowTF32: true},
	{AType: F64, BType: F64, CType: F64, Compute: F64},
	{AType: F16, BType: F16, CType: F16, Compute: F16},
	{AType: F16, BType: F16, CType: F16, Compute: F32},
	{AType: F16, BType: F16, CType: F32, Compute: F32},
	{AType: BF16, BType: BF16, CType: BF16, Compute: F32},
	{AType: BF16, BType: BF16, CType: F32, Compute: F32},
}

// allClasses is every type combination × layout × (equal A/B/C) alignment.
func allClasses() []InputClass {
	var out []InputClass
	for _, base := range allTypeCombos {
		for _, ta := range []Op{N, T} {
			for _, tb := range []Op{N, T} {
				for _, al := range []int{1, 2, 4, 8} {
					in := base
					in.TransA, in.TransB = ta, tb
					in.AlignA, in.AlignB, in.AlignC = al, al, al
					out = append(out, in)
				}
			}
		}
	}
	return out
}
