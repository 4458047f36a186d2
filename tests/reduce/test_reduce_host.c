/* Check suite for the pure host part of reductions, scans and histograms (reduce/reduce_plan.c):
 * axis normalisation and result shapes, NumPy's result and accumulation dtypes, the
 * empty-reduction decision, output checks, the kernel launch plan, and histogram edges.
 *
 * Dtype rules are NumPy 2's, written out by hand from its documentation and checked against
 * NumPy 2.4 (np.sum(np.zeros(3, dt)).dtype and so on). The histogram edge table was generated
 * once with NumPy 2.4.6 and pasted as exact hexadecimal literals; the generator is quoted
 * above it. The planner is checked by a property test: for random shapes, strides (negative
 * and zero included) and axis sets, the (output, reduced index) -> offset map of the plan must
 * visit exactly the elements a brute-force walk visits, output by output. */
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "reduce/reduce_plan.h"

#define FN "nd_test_fn"

static void expect_message(const char *want) {
  ck_assert_msg(strcmp(nd_last_error(), want) == 0, "message\n  '%s'\nwant\n  '%s'",
                nd_last_error(), want);
}

/* ---- axes ---------------------------------------------------------------------------------- */

START_TEST(test_axes_basic) {
  const int64_t shape[3] = {2, 3, 4};
  nd__raxes r;
  /* axis=None */
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 0, NULL, 0, &r));
  ck_assert_uint_eq(r.mask, 7);
  ck_assert_int_eq(r.naxes, 3);
  ck_assert_int_eq(r.out_ndim, 0);
  ck_assert_int_eq(r.count, 24);
  ck_assert_int_eq(r.outputs, 1);
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 0, NULL, 1, &r));
  ck_assert_int_eq(r.out_ndim, 3);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(r.out_shape[i], 1);
  /* axis=() reduces nothing */
  const int64_t none[1] = {0};
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 0, none, 1, &r));
  ck_assert_uint_eq(r.mask, 0);
  ck_assert_int_eq(r.out_ndim, 3);
  ck_assert_int_eq(r.count, 1);
  ck_assert_int_eq(r.outputs, 24);
  /* axis=-1, with and without keepdims */
  const int64_t last[1] = {-1};
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 1, last, 0, &r));
  ck_assert_uint_eq(r.mask, 4);
  ck_assert_int_eq(r.out_ndim, 2);
  ck_assert_int_eq(r.out_shape[0], 2);
  ck_assert_int_eq(r.out_shape[1], 3);
  ck_assert_int_eq(r.count, 4);
  ck_assert_int_eq(r.outputs, 6);
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 1, last, 1, &r));
  ck_assert_int_eq(r.out_ndim, 3);
  ck_assert_int_eq(r.out_shape[2], 1);
  /* axis=(2, 0) in any order */
  const int64_t two[2] = {2, 0};
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 2, two, 0, &r));
  ck_assert_uint_eq(r.mask, 5);
  ck_assert_int_eq(r.out_ndim, 1);
  ck_assert_int_eq(r.out_shape[0], 3);
  ck_assert_int_eq(r.count, 8);
  /* 0-d */
  ND_ASSERT_OK(nd__reduce_axes(FN, 0, NULL, 0, NULL, 0, &r));
  ck_assert_int_eq(r.out_ndim, 0);
  ck_assert_int_eq(r.count, 1);
  ck_assert_int_eq(r.outputs, 1);
  ND_ASSERT_OK(nd__reduce_axis1(FN, 0, NULL, ND_AXIS_NONE, 1, &r));
  ck_assert_int_eq(r.out_ndim, 0);
  /* single axis form */
  ND_ASSERT_OK(nd__reduce_axis1(FN, 3, shape, 1, 0, &r));
  ck_assert_uint_eq(r.mask, 2);
  ck_assert_int_eq(r.count, 3);
}
END_TEST

START_TEST(test_axes_zero_size) {
  const int64_t shape[3] = {2, 0, 3};
  nd__raxes r;
  const int64_t ax1[1] = {1}, ax0[1] = {0};
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 1, ax1, 0, &r));
  ck_assert_int_eq(r.count, 0); /* empty reduction: identity or error */
  ck_assert_int_eq(r.outputs, 6);
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 1, ax0, 0, &r));
  ck_assert_int_eq(r.count, 2);
  ck_assert_int_eq(r.outputs, 0); /* empty result, nothing to compute */
  ck_assert_int_eq(r.out_shape[0], 0);
  ck_assert_int_eq(r.out_shape[1], 3);
  ND_ASSERT_OK(nd__reduce_axes(FN, 3, shape, 0, NULL, 0, &r));
  ck_assert_int_eq(r.count, 0);
  ck_assert_int_eq(r.outputs, 1);
}
END_TEST

