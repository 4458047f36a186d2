/* The elementwise executor: broadcasting, the out checks, the result's layout, input casts,
 * hazard tracking and the launch. Everything before the launch is host-only and leaves
 * every array untouched on failure.
 *
 * Mixed input dtypes are converted to the loop dtype first (nd_array_astype of each operand
 * at its own, unbroadcast size), so that kernel instances exist per (op, dtype) only. An out
 * of another dtype than the loop's result, or one that overlaps an input without being the
 * same view of it, gets the result through a temporary and one converting copy, so the
 * result is as if the inputs had been read completely first (NumPy's rule). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise/ufunc.h"

/* NumPy's compact shape text used in its ufunc messages: "(3,4)", "(5,)", "()". */
static char *nd__shape_np(char *buf, size_t cap, int ndim, const int64_t *shape) {
  size_t len = 0;
  buf[0] = '\0';
  len += (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < ndim && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)shape[i]);
  if (len < cap) snprintf(buf + len, cap - len, ndim == 1 ? ",)" : ")");
  return buf;
}

static nd_status nd__broadcast_error(const char *fn, int nin, const nd_array *const *arr) {
  char msg[4 * ND__SHAPE_STR], one[ND__SHAPE_STR];
  size_t len = 0;
  msg[0] = '\0';
  for (int i = 0; i < nin; i++) {
    if (arr[i] == NULL) continue;
    nd__shape_np(one, sizeof one, arr[i]->ndim, arr[i]->shape);
    if (len < sizeof msg) len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", len ? " " : "", one);
  }
  return nd__error(ND_ERR_SHAPE, "%s: operands could not be broadcast together with shapes %s",
                   fn, msg);
}

/* Strides that view a as (nd, shape): stride 0 on new and broadcast axes. */
static void nd__bstrides(const nd_array *a, int nd, const int64_t *shape, int64_t *st) {
  const int off = nd - a->ndim;
  for (int k = 0; k < nd; k++) {
    const int ka = k - off;
    st[k] = (ka < 0 || (a->shape[ka] == 1 && shape[k] != 1)) ? 0 : a->strides[ka];
  }
}

/* Whether input a, broadcast to the loop shape, reads exactly the elements out writes at
 * every index (the in-place case, which needs no temporary). */
static int nd__same_view(const nd_array *a, const nd_array *o, int nd, const int64_t *shape) {
  if (a->buf != o->buf || a->offset != o->offset || nd_dtype_itemsize(a->dtype) != nd_dtype_itemsize(o->dtype))
    return 0;
  int64_t sa[ND_MAXDIMS];
  nd__bstrides(a, nd, shape, sa);
  for (int k = 0; k < nd; k++)
    if (shape[k] > 1 && sa[k] != o->strides[k]) return 0;
  return 1;
}

