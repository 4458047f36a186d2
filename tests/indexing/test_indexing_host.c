/* Host suite for the indexing functions and DLPack (indexing/indexing.c, indexing/mask.c, src/dlpack.c):
 * everything that is decided before the device is touched.
 *
 * - nd_index_result_shape against NumPy's advanced-indexing result shapes (the expectations
 *   were produced with NumPy 2.4: np.empty(shape)[index].shape, with the index tuple quoted in
 *   each case's comment);
 * - the argument checks of take / take_along_axis / put / compress / mask_select / mask_assign
 *   / index_gather / index_scatter on array headers over host memory (nothing reads the data:
 *   every case fails before the device would be used), with NumPy's messages;
 * - the DLPack dtype mapping both ways, the export of array headers (shape, element strides of
 *   offset, transposed, negative-stride, broadcast, 0-d and zero-size views, the read-only
 *   flag, the deleter releasing its reference exactly once) and the import's validation. */
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/array.h"

#define FN "nd_test_fn"

static int released;
static void count_release(void *ptr, void *ctx) {
  (void)ctx;
  free(ptr);
  released++;
}

/* A header over a host allocation of nbytes on "device 0"; the buffer's release callback frees
 * the memory and counts. */
static nd_array *host_array(nd_dtype dt, int ndim, const int64_t *shape) {
  int64_t strides[ND_MAXDIMS], n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  const int64_t nb = n * (int64_t)nd_dtype_itemsize(dt);
  nd__buffer *b;
  ND_ASSERT_OK(nd__buffer_wrap(FN, calloc(1, (size_t)(nb > 0 ? nb : 1)), nb, 0, count_release, NULL, &b));
  nd__strides_c(ndim, shape, (int64_t)nd_dtype_itemsize(dt), strides);
  nd_array *a;
  ND_ASSERT_OK(nd__array_new(FN, b, dt, ndim, shape, strides, 0, &a));
  nd__buffer_release(b);
  return a;
}

static void expect_shape(int nd, const int64_t *got, int want_nd, const int64_t *want, const char *what) {
  ck_assert_msg(nd == want_nd, "%s: ndim %d, want %d", what, nd, want_nd);
  for (int i = 0; i < nd; i++)
    ck_assert_msg(got[i] == want[i], "%s: dim %d is %lld, want %lld", what, i, (long long)got[i],
                  (long long)want[i]);
}

/* ---- result shapes ----------------------------------------------------------------------- */

