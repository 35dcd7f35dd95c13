// Package dispatch decides, for each intercepted call, whether ISAAC serves
// it or hands it to the vendor, and why. It classifies the request (invalid
// arguments and unsupported input classes go to the vendor so that the
// application sees exactly the vendor's behaviour) and then has the engine
// run its kernel; any failure there (no driver or context, a JIT or launch
// error) is a forward reason too, and the vendor computes the call.
package dispatch
