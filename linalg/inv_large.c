/* The inverse of large row diagonally dominant real matrices in checked mode, without
 * pivoting (see inv_large.h for the method).
 *
 * Why: cuSOLVER's getrf spends most of its time at these orders choosing pivots one column
 * after another (4096 float64: 14 ms of the ~20 ms that getrf + getrs with an identity take; the
 * same ~20 ms in CuPy and PyTorch, which make the same calls), against ~2.8 ms without pivoting.
 * Where no pivoting is needed, which a row diagonal dominance test (one pass over A) shows, the
 * factorisation runs without it and the inverse is formed from the factors with level-3 calls:
 * the triangles inverted from their 64 x 64 diagonal tiles upwards (cuSOLVER's Xtrtri measured
 * 9.4 and 10.5 ms for the two triangles of order 4096 on an H100, more than the whole partial-
 * pivoting inverse), their product by trmm. Checked mode waits anyway, so the call tests its
 * answer (inv_large.h) and hands a matrix that fails to partial pivoting, which then reports
 * singular input exactly as before. Matrices that are not dominant go to partial pivoting at
 * once (the random butterflies of the randomised solve were tried first: on uniform random
 * matrices of order 512 the unpivoted factors of the transformed matrix grew by 1e3 and the
 * inverse's residual was 1e4 times partial pivoting's, where the solve's refinement step
 * recovers it and an inverse cannot afford one). float32 input is inverted in float64 and
 * rounded once.
 *
 * Layout: the column-major view of a row-major A is A^T; the call factors A^T, and the
 * column-major buffer of inv(A^T) is the row-major buffer of inv(A). */
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

static _Thread_local int64_t nd__inv_large_counts[3]; /* accepted, sent to partial pivoting, not tried */

int64_t nd__inv_large_count(int what) { return what >= 0 && what < 3 ? nd__inv_large_counts[what] : 0; }

int nd__inv_large_ok(nd_dtype dt, int64_t n, int64_t batch) {
  /* batches of matrices up to 256 go to cuBLAS's batched getrf/getri instead (linalg/inv.c) */
  const int per_matrix = batch == 1 || n > 256;
  return (dt == ND_FLOAT32 || dt == ND_FLOAT64) && per_matrix && n >= ND__INV_LARGE_MIN && n <= 46336 &&
         nd__config_flag(ND__CFG_INV_NOPIV);
}

static void *nd__il_data(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }

/* In place t = inv(t) for t lower (lower = 1) or upper triangular, column-major of order np
 * (a multiple of 64) with zeros stored in its other triangle and the inverses of its 64 x 64
 * diagonal tiles already in place. Blocks (off, size) start as the tiles and are merged in
 * pairs, level after level; for the pair T11 (o1, s1), T22 (o2 = o1 + s1, s2), both already
 * inverted (X11, X22), the off-diagonal block becomes
 *   lower: X21 = -X22 T21 X11 (rows o2.., columns o1..),
 *   upper: X12 = -X11 T12 X22 (rows o1.., columns o2..),
 * through w (at least np * np / 4 doubles). The leading pairs of a level all have the first
 * block's size and a constant stride: two strided-batched gemm for all of them when there are
 * several (the triangles' zeros are stored, so a gemm is right); a lone or unequal pair (the
 * last one when np / 64 is not a power of two) takes two trmm. */