START_TEST(test_result_shape) {
  const int64_t a[4] = {2, 3, 4, 5};
  const int64_t s3[1] = {3}, s21[2] = {2, 1}, s14[2] = {1, 4}, s0[1] = {0};
  int nd;
  int64_t r[ND_MAXDIMS];
  /* a[[..3..]] -> (3, 3, 4, 5) */
  {
    const int nds[1] = {1};
    const int64_t *shs[1] = {s3}, axes[1] = {0};
    ND_ASSERT_OK(nd_index_result_shape(4, a, 1, nds, shs, axes, 0, &nd, r));
    expect_shape(nd, r, 4, (int64_t[]){3, 3, 4, 5}, "a[i]");
  }
  /* a[:, i(2,1), j(1,4)] -> (2, 2, 4, 5): consecutive, in place */
  {
    const int nds[2] = {2, 2};
    const int64_t *shs[2] = {s21, s14}, axes[2] = {1, 2};
    ND_ASSERT_OK(nd_index_result_shape(4, a, 2, nds, shs, axes, 0, &nd, r));
    expect_shape(nd, r, 4, (int64_t[]){2, 2, 4, 5}, "a[:, i, j]");
    /* front = 1 (e.g. a[:, i, j] reached through a[0][...] style views): B first */
    ND_ASSERT_OK(nd_index_result_shape(4, a, 2, nds, shs, axes, 1, &nd, r));
    expect_shape(nd, r, 4, (int64_t[]){2, 4, 2, 5}, "front");
  }
  /* a[i(2,1), :, j(1,4)] -> (2, 4, 3, 5): separated, B first; negative axis -2 is 2 */
  {
    const int nds[2] = {2, 2};
    const int64_t *shs[2] = {s21, s14}, axes[2] = {0, -2};
    ND_ASSERT_OK(nd_index_result_shape(4, a, 2, nds, shs, axes, 0, &nd, r));
    expect_shape(nd, r, 4, (int64_t[]){2, 4, 3, 5}, "a[i, :, j]");
  }
  /* a[..., 0-d i] -> (2, 3, 4): a 0-d index array removes its axis */
  {
    const int nds[1] = {0};
    const int64_t *shs[1] = {NULL}, axes[1] = {3};
    ND_ASSERT_OK(nd_index_result_shape(4, a, 1, nds, shs, axes, 0, &nd, r));
    expect_shape(nd, r, 3, (int64_t[]){2, 3, 4}, "a[..., 0d]");
  }
  /* a[:, :, [], [..3..]] does not broadcast; a[:, empty] -> (2, 0, 4, 5) */
  {
    const int nds[2] = {1, 1};
    const int64_t *shs[2] = {s0, s3}, axes[2] = {2, 3};
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 2, nds, shs, axes, 0, &nd, r), ND_ERR_INDEX,
                    "nd_index_result_shape: shape mismatch: indexing arrays could not be broadcast together "
                    "with shapes (0,) (3,)");
    const int64_t ax1[1] = {1};
    ND_ASSERT_OK(nd_index_result_shape(4, a, 1, nds, shs, ax1, 0, &nd, r));
    expect_shape(nd, r, 4, (int64_t[]){2, 0, 4, 5}, "a[:, []]");
  }
  /* argument errors */
  {
    const int nds[2] = {1, 1};
    const int64_t *shs[2] = {s3, s3};
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 2, nds, shs, (int64_t[]){2, 1}, 0, &nd, r), ND_ERR_AXIS,
                    "axes must be strictly increasing (got 1 after 2)");
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 2, nds, shs, (int64_t[]){1, -3}, 0, &nd, r), ND_ERR_AXIS,
                    "(got 1 after 1)");
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 1, nds, shs, (int64_t[]){4}, 0, &nd, r), ND_ERR_AXIS,
                    "axis 4 is out of bounds for array of dimension 4");
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 0, nds, shs, (int64_t[]){0}, 0, &nd, r),
                    ND_ERR_INVALID_ARGUMENT, "nidx 0 is outside [1, 4]");
    ND_ASSERT_FAILS(nd_index_result_shape(1, a, 2, nds, shs, (int64_t[]){0, 1}, 0, &nd, r),
                    ND_ERR_INVALID_ARGUMENT, "nidx 2 is outside [1, 1]");
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 1, nds, shs, NULL, 0, &nd, r), ND_ERR_NULL_POINTER, "axes");
    ND_ASSERT_FAILS(nd_index_result_shape(4, a, 1, nds, shs, (int64_t[]){0}, 0, NULL, r), ND_ERR_NULL_POINTER,
                    "out_ndim");
  }
  /* more than ND_MAXDIMS result dimensions */
  {
    int64_t big[ND_MAXDIMS], one[ND_MAXDIMS];
    for (int i = 0; i < ND_MAXDIMS; i++) big[i] = one[i] = 1;
    const int nds[1] = {ND_MAXDIMS};
    const int64_t *shs[1] = {one};
    ND_ASSERT_FAILS(nd_index_result_shape(ND_MAXDIMS, big, 1, nds, shs, (int64_t[]){0}, 0, &nd, r),
                    ND_ERR_INVALID_ARGUMENT, "the result would have 63 dimensions");
  }
}
END_TEST

/* ---- argument checks on host headers ----------------------------------------------------- */

