/* Pure host shape logic: sizes, strides, contiguity, broadcasting, axes, slices, reshape and
 * dimension collapsing (see src/shape.h and include/ndcuda/shape.h for the contracts).
 *
 * Semantics are NumPy's (numpy/_core/src/multiarray/shape.c, flagsobject.c) and CPython's
 * (PySlice_Unpack, PySlice_AdjustIndices). Every size product is overflow-checked with
 * __builtin_mul_overflow; functions that can fail validate all of their inputs before they
 * write any output, so a failing call leaves the caller's buffers untouched. */
#include "src/shape.h"

#include <stdio.h>

#define ND__FN(fn) ((fn) != NULL ? (fn) : "ndcuda")

/* Validates one shape argument; `name` (with `idx` >= 0 appended as "[idx]") names it in the
 * messages. */
static nd_status check_shape(const char *fn, const char *name, int idx, int ndim,
                             const int64_t *shape) {
  char label[48];
  if (idx >= 0)
    snprintf(label, sizeof label, "%s[%d]", name, idx);
  else
    snprintf(label, sizeof label, "%s", name);
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d of '%s' is out of range [0, %d]",
                     fn, ndim, label, ND_MAXDIMS);
  if (ndim > 0 && shape == NULL)
    return nd__error(ND_ERR_NULL_POINTER, "%s: argument '%s' is NULL (ndim %d)", fn, label,
                     ndim);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      char buf[ND__SHAPE_STR];
      return nd__error(ND_ERR_INVALID_ARGUMENT,
                       "%s: negative dimensions are not allowed: '%s' is %s (dimension %d is "
                       "%lld)",
                       fn, label, nd__format_shape(buf, sizeof buf, ndim, shape), i,
                       (long long)shape[i]);
    }
  }
  return ND_OK;
}

/* Element count of a checked shape. A zero dimension makes the count 0 whatever the other
 * dimensions are (NumPy's PyArray_OverflowMultiplyList, gh-15976); otherwise returns 0 and
 * sets *overflow when the product exceeds INT64_MAX. */
static int64_t count_of(int ndim, const int64_t *shape, int *overflow) {
  int64_t c = 1;
  int ovf = 0, zero = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      zero = 1;
    else if (!ovf && __builtin_mul_overflow(c, shape[i], &c))
      ovf = 1;
  }
  *overflow = !zero && ovf;
  return zero || ovf ? 0 : c;
}

nd_status nd__shape_count(const char *fn, int ndim, const int64_t *shape, int64_t *count) {
  fn = ND__FN(fn);
  ND_TRY(check_shape(fn, "shape", -1, ndim, shape));
  ND_CHECK_NULL(fn, count);
  int overflow;
  int64_t c = count_of(ndim, shape, &overflow);
  if (overflow) {
    char buf[ND__SHAPE_STR];
    return nd__error(ND_ERR_OVERFLOW, "%s: array is too big: shape %s has more than %lld elements",
                     fn, nd__format_shape(buf, sizeof buf, ndim, shape), (long long)INT64_MAX);
  }
  *count = c;
  return ND_OK;
}

nd_status nd__shape_nbytes(const char *fn, int ndim, const int64_t *shape, int64_t itemsize,
                           int64_t *count, int64_t *nbytes) {
  fn = ND__FN(fn);
  int64_t c, nb;
  ND_CHECK_NULL(fn, nbytes);
  if (itemsize <= 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: itemsize %lld must be positive", fn,
                     (long long)itemsize);
  ND_TRY(nd__shape_count(fn, ndim, shape, &c));
  ND_CHECK_NULL(fn, count);
  if (__builtin_mul_overflow(c, itemsize, &nb)) {
    char buf[ND__SHAPE_STR];
    return nd__error(ND_ERR_OVERFLOW,
                     "%s: array is too big: shape %s of %lld-byte items needs more than %lld "
                     "bytes",
                     fn, nd__format_shape(buf, sizeof buf, ndim, shape), (long long)itemsize,
                     (long long)INT64_MAX);
  }
  *count = c;
  *nbytes = nb;
  return ND_OK;
}

/* The running product saturates to 0 on overflow. That can only happen for a zero-size shape
 * whose other dimensions multiply past INT64_MAX (nd__shape_count accepts those); such strides
 * never address memory, and 0 is what the formula gives beyond the zero dimension anyway. */
void nd__strides_c(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides) {
  int64_t s = itemsize;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, shape[i], &s)) s = 0;
  }
}

