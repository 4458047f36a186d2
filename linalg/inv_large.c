/* The inverse of large real matrices in checked mode (see inv_large.h for the method).
 *
 * Why: cuSOLVER's getrf spends most of its time at these orders choosing pivots one column
 * after another (4096 float64: 14 ms of the ~20 ms that getrf + getrs with an identity take; the
 * same ~20 ms in CuPy and PyTorch, which make the same calls). The random butterfly transform of
 * the randomised solve (linalg/rbt.cu) makes pivoting unnecessary with high probability, so the
 * factorisation runs without it (~2.8 ms at 4096), and the inverse is formed from the factors
 * with level-3 calls that run near the float64 tensor-core rate: inv(U) and inv(L) by Xtrtri,
 * their product by blocked gemm and trmm. Checked mode waits once anyway, which lets the call test its answer
 * and fall back to partial pivoting when a matrix fails (the check in inv_large.h), so that
 * singular and nearly singular input is reported exactly as before. float32 input is inverted
 * in float64 and rounded once.
 *
 * Layout: the buffer of a row-major A read column-major is A^T, so the transform factors
 * M = W0^T A^T W1 (coalesced reads of A); then inv(A)^T = W1 inv(M) W0^T, and the column-major
 * buffer of inv(A)^T is the row-major buffer of inv(A). The butterflies act on columns
 * (nd_lk_rbt_vec), so the right-hand one is applied to the transpose: with Z = inv(M),
 * Y = W1 Z, T = W0 Y^T = (Y W0^T)^T, and x = T^T restricted to n x n (cuBLAS geam). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "linalg/inv_large.h"
#include "linalg/kernels.h"

/* The smallest order taken: below it cuSOLVER's partial pivoting is cheap enough. */
#define ND__INV_LARGE_MIN 512
/* Random probe vectors of the check. */
#define ND__INV_PROBES 16

static _Thread_local int64_t nd__inv_large_counts[2]; /* accepted, sent to partial pivoting */

int64_t nd__inv_large_count(int fell_back) { return nd__inv_large_counts[fell_back != 0]; }

int nd__inv_large_ok(nd_dtype dt, int64_t n, int64_t batch) {
  /* batches of matrices up to 256 go to cuBLAS's batched getrf/getri instead (linalg/inv.c) */
  const int per_matrix = batch == 1 || n > 256;
  return (dt == ND_FLOAT32 || dt == ND_FLOAT64) && per_matrix && n >= ND__INV_LARGE_MIN && n <= 46336 &&
         nd__config_flag(ND__CFG_INV_RBT);
}

static void *nd__il_data(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }

/* z = u l for u upper triangular (only its upper triangle is read) and l lower triangular with
 * its zeros and unit diagonal stored, all column-major of order n with leading dimension ld.
 * A product of two triangles has half the multiply-adds of trmm's triangle-by-full-matrix
 * (2/3 n^3 against n^3 flops): with the blocks split at h,
 *   z11 = u11 l11 + u12 l21,  z12 = u12 l22,  z21 = u22 l21,  z22 = u22 l22,
 * the diagonal blocks recursively, the others by one gemm and two trmm. */
static nd_status nd__il_triprod(cublasHandle_t hb, const double *u, const double *l, double *z, int n, int ld) {
  const double one = 1.0;
  if (n <= 256)
    return ND_CUBLAS(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                 &one, u, ld, l, ld, z, ld));
  const int h = n / 2 / 64 * 64, r = n - h;
  const int64_t off12 = (int64_t)h * ld, off21 = h, off22 = (int64_t)h * ld + h;
  ND_TRY(nd__il_triprod(hb, u, l, z, h, ld));
  ND_TRY(ND_CUBLAS(cublasDgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, h, h, r, &one, u + off12, ld, l + off21, ld, &one, z, ld)));
  ND_TRY(ND_CUBLAS(cublasDtrmm(hb, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, h, r,
                               &one, l + off22, ld, u + off12, ld, z + off12, ld)));
  ND_TRY(ND_CUBLAS(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, r, h,
                               &one, u + off22, ld, l + off21, ld, z + off21, ld)));
  return nd__il_triprod(hb, u + off22, l + off22, z + off22, r, ld);
}