START_TEST(test_axes_errors) {
  const int64_t shape[3] = {2, 3, 4};
  nd__raxes r;
  r.count = -5;
  const int64_t bad[1] = {3};
  ND_ASSERT_FAILS(nd__reduce_axes("nd_sum", 3, shape, 1, bad, 0, &r), ND_ERR_AXIS,
                  "nd_sum: axis 3 is out of bounds for array of dimension 3");
  const int64_t bad2[1] = {-4};
  ND_ASSERT_FAILS(nd__reduce_axes("nd_sum", 3, shape, 1, bad2, 0, &r), ND_ERR_AXIS,
                  "axis -4 is out of bounds for array of dimension 3");
  const int64_t rep[2] = {0, -3};
  ND_ASSERT_FAILS(nd__reduce_axes("nd_mean", 3, shape, 2, rep, 0, &r), ND_ERR_AXIS,
                  "nd_mean: repeated axis");
  const int64_t many[40] = {0};
  ND_ASSERT_FAILS(nd__reduce_axes("nd_mean", 3, shape, 40, many, 0, &r), ND_ERR_AXIS, "repeated axis");
  ND_ASSERT_FAILS(nd__reduce_axes("nd_sum", 3, shape, 2, NULL, 0, &r), ND_ERR_NULL_POINTER, "nd_sum");
  ND_ASSERT_FAILS(nd__reduce_axes("nd_sum", 3, shape, -1, bad, 0, &r), ND_ERR_INVALID_ARGUMENT, "nd_sum");
  ND_ASSERT_FAILS(nd__reduce_axes("nd_sum", 33, shape, 0, NULL, 0, &r), ND_ERR_INVALID_ARGUMENT, "nd_sum");
  ND_ASSERT_FAILS(nd__reduce_axis1("nd_argmax", 3, shape, 7, 0, &r), ND_ERR_AXIS,
                  "nd_argmax: axis 7 is out of bounds for array of dimension 3");
  ND_ASSERT_FAILS(nd__reduce_axis1("nd_argmax", 0, NULL, 0, 0, &r), ND_ERR_AXIS,
                  "axis 0 is out of bounds for array of dimension 0");
  ck_assert_int_eq(r.count, -5); /* untouched on failure */
}
END_TEST

/* Every subset of the axes of 4-d shapes, against a direct computation. */
START_TEST(test_axes_all_subsets) {
  const int64_t shapes[3][4] = {{2, 3, 4, 5}, {1, 0, 3, 2}, {7, 1, 1, 6}};
  for (int si = 0; si < 3; si++) {
    for (unsigned m = 0; m < 16; m++) {
      int64_t axes[4];
      int n = 0;
      for (int i = 0; i < 4; i++)
        if (m & (1u << i)) axes[n++] = (i % 2) ? i - 4 : i; /* mix negative spellings */
      for (int keep = 0; keep < 2; keep++) {
        nd__raxes r;
        ND_ASSERT_OK(nd__reduce_axes(FN, 4, shapes[si], n, n ? axes : (const int64_t *)shapes, keep, &r));
        int64_t count = 1, outs = 1;
        int od = 0;
        for (int i = 0; i < 4; i++) {
          if (m & (1u << i)) {
            count *= shapes[si][i];
            if (keep) ck_assert_int_eq(r.out_shape[od++], 1);
          } else {
            outs *= shapes[si][i];
            ck_assert_int_eq(r.out_shape[od++], shapes[si][i]);
          }
        }
        ck_assert_uint_eq(r.mask, m);
        ck_assert_int_eq(r.out_ndim, od);
        ck_assert_int_eq(r.count, count);
        ck_assert_int_eq(r.outputs, outs);
      }
    }
  }
}
END_TEST

/* ---- dtypes --------------------------------------------------------------------------------- */

typedef struct {
  nd_dtype in;
  nd_dtype res;
  int acc;
} dt_case;

static void check_rule(nd__rop op, const char *name, const dt_case *cases, int n) {
  for (int i = 0; i < n; i++) {
    nd_dtype res = ND_DTYPE_DEFAULT;
    int acc = -1;
    ND_ASSERT_OK(nd__reduce_dtypes(FN, op, cases[i].in, ND_DTYPE_DEFAULT, &res, &acc));
    ck_assert_msg(res == cases[i].res && acc == cases[i].acc, "%s(%s): got %s/acc %d, want %s/acc %d",
                  name, nd_dtype_name(cases[i].in), nd_dtype_name(res), acc,
                  nd_dtype_name(cases[i].res), cases[i].acc);
  }
}

START_TEST(test_dtypes_sum_prod) {
  /* np.sum(np.zeros(3, dt)).dtype: platform int (int64) / uint (uint64) for narrow integers. */
  static const dt_case c[] = {
      {ND_BOOL, ND_INT64, ND_KA_U64},       {ND_INT8, ND_INT64, ND_KA_U64},
      {ND_INT16, ND_INT64, ND_KA_U64},      {ND_INT32, ND_INT64, ND_KA_U64},
      {ND_INT64, ND_INT64, ND_KA_U64},      {ND_UINT8, ND_UINT64, ND_KA_U64},
      {ND_UINT16, ND_UINT64, ND_KA_U64},    {ND_UINT32, ND_UINT64, ND_KA_U64},
      {ND_UINT64, ND_UINT64, ND_KA_U64},    {ND_FLOAT16, ND_FLOAT16, ND_KA_F32},
      {ND_FLOAT32, ND_FLOAT32, ND_KA_F32},  {ND_FLOAT64, ND_FLOAT64, ND_KA_F64},
      {ND_COMPLEX64, ND_COMPLEX64, ND_KA_C64}, {ND_COMPLEX128, ND_COMPLEX128, ND_KA_C128}};
  const int n = (int)(sizeof c / sizeof c[0]);
  check_rule(ND__R_SUM, "sum", c, n);
  check_rule(ND__R_PROD, "prod", c, n);
  check_rule(ND__R_NANSUM, "nansum", c, n);
  check_rule(ND__R_CUMSUM, "cumsum", c, n);
  check_rule(ND__R_CUMPROD, "cumprod", c, n);
}
END_TEST

