/* Boolean indexing: a[mask], a[mask] = values (NumPy's __getitem__/__setitem__ with one
 * boolean array), and compress.
 *
 * A selection's size depends on the data, so a[mask] and compress read the count of true
 * elements back (nd_nonzero) and then gather with the coordinates, which are in range by
 * construction (no raise-mode check). Assignment avoids the read-back whenever the values do
 * not run along the selection (a scalar, or values broadcast over the trailing dimensions):
 * then a[mask] = v is where(mask, v, a) written into a, one elementwise pass with no host
 * round trip. Only values with one entry per selected row need the count, to check it and to
 * scatter them. */
#include <string.h>

#include "indexing/indexing_internal.h"
#include "src/api_scope.h"

/* mask's dtype and shape against a's leading dimensions, as NumPy checks a boolean index: each
 * of the mask's dimensions is the array's or 0 (an empty mask selects nothing, whatever the
 * array's length there: NumPy's a[np.zeros((2, 0), bool)] of a (2, 3) array is empty). */
static nd_status nd__check_mask(const char *fn, const nd_array *a, const nd_array *mask) {
  if (mask->dtype != ND_BOOL)
    return nd__error(ND_ERR_DTYPE, "%s: mask must have dtype bool (got %s); integer index arrays "
                     "go through nd_index_gather", fn, nd_dtype_name(mask->dtype));
  if (mask->ndim > a->ndim)
    return nd__error(ND_ERR_INDEX, "%s: too many indices for array: array is %d-dimensional, but %d "
                     "were indexed", fn, a->ndim, mask->ndim);
  for (int i = 0; i < mask->ndim; i++)
    if (mask->shape[i] != a->shape[i] && mask->shape[i] != 0)
      return nd__error(ND_ERR_INDEX, "%s: boolean index did not match indexed array along axis %d; "
                       "size of axis is %lld but size of corresponding boolean axis is %lld", fn, i,
                       (long long)a->shape[i], (long long)mask->shape[i]);
  if (mask->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: mask is on device %d, the array on device %d", fn,
                     mask->buf->device, a->buf->device);
  return ND_OK;
}

/* The truth of a 0-d mask (blocks). */
static nd_status nd__mask_truth(const nd_array *mask, int64_t *count) {
  nd_scalar s;
  ND_TRY(nd_array_item(mask, &s));
  *count = s.v.b ? 1 : 0;
  return ND_OK;
}

/* a[True] / a[False]: a view of shape (count,) + a.shape. */
static nd_status nd__mask0_view(const char *fn, const nd_array *a, int64_t count, nd_array **out) {
  int64_t shape[ND_MAXDIMS], strides[ND_MAXDIMS];
  if (a->ndim + 1 > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the selection would have %d dimensions, more than "
                     "the %d supported", fn, a->ndim + 1, ND_MAXDIMS);
  shape[0] = count;
  strides[0] = 0;
  memcpy(shape + 1, a->shape, (size_t)a->ndim * sizeof(int64_t));
  memcpy(strides + 1, a->strides, (size_t)a->ndim * sizeof(int64_t));
  return nd__array_view(fn, a, a->ndim + 1, shape, strides, a->offset, 1, out);
}

/* The mask's coordinate arrays (nd_nonzero; blocks for the count) and their axes 0..k-1. */
static nd_status nd__mask_coords(const nd_array *mask, nd_array **rows, int64_t *axes) {
  ND_TRY(nd_nonzero(mask, rows, mask->ndim));
  for (int i = 0; i < mask->ndim; i++) axes[i] = i;
  return ND_OK;
}

nd_status nd_mask_select(const nd_array *a, const nd_array *mask, nd_array **result) {
  const char *fn = "nd_mask_select";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, mask);
  ND_CHECK_NULL(fn, result);
  ND_TRY(nd__check_mask(fn, a, mask));
  if (mask->ndim == 0) {
    int64_t count;
    ND_TRY(nd__mask_truth(mask, &count));
    nd_array *v;
    ND_TRY(nd__mask0_view(fn, a, count, &v));
    nd_status st = nd_array_copy(v, ND_ORDER_C, result);
    nd_array_release(v);
    return st;
  }
  nd_array *rows[ND_MAXDIMS];
  int64_t axes[ND_MAXDIMS];
  ND_TRY(nd__mask_coords(mask, rows, axes));
  nd_status st = nd__gather(fn, a, mask->ndim, (const nd_array *const *)rows, axes, 0, ND__INDEX_TRUSTED,
                            0, 0, NULL, result);
  for (int i = 0; i < mask->ndim; i++) nd_array_release(rows[i]);
  return st;
}

/* a = where(mask, values, a) with mask over a's leading dimensions and values (already
 * stripped to vnd <= a.ndim - mask.ndim dimensions at lead) over its trailing ones. */
