/* Array creation: empty/zeros/ones/full and their _like forms, sequences, eye and triangles. */
#include <math.h>
#include <string.h>

#include "kernels/copy.h"
#include "src/api_scope.h"
#include "src/array.h"

static nd_dtype nd__default_dtype(nd_dtype dtype, nd_dtype fallback) {
  return dtype == ND_DTYPE_DEFAULT ? fallback : dtype;
}

/* The dtype NumPy's full gives a value of its own kind (weak kinds become the defaults). */
static nd_dtype nd__value_dtype(nd_scalar v) {
  switch (v.dtype) {
    case ND_PYINT: return ND_INT64;
    case ND_PYFLOAT: return ND_FLOAT64;
    case ND_PYCOMPLEX: return ND_COMPLEX128;
    default: return v.dtype;
  }
}

nd_status nd_empty_order(int ndim, const int64_t *shape, nd_dtype dtype, nd_order order,
                         nd_array **out) {
  const char *fn = "nd_empty_order";
  ND_CHECK_NULL(fn, out);
  if (order != ND_ORDER_C && order != ND_ORDER_F)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: order must be 'C' or 'F' (got %d)", fn, (int)order);
  return nd__array_alloc(fn, ndim, shape, nd__default_dtype(dtype, ND_FLOAT64), (char)order, out);
}

nd_status nd_empty(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out) {
  return nd__array_alloc("nd_empty", ndim, shape, nd__default_dtype(dtype, ND_FLOAT64), 'C', out);
}

static nd_status nd__filled(const char *fn, nd_array *a, nd_scalar v, nd_array **out) {
  /* full is copyto(empty, value, casting='unsafe') in NumPy: a Python complex into a real
   * array drops its imaginary part there (fill refuses it), so it goes in as an array scalar. */
  if (v.dtype == ND_PYCOMPLEX) v.dtype = ND_COMPLEX128;
  nd_status st = nd_array_fill(a, v);
  if (st != ND_OK) {
    nd_array_release(a);
    return nd__error_context(st, fn);
  }
  *out = a;
  return ND_OK;
}

nd_status nd_full(int ndim, const int64_t *shape, nd_scalar value, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_full";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, out);
  if (!nd_dtype_is_valid(value.dtype) && !nd_dtype_is_weak(value.dtype))
    return nd__error(ND_ERR_DTYPE, "%s: value has an invalid dtype (%d)", fn, (int)value.dtype);
  const nd_dtype dt = nd__default_dtype(dtype, nd__value_dtype(value));
  if (nd_dtype_is_valid(dt)) ND_TRY(nd__fill_value_check(fn, value, dt, 1));
  nd_array *a;
  ND_TRY(nd__array_alloc(fn, ndim, shape, dt, 'C', &a));
  return nd__filled(fn, a, value, out);
}

nd_status nd_zeros(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out) {
  ND__API_SCOPE("nd_zeros");
  ND_CHECK_NULL("nd_zeros", out);
  nd_array *a;
  ND_TRY(nd__array_alloc("nd_zeros", ndim, shape, nd__default_dtype(dtype, ND_FLOAT64), 'C', &a));
  return nd__filled("nd_zeros", a, nd_scalar_int(0), out);
}

nd_status nd_ones(int ndim, const int64_t *shape, nd_dtype dtype, nd_array **out) {
  ND__API_SCOPE("nd_ones");
  ND_CHECK_NULL("nd_ones", out);
  nd_array *a;
  ND_TRY(nd__array_alloc("nd_ones", ndim, shape, nd__default_dtype(dtype, ND_FLOAT64), 'C', &a));
  return nd__filled("nd_ones", a, nd_scalar_int(1), out);
}

