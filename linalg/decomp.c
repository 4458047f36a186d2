/* Decompositions through cuSOLVER: cholesky (potrf / potrfBatched), qr (geqrf + orgqr/ungqr),
 * svd (gesvdj / gesvdjBatched), eigh and eigvalsh (syevj/heevj and their batched forms).
 *
 * Layout. cuSOLVER is column-major. Where the factorisation does not care (cholesky and eigh
 * of a Hermitian matrix: the row-major buffer is the column-major conj(A)), the C-ordered copy
 * is used as it is and the triangle flag or a conjugation undoes the transpose; qr and svd
 * factor a column-major copy (the copy kernel transposes through shared memory). Each
 * factorisation works on a fresh copy, so inputs are never modified, and all workspaces come
 * from the stream-ordered pool on the current stream. */
#include <limits.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include "linalg/kernels.h"
#include "linalg/linalg_internal.h"
#include "src/api_scope.h"

#define ND__BY_DTYPE(dt, S, D, C, Z, ...) \
  ((dt) == ND_FLOAT32 ? S(__VA_ARGS__) : (dt) == ND_FLOAT64 ? D(__VA_ARGS__) : (dt) == ND_COMPLEX64 ? C(__VA_ARGS__) : Z(__VA_ARGS__))

static void *nd__p(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }
static void *nd__off(void *p, int64_t bytes) { return (char *)p + bytes; }

/* A (batch, rows, cols) array with column-major matrices (leading dimension rows). */
static nd_status nd__fwork(const char *fn, nd_dtype dt, int64_t batch, int64_t rows, int64_t cols, nd_array **out) {
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt);
  int64_t cshape[3] = {batch, cols, rows};
  nd_array *own;
  ND_TRY(nd__array_alloc(fn, 3, cshape, dt, 'C', &own));
  int64_t shape[3] = {batch, rows, cols}, strides[3] = {rows * cols * isz, isz, rows * isz};
  nd_status st = nd__array_view(fn, own, 3, shape, strides, own->offset, 1, out);
  nd_array_release(own);
  return st;
}

/* a's matrices as a (batch, m, n) array of dtype dt (a view or a copy). */
static nd_status nd__batch3(const char *fn, const nd_array *a, nd_dtype dt, nd_array **out) {
  const int nd = a->ndim;
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
  int64_t shape[3] = {batch, a->shape[nd - 2], a->shape[nd - 1]};
  nd_array *c;
  ND_TRY(nd__linalg_contig(fn, a, dt, &c));
  nd_status st = nd_array_reshape(c, 3, shape, out);
  nd_array_release(c);
  return st;
}

/* The result shape: a's batch dims followed by (r0, r1) (or r0 alone when r1 < 0). */
static int nd__rshape(const nd_array *a, int64_t r0, int64_t r1, int64_t *shape) {
  int nd = a->ndim - 2;
  memcpy(shape, a->shape, (size_t)nd * sizeof(int64_t));
  shape[nd++] = r0;
  if (r1 >= 0) shape[nd++] = r1;
  return nd;
}