START_TEST(test_dtypes_mean_var) {
  static const dt_case mean[] = {
      {ND_BOOL, ND_FLOAT64, ND_KA_F64},       {ND_INT8, ND_FLOAT64, ND_KA_F64},
      {ND_INT64, ND_FLOAT64, ND_KA_F64},      {ND_UINT8, ND_FLOAT64, ND_KA_F64},
      {ND_UINT64, ND_FLOAT64, ND_KA_F64},     {ND_FLOAT16, ND_FLOAT16, ND_KA_F32},
      {ND_FLOAT32, ND_FLOAT32, ND_KA_F32},    {ND_FLOAT64, ND_FLOAT64, ND_KA_F64},
      {ND_COMPLEX64, ND_COMPLEX64, ND_KA_C64}, {ND_COMPLEX128, ND_COMPLEX128, ND_KA_C128}};
  check_rule(ND__R_MEAN, "mean", mean, (int)(sizeof mean / sizeof mean[0]));
  check_rule(ND__R_NANMEAN, "nanmean", mean, (int)(sizeof mean / sizeof mean[0]));
  /* var/std: the accumulator is the mean's type (complex for complex input). */
  static const dt_case var[] = {
      {ND_BOOL, ND_FLOAT64, ND_KA_F64},       {ND_INT32, ND_FLOAT64, ND_KA_F64},
      {ND_UINT64, ND_FLOAT64, ND_KA_F64},     {ND_FLOAT16, ND_FLOAT16, ND_KA_F32},
      {ND_FLOAT32, ND_FLOAT32, ND_KA_F32},    {ND_FLOAT64, ND_FLOAT64, ND_KA_F64},
      {ND_COMPLEX64, ND_FLOAT32, ND_KA_C64},  {ND_COMPLEX128, ND_FLOAT64, ND_KA_C128}};
  check_rule(ND__R_VAR, "var", var, (int)(sizeof var / sizeof var[0]));
  check_rule(ND__R_STD, "std", var, (int)(sizeof var / sizeof var[0]));
}
END_TEST

START_TEST(test_dtypes_order_stats) {
  static const dt_case mm[] = {
      {ND_BOOL, ND_BOOL, ND_KA_U64},          {ND_INT8, ND_INT8, ND_KA_I64},
      {ND_INT64, ND_INT64, ND_KA_I64},        {ND_UINT16, ND_UINT16, ND_KA_U64},
      {ND_UINT64, ND_UINT64, ND_KA_U64},      {ND_FLOAT16, ND_FLOAT16, ND_KA_F32},
      {ND_FLOAT32, ND_FLOAT32, ND_KA_F32},    {ND_FLOAT64, ND_FLOAT64, ND_KA_F64},
      {ND_COMPLEX64, ND_COMPLEX64, ND_KA_C128}, {ND_COMPLEX128, ND_COMPLEX128, ND_KA_C128}};
  const int n = (int)(sizeof mm / sizeof mm[0]);
  check_rule(ND__R_MIN, "min", mm, n);
  check_rule(ND__R_MAX, "max", mm, n);
  check_rule(ND__R_NANMIN, "nanmin", mm, n);
  check_rule(ND__R_PTP, "ptp", mm, n);
  dt_case arg[sizeof mm / sizeof mm[0]];
  for (int i = 0; i < n; i++) {
    arg[i] = mm[i];
    arg[i].res = ND_INT64;
  }
  check_rule(ND__R_ARGMIN, "argmin", arg, n);
  check_rule(ND__R_ARGMAX, "argmax", arg, n);
  static const dt_case med[] = {
      {ND_BOOL, ND_FLOAT64, ND_KA_F64},     {ND_INT16, ND_FLOAT64, ND_KA_F64},
      {ND_UINT64, ND_FLOAT64, ND_KA_F64},   {ND_FLOAT16, ND_FLOAT16, ND_KA_F32},
      {ND_FLOAT32, ND_FLOAT32, ND_KA_F32},  {ND_FLOAT64, ND_FLOAT64, ND_KA_F64}};
  check_rule(ND__R_MEDIAN, "median", med, (int)(sizeof med / sizeof med[0]));
  check_rule(ND__R_QUANTILE, "quantile", med, (int)(sizeof med / sizeof med[0]));
  for (int d = 0; d < ND_NUM_DTYPES; d++) {
    nd_dtype res;
    int acc;
    ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_ALL, (nd_dtype)d, ND_DTYPE_DEFAULT, &res, &acc));
    ck_assert_int_eq(res, ND_BOOL);
    ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_ANY, (nd_dtype)d, ND_DTYPE_DEFAULT, &res, &acc));
    ck_assert_int_eq(res, ND_BOOL);
    ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_COUNT_NONZERO, (nd_dtype)d, ND_DTYPE_DEFAULT, &res, &acc));
    ck_assert_int_eq(res, ND_INT64);
  }
}
END_TEST

