/* Host suite: argument rules and messages of the public functions that are decided before any
 * device work, checked against what NumPy does (its exception becomes an ndcuda status with a
 * message that names the public function the caller called).
 *
 * Arrays here are headers over a buffer that is never touched: every call below fails before
 * it would reach the device, so the suite needs no GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/api_scope.h"
#include "src/array.h"
#include "ndcuda/linalg.h"
#include "tests/nd_test.h"

static nd__buffer fake_buffer;

static nd_array fake(nd_dtype dt, int ndim, const int64_t *shape) {
  nd_array a;
  memset(&a, 0, sizeof a);
  atomic_init(&a.refs, 1 << 20);
  a.dtype = dt;
  a.ndim = ndim;
  a.writeable = 1;
  a.size = 1;
  for (int i = 0; i < ndim; i++) {
    a.shape[i] = shape[i];
    a.size *= shape[i];
  }
  nd__strides_c(ndim, shape, (int64_t)nd_dtype_itemsize(dt), a.strides);
  a.buf = &fake_buffer;
  return a;
}

static void setup(void) { atomic_init(&fake_buffer.refs, 1 << 20); }

#define SENTINEL ((nd_array *)0x1234)

/* Starts with "fn:" exactly. */
static void assert_named(const char *fn) {
  const size_t n = strlen(fn);
  ck_assert_msg(strncmp(nd_last_error(), fn, n) == 0 && nd_last_error()[n] == ':',
                "message '%s' does not start with '%s:'", nd_last_error(), fn);
}

/* ---- messages name the function the caller called ------------------------------------- */

START_TEST(delegating_functions_name_themselves) {
  nd_array a = fake(ND_FLOAT64, 2, (int64_t[]){2, 3});
  nd_array *r = SENTINEL;
  ND_ASSERT_FAILS(nd_array_transpose(&a, 1, (int64_t[]){0}, &r), ND_ERR_AXIS, "axes don't match array");
  assert_named("nd_array_transpose");
  ND_ASSERT_FAILS(nd_array_transpose(&a, 2, (int64_t[]){0, 0}, &r), ND_ERR_AXIS, "");
  assert_named("nd_array_transpose");
  ND_ASSERT_FAILS(nd_trace(&a, 0, 0, 5, ND_DTYPE_DEFAULT, &r), ND_ERR_AXIS, "axis 5 is out of bounds");
  assert_named("nd_trace");
  ND_ASSERT_FAILS(nd_empty_order(1, (int64_t[]){-1}, ND_FLOAT64, ND_ORDER_F, &r), ND_ERR_INVALID_ARGUMENT, "");
  assert_named("nd_empty_order");
  ND_ASSERT_FAILS(nd_empty_order(1, (int64_t[]){2}, ND_FLOAT64, ND_ORDER_K, &r), ND_ERR_INVALID_ARGUMENT, "order");
  assert_named("nd_empty_order");
  ND_ASSERT_FAILS(nd_identity(-1, ND_FLOAT64, &r), ND_ERR_VALUE, "negative dimensions");
  assert_named("nd_identity");
  ND_ASSERT_FAILS(nd_linalg_norm(&a, 1.0, 1, NULL, 0, &r), ND_ERR_NULL_POINTER, "axes");
  assert_named("nd_linalg_norm");
  ck_assert_ptr_eq(r, SENTINEL);
  /* A scope ends with its function: the next error names its own function again. */
  ND_ASSERT_FAILS(nd_array_permute_dims(&a, 1, (int64_t[]){0}, &r), ND_ERR_AXIS, "");
  assert_named("nd_array_permute_dims");
}
END_TEST

/* The mechanism itself, for errors that cannot be provoked without a device (an
 * out-of-memory inside nd_histogram's range, inside nd_linalg_norm's SVD). */
