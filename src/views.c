/* Views: new headers over the same buffer. No device work, no waits. Reshape falls back to a
 * copy when NumPy would. */
#include <string.h>

#include "src/api_scope.h"
#include "src/array.h"

#define ND__VIEW_ARGS(fn, a, out) \
  ND_CHECK_NULL(fn, a);           \
  ND_CHECK_NULL(fn, out)

nd_status nd_array_reshape(const nd_array *a, int ndim, const int64_t *shape, nd_array **out) {
  const char *fn = "nd_array_reshape";
  ND__API_SCOPE(fn);
  ND__VIEW_ARGS(fn, a, out);
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d]", fn, ndim, ND_MAXDIMS);
  if (ndim > 0) ND_CHECK_NULL(fn, shape);
  int64_t newshape[ND_MAXDIMS], strides[ND_MAXDIMS];
  ND_TRY(nd__reshape_infer(fn, a->size, ndim, shape, newshape));
  int64_t itemsize = (int64_t)nd_dtype_itemsize(a->dtype);
  if (nd__reshape_strides(a->ndim, a->shape, a->strides, ndim, newshape, 'C', itemsize, strides))
    return nd__array_view(fn, a, ndim, newshape, strides, a->offset, 1, out);
  nd_array *c;
  ND_TRY(nd_array_copy(a, ND_ORDER_C, &c));
  nd__strides_c(ndim, newshape, itemsize, strides);
  nd_status st = nd__array_view(fn, c, ndim, newshape, strides, c->offset, 1, out);
  if (st == ND_OK) (*out)->owndata = 1;
  nd_array_release(c);
  return st;
}

nd_status nd_array_ravel(const nd_array *a, nd_array **out) {
  const char *fn = "nd_array_ravel";
  ND__API_SCOPE(fn);
  ND__VIEW_ARGS(fn, a, out);
  int64_t n = -1;
  if (nd_array_is_c_contiguous(a)) return nd_array_reshape(a, 1, &n, out);
  /* NumPy's ravel copies whatever is not C-contiguous, even where reshape(-1) could give a
   * view (np.ravel(x[::2]) does not share x's memory), so writes to the result never reach a. */
  nd_array *c;
  ND_TRY(nd_array_copy(a, ND_ORDER_C, &c));
  int64_t stride = (int64_t)nd_dtype_itemsize(a->dtype);
  nd_status st = nd__array_view(fn, c, 1, &c->size, &stride, c->offset, 1, out);
  if (st == ND_OK) (*out)->owndata = 1;
  nd_array_release(c);
  return st;
}

nd_status nd_array_permute_dims(const nd_array *a, int naxes, const int64_t *axes, nd_array **out) {
  const char *fn = "nd_array_permute_dims";
  ND__VIEW_ARGS(fn, a, out);
  int perm[ND_MAXDIMS];
  if (naxes == 0 && axes == NULL) {
    for (int i = 0; i < a->ndim; i++) perm[i] = a->ndim - 1 - i;
  } else {
    ND_CHECK_NULL(fn, axes);
    if (naxes != a->ndim)
      return nd__error(ND_ERR_AXIS, "%s: axes don't match array (%d axes given for an array of "
                       "dimension %d)", fn, naxes, a->ndim);
    ND_TRY(nd__normalize_axes(fn, naxes, axes, a->ndim, perm, NULL));
  }
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  for (int i = 0; i < a->ndim; i++) {
    shape[i] = a->shape[perm[i]];
    strides[i] = a->strides[perm[i]];
  }
  return nd__array_view(fn, a, a->ndim, shape, strides, a->offset, 1, out);
}

nd_status nd_array_transpose(const nd_array *a, int naxes, const int64_t *axes, nd_array **out) {
  ND__API_SCOPE("nd_array_transpose");
  return nd_array_permute_dims(a, naxes, axes, out);
}

nd_status nd_array_swapaxes(const nd_array *a, int64_t axis1, int64_t axis2, nd_array **out) {
  const char *fn = "nd_array_swapaxes";
  ND__VIEW_ARGS(fn, a, out);
  int i, j;
  ND_TRY(nd__normalize_axis(fn, axis1, a->ndim, &i));
  ND_TRY(nd__normalize_axis(fn, axis2, a->ndim, &j));
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  memcpy(shape, a->shape, sizeof shape);
  memcpy(strides, a->strides, sizeof strides);
  shape[i] = a->shape[j];
  shape[j] = a->shape[i];
  strides[i] = a->strides[j];
  strides[j] = a->strides[i];
  return nd__array_view(fn, a, a->ndim, shape, strides, a->offset, 1, out);
}

