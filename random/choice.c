/* choice, permutation and shuffle.
 *
 * Permutations sort random keys (random/perm.cu); everything that moves slices of an array
 * works on a C-ordered copy with the permuted axis first, where each slice is one contiguous
 * row, and gathers whole rows. Scratch memory (keys, indices, CUB's temporary storage) comes
 * from the pool on the current stream and is released in stream order as soon as the work is
 * enqueued, so nothing here blocks except reading choice's host probability vector. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "random/random_internal.h"
#include "src/api_scope.h"

/* A fresh pool buffer on s for scratch use (nbytes > 0). */
static nd_status nd__scratch(const char *fn, nd_stream *s, int64_t nbytes, nd__buffer **out) {
  return nd__buffer_alloc(fn, s->device, s, nbytes, out);
}

/* n >= 1 indices 0..n-1 in the order of random keys (with weights: Efraimidis-Spirakis keys,
 * see perm.cu), as a 1-d int64 array. weights is a device float64 array of n entries or NULL. */
static nd_status nd__sorted_indices(const char *fn, nd_generator *g, int64_t n,
                                    const nd_array *weights, nd_array **result) {
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, weights, &s));
  nd__buffer *keys_in = NULL, *keys_out = NULL, *vals_in = NULL, *temp = NULL;
  nd_array *vals = NULL;
  size_t temp_bytes = 0;
  nd_status st = nd__array_alloc(fn, 1, &n, ND_INT64, 'C', &vals);
  if (st == ND_OK) st = nd__scratch(fn, s, n * 8, &keys_in);
  if (st == ND_OK) st = nd__scratch(fn, s, n * 8, &keys_out);
  if (st == ND_OK) st = nd__scratch(fn, s, n * 8, &vals_in);
  if (st == ND_OK) {
    st = nd_kr_sort_pairs(NULL, &temp_bytes, keys_in->ptr, keys_out->ptr, vals_in->ptr,
                          vals->buf->ptr, n, s->cu);
    if (st != ND_OK) nd__error_context(st, fn);
  }
  if (st == ND_OK) st = nd__scratch(fn, s, (int64_t)(temp_bytes > 0 ? temp_bytes : 1), &temp);
  if (st == ND_OK) {
    nd__sync sync;
    nd__sync_init(&sync, s);
    nd__buffer *bufs[5] = {keys_in, keys_out, vals_in, temp, vals->buf};
    for (int i = 0; i < 5 && st == ND_OK; i++) st = nd__sync_add(&sync, &bufs[i]->hz, ND__WRITE);
    if (st == ND_OK && weights != NULL) st = nd__sync_add(&sync, &weights->buf->hz, ND__READ);
    nd_krng rng;
    if (st == ND_OK) st = nd__generator_begin(fn, g, &sync, &rng);
    if (st == ND_OK) {
      const double *w = weights != NULL ? (const double *)((char *)weights->buf->ptr + weights->offset) : NULL;
      nd_status ls = nd_kr_keys(&rng, keys_in->ptr, vals_in->ptr, n, w, s->cu);
      if (ls == ND_OK)
        ls = nd_kr_sort_pairs(temp->ptr, &temp_bytes, keys_in->ptr, keys_out->ptr, vals_in->ptr,
                              vals->buf->ptr, n, s->cu);
      st = nd__generator_end(fn, g, &sync, nd_kr_blocks(n, 2), ls);
    }
  }
  nd__buffer *all[4] = {keys_in, keys_out, vals_in, temp};
  for (int i = 0; i < 4; i++)
    if (all[i] != NULL) nd__buffer_release(all[i]);
  if (st != ND_OK) {
    nd_array_release(vals);
    return st;
  }
  *result = vals;
  return ND_OK;
}

/* dst row r = src row idx[r]: dst and src C-contiguous, idx a contiguous int64 array of nrows
 * entries, rows of rowbytes bytes. */
static nd_status nd__gather(const char *fn, nd_array *dst, const nd_array *src, const nd_array *idx,
                            int64_t nrows, int64_t rowbytes) {
  if (nrows == 0 || rowbytes == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &src->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &idx->buf->hz, ND__READ));
  ND_TRY(nd__sync_add(&sync, &dst->buf->hz, ND__WRITE));
  ND_TRY(nd__sync_begin(&sync));
  nd_status st = nd_kr_gather_rows((char *)dst->buf->ptr + dst->offset,
                                   (const char *)src->buf->ptr + src->offset,
                                   (const int64_t *)((char *)idx->buf->ptr + idx->offset), nrows,
                                   rowbytes, s->cu);
  if (st != ND_OK) return nd__error_context(st, fn);
  return nd__sync_end(&sync);
}

/* ---- choice ------------------------------------------------------------------------------------ */

