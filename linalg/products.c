/* Products built on matmul: dot, vdot, inner, outer, tensordot, vecdot, kron, einsum, trace,
 * matrix_transpose, matrix_power. Each reduces to views (permutes, reshapes, broadcasts) and one
 * batched product; a reshape of a permuted view copies, exactly as NumPy's would. */
#include <stdlib.h>
#include <string.h>

#include "linalg/kernels.h"
#include "linalg/products.h"
#include "src/api_scope.h"

/* Prefixes the public name to an error reported by a helper. */
static nd_status nd__ctx(const char *fn, nd_status st) { return nd__linalg_ctx(fn, st); }

static nd_status nd__reshape2(const nd_array *a, int64_t r, int64_t c, nd_array **out) {
  int64_t sh[2] = {r, c};
  return nd_array_reshape(a, 2, sh, out);
}

/* outer(ravel(a), ravel(b)) of shape (a.size, b.size). */
static nd_status nd__outer_flat(const nd_array *a, const nd_array *b, nd_array **out) {
  nd_array *a2 = NULL, *b2 = NULL;
  nd_status st = nd__reshape2(a, a->size, 1, &a2);
  if (st == ND_OK) st = nd__reshape2(b, 1, b->size, &b2);
  if (st == ND_OK) st = nd_matmul(a2, b2, out);
  nd_array_release(a2);
  nd_array_release(b2);
  return st;
}

nd_status nd_outer(const nd_array *a, const nd_array *b, nd_array **out) {
  ND_CHECK_NULL("nd_outer", a);
  ND_CHECK_NULL("nd_outer", b);
  ND_CHECK_NULL("nd_outer", out);
  return nd__ctx("nd_outer", nd__outer_flat(a, b, out));
}

/* a * b where one of them is 0-d: the outer product reshaped to the other's shape. */
static nd_status nd__scale(const nd_array *a, const nd_array *b, nd_array **out) {
  const nd_array *big = a->ndim == 0 ? b : a;
  nd_array *t = NULL;
  nd_status st = nd__outer_flat(a, b, &t);
  if (st == ND_OK) st = nd_array_reshape(t, big->ndim, big->shape, out);
  nd_array_release(t);
  return st;
}

static nd_status nd__tensordot_norm(const char *fn, const nd_array *a, const nd_array *b, int naxes,
                                    const int *ax, const int *bx, nd_array **out) {
  for (int i = 0; i < naxes; i++)
    if (a->shape[ax[i]] != b->shape[bx[i]])
      return nd__error(ND_ERR_SHAPE, "%s: shape-mismatch for sum (axis %d of a has length %lld, axis %d "
                       "of b has length %lld)", fn, ax[i], (long long)a->shape[ax[i]], bx[i],
                       (long long)b->shape[bx[i]]);
  int64_t pa[ND_MAXDIMS], pb[ND_MAXDIMS], oshape[2 * ND_MAXDIMS];
  int na = 0, nb = 0, no = 0;
  int64_t M = 1, N = 1, K = 1;
  for (int i = 0; i < a->ndim; i++) {
    int summed = 0;
    for (int j = 0; j < naxes; j++) summed |= ax[j] == i;
    if (!summed) {
      pa[na++] = i;
      oshape[no++] = a->shape[i];
      M *= a->shape[i];
    }
  }
  for (int j = 0; j < naxes; j++) {
    pa[na++] = ax[j];
    K *= a->shape[ax[j]];
  }
  for (int j = 0; j < naxes; j++) pb[nb++] = bx[j];
  for (int i = 0; i < b->ndim; i++) {
    int summed = 0;
    for (int j = 0; j < naxes; j++) summed |= bx[j] == i;
    if (!summed) {
      pb[nb++] = i;
      oshape[no++] = b->shape[i];
      N *= b->shape[i];
    }
  }
  if (no > ND_MAXDIMS)
    return nd__error(ND_ERR_SHAPE, "%s: the result would have %d dimensions (at most %d)", fn, no, ND_MAXDIMS);
  nd_array *at = NULL, *bt = NULL, *a2 = NULL, *b2 = NULL, *c = NULL;
  nd_status st = nd_array_transpose(a, a->ndim, pa, &at);
  if (st == ND_OK) st = nd_array_transpose(b, b->ndim, pb, &bt);
  if (st == ND_OK) st = nd__reshape2(at, M, K, &a2);
  if (st == ND_OK) st = nd__reshape2(bt, K, N, &b2);
  if (st == ND_OK) st = nd_matmul(a2, b2, &c);
  if (st == ND_OK) st = nd_array_reshape(c, no, oshape, out);
  nd_array_release(at);
  nd_array_release(bt);
  nd_array_release(a2);
  nd_array_release(b2);
  nd_array_release(c);
  return st;
}