static nd_status inner_helper(void) { return nd__error(ND_ERR_OUT_OF_MEMORY, "nd_amin: out of memory for 8 bytes"); }
static nd_status nested_public(void) {
  ND__API_SCOPE("nd_linalg_svd");
  return inner_helper();
}
static nd_status outer_public(int nested) {
  ND__API_SCOPE("nd_histogram");
  if (nested) return nested_public();
  nd_status st = inner_helper();
  return nd__error_context(st, "nd_histogram");
}

START_TEST(api_scope_renames_helper_messages) {
  ck_assert_int_eq(outer_public(0), ND_ERR_OUT_OF_MEMORY);
  ck_assert_str_eq(nd_last_error(), "nd_histogram: out of memory for 8 bytes");
  ck_assert_int_eq(outer_public(1), ND_ERR_OUT_OF_MEMORY);
  ck_assert_str_eq(nd_last_error(), "nd_histogram: out of memory for 8 bytes");
  ck_assert_int_eq(nested_public(), ND_ERR_OUT_OF_MEMORY);
  ck_assert_str_eq(nd_last_error(), "nd_linalg_svd: out of memory for 8 bytes");
  /* Outside any scope nothing is renamed, and context is still prepended. */
  ck_assert_int_eq(inner_helper(), ND_ERR_OUT_OF_MEMORY);
  ck_assert_str_eq(nd_last_error(), "nd_amin: out of memory for 8 bytes");
  nd__error_context(ND_ERR_OUT_OF_MEMORY, "nd_eye");
  ck_assert_str_eq(nd_last_error(), "nd_eye: nd_amin: out of memory for 8 bytes");
  /* A message that does not start with a function name is left alone. */
  {
    ND__API_SCOPE("nd_trace");
    nd__error(ND_ERR_CUDA, "cudaMalloc failed");
  }
  ck_assert_str_eq(nd_last_error(), "cudaMalloc failed");
}
END_TEST

/* nd_host_alloc_pinned's failure: one prefix, no path of the building machine. Without a
 * device the allocation fails for that reason; on a machine with one, 2^62 bytes fail. */
START_TEST(pinned_allocation_message) {
  void *p = (void *)0x1;
  nd_status st = nd_host_alloc_pinned((size_t)1 << 62, &p);
  ck_assert_int_ne(st, ND_OK);
  ck_assert_ptr_null(p);
  assert_named("nd_host_alloc_pinned");
  ck_assert_msg(strstr(nd_last_error() + 1, "nd_host_alloc_pinned") == NULL, "prefix repeated: %s", nd_last_error());
  ck_assert_msg(strchr(nd_last_error(), '/') == NULL, "a path in '%s'", nd_last_error());
}
END_TEST

/* ---- values NumPy refuses --------------------------------------------------------------- */

/* np.full(3, 300, dtype=uint8) and np.zeros(3, uint8).fill(300): OverflowError "Python integer
 * 300 out of bounds for uint8"; fill of an int or float array with a Python complex:
 * TypeError, while full takes it (copyto with unsafe casting drops the imaginary part). Array
 * scalars convert unsafely (the values need the device). */
