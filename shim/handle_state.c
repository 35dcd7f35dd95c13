/*
 * handle_state.c: reading a cuBLAS handle's state and a cuDNN convolution's
 * descriptors through the vendor's own getters, in one call from Go.
 */
#include <string.h>

#include "entry.h"

typedef cublasStatus_t (*get_stream_fn)(cublasHandle_t, cudaStream_t *);
typedef cublasStatus_t (*get_mode_fn)(cublasHandle_t, int *);

void isaac_read_cublas_state(void *handle, isaac_cublas_state *st)
{
	cublasHandle_t h = (cublasHandle_t)handle;
	memset(st, 0, sizeof *st);
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, get_stream_fn, "cublasGetStream_v2", get_stream)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, get_mode_fn, "cublasGetPointerMode_v2", get_pointer_mode)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, get_mode_fn, "cublasGetMathMode", get_math_mode)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, get_mode_fn, "cublasGetAtomicsMode", get_atomics_mode)
	if (!get_stream || !get_pointer_mode || !get_math_mode || !get_atomics_mode) {
		st->status = ISAAC_CUBLAS_STATUS_NOT_INITIALIZED;
		return;
	}
	cudaStream_t stream = NULL;
	if ((st->status = get_stream(h, &stream)) != 0)
		return;
	st->stream = (void *)stream;
	if ((st->status = get_pointer_mode(h, &st->pointer_mode)) != 0)
		return;
	if ((st->status = get_math_mode(h, &st->math_mode)) != 0)
		return;
	st->status = get_atomics_mode(h, &st->atomics_mode);
}

typedef cudnnStatus_t (*cudnn_get_stream_fn)(cudnnHandle_t, cudaStream_t *);
typedef cudnnStatus_t (*get_tensor_nd_fn)(const cudnnTensorDescriptor_t, int, int *, int *, int *, int *);
typedef cudnnStatus_t (*get_filter_nd_fn)(const cudnnFilterDescriptor_t, int, int *, int *, int *, int *);
typedef cudnnStatus_t (*get_conv_nd_fn)(const cudnnConvolutionDescriptor_t, int, int *, int *, int *, int *, int *, int *);
typedef cudnnStatus_t (*get_conv_int_fn)(cudnnConvolutionDescriptor_t, int *);

void isaac_read_conv_descriptors(const isaac_conv_call *call, isaac_conv_state *st)
{
	memset(st, 0, sizeof *st);
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_tensor_nd_fn, "cudnnGetTensorNdDescriptor", get_tensor)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_filter_nd_fn, "cudnnGetFilterNdDescriptor", get_filter)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_conv_nd_fn, "cudnnGetConvolutionNdDescriptor", get_conv)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_conv_int_fn, "cudnnGetConvolutionGroupCount", get_groups)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_conv_int_fn, "cudnnGetConvolutionMathType", get_math)
	if (!get_tensor || !get_filter || !get_conv || !get_groups || !get_math) {
		st->status = ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
		return;
	}
	if ((st->status = get_tensor((cudnnTensorDescriptor_t)call->x_desc, ISAAC_MAX_DIMS,
			&st->x_type, &st->x_dims, st->x_dim, st->x_stride)) != 0)
		return;
	if ((st->status = get_tensor((cudnnTensorDescriptor_t)call->y_desc, ISAAC_MAX_DIMS,
			&st->y_type, &st->y_dims, st->y_dim, st->y_stride)) != 0)
		return;
	if ((st->status = get_filter((cudnnFilterDescriptor_t)call->w_desc, ISAAC_MAX_DIMS,
			&st->w_type, &st->w_format, &st->w_dims, st->w_dim)) != 0)
		return;
	if ((st->status = get_conv((cudnnConvolutionDescriptor_t)call->conv_desc, ISAAC_MAX_DIMS - 2,
			&st->conv_dims, st->pad, st->stride, st->dilation, &st->mode,
			&st->compute_type)) != 0)
		return;
	if ((st->status = get_groups((cudnnConvolutionDescriptor_t)call->conv_desc, &st->groups)) != 0)
		return;
	st->status = get_math((cudnnConvolutionDescriptor_t)call->conv_desc, &st->math_type);
}

void isaac_read_conv_stream(const isaac_conv_call *call, isaac_conv_state *st)
{
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, cudnn_get_stream_fn, "cudnnGetStream", get_stream)
	if (get_stream == NULL) {
		st->status = ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
		return;
	}
	cudaStream_t stream = NULL;
	if ((st->status = get_stream((cudnnHandle_t)call->handle, &stream)) == 0)
		st->stream = (void *)stream;
}

void isaac_read_conv_state(const isaac_conv_call *call, isaac_conv_state *st)
{
	isaac_read_conv_descriptors(call, st);
	if (st->status == 0)
		isaac_read_conv_stream(call, st);
}