void nd__strides_f(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides) {
  int64_t s = itemsize;
  for (int i = 0; i < ndim; i++) {
    strides[i] = s;
    if (__builtin_mul_overflow(s, shape[i], &s)) s = 0;
  }
}

/* NumPy's _UpdateContiguousFlags for one order: walks the dimensions from the fastest-varying
 * one (i = first, first + dir, ...), ignoring size-1 dimensions. Any zero dimension makes the
 * array contiguous. An expected stride that overflows cannot be matched by a later
 * dimension, but the walk goes on to look for a zero dimension. */
static int contiguous_walk(int ndim, const int64_t *shape, const int64_t *strides,
                           int64_t itemsize, int first, int dir) {
  int64_t sd = itemsize;
  int ok = 1, ovf = 0;
  for (int k = 0, i = first; k < ndim; k++, i += dir) {
    int64_t dim = shape[i];
    if (dim == 0) return 1;
    if (dim == 1) continue;
    if (ovf || strides[i] != sd) ok = 0;
    if (!ovf && __builtin_mul_overflow(sd, dim, &sd)) ovf = 1;
  }
  return ok;
}

int nd__is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                        int64_t itemsize) {
  return contiguous_walk(ndim, shape, strides, itemsize, ndim - 1, -1);
}

int nd__is_f_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                        int64_t itemsize) {
  return contiguous_walk(ndim, shape, strides, itemsize, 0, 1);
}

/* NumPy's PyArray_Broadcast: output dimensions are filled left to right; the first operand
 * with a dimension other than 1 sets it, and the first operand that disagrees is reported
 * together with the one that set it. */
nd_status nd__broadcast_shapes(const char *fn, int n, const int *ndims,
                               const int64_t *const *shapes, int *out_ndim,
                               int64_t *out_shape) {
  fn = ND__FN(fn);
  if (n < 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: number of shapes %d is negative", fn, n);
  if (n > 0) {
    ND_CHECK_NULL(fn, ndims);
    ND_CHECK_NULL(fn, shapes);
  }
  ND_CHECK_NULL(fn, out_ndim);
  ND_CHECK_NULL(fn, out_shape);
  int nd = 0;
  for (int j = 0; j < n; j++) {
    ND_TRY(check_shape(fn, "shapes", j, ndims[j], shapes[j]));
    if (ndims[j] > nd) nd = ndims[j];
  }
  int64_t res[ND_MAXDIMS];
  for (int i = 0; i < nd; i++) {
    int src = -1;
    res[i] = 1;
    for (int j = 0; j < n; j++) {
      int k = i + ndims[j] - nd;
      if (k < 0) continue;
      int64_t d = shapes[j][k];
      if (d == 1) continue;
      if (res[i] == 1) {
        res[i] = d;
        src = j;
      } else if (res[i] != d) {
        char a[ND__SHAPE_STR], b[ND__SHAPE_STR];
        return nd__error(ND_ERR_SHAPE,
                         "%s: shape mismatch: objects cannot be broadcast to a single shape.  "
                         "Mismatch is between arg %d with shape %s and arg %d with shape %s.",
                         fn, src, nd__format_shape(a, sizeof a, ndims[src], shapes[src]), j,
                         nd__format_shape(b, sizeof b, ndims[j], shapes[j]));
      }
    }
  }
  *out_ndim = nd;
  for (int i = 0; i < nd; i++) out_shape[i] = res[i];
  return ND_OK;
}

nd_status nd_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes,
                              int *out_ndim, int64_t *out_shape) {
  return nd__broadcast_shapes("nd_broadcast_shapes", n, ndims, shapes, out_ndim, out_shape);
}

/* out_strides may alias strides: the output is written from the last axis backwards, and
 * axis i only reads input axis i - (out_ndim - ndim) <= i. */
nd_status nd__broadcast_strides(const char *fn, int ndim, const int64_t *shape,
                                const int64_t *strides, int out_ndim,
                                const int64_t *out_shape, int64_t *out_strides) {
  fn = ND__FN(fn);
  ND_TRY(check_shape(fn, "shape", -1, ndim, shape));
  ND_TRY(check_shape(fn, "out_shape", -1, out_ndim, out_shape));
  if (ndim > 0) ND_CHECK_NULL(fn, strides);
  if (out_ndim > 0) ND_CHECK_NULL(fn, out_strides);
  int lead = out_ndim - ndim;
  int ok = lead >= 0;
  for (int k = 0; ok && k < ndim; k++)
    if (shape[k] != 1 && shape[k] != out_shape[k + lead]) ok = 0;
  if (!ok) {
    char a[ND__SHAPE_STR], b[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: cannot broadcast shape %s to %s", fn,
                     nd__format_shape(a, sizeof a, ndim, shape),
                     nd__format_shape(b, sizeof b, out_ndim, out_shape));
  }
  for (int i = out_ndim - 1; i >= 0; i--) {
    int k = i - lead;
    if (k < 0)
      out_strides[i] = 0;
    else if (shape[k] == 1 && out_shape[i] != 1)
      out_strides[i] = 0;
    else
      out_strides[i] = strides[k];
  }
  return ND_OK;
}

