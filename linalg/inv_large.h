/* The inverse of large row diagonally dominant real matrices without pivoting, in checked mode
 * (linalg/inv_large.c, kernels in linalg/inv_large.cu), called from nd_linalg_inv_ex's dispatch
 * in linalg/inv.c. */
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

/* Whether nd__inv_large may be tried for this dtype, order and batch (real dtypes, orders
 * ND__INV_LARGE_MIN.. within cuSOLVER's int sizes that would otherwise go to cuSOLVER's getrf +
 * getrs one matrix at a time, and ND_INV_NOPIV not 0). */
int nd__inv_large_ok(nd_dtype dt, int64_t n, int64_t batch);

/* The inverse without pivoting of row diagonally dominant matrices: x (C-contiguous, dtype dt,
 * batch x n x n) = inv(a) for every matrix of a (batch dims, then n x n, any layout and real
 * dtype), in float64 internally:
 *   1. the test: every row of every matrix has |a_ii| >= sum_{j != i} |a_ij| (NaN fails). If
 *      one does not, nothing more is done (*done = 0; one host wait for the answer). For such
 *      matrices Gaussian elimination needs no pivoting (partial pivoting would choose the
 *      diagonal of the column-major factorisation below, A^T being column dominant, and the
 *      growth factor is at most 2);
 *   2. cuSOLVER getrf without pivoting of A^T (the column-major view of A) padded with identity
 *      to order np, a multiple of 64: A^T = L U;
 *   3. inv(L) and inv(U): the 64 x 64 diagonal tiles of both inverted at once (nd_lk_tri_inv),
 *      then merged pairwise bottom up (inv([T11 0; T21 T22]) has -inv(T22) T21 inv(T11) below),
 *      every equal pair of a level in two strided-batched gemm, an unequal or lone pair by trmm;
 *   4. inv(A^T) = inv(U) inv(L) (trmm), whose column-major buffer is inv(A) in row-major order;
 *   5. the check: getrf's info is 0, every pivot finite and above 1e-10 ||A||_inf, and for 16
 *      random +-1 probe vectors v, y = X v has ||A y - v||_inf <= tol sqrt(n) ||A||_inf
 *      ||y||_inf with tol = 64 max(16, sqrt(n)) eps(float64) (sqrt(n) ||A||_inf bounds ||A||_F;
 *      norms from row sums, which do not overflow where a sum of squares would).
 * When every matrix passes, *done = 1, x holds the inverses and info (when not NULL) zeros.
 * Otherwise *done = 0 and x is to be overwritten by the partial-pivoting path, which then
 * decides what is singular exactly as without this path. Waits on the host (checked mode).
 * Errors: ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA / vendor errors, with fn's name. */
nd_status nd__inv_large(const char *fn, nd_stream *s, nd_dtype dt, int n, int64_t batch, const nd_array *a,
                        nd_array *x, nd_array *info, int *done);

/* Calls of this thread whose inverse without pivoting was accepted (what 0), tried and handed
 * to partial pivoting by the check (1), or not tried because a matrix is not row diagonally
 * dominant (2). */
int64_t nd__inv_large_count(int what);
#endif

/* ---- kernels (linalg/inv_large.cu); dtype float64 throughout --------------------------- */

/* *flags |= 1 unless every row i of a (row-major n x n) has |a_ii| >= sum_{j != i} |a_ij|;
 * *anorm = max(*anorm, ||a||_inf) (*anorm >= 0 before). */
nd_status nd_lk_il_dominance(const double *a, int n, unsigned long long *flags, double *anorm, void *stream);
/* m (column-major, order np) = [a 0; 0 I], a n x n column-major with leading dimension n. */
nd_status nd_lk_il_pad(const double *a, int n, int np, double *m, void *stream);
/* lf = the unit lower triangle of lu with zeros above, uf = its upper triangle with zeros
 * below (column-major, order np); atomicMin(first, index) unless *info is 0 and the first n
 * diagonal entries of lu are finite with |u_ii| > 1e-10 * *anorm. */
nd_status nd_lk_il_split(const double *lu, int n, int np, double *lf, double *uf, const int *info, const double *anorm,
                         unsigned long long *first, int64_t index, void *stream);
/* The 64 x 64 diagonal tiles of lf and uf = the row-major tiles dl and du (nd_lk_tri_inv). */
nd_status nd_lk_il_tiles(const double *dl, const double *du, int np, double *lf, double *uf, void *stream);
/* v (n x k, column-major, leading dimension n) = random +-1 (the same every call). */
nd_status nd_lk_il_probes(double *v, int n, int k, void *stream);
/* atomicMin(first, index) unless every column c of r and y (n x k, leading dimension n) is
 * finite with max|r(:, c)| <= tol * sqrt(n) * *anorm * max|y(:, c)|. */
nd_status nd_lk_il_check(const double *r, const double *y, int n, int k, double tol, const double *anorm,
                         unsigned long long *first, int64_t index, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_INV_LARGE_H */
