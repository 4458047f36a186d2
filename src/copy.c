/* Copies and assignment: every path ends in nd__assign, one strided-to-strided copy with
 * conversion (kernels/copy.cu), ordered by the hazard tracker. */
#include <math.h>
#include <string.h>

#include "kernels/copy.h"
#include "src/api_scope.h"
#include "src/array.h"

nd_status nd__assign(const char *fn, nd_array *dst, const nd_array *src) {
  if (dst->size == 0) return ND_OK;
  if (dst->buf == src->buf && dst->offset == src->offset && dst->dtype == src->dtype &&
      !memcmp(dst->strides, src->strides, (size_t)dst->ndim * sizeof(int64_t)))
    return ND_OK;
  if (nd__array_may_overlap(dst, src)) {
    nd_array *tmp;
    ND_TRY(nd_array_copy(src, ND_ORDER_K, &tmp));
    nd_status st = nd__assign(fn, dst, tmp);
    nd_array_release(tmp);
    return st;
  }
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  if (src->buf->device != dst->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: source on device %d, destination on device %d",
                     fn, src->buf->device, dst->buf->device);
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &src->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &dst->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_kloop loop;
  nd_koperand ops[2];
  const nd_array *arr[2] = {dst, src};
  nd__array_loop(dst->ndim, dst->shape, 2, arr, &loop, ops);
  nd_status st = nd_k_copy(&loop, &ops[0], &ops[1], s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

static nd_status nd__check_writeable(const char *fn, const nd_array *a) {
  if (!a->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: destination array is read-only (a broadcast or "
                     "diagonal view, or marked so)", fn);
  return ND_OK;
}

nd_status nd_array_copy(const nd_array *a, nd_order order, nd_array **out) {
  const char *fn = "nd_array_copy";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  nd_array *c;
  if (order == ND_ORDER_A)
    order = (nd_array_is_f_contiguous(a) && !nd_array_is_c_contiguous(a)) ? ND_ORDER_F : ND_ORDER_C;
  if (order == ND_ORDER_K) {
    ND_TRY(nd__array_alloc_like(fn, a, a->dtype, &c));
  } else if (order == ND_ORDER_C || order == ND_ORDER_F) {
    ND_TRY(nd__array_alloc(fn, a->ndim, a->shape, a->dtype, (char)order, &c));
  } else {
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: order must be 'C', 'F', 'A' or 'K' (got %d)", fn, (int)order);
  }
  /* As CuPy's ndarray.copy: the copy is made on the current device, from any device. */
  nd_status st = a->buf->device != c->buf->device ? nd__copyto_device(fn, c, a) : nd__assign(fn, c, a);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

nd_status nd_array_ascontiguous(const nd_array *a, nd_order order, nd_array **out) {
  const char *fn = "nd_array_ascontiguous";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (order != ND_ORDER_C && order != ND_ORDER_F)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: order must be 'C' or 'F' (got %d)", fn, (int)order);
  if (order == ND_ORDER_C ? nd_array_is_c_contiguous(a) : nd_array_is_f_contiguous(a)) {
    *out = nd_array_retain((nd_array *)a);
    return ND_OK;
  }
  return nd_array_copy(a, order, out);
}

nd_status nd_array_astype(const nd_array *a, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_array_astype";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  nd_array *c;
  ND_TRY(nd__array_alloc_like(fn, a, dtype, &c));
  nd_status st = nd__assign(fn, c, a);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

nd_status nd_copyto(nd_array *dst, const nd_array *src, nd_casting casting) {
  const char *fn = "nd_copyto";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, dst);
  ND_CHECK_NULL(fn, src);
  ND_TRY(nd__check_writeable(fn, dst));
  if (!nd_can_cast(src->dtype, dst->dtype, casting))
    return nd__error(ND_ERR_CASTING, "%s: cannot cast array data from dtype('%s') to dtype('%s') "
                     "according to the rule '%s'", fn, nd_dtype_name(src->dtype),
                     nd_dtype_name(dst->dtype), nd_casting_name(casting));
  nd_array *b;
  nd_status st = nd_array_broadcast_to(src, dst->ndim, dst->shape, &b);
  if (st != ND_OK) return nd__error_context(st, fn);
  /* Between devices (src/peer.c): src crosses at its own size, then broadcasts there. */
  if (src->buf->device != dst->buf->device) st = nd__copyto_device(fn, dst, src);
  else st = nd__assign(fn, dst, b);
  nd_array_release(b);
  return st;
}

/* The checks NumPy makes when a Python scalar is stored into an array: a Python int must fit an
 * integer dtype (OverflowError: "Python integer 300 out of bounds for uint8", in fill and full
 * alike), and, for fill (complex_ok 0), a Python float must convert with int() and fit, and a
 * Python complex cannot become an integer or float (TypeError: int() or float() of a
 * complex); bool takes its truth value. full goes through
 * copyto with unsafe casting and drops the imaginary part (complex_ok 1), as do array scalars
 * (strong dtypes) everywhere, with NumPy's ComplexWarning. */
nd_status nd__fill_value_check(const char *fn, nd_scalar value, nd_dtype dtype, int complex_ok) {
  if (!nd_dtype_is_valid(value.dtype) && !nd_dtype_is_weak(value.dtype))
    return nd__error(ND_ERR_DTYPE, "%s: value has an invalid dtype (%d)", fn, (int)value.dtype);
  const char kind = nd_dtype_kind(dtype);
  if (value.dtype == ND_PYINT && (kind == 'i' || kind == 'u')) {
    const int bits = (int)nd_dtype_itemsize(dtype) * 8;
    const int64_t v = value.v.i;
    int bad;
    if (kind == 'u') bad = v < 0 || (bits < 64 && (uint64_t)v > (UINT64_MAX >> (64 - bits)));
    else bad = bits < 64 && (v < -(INT64_C(1) << (bits - 1)) || v > (INT64_C(1) << (bits - 1)) - 1);
    if (bad)
      return nd__error(ND_ERR_VALUE, "%s: Python integer %lld out of bounds for %s", fn, (long long)v,
                       nd_dtype_name(dtype));
  }
  if (!complex_ok && value.dtype == ND_PYFLOAT && (kind == 'i' || kind == 'u')) {
    /* fill converts a Python float with int(): NaN and infinities cannot be converted
     * (ValueError, OverflowError), and the truncated value must fit ("Python integer 300
     * out of bounds for int8" for 300.0), where full would cast unsafely. */
    const double f = value.v.f;
    if (isnan(f) || isinf(f))
      return nd__error(ND_ERR_VALUE, "%s: cannot convert float %s to integer", fn,
                       isnan(f) ? "NaN" : "infinity");
    const double t = trunc(f);
    const int bits = (int)nd_dtype_itemsize(dtype) * 8;
    const double lo = kind == 'u' ? 0.0 : -ldexp(1.0, bits - 1);
    const double hi = kind == 'u' ? ldexp(1.0, bits) : ldexp(1.0, bits - 1); /* exclusive */
    if (t < lo || t >= hi)
      return nd__error(ND_ERR_VALUE, "%s: Python integer %.0f out of bounds for %s", fn, t, nd_dtype_name(dtype));
  }
  if (!complex_ok && value.dtype == ND_PYCOMPLEX && (kind == 'i' || kind == 'u' || kind == 'f'))
    return nd__error(ND_ERR_DTYPE, "%s: a Python complex (%g%+gj) cannot be stored in a %s array "
                     "(NumPy: TypeError); pass a complex array scalar to drop the imaginary part",
                     fn, value.v.c[0], value.v.c[1], nd_dtype_name(dtype));
  return ND_OK;
}

nd_status nd_array_fill(nd_array *a, nd_scalar value) {
  const char *fn = "nd_array_fill";
  ND_CHECK_NULL(fn, a);
  ND_TRY(nd__check_writeable(fn, a));
  ND_TRY(nd__fill_value_check(fn, value, a->dtype, 0));
  return nd__fill(fn, a, value);
}

/* The fill itself, after the caller's checks of a and of the value (fill's and full's rules
 * differ: see nd__fill_value_check). */
nd_status nd__fill(const char *fn, nd_array *a, nd_scalar value) {
  if (a->size == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd_kscalar bytes;
  nd__scalar_to_bytes(value, a->dtype, &bytes);
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_kloop loop;
  nd_koperand op;
  const nd_array *arr[1] = {a};
  nd__array_loop(a->ndim, a->shape, 1, arr, &loop, &op);
  nd_status st = nd_k_fill(&loop, &op, &bytes, s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

nd_status nd_concatenate(int n, const nd_array *const *arrays, int64_t axis, nd_array **out) {
  const char *fn = "nd_concatenate";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, arrays);
  ND_CHECK_NULL(fn, out);
  if (n < 1) return nd__error(ND_ERR_VALUE, "%s: need at least one array to concatenate (n = %d)", fn, n);
  if (n > 4096) return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: at most 4096 arrays (n = %d)", fn, n);
  nd_dtype dts[4096];
  for (int i = 0; i < n; i++) {
    if (arrays[i] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: arrays[%d] is NULL", fn, i);
    dts[i] = arrays[i]->dtype;
  }
  if (axis == ND_AXIS_NONE) {
    /* Flatten each input (views where possible) and join along axis 0. */
    nd_array *flat[4096] = {NULL};
    nd_status st = ND_OK;
    int made = 0;
    while (made < n && (st = nd_array_ravel(arrays[made], &flat[made])) == ND_OK) made++;
    if (st == ND_OK) st = nd_concatenate(n, (const nd_array *const *)flat, 0, out);
    for (int i = 0; i < made; i++) nd_array_release(flat[i]);
    return st;
  }
  const nd_array *a0 = arrays[0];
  if (a0->ndim == 0)
    return nd__error(ND_ERR_SHAPE, "%s: zero-dimensional arrays cannot be concatenated", fn);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a0->ndim, &ax));
  int64_t shape[ND_MAXDIMS];
  memcpy(shape, a0->shape, sizeof shape);
  shape[ax] = 0;
  for (int i = 0; i < n; i++) {
    const nd_array *a = arrays[i];
    if (a->ndim != a0->ndim)
      return nd__error(ND_ERR_SHAPE, "%s: all the input arrays must have same number of "
                       "dimensions, but the array at index 0 has %d dimension(s) and the array "
                       "at index %d has %d dimension(s)", fn, a0->ndim, i, a->ndim);
    for (int k = 0; k < a->ndim; k++)
      if (k != ax && a->shape[k] != a0->shape[k])
        return nd__error(ND_ERR_SHAPE, "%s: all the input array dimensions except for the "
                         "concatenation axis must match exactly, but along dimension %d, the "
                         "array at index 0 has size %lld and the array at index %d has size %lld",
                         fn, k, (long long)a0->shape[k], i, (long long)a->shape[k]);
    if (__builtin_add_overflow(shape[ax], a->shape[ax], &shape[ax]))
      return nd__error(ND_ERR_OVERFLOW, "%s: concatenated axis length overflows", fn);
  }
  nd_dtype dt;
  ND_TRY(nd_result_type(n, dts, &dt));
  nd_array *r;
  ND_TRY(nd__array_alloc(fn, a0->ndim, shape, dt, 'C', &r));
  int64_t pos = 0;
  nd_status st = ND_OK;
  for (int i = 0; i < n && st == ND_OK; i++) {
    nd_slice sl[ND_MAXDIMS];
    for (int k = 0; k < a0->ndim; k++) sl[k] = ND_SLICE_ALL;
    sl[ax].start = pos;
    sl[ax].stop = pos + arrays[i]->shape[ax];
    pos += arrays[i]->shape[ax];
    nd_array *part;
    st = nd_array_slice(r, a0->ndim, sl, &part);
    if (st == ND_OK) {
      st = nd__assign(fn, part, arrays[i]);
      nd_array_release(part);
    }
  }
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *out = r;
  return ND_OK;
}

nd_status nd_stack(int n, const nd_array *const *arrays, int64_t axis, nd_array **out) {
  const char *fn = "nd_stack";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, arrays);
  ND_CHECK_NULL(fn, out);
  if (n < 1) return nd__error(ND_ERR_VALUE, "%s: need at least one array to stack (n = %d)", fn, n);
  if (n > 4096) return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: at most 4096 arrays (n = %d)", fn, n);
  for (int i = 0; i < n; i++) {
    if (arrays[i] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: arrays[%d] is NULL", fn, i);
    if (arrays[i]->ndim != arrays[0]->ndim ||
        memcmp(arrays[i]->shape, arrays[0]->shape, (size_t)arrays[0]->ndim * sizeof(int64_t))) {
      char s0[ND__SHAPE_STR], si[ND__SHAPE_STR];
      return nd__error(ND_ERR_SHAPE, "%s: all input arrays must have the same shape (array 0 has "
                       "shape %s, array %d has shape %s)", fn,
                       nd__format_shape(s0, sizeof s0, arrays[0]->ndim, arrays[0]->shape), i,
                       nd__format_shape(si, sizeof si, arrays[i]->ndim, arrays[i]->shape));
    }
  }
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, arrays[0]->ndim + 1, &ax));
  nd_array *ex[4096];
  nd_status st = ND_OK;
  int made = 0;
  for (; made < n; made++) {
    st = nd_array_expand_dims(arrays[made], ax, &ex[made]);
    if (st != ND_OK) break;
  }
  if (st == ND_OK) st = nd_concatenate(n, (const nd_array *const *)ex, ax, out);
  for (int i = 0; i < made; i++) nd_array_release(ex[i]);
  return st;
}

nd_status nd_tile(const nd_array *a, int nreps, const int64_t *reps, nd_array **out) {
  const char *fn = "nd_tile";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (nreps < 0 || nreps > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nreps %d is outside [0, %d]", fn, nreps, ND_MAXDIMS);
  if (nreps > 0) ND_CHECK_NULL(fn, reps);
  int d = a->ndim > nreps ? a->ndim : nreps;
  if (2 * d > ND_MAXDIMS)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: tiling needs %d working dimensions, more than "
                     "the %d supported", fn, 2 * d, ND_MAXDIMS);
  int64_t r[ND_MAXDIMS], s[ND_MAXDIMS], st_[ND_MAXDIMS];
  for (int i = 0; i < d; i++) {
    int ri = i - (d - nreps), si = i - (d - a->ndim);
    r[i] = ri >= 0 ? reps[ri] : 1;
    if (r[i] < 0) return nd__error(ND_ERR_VALUE, "%s: reps[%d] = %lld is negative", fn, ri, (long long)r[i]);
    s[i] = si >= 0 ? a->shape[si] : 1;
    st_[i] = si >= 0 ? a->strides[si] : 0;
  }
  /* Output viewed as (r0, s0, r1, s1, ...), the input broadcast along each r axis. */
  int64_t wshape[ND_MAXDIMS], sstr[ND_MAXDIMS], fshape[ND_MAXDIMS];
  for (int i = 0; i < d; i++) {
    wshape[2 * i] = r[i];
    wshape[2 * i + 1] = s[i];
    sstr[2 * i] = 0;
    sstr[2 * i + 1] = st_[i];
    if (__builtin_mul_overflow(r[i], s[i], &fshape[i]))
      return nd__error(ND_ERR_OVERFLOW, "%s: tiled length of axis %d overflows", fn, i);
  }
  nd_array *res, *wide, *src;
  ND_TRY(nd__array_alloc(fn, d, fshape, a->dtype, 'C', &res));
  int64_t wstr[ND_MAXDIMS];
  nd__strides_c(2 * d, wshape, (int64_t)nd_dtype_itemsize(a->dtype), wstr);
  nd_status st = nd__array_view(fn, res, 2 * d, wshape, wstr, res->offset, 1, &wide);
  if (st == ND_OK) {
    st = nd__array_view(fn, a, 2 * d, wshape, sstr, a->offset, 0, &src);
    if (st == ND_OK) {
      st = nd__assign(fn, wide, src);
      nd_array_release(src);
    }
    nd_array_release(wide);
  }
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *out = res;
  return ND_OK;
}

nd_status nd_repeat(const nd_array *a, int64_t repeats, int64_t axis, nd_array **out) {
  const char *fn = "nd_repeat";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (repeats < 0) return nd__error(ND_ERR_VALUE, "%s: repeats may not contain negative values (got %lld)", fn, (long long)repeats);
  if (axis == ND_AXIS_NONE) {
    nd_array *flat;
    ND_TRY(nd_array_ravel(a, &flat));
    nd_status st = nd_repeat(flat, repeats, 0, out);
    nd_array_release(flat);
    return st;
  }
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  if (a->ndim + 1 > ND_MAXDIMS)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: needs one more working dimension than the %d supported", fn, ND_MAXDIMS);
  int64_t fshape[ND_MAXDIMS], wshape[ND_MAXDIMS], sstr[ND_MAXDIMS];
  for (int i = 0, j = 0; i < a->ndim; i++) {
    fshape[i] = a->shape[i];
    wshape[j] = a->shape[i];
    sstr[j++] = a->strides[i];
    if (i == ax) {
      if (__builtin_mul_overflow(a->shape[i], repeats, &fshape[i]))
        return nd__error(ND_ERR_OVERFLOW, "%s: repeated length overflows", fn);
      wshape[j] = repeats;
      sstr[j++] = 0;
    }
  }
  nd_array *res, *wide, *src;
  ND_TRY(nd__array_alloc(fn, a->ndim, fshape, a->dtype, 'C', &res));
  int64_t wstr[ND_MAXDIMS];
  nd__strides_c(a->ndim + 1, wshape, (int64_t)nd_dtype_itemsize(a->dtype), wstr);
  nd_status st = nd__array_view(fn, res, a->ndim + 1, wshape, wstr, res->offset, 1, &wide);
  if (st == ND_OK) {
    st = nd__array_view(fn, a, a->ndim + 1, wshape, sstr, a->offset, 0, &src);
    if (st == ND_OK) {
      st = nd__assign(fn, wide, src);
      nd_array_release(src);
    }
    nd_array_release(wide);
  }
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *out = res;
  return ND_OK;
}