START_TEST(test_dtypes_requested) {
  nd_dtype res = ND_DTYPE_DEFAULT;
  int acc = -1;
  /* np.sum(int8 array, dtype=float32) sums in float32. */
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_SUM, ND_INT8, ND_FLOAT32, &res, &acc));
  ck_assert(res == ND_FLOAT32 && acc == ND_KA_F32);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_SUM, ND_FLOAT64, ND_INT16, &res, &acc));
  ck_assert(res == ND_INT16 && acc == ND_KA_U64);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_PROD, ND_INT32, ND_BOOL, &res, &acc));
  ck_assert(res == ND_BOOL && acc == ND_KA_U64);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_SUM, ND_FLOAT32, ND_FLOAT16, &res, &acc));
  ck_assert(res == ND_FLOAT16 && acc == ND_KA_F32);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_MEAN, ND_INT32, ND_FLOAT32, &res, &acc));
  ck_assert(res == ND_FLOAT32 && acc == ND_KA_F32);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_MEAN, ND_FLOAT64, ND_INT32, &res, &acc));
  ck_assert(res == ND_INT32 && acc == ND_KA_U64);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_VAR, ND_INT32, ND_FLOAT32, &res, &acc));
  ck_assert(res == ND_FLOAT32 && acc == ND_KA_F32);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_STD, ND_COMPLEX64, ND_FLOAT64, &res, &acc));
  ck_assert(res == ND_FLOAT64 && acc == ND_KA_C128);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_NANMEAN, ND_INT32, ND_INT32, &res, &acc));
  ck_assert(res == ND_INT32);
  ND_ASSERT_OK(nd__reduce_dtypes(FN, ND__R_CUMSUM, ND_UINT8, ND_INT8, &res, &acc));
  ck_assert(res == ND_INT8 && acc == ND_KA_U64);

  res = ND_FLOAT32;
  acc = 77;
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_var", ND__R_VAR, ND_FLOAT32, ND_INT32, &res, &acc), ND_ERR_DTYPE,
                  "nd_var: dtype int32 is not a float dtype");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_nanmean", ND__R_NANMEAN, ND_FLOAT32, ND_INT32, &res, &acc),
                  ND_ERR_DTYPE, "nd_nanmean: dtype int32 is not inexact");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_amax", ND__R_MAX, ND_FLOAT32, ND_FLOAT64, &res, &acc),
                  ND_ERR_DTYPE, "nd_amax: max takes no dtype argument");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_all", ND__R_ALL, ND_FLOAT32, ND_BOOL, &res, &acc),
                  ND_ERR_DTYPE, "nd_all");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_median", ND__R_MEDIAN, ND_COMPLEX64, ND_DTYPE_DEFAULT, &res, &acc),
                  ND_ERR_DTYPE, "nd_median: median of complex input is not supported");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_sum", ND__R_SUM, (nd_dtype)99, ND_DTYPE_DEFAULT, &res, &acc),
                  ND_ERR_DTYPE, "nd_sum: input has an invalid dtype (value 99)");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_sum", ND__R_SUM, ND_INT8, ND_PYFLOAT, &res, &acc), ND_ERR_DTYPE,
                  "nd_sum: argument 'dtype' is not an array dtype");
  ND_ASSERT_FAILS(nd__reduce_dtypes("nd_sum", ND__R_SUM, ND_INT8, ND_DTYPE_DEFAULT, NULL, &acc),
                  ND_ERR_NULL_POINTER, "nd_sum");
  ck_assert(res == ND_FLOAT32 && acc == 77); /* untouched */
}
END_TEST

START_TEST(test_via_and_storage) {
  static const struct {
    nd_dtype in, res;
    int via;
  } c[] = {
      {ND_INT8, ND_INT64, -1},        /* wrap-around commutes with the sum */
      {ND_INT64, ND_INT8, -1},        /* ... in either direction */
      {ND_UINT32, ND_INT16, -1},
      {ND_FLOAT32, ND_INT32, ND_INT32}, /* float -> int truncates per element */
      {ND_COMPLEX64, ND_UINT8, ND_UINT8},
      {ND_FLOAT64, ND_FLOAT16, ND_FLOAT16}, /* rounding to half per element */
      {ND_INT64, ND_FLOAT16, ND_FLOAT16},
      {ND_INT32, ND_BOOL, ND_BOOL},         /* [2, -2] -> [True, True], sum True */
      {ND_BOOL, ND_BOOL, -1},
      {ND_FLOAT64, ND_FLOAT32, -1},
      {ND_INT64, ND_FLOAT32, -1},
      {ND_COMPLEX128, ND_FLOAT64, -1},
      {ND_FLOAT16, ND_FLOAT16, -1},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    ck_assert_msg(nd__reduce_via(c[i].in, c[i].res) == c[i].via, "via(%s, %s) = %d, want %d",
                  nd_dtype_name(c[i].in), nd_dtype_name(c[i].res), nd__reduce_via(c[i].in, c[i].res),
                  c[i].via);
  ck_assert_int_eq(nd__scan_storage(ND_BOOL), ND_INT64);
  ck_assert_int_eq(nd__scan_storage(ND_INT8), ND_INT64);
  ck_assert_int_eq(nd__scan_storage(ND_INT64), ND_INT64);
  ck_assert_int_eq(nd__scan_storage(ND_UINT16), ND_UINT64);
  ck_assert_int_eq(nd__scan_storage(ND_FLOAT16), ND_FLOAT32);
  ck_assert_int_eq(nd__scan_storage(ND_FLOAT32), ND_FLOAT32);
  ck_assert_int_eq(nd__scan_storage(ND_COMPLEX64), ND_COMPLEX64);
}
END_TEST

/* ---- empty reductions and outputs --------------------------------------------------------------- */

START_TEST(test_empty_decision) {
  static const nd__rop with[] = {ND__R_SUM, ND__R_PROD, ND__R_NANSUM, ND__R_MEAN, ND__R_NANMEAN,
                                 ND__R_VAR, ND__R_STD, ND__R_ALL, ND__R_ANY, ND__R_COUNT_NONZERO,
                                 ND__R_MEDIAN, ND__R_CUMSUM, ND__R_CUMPROD};
  for (size_t i = 0; i < sizeof with / sizeof with[0]; i++) {
    ck_assert_int_eq(nd__reduce_has_identity(with[i]), 1);
    ND_ASSERT_OK(nd__reduce_check_empty(FN, with[i], 0));
  }
  static const struct {
    nd__rop op;
    nd_status st;
    const char *msg;
  } without[] = {
      {ND__R_MIN, ND_ERR_VALUE, "nd_f: zero-size array to reduction operation minimum which has no identity"},
      {ND__R_MAX, ND_ERR_VALUE, "nd_f: zero-size array to reduction operation maximum which has no identity"},
      {ND__R_PTP, ND_ERR_VALUE, "nd_f: zero-size array to reduction operation maximum which has no identity"},
      {ND__R_NANMIN, ND_ERR_VALUE, "nd_f: zero-size array to reduction operation fmin which has no identity"},
      {ND__R_NANMAX, ND_ERR_VALUE, "nd_f: zero-size array to reduction operation fmax which has no identity"},
      {ND__R_ARGMIN, ND_ERR_VALUE, "nd_f: attempt to get argmin of an empty sequence"},
      {ND__R_ARGMAX, ND_ERR_VALUE, "nd_f: attempt to get argmax of an empty sequence"},
      {ND__R_QUANTILE, ND_ERR_INDEX, "nd_f: cannot take a quantile of an empty sequence (index -1 is out "
                                     "of bounds for axis 0 with size 0)"}};
  for (size_t i = 0; i < sizeof without / sizeof without[0]; i++) {
    ck_assert_int_eq(nd__reduce_has_identity(without[i].op), 0);
    ND_ASSERT_OK(nd__reduce_check_empty("nd_f", without[i].op, 1));
    nd_clear_error();
    ck_assert_int_eq(nd__reduce_check_empty("nd_f", without[i].op, 0), without[i].st);
    expect_message(without[i].msg);
  }
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_SUM), ND_CASTING_SAME_KIND);
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_MAX), ND_CASTING_SAME_KIND);
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_MEAN), ND_CASTING_UNSAFE);
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_VAR), ND_CASTING_UNSAFE);
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_QUANTILE), ND_CASTING_UNSAFE);
  ck_assert_int_eq(nd__reduce_out_casting(ND__R_ARGMAX), ND_CASTING_SAFE);
}
END_TEST

