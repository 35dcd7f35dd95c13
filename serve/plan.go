package serve

import (
	"fmt"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// GemmPlan is what the default policy (Auto, with checks and the tensor
// copy engine on) makes of one GEMM from a device's weights before any
// kernel runs: the chooser's ranking, whether the call's first calls are
// checked against the vendor, and the kernels that check would time. The
// server reaches the same from the same weights and limits (the seed pools
// are seeded by the class), unless a disk cache holds an earlier process's
// choice; tools read it without a GPU (isaac-tune choose).
type GemmPlan struct {
	Class      ptx.InputClass
	Choice     *predictor.Choice // the chooser's ranking, best first (at least its TopK)
	Check      float64           // the predicted ratio over the vendor a call needs to be checked (Chooser.Check)
	Checked    bool              // Auto checks the call (a batch always; else checkWorthy); false: it goes to the vendor unmeasured
	Candidates []ptx.GemmConfig  // the kernels the check times (those of them that compile), best first, as the class runs them
}

// PlanGemm is g's GemmPlan under weights w on a device of limits lim, the
// chooser keeping topK configurations (at least the server's).
func PlanGemm(w *predictor.Weights, lim ptx.DeviceLimits, g *request.Gemm, topK int) (GemmPlan, error) {
	ch, err := newChooser(w, lim)
	if err != nil {
		return GemmPlan{}, err
	}
	if ch.Vendor == nil {
		return GemmPlan{}, fmt.Errorf("%w: no vendor model, so the default policy serves nothing", ErrWeights)
	}
	ch.TopK = max(topK, ch.TopK)
	cls, err := space.Class(g)
	if err != nil {
		return GemmPlan{}, err
	}
	in, ok := predictor.InputOf(g, cls)
	if !ok {
		return GemmPlan{}, fmt.Errorf("the models do not cover %v", cls)
	}
	var c *predictor.Choice
	if cls.Batched {
		c = ch.ChooseBatch(in, int(g.Batch), cls)
	} else {
		c = ch.Choose(in, cls)
	}
	p := GemmPlan{Class: cls, Choice: c, Check: ch.Check,
		Checked: cls.Batched || checkWorthy(ch, c, 2*float64(g.M)*float64(g.N)*float64(g.K))}
	l := ch.Config.ConfigLayout()
	all := distinctLegal(c, cls, lim, func(cfg ptx.GemmConfig) ptx.GemmConfig { return chosenStaged(cfg, l, cls, lim, g) })
	p.Candidates = all[:min(gemmCandidates, len(all))]
	return p, nil
}