nd_status nd_array_moveaxis(const nd_array *a, int64_t source, int64_t destination, nd_array **out) {
  const char *fn = "nd_array_moveaxis";
  ND__VIEW_ARGS(fn, a, out);
  int s, d;
  ND_TRY(nd__normalize_axis(fn, source, a->ndim, &s));
  ND_TRY(nd__normalize_axis(fn, destination, a->ndim, &d));
  int order[ND_MAXDIMS], n = 0;
  for (int i = 0; i < a->ndim; i++)
    if (i != s) order[n++] = i;
  memmove(&order[d + 1], &order[d], (size_t)(a->ndim - 1 - d) * sizeof(int));
  order[d] = s;
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  for (int i = 0; i < a->ndim; i++) {
    shape[i] = a->shape[order[i]];
    strides[i] = a->strides[order[i]];
  }
  return nd__array_view(fn, a, a->ndim, shape, strides, a->offset, 1, out);
}

nd_status nd_array_expand_dims(const nd_array *a, int64_t axis, nd_array **out) {
  const char *fn = "nd_array_expand_dims";
  ND__VIEW_ARGS(fn, a, out);
  if (a->ndim == ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the array already has the maximum %d "
                     "dimensions", fn, ND_MAXDIMS);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim + 1, &ax));
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  for (int i = 0, j = 0; i <= a->ndim; i++) {
    if (i == ax) {
      shape[i] = 1;
      strides[i] = (j < a->ndim) ? a->strides[j] * a->shape[j] : (int64_t)nd_dtype_itemsize(a->dtype);
    } else {
      shape[i] = a->shape[j];
      strides[i] = a->strides[j];
      j++;
    }
  }
  return nd__array_view(fn, a, a->ndim + 1, shape, strides, a->offset, 1, out);
}

nd_status nd_array_squeeze(const nd_array *a, int naxes, const int64_t *axes, nd_array **out) {
  const char *fn = "nd_array_squeeze";
  ND__VIEW_ARGS(fn, a, out);
  uint64_t mask = 0;
  if (naxes > 0) {
    int ax[ND_MAXDIMS];
    ND_CHECK_NULL(fn, axes);
    if (naxes > a->ndim)
      return nd__error(ND_ERR_AXIS, "%s: %d axes given for an array of dimension %d", fn, naxes, a->ndim);
    ND_TRY(nd__normalize_axes(fn, naxes, axes, a->ndim, ax, &mask));
    for (int i = 0; i < naxes; i++)
      if (a->shape[ax[i]] != 1)
        return nd__error(ND_ERR_SHAPE, "%s: cannot select an axis to squeeze out which has size "
                         "not equal to one (axis %d has size %lld)", fn, ax[i],
                         (long long)a->shape[ax[i]]);
  } else {
    for (int i = 0; i < a->ndim; i++)
      if (a->shape[i] == 1) mask |= 1ull << i;
  }
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  int n = 0;
  for (int i = 0; i < a->ndim; i++)
    if (!(mask >> i & 1)) {
      shape[n] = a->shape[i];
      strides[n++] = a->strides[i];
    }
  return nd__array_view(fn, a, n, shape, strides, a->offset, 1, out);
}

nd_status nd_array_broadcast_to(const nd_array *a, int ndim, const int64_t *shape, nd_array **out) {
  const char *fn = "nd_array_broadcast_to";
  ND__VIEW_ARGS(fn, a, out);
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d]", fn, ndim, ND_MAXDIMS);
  if (ndim > 0) ND_CHECK_NULL(fn, shape);
  int64_t count;
  ND_TRY(nd__shape_count(fn, ndim, shape, &count));
  int64_t strides[ND_MAXDIMS];
  ND_TRY(nd__broadcast_strides(fn, a->ndim, a->shape, a->strides, ndim, shape, strides));
  nd_status st = nd__array_view(fn, a, ndim, shape, strides, a->offset, 1, out);
  if (st == ND_OK) (*out)->writeable = 0;
  return st;
}

nd_status nd_array_flip(const nd_array *a, int naxes, const int64_t *axes, nd_array **out) {
  const char *fn = "nd_array_flip";
  ND__VIEW_ARGS(fn, a, out);
  uint64_t mask = 0;
  if (naxes > 0) {
    int ax[ND_MAXDIMS];
    ND_CHECK_NULL(fn, axes);
    if (naxes > a->ndim)
      return nd__error(ND_ERR_AXIS, "%s: %d axes given for an array of dimension %d", fn, naxes, a->ndim);
    ND_TRY(nd__normalize_axes(fn, naxes, axes, a->ndim, ax, &mask));
  } else {
    mask = a->ndim == 64 ? ~0ull : (1ull << a->ndim) - 1;
  }
  int64_t strides[ND_MAXDIMS], offset = a->offset;
  for (int i = 0; i < a->ndim; i++) {
    strides[i] = a->strides[i];
    if ((mask >> i & 1) && a->shape[i] > 0) {
      offset += (a->shape[i] - 1) * a->strides[i];
      strides[i] = -a->strides[i];
    }
  }
  return nd__array_view(fn, a, a->ndim, a->shape, strides, offset, 1, out);
}