START_TEST(test_take_checks) {
  nd_array *a = host_array(ND_FLOAT64, 2, (int64_t[]){2, 3});
  nd_array *fi = host_array(ND_FLOAT64, 1, (int64_t[]){2});
  nd_array *ci = host_array(ND_COMPLEX64, 1, (int64_t[]){2});
  nd_array *ii = host_array(ND_INT64, 1, (int64_t[]){2});
  nd_array *bi = host_array(ND_BOOL, 2, (int64_t[]){2, 3});
  nd_array *empty = host_array(ND_FLOAT64, 2, (int64_t[]){0, 3});
  nd_array *out_bad = host_array(ND_FLOAT64, 1, (int64_t[]){5});
  nd_array *out_f32 = host_array(ND_COMPLEX64, 2, (int64_t[]){2, 2});
  nd_array *r = NULL;
  ND_ASSERT_FAILS(nd_take(NULL, ii, 0, ND_INDEX_RAISE, NULL, &r), ND_ERR_NULL_POINTER, "nd_take: argument 'a'");
  ND_ASSERT_FAILS(nd_take(a, NULL, 0, ND_INDEX_RAISE, NULL, &r), ND_ERR_NULL_POINTER, "'indices'");
  ND_ASSERT_FAILS(nd_take(a, ii, 0, ND_INDEX_RAISE, NULL, NULL), ND_ERR_NULL_POINTER, "'result'");
  ND_ASSERT_FAILS(nd_take(a, fi, 0, ND_INDEX_RAISE, NULL, &r), ND_ERR_CASTING,
                  "nd_take: Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'");
  ND_ASSERT_FAILS(nd_take(a, ci, 0, ND_INDEX_RAISE, NULL, &r), ND_ERR_CASTING, "dtype('complex64')");
  ND_ASSERT_FAILS(nd_take(a, ii, 2, ND_INDEX_RAISE, NULL, &r), ND_ERR_AXIS,
                  "nd_take: axis 2 is out of bounds for array of dimension 2");
  ND_ASSERT_FAILS(nd_take(a, ii, 0, (nd_index_mode)7, NULL, &r), ND_ERR_INVALID_ARGUMENT,
                  "mode must be ND_INDEX_RAISE, ND_INDEX_WRAP or ND_INDEX_CLIP (got 7)");
  ND_ASSERT_FAILS(nd_take(a, ii, 0, (nd_index_mode)3, NULL, &r), ND_ERR_INVALID_ARGUMENT, "(got -1)");
  ND_ASSERT_FAILS(nd_take(empty, ii, 0, ND_INDEX_WRAP, NULL, &r), ND_ERR_INDEX,
                  "nd_take: cannot do a non-empty take from an empty axes.");
  ND_ASSERT_FAILS(nd_take(a, ii, 1, ND_INDEX_RAISE, out_bad, &r), ND_ERR_SHAPE,
                  "nd_take: output array does not match result of ndarray.take (out has shape (5,), the result (2, 2))");
  ND_ASSERT_FAILS(nd_take(a, ii, 1, ND_INDEX_RAISE, out_f32, &r), ND_ERR_CASTING,
                  "Cannot cast array data from dtype('complex64') to dtype('float64') according to the rule 'safe'");
  ND_ASSERT_FAILS(nd_take(a, ii, ND_AXIS_NONE, ND_INDEX_RAISE, out_f32, &r), ND_ERR_SHAPE, "the result (2,)");
  /* take_along_axis */
  ND_ASSERT_FAILS(nd_take_along_axis(a, fi, 0, NULL, &r), ND_ERR_INDEX,
                  "nd_take_along_axis: `indices` must be an integer array");
  ND_ASSERT_FAILS(nd_take_along_axis(a, bi, 0, NULL, &r), ND_ERR_INDEX, "`indices` must be an integer array");
  ND_ASSERT_FAILS(nd_take_along_axis(a, ii, 0, NULL, &r), ND_ERR_VALUE,
                  "`indices` and `arr` must have the same number of dimensions");
  nd_array *i2 = host_array(ND_INT32, 2, (int64_t[]){3, 1});
  ND_ASSERT_FAILS(nd_take_along_axis(a, i2, ND_AXIS_NONE, NULL, &r), ND_ERR_VALUE,
                  "when axis=None, `indices` must have a single dimension.");
  ND_ASSERT_FAILS(nd_take_along_axis(a, i2, 1, NULL, &r), ND_ERR_INDEX,
                  "nd_take_along_axis: shape mismatch: indexing arrays could not be broadcast together with "
                  "shapes (2, 1) (3, 1)");
  ND_ASSERT_FAILS(nd_take_along_axis(a, i2, -3, NULL, &r), ND_ERR_AXIS, "axis -3 is out of bounds");
  /* compress */
  ND_ASSERT_FAILS(nd_compress(bi, a, 0, NULL, &r), ND_ERR_VALUE, "nd_compress: condition must be a 1-d array");
  ND_ASSERT_FAILS(nd_compress(ii, a, 5, NULL, &r), ND_ERR_AXIS, "nd_compress: axis 5 is out of bounds");
  ck_assert_ptr_null(r);
  nd_array *arrs[] = {a, fi, ci, ii, bi, empty, out_bad, out_f32, i2};
  released = 0;
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
  ck_assert_int_eq(released, 9);
}
END_TEST