/* Copies src (a (batch, r, c) view) into a new C array of the given full shape. */
static nd_status nd__emit(const char *fn, const nd_array *src, int ndim, const int64_t *shape, int conj, nd_array **out) {
  nd_array *r = NULL, *r3 = NULL;
  ND_TRY(nd__array_alloc(fn, ndim, shape, src->dtype, 'C', &r));
  nd_status st = r->size == 0 ? ND_OK : nd_array_reshape(r, src->ndim, src->shape, &r3);
  if (st == ND_OK && r3) st = conj ? nd__linalg_conj_assign(fn, r3, src) : nd__assign(fn, r3, src);
  nd_array_release(r3);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

static nd_status nd__check_int(const char *fn, int64_t v) {
  if (v > INT_MAX) return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: dimension %lld exceeds cuSOLVER's int range", fn, (long long)v);
  return ND_OK;
}

/* ---- cholesky ------------------------------------------------------------------------------- */

nd_status nd_linalg_cholesky_ex(const nd_array *a, int upper, unsigned flags, nd_array **out, nd_array **info) {
  const char *fn = "nd_linalg_cholesky_ex";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  int checked;
  ND_TRY(nd__linalg_flags(fn, flags, &checked, NULL));
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 1));
  nd_dtype dt;
  ND_TRY(nd__linalg_compute_dtype(fn, a->dtype, &dt));
  const int nd = a->ndim;
  const int64_t n = a->shape[nd - 1];
  ND_TRY(nd__check_int(fn, n));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  if (checked) ND_TRY(nd__linalg_check_capture(fn, s));
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt);

  nd_array *w = NULL, *w3 = NULL, *a3 = NULL, *inf = NULL, *res = NULL;
  nd__buffer *first = NULL, *ptrs = NULL, *work = NULL;
  nd_status st = nd__array_alloc(fn, nd, a->shape, dt, 'C', &w);
  if (st == ND_OK && (info != NULL || checked)) st = nd__array_alloc(fn, nd - 2, a->shape, ND_INT32, 'C', &inf);
  if (st == ND_OK && batch > 0 && n > 0) {
    int64_t sh[3] = {batch, n, n};
    st = nd_array_reshape(w, 3, sh, &w3);
    /* NumPy's upper=True reads only a's upper triangle (LAPACK uplo 'U'): the lower triangle
     * of conj(a^T) holds exactly those values, so that is what gets factored below. */
    nd_array *at = NULL;
    if (st == ND_OK && upper) st = nd_array_swapaxes(a, -1, -2, &at);
    if (st == ND_OK) st = nd__batch3(fn, upper ? at : a, dt, &a3);
    nd_array_release(at);
    const int cplx = dt == ND_COMPLEX64 || dt == ND_COMPLEX128;
    if (st == ND_OK) st = upper && cplx ? nd__linalg_conj_assign(fn, w3, a3) : nd__assign(fn, w3, a3);
    void *h = NULL;
    if (st == ND_OK) st = nd__cusolver_for(fn, s, &h);
    if (st == ND_OK && checked) st = nd__linalg_scratch(fn, s, 8, &first);
    /* Row-major lower = column-major upper of the same buffer (see the file comment). The
     * lower factor L of the (possibly conjugate-transposed) copy is always computed, and
     * upper=1 returns L^H, the U with U^H U = a's Hermitian matrix as NumPy defines it: potrf
     * with the other fill mode returned a factor of an indefinite 128 x 128 matrix
     * (diag(4, ..., 4, -1)) with info 0, where this one reports the failed minor. */
    const cublasFillMode_t uplo = CUBLAS_FILL_MODE_UPPER;
    const int use_batched = batch > 1 && n <= 64 && batch <= INT_MAX;
    int lwork = 0;
    if (st == ND_OK && use_batched) st = nd__linalg_scratch(fn, s, batch * (int64_t)sizeof(void *), &ptrs);
    if (st == ND_OK && !use_batched)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSpotrf_bufferSize, cusolverDnDpotrf_bufferSize,
                                    cusolverDnCpotrf_bufferSize, cusolverDnZpotrf_bufferSize, h, uplo, (int)n,
                                    nd__p(w), (int)n, &lwork));
    nd__buffer *dinfo = NULL;
    if (st == ND_OK && inf == NULL) st = nd__linalg_scratch(fn, s, batch * (int64_t)sizeof(int), &dinfo);
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (int64_t)lwork * isz + 16, &work);
    nd__sync sync;
    nd__sync_init(&sync, s);
    int begun = 0;
    if (st == ND_OK) {
      nd__buffer *writes[] = {w->buf, inf ? inf->buf : NULL, dinfo, first, ptrs, work};
      st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
    }
    if (st == ND_OK) begun = 1;
    int *iv = inf ? (int *)nd__p(inf) : dinfo ? (int *)dinfo->ptr : NULL;
    if (st == ND_OK && use_batched) {
      st = nd_lk_pointer_array((void **)ptrs->ptr, nd__p(w), n * n * isz, batch, s->cu);
      if (st == ND_OK)
        st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSpotrfBatched, cusolverDnDpotrfBatched, cusolverDnCpotrfBatched,
                                      cusolverDnZpotrfBatched, h, uplo, (int)n, ptrs->ptr, (int)n, iv, (int)batch));
    } else {
      for (int64_t b = 0; b < batch && st == ND_OK; b++)
        st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSpotrf, cusolverDnDpotrf, cusolverDnCpotrf, cusolverDnZpotrf, h,
                                      uplo, (int)n, nd__off(nd__p(w), b * n * n * isz), (int)n, work->ptr, lwork,
                                      iv + b));
    }
    if (st == ND_OK && first) {
      st = nd_lk_first_reset((unsigned long long *)first->ptr, s->cu);
      if (st == ND_OK) st = nd_lk_info_first(iv, batch, (unsigned long long *)first->ptr, s->cu);
    }
    if (begun) {
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    if (dinfo) nd__buffer_release(dinfo);
    if (st == ND_OK && first)
      st = nd__linalg_wait_first(fn, s, first->ptr, iv, nd - 2, a->shape, ND_ERR_NOT_POSITIVE_DEFINITE);
  } else if (st == ND_OK && inf) {
    st = nd_array_fill(inf, nd_scalar_int(0));
  }
  /* The factor's other triangle holds the input's values: zero it. */
  if (st == ND_OK) st = nd_tril(w, 0, &res);
  if (st == ND_OK && upper) {
    nd_array *lt = NULL, *u = NULL;
    st = nd_array_swapaxes(res, -1, -2, &lt);
    const int cplx = dt == ND_COMPLEX64 || dt == ND_COMPLEX128;
    if (st == ND_OK) st = nd__emit(fn, lt, nd, a->shape, cplx, &u);
    nd_array_release(lt);
    nd_array_release(res);
    res = u;
  }
  nd_array_release(w);
  nd_array_release(w3);
  nd_array_release(a3);
  if (first) nd__buffer_release(first);
  if (ptrs) nd__buffer_release(ptrs);
  if (work) nd__buffer_release(work);
  if (st != ND_OK) {
    nd_array_release(inf);
    nd_array_release(res);
    return nd__linalg_ctx(fn, st);
  }
  *out = res;
  if (info) *info = inf;
  else nd_array_release(inf);
  return ND_OK;
}

