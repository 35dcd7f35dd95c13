// Package space is the tuning-parameter space of ISAAC's GEMM kernels and
// every way of drawing configurations from it: the parameter lists of an
// input class (For, ForSweep, ForWarpgroup), uniform draws, neighbours and
// the paper's generative sampler (Sampler, section 4.1), the performance
// model's seed pools (SeedPool), the hand heuristic (Default), the grids of
// tile families the vendor's kernels use (Grid), the sweep's candidates
// (Sweep), twins with options the spaces do not draw (PipelinedTwins,
// TMATwins, RegisterCap), and whether a configuration suits a shape
// (Suits). Package ptx emits and checks kernels; what to try is decided
// here.
package space