static nd_status nd__ufunc_launch(const char *fn, const nd__ufunc_loop *L, nd_stream *s, int nd,
                                  const int64_t *shape, nd_array *target,
                                  const nd_array *const *kin, const nd__ufunc_scalars *sc,
                                  const nd_kparams *params) {
  if (target->size == 0) return ND_OK;
  nd_kufunc c;
  c.op = L->kop;
  c.key = L->key;
  c.nin = L->nin;
  c.scalar_mask = sc->mask;
  if (params)
    c.params = *params;
  else
    memset(&c.params, 0, sizeof c.params);
  /* Iterate with the output's smallest stride last (a stable sort of the axes by decreasing
   * |stride|), so that an F-ordered or permuted output still collapses to one contiguous
   * run and the transposed-operand case is recognised in the output's orientation. */
  int perm[ND_MAXDIMS];
  for (int k = 0; k < nd; k++) perm[k] = k;
  for (int k = 1; k < nd; k++) {
    const int x = perm[k];
    const int64_t sx = llabs(target->strides[x]);
    int j = k - 1;
    while (j >= 0 && llabs(target->strides[perm[j]]) < sx) {
      perm[j + 1] = perm[j];
      j--;
    }
    perm[j + 1] = x;
  }
  int64_t *strides[4];
  c.out.data = (char *)target->buf->ptr + target->offset;
  c.out.dtype = target->dtype;
  strides[0] = c.out.strides;
  for (int k = 0; k < nd; k++) {
    c.loop.shape[k] = shape[perm[k]];
    c.out.strides[k] = target->strides[perm[k]];
  }
  for (int j = 0; j < L->nin; j++) {
    strides[1 + j] = c.in[j].strides;
    c.in[j].dtype = L->in[j];
    c.scalars[j] = sc->bytes[j];
    if (kin[j] == NULL) {
      c.in[j].data = NULL;
      for (int k = 0; k < nd; k++) c.in[j].strides[k] = 0;
      continue;
    }
    int64_t b[ND_MAXDIMS];
    nd__bstrides(kin[j], nd, shape, b);
    c.in[j].data = (char *)kin[j]->buf->ptr + kin[j]->offset;
    for (int k = 0; k < nd; k++) c.in[j].strides[k] = b[perm[k]];
  }
  c.loop.count = target->size;
  c.loop.ndim = nd__collapse_dims(nd, c.loop.shape, 1 + L->nin, strides);
  nd__sync sync;
  nd__sync_init(&sync, s);
  for (int j = 0; j < L->nin; j++)
    if (kin[j]) ND_TRY(nd__sync_add(&sync, &kin[j]->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &target->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_status st = nd_k_ufunc(&c, s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

nd_status nd__ufunc_run(const char *fn, const nd__ufunc_loop *L, const nd_operand *in,
                        nd_array *out, nd_array **result, const nd_kparams *params) {
  ND_CHECK_RESULT(fn, out, result);
  ND_CHECK_NULL(fn, in);
  const int nin = L->nin;
  const nd_array *arr[3] = {NULL, NULL, NULL};
  const nd_array *first = NULL;
  for (int i = 0; i < nin; i++) {
    if (in[i].kind == ND_OPERAND_ARRAY) {
      if (in[i].array == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: operand %d is NULL", fn, i);
      arr[i] = in[i].array;
      if (first == NULL) first = arr[i];
    } else if (in[i].kind != ND_OPERAND_SCALAR) {
      return nd__error(ND_ERR_VALUE, "%s: operand %d has no value", fn, i);
    }
  }
  /* Broadcast shape of the inputs. */
  int nd = 0;
  int64_t shape[ND_MAXDIMS];
  for (int i = 0; i < nin; i++)
    if (arr[i] && arr[i]->ndim > nd) nd = arr[i]->ndim;
  for (int k = 0; k < nd; k++) shape[k] = 1;
  for (int i = 0; i < nin; i++) {
    if (arr[i] == NULL) continue;
    const int off = nd - arr[i]->ndim;
    for (int k = 0; k < arr[i]->ndim; k++) {
      const int64_t d = arr[i]->shape[k];
      int64_t *t = &shape[off + k];
      if (*t == 1)
        *t = d;
      else if (d != 1 && d != *t)
        return nd__broadcast_error(fn, nin, arr);
    }
  }
  if (out) {
    int ok = out->ndim >= nd;
    for (int k = 0; ok && k < nd; k++) {
      const int64_t d = out->shape[out->ndim - nd + k];
      ok = shape[k] == d || shape[k] == 1;
    }
    if (!ok) {
      char so[ND__SHAPE_STR], sb[ND__SHAPE_STR];
      return nd__error(ND_ERR_SHAPE, "%s: non-broadcastable output operand with shape %s "
                       "doesn't match the broadcast shape %s", fn,
                       nd__shape_np(so, sizeof so, out->ndim, out->shape),
                       nd__shape_np(sb, sizeof sb, nd, shape));
    }
    nd = out->ndim;
    memcpy(shape, out->shape, (size_t)nd * sizeof(int64_t));
    if (!out->writeable) {
      char so[ND__SHAPE_STR];
      return nd__error(ND_ERR_READ_ONLY, "%s: output array (shape %s, dtype %s) is read-only", fn,
                       nd__shape_np(so, sizeof so, out->ndim, out->shape), nd_dtype_name(out->dtype));
    }
    if (!nd_can_cast(L->out, out->dtype, ND_CASTING_SAME_KIND))
      return nd__error(ND_ERR_CASTING, "%s: Cannot cast ufunc '%s' output from dtype('%s') to "
                       "dtype('%s') with casting rule 'same_kind'", fn, nd_ufunc_name((nd_ufunc)L->op),
                       nd_dtype_name(L->out), nd_dtype_name(out->dtype));
  } else {
    int64_t count;
    ND_TRY(nd__shape_count(fn, nd, shape, &count));
  }
  nd__ufunc_scalars sc;
  nd__ufunc_loop loop = *L;
  ND_TRY(nd__ufunc_check_scalars(fn, &loop, in, &sc));
  L = &loop;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, out ? out : first, &s));
  for (int i = 0; i < nin; i++)
    if (arr[i] && arr[i]->buf->device != s->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: operand %d lives on device %d but the "
                       "current device is device %d", fn, i, arr[i]->buf->device, s->device);

  /* Where the result goes. */
  int direct = out != NULL && out->dtype == L->out;
  if (direct && L->action == ND__UF_RUN && sc.constant < 0) {
    for (int j = 0; j < nin; j++) {
      const nd_array *a = arr[L->src[j]];
      if (a && a->dtype == L->in[j] && nd__array_may_overlap(a, out) && !nd__same_view(a, out, nd, shape))
        direct = 0;
    }
  }
  nd_array *target = NULL;
  nd_status st = ND_OK;
  if (direct) {
    target = out;
  } else {
    const nd_array *proto = NULL;
    for (int i = 0; i < nin && proto == NULL; i++)
      if (arr[i] && arr[i]->ndim == nd && !memcmp(arr[i]->shape, shape, (size_t)nd * sizeof(int64_t)))
        proto = arr[i];
    if (proto)
      st = nd__array_alloc_like(fn, proto, L->out, &target);
    else
      st = nd__array_alloc(fn, nd, shape, L->out, 'C', &target);
    if (st != ND_OK) return st;
  }

  nd_array *tmp[3] = {NULL, NULL, NULL};
  if (sc.constant >= 0 || L->action == ND__UF_FILL) {
    st = nd_array_fill(target, nd_scalar_bool(sc.constant >= 0 ? sc.constant : L->fill));
  } else if (L->action == ND__UF_COPY) {
    const int i = L->src[0];
    if (arr[i] == NULL) {
      st = nd_array_fill(target, in[i].scalar);
    } else {
      int64_t b[ND_MAXDIMS];
      nd__bstrides(arr[i], nd, shape, b);
      st = nd__array_view(fn, arr[i], nd, shape, b, arr[i]->offset, 0, &tmp[0]);
      if (st == ND_OK) st = nd__assign(fn, target, tmp[0]);
    }
  } else {
    const nd_array *kin[3] = {NULL, NULL, NULL};
    for (int j = 0; j < nin && st == ND_OK; j++) {
      const nd_array *a = arr[L->src[j]];
      if (a && a->dtype != L->in[j]) {
        st = nd_array_astype(a, L->in[j], &tmp[j]);
        kin[j] = tmp[j];
      } else {
        kin[j] = a;
      }
    }
    if (st == ND_OK) st = nd__ufunc_launch(fn, L, s, nd, shape, target, kin, &sc, params);
  }
  if (st == ND_OK && !direct && out) st = nd__assign(fn, out, target);
  for (int j = 0; j < 3; j++) nd_array_release(tmp[j]);
  if (st != ND_OK) {
    if (!direct) nd_array_release(target);
    return st;
  }
  if (out) {
    if (!direct) nd_array_release(target);
    if (result) *result = nd_array_retain(out);
  } else {
    *result = target;
  }
  return ND_OK;
}