nd_status nd_tensordot(const nd_array *a, const nd_array *b, int naxes, const int64_t *axes_a,
                       const int64_t *axes_b, nd_array **out) {
  const char *fn = "nd_tensordot";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  int ax[ND_MAXDIMS], bx[ND_MAXDIMS];
  if (axes_a == NULL && axes_b == NULL) {
    if (naxes < 0) return nd__error(ND_ERR_VALUE, "%s: axes must be a non-negative integer (got %d)", fn, naxes);
    if (naxes > a->ndim || naxes > b->ndim)
      return nd__error(ND_ERR_SHAPE, "%s: cannot sum over %d axes of arrays with %d and %d dimensions", fn,
                       naxes, a->ndim, b->ndim);
    for (int i = 0; i < naxes; i++) {
      ax[i] = a->ndim - naxes + i;
      bx[i] = i;
    }
  } else {
    ND_CHECK_NULL(fn, axes_a);
    ND_CHECK_NULL(fn, axes_b);
    if (naxes < 0 || naxes > ND_MAXDIMS) return nd__error(ND_ERR_VALUE, "%s: naxes %d out of range", fn, naxes);
    ND_TRY(nd__normalize_axes(fn, naxes, axes_a, a->ndim, ax, NULL));
    ND_TRY(nd__normalize_axes(fn, naxes, axes_b, b->ndim, bx, NULL));
  }
  return nd__ctx(fn, nd__tensordot_norm(fn, a, b, naxes, ax, bx, out));
}

nd_status nd_dot(const nd_array *a, const nd_array *b, nd_array **out) {
  const char *fn = "nd_dot";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  if (a->ndim == 0 || b->ndim == 0) return nd__ctx(fn, nd__scale(a, b, out));
  if (a->ndim <= 1 || b->ndim <= 2) return nd__ctx(fn, nd_matmul(a, b, out));
  int ax = a->ndim - 1, bx = b->ndim - 2;
  return nd__ctx(fn, nd__tensordot_norm(fn, a, b, 1, &ax, &bx, out));
}

nd_status nd_inner(const nd_array *a, const nd_array *b, nd_array **out) {
  const char *fn = "nd_inner";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  if (a->ndim == 0 || b->ndim == 0) return nd__ctx(fn, nd__scale(a, b, out));
  int ax = a->ndim - 1, bx = b->ndim - 1;
  return nd__ctx(fn, nd__tensordot_norm(fn, a, b, 1, &ax, &bx, out));
}