static nd_status nd__il_invert_tri(cublasHandle_t hb, double *t, int np, int lower, double *w) {
  const double one = 1.0, zero = 0.0, mone = -1.0;
  int nb = np / 64;
  int *off = malloc((size_t)nb * 2 * sizeof(int));
  if (off == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%d bytes of host memory", (int)(nb * 2 * sizeof(int)));
  int *sz = off + nb;
  for (int i = 0; i < nb; i++) {
    off[i] = 64 * i;
    sz[i] = 64;
  }
  nd_status st = ND_OK;
  const cublasSideMode_t left = CUBLAS_SIDE_LEFT, right = CUBLAS_SIDE_RIGHT;
  const cublasFillMode_t fill = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  while (nb > 1 && st == ND_OK) {
    const int pairs = nb / 2, s0 = sz[0];
    int pe = 0;
    while (pe < pairs && sz[2 * pe] == s0 && sz[2 * pe + 1] == s0) pe++;
    int single = 0;
    if (pe >= 2) {
      const long long stride = 2LL * s0 * (np + 1), ws = (long long)s0 * s0;
      double *x11 = t, *x22 = t + s0 + (int64_t)s0 * np, *t21 = t + s0, *t12 = t + (int64_t)s0 * np;
      if (lower) {
        st = ND_CUBLAS(cublasDgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, s0, s0, s0, &one, t21, np, stride, x11,
                                                 np, stride, &zero, w, s0, ws, pe));
        if (st == ND_OK)
          st = ND_CUBLAS(cublasDgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, s0, s0, s0, &mone, x22, np, stride, w,
                                                   s0, ws, &zero, t21, np, stride, pe));
      } else {
        st = ND_CUBLAS(cublasDgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, s0, s0, s0, &one, t12, np, stride, x22,
                                                 np, stride, &zero, w, s0, ws, pe));
        if (st == ND_OK)
          st = ND_CUBLAS(cublasDgemmStridedBatched(hb, CUBLAS_OP_N, CUBLAS_OP_N, s0, s0, s0, &mone, x11, np, stride, w,
                                                   s0, ws, &zero, t12, np, stride, pe));
      }
      single = pe;
    }
    for (int p = single; p < pairs && st == ND_OK; p++) {
      const int o1 = off[2 * p], s1 = sz[2 * p], o2 = off[2 * p + 1], s2 = sz[2 * p + 1];
      double *x11 = t + o1 + (int64_t)o1 * np, *x22 = t + o2 + (int64_t)o2 * np;
      if (lower) {
        double *t21 = t + o2 + (int64_t)o1 * np; /* s2 x s1 */
        st = ND_CUBLAS(cublasDtrmm(hb, right, fill, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s2, s1, &one, x11, np, t21, np,
                                   w, s2));
        if (st == ND_OK)
          st = ND_CUBLAS(cublasDtrmm(hb, left, fill, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s2, s1, &mone, x22, np, w, s2,
                                     t21, np));
      } else {
        double *t12 = t + o1 + (int64_t)o2 * np; /* s1 x s2 */
        st = ND_CUBLAS(cublasDtrmm(hb, right, fill, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s1, s2, &one, x22, np, t12, np,
                                   w, s1));
        if (st == ND_OK)
          st = ND_CUBLAS(cublasDtrmm(hb, left, fill, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s1, s2, &mone, x11, np, w, s1,
                                     t12, np));
      }
    }
    for (int p = 0; p < pairs; p++) {
      off[p] = off[2 * p];
      sz[p] = sz[2 * p] + sz[2 * p + 1];
    }
    if (nb & 1) {
      off[pairs] = off[nb - 1];
      sz[pairs] = sz[nb - 1];
    }
    nb = pairs + (nb & 1);
  }
  free(off);
  return st;
}

