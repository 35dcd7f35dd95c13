// Package tune is the CPU side of the tuner (the paper's sections 4–6): the
// distributions of inputs the sampler measures (GEMMs, and convolutions:
// ConvDistribution), the data set format that
// isaac-tune writes on the GPU machine, and the training of the MLP whose
// weights the predictor embeds (the sampler itself is package space's).
// Nothing here touches the GPU.
package tune