static nd_status check_ndim(const char *fn, int ndim) {
  if (ndim < 0 || ndim > ND_MAXDIMS)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ndim %d is out of range [0, %d]", fn, ndim,
                     ND_MAXDIMS);
  return ND_OK;
}

nd_status nd__normalize_axis(const char *fn, int64_t axis, int ndim, int *out) {
  fn = ND__FN(fn);
  ND_TRY(check_ndim(fn, ndim));
  ND_CHECK_NULL(fn, out);
  if (axis < -(int64_t)ndim || axis >= ndim)
    return nd__error(ND_ERR_AXIS, "%s: axis %lld is out of bounds for array of dimension %d",
                     fn, (long long)axis, ndim);
  *out = (int)(axis < 0 ? axis + ndim : axis);
  return ND_OK;
}

/* As NumPy's normalize_axis_tuple: every axis is range-checked first, then duplicates are
 * looked for. More than ndim axes necessarily repeat one, so at most ND_MAXDIMS + 1 entries
 * are examined before an error. */
nd_status nd__normalize_axes(const char *fn, int naxes, const int64_t *axes, int ndim,
                             int *out, uint64_t *mask) {
  fn = ND__FN(fn);
  ND_TRY(check_ndim(fn, ndim));
  if (naxes < 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: number of axes %d is negative", fn, naxes);
  if (naxes > 0) {
    ND_CHECK_NULL(fn, axes);
    ND_CHECK_NULL(fn, out);
  }
  for (int i = 0; i < naxes; i++)
    if (axes[i] < -(int64_t)ndim || axes[i] >= ndim)
      return nd__error(ND_ERR_AXIS, "%s: axis %lld is out of bounds for array of dimension %d",
                       fn, (long long)axes[i], ndim);
  int tmp[ND_MAXDIMS];
  int first[ND_MAXDIMS];
  uint64_t m = 0;
  for (int i = 0; i < naxes; i++) {
    int a = (int)(axes[i] < 0 ? axes[i] + ndim : axes[i]);
    if (m & (UINT64_C(1) << a))
      return nd__error(ND_ERR_AXIS,
                       "%s: repeated axis: axes[%d] = %lld and axes[%d] = %lld both name axis %d",
                       fn, first[a], (long long)axes[first[a]], i, (long long)axes[i], a);
    m |= UINT64_C(1) << a;
    first[a] = i;
    tmp[i] = a; /* i < ndim here: more axes than ndim would have repeated one already */
  }
  for (int i = 0; i < naxes; i++) out[i] = tmp[i];
  if (mask != NULL) *mask = m;
  return ND_OK;
}

/* CPython's PySlice_Unpack followed by PySlice_AdjustIndices. ND_NONE (INT64_MIN) is None, so
 * every explicit value is >= -INT64_MAX and the reversal -step cannot overflow; start/stop
 * adjustments stay within [-1, length] before any subtraction. */
nd_status nd__slice_normalize(const char *fn, nd_slice s, int64_t length, int64_t *start,
                              int64_t *step, int64_t *count) {
  fn = ND__FN(fn);
  ND_CHECK_NULL(fn, start);
  ND_CHECK_NULL(fn, step);
  ND_CHECK_NULL(fn, count);
  if (length < 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: slice length %lld is negative", fn,
                     (long long)length);
  int64_t st = s.step == ND_NONE ? 1 : s.step;
  if (st == 0) return nd__error(ND_ERR_VALUE, "%s: slice step cannot be zero", fn);
  int64_t b = s.start == ND_NONE ? (st < 0 ? INT64_MAX : 0) : s.start;
  int64_t e = s.stop == ND_NONE ? (st < 0 ? INT64_MIN : INT64_MAX) : s.stop;

  if (b < 0) {
    b = b == INT64_MIN ? -1 : b + length; /* INT64_MIN + length < 0 for any int64 length */
    if (b < 0) b = st < 0 ? -1 : 0;
  } else if (b >= length) {
    b = st < 0 ? length - 1 : length;
  }
  if (e < 0) {
    e = e == INT64_MIN ? -1 : e + length;
    if (e < 0) e = st < 0 ? -1 : 0;
  } else if (e >= length) {
    e = st < 0 ? length - 1 : length;
  }

  int64_t n = 0;
  if (st < 0) {
    if (e < b) n = (b - e - 1) / (-st) + 1;
  } else {
    if (b < e) n = (e - b - 1) / st + 1;
  }
  *start = b;
  *step = st;
  *count = n;
  return ND_OK;
}

nd_status nd_slice_indices(nd_slice s, int64_t length, int64_t *start, int64_t *step,
                           int64_t *count) {
  return nd__slice_normalize("nd_slice_indices", s, length, start, step, count);
}

nd_status nd__reshape_infer(const char *fn, int64_t count, int ndim, const int64_t *shape_in,
                            int64_t *shape_out) {
  fn = ND__FN(fn);
  ND_TRY(check_ndim(fn, ndim));
  if (count < 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: element count %lld is negative", fn,
                     (long long)count);
  if (ndim > 0) {
    ND_CHECK_NULL(fn, shape_in);
    ND_CHECK_NULL(fn, shape_out);
  }
  char buf[ND__SHAPE_STR];
  int unknown = -1, zero = 0, ovf = 0;
  int64_t known = 1;
  for (int i = 0; i < ndim; i++) {
    int64_t d = shape_in[i];
    if (d == -1) {
      if (unknown >= 0)
        return nd__error(ND_ERR_INVALID_ARGUMENT,
                         "%s: can only specify one unknown dimension: shape %s", fn,
                         nd__format_shape(buf, sizeof buf, ndim, shape_in));
      unknown = i;
    } else if (d < 0) {
      return nd__error(ND_ERR_INVALID_ARGUMENT,
                       "%s: negative dimensions are not allowed: shape %s (dimension %d is "
                       "%lld; only -1 may be inferred)",
                       fn, nd__format_shape(buf, sizeof buf, ndim, shape_in), i,
                       (long long)d);
    } else if (d == 0) {
      zero = 1;
    } else if (!ovf && __builtin_mul_overflow(known, d, &known)) {
      ovf = 1;
    }
  }
  /* A zero dimension makes the known product 0 whatever the others are, as nd__shape_count
   * counts (NumPy's reshape would instead report an overflow of the other dimensions). */
  if (zero) known = 0;
  int64_t inferred = 0;
  int bad;
  if (!zero && ovf)
    bad = 1;
  else if (unknown >= 0)
    bad = known == 0 || count % known != 0;
  else
    bad = known != count;
  if (bad)
    return nd__error(ND_ERR_SHAPE, "%s: cannot reshape array of size %lld into shape %s", fn,
                     (long long)count, nd__format_shape(buf, sizeof buf, ndim, shape_in));
  if (unknown >= 0) inferred = count / known;
  for (int i = 0; i < ndim; i++) shape_out[i] = i == unknown ? inferred : shape_in[i];
  return ND_OK;
}

/* NumPy's _attempt_nocopy_reshape, with three additions. A zero-size array is contiguous in
 * both orders by NumPy's flags, so NumPy never calls the algorithm for it and gives the new
 * shape contiguous strides in the requested order: we do the same. The group loops are
 * bounds-checked, so mismatched counts return 0 instead of reading past the shapes. And when
 * every old dimension has size 1 (NumPy never reaches the algorithm then either), the
 * trailing-ones stride is the itemsize, without NumPy's read of newdims[-1] in F order. */
int nd__reshape_strides(int ndim, const int64_t *shape, const int64_t *strides, int new_ndim,
                        const int64_t *new_shape, char order, int64_t itemsize,
                        int64_t *new_strides) {
  if (ndim < 0 || ndim > ND_MAXDIMS || new_ndim < 0 || new_ndim > ND_MAXDIMS) return 0;
  if (order != 'C' && order != 'F') return 0;
  int is_f = order == 'F';
  int64_t olddims[ND_MAXDIMS], oldstrides[ND_MAXDIMS], res[ND_MAXDIMS];
  int oldnd = 0;

  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0) {
      int new_zero = 0;
      for (int k = 0; k < new_ndim; k++) new_zero |= new_shape[k] == 0;
      if (!new_zero) return 0; /* counts differ */
      if (is_f)
        nd__strides_f(new_ndim, new_shape, itemsize, new_strides);
      else
        nd__strides_c(new_ndim, new_shape, itemsize, new_strides);
      return 1;
    }
  }
  for (int i = 0; i < ndim; i++) {
    if (shape[i] != 1) {
      olddims[oldnd] = shape[i];
      oldstrides[oldnd] = strides[i];
      oldnd++;
    }
  }

  /* [oi, oj) and [ni, nj) are the groups of old and new axes with equal products. */
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < new_ndim && oi < oldnd) {
    int64_t np = new_shape[ni], op = olddims[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= new_ndim || __builtin_mul_overflow(np, new_shape[nj], &np)) return 0;
        nj++;
      } else {
        if (oj >= oldnd || __builtin_mul_overflow(op, olddims[oj], &op)) return 0;
        oj++;
      }
    }
    /* Can the old axes of the group be combined? */
    for (int ok = oi; ok < oj - 1; ok++) {
      int64_t want;
      if (is_f) {
        if (__builtin_mul_overflow(olddims[ok], oldstrides[ok], &want) ||
            oldstrides[ok + 1] != want)
          return 0;
      } else {
        if (__builtin_mul_overflow(olddims[ok + 1], oldstrides[ok + 1], &want) ||
            oldstrides[ok] != want)
          return 0;
      }
    }
    /* Strides of the new axes of the group. */
    if (is_f) {
      res[ni] = oldstrides[oi];
      for (int nk = ni + 1; nk < nj; nk++)
        if (__builtin_mul_overflow(res[nk - 1], new_shape[nk - 1], &res[nk])) return 0;
    } else {
      res[nj - 1] = oldstrides[oj - 1];
      for (int nk = nj - 1; nk > ni; nk--)
        if (__builtin_mul_overflow(res[nk], new_shape[nk], &res[nk - 1])) return 0;
    }
    ni = nj++;
    oi = oj++;
  }
  /* Old axes left over mean the counts differed (new axes left over are trailing ones). */
  if (oi < oldnd) return 0;
  for (int nk = ni; nk < new_ndim; nk++)
    if (new_shape[nk] != 1) return 0;

  /* Trailing size-1 axes of the new shape take the stride of the next-fastest index. Any
   * stride is valid for a size-1 axis, so one that would overflow falls back to the stride of
   * the last axis rather than refusing the view. */
  int64_t last = itemsize;
  if (ni >= 1) {
    last = res[ni - 1];
    if (is_f && __builtin_mul_overflow(res[ni - 1], new_shape[ni - 1], &last))
      last = res[ni - 1];
  }
  for (int nk = ni; nk < new_ndim; nk++) res[nk] = last;
  for (int nk = 0; nk < new_ndim; nk++) new_strides[nk] = res[nk];
  return 1;
}