/* A host-only array header over no memory (nothing here reads the data). */
static nd_array *fake_array(nd_dtype dt, int ndim, const int64_t *shape) {
  nd__buffer *b;
  ND_ASSERT_OK(nd__buffer_wrap(FN, NULL, 0, 0, NULL, NULL, &b));
  int64_t strides[ND_MAXDIMS];
  nd__strides_c(ndim, shape, (int64_t)nd_dtype_itemsize(dt), strides);
  nd_array *a;
  ND_ASSERT_OK(nd__array_new(FN, b, dt, ndim, shape, strides, 0, &a));
  nd__buffer_release(b);
  return a;
}

START_TEST(test_check_out) {
  const int64_t s34[2] = {3, 4}, s3[1] = {3}, s4[1] = {4};
  nd_array *o = fake_array(ND_FLOAT64, 2, s34);
  ND_ASSERT_OK(nd__check_out("nd_sum", o, 2, s34, ND_FLOAT32, ND_CASTING_SAME_KIND));
  ND_ASSERT_OK(nd__check_out("nd_sum", o, 2, s34, ND_INT64, ND_CASTING_SAME_KIND));
  ND_ASSERT_FAILS(nd__check_out("nd_sum", o, 1, s3, ND_FLOAT64, ND_CASTING_SAME_KIND), ND_ERR_SHAPE,
                  "nd_sum: output array has shape (3, 4) but the result has shape (3,)");
  ND_ASSERT_FAILS(nd__check_out("nd_sum", o, 2, s34, ND_COMPLEX64, ND_CASTING_SAME_KIND), ND_ERR_CASTING,
                  "nd_sum: cannot cast the result from dtype('complex64') to the output's dtype('float64') "
                  "according to the rule 'same_kind'");
  ND_ASSERT_OK(nd__check_out("nd_mean", o, 2, s34, ND_COMPLEX64, ND_CASTING_UNSAFE));
  nd_array *i32 = fake_array(ND_INT32, 1, s4);
  ND_ASSERT_FAILS(nd__check_out("nd_argmax", i32, 1, s4, ND_INT64, ND_CASTING_SAFE), ND_ERR_CASTING,
                  "nd_argmax: cannot cast the result from dtype('int64')");
  ND_ASSERT_FAILS(nd__check_out("nd_sum", i32, 1, s4, ND_FLOAT32, ND_CASTING_SAME_KIND), ND_ERR_CASTING,
                  "'same_kind'");
  ND_ASSERT_OK(nd_array_set_writeable(o, 0));
  ND_ASSERT_FAILS(nd__check_out("nd_prod", o, 2, s34, ND_FLOAT64, ND_CASTING_SAME_KIND), ND_ERR_READ_ONLY,
                  "nd_prod: output array is read-only");
  ND_ASSERT_FAILS(nd__check_out("nd_prod", NULL, 2, s34, ND_FLOAT64, ND_CASTING_SAME_KIND),
                  ND_ERR_NULL_POINTER, "nd_prod");
  nd_array_release(o);
  nd_array_release(i32);
}
END_TEST

/* ---- the launch plan ---------------------------------------------------------------------------- */

static void plan_c(int ndim, const int64_t *shape, uint64_t mask, int ordered, int64_t isz,
                   nd_kreduce *p, int64_t *flip) {
  int64_t strides[ND_MAXDIMS], kshape[ND_MAXDIMS], kst[ND_MAXDIMS];
  nd__strides_c(ndim, shape, isz, strides);
  int nk = 0;
  for (int i = 0; i < ndim; i++)
    if (!(mask & (UINT64_C(1) << i))) kshape[nk++] = shape[i];
  nd__strides_c(nk, kshape, isz, kst);
  memset(p, 0, sizeof *p);
  *flip = nd__reduce_plan(ndim, shape, strides, mask, kst, ordered, isz, 132, p);
}

