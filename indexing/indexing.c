/* Integer-array indexing: the gather/scatter primitive (nd_index_gather, nd_index_scatter)
 * and NumPy's take, take_along_axis and put built on it.
 *
 * Each operation runs in the same steps. Host: argument checks, the result geometry
 * (nd__ix_plan), then in raise mode one check kernel per index array and one small read-back
 * (nd__index_check), which is the only blocking step and comes before any write. Device, in
 * one hazard-tracked phase: the index arrays become one int64 array of byte offsets over the
 * broadcast index shape (indexing/indexing.cu), and one move kernel copies the elements with
 * those offsets added on the source side (gather) or the destination side (scatter). The other
 * dimensions are plain strided dimensions of views built here, so offsets, transposes,
 * negative strides and broadcasts of a, of the indices and of the values need no special case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "indexing/indexing.h"
#include "indexing/indexing_internal.h"
#include "src/api_scope.h"

/* ---- geometry ------------------------------------------------------------------------------ */

nd_status nd__ix_plan(const char *fn, int ndim, const int64_t *shape, int nidx, const int *idx_ndims,
                      const int64_t *const *idx_shapes, const int64_t *axes, int front, nd__ixplan *p) {
  if (nidx < 1 || nidx > ndim)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nidx %d is outside [1, %d] (the array's "
                     "dimensions)", fn, nidx, ndim);
  ND_CHECK_NULL(fn, idx_ndims);
  ND_CHECK_NULL(fn, idx_shapes);
  ND_CHECK_NULL(fn, axes);
  p->nidx = nidx;
  for (int k = 0; k < nidx; k++) {
    ND_TRY(nd__normalize_axis(fn, axes[k], ndim, &p->axes[k]));
    if (k > 0 && p->axes[k] <= p->axes[k - 1])
      return nd__error(ND_ERR_AXIS, "%s: axes must be strictly increasing (got %d after %d)", fn,
                       p->axes[k], p->axes[k - 1]);
    if (idx_ndims[k] < 0 || idx_ndims[k] > ND_MAXDIMS)
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: index array %d has ndim %d", fn, k, idx_ndims[k]);
    if (idx_ndims[k] > 0 && idx_shapes[k] == NULL)
      return nd__error(ND_ERR_NULL_POINTER, "%s: idx_shapes[%d] is NULL", fn, k);
  }
  if (nd__broadcast_shapes(fn, nidx, idx_ndims, idx_shapes, &p->bndim, p->bshape) != ND_OK) {
    char msg[1024] = "", one[ND__SHAPE_STR];
    size_t used = 0;
    for (int k = 0; k < nidx && used < sizeof msg - 1; k++) {
      nd__format_shape(one, sizeof one, idx_ndims[k], idx_shapes[k]);
      int w = snprintf(msg + used, sizeof msg - used, "%s%s", k ? " " : "", one);
      if (w < 0) break;
      used += (size_t)w;
    }
    return nd__error(ND_ERR_INDEX, "%s: shape mismatch: indexing arrays could not be broadcast "
                     "together with shapes %s", fn, msg);
  }
  p->bsize = 1;
  for (int i = 0; i < p->bndim; i++) p->bsize *= p->bshape[i];
  p->nrem = 0;
  for (int i = 0, k = 0; i < ndim; i++) {
    if (k < nidx && p->axes[k] == i) k++;
    else p->rem[p->nrem++] = i;
  }
  const int consecutive = p->axes[nidx - 1] - p->axes[0] == nidx - 1;
  p->pos = (!front && consecutive) ? p->axes[0] : 0;
  p->rndim = p->nrem + p->bndim;
  if (p->rndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the result would have %d dimensions, more than "
                     "the %d supported", fn, p->rndim, ND_MAXDIMS);
  for (int i = 0, r = 0; i < p->rndim; i++) {
    if (i >= p->pos && i < p->pos + p->bndim) p->rshape[i] = p->bshape[i - p->pos];
    else p->rshape[i] = shape[p->rem[r++]];
  }
  return ND_OK;
}

