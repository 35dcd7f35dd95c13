package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// The hold kernel assembles for sm_90 (and its entry is the name the
// check asks for).
func TestPTXASHold(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	rep, err := ptxas.Compile(holdPTX, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Functions) != 1 || rep.Functions[0].Name != holdEntry {
		t.Fatalf("functions %+v, want one named %s", rep.Functions, holdEntry)
	}
}