START_TEST(full_and_fill_check_python_scalars) {
  nd_array *r = SENTINEL;
  const int64_t n = 3;
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(300), ND_UINT8, &r), ND_ERR_VALUE,
                  "nd_full: Python integer 300 out of bounds for uint8");
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(-1), ND_UINT32, &r), ND_ERR_VALUE,
                  "nd_full: Python integer -1 out of bounds for uint32");
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(128), ND_INT8, &r), ND_ERR_VALUE, "128 out of bounds for int8");
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(-129), ND_INT8, &r), ND_ERR_VALUE, "-129 out of bounds for int8");
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(INT64_C(1) << 32), ND_INT32, &r), ND_ERR_VALUE, "int32");
  ND_ASSERT_FAILS(nd_full(1, &n, nd_scalar_int(-1), ND_UINT64, &r), ND_ERR_VALUE, "uint64");
  /* full accepts a Python complex: without a device it gets as far as the allocation */
  nd_status st = nd_full(1, &n, nd_scalar_complex(1, 2), ND_INT32, &r);
  ck_assert_msg(st != ND_ERR_DTYPE && st != ND_ERR_VALUE, "full(1+2j, int32): %s", nd_last_error());
  if (st == ND_OK) nd_array_release(r), r = SENTINEL;
  nd_array u8 = fake(ND_UINT8, 1, &n), i32 = fake(ND_INT32, 1, &n), f64 = fake(ND_FLOAT64, 1, &n);
  ND_ASSERT_FAILS(nd_full_like(&u8, nd_scalar_int(256), ND_DTYPE_DEFAULT, &r), ND_ERR_VALUE,
                  "nd_full_like: Python integer 256 out of bounds for uint8");
  ND_ASSERT_FAILS(nd_full_like(&f64, nd_scalar_int(-5), ND_UINT16, &r), ND_ERR_VALUE, "uint16");
  ND_ASSERT_FAILS(nd_array_fill(&u8, nd_scalar_int(300)), ND_ERR_VALUE,
                  "nd_array_fill: Python integer 300 out of bounds for uint8");
  ND_ASSERT_FAILS(nd_array_fill(&i32, nd_scalar_complex(1, 2)), ND_ERR_DTYPE, "nd_array_fill");
  /* a Python float into an integer array goes through int() in fill (full casts it) */
  nd_array i8 = fake(ND_INT8, 1, &n);
  ND_ASSERT_FAILS(nd_array_fill(&i8, nd_scalar_float(300.0)), ND_ERR_VALUE,
                  "nd_array_fill: Python integer 300 out of bounds for int8");
  ND_ASSERT_FAILS(nd_array_fill(&i8, nd_scalar_float(-128.9 - 1)), ND_ERR_VALUE, "-129 out of bounds for int8");
  ND_ASSERT_FAILS(nd_array_fill(&u8, nd_scalar_float(-1.0)), ND_ERR_VALUE, "-1 out of bounds for uint8");
  ND_ASSERT_FAILS(nd_array_fill(&i32, nd_scalar_float(NAN)), ND_ERR_VALUE, "nd_array_fill: cannot convert float NaN to integer");
  ND_ASSERT_FAILS(nd_array_fill(&i32, nd_scalar_float(-INFINITY)), ND_ERR_VALUE, "cannot convert float infinity");
  nd_array u64 = fake(ND_UINT64, 1, &n);
  ND_ASSERT_FAILS(nd_array_fill(&u64, nd_scalar_float(18446744073709551616.0)), ND_ERR_VALUE, "uint64");
  ND_ASSERT_FAILS(nd_array_fill(&f64, nd_scalar_complex(1, 0)), ND_ERR_DTYPE, "nd_array_fill");
  /* Empty arrays are checked too, as NumPy converts the value before looking at the size. */
  const int64_t zero = 0;
  nd_array e8 = fake(ND_INT8, 1, &zero);
  ND_ASSERT_FAILS(nd_array_fill(&e8, nd_scalar_int(1000)), ND_ERR_VALUE, "int8");
  ck_assert_ptr_eq(r, SENTINEL);
}
END_TEST

/* np.linalg.cond of matrices with no elements: LinAlgError "cond is not defined on empty
 * arrays", whatever p (NumPy checks before anything else). */
START_TEST(cond_of_empty_matrices_is_refused) {
  nd_array *r = SENTINEL;
  const double ps[] = {ND_NORM_DEFAULT, ND_NORM_FRO, 1, -1, 2, -2, INFINITY, -INFINITY};
  const int64_t shapes[3][3] = {{0, 0, 0}, {2, 0, 0}, {3, 4, 0}};
  const int nds[3] = {2, 3, 3};
  const nd_dtype dts[2] = {ND_COMPLEX128, ND_FLOAT32};
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 2; d++) {
      nd_array x = fake(dts[d], nds[k], shapes[k]);
      for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        ND_ASSERT_FAILS(nd_linalg_cond(&x, ps[i], &r), ND_ERR_VALUE,
                        "nd_linalg_cond: cond is not defined on empty arrays");
    }
  ck_assert_ptr_eq(r, SENTINEL);
}
END_TEST