nd_status nd__inv_large(const char *fn, nd_stream *s, nd_dtype dt, int n, int64_t batch, const nd_array *a,
                        nd_array *x, nd_array *info, int *done) {
  *done = 0;
  const int np = (n + 63) / 64 * 64, k = ND__INV_PROBES;
  const nd_lk_rbt rp = {ND_FLOAT64, n, np, k};
  const int64_t mbytes = (int64_t)np * np * 8, vbytes = (int64_t)n * k * 8, n2 = (int64_t)n * n;
  nd_array *ak = NULL, *xw = NULL;
  nd__buffer *ar = NULL, *lf = NULL, *uf = NULL, *zb = NULL, *work = NULL, *vec = NULL, *meta = NULL;
  cudaStream_t cs = (cudaStream_t)s->cu;

  /* A in float64, C-contiguous (its column-major view A^T is what is factored) */
  nd_status st = nd__linalg_contig(fn, a, ND_FLOAT64, &ak);
  /* per matrix: the infinity norm (8 bytes) and getrf's info (4); then the dominance
   * flags and the first failing matrix (8 bytes each) */
  const int64_t meta_bytes = batch * 8 + (batch * 4 + 7) / 8 * 8 + 16;
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, meta_bytes, &meta);
  double *anorm = meta ? (double *)meta->ptr : NULL;
  int *ginfo = meta ? (int *)(anorm + batch) : NULL;
  unsigned long long *flags = meta ? (unsigned long long *)((char *)meta->ptr + meta_bytes - 16) : NULL,
                     *fw = flags ? flags + 1 : NULL;

  /* 1: the dominance test, and the norms (zero first: the kernels take maxima) */
  nd__sync sync;
  nd__sync_init(&sync, s);
  if (st == ND_OK) st = nd__sync_add(&sync, &ak->buf->hz, ND__READ);
  if (st == ND_OK) {
    nd__buffer *writes[] = {meta};
    st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
    if (st == ND_OK) {
      st = ND_CUDA(cudaMemsetAsync(meta->ptr, 0, (size_t)meta_bytes, cs));
      for (int64_t b = 0; b < batch && st == ND_OK; b++)
        st = nd_lk_il_dominance((const double *)nd__il_data(ak) + b * n2, n, flags, anorm + b, cs);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
  }
  unsigned long long fl = 1;
  if (st == ND_OK) st = nd__linalg_read_first(fn, s, flags, &fl);
  if (st != ND_OK || fl != 0) {
    if (st == ND_OK) nd__inv_large_counts[2]++;
    nd_array_release(ak);
    if (meta) nd__buffer_release(meta);
    return nd__linalg_ctx(fn, st);
  }

  /* 2-5 */
  if (dt == ND_FLOAT64) xw = nd_array_retain(x); /* else float64 here, rounded into x at the end */
  else st = nd__array_alloc(fn, x->ndim, x->shape, ND_FLOAT64, 'C', &xw);
  void *hs = NULL, *hb = NULL;
  int lwork = 0;
  if (st == ND_OK) st = nd__cusolver_for(fn, s, &hs);
  if (st == ND_OK) st = nd__cublas_for(fn, s, &hb);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &ar);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &lf);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &uf);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, mbytes, &zb);
  if (st == ND_OK) st = ND_CUSOLVER(cusolverDnDgetrf_bufferSize(hs, np, np, ar->ptr, np, &lwork));
  /* getrf's workspace, then the diagonal tiles' inverses of both triangles (2 np 64 doubles) */
  const int64_t work_bytes = ((int64_t)lwork * 8 + 255) / 256 * 256 + 2 * (int64_t)np * 64 * 8;
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, work_bytes, &work);
  if (st == ND_OK) st = nd__linalg_scratch(fn, s, 3 * vbytes, &vec); /* v, y, r (n x k each) */
  int begun = 0;
  nd__sync_init(&sync, s);
  if (st == ND_OK) st = nd__sync_add(&sync, &ak->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &xw->buf->hz, ND__WRITE);
  if (st == ND_OK) {
    nd__buffer *writes[] = {ar, lf, uf, zb, work, vec, meta};
    st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
  }
  if (st == ND_OK) begun = 1;
  double *v = vec ? (double *)vec->ptr : NULL, *y = v ? v + (int64_t)n * k : NULL, *r = y ? y + (int64_t)n * k : NULL;
  double *dinv = work ? (double *)((char *)work->ptr + work_bytes - 2 * (int64_t)np * 64 * 8) : NULL;
  if (st == ND_OK) st = nd_lk_first_reset(fw, cs);
  if (st == ND_OK) st = nd_lk_il_probes(v, n, k, cs);
  const double one = 1.0, zero = 0.0, mone = -1.0;
  const double tol = 64.0 * fmax(16.0, sqrt((double)n)) * ldexp(1.0, -52);
  for (int64_t b = 0; b < batch && st == ND_OK; b++) {
    const double *ab = (const double *)nd__il_data(ak) + b * n2;
    double *xb = (double *)nd__il_data(xw) + b * n2;
    double *m = ar->ptr, *l = lf->ptr, *u = uf->ptr, *z = zb->ptr;
    /* 2: A^T padded, factored without pivoting */
    st = nd_lk_il_pad(ab, n, np, m, cs);
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnDgetrf(hs, np, np, m, np, work->ptr, NULL, ginfo + b));
    /* 3: both triangles out (with the pivot and info check), their tiles inverted, merged */
    if (st == ND_OK) st = nd_lk_il_split(m, n, np, l, u, ginfo + b, anorm + b, fw, b, cs);
    if (st == ND_OK) st = nd_lk_tri_inv(&rp, m, 1, np, 1, 1, dinv, cs);
    if (st == ND_OK) st = nd_lk_il_tiles(dinv, dinv + (int64_t)np * 64, np, l, u, cs);
    if (st == ND_OK) st = nd__il_invert_tri(hb, l, np, 1, z);
    if (st == ND_OK) st = nd__il_invert_tri(hb, u, np, 0, z);
    /* 4: inv(A^T) = inv(U) inv(L); its n x n corner, column-major, is x row-major. Where n is
     * a multiple of 64 there is no padding and the product goes straight into x (a copy of
     * n^2 doubles less: 1.5% of the inverse at n = 4096). */
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDtrmm(hb, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, np,
                                 np, &one, u, np, l, np, np == n ? xb : z, np));
    if (st == ND_OK && np != n)
      st = ND_CUDA(cudaMemcpy2DAsync(xb, (size_t)n * 8, z, (size_t)np * 8, (size_t)n * 8, (size_t)n,
                                     cudaMemcpyDeviceToDevice, cs));
    /* 5: y = X v (xb column-major is X^T), r = v - A y (ab column-major is A^T) */
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, n, k, n, &one, xb, n, v, n, &zero, y, n));
    if (st == ND_OK) st = ND_CUDA(cudaMemcpyAsync(r, v, (size_t)vbytes, cudaMemcpyDeviceToDevice, cs));
    if (st == ND_OK)
      st = ND_CUBLAS(cublasDgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, n, k, n, &mone, ab, n, y, n, &one, r, n));
    if (st == ND_OK) st = nd_lk_il_check(r, y, n, k, tol, anorm + b, fw, b, cs);
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
  nd_array_release(ak);
  nd_array_release(xw);
  if (ar) nd__buffer_release(ar);
  if (lf) nd__buffer_release(lf);
  if (uf) nd__buffer_release(uf);
  if (zb) nd__buffer_release(zb);
  if (work) nd__buffer_release(work);
  if (vec) nd__buffer_release(vec);
  if (meta) nd__buffer_release(meta);
  return nd__linalg_ctx(fn, st);
}