/* A conjugated copy of a complex array (a itself, retained, for real dtypes). */
static nd_status nd__conj_copy(const char *fn, const nd_array *a, nd_array **out) {
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

nd_status nd_vdot(const nd_array *a, const nd_array *b, nd_array **out) {
  const char *fn = "nd_vdot";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  if (a->size != b->size)
    return nd__error(ND_ERR_SHAPE, "%s: vectors have different lengths (%lld and %lld)", fn, (long long)a->size,
                     (long long)b->size);
  nd_array *ra = NULL, *rb = NULL, *ca = NULL;
  nd_status st = nd_array_ravel(a, &ra);
  if (st == ND_OK) st = nd_array_ravel(b, &rb);
  if (st == ND_OK) st = nd__conj_copy(fn, ra, &ca);
  if (st == ND_OK) st = nd_matmul(ca, rb, out);
  nd_array_release(ra);
  nd_array_release(rb);
  nd_array_release(ca);
  return nd__ctx(fn, st);
}

nd_status nd_vecdot(const nd_array *a, const nd_array *b, int64_t axis, nd_array **out) {
  const char *fn = "nd_vecdot";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  if (a->ndim == 0 || b->ndim == 0)
    return nd__error(ND_ERR_SHAPE, "%s: operands must have at least one dimension", fn);
  int xa, xb;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &xa));
  ND_TRY(nd__normalize_axis(fn, axis, b->ndim, &xb));
  if (a->shape[xa] != b->shape[xb])
    return nd__error(ND_ERR_SHAPE, "%s: the summed axes differ in length (%lld and %lld)", fn,
                     (long long)a->shape[xa], (long long)b->shape[xb]);
  if (a->ndim + 1 > ND_MAXDIMS || b->ndim + 1 > ND_MAXDIMS)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: needs one more dimension than %d", fn, ND_MAXDIMS);
  nd_array *ma = NULL, *mb = NULL, *ca = NULL, *ea = NULL, *eb = NULL, *c = NULL;
  nd_status st = nd_array_moveaxis(a, xa, -1, &ma);
  if (st == ND_OK) st = nd_array_moveaxis(b, xb, -1, &mb);
  if (st == ND_OK) st = nd__conj_copy(fn, ma, &ca);
  if (st == ND_OK) st = nd_array_expand_dims(ca, -2, &ea);
  if (st == ND_OK) st = nd_array_expand_dims(mb, -1, &eb);
  if (st == ND_OK) st = nd_matmul(ea, eb, &c);
  if (st == ND_OK) st = nd_array_reshape(c, c->ndim - 2, c->shape, out);
  nd_array_release(ma);
  nd_array_release(mb);
  nd_array_release(ca);
  nd_array_release(ea);
  nd_array_release(eb);
  nd_array_release(c);
  return nd__ctx(fn, st);
}

nd_status nd_matrix_transpose(const nd_array *a, nd_array **out) {
  const char *fn = "nd_matrix_transpose";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (a->ndim < 2)
    return nd__error(ND_ERR_SHAPE, "%s: input array must be at least 2-dimensional (got %d)", fn, a->ndim);
  return nd_array_swapaxes(a, -1, -2, out);
}

static nd_dtype nd__sum_dtype(nd_dtype dt) {
  switch (dt) {
    case ND_BOOL:
    case ND_INT8:
    case ND_INT16:
    case ND_INT32: return ND_INT64;
    case ND_UINT8:
    case ND_UINT16:
    case ND_UINT32: return ND_UINT64;
    default: return dt;
  }
}

