package request

// Scalar is alpha or beta: the application's pointer, and for host pointer
// mode the value read at call time (device pointer mode values are read by
// the kernel, never by the host).
type Scalar struct {
	Ptr      uintptr // host or device address, per OnDevice
	OnDevice bool
	Value    float64 // the value, when !OnDevice
	Bits     uint64  // the value's bits in its own type (f16, f32 or f64), when !OnDevice
}

// IsZero reports whether a host scalar is exactly zero (beta == 0 means C is
// not read). A device scalar is not known on the host: false.
func (s Scalar) IsZero() bool { return !s.OnDevice && s.Value == 0 }