/* The _like forms share these two, so that each error names the function the caller used. */
static nd_status nd__empty_like(const char *fn, const nd_array *proto, nd_dtype dtype, nd_array **out) {
  ND_CHECK_NULL(fn, proto);
  ND_CHECK_NULL(fn, out);
  nd_dtype dt = nd__default_dtype(dtype, proto->dtype);
  ND_TRY(nd__check_dtype(fn, "dtype", dt));
  return nd__array_alloc_like(fn, proto, dt, out);
}

static nd_status nd__full_like(const char *fn, const nd_array *proto, nd_scalar value, nd_dtype dtype,
                               nd_array **out) {
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, proto);
  ND_CHECK_NULL(fn, out);
  const nd_dtype dt = nd__default_dtype(dtype, proto->dtype);
  if (nd_dtype_is_valid(dt)) ND_TRY(nd__fill_value_check(fn, value, dt, 1));
  nd_array *a;
  ND_TRY(nd__empty_like(fn, proto, dtype, &a));
  return nd__filled(fn, a, value, out);
}

nd_status nd_empty_like(const nd_array *proto, nd_dtype dtype, nd_array **out) {
  return nd__empty_like("nd_empty_like", proto, dtype, out);
}

nd_status nd_full_like(const nd_array *proto, nd_scalar value, nd_dtype dtype, nd_array **out) {
  return nd__full_like("nd_full_like", proto, value, dtype, out);
}

nd_status nd_zeros_like(const nd_array *proto, nd_dtype dtype, nd_array **out) {
  return nd__full_like("nd_zeros_like", proto, nd_scalar_int(0), dtype, out);
}

nd_status nd_ones_like(const nd_array *proto, nd_dtype dtype, nd_array **out) {
  return nd__full_like("nd_ones_like", proto, nd_scalar_int(1), dtype, out);
}

/* Runs a sequence kernel into a fresh 1-d array of n elements. */
static nd_status nd__sequence(const char *fn, int64_t n, nd_dtype dtype, int is_int, int64_t istart,
                              int64_t istep, double start, double step, int floor_int, int set_last,
                              double last, nd_array **out) {
  nd_array *a;
  ND_TRY(nd__array_alloc(fn, 1, &n, dtype, 'C', &a));
  nd_stream *s;
  nd_status st = nd__array_stream(fn, a, &s);
  nd__sync sync;
  nd__sync_init(&sync, s);
  if (st == ND_OK) st = nd__sync_add(&sync, &a->buf->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK)
    st = is_int ? nd_k_sequence_int((char *)a->buf->ptr, dtype, n, istart, istep, s->cu)
                : nd_k_sequence((char *)a->buf->ptr, dtype, n, start, step, floor_int, set_last, last, s->cu);
  if (st == ND_OK) st = nd__sync_end(&sync);
  if (st != ND_OK) {
    nd_array_release(a);
    return nd__error_context(st, fn);
  }
  *out = a;
  return ND_OK;
}