nd_status nd_trace(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2, nd_dtype dtype,
                   nd_array **out) {
  const char *fn = "nd_trace";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (a->ndim < 2) return nd__error(ND_ERR_SHAPE, "%s: diag requires an array of at least two dimensions (got %d)", fn, a->ndim);
  nd_dtype dt = dtype == ND_DTYPE_DEFAULT ? nd__sum_dtype(a->dtype) : dtype;
  ND_TRY(nd__check_dtype(fn, "dtype", dt));
  nd_array *d = NULL, *r = NULL;
  ND_TRY(nd_array_diagonal(a, offset, axis1, axis2, &d));
  if (dt != a->dtype) {
    /* NumPy's trace is sum(diagonal, axis=-1, dtype=dtype): each element is converted to dtype
     * before it is added (250.7 + 0.6 as uint8 is 250 + 0), with NumPy's conversions (a uint64
     * stays unsigned on its way to complex128). nd_sum does exactly that. */
    const int64_t last = -1;
    nd_status st = nd_sum(d, 1, &last, 0, dt, NULL, out);
    nd_array_release(d);
    return st;
  }
  nd_status st = nd__array_alloc(fn, d->ndim - 1, d->shape, dt, 'C', &r);
  if (st == ND_OK) st = nd__linalg_reduce_last(fn, ND_LK_SUM, ND_LK_POST_NONE, 0.0, d, r);
  nd_array_release(d);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

nd_status nd_kron(const nd_array *a, const nd_array *b, nd_array **out) {
  const char *fn = "nd_kron";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  const int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
  if (2 * nd > ND_MAXDIMS)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: needs %d working dimensions (at most %d)", fn, 2 * nd, ND_MAXDIMS);
  int64_t sa[ND_MAXDIMS], sb[ND_MAXDIMS], wide[ND_MAXDIMS], perm[ND_MAXDIMS], fin[ND_MAXDIMS];
  for (int i = 0; i < nd; i++) {
    int ia = i - (nd - a->ndim), ib = i - (nd - b->ndim);
    sa[i] = ia >= 0 ? a->shape[ia] : 1;
    sb[i] = ib >= 0 ? b->shape[ib] : 1;
    wide[i] = sa[i];
    wide[nd + i] = sb[i];
    perm[2 * i] = i;
    perm[2 * i + 1] = nd + i;
    fin[i] = sa[i] * sb[i];
  }
  nd_array *o = NULL, *w = NULL, *t = NULL;
  nd_status st = nd__outer_flat(a, b, &o);
  if (st == ND_OK) st = nd_array_reshape(o, 2 * nd, wide, &w);
  if (st == ND_OK) st = nd_array_transpose(w, 2 * nd, perm, &t);
  if (st == ND_OK) st = nd_array_reshape(t, nd, fin, out);
  nd_array_release(o);
  nd_array_release(w);
  nd_array_release(t);
  return nd__ctx(fn, st);
}

/* ---- einsum --------------------------------------------------------------------------------- */

static int nd__pos(const char *s, int n, char c) {
  for (int i = 0; i < n; i++)
    if (s[i] == c) return i;
  return -1;
}

static nd_status nd__einsum_one(const char *fn, const nd__einsum_plan *p, const nd_array *a, nd_array **out) {
  if (p->out_ndim != p->ndims[0])
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: a single operand must be permuted, not summed or "
                     "diagonalised ('%s' -> '%s')", fn, p->in[0], p->out);
  int64_t perm[ND_MAXDIMS];
  for (int i = 0; i < p->out_ndim; i++) perm[i] = nd__pos(p->in[0], p->ndims[0], p->out[i]);
  nd_array *t = NULL;
  ND_TRY(nd_array_transpose(a, a->ndim, perm, &t));
  nd_status st = nd_array_copy(t, ND_ORDER_C, out);
  nd_array_release(t);
  return st;
}

