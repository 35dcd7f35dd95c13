package serve

import (
	"os"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// testRT is the tests' kernel runtime, keeping kernels under
// ISAAC_CACHE_DIR (none when it is not set); every test server runs on it.
var testRT = kernels.New(os.Getenv("ISAAC_CACHE_DIR"))

var (
	testServersMu sync.Mutex
	testServers   = map[Policy]*Server{}
)

// testServer is the tests' server of a policy: the environment's other
// options, on testRT.
func testServer(p Policy) *Server {
	testServersMu.Lock()
	defer testServersMu.Unlock()
	if s, ok := testServers[p]; ok {
		return s
	}
	o := FromEnv()
	o.Policy = p
	s := NewOn(testRT, o)
	testServers[p] = s
	return s
}

// storeDecision makes s's decision for g the kernel of cfg, with the check
// meas (nil: unchecked) and the check's other candidates alts.
func (s *Server) storeDecision(t *testing.T, g *request.Gemm, cfg string, meas *measurement, alts ...string) {
	t.Helper()
	tg, err := s.rt.Target(g)
	if err != nil {
		t.Fatal(err)
	}
	var ks []*kernels.Kernel
	for _, text := range append([]string{cfg}, alts...) {
		c, err := ptx.ParseConfig(text)
		if err != nil {
			t.Fatal(err)
		}
		k, err := s.rt.Kernel(tg, c)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	s.decisions.Store(keyOf(tg, g, s.opts.Policy), &decision{k: ks[0], alts: ks[1:], reason: request.Served, meas: meas})
}