START_TEST(test_plan_targets) {
  nd_kreduce p;
  int64_t flip;
  /* sum over axis 0 of 16384 x 16384 float32: columns, split over grid.y */
  const int64_t big[2] = {16384, 16384};
  plan_c(2, big, 1, 0, 4, &p, &flip);
  ck_assert_int_eq(p.mode, ND_KRM_COLS);
  ck_assert_int_eq(p.nk, 1);
  ck_assert_int_eq(p.kin[0], 4);
  ck_assert_int_eq(p.nr, 1);
  ck_assert_int_eq(p.rin[0], 65536);
  ck_assert_int_eq(p.splits, 8); /* 64 column blocks, 528 resident: 512 in one wave */
  ck_assert_int_eq(p.chunk, 2048);
  /* over axis 1: rows, one block each */
  plan_c(2, big, 2, 0, 4, &p, &flip);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  ck_assert_int_eq(p.lanes, 256);
  ck_assert_int_eq(p.splits, 1);
  ck_assert_int_eq(p.rcontig, 1);
  /* full reduction of 2^28: one row split over the whole grid, 64-element aligned chunks */
  const int64_t flat[1] = {INT64_C(1) << 28};
  plan_c(1, flat, 1, 0, 4, &p, &flip);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  ck_assert_int_eq(p.nk, 0);
  ck_assert_int_eq(p.M, 1);
  ck_assert_int_eq(p.lanes, 256);
  ck_assert_int_eq(p.chunk, 508416);
  ck_assert_int_eq(p.splits, 528);
  ck_assert_int_eq(p.chunk % 64, 0);
  ck_assert_int_eq(flip, 0);
  /* argmax keeps the same geometry (contiguous, nothing to reorder) */
  plan_c(1, flat, 1, 1, 4, &p, &flip);
  ck_assert_int_eq(p.splits, 528);
  ck_assert_int_eq(p.rcontig, 1);
  /* short rows: fewer lanes per output */
  const int64_t short8[2] = {1000, 8}, short100[2] = {1000, 100}, one[2] = {5, 1};
  plan_c(2, short8, 2, 0, 4, &p, &flip);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  ck_assert_int_eq(p.lanes, 1);
  plan_c(2, short100, 2, 0, 4, &p, &flip);
  ck_assert_int_eq(p.lanes, 16);
  /* reducing a length-1 axis: nothing left to reduce, one thread per output */
  plan_c(2, one, 2, 0, 8, &p, &flip);
  ck_assert_int_eq(p.nr, 0);
  ck_assert_int_eq(p.K, 1);
  ck_assert_int_eq(p.mode, ND_KRM_COLS);
  ck_assert_int_eq(p.splits, 1);
  /* empty reduction: no reduced dimension left, every output gets the identity */
  const int64_t empty[2] = {4, 0};
  plan_c(2, empty, 2, 0, 4, &p, &flip);
  ck_assert_int_eq(p.K, 0);
  ck_assert_int_eq(p.nr, 0);
  ck_assert_int_eq(p.M, 4);
  ck_assert_int_eq(p.splits, 1);
}
END_TEST

START_TEST(test_plan_collapse_and_flip) {
  nd_kreduce p;
  int64_t flip;
  /* (2, 3, 4) C order over (1, 2): one reduced run of 12 */
  const int64_t s[3] = {2, 3, 4};
  plan_c(3, s, 6, 0, 4, &p, &flip);
  ck_assert_int_eq(p.nr, 1);
  ck_assert_int_eq(p.rshape[0], 12);
  ck_assert_int_eq(p.rin[0], 4);
  ck_assert_int_eq(p.nk, 1);
  ck_assert_int_eq(p.kin[0], 48);
  ck_assert_int_eq(p.kout[0], 4);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  /* over (0, 2): two reduced dimensions, sorted by stride, kept axis in the middle */
  plan_c(3, s, 5, 0, 4, &p, &flip);
  ck_assert_int_eq(p.nr, 2);
  ck_assert_int_eq(p.rin[0], 48);
  ck_assert_int_eq(p.rin[1], 4);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  /* a reversed vector: flipped for a sum, kept in order for argmax */
  const int64_t six[1] = {6}, neg[1] = {-4}, kst[1] = {0};
  memset(&p, 0, sizeof p);
  flip = nd__reduce_plan(1, six, neg, 1, kst, 0, 4, 132, &p);
  ck_assert_int_eq(flip, -20);
  ck_assert_int_eq(p.rin[0], 4);
  ck_assert_int_eq(p.rcontig, 1);
  memset(&p, 0, sizeof p);
  flip = nd__reduce_plan(1, six, neg, 1, kst, 1, 4, 132, &p);
  ck_assert_int_eq(flip, 0);
  ck_assert_int_eq(p.rin[0], -4);
  ck_assert_int_eq(p.rcontig, 0);
  /* a transposed (4, 5) view reduced over axis 0: that axis is the contiguous one -> rows */
  const int64_t t45[2] = {4, 5}, tst[2] = {4, 16}, ko[1] = {8};
  memset(&p, 0, sizeof p);
  (void)nd__reduce_plan(2, t45, tst, 1, ko, 0, 4, 132, &p);
  ck_assert_int_eq(p.mode, ND_KRM_ROWS);
  ck_assert_int_eq(p.rcontig, 1);
  ck_assert_int_eq(p.kin[0], 16);
  ck_assert_int_eq(p.kout[0], 8);
}
END_TEST

