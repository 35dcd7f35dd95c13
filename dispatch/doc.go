// Package dispatch decides, for each intercepted call, whether ISAAC serves
// it or hands it to the vendor, and why. It classifies the request (invalid
// arguments and unsupported input classes go to the vendor so that the
// application sees exactly the vendor's behaviour) and then asks the engine
// for a kernel; until the GEMM generator serves, every supported input is
// answered request.FwdNoKernel.
package dispatch