static nd_status nd__einsum_two(const char *fn, const nd__einsum_plan *p, const nd_array *a, const nd_array *b,
                                nd_array **out) {
  /* Classify the letters: batch (both operands and output), contracted (both, not output),
   * free in a (a and output), free in b (b and output). */
  char batch[ND_MAXDIMS], con[ND_MAXDIMS], fa[ND_MAXDIMS], fb[ND_MAXDIMS];
  int nbat = 0, ncon = 0, nfa = 0, nfb = 0;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < p->ndims[t]; i++)
      if (nd__pos(p->in[t], i, p->in[t][i]) >= 0)
        return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: a subscript repeated within one operand (a diagonal) "
                         "is not supported", fn);
  for (int i = 0; i < p->ndims[0]; i++) {
    char c = p->in[0][i];
    int inb = nd__pos(p->in[1], p->ndims[1], c) >= 0, ino = nd__pos(p->out, p->out_ndim, c) >= 0;
    if (inb && ino) batch[nbat++] = c;
    else if (inb) con[ncon++] = c;
    else if (ino) fa[nfa++] = c;
    else
      return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: summing over a subscript of one operand only ('%c') is "
                       "not supported", fn, c);
  }
  for (int i = 0; i < p->ndims[1]; i++) {
    char c = p->in[1][i];
    if (nd__pos(p->in[0], p->ndims[0], c) >= 0) continue;
    if (nd__pos(p->out, p->out_ndim, c) < 0)
      return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: summing over a subscript of one operand only ('%c') is "
                       "not supported", fn, c);
    fb[nfb++] = c;
  }
  for (int i = 0; i < ncon; i++) {
    int64_t la = a->shape[nd__pos(p->in[0], p->ndims[0], con[i])], lb = b->shape[nd__pos(p->in[1], p->ndims[1], con[i])];
    if (la != lb)
      return nd__error(ND_ERR_SHAPE, "%s: operands could not be broadcast together: subscript '%c' has "
                       "lengths %lld and %lld", fn, con[i], (long long)la, (long long)lb);
  }
  /* a -> (batch..., fa..., con...) reshaped (batch..., M, K); b -> (batch..., con..., fb...) -> (batch..., K, N). */
  int64_t pa[ND_MAXDIMS], pb[ND_MAXDIMS], sa[ND_MAXDIMS + 2], sb[ND_MAXDIMS + 2];
  int64_t M = 1, N = 1, K = 1;
  for (int i = 0; i < nbat; i++) {
    pa[i] = nd__pos(p->in[0], p->ndims[0], batch[i]);
    pb[i] = nd__pos(p->in[1], p->ndims[1], batch[i]);
    sa[i] = a->shape[pa[i]];
    sb[i] = b->shape[pb[i]];
  }
  for (int i = 0; i < nfa; i++) {
    pa[nbat + i] = nd__pos(p->in[0], p->ndims[0], fa[i]);
    M *= a->shape[pa[nbat + i]];
  }
  for (int i = 0; i < ncon; i++) {
    pa[nbat + nfa + i] = nd__pos(p->in[0], p->ndims[0], con[i]);
    pb[nbat + i] = nd__pos(p->in[1], p->ndims[1], con[i]);
    K *= a->shape[pa[nbat + nfa + i]];
  }
  for (int i = 0; i < nfb; i++) {
    pb[nbat + ncon + i] = nd__pos(p->in[1], p->ndims[1], fb[i]);
    N *= b->shape[pb[nbat + ncon + i]];
  }
  if (nbat + 2 > ND_MAXDIMS) return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: too many batch subscripts", fn);
  sa[nbat] = M;
  sa[nbat + 1] = K;
  sb[nbat] = K;
  sb[nbat + 1] = N;
  nd_array *at = NULL, *bt = NULL, *a3 = NULL, *b3 = NULL, *c = NULL, *cw = NULL, *ct = NULL;
  nd_status st = nd_array_transpose(a, a->ndim, pa, &at);
  if (st == ND_OK) st = nd_array_transpose(b, b->ndim, pb, &bt);
  if (st == ND_OK) st = nd_array_reshape(at, nbat + 2, sa, &a3);
  if (st == ND_OK) st = nd_array_reshape(bt, nbat + 2, sb, &b3);
  if (st == ND_OK) st = nd_matmul(a3, b3, &c);
  /* c is (batch..., M, N): unfold to (batch..., fa..., fb...) and permute to the output. */
  if (st == ND_OK) {
    int64_t ws[ND_MAXDIMS];
    char wl[ND_MAXDIMS];
    int nw = 0;
    for (int i = 0; i < nbat; i++) {
      ws[nw] = c->shape[i];
      wl[nw++] = batch[i];
    }
    for (int i = 0; i < nfa; i++) {
      ws[nw] = a->shape[pa[nbat + i]];
      wl[nw++] = fa[i];
    }
    for (int i = 0; i < nfb; i++) {
      ws[nw] = b->shape[pb[nbat + ncon + i]];
      wl[nw++] = fb[i];
    }
    st = nd_array_reshape(c, nw, ws, &cw);
    int64_t perm[ND_MAXDIMS];
    for (int i = 0; i < p->out_ndim; i++) perm[i] = nd__pos(wl, nw, p->out[i]);
    if (st == ND_OK) st = nd_array_transpose(cw, nw, perm, &ct);
    if (st == ND_OK) st = nd_array_copy(ct, ND_ORDER_C, out);
  }
  nd_array_release(at);
  nd_array_release(bt);
  nd_array_release(a3);
  nd_array_release(b3);
  nd_array_release(c);
  nd_array_release(cw);
  nd_array_release(ct);
  return st;
}