/* The checks of choice that need no device, in NumPy's order. */
static nd_status nd__choice_check(const char *fn, int64_t n, int64_t k, int replace, const double *p,
                                  int64_t *nonzero, int64_t *last) {
  if (n < 0)
    return nd__error(ND_ERR_VALUE, "%s: the population size must be >= 0 (got %" PRId64 ")", fn, n);
  if (n == 0 && k > 0)
    return nd__error(ND_ERR_VALUE, "%s: a cannot be empty unless no samples are taken (population "
                     "0, %" PRId64 " samples)", fn, k);
  if (p != NULL && n > 0) ND_TRY(nd__random_check_p(fn, p, n, NULL, nonzero, last));
  if (!replace && k > n)
    return nd__error(ND_ERR_VALUE, "%s: cannot take a larger sample than population when replace "
                     "is false (%" PRId64 " samples, population %" PRId64 ")", fn, k, n);
  if (!replace && p != NULL && k > *nonzero)
    return nd__error(ND_ERR_VALUE, "%s: fewer non-zero entries in p than size (%" PRId64 " non-zero "
                     "entries, %" PRId64 " samples)", fn, *nonzero, k);
  return ND_OK;
}

/* Writes k = r's size indices into the fresh C-ordered int64 array r. */
static nd_status nd__choice_fill(const char *fn, nd_generator *g, int64_t n, int replace,
                                 const double *p, int64_t last, nd_array *r) {
  const int64_t k = r->size;
  if (k == 0) return ND_OK;
  if (replace && p == NULL) {
    nd_krparams kp;
    ND_TRY(nd__random_int_params(fn, nd_scalar_int(0), nd_scalar_int(n), 0, ND_INT64, k, &kp));
    return nd__random_run(fn, g, &kp, r);
  }
  if (replace) {
    /* Inversion of the cumulative distribution, uploaded once per call. */
    double *cdf = malloc((size_t)n * sizeof *cdf);
    if (cdf == NULL)
      return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %" PRId64 " probabilities", fn, n);
    nd_status st = nd__random_check_p(fn, p, n, cdf, NULL, NULL);
    nd_array *dcdf = NULL;
    if (st == ND_OK) st = nd_array_from_host(cdf, (size_t)n * sizeof *cdf, 1, &n, ND_FLOAT64, &dcdf);
    free(cdf);
    if (st != ND_OK) return nd__error_context(st, fn);
    nd_stream *s;
    st = nd__array_stream(fn, r, &s);
    if (st == ND_OK) {
      nd__sync sync;
      nd__sync_init(&sync, s);
      st = nd__sync_add(&sync, &dcdf->buf->hz, ND__READ);
      if (st == ND_OK) st = nd__sync_add(&sync, &r->buf->hz, ND__WRITE);
      nd_krng rng;
      if (st == ND_OK) st = nd__generator_begin(fn, g, &sync, &rng);
      if (st == ND_OK) {
        nd_status ls = nd_kr_choice_cdf(&rng, (const double *)dcdf->buf->ptr, last,
                                        (int64_t *)r->buf->ptr, k, s->cu);
        st = nd__generator_end(fn, g, &sync, nd_kr_blocks(k, 2), ls);
      }
    }
    nd_array_release(dcdf);
    return st;
  }
  /* Without replacement: the first k of a (weighted) random order. */
  nd_array *w = NULL, *order = NULL, *head = NULL;
  nd_status st = ND_OK;
  if (p != NULL) {
    st = nd_array_from_host(p, (size_t)n * sizeof *p, 1, &n, ND_FLOAT64, &w);
    if (st != ND_OK) return nd__error_context(st, fn);
  }
  st = nd__sorted_indices(fn, g, n, w, &order);
  if (st == ND_OK) st = nd__array_new(fn, order->buf, ND_INT64, r->ndim, r->shape, r->strides, 0, &head);
  if (st == ND_OK) st = nd__assign(fn, r, head);
  nd_array_release(head);
  nd_array_release(order);
  nd_array_release(w);
  return st;
}

nd_status nd_random_choice(nd_generator *gen, int64_t n, int ndim, const int64_t *shape,
                           int replace, const double *p, nd_array **result) {
  const char *fn = "nd_random_choice";
  ND_CHECK_NULL(fn, result);
  int64_t k, nonzero = 0, last = -1;
  ND_TRY(nd__shape_count(fn, ndim, shape, &k));
  ND_TRY(nd__choice_check(fn, n, k, replace, p, &nonzero, &last));
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  nd_array *r = NULL;
  ND_TRY(nd__array_alloc(fn, ndim, shape, ND_INT64, 'C', &r));
  nd_status st = nd__choice_fill(fn, g, n, replace, p, last, r);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *result = r;
  return ND_OK;
}

