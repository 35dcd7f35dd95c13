/*
 * A fake libcublasLt.so.13: matmul descriptors and matrix layouts that store
 * their attributes as cuBLASLt documents them (each attribute's size checked
 * by the setters and getters, CUBLAS_STATUS_INVALID_VALUE where it does not
 * match or where the attribute is unknown; cuBLASLt's defaults), getters that
 * count their calls, and a cublasLtMatmul that records its arguments and
 * returns the status the test asks for. It records through the fake cuBLAS
 * (libcublas.so.13), as the fake cuDNN does.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_vendor.h"

void fake_record(const fake_call *c);
int fake_status(void);

static long lt_getter_calls;
static uint64_t refused_desc, refused_layout;

long fake_lt_getter_calls(void) { return __atomic_load_n(&lt_getter_calls, __ATOMIC_RELAXED); }
void fake_lt_refuse(uint64_t desc_attributes, uint64_t layout_attributes)
{
	__atomic_store_n(&refused_desc, desc_attributes, __ATOMIC_RELAXED);
	__atomic_store_n(&refused_layout, layout_attributes, __ATOMIC_RELAXED);
}

#define DESC_ATTRIBUTES 31   /* CUBLASLT_MATMUL_DESC_COMPUTE_TYPE … ATOMIC_SYNC_OUT_COUNTERS_POINTER */
#define LAYOUT_ATTRIBUTES 9  /* CUBLASLT_MATRIX_LAYOUT_TYPE … BATCH_MODE */

