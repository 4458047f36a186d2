/* The inverse of large real matrices in checked mode (linalg/inv_large.c, kernels in
 * linalg/inv_large.cu), called from nd_linalg_inv_ex's dispatch in linalg/inv.c. */
#ifndef ND_LINALG_INV_LARGE_H
#define ND_LINALG_INV_LARGE_H

#include <stdint.h>

#include "ndcuda/status.h"
#ifndef __CUDACC__
#include "linalg/linalg_internal.h" /* host side only: not for device code */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the host side (C) -------------------------------------------------------------------- */
#ifndef __CUDACC__

/* Whether nd__inv_large may take an inverse of this dtype, order and batch (real dtypes,
 * order ND__INV_LARGE_MIN.. within cuSOLVER's int sizes, the orders that would otherwise go to
 * cuSOLVER's getrf + getrs one matrix at a time, and ND_INV_RBT not 0). */
int nd__inv_large_ok(nd_dtype dt, int64_t n, int64_t batch);

/* The randomised inverse: x (C-contiguous, dtype dt, batch x n x n) = inv(a) for every matrix
 * of a (batch dims, then n x n, any layout and real dtype), in float64 internally:
 *   1. M = W0^T A^T W1, A padded with identity to order np (a multiple of 64), the same random
 *      butterflies as the randomised solve (linalg/rbt.cu);
 *   2. cuSOLVER getrf of M without pivoting, M = L U;
 *   3. inv(M) = inv(U) inv(L): cuSOLVER Xtrtri of each triangle, then their product (cuBLAS
 *      gemm and trmm on blocks: a product of two triangles, 2/3 n^3 flops);
 *   4. inv(A)^T = W1 inv(M) W0^T (restricted to n x n), through two transposes (cuBLAS geam);
 *   5. the check: getrf's info is 0, every pivot finite and above 1e-10 ||A||_F, and for 16
 *      random +-1 probe vectors v, y = X v has ||A y - v||_inf <= tol ||A||_F ||y||_inf with
 *      tol = 64 max(16, sqrt(n)) eps(float64).
 * When every matrix passes, *done = 1, x holds the inverses and info (when not NULL) zeros.
 * Otherwise *done = 0 and x is to be overwritten by the partial-pivoting path, which then
 * decides what is singular exactly as without this path. Waits on the host once (checked
 * mode). Errors: ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA / vendor errors, with fn's name. */
nd_status nd__inv_large(const char *fn, nd_stream *s, nd_dtype dt, int n, int64_t batch, const nd_array *a,
                        nd_array *x, nd_array *info, int *done);

/* Calls of this thread whose randomised inverse was accepted (fell_back 0) or handed to
 * partial pivoting (fell_back 1). */
int64_t nd__inv_large_count(int fell_back);
#endif

/* ---- kernels (linalg/inv_large.cu); dtype float64 throughout --------------------------- */

/* lf (column-major, order np) = the unit lower triangle of lu with zeros above; atomicMin(first,
 * index) unless *info is 0 and every diagonal entry of lu is finite with |u_ii| > 1e-10 *
 * sqrt(*normsq). */
nd_status nd_lk_il_split(const double *lu, int np, double *lf, const int *info, const double *normsq,
                         unsigned long long *first, int64_t index, void *stream);
/* v (n x k, column-major, leading dimension n) = random +-1 (the same every call). */
nd_status nd_lk_il_probes(double *v, int n, int k, void *stream);
/* atomicMin(first, index) unless every column c of r and y (n x k, leading dimension n) is
 * finite with max|r(:, c)| <= tol * sqrt(*normsq) * max|y(:, c)|. */
nd_status nd_lk_il_check(const double *r, const double *y, int n, int k, double tol, const double *normsq,
                         unsigned long long *first, int64_t index, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_INV_LARGE_H */