nd_status nd_index_result_shape(int ndim, const int64_t *shape, int nidx, const int *idx_ndims,
                                const int64_t *const *idx_shapes, const int64_t *axes, int front,
                                int *out_ndim, int64_t *out_shape) {
  const char *fn = "nd_index_result_shape";
  ND_CHECK_NULL(fn, out_ndim);
  ND_CHECK_NULL(fn, out_shape);
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d]", fn, ndim, ND_MAXDIMS);
  if (ndim > 0) ND_CHECK_NULL(fn, shape);
  nd__ixplan p;
  ND_TRY(nd__ix_plan(fn, ndim, shape, nidx, idx_ndims, idx_shapes, axes, front, &p));
  *out_ndim = p.rndim;
  memcpy(out_shape, p.rshape, (size_t)p.rndim * sizeof(int64_t));
  return ND_OK;
}

/* ---- checks -------------------------------------------------------------------------------- */

static nd_status nd__check_index_arrays(const char *fn, const nd_array *a, int n,
                                        const nd_array *const *idx, int allow_bool) {
  for (int k = 0; k < n; k++) {
    if (idx[k] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: indices[%d] is NULL", fn, k);
    const char kind = nd_dtype_kind(idx[k]->dtype);
    if (!(kind == 'i' || kind == 'u' || (allow_bool && kind == 'b')))
      return nd__error(ND_ERR_INDEX, "%s: arrays used as indices must be of integer type (indices[%d] "
                       "has dtype %s)", fn, k, nd_dtype_name(idx[k]->dtype));
    if (idx[k]->buf->device != a->buf->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: indices[%d] is on device %d, the array on "
                       "device %d", fn, k, idx[k]->buf->device, a->buf->device);
  }
  return ND_OK;
}

static nd_status nd__check_mode(const char *fn, int mode) {
  if (mode != ND_INDEX_RAISE && mode != ND_INDEX_WRAP && mode != ND_INDEX_CLIP && mode != ND__INDEX_TRUSTED)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: mode must be ND_INDEX_RAISE, ND_INDEX_WRAP or "
                     "ND_INDEX_CLIP (got %d)", fn, mode);
  return ND_OK;
}