nd_status nd_linalg_cholesky(const nd_array *a, int upper, nd_array **out) {
  ND__API_SCOPE("nd_linalg_cholesky");
  return nd_linalg_cholesky_ex(a, upper, 0, out, NULL);
}

/* ---- qr ------------------------------------------------------------------------------------- */

nd_status nd_linalg_qr(const nd_array *a, nd_qr_mode mode, nd_array **q, nd_array **r) {
  const char *fn = "nd_linalg_qr";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, r);
  if (mode != ND_QR_R) ND_CHECK_NULL(fn, q);
  if (mode != ND_QR_REDUCED && mode != ND_QR_COMPLETE && mode != ND_QR_R)
    return nd__error(ND_ERR_VALUE, "%s: unrecognized mode %d", fn, (int)mode);
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 0));
  nd_dtype dt;
  ND_TRY(nd__linalg_compute_dtype(fn, a->dtype, &dt));
  const int nd = a->ndim;
  const int64_t m = a->shape[nd - 2], n = a->shape[nd - 1], k = m < n ? m : n;
  ND_TRY(nd__check_int(fn, m));
  ND_TRY(nd__check_int(fn, n));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt);
  const int64_t qcols = mode == ND_QR_COMPLETE ? m : k, rrows = mode == ND_QR_COMPLETE ? m : k;
  const int64_t wcols = n > qcols ? n : qcols;

  nd_array *w = NULL, *wa = NULL, *a3 = NULL, *rt = NULL, *rs = NULL, *qv = NULL, *qo = NULL, *ro = NULL;
  nd__buffer *tau = NULL, *work = NULL, *dinfo = NULL;
  int64_t shape[ND_MAXDIMS];
  nd_status st = nd__fwork(fn, dt, batch, m, wcols, &w);
  if (st == ND_OK && batch > 0 && k > 0) {
    nd_slice sl[3] = {ND_SLICE_ALL, ND_SLICE_ALL, {0, n, 1}};
    st = nd_array_slice(w, 3, sl, &wa);
    if (st == ND_OK) st = nd__batch3(fn, a, dt, &a3);
    if (st == ND_OK) st = nd__assign(fn, wa, a3);
    void *h = NULL;
    int lw1 = 0, lw2 = 0;
    if (st == ND_OK) st = nd__cusolver_for(fn, s, &h);
    if (st == ND_OK)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSgeqrf_bufferSize, cusolverDnDgeqrf_bufferSize,
                                    cusolverDnCgeqrf_bufferSize, cusolverDnZgeqrf_bufferSize, h, (int)m, (int)n,
                                    nd__p(w), (int)m, &lw1));
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, batch * k * isz, &tau);
    if (st == ND_OK && mode != ND_QR_R)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSorgqr_bufferSize, cusolverDnDorgqr_bufferSize,
                                    cusolverDnCungqr_bufferSize, cusolverDnZungqr_bufferSize, h, (int)m, (int)qcols,
                                    (int)k, nd__p(w), (int)m, tau->ptr, &lw2));
    const int lwork = lw1 > lw2 ? lw1 : lw2;
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (int64_t)lwork * isz + 16, &work);
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, 16, &dinfo);
    /* geqrf for every matrix; R is taken before orgqr overwrites the reflectors. */
    nd__sync sync;
    nd__sync_init(&sync, s);
    int begun = 0;
    if (st == ND_OK) {
      nd__buffer *writes[] = {w->buf, tau, work, dinfo};
      st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
    }
    if (st == ND_OK) begun = 1;
    for (int64_t b = 0; b < batch && st == ND_OK; b++)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSgeqrf, cusolverDnDgeqrf, cusolverDnCgeqrf, cusolverDnZgeqrf, h,
                                    (int)m, (int)n, nd__off(nd__p(w), b * m * wcols * isz), (int)m,
                                    nd__off(tau->ptr, b * k * isz), work->ptr, lwork, (int *)dinfo->ptr));
    if (begun) {
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    /* R: the upper triangle of the first rrows rows (rows below k are zero for complete). */
    if (st == ND_OK) st = nd_triu(wa, 0, &rt);
    if (st == ND_OK) {
      nd_slice rsl[3] = {ND_SLICE_ALL, {0, rrows, 1}, ND_SLICE_ALL};
      st = nd_array_slice(rt, 3, rsl, &rs);
    }
    if (st == ND_OK) st = nd__emit(fn, rs, nd__rshape(a, rrows, n, shape), shape, 0, &ro);
    if (st == ND_OK && mode != ND_QR_R) {
      nd__sync_init(&sync, s);
      begun = 0;
      st = nd__sync_add(&sync, &w->buf->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_add(&sync, &tau->hz, ND__READ);
      if (st == ND_OK) st = nd__sync_add(&sync, &work->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_add(&sync, &dinfo->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_begin(&sync);
      if (st == ND_OK) begun = 1;
      for (int64_t b = 0; b < batch && st == ND_OK; b++)
        st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSorgqr, cusolverDnDorgqr, cusolverDnCungqr, cusolverDnZungqr, h,
                                      (int)m, (int)qcols, (int)k, nd__off(nd__p(w), b * m * wcols * isz), (int)m,
                                      nd__off(tau->ptr, b * k * isz), work->ptr, lwork, (int *)dinfo->ptr));
      if (begun) {
        nd_status st2 = nd__sync_end(&sync);
        if (st == ND_OK) st = st2;
      }
      nd_slice qsl[3] = {ND_SLICE_ALL, ND_SLICE_ALL, {0, qcols, 1}};
      if (st == ND_OK) st = nd_array_slice(w, 3, qsl, &qv);
      if (st == ND_OK) st = nd__emit(fn, qv, nd__rshape(a, m, qcols, shape), shape, 0, &qo);
    }
  } else if (st == ND_OK) {
    /* k == 0 or no matrices: R is zeros, Q empty (reduced) or identities (complete). */
    st = nd_zeros(nd__rshape(a, rrows, n, shape), shape, dt, &ro);
    if (st == ND_OK && mode != ND_QR_R) {
      st = nd__array_alloc(fn, nd__rshape(a, m, qcols, shape), shape, dt, 'C', &qo);
      if (st == ND_OK && mode == ND_QR_COMPLETE) st = nd__linalg_fill_identity(fn, qo);
    }
  }
  nd_array_release(w);
  nd_array_release(wa);
  nd_array_release(a3);
  nd_array_release(rt);
  nd_array_release(rs);
  nd_array_release(qv);
  if (tau) nd__buffer_release(tau);
  if (work) nd__buffer_release(work);
  if (dinfo) nd__buffer_release(dinfo);
  if (st != ND_OK) {
    nd_array_release(qo);
    nd_array_release(ro);
    return nd__linalg_ctx(fn, st);
  }
  *r = ro;
  if (mode != ND_QR_R) *q = qo;
  return ND_OK;
}

