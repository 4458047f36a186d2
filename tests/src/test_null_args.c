/* NULL for every required pointer argument of every public function.
 *
 * The cases come from tests/src/gen_null_cases.py, which reads every `ND_API nd_status`
 * declaration in the public headers (include/ndcuda) at build time: one case per pointer parameter, that
 * parameter NULL and every other argument valid-looking. A function added to a header is
 * covered without a change here; a parameter that the header documents as optional is listed
 * in the generator with the sentence that says so.
 *
 * Each case must return ND_ERR_NULL_POINTER with a message that starts with the function's
 * own name, and must not crash (each case runs in its own forked process, so a crash is
 * reported against the function and parameter that caused it). No device is needed: arrays
 * are headers over a buffer that is never touched, and a function that reaches the device
 * before noticing the NULL fails the test (with ND_ERR_NO_DEVICE here, or by using the NULL
 * on a machine with a GPU). */
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "src/array.h"
#include "src/buffer.h"
#include "tests/nd_test.h"

/* Argument values: a case uses those its function's parameter types need. */
#define ND_UNUSED __attribute__((unused))

typedef struct nd_null_case {
  const char *function;
  const char *parameter;
  const char *named; /* the name its messages carry: the function's own, but see the generator */
  nd_status (*call)(void);
} nd_null_case;

/* A buffer header that no case may touch through its pointer (NULL), and enough references
 * that a function retaining and releasing it never frees it. */
static nd__buffer fake_buffer;
static nd_array A;
static ND_UNUSED const nd_array *ARRS[4] = {&A, &A, &A, &A};
static ND_UNUSED const int64_t I64[ND_MAXDIMS] = {1, 1, 1, 1, 1, 1, 1, 1};
static ND_UNUSED const int64_t *const I64P[4] = {I64, I64, I64, I64};
static ND_UNUSED const int I32[ND_MAXDIMS] = {1, 1, 1, 1, 1, 1, 1, 1};
static ND_UNUSED const double DBL[4] = {0.0, 1.0, 0.0, 1.0};
static ND_UNUSED const nd_dtype DTS[4] = {ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64};
static ND_UNUSED nd_operand OPS[4];
static ND_UNUSED const nd_slice SLICES[ND_MAXDIMS] = {[0 ... ND_MAXDIMS - 1] = {ND_NONE, ND_NONE, ND_NONE}};
static ND_UNUSED const char *STR = "float64";
static ND_UNUSED alignas(64) unsigned char HOST[4096];
/* Zeroed memory standing in for a stream, event or generator handle: large and aligned enough
 * for any of those structs; a case only passes one where another argument is the NULL. */
static ND_UNUSED alignas(64) unsigned char FAKE_HANDLE[1 << 16];
static ND_UNUSED nd_array *R;
static ND_UNUSED void *VP;
static ND_UNUSED int I;
static ND_UNUSED int64_t L;
static ND_UNUSED float F;
static ND_UNUSED nd_dtype DT;
static ND_UNUSED nd_scalar SC;
static ND_UNUSED nd_memory_stats MS;
static ND_UNUSED nd_stream *STREAM;
static ND_UNUSED nd_event *EVENT;
static ND_UNUSED nd_generator *GEN;

#include "null_args_cases.inc"

static void setup(void) {
  memset(&fake_buffer, 0, sizeof fake_buffer);
  atomic_init(&fake_buffer.refs, 1 << 20);
  memset(&A, 0, sizeof A);
  atomic_init(&A.refs, 1 << 20);
  A.dtype = ND_FLOAT64;
  A.ndim = 2;
  A.writeable = 1;
  A.size = 4;
  A.shape[0] = A.shape[1] = 2;
  A.strides[0] = 16;
  A.strides[1] = 8;
  A.buf = &fake_buffer;
  for (int i = 0; i < 4; i++) OPS[i] = nd_arg(&A);
  R = (nd_array *)0x1234;
}

START_TEST(null_is_reported) {
  const nd_null_case *c = &nd_null_cases[_i];
  nd_clear_error();
  nd_status st = c->call();
  const char *msg = nd_last_error();
  size_t n = strlen(c->named);
  ck_assert_msg(st == ND_ERR_NULL_POINTER, "%s with %s = NULL: expected ERR_NULL_POINTER, got %s (%s)",
                c->function, c->parameter, nd_status_name(st), msg);
  ck_assert_msg(strncmp(msg, c->named, n) == 0 && msg[n] == ':',
                "%s with %s = NULL: the message '%s' does not start with the function's name",
                c->function, c->parameter, msg);
  ck_assert_msg(R == (nd_array *)0x1234, "%s with %s = NULL wrote a result", c->function, c->parameter);
}
END_TEST

/* The generator found the headers: a broken pattern there would silently test nothing. */
START_TEST(every_function_is_read) {
  ck_assert_int_ge(ND_NULL_NFUNCS, 250);
  ck_assert_int_ge((int)(sizeof nd_null_cases / sizeof nd_null_cases[0]), 500);
}
END_TEST

static Suite *null_suite(void) {
  Suite *s = suite_create("null_args");
  TCase *t = tcase_create("null");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_add_test(t, every_function_is_read);
  tcase_add_loop_test(t, null_is_reported, 0, (int)(sizeof nd_null_cases / sizeof nd_null_cases[0]));
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(null_suite()); }