nd_status nd_random_choice_array(nd_generator *gen, const nd_array *a, int ndim,
                                 const int64_t *shape, int replace, const double *p,
                                 nd_array **result) {
  const char *fn = "nd_random_choice_array";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  if (a->ndim == 0)
    return nd__error(ND_ERR_SHAPE, "%s: argument 'a' must be at least 1-dimensional (got a 0-d "
                     "array)", fn);
  int64_t k, nonzero = 0, last = -1;
  ND_TRY(nd__shape_count(fn, ndim, shape, &k));
  if (ndim + a->ndim - 1 > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the result would have %d dimensions, more than "
                     "%d", fn, ndim + a->ndim - 1, ND_MAXDIMS);
  const int64_t n = a->shape[0];
  ND_TRY(nd__choice_check(fn, n, k, replace, p, &nonzero, &last));
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  int64_t rshape[ND_MAXDIMS];
  for (int i = 0; i < ndim; i++) rshape[i] = shape[i];
  int64_t row = 1;
  for (int i = 1; i < a->ndim; i++) {
    rshape[ndim + i - 1] = a->shape[i];
    row *= a->shape[i];
  }
  nd_array *r = NULL, *idx = NULL, *src = NULL;
  nd_status st = nd__array_alloc(fn, ndim + a->ndim - 1, rshape, a->dtype, 'C', &r);
  if (st == ND_OK) st = nd__array_alloc(fn, ndim, shape, ND_INT64, 'C', &idx);
  if (st == ND_OK) st = nd__choice_fill(fn, g, n, replace, p, last, idx);
  if (st == ND_OK && r->size > 0) st = nd_array_ascontiguous(a, ND_ORDER_C, &src);
  if (st == ND_OK && r->size > 0)
    st = nd__gather(fn, r, src, idx, k, row * (int64_t)nd_dtype_itemsize(a->dtype));
  nd_array_release(src);
  nd_array_release(idx);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *result = r;
  return ND_OK;
}

/* ---- permutations ------------------------------------------------------------------------------- */

nd_status nd_random_permutation(nd_generator *gen, int64_t n, nd_array **result) {
  const char *fn = "nd_random_permutation";
  ND_CHECK_NULL(fn, result);
  if (n < 0)
    return nd__error(ND_ERR_VALUE, "%s: argument 'n' must be >= 0 (got %" PRId64 ")", fn, n);
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  if (n == 0) return nd__array_alloc(fn, 1, &n, ND_INT64, 'C', result);
  return nd__sorted_indices(fn, g, n, NULL, result);
}

/* The slices of a along axis, permuted, as a fresh C-ordered array with that axis first. */
static nd_status nd__permuted_rows(const char *fn, nd_generator *g, const nd_array *a, int ax,
                                   nd_array **out) {
  nd_array *moved = NULL, *src = NULL, *idx = NULL, *dst = NULL;
  const int64_t n = a->shape[ax];
  nd_status st = nd_array_moveaxis(a, ax, 0, &moved);
  if (st == ND_OK) st = nd_array_ascontiguous(moved, ND_ORDER_C, &src);
  if (st == ND_OK) st = nd__sorted_indices(fn, g, n, NULL, &idx);
  if (st == ND_OK) st = nd__array_alloc(fn, moved->ndim, moved->shape, a->dtype, 'C', &dst);
  if (st == ND_OK)
    st = nd__gather(fn, dst, src, idx, n, (a->size / n) * (int64_t)nd_dtype_itemsize(a->dtype));
  nd_array_release(moved);
  nd_array_release(src);
  nd_array_release(idx);
  if (st != ND_OK) {
    nd_array_release(dst);
    return st;
  }
  *out = dst;
  return ND_OK;
}

nd_status nd_random_permutation_array(nd_generator *gen, const nd_array *a, int64_t axis,
                                      nd_array **result) {
  const char *fn = "nd_random_permutation_array";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  if (a->ndim == 0)
    return nd__error(ND_ERR_SHAPE, "%s: argument 'a' must be at least 1-dimensional (got a 0-d "
                     "array)", fn);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  if (a->size == 0) return nd_array_copy(a, ND_ORDER_C, result);
  nd_array *rows, *back = NULL;
  ND_TRY(nd__permuted_rows(fn, g, a, ax, &rows));
  if (ax == 0) {
    *result = rows;
    return ND_OK;
  }
  nd_status st = nd_array_moveaxis(rows, 0, ax, &back);
  if (st == ND_OK) st = nd_array_copy(back, ND_ORDER_C, result);
  nd_array_release(back);
  nd_array_release(rows);
  return st;
}

nd_status nd_random_shuffle(nd_generator *gen, nd_array *a, int64_t axis) {
  const char *fn = "nd_random_shuffle";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  if (a->ndim == 0)
    return nd__error(ND_ERR_SHAPE, "%s: argument 'a' must be at least 1-dimensional (got a 0-d "
                     "array)", fn);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  if (!a->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: argument 'a' is read-only (a broadcast or diagonal "
                     "view, or marked so)", fn);
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  if (a->size == 0) return ND_OK;
  nd_array *rows, *view = NULL;
  ND_TRY(nd__permuted_rows(fn, g, a, ax, &rows));
  nd_status st = nd_array_moveaxis(a, ax, 0, &view);
  if (st == ND_OK) st = nd__assign(fn, view, rows);
  nd_array_release(view);
  nd_array_release(rows);
  return st;
}
