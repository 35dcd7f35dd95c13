package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

// serveCases are inputs the H100 model may serve or forward (DeepBench,
// ICA and LINPACK shapes, several types).
var serveCases = []gemmcheck.Case{
	{Type: gemmcheck.Types[0], M: 2560, N: 16, K: 2560, Alpha: 1, Beta: 0, Seed: 31},
	{Type: gemmcheck.Types[0], TransB: 1, M: 32, N: 32, K: 60000, Alpha: 1, Beta: 0.5, Seed: 32},
	{Type: gemmcheck.Types[2], TransA: 1, M: 2560, N: 16, K: 2560, Alpha: 1, Beta: 0, Seed: 33},
	{Type: gemmcheck.Types[3], TransB: 1, M: 1024, N: 1024, K: 1024, Alpha: 1, Beta: 0, Seed: 34},
	{Type: gemmcheck.Types[4], M: 896, N: 896, K: 32, Alpha: 1, Beta: 0, Seed: 35},
	{Type: gemmcheck.Types[0], M: 2560, N: 32, K: 2560, Alpha: 1, Beta: 0, Seed: 36}, // the first case's class, pool drawn
}

// serveChild runs the test binary's TestGPUServeChild with env and returns
// its output.
func serveChild(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGPUServeChild$", "-test.v")
	cmd.Env = append(append(os.Environ(), "ISAAC_SERVE_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %v: %v\n%s", env, err, out)
	}
	return string(out)
}

// TestGPUServeChild serves serveCases under Auto (waiting for the choice
// under ISAAC_SEARCH=async, and for a kernel compiled in the background), checks every served result against the exact
// reference, and prints each outcome and the choice counters.
func TestGPUServeChild(t *testing.T) {
	if os.Getenv("ISAAC_SERVE_CHILD") == "" {
		t.Skip("runs as a child of the serve tests")
	}
	gemmcheck.GPUThread(t)
	for _, c := range serveCases {
		d := gemmcheck.NewData(c)
		b, err := gemmcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		g := b.Request(0)
		srv := testServer(Auto)
		r, _ := srv.Serve(g)
		first := r
		for deadline := time.Now().Add(30 * time.Second); (r == request.FwdSearching || r == request.FwdCompiling) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
			r, _ = srv.Serve(g)
		}
		if r == request.Served {
			got, err := b.ReadC(0)
			if err != nil {
				t.Fatal(err)
			}
			if res := d.Check(c, got); res.Bad > 0 {
				t.Errorf("%s %d×%d×%d served wrong: %s", c.Type.Name, c.M, c.N, c.K, res.FirstBad)
			}
		}
		cls, _ := space.Class(g)
		fmt.Printf("outcome %s %d×%d×%d class=%s first=%s then=%s\n", c.Type.Name, c.M, c.N, c.K, cls, first, r)
		b.Free()
	}
	s := testServer(Auto).ChoiceStats()
	fmt.Printf("choices searched=%d fromdisk=%d\n", s.Searched, s.FromDisk)
}

func outcomes(out string) []string {
	var o []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "outcome ") {
			o = append(o, l)
		}
	}
	return o
}

