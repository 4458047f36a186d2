/* Norms and the quantities derived from the SVD: norm, cond, matrix_rank, pinv, lstsq.
 *
 * Vector and elementwise matrix norms are one reduction over the last axis after moving the
 * reduced axes there (nd__linalg_reduce_last); the induced 1 and inf norms are two reductions
 * (sums of |x| along one axis, then the extreme along the other); 2, -2 and nuc come from the
 * singular values. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/kernels.h"
#include "linalg/products.h"
#include "src/api_scope.h"

static void *nd__q(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }

static nd_dtype nd__norm_dtype(nd_dtype dt) {
  switch (dt) {
    case ND_FLOAT16:
    case ND_FLOAT32:
    case ND_FLOAT64: return dt;
    case ND_COMPLEX64: return ND_FLOAT32;
    case ND_COMPLEX128: return ND_FLOAT64;
    default: return ND_FLOAT64;
  }
}

/* Reduces x over its last axis into a fresh array of dtype dt. */
static nd_status nd__reduce_new(const char *fn, int op, int post, double p, const nd_array *x, nd_dtype dt,
                                nd_array **out) {
  /* A minimum over nothing has no value: NumPy raises for it, whatever the other axes. */
  if (op == ND_LK_MIN_ABS && x->shape[x->ndim - 1] == 0)
    return nd__error(ND_ERR_VALUE, "%s: zero-size array to reduction operation minimum which has no identity "
                     "(this order takes a minimum over an axis of length 0)", fn);
  nd_array *r;
  ND_TRY(nd__array_alloc(fn, x->ndim - 1, x->shape, dt, 'C', &r));
  nd_status st = nd__linalg_reduce_last(fn, op, post, p, x, r);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

/* x with the axes in `move` (in that order) moved to the end. */
static nd_status nd__axes_last(const nd_array *x, int nmove, const int *move, nd_array **out) {
  int64_t perm[ND_MAXDIMS];
  int k = 0;
  for (int i = 0; i < x->ndim; i++) {
    int moved = 0;
    for (int j = 0; j < nmove; j++) moved |= move[j] == i;
    if (!moved) perm[k++] = i;
  }
  for (int j = 0; j < nmove; j++) perm[k++] = move[j];
  return nd_array_transpose(x, x->ndim, perm, out);
}

/* Inserts length-1 axes at the (sorted) positions of the reduced axes, for keepdims. */
static nd_status nd__keepdims(const nd_array *r, int ndim, int nax, const int *ax, nd_array **out) {
  int64_t shape[ND_MAXDIMS];
  int k = 0;
  for (int i = 0; i < ndim; i++) {
    int red = 0;
    for (int j = 0; j < nax; j++) red |= ax[j] == i;
    shape[i] = red ? 1 : r->shape[k++];
  }
  return nd_array_reshape(r, ndim, shape, out);
}

static nd_status nd__vector_norm(const char *fn, const nd_array *x, double ord, nd_dtype dt, nd_array **out) {
  if (ord == ND_NORM_DEFAULT || ord == 2.0) return nd__reduce_new(fn, ND_LK_SUM_SQ, ND_LK_POST_SQRT, 0, x, dt, out);
  if (ord == INFINITY) return nd__reduce_new(fn, ND_LK_MAX_ABS, ND_LK_POST_NONE, 0, x, dt, out);
  if (ord == -INFINITY) return nd__reduce_new(fn, ND_LK_MIN_ABS, ND_LK_POST_NONE, 0, x, dt, out);
  if (ord == 0.0) return nd__reduce_new(fn, ND_LK_COUNT_NZ, ND_LK_POST_NONE, 0, x, dt, out);
  if (ord == 1.0) return nd__reduce_new(fn, ND_LK_SUM_ABS, ND_LK_POST_NONE, 0, x, dt, out);
  if (ord == ND_NORM_FRO || ord == ND_NORM_NUC || isnan(ord))
    return nd__error(ND_ERR_VALUE, "%s: Invalid norm order '%s' for vectors", fn,
                     ord == ND_NORM_FRO ? "fro" : ord == ND_NORM_NUC ? "nuc" : "nan");
  return nd__reduce_new(fn, ND_LK_SUM_POW, ND_LK_POST_ROOT, ord, x, dt, out);
}

/* Matrix norms of x whose last two axes are (rows, cols). */
static nd_status nd__matrix_norm(const char *fn, const nd_array *x, double ord, nd_dtype dt, nd_array **out) {
  const int nd = x->ndim;
  nd_status st = ND_OK;
  if (ord == ND_NORM_DEFAULT || ord == ND_NORM_FRO) {
    int64_t shape[ND_MAXDIMS];
    memcpy(shape, x->shape, (size_t)(nd - 2) * sizeof(int64_t));
    shape[nd - 2] = x->shape[nd - 2] * x->shape[nd - 1];
    nd_array *f = NULL;
    ND_TRY(nd_array_reshape(x, nd - 1, shape, &f));
    st = nd__reduce_new(fn, ND_LK_SUM_SQ, ND_LK_POST_SQRT, 0, f, dt, out);
    nd_array_release(f);
    return st;
  }
  if (ord == INFINITY || ord == -INFINITY || ord == 1.0 || ord == -1.0) {
    /* inf: max over rows of row sums; 1: max over columns of column sums */
    const int rows_first = ord == 1.0 || ord == -1.0;
    nd_array *t = NULL, *sums = NULL;
    if (rows_first) st = nd_array_swapaxes(x, -1, -2, &t);
    else t = nd_array_retain((nd_array *)x);
    if (st == ND_OK) st = nd__reduce_new(fn, ND_LK_SUM_ABS, ND_LK_POST_NONE, 0, t, ND_FLOAT64, &sums);
    if (st == ND_OK)
      st = nd__reduce_new(fn, ord > 0 ? ND_LK_MAX_ABS : ND_LK_MIN_ABS, ND_LK_POST_NONE, 0, sums, dt, out);
    nd_array_release(t);
    nd_array_release(sums);
    return st;
  }
  if (ord == 2.0 || ord == -2.0 || ord == ND_NORM_NUC) {
    nd_array *s = NULL;
    ND_TRY(nd_linalg_svd(x, 0, 0, NULL, &s, NULL));
    int op = ord == 2.0 ? ND_LK_MAX_ABS : ord == -2.0 ? ND_LK_MIN_ABS : ND_LK_SUM_ABS;
    st = nd__reduce_new(fn, op, ND_LK_POST_NONE, 0, s, dt, out);
    nd_array_release(s);
    return st;
  }
  return nd__error(ND_ERR_VALUE, "%s: Invalid norm order %g for matrices", fn, ord);
}

nd_status nd_linalg_norm(const nd_array *x, double ord, int naxes, const int64_t *axes, int keepdims,
                         nd_array **out) {
  const char *fn = "nd_linalg_norm";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, x);
  ND_CHECK_NULL(fn, out);
  if (naxes > 0) ND_CHECK_NULL(fn, axes);
  if (naxes < 0 || naxes > 2)
    return nd__error(ND_ERR_VALUE, "%s: Improper number of dimensions to norm (naxes = %d)", fn, naxes);
  if (!nd_dtype_is_valid(x->dtype)) return nd__error(ND_ERR_DTYPE, "%s: invalid dtype", fn);
  const nd_dtype dt = nd__norm_dtype(x->dtype);
  int ax[2] = {0, 1}, nax = naxes;
  nd_array *t = NULL, *r = NULL;
  nd_status st = ND_OK;
  if (naxes == 0) {
    if (ord == ND_NORM_DEFAULT) {
      /* the 2-norm of the flattened array */
      nd_array *flat = NULL;
      ND_TRY(nd_array_ravel(x, &flat));
      st = nd__reduce_new(fn, ND_LK_SUM_SQ, ND_LK_POST_SQRT, 0, flat, dt, &r);
      nd_array_release(flat);
      if (st == ND_OK && keepdims) {
        int all[ND_MAXDIMS];
        for (int i = 0; i < x->ndim; i++) all[i] = i;
        nd_array *k = NULL;
        st = nd__keepdims(r, x->ndim, x->ndim, all, &k);
        nd_array_release(r);
        r = k;
      }
      if (st != ND_OK) return st;
      *out = r;
      return ND_OK;
    }
    if (x->ndim != 1 && x->ndim != 2)
      return nd__error(ND_ERR_VALUE, "%s: Improper number of dimensions to norm (ndim %d with an order and "
                       "no axes)", fn, x->ndim);
    nax = x->ndim;
  } else {
    for (int i = 0; i < naxes; i++) ND_TRY(nd__normalize_axis(fn, axes[i], x->ndim, &ax[i]));
    if (naxes == 2 && ax[0] == ax[1]) return nd__error(ND_ERR_VALUE, "%s: Duplicate axes given", fn);
  }
  st = nd__axes_last(x, nax, ax, &t);
  if (st == ND_OK) st = nax == 1 ? nd__vector_norm(fn, t, ord, dt, &r) : nd__matrix_norm(fn, t, ord, dt, &r);
  nd_array_release(t);
  if (st == ND_OK && keepdims) {
    int sorted[2] = {ax[0], ax[1]};
    if (nax == 2 && sorted[0] > sorted[1]) {
      sorted[0] = ax[1];
      sorted[1] = ax[0];
    }
    nd_array *k = NULL;
    st = nd__keepdims(r, x->ndim, nax, sorted, &k);
    nd_array_release(r);
    r = k;
  }
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

/* ---- cond ----------------------------------------------------------------------------------- */

static nd_status nd__cond_raw(const char *fn, const nd_array *x, double p, nd_array **out) {
  nd_status st = ND_OK;
  if (p == ND_NORM_DEFAULT || p == 2.0 || p == -2.0) {
    nd_array *s = NULL, *r = NULL;
    ND_TRY(nd_linalg_svd(x, 0, 0, NULL, &s, NULL));
    const int nd = s->ndim;
    const int64_t k = s->shape[nd - 1], batch = k ? s->size / k : 0;
    st = nd__array_alloc(fn, nd - 1, s->shape, s->dtype, 'C', &r);
    nd_stream *str = NULL;
    if (st == ND_OK) st = nd__array_stream(fn, s, &str);
    nd__sync sync;
    nd__sync_init(&sync, str);
    if (st == ND_OK) st = nd__sync_add(&sync, &s->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &r->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_lk_ratio_first_last(s->dtype, batch, k, nd__q(s), p == -2.0, r->size ? nd__q(r) : NULL, str->cu);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    nd_array_release(s);
    if (st != ND_OK) {
      nd_array_release(r);
      return nd__linalg_ctx(fn, st);
    }
    *out = r;
    return ND_OK;
  }
  /* norm(x, p) * norm(inv(x), p), the product taken as a batch of 1x1 matmuls */
  ND_TRY(nd__linalg_check_stack(fn, "x", x->ndim, x->shape, 1));
  int64_t axes[2] = {-2, -1};
  nd_array *n1 = NULL, *xi = NULL, *n2 = NULL, *a1 = NULL, *a2 = NULL, *prod = NULL;
  st = nd_linalg_norm(x, p, 2, axes, 1, &n1);
  if (st == ND_OK) st = nd_linalg_inv_ex(x, ND_LINALG_UNCHECKED, &xi, NULL);
  if (st == ND_OK) st = nd_linalg_norm(xi, p, 2, axes, 1, &n2);
  if (st == ND_OK) st = nd_matmul(n1, n2, &prod);
  if (st == ND_OK) st = nd_array_reshape(prod, x->ndim - 2, x->shape, out);
  nd_array_release(n1);
  nd_array_release(xi);
  nd_array_release(n2);
  nd_array_release(a1);
  nd_array_release(a2);
  nd_array_release(prod);
  return nd__linalg_ctx(fn, st);
}

nd_status nd_linalg_cond(const nd_array *x, double p, nd_array **out) {
  const char *fn = "nd_linalg_cond";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, x);
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__linalg_check_stack(fn, "x", x->ndim, x->shape, 0));
  /* NumPy raises LinAlgError for matrices with no elements, whatever p (an empty stack of
   * non-empty matrices is fine: an empty result). */
  if (x->shape[x->ndim - 2] == 0 || x->shape[x->ndim - 1] == 0)
    return nd__error(ND_ERR_VALUE, "%s: cond is not defined on empty arrays (x of shape (..., %lld, %lld))", fn,
                     (long long)x->shape[x->ndim - 2], (long long)x->shape[x->ndim - 1]);
  nd_array *r = NULL, *rnan = NULL, *xnan = NULL, *xany = NULL, *xok = NULL, *fix = NULL, *res = NULL;
  nd_status st = nd__cond_raw(fn, x, p, &r);
  /* A singular matrix gives 0/0 or inf*0 = NaN on the way (cond(zeros((2, 2)))); NumPy turns
   * NaN into inf unless x itself holds a NaN (numpy/linalg/_linalg.py, cond). */
  const int64_t last2[2] = {-2, -1};
  if (st == ND_OK) st = nd_isnan(r, NULL, &rnan);
  if (st == ND_OK) st = nd_isnan(x, NULL, &xnan);
  if (st == ND_OK) st = nd_any(xnan, 2, last2, 0, NULL, &xany);
  if (st == ND_OK) st = nd_logical_not(xany, NULL, &xok);
  if (st == ND_OK) st = nd_logical_and(rnan, xok, NULL, &fix);
  if (st == ND_OK) st = nd_where(nd_arg(fix), nd_arg_scalar(nd_scalar_float(INFINITY)), nd_arg(r), NULL, &res);
  nd_array_release(r);
  nd_array_release(rnan);
  nd_array_release(xnan);
  nd_array_release(xany);
  nd_array_release(xok);
  nd_array_release(fix);
  if (st != ND_OK) return st;
  *out = res;
  return ND_OK;
}