/* The offsets the kernels compute (reduce/reduce_core.cuh koff/roff), on the host. */
static void plan_koff(const nd_kreduce *p, int64_t m, int64_t *oi, int64_t *oo) {
  *oi = *oo = 0;
  for (int d = p->nk - 1; d >= 0; --d) {
    int64_t n = p->kshape[d], q = d > 0 ? m / n : 0, r = d > 0 ? m - q * n : m;
    *oi += r * p->kin[d];
    *oo += r * p->kout[d];
    m = q;
  }
}
static int64_t plan_roff(const nd_kreduce *p, int64_t k) {
  int64_t o = 0;
  for (int d = p->nr - 1; d >= 0; --d) {
    int64_t n = p->rshape[d], q = d > 0 ? k / n : 0, r = d > 0 ? k - q * n : k;
    o += r * p->rin[d];
    k = q;
  }
  return o;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

START_TEST(test_plan_property) {
  for (int trial = 0; trial < 3000; trial++) {
    const int ndim = (int)(rnd() % 5);
    int64_t shape[4], strides[4], isz = (int64_t[]){1, 2, 4, 8, 16}[rnd() % 5];
    int perm[4] = {0, 1, 2, 3};
    for (int i = ndim - 1; i > 0; i--) {
      int j = (int)(rnd() % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int i = 0; i < ndim; i++) shape[i] = rnd() % 12 == 0 ? 0 : 1 + (int64_t)(rnd() % 4);
    /* strides: a permuted C layout with gaps, some negative, some broadcast */
    int64_t run = isz * (1 + (int64_t)(rnd() % 2));
    for (int q = ndim - 1; q >= 0; q--) {
      int i = perm[q];
      strides[i] = rnd() % 7 == 0 ? 0 : run * (rnd() % 4 == 0 ? -1 : 1);
      run *= (shape[i] > 0 ? shape[i] : 1) + (int64_t)(rnd() % 2);
    }
    const uint64_t mask = rnd() % (UINT64_C(1) << ndim);
    const int ordered = (int)(rnd() % 2);
    int64_t kshape[4], kst[4];
    int nk = 0;
    for (int i = 0; i < ndim; i++)
      if (!(mask & (UINT64_C(1) << i))) kshape[nk++] = shape[i];
    nd__strides_c(nk, kshape, 8, kst);
    nd_kreduce p;
    memset(&p, 0, sizeof p);
    const int64_t flip = nd__reduce_plan(ndim, shape, strides, mask, kst, ordered, isz,
                                         (int)(rnd() % 200) + 1, &p);
    /* Reference: walk every element in C order. */
    int64_t M = 1, K = 1;
    for (int i = 0; i < ndim; i++) {
      if (mask & (UINT64_C(1) << i)) K *= shape[i];
      else M *= shape[i];
    }
    ck_assert_int_eq(p.M, M);
    ck_assert_int_eq(p.K, K);
    ck_assert(p.lanes == 256 || (p.lanes >= 1 && p.lanes <= 32 && (p.lanes & (p.lanes - 1)) == 0));
    ck_assert(p.splits >= 1 && (K == 0 || (p.splits * p.chunk >= K && (p.splits - 1) * p.chunk < K)));
    if (p.splits > 1 && p.mode == ND_KRM_ROWS) ck_assert(p.lanes == 256 && p.chunk % 64 == 0);
    ck_assert_int_eq(p.rcontig, p.nr == 1 && p.rin[0] == isz);
    if (M == 0 || K == 0) {
      if (K == 0) ck_assert_int_eq(p.nr, 0);
      continue;
    }
    int64_t *want_in = malloc((size_t)(M * K) * sizeof(int64_t));
    int64_t *want_out = malloc((size_t)M * sizeof(int64_t));
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t e = 0; e < M * K; e++) {
      int64_t r = e;
      for (int i = ndim - 1; i >= 0; i--) {
        idx[i] = r % shape[i];
        r /= shape[i];
      }
      int64_t m = 0, k = 0, off = 0, oo = 0;
      for (int i = 0, j = 0; i < ndim; i++) {
        off += idx[i] * strides[i];
        if (mask & (UINT64_C(1) << i)) {
          k = k * shape[i] + idx[i];
        } else {
          m = m * shape[i] + idx[i];
          oo += idx[i] * kst[j++];
        }
      }
      want_in[m * K + k] = off;
      want_out[m] = oo;
    }
    int64_t *got = malloc((size_t)K * sizeof(int64_t));
    for (int64_t m = 0; m < M; m++) {
      int64_t oi, oo;
      plan_koff(&p, m, &oi, &oo);
      ck_assert_msg(oo == want_out[m], "trial %d: output %lld at %lld, want %lld", trial,
                    (long long)m, (long long)oo, (long long)want_out[m]);
      for (int64_t k = 0; k < K; k++) {
        got[k] = flip + oi + plan_roff(&p, k);
        if (ordered)
          ck_assert_msg(got[k] == want_in[m * K + k], "trial %d: ordered (m %lld, k %lld) at %lld, want %lld",
                        trial, (long long)m, (long long)k, (long long)got[k], (long long)want_in[m * K + k]);
      }
      qsort(got, (size_t)K, sizeof(int64_t), cmp_i64);
      qsort(want_in + m * K, (size_t)K, sizeof(int64_t), cmp_i64);
      for (int64_t k = 0; k < K; k++)
        ck_assert_msg(got[k] == want_in[m * K + k], "trial %d: output %lld visits %lld, want %lld", trial,
                      (long long)m, (long long)got[k], (long long)want_in[m * K + k]);
    }
    free(got);
    free(want_in);
    free(want_out);
  }
}
END_TEST

/* ---- histogram edges ---------------------------------------------------------------------------- */

/* Generated with NumPy 2.4.6:
 *   e = np.histogram_bin_edges(a, bins, rng)  for the data and ranges below; auto = 1 when the
 *   range came from a.min(), a.max(); values printed with float.hex(). */
START_TEST(test_histogram_edges_numpy) {
  static const struct {
    nd_dtype data;
    int auto_range;
    double lo, hi;
    int64_t bins;
    nd_dtype edt;
    double e[11];
  } c[] = {
      {ND_FLOAT32, 1, 0x1.99999a0000000p-4, 0x1.6666660000000p-1, 5, ND_FLOAT32, {0x1.99999a0000000p-4, 0x1.c28f5c0000000p-3, 0x1.5c28f40000000p-2, 0x1.d70a3a0000000p-2, 0x1.28f5c20000000p-1, 0x1.6666660000000p-1}},
      {ND_FLOAT64, 0, 0x0.0p+0, 0x1.0000000000000p+0, 10, ND_FLOAT64, {0x0.0p+0, 0x1.999999999999ap-4, 0x1.999999999999ap-3, 0x1.3333333333334p-2, 0x1.999999999999ap-2, 0x1.0000000000000p-1, 0x1.3333333333334p-1, 0x1.6666666666667p-1, 0x1.999999999999ap-1, 0x1.ccccccccccccdp-1, 0x1.0000000000000p+0}},
      {ND_INT64, 1, 0x1.8000000000000p+1, 0x1.8000000000000p+1, 4, ND_FLOAT64, {0x1.4000000000000p+1, 0x1.6000000000000p+1, 0x1.8000000000000p+1, 0x1.a000000000000p+1, 0x1.c000000000000p+1}},
      {ND_FLOAT16, 1, -0x1.8000000000000p+0, 0x1.2000000000000p+1, 7, ND_FLOAT16, {-0x1.8000000000000p+0, -0x1.edc0000000000p-1, -0x1.b700000000000p-2, 0x1.b800000000000p-4, 0x1.4900000000000p-1, 0x1.2d80000000000p+0, 0x1.b700000000000p+0, 0x1.2000000000000p+1}},
      {ND_FLOAT32, 0, 0x1.999999999999ap-4, 0x1.ccccccccccccdp-1, 3, ND_FLOAT32, {0x1.99999a0000000p-4, 0x1.7777780000000p-2, 0x1.4444440000000p-1, 0x1.cccccc0000000p-1}},
      {ND_FLOAT32, 1, 0x1.0000000000000p+1, 0x1.0000000000000p+1, 2, ND_FLOAT32, {0x1.8000000000000p+0, 0x1.0000000000000p+1, 0x1.4000000000000p+1}},
      {ND_INT32, 1, -0x1.c000000000000p+2, 0x1.9000000000000p+6, 6, ND_FLOAT64, {-0x1.c000000000000p+2, 0x1.5aaaaaaaaaaaap+3, 0x1.caaaaaaaaaaaap+4, 0x1.7400000000000p+5, 0x1.0155555555555p+6, 0x1.48aaaaaaaaaaap+6, 0x1.9000000000000p+6}},
      {ND_FLOAT32, 1, 0x1.0624de0000000p-10, 0x1.edd2f20000000p+6, 9, ND_FLOAT32, {0x1.0624de0000000p-10, 0x1.b6fbae0000000p+3, 0x1.b6f7940000000p+4, 0x1.4938a80000000p+5, 0x1.b6f5880000000p+5, 0x1.1259340000000p+6, 0x1.4937a20000000p+6, 0x1.8016120000000p+6, 0x1.b6f4820000000p+6, 0x1.edd2f20000000p+6}},
      {ND_UINT8, 0, 0x0.0p+0, 0x1.0000000000000p+0, 3, ND_FLOAT64, {0x0.0p+0, 0x1.5555555555555p-2, 0x1.5555555555555p-1, 0x1.0000000000000p+0}},
      {ND_FLOAT16, 0, 0x1.999999999999ap-4, 0x1.3333333333333p-2, 5, ND_FLOAT16, {0x1.9980000000000p-4, 0x1.1ec0000000000p-3, 0x1.70c0000000000p-3, 0x1.c280000000000p-3, 0x1.0a40000000000p-2, 0x1.3340000000000p-2}},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    double e[11];
    nd_dtype edt;
    ND_ASSERT_OK(nd__histogram_edges(FN, c[i].data, c[i].auto_range, c[i].lo, c[i].hi, c[i].bins, &edt, e));
    ck_assert_msg(edt == c[i].edt, "case %zu: edge dtype %s, want %s", i, nd_dtype_name(edt),
                  nd_dtype_name(c[i].edt));
    for (int64_t j = 0; j <= c[i].bins; j++)
      ck_assert_msg(e[j] == c[i].e[j], "case %zu: edge %lld = %a, want %a", i, (long long)j, e[j], c[i].e[j]);
  }
  double e[2];
  nd_dtype edt = ND_BOOL;
  ND_ASSERT_FAILS(nd__histogram_edges("nd_histogram", ND_FLOAT64, 0, 0, 1, 0, &edt, e), ND_ERR_VALUE,
                  "nd_histogram: `bins` must be positive, when an integer (got 0)");
  ck_assert_int_eq(edt, ND_BOOL);
}
END_TEST

static Suite *reduce_host_suite(void) {
  Suite *s = suite_create("reduce_host");
  TCase *t = tcase_create("axes");
  tcase_add_test(t, test_axes_basic);
  tcase_add_test(t, test_axes_zero_size);
  tcase_add_test(t, test_axes_errors);
  tcase_add_test(t, test_axes_all_subsets);
  suite_add_tcase(s, t);
  t = tcase_create("dtypes");
  tcase_add_test(t, test_dtypes_sum_prod);
  tcase_add_test(t, test_dtypes_mean_var);
  tcase_add_test(t, test_dtypes_order_stats);
  tcase_add_test(t, test_dtypes_requested);
  tcase_add_test(t, test_via_and_storage);
  suite_add_tcase(s, t);
  t = tcase_create("empty_and_out");
  tcase_add_test(t, test_empty_decision);
  tcase_add_test(t, test_check_out);
  suite_add_tcase(s, t);
  t = tcase_create("plan");
  tcase_add_test(t, test_plan_targets);
  tcase_add_test(t, test_plan_collapse_and_flip);
  tcase_add_test(t, test_plan_property);
  tcase_set_timeout(t, 120);
  suite_add_tcase(s, t);
  t = tcase_create("histogram");
  tcase_add_test(t, test_histogram_edges_numpy);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(reduce_host_suite()); }
