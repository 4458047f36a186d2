/* Searching and counting: searchsorted, nonzero (and where with one argument, argwhere),
 * isin, bincount, histogram. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/api_scope.h"
#include "reduce/scan.h"
#include "sort/sort.h"
#include "reduce/reduce_internal.h"
#include "sort/sort_internal.h"

static nd_status nd__same_device(const char *fn, const nd_array *a, const nd_array *b) {
  if (b != NULL && a->buf->device != b->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: operands live on devices %d and %d", fn,
                     a->buf->device, b->buf->device);
  return ND_OK;
}

/* ---- searchsorted ----------------------------------------------------------------------------- */

nd_status nd_searchsorted(const nd_array *a, const nd_array *v, int right, nd_array **result) {
  const char *fn = "nd_searchsorted";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, v);
  ND_CHECK_NULL(fn, result);
  if (a->ndim != 1)
    return nd__error(ND_ERR_SHAPE, "%s: a must be 1-dimensional (got ndim %d)", fn, a->ndim);
  ND_TRY(nd__same_device(fn, a, v));
  nd_array *res;
  ND_TRY(nd__array_alloc(fn, v->ndim, v->shape, ND_INT64, 'C', &res));
  nd_stream *s;
  nd_status st = nd__array_stream(fn, v, &s);
  if (st == ND_OK && res->size > 0) {
    nd__temps t = {fn, s, {NULL}, 0};
    nd__sync sync;
    const nd_array *reads[2] = {a, v};
    st = nd__phase_begin(&sync, &t, 2, reads, 1, &res);
    if (st == ND_OK) {
      nd_kloop loop;
      nd_koperand ops[2];
      const nd_array *arr[2] = {res, v};
      nd__array_loop(v->ndim, v->shape, 2, arr, &loop, ops);
      st = nd_k_searchsorted((const char *)a->buf->ptr + a->offset, (int)a->dtype, a->strides[0],
                             a->shape[0], &loop, &ops[0], &ops[1], right != 0, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
  }
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *result = res;
  return ND_OK;
}

/* ---- nonzero ---------------------------------------------------------------------------------- */

/* The (ndim, count) int64 coordinates of a's nonzero elements (blocks for the count). */
static nd_status nd__nonzero_coords(const char *fn, const nd_array *a, nd_array **coords) {
  const int64_t N = a->size;
  int64_t U = 0;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd_array *scan = NULL, *last = NULL, *res = NULL;
  nd_status st = ND_OK;
  if (N > 0) {
    nd__temps t = {fn, s, {NULL}, 0};
    nd__sync sync;
    size_t bytes = 0;
    void *temp = NULL;
    st = nd__array_alloc(fn, 1, &N, ND_UINT64, 'C', &scan);
    if (st == ND_OK) st = nd_k_scan(NULL, NULL, ND_UINT64, 0, 1, N, NULL, &bytes, s->cu);
    if (st == ND_OK) st = nd__temp(&t, (int64_t)bytes, &temp);
    const nd_array *reads[1] = {a};
    if (st == ND_OK) st = nd__phase_begin(&sync, &t, 1, reads, 1, &scan);
    if (st == ND_OK) {
      nd_kloop loop;
      nd_koperand op;
      const nd_array *arr[1] = {a};
      nd__array_loop(a->ndim, a->shape, 1, arr, &loop, &op);
      uint64_t *f = (uint64_t *)scan->buf->ptr;
      st = nd_k_nonzero_flags(&loop, &op, f, s->cu);
      if (st == ND_OK) st = nd_k_scan(f, f, ND_UINT64, 0, 1, N, temp, &bytes, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
    nd__temps_release(&t);
    nd_scalar c;
    if (st == ND_OK) st = nd__array_view(fn, scan, 0, NULL, NULL, scan->offset + (N - 1) * 8, 0, &last);
    if (st == ND_OK) st = nd_array_item(last, &c);
    if (st == ND_OK) U = (int64_t)c.v.u;
  }
  int64_t shape[2] = {a->ndim, U};
  if (st == ND_OK) st = nd__array_alloc(fn, 2, shape, ND_INT64, 'C', &res);
  if (st == ND_OK && U > 0 && a->ndim > 0) {
    nd__temps t = {fn, s, {NULL}, 0};
    nd__sync sync;
    const nd_array *reads[1] = {scan};
    st = nd__phase_begin(&sync, &t, 1, reads, 1, &res);
    if (st == ND_OK) {
      st = nd_k_nonzero_scatter((const uint64_t *)scan->buf->ptr, N, a->ndim, a->shape,
                                (int64_t *)res->buf->ptr, U, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
  }
  nd_array_release(scan);
  nd_array_release(last);
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *coords = res;
  return ND_OK;
}

static nd_status nd__nonzero(const char *fn, const nd_array *a, nd_array **results, int capacity) {
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, results);
  if (a->ndim == 0)
    return nd__error(ND_ERR_VALUE, "%s: Calling nonzero on 0d arrays is not allowed. Use "
                     "np.atleast_1d(scalar).nonzero() instead.", fn);
  if (capacity < a->ndim)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: results has room for %d arrays, the input has "
                     "%d dimensions", fn, capacity, a->ndim);
  nd_array *coords;
  ND_TRY(nd__nonzero_coords(fn, a, &coords));
  nd_array *rows[ND_MAXDIMS];
  nd_status st = ND_OK;
  int made = 0;
  for (; made < a->ndim && st == ND_OK; made++)
    st = nd__array_view(fn, coords, 1, &coords->shape[1], &coords->strides[1],
                        coords->offset + made * coords->strides[0], 1, &rows[made]);
  if (st != ND_OK) made--;
  nd_array_release(coords);
  if (st != ND_OK) {
    for (int i = 0; i < made; i++) nd_array_release(rows[i]);
    return st;
  }
  for (int i = 0; i < a->ndim; i++) results[i] = rows[i];
  return ND_OK;
}

nd_status nd_nonzero(const nd_array *a, nd_array **results, int capacity) {
  return nd__nonzero("nd_nonzero", a, results, capacity);
}

nd_status nd_where_nonzero(const nd_array *condition, nd_array **results, int capacity) {
  return nd__nonzero("nd_where_nonzero", condition, results, capacity);
}

nd_status nd_argwhere(const nd_array *a, nd_array **result) {
  const char *fn = "nd_argwhere";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  nd_array *coords, *t = NULL;
  ND_TRY(nd__nonzero_coords(fn, a, &coords));
  nd_status st = nd_array_transpose(coords, 0, NULL, &t);
  nd_array_release(coords);
  if (st != ND_OK) return st;
  st = nd_array_copy(t, ND_ORDER_C, result);
  nd_array_release(t);
  return st;
}

/* ---- isin --------------------------------------------------------------------------------------- */

/* A new 1-d C-ordered copy of the complex array a, flattened and sorted in NumPy's complex
 * order (the order the isin search compares in). */
static nd_status nd__sorted_complex(const char *fn, const nd_array *a, nd_array **result) {
  nd_array *flat, *res = NULL;
  ND_TRY(nd_array_ravel(a, &flat));
  nd_status st = nd__array_alloc(fn, 1, &a->size, a->dtype, 'C', &res);
  if (st == ND_OK && a->size > 0) st = nd__assign(fn, res, flat);
  nd_stream *s = NULL;
  if (st == ND_OK && a->size > 0) st = nd__array_stream(fn, res, &s);
  if (st == ND_OK && a->size > 0) {
    nd__temps t = {fn, s, {NULL}, 0};
    nd__sync sync;
    size_t bytes = 0;
    void *temp = NULL, *keys = (char *)res->buf->ptr + res->offset;
    st = nd_k_sort_complex((int)a->dtype, NULL, a->size, NULL, &bytes, s->cu);
    if (st == ND_OK) st = nd__temp(&t, (int64_t)bytes, &temp);
    if (st == ND_OK) st = nd__phase_begin(&sync, &t, 0, NULL, 1, &res);
    if (st == ND_OK) {
      st = nd_k_sort_complex((int)a->dtype, keys, a->size, temp, &bytes, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
    nd__temps_release(&t);
  }
  nd_array_release(flat);
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *result = res;
  return ND_OK;
}

nd_status nd_isin(const nd_array *element, const nd_array *test_elements, int invert,
                  nd_array **result) {
  const char *fn = "nd_isin";
  ND_CHECK_NULL(fn, element);
  ND_CHECK_NULL(fn, test_elements);
  ND_CHECK_NULL(fn, result);
  ND_TRY(nd__same_device(fn, element, test_elements));
  nd_array *sorted, *res = NULL;
  /* Only the test set is sorted; the elements, of any dtype, are searched for in it. */
  if (nd_dtype_kind(test_elements->dtype) == 'c')
    ND_TRY(nd__sorted_complex(fn, test_elements, &sorted));
  else
    ND_TRY(nd__sorted_copy(fn, test_elements, ND_AXIS_NONE, 0, &sorted));
  nd_status st = nd__array_alloc(fn, element->ndim, element->shape, ND_BOOL, 'C', &res);
  nd_stream *s = NULL;
  if (st == ND_OK) st = nd__array_stream(fn, element, &s);
  if (st == ND_OK && res->size > 0) {
    nd__temps t = {fn, s, {NULL}, 0};
    nd__sync sync;
    const nd_array *reads[2] = {element, sorted};
    st = nd__phase_begin(&sync, &t, 2, reads, 1, &res);
    if (st == ND_OK) {
      nd_kloop loop;
      nd_koperand ops[2];
      const nd_array *arr[2] = {res, element};
      nd__array_loop(element->ndim, element->shape, 2, arr, &loop, ops);
      st = nd_k_isin(&loop, &ops[0], &ops[1], (const char *)sorted->buf->ptr + sorted->offset,
                     (int)sorted->dtype, sorted->size, invert != 0, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
  }
  nd_array_release(sorted);
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *result = res;
  return ND_OK;
}

/* ---- bincount and histogram ----------------------------------------------------------------- */

/* Counts (or weight sums into a float64 array) of x over a loop, either of x's values
 * (bincount) or of uniform bins against device edges (histogram). */
static nd_status nd__count_into(const char *fn, const nd_array *x, const nd_array *w,
                                const nd_array *edges, int64_t bins, int as_bincount,
                                nd_array *hist) {
  if (x->size == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, x, &s));
  nd__temps t = {fn, s, {NULL}, 0};
  nd__sync sync;
  const nd_array *reads[3] = {x, w, edges};
  ND_TRY(nd__phase_begin(&sync, &t, 3, reads, 1, &hist));
  nd_kloop loop;
  nd_koperand ops[2];
  const nd_array *arr[2] = {x, w};
  nd__array_loop(x->ndim, x->shape, w ? 2 : 1, arr, &loop, ops);
  nd_status st = nd_k_histogram(&loop, &ops[0], w ? &ops[1] : NULL,
                                edges ? (const char *)edges->buf->ptr + edges->offset : NULL,
                                edges ? (int)edges->dtype : ND_FLOAT64, bins, as_bincount,
                                (char *)hist->buf->ptr + hist->offset, s->cu);
  return nd__phase_end(&sync, fn, st);
}

static nd_status nd__min_max(const char *fn, const nd_array *a, nd_scalar *lo, nd_scalar *hi) {
  nd_array *m;
  ND_TRY(nd_amin(a, 0, NULL, 0, NULL, &m));
  nd_status st = nd_array_item(m, lo);
  nd_array_release(m);
  if (st != ND_OK) return nd__error_context(st, fn);
  ND_TRY(nd_amax(a, 0, NULL, 0, NULL, &m));
  st = nd_array_item(m, hi);
  nd_array_release(m);
  return st != ND_OK ? nd__error_context(st, fn) : ND_OK;
}

static double nd__scalar_real(nd_scalar v) {
  switch (nd_dtype_kind(v.dtype)) {
    case 'b': return v.v.b;
    case 'i': return (double)v.v.i;
    case 'u': return (double)v.v.u;
    case 'f': return v.v.f;
    default: return v.v.c[0];
  }
}

nd_status nd_bincount(const nd_array *x, const nd_array *weights, int64_t minlength,
                      nd_array **result) {
  const char *fn = "nd_bincount";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, x);
  ND_CHECK_NULL(fn, result);
  if (x->ndim != 1)
    return nd__error(ND_ERR_SHAPE, "%s: object too deep for desired array (x must be 1-d, got "
                     "ndim %d)", fn, x->ndim);
  /* NumPy (2.2.4 and later) casts x to intp safely, and forcibly when x is unsigned, so
   * uint64 is taken and a value of 2**63 or more counts as negative. */
  if (!nd_can_cast(x->dtype, ND_INT64, ND_CASTING_SAFE) && nd_dtype_kind(x->dtype) != 'u')
    return nd__error(ND_ERR_CASTING, "%s: Cannot cast array data from dtype('%s') to "
                     "dtype('int64') according to the rule 'safe'", fn, nd_dtype_name(x->dtype));
  if (minlength < 0) return nd__error(ND_ERR_VALUE, "%s: 'minlength' must not be negative", fn);
  /* An empty x gives int64 zeros before NumPy looks at the weights at all (its length,
   * dtype and, so, the float64 result). */
  if (x->size == 0) return nd_zeros(1, &minlength, ND_INT64, result);
  if (weights != NULL) {
    if (weights->ndim != 1 || weights->shape[0] != x->shape[0])
      return nd__error(ND_ERR_SHAPE, "%s: The weights and list don't have the same length.", fn);
    if (nd_dtype_kind(weights->dtype) == 'c')
      return nd__error(ND_ERR_DTYPE, "%s: complex weights cannot be cast to float64", fn);
    ND_TRY(nd__same_device(fn, x, weights));
  }
  int64_t len = minlength;
  if (x->size > 0) {
    nd_scalar lo, hi;
    ND_TRY(nd__min_max(fn, x, &lo, &hi));
    if (nd__scalar_real(lo) < 0 || (hi.dtype == ND_UINT64 && hi.v.u > (uint64_t)INT64_MAX))
      return nd__error(ND_ERR_VALUE, "%s: 'list' argument must have no negative elements", fn);
    int64_t top = hi.dtype == ND_BOOL ? hi.v.b : nd_dtype_kind(hi.dtype) == 'u' ? (int64_t)hi.v.u : hi.v.i;
    if (top + 1 > len) len = top + 1;
  }
  nd_array *res;
  ND_TRY(nd_zeros(1, &len, weights ? ND_FLOAT64 : ND_INT64, &res));
  nd_status st = nd__count_into(fn, x, weights, NULL, len, 1, res);
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *result = res;
  return ND_OK;
}

nd_status nd_histogram(const nd_array *a, int64_t bins, const double *range,
                       const nd_array *weights, nd_array **hist, nd_array **bin_edges) {
  const char *fn = "nd_histogram";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, hist);
  if (bins < 1)
    return nd__error(ND_ERR_VALUE, "%s: `bins` must be positive, when an integer (got %lld)", fn,
                     (long long)bins);
  if (nd_dtype_kind(a->dtype) == 'c')
    return nd__error(ND_ERR_DTYPE, "%s: complex data is not supported", fn);
  if (weights != NULL) {
    int same = weights->ndim == a->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = weights->shape[i] == a->shape[i];
    if (!same) return nd__error(ND_ERR_SHAPE, "%s: weights should have the same shape as a.", fn);
    if (nd_dtype_kind(weights->dtype) == 'c')
      return nd__error(ND_ERR_DTYPE, "%s: complex weights are not supported", fn);
    ND_TRY(nd__same_device(fn, a, weights));
  }
  double first, last;
  int auto_range = 0;
  if (range != NULL) {
    first = range[0];
    last = range[1];
    if (first > last)
      return nd__error(ND_ERR_VALUE, "%s: max must be larger than min in range parameter.", fn);
    if (!isfinite(first) || !isfinite(last))
      return nd__error(ND_ERR_VALUE, "%s: supplied range of [%g, %g] is not finite", fn, first, last);
  } else if (a->size == 0) {
    first = 0;
    last = 1;
  } else {
    nd_scalar lo, hi;
    ND_TRY(nd__min_max(fn, a, &lo, &hi));
    first = nd__scalar_real(lo);
    last = nd__scalar_real(hi);
    if (!isfinite(first) || !isfinite(last))
      return nd__error(ND_ERR_VALUE, "%s: autodetected range of [%g, %g] is not finite", fn, first, last);
    auto_range = 1;
  }
  double *e = malloc((size_t)(bins + 1) * sizeof(double));
  if (e == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld edges", fn, (long long)bins + 1);
  nd_dtype edt;
  nd_status st = nd__histogram_edges(fn, a->dtype, auto_range, first, last, bins, &edt, e);
  nd_array *edges64 = NULL, *edges = NULL, *acc = NULL, *res = NULL;
  const int64_t ne = bins + 1;
  if (st == ND_OK) st = nd_array_from_host(e, (size_t)ne * sizeof(double), 1, &ne, ND_FLOAT64, &edges64);
  free(e);
  if (st == ND_OK) st = nd_array_astype(edges64, edt, &edges); /* exact: values are of edt */
  if (st == ND_OK) st = nd_zeros(1, &bins, weights ? ND_FLOAT64 : ND_INT64, &acc);
  if (st == ND_OK) st = nd__count_into(fn, a, weights, edges, bins, 0, acc);
  if (st == ND_OK) {
    if (weights && weights->dtype != ND_FLOAT64) st = nd_array_astype(acc, weights->dtype, &res);
    else res = nd_array_retain(acc);
  }
  nd_array_release(edges64);
  nd_array_release(acc);
  if (st != ND_OK) {
    nd_array_release(edges);
    nd_array_release(res);
    return st;
  }
  *hist = res;
  if (bin_edges) *bin_edges = edges;
  else nd_array_release(edges);
  return ND_OK;
}