/* Invalid arguments (ndim outside [0, ND_MAXDIMS], negative nops, NULL arrays) return -1 and
 * leave everything untouched. A zero-size shape collapses to the single dimension (0,) with
 * stride 0 for every operand, so that the product of the returned shape is still the count
 * (the header asks callers to check the count first; this keeps a caller who does not from
 * running one element). */
int nd__collapse_dims(int ndim, int64_t *shape, int nops, int64_t *const *strides) {
  if (ndim < 0 || ndim > ND_MAXDIMS || nops < 0) return -1;
  if (ndim == 0) return 0;
  if (shape == NULL || (nops > 0 && strides == NULL)) return -1;
  for (int op = 0; op < nops; op++)
    if (strides[op] == NULL) return -1;

  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0) {
      shape[0] = 0;
      for (int op = 0; op < nops; op++) strides[op][0] = 0;
      return 1;
    }
  }
  int n = 0; /* dimensions kept so far; shape[n - 1] is the innermost kept one */
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 1) continue;
    int merge = n > 0;
    int64_t merged_shape = 0;
    if (merge && __builtin_mul_overflow(shape[n - 1], shape[i], &merged_shape)) merge = 0;
    for (int op = 0; merge && op < nops; op++) {
      int64_t want;
      if (__builtin_mul_overflow(strides[op][i], shape[i], &want) ||
          strides[op][n - 1] != want)
        merge = 0;
    }
    if (merge) {
      shape[n - 1] = merged_shape;
      for (int op = 0; op < nops; op++) strides[op][n - 1] = strides[op][i];
    } else {
      shape[n] = shape[i];
      for (int op = 0; op < nops; op++) strides[op][n] = strides[op][i];
      n++;
    }
  }
  return n;
}