/* Each attribute's size in bytes; 0: no such attribute. */
static const size_t desc_size[DESC_ATTRIBUTES] = {
	[CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = 4, [CUBLASLT_MATMUL_DESC_SCALE_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_POINTER_MODE] = 4, [CUBLASLT_MATMUL_DESC_TRANSA] = 4,
	[CUBLASLT_MATMUL_DESC_TRANSB] = 4, [CUBLASLT_MATMUL_DESC_TRANSC] = 4,
	[CUBLASLT_MATMUL_DESC_FILL_MODE] = 4, [CUBLASLT_MATMUL_DESC_EPILOGUE] = 4,
	[CUBLASLT_MATMUL_DESC_BIAS_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE] = 8,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD] = 8, [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE] = 8,
	[CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE] = 8, [CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET] = 4,
	[CUBLASLT_MATMUL_DESC_A_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_C_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_D_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_AMAX_D_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_FAST_ACCUM] = 1, [CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = 4,
	[CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS] = 4,
	[CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_COLS] = 4,
	[CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER] = sizeof(void *),
	[CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER] = sizeof(void *),
};

static const size_t layout_size[LAYOUT_ATTRIBUTES] = {
	[CUBLASLT_MATRIX_LAYOUT_TYPE] = 4, [CUBLASLT_MATRIX_LAYOUT_ORDER] = 4,
	[CUBLASLT_MATRIX_LAYOUT_ROWS] = 8, [CUBLASLT_MATRIX_LAYOUT_COLS] = 8,
	[CUBLASLT_MATRIX_LAYOUT_LD] = 8, [CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 4,
	[CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET] = 8, [CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET] = 8,
	[CUBLASLT_MATRIX_LAYOUT_BATCH_MODE] = 4,
};

/* A descriptor: every attribute's value in a slot of 8 bytes, as its size
 * says (magic tells a descriptor from any other pointer). */
#define DESC_MAGIC 0x4c54444553430001ULL
#define LAYOUT_MAGIC 0x4c544c41594f0001ULL
struct fake_lt_object {
	uint64_t magic;
	unsigned char slot[DESC_ATTRIBUTES][8];
};

static void put(struct fake_lt_object *o, int attr, const void *v, size_t size)
{
	memcpy(o->slot[attr], v, size);
}

static struct fake_lt_object *object(const void *p, uint64_t magic)
{
	struct fake_lt_object *o = (struct fake_lt_object *)p;
	return o != NULL && o->magic == magic ? o : NULL;
}

static cublasStatus_t set(struct fake_lt_object *o, const size_t *sizes, int n, int attr,
	const void *buf, size_t size)
{
	if (o == NULL || attr < 0 || attr >= n || sizes[attr] == 0 || buf == NULL || size != sizes[attr])
		return CUBLAS_STATUS_INVALID_VALUE;
	put(o, attr, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

/* cuBLASLt's getter: sizeInBytes 0 with sizeWritten asks for the size;
 * otherwise it must be the attribute's size, and buf not NULL. */
static cublasStatus_t get(struct fake_lt_object *o, const size_t *sizes, int n, uint64_t refused,
	int attr, void *buf, size_t size, size_t *written)
{
	__atomic_fetch_add(&lt_getter_calls, 1, __ATOMIC_RELAXED);
	if (o == NULL || attr < 0 || attr >= n || sizes[attr] == 0 || (attr < 64 && (refused >> attr & 1)))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (written != NULL)
		*written = sizes[attr];
	if (size == 0 && written != NULL)
		return CUBLAS_STATUS_SUCCESS;
	if (size != sizes[attr] || buf == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	memcpy(buf, o->slot[attr], size);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
	static char context;
	if (lightHandle == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	*lightHandle = (cublasLtHandle_t)&context;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
	return lightHandle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
	cublasComputeType_t computeType, cudaDataType_t scaleType)
{
	if (matmulDesc == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	struct fake_lt_object *o = calloc(1, sizeof *o);
	if (o == NULL)
		return CUBLAS_STATUS_ALLOC_FAILED;
	o->magic = DESC_MAGIC;
	/* cuBLASLt's defaults: host pointers, no transposes, the full matrix,
	 * no epilogue, the bias of D's type; every pointer NULL, every stride
	 * and count 0 (calloc). */
	int32_t compute = computeType, scale = scaleType, op = CUBLAS_OP_N, fill = 2 /* FULL */, type = -1;
	int32_t pointer_mode = CUBLASLT_POINTER_MODE_HOST;
	uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
	put(o, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute, 4);
	put(o, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale, 4);
	put(o, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pointer_mode, 4);
	put(o, CUBLASLT_MATMUL_DESC_TRANSA, &op, 4);
	put(o, CUBLASLT_MATMUL_DESC_TRANSB, &op, 4);
	put(o, CUBLASLT_MATMUL_DESC_TRANSC, &op, 4);
	put(o, CUBLASLT_MATMUL_DESC_FILL_MODE, &fill, 4);
	put(o, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, 4);
	put(o, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, &type, 4);
	put(o, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, 4);
	*matmulDesc = (cublasLtMatmulDesc_t)o;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
	struct fake_lt_object *o = object(matmulDesc, DESC_MAGIC);
	if (o != NULL) {
		o->magic = 0;
		free(o);
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
	cublasLtMatmulDescAttributes_t attr, const void *buf, size_t sizeInBytes)
{
	return set(object(matmulDesc, DESC_MAGIC), desc_size, DESC_ATTRIBUTES, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
	cublasLtMatmulDescAttributes_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten)
{
	return get(object(matmulDesc, DESC_MAGIC), desc_size, DESC_ATTRIBUTES,
		__atomic_load_n(&refused_desc, __ATOMIC_RELAXED), attr, buf, sizeInBytes, sizeWritten);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
	uint64_t rows, uint64_t cols, int64_t ld)
{
	if (matLayout == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	struct fake_lt_object *o = calloc(1, sizeof *o);
	if (o == NULL)
		return CUBLAS_STATUS_ALLOC_FAILED;
	o->magic = LAYOUT_MAGIC;
	/* Column-major, one matrix, strided batches; offsets 0 (calloc). */
	uint32_t t = type;
	int32_t order = CUBLASLT_ORDER_COL, batch = 1, mode = CUBLASLT_BATCH_MODE_STRIDED;
	put(o, CUBLASLT_MATRIX_LAYOUT_TYPE, &t, 4);
	put(o, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, 4);
	put(o, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, 8);
	put(o, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, 8);
	put(o, CUBLASLT_MATRIX_LAYOUT_LD, &ld, 8);
	put(o, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, 4);
	put(o, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, 4);
	*matLayout = (cublasLtMatrixLayout_t)o;
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(const cublasLtMatrixLayout_t matLayout)
{
	struct fake_lt_object *o = object(matLayout, LAYOUT_MAGIC);
	if (o != NULL) {
		o->magic = 0;
		free(o);
	}
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
	cublasLtMatrixLayoutAttribute_t attr, const void *buf, size_t sizeInBytes)
{
	return set(object(matLayout, LAYOUT_MAGIC), layout_size, LAYOUT_ATTRIBUTES, attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
	cublasLtMatrixLayoutAttribute_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten)
{
	return get(object(matLayout, LAYOUT_MAGIC), layout_size, LAYOUT_ATTRIBUTES,
		__atomic_load_n(&refused_layout, __ATOMIC_RELAXED), attr, buf, sizeInBytes, sizeWritten);
}

/* Records every call; a NULL handle or descriptor gets cuBLASLt's own
 * status (NOT_INITIALIZED, INVALID_VALUE), any other call the test's. */
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
	const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
	cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc,
	void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
	size_t workspaceSizeInBytes, cudaStream_t stream)
{
	fake_call c;
	memset(&c, 0, sizeof c);
	c.fn = "cublasLtMatmul";
	c.handle = lightHandle; c.lt_desc = computeDesc;
	c.alpha = alpha; c.A = A; c.a_layout = Adesc; c.B = B; c.b_layout = Bdesc;
	c.beta = beta; c.C = (void *)C; c.c_layout = Cdesc; c.D = D; c.d_layout = Ddesc;
	c.lt_algo = algo; c.workspace = workspace; c.workspace_bytes = workspaceSizeInBytes;
	c.stream = stream;
	fake_record(&c);
	if (lightHandle == NULL)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	if (computeDesc == NULL || Adesc == NULL || Bdesc == NULL || Cdesc == NULL || Ddesc == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	return (cublasStatus_t)fake_status();
}