/* np.quantile of a bool array: TypeError (numpy boolean subtract). */
START_TEST(quantiles_of_bool_are_refused) {
  const int64_t n = 4;
  nd_array b = fake(ND_BOOL, 1, &n);
  nd_array *r = SENTINEL;
  const double q[2] = {0.25, 0.5};
  ND_ASSERT_FAILS(nd_quantile(&b, 0.5, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_quantile: quantiles of a bool");
  ND_ASSERT_FAILS(nd_quantiles(&b, 2, q, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_quantiles");
  ND_ASSERT_FAILS(nd_percentile(&b, 50, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_percentile");
  ND_ASSERT_FAILS(nd_percentiles(&b, 2, q, 0, NULL, 0, NULL, &r), ND_ERR_DTYPE, "nd_percentiles");
  ck_assert_ptr_eq(r, SENTINEL);
}
END_TEST

/* Only -1 means the current device; -2 is an error whether or not a device exists. */
START_TEST(memory_device_argument) {
  nd_memory_stats s;
  ND_ASSERT_FAILS(nd_memory_stats_get(-2, &s), ND_ERR_INVALID_ARGUMENT, "nd_memory_stats_get: device -2");
  ND_ASSERT_FAILS(nd_memory_stats_get(INT32_MIN, &s), ND_ERR_INVALID_ARGUMENT, "nd_memory_stats_get");
  ND_ASSERT_FAILS(nd_memory_set_limit(-7, 0), ND_ERR_INVALID_ARGUMENT, "nd_memory_set_limit: device -7");
  ND_ASSERT_FAILS(nd_memory_reset_peak(-3), ND_ERR_INVALID_ARGUMENT, "nd_memory_reset_peak");
  ND_ASSERT_FAILS(nd_memory_release_cached(-3), ND_ERR_INVALID_ARGUMENT, "nd_memory_release_cached");
  nd_status st = nd_memory_stats_get(-1, &s);
  ck_assert_msg(st == ND_OK || st == ND_ERR_NO_DEVICE, "-1: %s", nd_status_name(st));
}
END_TEST

/* The raw-stream bracket's argument checks. */
START_TEST(wait_record_arguments) {
  nd_array a = fake(ND_FLOAT32, 1, (int64_t[]){4});
  ND_ASSERT_FAILS(nd_array_wait(&a, 0, NULL), ND_ERR_INVALID_ARGUMENT, "nd_array_wait: access must be");
  ND_ASSERT_FAILS(nd_array_record(&a, 7, NULL), ND_ERR_INVALID_ARGUMENT, "nd_array_record: access must be");
  ND_ASSERT_FAILS(nd_array_wait(NULL, ND_ACCESS_READ, NULL), ND_ERR_NULL_POINTER, "nd_array_wait");
}
END_TEST

static Suite *api_host_suite(void) {
  Suite *s = suite_create("api_host");
  TCase *t = tcase_create("messages");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_add_test(t, delegating_functions_name_themselves);
  tcase_add_test(t, api_scope_renames_helper_messages);
  tcase_add_test(t, pinned_allocation_message);
  suite_add_tcase(s, t);
  t = tcase_create("values");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_add_test(t, full_and_fill_check_python_scalars);
  tcase_add_test(t, quantiles_of_bool_are_refused);
  tcase_add_test(t, cond_of_empty_matrices_is_refused);
  tcase_add_test(t, memory_device_argument);
  tcase_add_test(t, wait_record_arguments);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(api_host_suite()); }