nd_status nd_array_slice(const nd_array *a, int nslices, const nd_slice *slices, nd_array **out) {
  const char *fn = "nd_array_slice";
  ND__VIEW_ARGS(fn, a, out);
  if (nslices < 0 || nslices > a->ndim)
    return nd__error(ND_ERR_INDEX, "%s: too many indices for array: array is %d-dimensional, "
                     "but %d were indexed", fn, a->ndim, nslices);
  if (nslices > 0) ND_CHECK_NULL(fn, slices);
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS], offset = a->offset;
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof(int64_t));
  memcpy(strides, a->strides, (size_t)a->ndim * sizeof(int64_t));
  for (int i = 0; i < nslices; i++) {
    int64_t start, step, count;
    nd_status st = nd__slice_normalize(fn, slices[i], a->shape[i], &start, &step, &count);
    if (st != ND_OK) return st;
    if (count > 0) offset += start * a->strides[i];
    shape[i] = count;
    strides[i] = a->strides[i] * step;
  }
  return nd__array_view(fn, a, a->ndim, shape, strides, offset, 1, out);
}

nd_status nd_array_index(const nd_array *a, int64_t axis, int64_t index, nd_array **out) {
  const char *fn = "nd_array_index";
  ND__VIEW_ARGS(fn, a, out);
  int ax;
  ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  int64_t n = a->shape[ax];
  if (index < -n || index >= n)
    return nd__error(ND_ERR_INDEX, "%s: index %lld is out of bounds for axis %d with size %lld",
                     fn, (long long)index, ax, (long long)n);
  if (index < 0) index += n;
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  for (int i = 0, j = 0; i < a->ndim; i++)
    if (i != ax) {
      shape[j] = a->shape[i];
      strides[j++] = a->strides[i];
    }
  return nd__array_view(fn, a, a->ndim - 1, shape, strides, a->offset + index * a->strides[ax], 1, out);
}

nd_status nd_array_diagonal(const nd_array *a, int64_t offset, int64_t axis1, int64_t axis2,
                            nd_array **out) {
  const char *fn = "nd_array_diagonal";
  ND__VIEW_ARGS(fn, a, out);
  if (a->ndim < 2)
    return nd__error(ND_ERR_SHAPE, "%s: diag requires an array of at least two dimensions "
                     "(got %d)", fn, a->ndim);
  int i, j;
  ND_TRY(nd__normalize_axis(fn, axis1, a->ndim, &i));
  ND_TRY(nd__normalize_axis(fn, axis2, a->ndim, &j));
  if (i == j)
    return nd__error(ND_ERR_AXIS, "%s: axis1 and axis2 cannot be the same (both %d)", fn, i);
  int64_t ni = a->shape[i], nj = a->shape[j], len, start = a->offset;
  if (offset >= 0) {
    len = nj - offset < ni ? nj - offset : ni;
    if (len > 0) start += offset * a->strides[j];
  } else {
    len = ni + offset < nj ? ni + offset : nj;
    if (len > 0) start += -offset * a->strides[i];
  }
  if (len < 0) len = 0;
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  int n = 0;
  for (int k = 0; k < a->ndim; k++)
    if (k != i && k != j) {
      shape[n] = a->shape[k];
      strides[n++] = a->strides[k];
    }
  shape[n] = len;
  strides[n++] = a->strides[i] + a->strides[j];
  nd_status st = nd__array_view(fn, a, n, shape, strides, len > 0 ? start : a->offset, 1, out);
  if (st == ND_OK) (*out)->writeable = 0;
  return st;
}

static nd_status nd__complex_part(const char *fn, const nd_array *a, int imag, nd_array **out) {
  ND__VIEW_ARGS(fn, a, out);
  if (a->dtype != ND_COMPLEX64 && a->dtype != ND_COMPLEX128) {
    if (imag)
      return nd__error(ND_ERR_DTYPE, "%s: array of dtype %s has no imaginary part to view", fn,
                       nd_dtype_name(a->dtype));
    *out = nd_array_retain((nd_array *)a);
    return ND_OK;
  }
  nd_dtype part = a->dtype == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
  nd_array *v = NULL;
  ND_TRY(nd__array_view(fn, a, a->ndim, a->shape, a->strides,
                        a->offset + (imag ? (int64_t)nd_dtype_itemsize(part) : 0), 1, &v));
  v->dtype = part;
  *out = v;
  return ND_OK;
}

nd_status nd_array_real(const nd_array *a, nd_array **out) {
  return nd__complex_part("nd_array_real", a, 0, out);
}

nd_status nd_array_imag(const nd_array *a, nd_array **out) {
  return nd__complex_part("nd_array_imag", a, 1, out);
}