START_TEST(test_put_mask_checks) {
  nd_array *a = host_array(ND_INT32, 2, (int64_t[]){2, 3});
  nd_array *ii = host_array(ND_INT64, 1, (int64_t[]){2});
  nd_array *ci = host_array(ND_COMPLEX128, 1, (int64_t[]){2});
  nd_array *v = host_array(ND_FLOAT64, 1, (int64_t[]){2});
  nd_array *empty = host_array(ND_INT32, 1, (int64_t[]){0});
  nd_array *m3 = host_array(ND_BOOL, 1, (int64_t[]){3});
  nd_array *m23 = host_array(ND_BOOL, 2, (int64_t[]){2, 3});
  nd_array *m231 = host_array(ND_BOOL, 3, (int64_t[]){2, 3, 1});
  nd_array *mi = host_array(ND_INT8, 1, (int64_t[]){2});
  nd_array *v2d = host_array(ND_FLOAT64, 2, (int64_t[]){1, 2});
  nd_array *v3 = host_array(ND_FLOAT64, 1, (int64_t[]){3});
  nd_array *r = NULL;
  ND_ASSERT_FAILS(nd_put(NULL, ii, v, ND_INDEX_RAISE), ND_ERR_NULL_POINTER, "nd_put: argument 'a'");
  ND_ASSERT_FAILS(nd_put(a, ii, NULL, ND_INDEX_RAISE), ND_ERR_NULL_POINTER, "'values'");
  ND_ASSERT_FAILS(nd_put(a, ci, v, ND_INDEX_RAISE), ND_ERR_CASTING, "nd_put: Cannot cast array data from "
                  "dtype('complex128')");
  ND_ASSERT_FAILS(nd_put(a, ii, v, (nd_index_mode)-2), ND_ERR_INVALID_ARGUMENT, "mode must be");
  ND_ASSERT_FAILS(nd_put(empty, ii, v, ND_INDEX_CLIP), ND_ERR_INDEX, "nd_put: cannot replace elements of an "
                  "empty array");
  /* empty indices or values: nothing to do, nothing touched (NumPy returns) */
  ND_ASSERT_OK(nd_put(a, empty, v, ND_INDEX_RAISE));
  ND_ASSERT_OK(nd_put(a, ii, empty, ND_INDEX_RAISE));
  nd_array *ro;
  ND_ASSERT_OK(nd_array_broadcast_to(ii, 2, (int64_t[]){3, 2}, &ro));
  ND_ASSERT_FAILS(nd_put(ro, ii, v, ND_INDEX_RAISE), ND_ERR_READ_ONLY, "nd_put: a is read-only");
  /* masks */
  ND_ASSERT_FAILS(nd_mask_select(a, mi, &r), ND_ERR_DTYPE, "nd_mask_select: mask must have dtype bool (got int8)");
  ND_ASSERT_FAILS(nd_mask_select(a, m3, &r), ND_ERR_INDEX,
                  "nd_mask_select: boolean index did not match indexed array along axis 0; size of axis is 2 "
                  "but size of corresponding boolean axis is 3");
  ND_ASSERT_FAILS(nd_mask_select(a, m231, &r), ND_ERR_INDEX,
                  "nd_mask_select: too many indices for array: array is 2-dimensional, but 3 were indexed");
  ND_ASSERT_FAILS(nd_mask_select(a, NULL, &r), ND_ERR_NULL_POINTER, "'mask'");
  ND_ASSERT_FAILS(nd_mask_assign(a, m3, v), ND_ERR_INDEX, "nd_mask_assign: boolean index did not match");
  ND_ASSERT_FAILS(nd_mask_assign(a, m23, v2d), ND_ERR_SHAPE,
                  "nd_mask_assign: NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, "
                  "input has 2 dimensions");
  ND_ASSERT_FAILS(nd_mask_assign(ro, m3, v), ND_ERR_READ_ONLY, "nd_mask_assign: assignment destination is read-only");
  /* the gather/scatter primitive */
  const nd_array *idx2[2] = {ii, ii};
  const nd_array *idxf[1] = {v};
  ND_ASSERT_FAILS(nd_index_gather(a, 1, idxf, (int64_t[]){0}, 0, ND_INDEX_RAISE, &r), ND_ERR_INDEX,
                  "nd_index_gather: arrays used as indices must be of integer type (indices[0] has dtype float64)");
  const nd_array *idxb[1] = {m3};
  ND_ASSERT_FAILS(nd_index_gather(a, 1, idxb, (int64_t[]){0}, 0, ND_INDEX_RAISE, &r), ND_ERR_INDEX, "dtype bool");
  ND_ASSERT_FAILS(nd_index_gather(a, 2, idx2, (int64_t[]){1, 0}, 0, ND_INDEX_RAISE, &r), ND_ERR_AXIS,
                  "nd_index_gather: axes must be strictly increasing (got 0 after 1)");
  ND_ASSERT_FAILS(nd_index_gather(a, 0, idx2, (int64_t[]){0}, 0, ND_INDEX_RAISE, &r), ND_ERR_INVALID_ARGUMENT,
                  "nidx 0");
  ND_ASSERT_FAILS(nd_index_gather(a, 3, (const nd_array *[]){ii, ii, ii}, (int64_t[]){0, 1, 2}, 0, ND_INDEX_RAISE, &r),
                  ND_ERR_INVALID_ARGUMENT, "nidx 3 is outside [1, 2]");
  ND_ASSERT_FAILS(nd_index_gather(a, 2, (const nd_array *[]){ii, NULL}, (int64_t[]){0, 1}, 0, ND_INDEX_RAISE, &r),
                  ND_ERR_NULL_POINTER, "indices[1] is NULL");
  ND_ASSERT_FAILS(nd_index_scatter(ro, 1, idx2, (int64_t[]){0}, 0, ND_INDEX_RAISE, v), ND_ERR_READ_ONLY,
                  "nd_index_scatter: assignment destination is read-only");
  ND_ASSERT_FAILS(nd_index_scatter(a, 2, idx2, (int64_t[]){0, 1}, 0, ND_INDEX_WRAP, v3), ND_ERR_SHAPE,
                  "nd_index_scatter: shape mismatch: value array of shape (3,) could not be broadcast to indexing "
                  "result of shape (2,)");
  ck_assert_ptr_null(r);
  nd_array *arrs[] = {a, ii, ci, v, empty, m3, m23, m231, mi, v2d, v3, ro};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
}
END_TEST