nd_status nd_einsum(const char *subscripts, int nops, const nd_array *const *ops, nd_array **out) {
  const char *fn = "nd_einsum";
  ND_CHECK_NULL(fn, subscripts);
  ND_CHECK_NULL(fn, ops);
  ND_CHECK_NULL(fn, out);
  int ndims[2] = {0, 0};
  for (int i = 0; i < nops && i < 2; i++) {
    if (ops[i] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: ops[%d] is NULL", fn, i);
    ndims[i] = ops[i]->ndim;
  }
  nd__einsum_plan p;
  ND_TRY(nd__einsum_parse(fn, subscripts, nops, ndims, &p));
  if (nops == 1) return nd__ctx(fn, nd__einsum_one(fn, &p, ops[0], out));
  return nd__ctx(fn, nd__einsum_two(fn, &p, ops[0], ops[1], out));
}

/* ---- matrix_power --------------------------------------------------------------------------- */

nd_status nd_linalg_matrix_power(const nd_array *a, int64_t n, nd_array **out) {
  const char *fn = "nd_linalg_matrix_power";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__linalg_check_stack(fn, "a", a->ndim, a->shape, 1));
  nd_array *base = NULL, *result = NULL;
  nd_status st = ND_OK;
  if (n == 0) {
    if (a->dtype == ND_FLOAT16 || a->dtype <= ND_UINT64) {
      /* identities of a's dtype through a float64 one */
      nd_array *f = NULL;
      st = nd__array_alloc(fn, a->ndim, a->shape, ND_FLOAT64, 'C', &f);
      if (st == ND_OK) st = nd__linalg_fill_identity(fn, f);
      if (st == ND_OK) st = nd_array_astype(f, a->dtype, &result);
      nd_array_release(f);
    } else {
      st = nd__array_alloc(fn, a->ndim, a->shape, a->dtype, 'C', &result);
      if (st == ND_OK) st = nd__linalg_fill_identity(fn, result);
    }
  } else {
    uint64_t e = n < 0 ? (uint64_t)(-(n + 1)) + 1u : (uint64_t)n;
    if (n < 0) st = nd_linalg_inv(a, &base);
    else base = nd_array_retain((nd_array *)a);
    /* Binary powering: result *= base for each set bit, base squared in between. */
    while (st == ND_OK && e > 0) {
      if (e & 1u) {
        if (result == NULL) {
          result = nd_array_retain(base);
        } else {
          nd_array *t = NULL;
          st = nd_matmul(result, base, &t);
          nd_array_release(result);
          result = t;
        }
      }
      e >>= 1;
      if (st == ND_OK && e > 0) {
        nd_array *t = NULL;
        st = nd_matmul(base, base, &t);
        nd_array_release(base);
        base = t;
      }
    }
    if (st == ND_OK && result == a) {
      /* n == 1: NumPy returns a copy */
      nd_array *t = NULL;
      st = nd_array_copy(a, ND_ORDER_C, &t);
      nd_array_release(result);
      result = t;
    }
  }
  nd_array_release(base);
  if (st != ND_OK) {
    nd_array_release(result);
    return nd__ctx(fn, st);
  }
  *out = result;
  return ND_OK;
}