// TestGPUServeAuto: under the default policy every served class's call is
// either served (with the exact result) or forwarded with reason
// "predicted"; the first shape of each class goes to the vendor
// ("searching": its seed pool, choice and kernel are made in the
// background); a later served shape's first call goes to the vendor
// ("compiling") when its kernel is new, and is served when an earlier shape
// loaded it; a second process with the same cache directory takes every choice from the
// disk cache and its kernels too, so it serves every first call of a served
// shape and otherwise decides alike; with ISAAC_SEARCH=async the first call
// of each shape goes to the vendor ("searching") and a later one gets the
// same decision.
func TestGPUServeAuto(t *testing.T) {
	gemmcheck.GPUContext(t)
	if os.Getenv("ISAAC_SERVE_CHILD") != "" {
		t.Skip("child")
	}
	dir := t.TempDir()
	first := serveChild(t, "ISAAC_CACHE_DIR="+dir)
	o1 := outcomes(first)
	if len(o1) != len(serveCases) {
		t.Fatalf("first process: %s", first)
	}
	served := 0
	compiled := 0
	classes := map[string]bool{}
	for _, l := range o1 {
		cls := strings.Fields(l)[3]
		newClass := !classes[cls]
		classes[cls] = true
		switch {
		case newClass && (strings.HasSuffix(l, "first=searching then=served") || strings.HasSuffix(l, "first=searching then=predicted")):
			compiled += strings.Count(l, "then=served")
		case newClass:
			t.Errorf("outcome %q: the class's first shape, want first=searching", l)
		case strings.HasSuffix(l, "first=compiling then=served"):
			compiled++
		case strings.HasSuffix(l, "first=served then=served"), strings.HasSuffix(l, "first=predicted then=predicted"):
		default:
			t.Errorf("outcome %q: want served (first compiling or served) or predicted", l)
		}
		served += strings.Count(l, "then=served")
	}
	if served > 0 && compiled == 0 {
		t.Errorf("%d shapes served from an empty cache, none compiled in the background first", served)
	}
	t.Logf("%d of %d served under auto:\n%s", served, len(o1), strings.Join(o1, "\n"))
	if !strings.Contains(first, fmt.Sprintf("choices searched=%d fromdisk=0", len(serveCases))) {
		t.Errorf("first process counters: %s", first)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "choices-v1", "*", "*.txt"))
	if len(files) == 0 {
		t.Errorf("no choice files under %s", dir)
	}
	second := serveChild(t, "ISAAC_CACHE_DIR="+dir)
	if !strings.Contains(second, fmt.Sprintf("choices searched=0 fromdisk=%d", len(serveCases))) {
		t.Errorf("second process did not take its choices from disk: %s", second)
	}
	warm := strings.NewReplacer("first=compiling", "first=served", "first=searching then=served", "first=served then=served",
		"first=searching then=predicted", "first=predicted then=predicted").Replace(strings.Join(o1, "\n"))
	if o2 := outcomes(second); strings.Join(o2, "\n") != warm {
		t.Errorf("decisions with a warm disk cache:\n%s\nwant\n%s", strings.Join(o2, "\n"), warm)
	}
	async := serveChild(t, "ISAAC_CACHE_DIR="+t.TempDir(), "ISAAC_SEARCH=async")
	for i, l := range outcomes(async) {
		want := o1[i]
		for _, f := range []string{"first=served", "first=compiling", "first=predicted"} {
			want = strings.Replace(want, f, "first=searching", 1)
		}
		if l != want {
			t.Errorf("async: %q, want %q", l, want)
		}
	}
}

// TestGPUServeWeights: ISAAC_WEIGHTS naming a copy of the shipped file
// decides as the shipped weights do; weights that cannot be used send every
// call to the vendor with reason "weights" (a missing file, a file that is
// not weights).
func TestGPUServeWeights(t *testing.T) {
	gemmcheck.GPUContext(t)
	if os.Getenv("ISAAC_SERVE_CHILD") != "" {
		t.Skip("child")
	}
	// The shipped file of the GPU this runs on: weights of another device
	// are refused (reason "weights") whatever they hold.
	d, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	name, err := d.Name()
	if err != nil {
		t.Fatal(err)
	}
	file := weights.DeviceKey(name) + ".isw.zst"
	var raw []byte
	for _, p := range []string{filepath.Join("weights", file), filepath.Join("..", "weights", file)} {
		if b, err := os.ReadFile(p); err == nil {
			raw = b
			break
		}
	}
	if raw == nil {
		t.Skipf("weights/%s not found from the working directory (no weights shipped for %s?)", file, name)
	}
	user := filepath.Join(t.TempDir(), "user.isw.zst")
	if err := os.WriteFile(user, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	shipped := outcomes(serveChild(t, "ISAAC_CACHE_DIR="+t.TempDir()))
	viaEnv := outcomes(serveChild(t, "ISAAC_CACHE_DIR="+t.TempDir(), "ISAAC_WEIGHTS="+user))
	if strings.Join(shipped, "\n") != strings.Join(viaEnv, "\n") {
		t.Errorf("ISAAC_WEIGHTS=<copy of the shipped file> decides otherwise:\n%s\nvs\n%s",
			strings.Join(viaEnv, "\n"), strings.Join(shipped, "\n"))
	}
	other := filepath.Join(t.TempDir(), "other.isw.zst")
	if err := os.WriteFile(other, []byte("ISAACW not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(t.TempDir(), "missing.isw.zst"), other} {
		out := serveChild(t, "ISAAC_WEIGHTS="+path, "ISAAC_CACHE_DIR="+t.TempDir(), "ISAAC_LOG=1")
		for _, l := range outcomes(out) {
			if !strings.HasSuffix(l, "first=weights then=weights") {
				t.Errorf("ISAAC_WEIGHTS=%s: %q, want reason weights", path, l)
			}
		}
		if !strings.Contains(out, "isaac: serve: the performance model's weights failed to load") {
			t.Errorf("ISAAC_WEIGHTS=%s: no ISAAC_LOG message:\n%s", path, out)
		}
	}
}