/* ---- DLPack ------------------------------------------------------------------------------- */

START_TEST(test_dlpack_dtypes) {
  static const struct {
    nd_dtype d;
    uint8_t code, bits;
  } want[ND_NUM_DTYPES] = {{ND_BOOL, kDLBool, 8},       {ND_INT8, kDLInt, 8},       {ND_INT16, kDLInt, 16},
                           {ND_INT32, kDLInt, 32},      {ND_INT64, kDLInt, 64},     {ND_UINT8, kDLUInt, 8},
                           {ND_UINT16, kDLUInt, 16},    {ND_UINT32, kDLUInt, 32},   {ND_UINT64, kDLUInt, 64},
                           {ND_FLOAT16, kDLFloat, 16},  {ND_FLOAT32, kDLFloat, 32}, {ND_FLOAT64, kDLFloat, 64},
                           {ND_COMPLEX64, kDLComplex, 64}, {ND_COMPLEX128, kDLComplex, 128}};
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    DLDataType t;
    ND_ASSERT_OK(nd_dtype_to_dlpack(want[i].d, &t));
    ck_assert_msg(t.code == want[i].code && t.bits == want[i].bits && t.lanes == 1, "%s -> (%u, %u, %u)",
                  nd_dtype_name(want[i].d), t.code, t.bits, t.lanes);
    nd_dtype back;
    ND_ASSERT_OK(nd_dtype_from_dlpack(t, &back));
    ck_assert_int_eq(back, want[i].d);
  }
  DLDataType t;
  ND_ASSERT_FAILS(nd_dtype_to_dlpack(ND_PYINT, &t), ND_ERR_DTYPE, "nd_dtype_to_dlpack: 64 is not an array dtype");
  ND_ASSERT_FAILS(nd_dtype_to_dlpack(ND_INT8, NULL), ND_ERR_NULL_POINTER, "out");
  nd_dtype d;
  const DLDataType bad[] = {{kDLBfloat, 16, 1}, {kDLFloat, 8, 1},  {kDLFloat8_e4m3fn, 8, 1}, {kDLFloat, 32, 4},
                            {kDLInt, 128, 1},   {kDLBool, 1, 1},   {kDLComplex, 32, 1},      {kDLOpaqueHandle, 64, 1}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char needle[96];
    snprintf(needle, sizeof needle, "DLPack type (code %u, bits %u, lanes %u) has no ndcuda dtype", bad[i].code,
             bad[i].bits, bad[i].lanes);
    ND_ASSERT_FAILS(nd_dtype_from_dlpack(bad[i], &d), ND_ERR_DTYPE, needle);
  }
}
END_TEST