nd_status nd__check_take_out(const char *fn, const nd_array *a, const nd_array *out, int rndim,
                             const int64_t *rshape) {
  if (out->ndim != rndim || memcmp(out->shape, rshape, (size_t)rndim * sizeof(int64_t))) {
    char so[ND__SHAPE_STR], sr[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: output array does not match result of ndarray.take (out "
                     "has shape %s, the result %s)", fn, nd__format_shape(so, sizeof so, out->ndim, out->shape),
                     nd__format_shape(sr, sizeof sr, rndim, rshape));
  }
  if (!nd_can_cast(out->dtype, a->dtype, ND_CASTING_SAFE))
    return nd__error(ND_ERR_CASTING, "%s: Cannot cast array data from dtype('%s') to dtype('%s') "
                     "according to the rule 'safe' (out's dtype must cast safely to the array's)",
                     fn, nd_dtype_name(out->dtype), nd_dtype_name(a->dtype));
  if (!out->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: out is read-only", fn);
  if (out->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: out is on device %d, the array on device %d", fn,
                     out->buf->device, a->buf->device);
  return ND_OK;
}

/* The element of idx at C-order position pos as an int64 index value (blocks). */
static nd_status nd__index_value(const char *fn, const nd_array *idx, uint64_t pos, int64_t *v) {
  int64_t off = idx->offset;
  uint64_t rem = pos;
  for (int d = idx->ndim - 1; d >= 0; d--) {
    const uint64_t n = (uint64_t)idx->shape[d];
    off += (int64_t)(rem % n) * idx->strides[d];
    rem /= n;
  }
  nd_array *e;
  ND_TRY(nd__array_view(fn, idx, 0, NULL, NULL, off, 0, &e));
  nd_scalar s;
  nd_status st = nd_array_item(e, &s);
  nd_array_release(e);
  if (st != ND_OK) return st;
  *v = nd_dtype_kind(s.dtype) == 'u' ? (int64_t)s.v.u : nd_dtype_kind(s.dtype) == 'b' ? s.v.b : s.v.i;
  return ND_OK;
}

/* Raise mode: finds, for each index array, its first element (C order) outside
 * [-bounds[k], bounds[k]), with one check kernel per array and one read-back of n words, and
 * reports the first array that has one. Blocks until the answer is on the host. */
static nd_status nd__index_check(const char *fn, nd_stream *s, int n, const nd_array *const *idx,
                                 const int64_t *bounds, const int *axis_names) {
  int64_t total = 0;
  for (int k = 0; k < n; k++) total += idx[k]->size;
  if (total == 0) return ND_OK;
  const int64_t nn = n;
  nd_array *slots;
  ND_TRY(nd__array_alloc(fn, 1, &nn, ND_UINT64, 'C', &slots));
  nd__sync sync;
  nd__sync_init(&sync, s);
  nd_status st = ND_OK;
  for (int k = 0; k < n && st == ND_OK; k++) st = nd__sync_add(&sync, &idx[k]->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &slots->buf->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK) {
    uint64_t *sp = (uint64_t *)((char *)slots->buf->ptr + slots->offset);
    st = nd_k_index_slots_init(sp, n, s->cu);
    for (int k = 0; k < n && st == ND_OK; k++) {
      if (idx[k]->size == 0) continue;
      nd_kloop loop;
      nd_koperand op;
      nd__array_loop(idx[k]->ndim, idx[k]->shape, 1, &idx[k], &loop, &op);
      st = nd_k_index_check(&loop, &op, bounds[k], sp + k, s->cu);
    }
    if (st != ND_OK) st = nd__error_context(st, fn);
    nd_status e = nd__sync_end(&sync);
    if (st == ND_OK) st = e;
  }
  uint64_t found[ND_MAXDIMS];
  if (st == ND_OK) st = nd_array_to_host(slots, found, (size_t)n * sizeof(uint64_t));
  nd_array_release(slots);
  if (st != ND_OK) return st;
  for (int k = 0; k < n; k++) {
    if (found[k] == UINT64_MAX) continue;
    int64_t v = 0;
    ND_TRY(nd__index_value(fn, idx[k], found[k], &v));
    return nd__error(ND_ERR_INDEX, "%s: index %lld is out of bounds for axis %d with size %lld", fn,
                     (long long)v, axis_names[k], (long long)bounds[k]);
  }
  return ND_OK;
}

/* ---- device steps (inside a phase) ---------------------------------------------------------- */

static int nd__kmode(int mode) {
  return mode == ND_INDEX_WRAP ? ND_KIX_WRAP : mode == ND_INDEX_CLIP ? ND_KIX_CLIP : ND_KIX_CHECKED;
}

/* off (int64, C-ordered over B) = sum over k of idx[k][b] brought into range times mults[k],
 * or, when flat is given, the byte offset of flat's idx[0][b]-th element in C order. */
static nd_status nd__fill_offsets(const char *fn, nd_stream *s, nd_array *off, int n,
                                  const nd_array *const *idx, const int64_t *bounds,
                                  const int64_t *mults, int mode, const nd_array *flat) {
  nd_kloop fl;
  nd_koperand fo;
  if (flat != NULL) nd__array_loop(flat->ndim, flat->shape, 1, &flat, &fl, &fo);
  for (int k = 0; k < n; k++) {
    int64_t str[ND_MAXDIMS];
    ND_TRY(nd__broadcast_strides(fn, idx[k]->ndim, idx[k]->shape, idx[k]->strides, off->ndim,
                                 off->shape, str));
    nd_array *v;
    ND_TRY(nd__array_view(fn, idx[k], off->ndim, off->shape, str, idx[k]->offset, 0, &v));
    nd_kloop loop;
    nd_koperand ops[2];
    const nd_array *arr[2] = {off, v};
    nd__array_loop(off->ndim, off->shape, 2, arr, &loop, ops);
    nd_status st = nd_k_index_offsets(&loop, &ops[0], &ops[1], bounds[k], nd__kmode(mode), k > 0,
                                      mults[k], flat ? &fl : NULL, flat ? fo.strides : NULL, s->cu);
    nd_array_release(v);
    if (st != ND_OK) return nd__error_context(st, fn);
  }
  return ND_OK;
}

/* Views of base and off over the result shape: base's non-indexed axes keep their strides and
 * the B axes get stride 0; off's B axes keep theirs and the others get 0. */
static nd_status nd__plan_views(const char *fn, const nd__ixplan *p, const nd_array *base, int flat,
                                const nd_array *off, int writeable, nd_array **bv, nd_array **ov) {
  int64_t bs[ND_MAXDIMS], os[ND_MAXDIMS];
  for (int i = 0, r = 0; i < p->rndim; i++) {
    if (i >= p->pos && i < p->pos + p->bndim) {
      bs[i] = 0;
      os[i] = off->strides[i - p->pos];
    } else {
      bs[i] = flat ? 0 : base->strides[p->rem[r++]];
      os[i] = 0;
    }
  }
  ND_TRY(nd__array_view(fn, base, p->rndim, p->rshape, bs, base->offset, writeable, bv));
  nd_status st = nd__array_view(fn, off, p->rndim, p->rshape, os, off->offset, 0, ov);
  if (st != ND_OK) nd_array_release(*bv);
  return st;
}

static nd_status nd__move(const char *fn, nd_stream *s, const nd_array *dst, const nd_array *src,
                          const nd_array *off, int scatter) {
  nd_kloop loop;
  nd_koperand ops[3];
  const nd_array *arr[3] = {dst, src, off};
  nd__array_loop(dst->ndim, dst->shape, 3, arr, &loop, ops);
  nd_status st = nd_k_index_move(&loop, &ops[0], &ops[1], &ops[2], scatter,
                                 (int)nd_dtype_itemsize(dst->dtype), s->cu);
  return st == ND_OK ? ND_OK : nd__error_context(st, fn);
}

/* ---- gather and scatter --------------------------------------------------------------------- */

typedef struct nd__ixsetup {
  nd__ixplan p;
  nd_stream *s;
  int64_t bounds[ND_MAXDIMS], mults[ND_MAXDIMS];
  int names[ND_MAXDIMS];
} nd__ixsetup;

static nd_status nd__ix_setup(const char *fn, const nd_array *a, int nidx, const nd_array *const *idx,
                              const int64_t *axes, int front, int mode, int flat, nd__ixsetup *x) {
  ND_TRY(nd__check_mode(fn, mode));
  int nd[ND_MAXDIMS];
  const int64_t *sh[ND_MAXDIMS];
  if (nidx < 1 || nidx > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nidx %d is outside [1, %d]", fn, nidx, ND_MAXDIMS);
  for (int k = 0; k < nidx; k++) {
    nd[k] = idx[k]->ndim;
    sh[k] = idx[k]->shape;
  }
  const int64_t fshape[1] = {a->size};
  const int64_t zero = 0;
  if (flat) ND_TRY(nd__ix_plan(fn, 1, fshape, 1, nd, sh, &zero, front, &x->p));
  else ND_TRY(nd__ix_plan(fn, a->ndim, a->shape, nidx, nd, sh, axes, front, &x->p));
  for (int k = 0; k < x->p.nidx; k++) {
    x->bounds[k] = flat ? a->size : a->shape[x->p.axes[k]];
    x->mults[k] = flat ? 0 : a->strides[x->p.axes[k]];
    x->names[k] = x->p.axes[k];
    if ((mode == ND_INDEX_WRAP || mode == ND_INDEX_CLIP) && x->bounds[k] == 0 && x->p.bsize > 0)
      return nd__error(ND_ERR_INDEX, "%s: cannot do a non-empty take from an empty axes.", fn);
  }
  x->s = NULL; /* taken by the caller once every host-side check has passed */
  return ND_OK;
}

/* The part a gather and a scatter share, once the plan is made and the stream chosen: the
 * offsets array and the plan's views of a (nd__plan_views), ordered after the last uses of
 * every operand (src and the index arrays read, the offsets and `into` written), then the
 * offsets filled and the elements moved: into = a[idx] for a gather (src is a), a[idx] = src
 * for a scatter (into is a). */
static nd_status nd__ix_move(const char *fn, const nd__ixsetup *x, const nd_array *a, int nidx,
                             const nd_array *const *idx, int mode, int flat, const nd_array *src,
                             const nd_array *into, int scatter) {
  const nd__ixplan *p = &x->p;
  nd_array *off = NULL, *av = NULL, *offv = NULL;
  nd_status st = nd__array_alloc(fn, p->bndim, p->bshape, ND_INT64, 'C', &off);
  if (st == ND_OK) st = nd__plan_views(fn, p, a, flat, off, scatter, &av, &offv);
  if (st == ND_OK) {
    nd__sync sync;
    nd__sync_init(&sync, x->s);
    st = nd__sync_add(&sync, &src->buf->hz, ND__READ);
    for (int k = 0; k < nidx && st == ND_OK; k++) st = nd__sync_add(&sync, &idx[k]->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &off->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_add(&sync, &into->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd__fill_offsets(fn, x->s, off, nidx, idx, x->bounds, x->mults, mode, flat ? a : NULL);
      if (st == ND_OK) st = scatter ? nd__move(fn, x->s, av, src, offv, 1) : nd__move(fn, x->s, into, av, offv, 0);
      nd_status e = nd__sync_end(&sync);
      if (st == ND_OK) st = e;
    }
  }
  nd_array_release(av);
  nd_array_release(offv);
  nd_array_release(off);
  return st;
}

nd_status nd__gather(const char *fn, const nd_array *a, int nidx, const nd_array *const *idx,
                     const int64_t *axes, int front, int mode, int flat, int take_rule, nd_array *out,
                     nd_array **result) {
  nd__ixsetup x;
  ND_TRY(nd__ix_setup(fn, a, nidx, idx, axes, front, mode, flat, &x));
  const nd__ixplan *p = &x.p;
  int64_t rsize = 1;
  for (int i = 0; i < p->rndim; i++) rsize *= p->rshape[i];
  if (out != NULL) ND_TRY(nd__check_take_out(fn, a, out, p->rndim, p->rshape));
  ND_TRY(nd__array_stream(fn, a, &x.s));
  if (mode == ND_INDEX_RAISE && p->bsize > 0 && (!take_rule || rsize > 0))
    ND_TRY(nd__index_check(fn, x.s, nidx, idx, x.bounds, x.names));
  /* Straight into out when it has a's dtype and shares no memory with the inputs; else into a
   * fresh array that is then converted into out. */
  int direct = out != NULL && out->dtype == a->dtype && !nd__array_may_overlap(out, a);
  for (int k = 0; k < nidx && direct; k++) direct = !nd__array_may_overlap(out, idx[k]);
  nd_array *dst;
  if (direct) dst = nd_array_retain(out);
  else ND_TRY(nd__array_alloc(fn, p->rndim, p->rshape, a->dtype, 'C', &dst));
  nd_status st = ND_OK;
  if (rsize > 0) st = nd__ix_move(fn, &x, a, nidx, idx, mode, flat, a, dst, 0);
  if (st == ND_OK && out != NULL && !direct) {
    st = nd__assign(fn, out, dst);
    nd_array_release(dst);
    dst = nd_array_retain(out);
  }
  if (st != ND_OK) {
    nd_array_release(dst);
    return st;
  }
  if (result != NULL) *result = dst;
  else nd_array_release(dst);
  return ND_OK;
}

nd_status nd__scatter(const char *fn, nd_array *a, int nidx, const nd_array *const *idx,
                      const int64_t *axes, int front, int mode, int flat, const nd_array *values) {
  if (!a->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: assignment destination is read-only", fn);
  if (values->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: values are on device %d, the array on device %d",
                     fn, values->buf->device, a->buf->device);
  nd__ixsetup x;
  ND_TRY(nd__ix_setup(fn, a, nidx, idx, axes, front, mode, flat, &x));
  const nd__ixplan *p = &x.p;
  /* values broadcast to the result shape once leading length-1 dimensions are dropped. */
  int vnd = values->ndim, lead = 0;
  while (vnd > p->rndim && values->shape[lead] == 1) {
    lead++;
    vnd--;
  }
  int64_t vstr[ND_MAXDIMS];
  if (vnd > p->rndim ||
      nd__broadcast_strides(fn, vnd, values->shape + lead, values->strides + lead, p->rndim, p->rshape,
                            vstr) != ND_OK) {
    char sv[ND__SHAPE_STR], sr[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: shape mismatch: value array of shape %s could not be broadcast "
                     "to indexing result of shape %s", fn,
                     nd__format_shape(sv, sizeof sv, values->ndim, values->shape),
                     nd__format_shape(sr, sizeof sr, p->rndim, p->rshape));
  }
  ND_TRY(nd__array_stream(fn, a, &x.s));
  if (mode == ND_INDEX_RAISE && p->bsize > 0) ND_TRY(nd__index_check(fn, x.s, nidx, idx, x.bounds, x.names));
  int64_t rsize = 1;
  for (int i = 0; i < p->rndim; i++) rsize *= p->rshape[i];
  if (rsize == 0) return ND_OK;
  /* The values in a's dtype, in memory that a does not share (read completely before the
   * scatter writes anything). */
  nd_array *conv;
  if (values->dtype == a->dtype && !nd__array_may_overlap(values, a)) conv = nd_array_retain((nd_array *)values);
  else ND_TRY(nd_array_astype(values, a->dtype, &conv));
  int64_t cstr[ND_MAXDIMS];
  nd_status st = nd__broadcast_strides(fn, vnd, conv->shape + lead, conv->strides + lead, p->rndim,
                                       p->rshape, cstr);
  nd_array *vv = NULL;
  if (st == ND_OK) st = nd__array_view(fn, conv, p->rndim, p->rshape, cstr, conv->offset, 0, &vv);
  if (st == ND_OK) st = nd__ix_move(fn, &x, a, nidx, idx, mode, flat, vv, a, 1);
  nd_array_release(vv);
  nd_array_release(conv);
  return st;
}

/* ---- public functions ----------------------------------------------------------------------- */

nd_status nd_index_gather(const nd_array *a, int nidx, const nd_array *const *indices,
                          const int64_t *axes, int front, nd_index_mode mode, nd_array **result) {
  const char *fn = "nd_index_gather";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, indices);
  ND_CHECK_NULL(fn, axes);
  ND_CHECK_NULL(fn, result);
  if (nidx < 1 || nidx > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nidx %d is outside [1, %d]", fn, nidx, ND_MAXDIMS);
  if (mode == ND__INDEX_TRUSTED) return nd__check_mode(fn, -1);
  ND_TRY(nd__check_index_arrays(fn, a, nidx, indices, 0));
  return nd__gather(fn, a, nidx, indices, axes, front, (int)mode, 0, 0, NULL, result);
}

nd_status nd_index_scatter(nd_array *a, int nidx, const nd_array *const *indices, const int64_t *axes,
                           int front, nd_index_mode mode, const nd_array *values) {
  const char *fn = "nd_index_scatter";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, indices);
  ND_CHECK_NULL(fn, axes);
  ND_CHECK_NULL(fn, values);
  if (nidx < 1 || nidx > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nidx %d is outside [1, %d]", fn, nidx, ND_MAXDIMS);
  if (mode == ND__INDEX_TRUSTED) return nd__check_mode(fn, -1);
  ND_TRY(nd__check_index_arrays(fn, a, nidx, indices, 0));
  return nd__scatter(fn, a, nidx, indices, axes, front, (int)mode, 0, values);
}

/* Index arrays of take and put: integer or bool; others refused as NumPy's cast to intp does. */
static nd_status nd__check_take_indices(const char *fn, const nd_array *a, const nd_array *indices) {
  const char kind = nd_dtype_kind(indices->dtype);
  if (kind != 'i' && kind != 'u' && kind != 'b')
    return nd__error(ND_ERR_CASTING, "%s: Cannot cast array data from dtype('%s') to dtype('int64') "
                     "according to the rule 'safe'", fn, nd_dtype_name(indices->dtype));
  return nd__check_index_arrays(fn, a, 1, &indices, 1);
}

nd_status nd_take(const nd_array *a, const nd_array *indices, int64_t axis, nd_index_mode mode,
                  nd_array *out, nd_array **result) {
  const char *fn = "nd_take";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, indices);
  ND_CHECK_RESULT(fn, out, result);
  if (mode == ND__INDEX_TRUSTED) return nd__check_mode(fn, -1);
  return nd__take(fn, a, indices, axis, (int)mode, out, result);
}

nd_status nd__take(const char *fn, const nd_array *a, const nd_array *indices, int64_t axis, int mode,
                   nd_array *out, nd_array **result) {
  ND_TRY(nd__check_mode(fn, mode));
  ND_TRY(nd__check_take_indices(fn, a, indices));
  int flat = axis == ND_AXIS_NONE || a->ndim == 0;
  int ax = 0;
  if (!flat) ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  else if (axis != ND_AXIS_NONE) ND_TRY(nd__normalize_axis(fn, axis, 1, &ax));
  const int64_t n = flat ? a->size : a->shape[ax];
  if (n == 0 && indices->size > 0)
    return nd__error(ND_ERR_INDEX, "%s: cannot do a non-empty take from an empty axes.", fn);
  const int64_t ax64 = ax;
  return nd__gather(fn, a, 1, &indices, &ax64, 0, mode, flat, 1, out, result);
}

nd_status nd_take_along_axis(const nd_array *a, const nd_array *indices, int64_t axis, nd_array *out,
                             nd_array **result) {
  const char *fn = "nd_take_along_axis";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, indices);
  ND_CHECK_RESULT(fn, out, result);
  const char kind = nd_dtype_kind(indices->dtype);
  if (kind != 'i' && kind != 'u')
    return nd__error(ND_ERR_INDEX, "%s: `indices` must be an integer array (got dtype %s)", fn,
                     nd_dtype_name(indices->dtype));
  ND_TRY(nd__check_index_arrays(fn, a, 1, &indices, 0));
  if (axis == ND_AXIS_NONE) {
    if (indices->ndim != 1)
      return nd__error(ND_ERR_VALUE, "%s: when axis=None, `indices` must have a single dimension. "
                       "(indices has %d)", fn, indices->ndim);
    const int64_t zero = 0;
    return nd__gather(fn, a, 1, &indices, &zero, 0, ND_INDEX_RAISE, 1, 0, out, result);
  }
  if (indices->ndim != a->ndim)
    return nd__error(ND_ERR_VALUE, "%s: `indices` and `arr` must have the same number of dimensions "
                     "(%d and %d)", fn, indices->ndim, a->ndim);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  /* a with length 1 along axis, broadcast against indices: the result shape R. */
  int64_t ash[ND_MAXDIMS], rsh[ND_MAXDIMS];
  memcpy(ash, a->shape, (size_t)a->ndim * sizeof(int64_t));
  ash[ax] = 1;
  int nds[2] = {a->ndim, indices->ndim}, rnd;
  const int64_t *shs[2] = {ash, indices->shape};
  if (nd__broadcast_shapes(fn, 2, nds, shs, &rnd, rsh) != ND_OK) {
    char s1[ND__SHAPE_STR], s2[ND__SHAPE_STR];
    return nd__error(ND_ERR_INDEX, "%s: shape mismatch: indexing arrays could not be broadcast "
                     "together with shapes %s %s", fn, nd__format_shape(s1, sizeof s1, a->ndim, ash),
                     nd__format_shape(s2, sizeof s2, indices->ndim, indices->shape));
  }
  int64_t rsize = 1;
  for (int i = 0; i < rnd; i++) rsize *= rsh[i];
  if (out != NULL) ND_TRY(nd__check_take_out(fn, a, out, rnd, rsh));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  const int64_t bound = a->shape[ax];
  /* NumPy builds this from fancy indexing, which checks whenever the indices are not empty. */
  if (indices->size > 0) ND_TRY(nd__index_check(fn, s, 1, &indices, &bound, &ax));
  /* The gather over R: a's view with stride 0 along axis and on broadcast axes, the offset
   * array over R itself (the indices broadcast to R, times a's stride along axis). */
  int64_t astr[ND_MAXDIMS];
  for (int i = 0; i < rnd; i++) astr[i] = (i == ax || a->shape[i] != rsh[i]) ? 0 : a->strides[i];
  int direct = out != NULL && out->dtype == a->dtype && !nd__array_may_overlap(out, a) &&
               !nd__array_may_overlap(out, indices);
  nd_array *dst;
  if (direct) dst = nd_array_retain(out);
  else ND_TRY(nd__array_alloc(fn, rnd, rsh, a->dtype, 'C', &dst));
  nd_status st = ND_OK;
  if (rsize > 0) {
    nd_array *off = NULL, *srcv = NULL;
    st = nd__array_alloc(fn, rnd, rsh, ND_INT64, 'C', &off);
    if (st == ND_OK) st = nd__array_view(fn, a, rnd, rsh, astr, a->offset, 0, &srcv);
    if (st == ND_OK) {
      nd__sync sync;
      nd__sync_init(&sync, s);
      st = nd__sync_add(&sync, &a->buf->hz, ND__READ);
      if (st == ND_OK) st = nd__sync_add(&sync, &indices->buf->hz, ND__READ);
      if (st == ND_OK) st = nd__sync_add(&sync, &off->buf->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_add(&sync, &dst->buf->hz, ND__WRITE);
      if (st == ND_OK) st = nd__sync_begin(&sync);
      if (st == ND_OK) {
        const int64_t mult = a->strides[ax];
        st = nd__fill_offsets(fn, s, off, 1, &indices, &bound, &mult, ND_INDEX_RAISE, NULL);
        if (st == ND_OK) st = nd__move(fn, s, dst, srcv, off, 0);
        nd_status e = nd__sync_end(&sync);
        if (st == ND_OK) st = e;
      }
    }
    nd_array_release(srcv);
    nd_array_release(off);
  }
  if (st == ND_OK && out != NULL && !direct) {
    st = nd__assign(fn, out, dst);
    nd_array_release(dst);
    dst = nd_array_retain(out);
  }
  if (st != ND_OK) {
    nd_array_release(dst);
    return st;
  }
  if (result != NULL) *result = dst;
  else nd_array_release(dst);
  return ND_OK;
}

nd_status nd_put(nd_array *a, const nd_array *indices, const nd_array *values, nd_index_mode mode) {
  const char *fn = "nd_put";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, indices);
  ND_CHECK_NULL(fn, values);
  if (mode == ND__INDEX_TRUSTED) return nd__check_mode(fn, -1);
  ND_TRY(nd__check_mode(fn, (int)mode));
  if (!a->writeable) return nd__error(ND_ERR_READ_ONLY, "%s: a is read-only", fn);
  if (nd_dtype_kind(indices->dtype) == 'c')
    return nd__error(ND_ERR_CASTING, "%s: Cannot cast array data from dtype('%s') to dtype('int64') "
                     "according to the rule 'unsafe' without losing the imaginary part", fn,
                     nd_dtype_name(indices->dtype));
  if (indices->buf->device != a->buf->device || values->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: a, indices and values are on devices %d, %d and %d",
                     fn, a->buf->device, indices->buf->device, values->buf->device);
  const int64_t ni = indices->size, nv = values->size;
  if (ni == 0 || nv == 0) return ND_OK;
  if (a->size == 0) return nd__error(ND_ERR_INDEX, "%s: cannot replace elements of an empty array", fn);
  /* Float indices truncate toward zero, as NumPy's forced cast to intp. */
  nd_array *idx = NULL, *vflat = NULL, *vals = NULL;
  nd_status st;
  if (nd_dtype_kind(indices->dtype) == 'f') st = nd_array_astype(indices, ND_INT64, &idx);
  else idx = nd_array_retain((nd_array *)indices), st = ND_OK;
  /* The values as ni elements in C order of indices: values[k mod nv]. */
  if (st == ND_OK) st = nd_array_ravel(values, &vflat);
  if (st == ND_OK) {
    if (nv == ni || nv == 1) {
      vals = nd_array_retain(vflat);
    } else {
      nd_array *tiled = NULL;
      const int64_t reps = (ni + nv - 1) / nv;
      st = nd_tile(vflat, 1, &reps, &tiled);
      if (st == ND_OK) {
        nd_slice sl = {0, ni, 1};
        st = nd_array_slice(tiled, 1, &sl, &vals);
        nd_array_release(tiled);
      }
    }
  }
  nd_array *shaped = NULL;
  if (st == ND_OK) {
    if (nv == 1 && ni != 1) shaped = nd_array_retain(vals); /* broadcasts */
    else st = nd_array_reshape(vals, indices->ndim, indices->shape, &shaped);
  }
  const int64_t zero = 0;
  if (st == ND_OK) st = nd__scatter(fn, a, 1, (const nd_array *const *)&idx, &zero, 0, (int)mode, 1, shaped);
  nd_array_release(shaped);
  nd_array_release(vals);
  nd_array_release(vflat);
  nd_array_release(idx);
  return st;
}