/* ---- matrix_rank ---------------------------------------------------------------------------- */

nd_status nd_linalg_matrix_rank(const nd_array *a, double tol, nd_array **out) {
  const char *fn = "nd_linalg_matrix_rank";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (a->ndim < 1) return nd__error(ND_ERR_SHAPE, "%s: 0-dimensional input", fn);
  nd_array *m = NULL, *s = NULL, *r = NULL;
  nd_status st;
  if (a->ndim == 1) {
    int64_t sh[2] = {1, a->shape[0]};
    st = nd_array_reshape(a, 2, sh, &m);
  } else {
    m = nd_array_retain((nd_array *)a);
    st = ND_OK;
  }
  if (st == ND_OK) st = nd_linalg_svd(m, 0, 0, NULL, &s, NULL);
  const int nd = m ? m->ndim : 0;
  if (st == ND_OK) st = nd__array_alloc(fn, nd - 2, m->shape, ND_INT64, 'C', &r);
  if (st == ND_OK) {
    const int64_t k = s->shape[s->ndim - 1], batch = r->size;
    const int64_t big = m->shape[nd - 1] > m->shape[nd - 2] ? m->shape[nd - 1] : m->shape[nd - 2];
    const double eps = s->dtype == ND_FLOAT32 ? (double)FLT_EPSILON : DBL_EPSILON;
    nd_stream *str = NULL;
    st = nd__array_stream(fn, s, &str);
    nd__sync sync;
    nd__sync_init(&sync, str);
    if (st == ND_OK) st = nd__sync_add(&sync, &s->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &r->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_lk_rank(s->dtype, batch, k, k ? nd__q(s) : NULL, tol, (double)big * eps,
                      batch ? (int64_t *)nd__q(r) : NULL, str->cu);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
  }
  nd_array_release(m);
  nd_array_release(s);
  if (st != ND_OK) {
    nd_array_release(r);
    return nd__linalg_ctx(fn, st);
  }
  *out = r;
  return ND_OK;
}

/* ---- pinv and lstsq ------------------------------------------------------------------------- */

/* A conjugated copy of a complex array; a itself (retained) otherwise. */
static nd_status nd__conj_of(const char *fn, const nd_array *a, nd_array **out) {
  if (a->dtype != ND_COMPLEX64 && a->dtype != ND_COMPLEX128) {
    *out = nd_array_retain((nd_array *)a);
    return ND_OK;
  }
  nd_array *c;
  ND_TRY(nd__array_alloc(fn, a->ndim, a->shape, a->dtype, 'C', &c));
  nd_status st = nd__linalg_conj_assign(fn, c, a);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

/* pinv with singular values at most rcond * max(S) treated as zero; also returns S if asked. */
static nd_status nd__pinv(const char *fn, const nd_array *a, double rcond, nd_array **out, nd_array **s_out) {
  nd_array *u = NULL, *s = NULL, *vh = NULL, *cu = NULL, *cv = NULL, *ut = NULL, *vt = NULL;
  nd_status st = nd_linalg_svd(a, 0, 1, &u, &s, &vh);
  nd_stream *str = NULL;
  if (st == ND_OK) st = nd__array_stream(fn, vh, &str);
  if (st == ND_OK && vh->size > 0) {
    const int nd = vh->ndim;
    const int64_t k = vh->shape[nd - 2], n = vh->shape[nd - 1], batch = vh->size / (k * n);
    nd__sync sync;
    nd__sync_init(&sync, str);
    st = nd__sync_add(&sync, &s->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &vh->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_lk_scale_rows_pinv(vh->dtype, batch, k, n, nd__q(vh), nd__q(s), rcond, str->cu);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
  }
  /* pinv = Vh_scaled^H @ U^H */
  if (st == ND_OK) st = nd__conj_of(fn, vh, &cv);
  if (st == ND_OK) st = nd__conj_of(fn, u, &cu);
  if (st == ND_OK) st = nd_matrix_transpose(cv, &vt);
  if (st == ND_OK) st = nd_matrix_transpose(cu, &ut);
  if (st == ND_OK) st = nd_matmul(vt, ut, out);
  nd_array_release(u);
  nd_array_release(vh);
  nd_array_release(cu);
  nd_array_release(cv);
  nd_array_release(ut);
  nd_array_release(vt);
  if (st == ND_OK && s_out) *s_out = s;
  else nd_array_release(s);
  return st;
}

nd_status nd_linalg_pinv(const nd_array *a, double rcond, nd_array **out) {
  const char *fn = "nd_linalg_pinv";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 0));
  if (a->shape[a->ndim - 1] == 0 || a->shape[a->ndim - 2] == 0) {
    /* NumPy answers an empty (..., m, n) with an empty (..., n, m) of a's own dtype, before
     * any dtype rule applies. */
    int64_t shape[ND_MAXDIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    shape[a->ndim - 2] = a->shape[a->ndim - 1];
    shape[a->ndim - 1] = a->shape[a->ndim - 2];
    return nd__array_alloc(fn, a->ndim, shape, a->dtype, 'C', out);
  }
  nd_status st = nd__pinv(fn, a, rcond < 0 ? 1e-15 : rcond, out, NULL);
  return nd__linalg_ctx(fn, st);
}

nd_status nd_linalg_lstsq(const nd_array *a, const nd_array *b, double rcond, nd_array **x, nd_array **residuals,
                          int64_t *rank, nd_array **s_out) {
  const char *fn = "nd_linalg_lstsq";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, x);
  if (a->ndim != 2)
    return nd__error(ND_ERR_SHAPE, "%s: %d-dimensional array given. Array must be two-dimensional", fn, a->ndim);
  if (b->ndim != 1 && b->ndim != 2)
    return nd__error(ND_ERR_SHAPE, "%s: b must be 1- or 2-dimensional (got %d)", fn, b->ndim);
  const int64_t m = a->shape[0], n = a->shape[1];
  if (b->shape[0] != m)
    return nd__error(ND_ERR_SHAPE, "%s: Incompatible dimensions: a has %lld rows, b has %lld", fn, (long long)m,
                     (long long)b->shape[0]);
  nd_dtype dt;
  ND_TRY(nd__linalg_common_dtype(fn, a->dtype, b->dtype, &dt));
  const double eps = (dt == ND_FLOAT32 || dt == ND_COMPLEX64) ? (double)FLT_EPSILON : DBL_EPSILON;
  if (rcond < 0) rcond = eps * (double)(m > n ? m : n);
  nd_array *ac = NULL, *bc = NULL, *p = NULL, *s = NULL, *xo = NULL, *rk = NULL, *res = NULL;
  nd_status st = nd_array_astype(a, dt, &ac);
  if (st == ND_OK) st = nd_array_astype(b, dt, &bc);
  if (st == ND_OK) st = nd__pinv(fn, ac, rcond, &p, &s);
  if (st == ND_OK) st = nd_matmul(p, bc, &xo);
  int64_t r = 0;
  if (st == ND_OK) {
    /* the rank as LAPACK's gelsd counts it: singular values above rcond * max(S) */
    st = nd__array_alloc(fn, 0, NULL, ND_INT64, 'C', &rk);
    nd_stream *str = NULL;
    if (st == ND_OK) st = nd__array_stream(fn, s, &str);
    nd__sync sync;
    nd__sync_init(&sync, str);
    if (st == ND_OK) st = nd__sync_add(&sync, &s->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &rk->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_lk_rank(s->dtype, 1, s->size, s->size ? nd__q(s) : NULL, -1.0, rcond, (int64_t *)nd__q(rk), str->cu);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    if (st == ND_OK) st = nd_array_to_host(rk, &r, sizeof r);
  }
  if (st == ND_OK && residuals) {
    const int64_t k = b->ndim == 1 ? 1 : b->shape[1];
    if (r == n && m > n) {
      /* r = [a | b] @ [[x], [-I]], then the column sums of |r|^2 */
      nd_array *x2 = NULL, *b2 = NULL, *ab = NULL, *ni = NULL, *xi = NULL, *rr = NULL, *rt = NULL;
      int64_t xs[2] = {n, k}, bs[2] = {m, k}, is[2] = {k, k};
      double *h = calloc((size_t)(k * k), sizeof(double));
      if (h == NULL) st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
      for (int64_t i = 0; st == ND_OK && i < k; i++) h[i * k + i] = -1.0;
      nd_array *nif = NULL;
      if (st == ND_OK) st = nd_array_from_host(h, (size_t)(k * k) * sizeof(double), 2, is, ND_FLOAT64, &nif);
      free(h);
      if (st == ND_OK) st = nd_array_astype(nif, dt, &ni);
      nd_array_release(nif);
      if (st == ND_OK) st = nd_array_reshape(xo, 2, xs, &x2);
      if (st == ND_OK) st = nd_array_reshape(bc, 2, bs, &b2);
      const nd_array *h1[2] = {ac, b2}, *v1[2] = {x2, ni};
      if (st == ND_OK) st = nd_concatenate(2, h1, 1, &ab);
      if (st == ND_OK) st = nd_concatenate(2, v1, 0, &xi);
      if (st == ND_OK) st = nd_matmul(ab, xi, &rr);
      if (st == ND_OK) st = nd_array_swapaxes(rr, 0, 1, &rt);
      if (st == ND_OK) st = nd__reduce_new(fn, ND_LK_SUM_SQ, ND_LK_POST_NONE, 0, rt, nd__linalg_real_dtype(dt), &res);
      nd_array_release(x2);
      nd_array_release(b2);
      nd_array_release(ab);
      nd_array_release(ni);
      nd_array_release(xi);
      nd_array_release(rr);
      nd_array_release(rt);
    } else if (st == ND_OK) {
      int64_t zero = 0;
      st = nd__array_alloc(fn, 1, &zero, nd__linalg_real_dtype(dt), 'C', &res);
    }
  }
  nd_array_release(ac);
  nd_array_release(bc);
  nd_array_release(p);
  nd_array_release(rk);
  if (st != ND_OK) {
    nd_array_release(s);
    nd_array_release(xo);
    nd_array_release(res);
    return nd__linalg_ctx(fn, st);
  }
  *x = xo;
  if (residuals) *residuals = res;
  if (rank) *rank = r;
  if (s_out) *s_out = s;
  else nd_array_release(s);
  return ND_OK;
}