nd_status nd_arange(double start, double stop, double step, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_arange";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, out);
  dtype = nd__default_dtype(dtype, ND_FLOAT64);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  if (step == 0) return nd__error(ND_ERR_VALUE, "%s: step must not be zero", fn);
  if (!isfinite(start) || !isfinite(stop) || !isfinite(step))
    return nd__error(ND_ERR_VALUE, "%s: arange requires finite start, stop and step (got %g, %g, %g)",
                     fn, start, stop, step);
  double len = ceil((stop - start) / step);
  if (!(len > 0)) len = 0;
  if (len > 9.2e18) return nd__error(ND_ERR_OVERFLOW, "%s: length %g is too large", fn, len);
  /* NumPy fills an arange from its first two elements, start and start + step converted to
   * the dtype: element i is v0 + i * (v1 - v0) in the dtype's arithmetic. For integer dtypes
   * that is an exact integer sequence (np.arange(0.5, 5, 1.5, dtype=int) is 0, 2, 4, not
   * 0, 2, 3); for float64 the step is (start + step) - start, which can differ from step in
   * the last bits (np.arange(1, 2, 0.1)[-1] is 1.9000000000000008), and the second element
   * is start + step itself. float32/float16/complex64 are computed in double and rounded
   * once, which can differ by an ulp from NumPy's arithmetic in the narrow type. */
  char kind = nd_dtype_kind(dtype);
  if (kind == 'i' || kind == 'u' || kind == 'b') {
    nd_kscalar b0, b1;
    int64_t v0, v1;
    nd__scalar_to_bytes(nd_scalar_float(start), ND_INT64, &b0);
    nd__scalar_to_bytes(nd_scalar_float(start + step), ND_INT64, &b1);
    memcpy(&v0, b0.bytes, sizeof v0);
    memcpy(&v1, b1.bytes, sizeof v1);
    return nd__sequence(fn, (int64_t)len, dtype, 1, v0, (int64_t)((uint64_t)v1 - (uint64_t)v0), 0, 0,
                        0, 0, 0, out);
  }
  double delta = (start + step) - start;
  nd_array *a;
  ND_TRY(nd__sequence(fn, (int64_t)len, dtype, 0, 0, 0, start, delta, 0, 0, 0, &a));
  if (len >= 2 && start + delta != start + step) {
    nd_array *second;
    nd_status st = nd_array_index(a, 0, 1, &second);
    if (st == ND_OK) {
      st = nd_array_fill(second, nd_scalar_float(start + step));
      nd_array_release(second);
    }
    if (st != ND_OK) {
      nd_array_release(a);
      return nd__error_context(st, fn);
    }
  }
  *out = a;
  return ND_OK;
}

nd_status nd_arange_int(int64_t start, int64_t stop, int64_t step, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_arange_int";
  ND_CHECK_NULL(fn, out);
  dtype = nd__default_dtype(dtype, ND_INT64);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  if (step == 0) return nd__error(ND_ERR_VALUE, "%s: step must not be zero", fn);
  /* ceil((stop - start) / step) in exact arithmetic, without overflow. */
  __int128 span = (__int128)stop - start;
  __int128 len = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
  if (len < 0) len = 0;
  if (len > INT64_MAX) return nd__error(ND_ERR_OVERFLOW, "%s: length is too large", fn);
  return nd__sequence(fn, (int64_t)len, dtype, 1, start, step, 0, 0, 0, 0, 0, out);
}

nd_status nd_linspace(double start, double stop, int64_t num, int endpoint, nd_dtype dtype,
                      nd_array **out) {
  const char *fn = "nd_linspace";
  ND_CHECK_NULL(fn, out);
  dtype = nd__default_dtype(dtype, ND_FLOAT64);
  ND_TRY(nd__check_dtype(fn, "dtype", dtype));
  if (num < 0) return nd__error(ND_ERR_VALUE, "%s: number of samples, %lld, must be non-negative", fn, (long long)num);
  int64_t div = endpoint ? num - 1 : num;
  double delta = stop - start;
  double step = div > 0 ? delta / (double)div : NAN;
  if (div == 0) step = 0; /* a single sample: start */
  int is_int = nd_dtype_kind(dtype) == 'i' || nd_dtype_kind(dtype) == 'u';
  return nd__sequence(fn, num, dtype, 0, 0, 0, start, step, is_int, endpoint && num > 1, stop, out);
}

nd_status nd_eye(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_eye";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, out);
  if (m < 0) m = n;
  if (n < 0) return nd__error(ND_ERR_VALUE, "%s: negative dimensions are not allowed (N = %lld)", fn, (long long)n);
  int64_t shape[2] = {n, m};
  nd_array *a, *d;
  nd_status st = nd_zeros(2, shape, nd__default_dtype(dtype, ND_FLOAT64), &a);
  if (st != ND_OK) return nd__error_context(st, fn);
  st = nd_array_diagonal(a, k, 0, 1, &d);
  if (st == ND_OK) {
    d->writeable = 1; /* our own fresh array: the diagonal is safe to write */
    st = nd_array_fill(d, nd_scalar_int(1));
    nd_array_release(d);
  }
  if (st != ND_OK) {
    nd_array_release(a);
    return nd__error_context(st, fn);
  }
  *out = a;
  return ND_OK;
}