static void expect_tensor(const DLTensor *t, const nd_array *a, const int64_t *estr, const char *what) {
  ck_assert_msg(t->device.device_type == kDLCUDA && t->device.device_id == 0, "%s: device", what);
  ck_assert_msg(t->ndim == nd_array_ndim(a), "%s: ndim %d", what, t->ndim);
  ck_assert_msg(t->byte_offset == 0, "%s: byte_offset", what);
  if (nd_array_size(a) == 0) ck_assert_msg(t->data == NULL, "%s: data of an empty array is not NULL", what);
  else ck_assert_msg(t->data == nd_array_data(a), "%s: data %p, want %p", what, t->data, nd_array_data(a));
  for (int i = 0; i < t->ndim; i++) {
    ck_assert_msg(t->shape[i] == nd_array_shape(a)[i], "%s: shape[%d]", what, i);
    ck_assert_msg(t->strides[i] == estr[i], "%s: strides[%d] = %lld, want %lld", what, i,
                  (long long)t->strides[i], (long long)estr[i]);
  }
}

START_TEST(test_dlpack_export) {
  released = 0;
  nd_array *base = host_array(ND_COMPLEX64, 2, (int64_t[]){4, 6});
  nd_array *views[6];
  int64_t want[6][2];
  /* base[1:3, 2:5] (offset), base.T, base[::-1, ::-2], broadcast of a row, base[1, 2] (0-d),
   * base[4:4] (zero-size) */
  ND_ASSERT_OK(nd_array_slice(base, 2, (nd_slice[]){{1, 3, 1}, {2, 5, 1}}, &views[0]));
  want[0][0] = 6, want[0][1] = 1;
  ND_ASSERT_OK(nd_array_transpose(base, 0, NULL, &views[1]));
  want[1][0] = 1, want[1][1] = 6;
  ND_ASSERT_OK(nd_array_slice(base, 2, (nd_slice[]){{ND_NONE, ND_NONE, -1}, {ND_NONE, ND_NONE, -2}}, &views[2]));
  want[2][0] = -6, want[2][1] = -2;
  nd_array *row;
  ND_ASSERT_OK(nd_array_index(base, 0, 1, &row));
  ND_ASSERT_OK(nd_array_broadcast_to(row, 2, (int64_t[]){3, 6}, &views[3]));
  want[3][0] = 0, want[3][1] = 1;
  nd_array_release(row);
  ND_ASSERT_OK(nd_array_slice(base, 2, (nd_slice[]){{1, 2, 1}, {2, 3, 1}}, &row));
  ND_ASSERT_OK(nd_array_squeeze(row, 0, NULL, &views[4]));
  want[4][0] = want[4][1] = 0;
  nd_array_release(row);
  ND_ASSERT_OK(nd_array_slice(base, 1, (nd_slice[]){{4, 4, 1}}, &views[5]));
  want[5][0] = 6, want[5][1] = 1;
  nd_array_release(base);
  for (int i = 0; i < 6; i++) {
    char what[32];
    snprintf(what, sizeof what, "view %d", i);
    struct DLManagedTensorVersioned *m;
    ND_ASSERT_OK(nd_array_to_dlpack(views[i], ND_DLPACK_STREAM_NONE, &m));
    ck_assert_int_eq(m->version.major, 1);
    ck_assert_int_eq(m->version.minor, DLPACK_MINOR_VERSION);
    ck_assert_msg(m->dl_tensor.dtype.code == kDLComplex && m->dl_tensor.dtype.bits == 64, "%s dtype", what);
    ck_assert_msg((m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) == (i == 3 ? DLPACK_FLAG_BITMASK_READ_ONLY : 0),
                  "%s: flags %llu", what, (unsigned long long)m->flags);
    expect_tensor(&m->dl_tensor, views[i], want[i], what);
    DLManagedTensor *l;
    ND_ASSERT_OK(nd_array_to_dlpack_legacy(views[i], ND_DLPACK_STREAM_NONE, &l));
    expect_tensor(&l->dl_tensor, views[i], want[i], what);
    /* The tensors hold references: releasing the view leaves the memory alive until both
     * deleters ran. */
    nd_array_release(views[i]);
    m->deleter(m);
    ck_assert_int_eq(released, 0);
    if (i < 5) {
      l->deleter(l);
    } else {
      ck_assert_int_eq(released, 0);
      l->deleter(l);
      ck_assert_int_eq(released, 1); /* the last reference to the buffer */
    }
  }
  ck_assert_int_eq(released, 1);
  nd_array *a = host_array(ND_INT16, 1, (int64_t[]){3});
  struct DLManagedTensorVersioned *m = NULL;
  ND_ASSERT_FAILS(nd_array_to_dlpack(a, 0, &m), ND_ERR_VALUE, "nd_array_to_dlpack: stream 0 is not valid");
  ND_ASSERT_FAILS(nd_array_to_dlpack(a, -7, &m), ND_ERR_VALUE, "stream -7 is not valid");
  ND_ASSERT_FAILS(nd_array_to_dlpack(NULL, -1, &m), ND_ERR_NULL_POINTER, "'a'");
  ND_ASSERT_FAILS(nd_array_to_dlpack(a, -1, NULL), ND_ERR_NULL_POINTER, "'out'");
  ND_ASSERT_FAILS(nd_array_to_dlpack_legacy(a, 0, NULL), ND_ERR_NULL_POINTER, "'out'");
  ck_assert_ptr_null(m);
  nd_array_release(a);
  ck_assert_int_eq(released, 2);
}
END_TEST