/* ---- svd ------------------------------------------------------------------------------------ */

nd_status nd_linalg_svd(const nd_array *a, int full_matrices, int compute_uv, nd_array **u, nd_array **s_out,
                        nd_array **vh) {
  const char *fn = "nd_linalg_svd";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, s_out);
  if (compute_uv) {
    ND_CHECK_NULL(fn, u);
    ND_CHECK_NULL(fn, vh);
  }
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 0));
  nd_dtype dt;
  ND_TRY(nd__linalg_compute_dtype(fn, a->dtype, &dt));
  const nd_dtype rdt = nd__linalg_real_dtype(dt);
  const int nd = a->ndim;
  const int64_t m = a->shape[nd - 2], n = a->shape[nd - 1], k = m < n ? m : n;
  ND_TRY(nd__check_int(fn, m));
  ND_TRY(nd__check_int(fn, n));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt);
  const int batched = batch > 1 && m <= 32 && n <= 32 && batch <= INT_MAX;
  /* The batched solver always returns full U and V; the single one economical ones on request,
   * and always when only the singular values are wanted (smaller scratch U and V).
   *
   * U and V are real buffers of their full documented size even with compute_uv = 0: cuSOLVER
   * does not document them as unreferenced under CUSOLVER_EIG_MODE_NOVECTOR, and PyTorch and
   * CuPy both pass full-size buffers there (PyTorch: "otherwise it fails"). Token buffers of m
   * and n elements with ldu = m, ldv = n, as passed here before, leave the solver room to write
   * past them into neighbouring pool allocations (the suspected cause of values-only singular
   * values that disagreed with the compute_uv = 1 ones on an H100). The batched solver needs a
   * full pair per matrix ((m, m) and (n, n), at most 32 x 32 each); the single solver's calls
   * are ordered on one stream, so without vectors they share one economical (m, k), (n, k) pair. */
  const int econ = !batched && (!full_matrices || !compute_uv);
  const int64_t ucols = econ ? k : m, vcols = econ ? k : n;
  const int64_t upairs = (compute_uv || batched) ? batch : 1;
  const int64_t uout = full_matrices ? m : k, vout = full_matrices ? n : k;

  nd_array *w = NULL, *a3 = NULL, *uw = NULL, *vw = NULL, *sv = NULL, *so = NULL, *uo = NULL, *vo = NULL;
  nd_array *us = NULL, *vs = NULL, *vt = NULL;
  nd__buffer *work = NULL, *dinfo = NULL;
  int64_t shape[ND_MAXDIMS];
  nd_status st = nd__array_alloc(fn, nd__rshape(a, k, -1, shape), shape, rdt, 'C', &so);
  if (st == ND_OK && batch > 0 && k > 0) {
    const cusolverEigMode_t jobz = compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    st = nd__fwork(fn, dt, batch, m, n, &w);
    if (st == ND_OK) st = nd__batch3(fn, a, dt, &a3);
    if (st == ND_OK) st = nd__assign(fn, w, a3);
    if (st == ND_OK) st = nd__fwork(fn, dt, upairs, m, ucols, &uw);
    if (st == ND_OK) st = nd__fwork(fn, dt, upairs, n, vcols, &vw);
    void *h = NULL;
    gesvdjInfo_t params = NULL;
    int lwork = 0;
    if (st == ND_OK) st = nd__cusolver_for(fn, s, &h);
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnCreateGesvdjInfo(&params));
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnXgesvdjSetSortEig(params, 1)); /* descending, as NumPy */
    const int64_t udim = m, vdim = n; /* leading dimensions, valid even when not referenced */
    if (st == ND_OK && batched)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSgesvdjBatched_bufferSize, cusolverDnDgesvdjBatched_bufferSize,
                                    cusolverDnCgesvdjBatched_bufferSize, cusolverDnZgesvdjBatched_bufferSize, h, jobz,
                                    (int)m, (int)n, nd__p(w), (int)m, nd__p(so), nd__p(uw), (int)udim, nd__p(vw),
                                    (int)vdim, &lwork, params, (int)batch));
    else if (st == ND_OK)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSgesvdj_bufferSize, cusolverDnDgesvdj_bufferSize,
                                    cusolverDnCgesvdj_bufferSize, cusolverDnZgesvdj_bufferSize, h, jobz, econ, (int)m,
                                    (int)n, nd__p(w), (int)m, nd__p(so), nd__p(uw), (int)udim, nd__p(vw), (int)vdim,
                                    &lwork, params));
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (int64_t)lwork * isz + 16, &work);
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (batch + 1) * (int64_t)sizeof(int), &dinfo);
    nd__sync sync;
    nd__sync_init(&sync, s);
    int begun = 0;
    if (st == ND_OK) {
      nd__buffer *writes[] = {w->buf, uw->buf, vw->buf, so->buf, work, dinfo};
      st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
    }
    if (st == ND_OK) begun = 1;
    if (st == ND_OK && batched) {
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSgesvdjBatched, cusolverDnDgesvdjBatched, cusolverDnCgesvdjBatched,
                                    cusolverDnZgesvdjBatched, h, jobz, (int)m, (int)n, nd__p(w), (int)m, nd__p(so),
                                    nd__p(uw), (int)udim, nd__p(vw), (int)vdim, work->ptr, lwork, (int *)dinfo->ptr,
                                    params, (int)batch));
    } else {
      const int64_t rsz = (int64_t)nd_dtype_itemsize(rdt);
      for (int64_t b = 0; b < batch && st == ND_OK; b++)
        st = ND_CUSOLVER(ND__BY_DTYPE(
            dt, cusolverDnSgesvdj, cusolverDnDgesvdj, cusolverDnCgesvdj, cusolverDnZgesvdj, h, jobz, econ, (int)m,
            (int)n, nd__off(nd__p(w), b * m * n * isz), (int)m, nd__off(nd__p(so), b * k * rsz),
            nd__off(nd__p(uw), compute_uv ? b * m * ucols * isz : 0), (int)udim,
            nd__off(nd__p(vw), compute_uv ? b * n * vcols * isz : 0), (int)vdim, work->ptr, lwork,
            (int *)dinfo->ptr + b, params));
    }
    if (begun) {
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    if (params) (void)cusolverDnDestroyGesvdjInfo(params);
    if (st == ND_OK && compute_uv) {
      nd_slice usl[3] = {ND_SLICE_ALL, ND_SLICE_ALL, {0, uout, 1}};
      nd_slice vsl[3] = {ND_SLICE_ALL, ND_SLICE_ALL, {0, vout, 1}};
      int64_t perm[3] = {0, 2, 1};
      st = nd_array_slice(uw, 3, usl, &us);
      if (st == ND_OK) st = nd_array_slice(vw, 3, vsl, &vs);
      if (st == ND_OK) st = nd_array_transpose(vs, 3, perm, &vt);
      if (st == ND_OK) st = nd__emit(fn, us, nd__rshape(a, m, uout, shape), shape, 0, &uo);
      if (st == ND_OK) st = nd__emit(fn, vt, nd__rshape(a, vout, n, shape), shape, 1, &vo);
    }
  } else if (st == ND_OK && compute_uv) {
    st = nd__array_alloc(fn, nd__rshape(a, m, uout, shape), shape, dt, 'C', &uo);
    if (st == ND_OK && full_matrices) st = nd__linalg_fill_identity(fn, uo);
    if (st == ND_OK) st = nd__array_alloc(fn, nd__rshape(a, vout, n, shape), shape, dt, 'C', &vo);
    if (st == ND_OK && full_matrices) st = nd__linalg_fill_identity(fn, vo);
  }
  nd_array_release(w);
  nd_array_release(a3);
  nd_array_release(uw);
  nd_array_release(vw);
  nd_array_release(us);
  nd_array_release(vs);
  nd_array_release(vt);
  nd_array_release(sv);
  if (work) nd__buffer_release(work);
  if (dinfo) nd__buffer_release(dinfo);
  if (st != ND_OK) {
    nd_array_release(so);
    nd_array_release(uo);
    nd_array_release(vo);
    return nd__linalg_ctx(fn, st);
  }
  *s_out = so;
  if (compute_uv) {
    *u = uo;
    *vh = vo;
  }
  return ND_OK;
}

