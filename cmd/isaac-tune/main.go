// Command isaac-tune builds the performance model of the ISAAC paper
// (sections 4–6) for one GPU:
//
//	isaac-tune sample      measure (input, configuration) pairs and cuBLAS on the GPU machine
//	isaac-tune sample-conv measure (convolution, path, configuration) triples and cuDNN on the GPU machine
//	isaac-tune acceptance  the sampler's acceptance rate against uniform sampling (CPU only)
//	isaac-tune train       fit the MLP to data sets, compare architectures, export weights
//	isaac-tune train-conv  the same for the convolution models (configurations and cuDNN)
//	isaac-tune score       GEMM models' suboptimality among the timed configurations of data sets' held-out inputs (CPU only)
//	isaac-tune eval        suboptimality of the model's choices on held-out inputs (GPU machine)
//	isaac-tune eval-conv   the same for the convolution model, against the heuristic (GPU machine)
//	isaac-tune score-conv  a convolution model's suboptimality on eval-conv's timed candidates (CPU only)
//	isaac-tune choose      what the default policy makes of one GEMM under a weights file: ranking, check, candidates (CPU only)
//	isaac-tune calibrate   shipped weights refit to a device without its own, from a few samples measured on it
//
// Each subcommand's -h lists its flags.
package main

import (
	"fmt"
	"os"
)

// buildCommit is the commit the binary was built from (build.sh sets it).
var buildCommit string

func usage() {
	fmt.Fprintln(os.Stderr, "usage: isaac-tune sample|sample-conv|acceptance|train|train-conv|score|eval|eval-conv|score-conv|choose|calibrate [flags]")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	args := os.Args[2:]
	switch os.Args[1] {
	case "sample":
		err = sampleCmd(args)
	case "sample-conv":
		err = sampleConvCmd(args)
	case "train":
		err = trainCmd(args)
	case "train-conv":
		err = trainConvCmd(args)
	case "score":
		err = scoreCmd(args)
	case "eval":
		err = evalCmd(args)
	case "eval-conv":
		err = evalConvCmd(args)
	case "score-conv":
		err = scoreConvCmd(args)
	case "choose":
		err = chooseCmd(args)
	case "acceptance":
		err = acceptanceCmd(args)
	case "calibrate":
		err = calibrateCmd(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "isaac-tune:", err)
		os.Exit(1)
	}
}