nd_status nd_identity(int64_t n, nd_dtype dtype, nd_array **out) {
  ND__API_SCOPE("nd_identity");
  return nd_eye(n, n, 0, dtype, out);
}

static nd_status nd__mask(const char *fn, nd_array *a, int lower, int64_t k) {
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  if (a->size == 0) return ND_OK;
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &a->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  /* No collapsing: the kernel needs the last two axes as they are. */
  nd_kloop loop;
  nd_koperand op;
  loop.ndim = a->ndim;
  loop.count = a->size;
  memcpy(loop.shape, a->shape, (size_t)a->ndim * sizeof(int64_t));
  op.data = (char *)a->buf->ptr + a->offset;
  op.dtype = a->dtype;
  memcpy(op.strides, a->strides, (size_t)a->ndim * sizeof(int64_t));
  ND_TRY(nd_k_tri_mask(&loop, &op, lower, k, s->cu));
  return nd__sync_end(&sync);
}

static nd_status nd__tri_copy(const char *fn, const nd_array *a, int64_t k, int lower, nd_array **out) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, out);
  if (a->ndim < 2)
    return nd__error(ND_ERR_SHAPE, "%s: input must be at least 2-d (got %d dimensions)", fn, a->ndim);
  nd_array *c;
  ND_TRY(nd_array_copy(a, ND_ORDER_C, &c));
  nd_status st = nd__mask(fn, c, lower, k);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

nd_status nd_tril(const nd_array *a, int64_t k, nd_array **out) { return nd__tri_copy("nd_tril", a, k, 1, out); }
nd_status nd_triu(const nd_array *a, int64_t k, nd_array **out) { return nd__tri_copy("nd_triu", a, k, 0, out); }

nd_status nd_tri(int64_t n, int64_t m, int64_t k, nd_dtype dtype, nd_array **out) {
  const char *fn = "nd_tri";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, out);
  if (m < 0) m = n;
  if (n < 0) return nd__error(ND_ERR_VALUE, "%s: negative dimensions are not allowed (N = %lld)", fn, (long long)n);
  int64_t shape[2] = {n, m};
  nd_array *a;
  nd_status st = nd_ones(2, shape, nd__default_dtype(dtype, ND_FLOAT64), &a);
  if (st != ND_OK) return nd__error_context(st, fn);
  st = nd__mask(fn, a, 1, k);
  if (st != ND_OK) {
    nd_array_release(a);
    return st;
  }
  *out = a;
  return ND_OK;
}

nd_status nd_diag(const nd_array *v, int64_t k, nd_array **out) {
  const char *fn = "nd_diag";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, v);
  ND_CHECK_NULL(fn, out);
  if (v->ndim == 2) {
    nd_array *d;
    ND_TRY(nd_array_diagonal(v, k, 0, 1, &d));
    nd_status st = nd_array_copy(d, ND_ORDER_C, out);
    nd_array_release(d);
    return st;
  }
  if (v->ndim != 1) return nd__error(ND_ERR_SHAPE, "%s: input must be 1- or 2-d (got %d dimensions)", fn, v->ndim);
  int64_t n = v->shape[0] + (k < 0 ? -k : k);
  int64_t shape[2] = {n, n};
  nd_array *a, *d;
  ND_TRY(nd_zeros(2, shape, v->dtype, &a));
  nd_status st = nd_array_diagonal(a, k, 0, 1, &d);
  if (st == ND_OK) {
    d->writeable = 1;
    st = nd__assign(fn, d, v);
    nd_array_release(d);
  }
  if (st != ND_OK) {
    nd_array_release(a);
    return st;
  }
  *out = a;
  return ND_OK;
}
