/* The error model: status names and strings from the X-macro, thread-local messages, vendor
 * conversions. Host only. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/internal.h"
#include "tests/nd_test.h"

START_TEST(names_and_strings_cover_every_status) {
  /* The enum, names and strings all come from ND_STATUS_MAP: check each value round-trips
   * and that the values are explicit and dense from 0. */
  int count = 0;
#define X(name, value, text)                                          \
  ck_assert_int_eq(ND_##name, value);                                 \
  ck_assert_str_eq(nd_status_name(ND_##name), #name);                 \
  ck_assert_str_eq(nd_status_string(ND_##name), text);                \
  count++;
  ND_STATUS_MAP(X)
#undef X
  ck_assert_int_eq(count, 28);
  ck_assert_int_eq(ND_OK, 0);
  ck_assert_str_eq(nd_status_name((nd_status)999), "UNKNOWN");
  ck_assert_str_eq(nd_status_string((nd_status)-1), "unknown status");
  ck_assert_str_eq(nd_status_name(ND_ERR_SINGULAR), "ERR_SINGULAR");
}
END_TEST

START_TEST(error_sets_thread_local_message) {
  nd_clear_error();
  ck_assert_str_eq(nd_last_error(), "");
  nd_status st = nd__error(ND_ERR_SHAPE, "nd_add: shapes %s and %s cannot broadcast", "(3, 4)", "(5,)");
  ck_assert_int_eq(st, ND_ERR_SHAPE);
  ck_assert_str_eq(nd_last_error(), "nd_add: shapes (3, 4) and (5,) cannot broadcast");
  nd__error_context(st, "outer");
  ck_assert_str_eq(nd_last_error(), "outer: nd_add: shapes (3, 4) and (5,) cannot broadcast");
}
END_TEST

static void *other_thread(void *arg) {
  (void)arg;
  static _Thread_local char seen[64];
  snprintf(seen, sizeof seen, "%s", nd_last_error());
  nd__error(ND_ERR_VALUE, "from the other thread");
  return strcmp(seen, "") == 0 ? (void *)1 : NULL;
}

START_TEST(messages_do_not_cross_threads) {
  nd__error(ND_ERR_AXIS, "main thread message");
  pthread_t t;
  void *ok = NULL;
  ck_assert_int_eq(pthread_create(&t, NULL, other_thread, NULL), 0);
  pthread_join(t, &ok);
  ck_assert_ptr_nonnull(ok); /* the new thread started with an empty message */
  ck_assert_str_eq(nd_last_error(), "main thread message");
}
END_TEST

START_TEST(long_messages_are_truncated_not_overflowed) {
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  nd__error(ND_ERR_VALUE, "%s", big);
  ck_assert_uint_eq(strlen(nd_last_error()), 2047);
  nd__error_context(ND_ERR_VALUE, "prefix");
  ck_assert_uint_eq(strlen(nd_last_error()), 2047);
  ck_assert(strncmp(nd_last_error(), "prefix: xxx", 11) == 0);
}
END_TEST

START_TEST(vendor_conversions_name_the_error) {
  /* cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 */
  nd_status st = ND_CUDA(1);
  ck_assert_int_eq(st, ND_ERR_CUDA);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "cudaErrorInvalidValue"));
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "test_status.c"));
  ck_assert_int_eq(ND_CUDA(2), ND_ERR_OUT_OF_MEMORY);
  ck_assert_int_eq(ND_CUDA(0), ND_OK);
  /* CUBLAS_STATUS_NOT_INITIALIZED = 1, CUSOLVER_STATUS_INVALID_VALUE = 3,
   * CURAND_STATUS_TYPE_ERROR = 103, NVRTC_ERROR_COMPILATION = 6 */
  ck_assert_int_eq(ND_CUBLAS(1), ND_ERR_CUBLAS);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "CUBLAS_STATUS_NOT_INITIALIZED"));
  ck_assert_int_eq(ND_CUSOLVER(3), ND_ERR_CUSOLVER);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "CUSOLVER_STATUS_INVALID_VALUE"));
  ck_assert_int_eq(ND_CURAND(103), ND_ERR_CURAND);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "CURAND_STATUS_TYPE_ERROR"));
  ck_assert_int_eq(ND_NVRTC(6), ND_ERR_NVRTC);
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "NVRTC_ERROR_COMPILATION"));
}
END_TEST

static int calls;
static int counted(int v) {
  calls++;
  return v;
}

START_TEST(check_macros_evaluate_once) {
  calls = 0;
  (void)ND_CUDA(counted(1));
  ck_assert_int_eq(calls, 1);
  calls = 0;
  (void)ND_CUBLAS(counted(1));
  ck_assert_int_eq(calls, 1);
}
END_TEST

START_TEST(version_matches_header) {
  ck_assert_uint_eq(nd_version(), ND_VERSION_HEX);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", ND_VERSION_MAJOR, ND_VERSION_MINOR, ND_VERSION_PATCH);
  ck_assert_str_eq(nd_version_string(), want);
}
END_TEST

START_TEST(format_shape_like_numpy) {
  char b[ND__SHAPE_STR];
  int64_t s[3] = {3, 4, 5};
  ck_assert_str_eq(nd__format_shape(b, sizeof b, 0, s), "()");
  ck_assert_str_eq(nd__format_shape(b, sizeof b, 1, s), "(3,)");
  ck_assert_str_eq(nd__format_shape(b, sizeof b, 3, s), "(3, 4, 5)");
  char small[5];
  ck_assert_str_eq(nd__format_shape(small, sizeof small, 3, s), "(3, ");
}
END_TEST

int main(void) {
  Suite *s = suite_create("status");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, names_and_strings_cover_every_status);
  tcase_add_test(tc, error_sets_thread_local_message);
  tcase_add_test(tc, messages_do_not_cross_threads);
  tcase_add_test(tc, long_messages_are_truncated_not_overflowed);
  tcase_add_test(tc, vendor_conversions_name_the_error);
  tcase_add_test(tc, check_macros_evaluate_once);
  tcase_add_test(tc, version_matches_header);
  tcase_add_test(tc, format_shape_like_numpy);
  suite_add_tcase(s, tc);
  return nd_test_main(s);
}