static int deleted;
static void count_delete(struct DLManagedTensorVersioned *self) {
  (void)self;
  deleted++;
}
static void count_delete_legacy(DLManagedTensor *self) {
  (void)self;
  deleted++;
}

START_TEST(test_dlpack_import_checks) {
  static int64_t shape[2] = {3, 4}, strides[2] = {4, 1};
  static double storage[16];
  struct DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.version.minor = 1;
  m.deleter = count_delete;
  m.dl_tensor.data = storage;
  m.dl_tensor.device.device_type = kDLCUDA;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 64;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  nd_array *out = NULL;
  deleted = 0;
  ND_ASSERT_FAILS(nd_array_from_dlpack(NULL, &out), ND_ERR_NULL_POINTER, "'tensor'");
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, NULL), ND_ERR_NULL_POINTER, "'out'");
  m.version.major = 2;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_INVALID_ARGUMENT,
                  "nd_array_from_dlpack: DLPack version 2.1 is not supported (major version 1 expected)");
  m.version.major = 1;
  m.dl_tensor.device.device_type = kDLCPU;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_DEVICE_MISMATCH,
                  "nd_array_from_dlpack: device type 1 (kDLCPU) is not supported");
  m.dl_tensor.device.device_type = kDLCUDAHost;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_DEVICE_MISMATCH, "(kDLCUDAHost)");
  m.dl_tensor.device.device_type = kDLCUDA;
  m.dl_tensor.dtype.code = kDLBfloat;
  m.dl_tensor.dtype.bits = 16;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_DTYPE, "(code 4, bits 16, lanes 1)");
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 64;
  m.dl_tensor.ndim = 33;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_INVALID_ARGUMENT, "ndim 33 is outside [0, 32]");
  m.dl_tensor.ndim = 2;
  m.dl_tensor.shape = NULL;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_NULL_POINTER, "shape is NULL");
  m.dl_tensor.shape = shape;
  shape[1] = -4;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_INVALID_ARGUMENT, "negative");
  shape[1] = 4;
  m.dl_tensor.byte_offset = 4;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_INVALID_ARGUMENT, "is not aligned to the 8-byte itemsize of float64");
  m.dl_tensor.byte_offset = 8;
  m.dl_tensor.data = NULL;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), ND_ERR_NULL_POINTER, "data is NULL");
  m.dl_tensor.data = storage;
  m.dl_tensor.device.device_id = -1;
  ND_ASSERT_FAILS(nd_array_from_dlpack(&m, &out), nd_test_have_gpu() ? ND_ERR_INVALID_ARGUMENT : ND_ERR_NO_DEVICE,
                  "device -1 does not exist");
  DLManagedTensor l;
  memset(&l, 0, sizeof l);
  l.dl_tensor = m.dl_tensor;
  l.deleter = count_delete_legacy;
  l.dl_tensor.device.device_type = kDLROCM;
  ND_ASSERT_FAILS(nd_array_from_dlpack_legacy(&l, &out), ND_ERR_DEVICE_MISMATCH,
                  "nd_array_from_dlpack_legacy: device type 10 (kDLROCM) is not supported");
  /* A failed import does not consume the tensor. */
  ck_assert_int_eq(deleted, 0);
  ck_assert_ptr_null(out);
}
END_TEST

static Suite *indexing_host_suite(void) {
  Suite *s = suite_create("indexing_host");
  TCase *t = tcase_create("indexing");
  tcase_add_test(t, test_result_shape);
  tcase_add_test(t, test_take_checks);
  tcase_add_test(t, test_put_mask_checks);
  suite_add_tcase(s, t);
  t = tcase_create("dlpack");
  tcase_add_test(t, test_dlpack_dtypes);
  tcase_add_test(t, test_dlpack_export);
  tcase_add_test(t, test_dlpack_import_checks);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(indexing_host_suite()); }