/* ---- eigh ----------------------------------------------------------------------------------- */

static nd_status nd__eigh(const char *fn, const nd_array *a, char uplo, nd_array **w_out, nd_array **v_out) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, w_out);
  if (uplo != 'L' && uplo != 'U' && uplo != 'l' && uplo != 'u')
    return nd__error(ND_ERR_VALUE, "%s: UPLO argument must be 'L' or 'U' (got '%c')", fn, uplo);
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 1));
  nd_dtype dt;
  ND_TRY(nd__linalg_compute_dtype(fn, a->dtype, &dt));
  const nd_dtype rdt = nd__linalg_real_dtype(dt);
  const int nd = a->ndim;
  const int64_t n = a->shape[nd - 1];
  ND_TRY(nd__check_int(fn, n));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt), rsz = (int64_t)nd_dtype_itemsize(rdt);
  const int batched = batch > 1 && n <= 32 && batch <= INT_MAX;
  const int vectors = v_out != NULL;
  /* The row-major buffer is the column-major conj(A): row-major lower = column-major upper. */
  const cublasFillMode_t fill = (uplo == 'L' || uplo == 'l') ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;

  nd_array *w = NULL, *wk = NULL, *a3 = NULL, *vf = NULL, *vo = NULL;
  nd__buffer *work = NULL, *dinfo = NULL;
  int64_t shape[ND_MAXDIMS];
  nd_status st = nd__array_alloc(fn, nd__rshape(a, n, -1, shape), shape, rdt, 'C', &w);
  if (st == ND_OK && batch > 0 && n > 0) {
    int64_t sh[3] = {batch, n, n};
    st = nd__array_alloc(fn, 3, sh, dt, 'C', &wk);
    if (st == ND_OK) st = nd__batch3(fn, a, dt, &a3);
    if (st == ND_OK) st = nd__assign(fn, wk, a3);
    void *h = NULL;
    syevjInfo_t params = NULL;
    int lwork = 0;
    if (st == ND_OK) st = nd__cusolver_for(fn, s, &h);
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnCreateSyevjInfo(&params));
    if (st == ND_OK) st = ND_CUSOLVER(cusolverDnXsyevjSetSortEig(params, 1)); /* ascending, as NumPy */
    if (st == ND_OK && batched)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSsyevjBatched_bufferSize, cusolverDnDsyevjBatched_bufferSize,
                                    cusolverDnCheevjBatched_bufferSize, cusolverDnZheevjBatched_bufferSize, h, jobz,
                                    fill, (int)n, nd__p(wk), (int)n, nd__p(w), &lwork, params, (int)batch));
    else if (st == ND_OK)
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSsyevj_bufferSize, cusolverDnDsyevj_bufferSize,
                                    cusolverDnCheevj_bufferSize, cusolverDnZheevj_bufferSize, h, jobz, fill, (int)n,
                                    nd__p(wk), (int)n, nd__p(w), &lwork, params));
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (int64_t)lwork * isz + 16, &work);
    if (st == ND_OK) st = nd__linalg_scratch(fn, s, (batch + 1) * (int64_t)sizeof(int), &dinfo);
    nd__sync sync;
    nd__sync_init(&sync, s);
    int begun = 0;
    if (st == ND_OK) {
      nd__buffer *writes[] = {wk->buf, w->buf, work, dinfo};
      st = nd__linalg_begin_writes(&sync, ND__COUNT(writes), writes);
    }
    if (st == ND_OK) begun = 1;
    if (st == ND_OK && batched) {
      st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSsyevjBatched, cusolverDnDsyevjBatched, cusolverDnCheevjBatched,
                                    cusolverDnZheevjBatched, h, jobz, fill, (int)n, nd__p(wk), (int)n, nd__p(w),
                                    work->ptr, lwork, (int *)dinfo->ptr, params, (int)batch));
    } else {
      for (int64_t b = 0; b < batch && st == ND_OK; b++)
        st = ND_CUSOLVER(ND__BY_DTYPE(dt, cusolverDnSsyevj, cusolverDnDsyevj, cusolverDnCheevj, cusolverDnZheevj, h,
                                      jobz, fill, (int)n, nd__off(nd__p(wk), b * n * n * isz), (int)n,
                                      nd__off(nd__p(w), b * n * rsz), work->ptr, lwork, (int *)dinfo->ptr + b,
                                      params));
    }
    if (begun) {
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    if (params) (void)cusolverDnDestroySyevjInfo(params);
    if (st == ND_OK && vectors) {
      /* eigenvectors of conj(A), column-major: V_A = conj of the buffer read column-major */
      int64_t fsh[3] = {batch, n, n}, fst[3] = {n * n * isz, isz, n * isz};
      st = nd__array_view(fn, wk, 3, fsh, fst, wk->offset, 0, &vf);
      if (st == ND_OK) st = nd__emit(fn, vf, a->ndim, a->shape, 1, &vo);
    }
  } else if (st == ND_OK && vectors) {
    st = nd__array_alloc(fn, a->ndim, a->shape, dt, 'C', &vo);
  }
  nd_array_release(wk);
  nd_array_release(a3);
  nd_array_release(vf);
  if (work) nd__buffer_release(work);
  if (dinfo) nd__buffer_release(dinfo);
  if (st != ND_OK) {
    nd_array_release(w);
    nd_array_release(vo);
    return nd__linalg_ctx(fn, st);
  }
  *w_out = w;
  if (vectors) *v_out = vo;
  return ND_OK;
}

nd_status nd_linalg_eigh(const nd_array *a, char uplo, nd_array **w, nd_array **v) {
  ND_CHECK_NULL("nd_linalg_eigh", v);
  return nd__eigh("nd_linalg_eigh", a, uplo, w, v);
}

nd_status nd_linalg_eigvalsh(const nd_array *a, char uplo, nd_array **w) {
  return nd__eigh("nd_linalg_eigvalsh", a, uplo, w, NULL);
}
