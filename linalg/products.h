/* The batched product core shared by matmul, the solvers and the decompositions. */
#ifndef ND_LINALG_PRODUCTS_H
#define ND_LINALG_PRODUCTS_H

#include "linalg/linalg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c[i] = a[i] @ b[i] for 3-d operands (batch, m, k), (batch, k, n), (batch, m, n) of one dtype.
 * a and b may have any strides (a batch stride of 0 broadcasts); operands whose matrices have
 * no unit stride are copied first. float16/32/64 and complex go to cuBLAS (gemm or strided
 * batched gemm; TF32 when tf32 is set), bool and integers to the exact integer kernel. k = 0
 * writes zeros. c must not overlap a or b. */
nd_status nd__matmul_into(const char *fn, const nd_array *a, const nd_array *b, nd_array *c, int tf32);

/* A (batch, rows, cols) view or copy of x of dtype dt: x's leading dimensions are folded into
 * one batch dimension (a copy when they cannot be). */
nd_status nd__as_batch3(const char *fn, const nd_array *x, nd_dtype dt, nd_array **out);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_PRODUCTS_H */