static nd_status nd__mask_where(const char *fn, nd_array *a, const nd_array *mask, const nd_array *values,
                                int lead, int vnd) {
  int64_t mstr[ND_MAXDIMS];
  for (int i = 0; i < a->ndim; i++) mstr[i] = i < mask->ndim ? mask->strides[i] : 0;
  nd_array *mv = NULL, *vv = NULL, *conv = NULL;
  nd_status st = nd__array_view(fn, mask, a->ndim, a->shape, mstr, mask->offset, 0, &mv);
  if (st == ND_OK) {
    if (values->dtype == a->dtype) conv = nd_array_retain((nd_array *)values);
    else st = nd_array_astype(values, a->dtype, &conv);
  }
  if (st == ND_OK)
    st = nd__array_view(fn, conv, vnd, conv->shape + lead, conv->strides + lead, conv->offset, 0, &vv);
  if (st == ND_OK) st = nd_where(nd_arg(mv), nd_arg(vv), nd_arg(a), a, NULL);
  if (st != ND_OK) st = nd__error_context(st, fn);
  nd_array_release(mv);
  nd_array_release(vv);
  nd_array_release(conv);
  return st;
}

nd_status nd_mask_assign(nd_array *a, const nd_array *mask, const nd_array *values) {
  const char *fn = "nd_mask_assign";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, mask);
  ND_CHECK_NULL(fn, values);
  ND_TRY(nd__check_mask(fn, a, mask));
  if (!a->writeable) return nd__error(ND_ERR_READ_ONLY, "%s: assignment destination is read-only", fn);
  if (values->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: values are on device %d, the array on device %d", fn,
                     values->buf->device, a->buf->device);
  const int k = mask->ndim, rest = a->ndim - k;
  const int full = k >= 1 && k == a->ndim;
  if (full && values->ndim > 1)
    return nd__error(ND_ERR_SHAPE, "%s: NumPy boolean array indexing assignment requires a 0 or "
                     "1-dimensional input, input has %d dimensions", fn, values->ndim);
  /* Leading length-1 dimensions of values are dropped, as NumPy's assignment does; what is left
   * either runs along the selection (one more dimension than the trailing ones) or not. */
  int lead = 0, vnd = values->ndim;
  while (vnd > rest && values->shape[lead] == 1) {
    lead++;
    vnd--;
  }
  int64_t tmp[ND_MAXDIMS];
  /* (An empty mask cannot be spread over a's leading dimensions when they are not empty too;
   * it selects nothing, which the scatter below does with no coordinates.) */
  if (vnd <= rest && (mask->size > 0 || k == 0) && nd__broadcast_strides(fn, vnd, values->shape + lead, values->strides + lead, rest,
                                           a->shape + k, tmp) == ND_OK)
    return nd__mask_where(fn, a, mask, values, lead, vnd);
  if (k == 0) {
    int64_t count;
    ND_TRY(nd__mask_truth(mask, &count));
    nd_array *v;
    ND_TRY(nd__mask0_view(fn, a, count, &v));
    int64_t str[ND_MAXDIMS];
    nd_status st = vnd > v->ndim ? ND_ERR_SHAPE
                                 : nd__broadcast_strides(fn, vnd, values->shape + lead, values->strides + lead,
                                                         v->ndim, v->shape, str);
    if (st != ND_OK) {
      char sv[ND__SHAPE_STR], sr[ND__SHAPE_STR];
      st = nd__error(ND_ERR_SHAPE, "%s: shape mismatch: value array of shape %s could not be broadcast "
                     "to indexing result of shape %s", fn,
                     nd__format_shape(sv, sizeof sv, values->ndim, values->shape),
                     nd__format_shape(sr, sizeof sr, v->ndim, v->shape));
    } else {
      nd_array *vv;
      st = nd__array_view(fn, values, vnd, values->shape + lead, values->strides + lead, values->offset, 0, &vv);
      if (st == ND_OK) {
        st = nd_copyto(v, vv, ND_CASTING_UNSAFE);
        if (st != ND_OK) st = nd__error_context(st, fn);
        nd_array_release(vv);
      }
    }
    nd_array_release(v);
    return st;
  }
  nd_array *rows[ND_MAXDIMS];
  int64_t axes[ND_MAXDIMS];
  ND_TRY(nd__mask_coords(mask, rows, axes));
  nd_status st = ND_OK;
  const int64_t count = rows[0]->shape[0];
  if (full && values->ndim == 1 && values->shape[0] != count)
    st = nd__error(ND_ERR_SHAPE, "%s: NumPy boolean array indexing assignment cannot assign %lld input "
                   "values to the %lld output values where the mask is true", fn,
                   (long long)values->shape[0], (long long)count);
  if (st == ND_OK)
    st = nd__scatter(fn, a, k, (const nd_array *const *)rows, axes, 0, ND__INDEX_TRUSTED, 0, values);
  for (int i = 0; i < k; i++) nd_array_release(rows[i]);
  return st;
}

nd_status nd_compress(const nd_array *condition, const nd_array *a, int64_t axis, nd_array *out,
                      nd_array **result) {
  const char *fn = "nd_compress";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, condition);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  if (condition->ndim != 1)
    return nd__error(ND_ERR_VALUE, "%s: condition must be a 1-d array (got %d dimensions)", fn,
                     condition->ndim);
  if (axis != ND_AXIS_NONE && a->ndim > 0) {
    int ax;
    ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
  }
  nd_array *idx;
  ND_TRY(nd_nonzero(condition, &idx, 1));
  nd_status st = nd__take(fn, a, idx, axis, ND_INDEX_RAISE, out, result);
  nd_array_release(idx);
  return st;
}