nd_status nd__inv_large(const char *fn, nd_stream *s, nd_dtype dt, int n, int64_t batch, const nd_array *a,
                        nd_array *x, nd_array *info, int *done) {
  *done = 0;
  const int np = (n + 63) / 64 * 64, k = ND__INV_PROBES;
  const nd_lk_rbt rp = {ND_FLOAT64, n, np, np};
  const int64_t mbytes = (int64_t)np * np * 8, vbytes = (int64_t)n * k * 8;
  nd_array *ak = NULL, *xw = NULL;
  nd__buffer *ar = NULL, *lf = NULL, *zb = NULL, *work = NULL, *vec = NULL, *meta = NULL, *first = NULL;
  void *hwork = NULL;

  /* A in float64 with a unit stride on one side (the probe products need a leading dimension) */
  nd_status st = nd__linalg_contig(fn, a, ND_FLOAT64, &ak);
  /* x itself when float64, else a float64 C-contiguous stack rounded into x at the end */
  if (st == ND_OK) {
    if (dt == ND_FLOAT64) xw = nd_array_retain(x);
    else st = nd__array_alloc(fn, x->ndim, x->shape, ND_FLOAT64, 'C', &xw);
  }
  void *hs = NULL, *hb = NULL;
  int lwork = 0;
  size_t tri_dev = 0, tri_host = 0, tri_dev2 = 0, tri_host2 = 0;
  if (st == ND_OK) st = nd__cusolver_for(fn, s, &hs);
  if (st == ND_OK) st = nd__cublas_for(fn, s, &hb);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &ar);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &lf);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &zb);
  if (st == ND_OK) st = ND_CUSOLVER(cusolverDnDgetrf_bufferSize(hs, np, np, ar->ptr, np, &lwork));
  if (st == ND_OK)
    st = ND_CUSOLVER(cusolverDnXtrtri_bufferSize(hs, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, np, CUDA_R_64F,
                                                 lf->ptr, np, &tri_dev, &tri_host));
  if (st == ND_OK)
    st = ND_CUSOLVER(cusolverDnXtrtri_bufferSize(hs, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, np, CUDA_R_64F,
                                                 ar->ptr, np, &tri_dev2, &tri_host2));
  if (tri_dev2 > tri_dev) tri_dev = tri_dev2;
  if (tri_host2 > tri_host) tri_host = tri_host2;
  const int64_t getrf_bytes = (int64_t)lwork * 8 + 16;
  const int64_t work_bytes = getrf_bytes > (int64_t)tri_dev ? getrf_bytes : (int64_t)tri_dev + 16;
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, work_bytes, &work);
  if (st == ND_OK && tri_host > 0 && (hwork = malloc(tri_host)) == NULL)
    st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host workspace", fn, tri_host);
  /* v, y, r (n x k each) */
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, 3 * vbytes, &vec);
  /* per matrix: the squared Frobenius norm (8 bytes), getrf's info and Xtrtri's two (4 each) */
  const int64_t meta_bytes = batch * 8 + batch * 3 * 4;
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, meta_bytes, &meta);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, 8, &first);

  nd__sync sync;
  nd__sync_init(&sync, s);
  int begun = 0;
  if (st == ND_OK) st = nd__sync_add(&sync, &ak->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &xw->buf->hz, ND__WRITE);
  if (st == ND_OK) {
    nd__buffer *writes[] = {ar, lf, zb, work, vec, meta, first};
    st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
  }
  if (st == ND_OK) begun = 1;
  cudaStream_t cs = (cudaStream_t)s->cu;
  double *normsq = meta ? (double *)meta->ptr : NULL;
  int *ginfo = meta ? (int *)(normsq + batch) : NULL;
  unsigned long long *fw = first ? (unsigned long long *)first->ptr : NULL;
  double *v = vec ? (double *)vec->ptr : NULL, *y = v ? v + (int64_t)n * k : NULL, *r = y ? y + (int64_t)n * k : NULL;
  if (st == ND_OK) st = ND_CUDA(cudaMemsetAsync(meta->ptr, 0, (size_t)meta_bytes, cs));
  if (st == ND_OK) st = nd_lk_first_reset(fw, cs);
  if (st == ND_OK) st = nd_lk_il_probes(v, n, k, cs);
  const double one = 1.0, zero = 0.0, mone = -1.0;
  const double tol = 64.0 * fmax(16.0, sqrt((double)n)) * ldexp(1.0, -52);
  const int64_t n2 = (int64_t)n * n;
  for (int64_t b = 0; b < batch && st == ND_OK; b++) {
    const double *ab = (const double *)nd__il_data(ak) + b * n2;
    double *xb = (double *)nd__il_data(xw) + b * n2;
    double *m = ar->ptr, *l = lf->ptr, *z = zb->ptr;
    int *gi = ginfo + b, *ti = ginfo + batch + 2 * b;
    /* 1-2: M = W0^T A^T W1 (A row-major: M(i, j) = A(j, i) = ab[i + j n]), factored unpivoted */
    st = nd_lk_rbt_matrix(&rp, ab, 1, n, m, normsq + b, cs);
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnDgetrf(hs, np, np, m, np, work->ptr, NULL, gi));
    /* 3: L out (with the pivot and info check), both triangles inverted, Z = inv(U) inv(L) */
    if (st == ND_OK) st = nd_lk_il_split(m, np, l, gi, normsq + b, fw, b, cs);
    if (st == ND_OK)
      st = ND_CUSOLVER(cusolverDnXtrtri(hs, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, np, CUDA_R_64F, l, np, work->ptr,
                                        (size_t)work_bytes, hwork, tri_host, ti));
    if (st == ND_OK)
      st = ND_CUSOLVER(cusolverDnXtrtri(hs, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, np, CUDA_R_64F, m, np,
                                        work->ptr, (size_t)work_bytes, hwork, tri_host, ti + 1));
    if (st == ND_OK) st = nd__il_triprod(hb, m, l, z, np, np);
    /* 4: Y = W1 Z (in place), T = W0 Y^T (in l), x = T^T on n x n (xb's column-major buffer
     * with leading dimension n is inv(A)^T). geam's B (beta 0) is the source itself, so that
     * nothing uninitialised is read. */
    if (st == ND_OK) st = nd_lk_rbt_vec(&rp, z, z, 1, 1, cs);
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgeam(hb, CUBLAS_OP_T, CUBLAS_OP_N, np, np, &one, z, np, &zero, z, np, l, np));
    if (st == ND_OK) st = nd_lk_rbt_vec(&rp, l, l, 0, 1, cs);
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgeam(hb, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, l, np, &zero, l, np, xb, n));
    /* 5: y = X v (xb column-major is X^T), r = v - A y (ab column-major is A^T) */
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, n, k, n, &one, xb, n, v, n, &zero, y, n));
    if (st == ND_OK) st = ND_CUDA(cudaMemcpyAsync(r, v, (size_t)vbytes, cudaMemcpyDeviceToDevice, cs));
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, n, k, n, &mone, ab, n, y, n, &one, r, n));
    if (st == ND_OK) st = nd_lk_il_check(r, y, n, k, tol, normsq + b, fw, b, cs);
  }
  if (begun) {
    nd_status st2 = nd__sync_end(&sync);
    if (st == ND_OK) st = st2;
  }
  unsigned long long bad = 0;
  if (st == ND_OK) st = nd__linalg_read_first(fn, s, fw, &bad);
  if (st == ND_OK && bad == ~0ull) {
    /* accepted: every matrix inverted and checked */
    if (dt != ND_FLOAT64) st = nd__assign(fn, x, xw);
    if (st == ND_OK && info) st = nd_array_fill(info, nd_scalar_int(0));
    if (st == ND_OK) *done = 1;
  }
  if (st == ND_OK) nd__inv_large_counts[!*done]++;
  free(hwork);
  nd_array_release(ak);
  nd_array_release(xw);
  if (ar) nd__buffer_release(ar);
  if (lf) nd__buffer_release(lf);
  if (zb) nd__buffer_release(zb);
  if (work) nd__buffer_release(work);
  if (vec) nd__buffer_release(vec);
  if (meta) nd__buffer_release(meta);
  if (first) nd__buffer_release(first);
  return nd__linalg_ctx(fn, st);
}
