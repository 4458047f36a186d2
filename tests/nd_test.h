/* Shared pieces of the Check suites: one runner and the GPU fixture.
 *
 * Each suite is one executable. Host suites call nd_test_main(); GPU suites call
 * nd_test_main_gpu(), which exits with 77 (CTest's SKIP_RETURN_CODE) when no CUDA device is
 * present, so that CTest reports them as skipped rather than passed. GPU suites run with
 * CK_FORK=no: forking after the CUDA runtime is initialised is not supported. */
#ifndef ND_TEST_H
#define ND_TEST_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ndcuda.h"

/* Exit code that CTest treats as "skipped". */
#define ND_TEST_SKIP 77

/* Per-test timeout in seconds for GPU suites (host suites use Check's default). */
#define ND_TEST_GPU_TIMEOUT 120

/* Runs the suite and returns the process exit code (0 when every test passed). */
int nd_test_main(Suite *suite);

/* Skips (returns 77) when no device exists, otherwise forces CK_FORK=no, applies the GPU
 * timeout to every test case, and runs the suite. */
int nd_test_main_gpu(Suite *suite);

/* 1 when a CUDA device is usable, 0 otherwise (no driver, no device). */
int nd_test_have_gpu(void);

/* Enqueues a kernel that keeps `stream` (a cudaStream_t) busy for about `microseconds`.
 * Returns the cudaError_t of the launch. */
int nd_test_spin(void *stream, double microseconds);

/* Asserts that an ndcuda call succeeded, printing the status and message otherwise. */
#define ND_ASSERT_OK(expr)                                                                   \
  do {                                                                                       \
    nd_status nd_t_st_ = (expr);                                                             \
    ck_assert_msg(nd_t_st_ == ND_OK, "%s failed: %s: %s", #expr, nd_status_name(nd_t_st_),   \
                  nd_last_error());                                                          \
  } while (0)

/* Asserts a specific failure status and that the message mentions `needle`. */
#define ND_ASSERT_FAILS(expr, status, needle)                                                 \
  do {                                                                                        \
    nd_clear_error();                                                                         \
    nd_status nd_t_st_ = (expr);                                                              \
    ck_assert_msg(nd_t_st_ == (status), "%s: expected %s, got %s (%s)", #expr,                \
                  nd_status_name(status), nd_status_name(nd_t_st_), nd_last_error());         \
    ck_assert_msg(strstr(nd_last_error(), (needle)) != NULL,                                  \
                  "%s: message '%s' does not mention '%s'", #expr, nd_last_error(), (needle)); \
  } while (0)

#endif /* ND_TEST_H */
