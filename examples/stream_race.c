/* stream_race: the cross-stream race of a batched inverse, written against ndcuda.
 *
 * A batch of identity matrices is filled on the legacy null stream while that stream is
 * still busy, then inverted on a non-blocking stream. A non-blocking stream does not wait for
 * the null stream, so a library that does not track where data came from can invert
 * matrices that are not filled yet and return NaN/inf some of the time. ndcuda records that
 * the identities were produced on the null stream and makes the inverse wait for them, so
 * every trial prints the right answer.
 *
 * Each trial scales its identities by a different power of two (2, 4, 8, 16, 2, ...), so an
 * inverse that ran early cannot pass by reading the previous trial's matrices, which the
 * memory pool hands back in the same place.
 *
 * Run: build/examples/stream_race [trials]   (1..10000, default 20; ND_AUTO_EVENTS=0 shows the race)
 * Exit status: 0 every trial right, 1 some wrong, 2 bad arguments, 77 no GPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ndcuda.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    nd_status st_ = (call);                                                                \
    if (st_ != ND_OK) {                                                                    \
      fprintf(stderr, "%s failed: %s\n  %s\n", #call, nd_status_name(st_), nd_last_error()); \
      return st_ == ND_ERR_NO_DEVICE ? 77 : 1;                                             \
    }                                                                                      \
  } while (0)

enum { BATCH = 4096, N = 8 };

int main(int argc, char **argv) {
  long trials = 20;
  char *end = NULL;
  if (argc > 2 || (argc == 2 && ((errno = 0), (trials = strtol(argv[1], &end, 10)), errno != 0 ||
                                 end == argv[1] || *end != '\0' || trials < 1 || trials > 10000))) {
    fprintf(stderr, "usage: stream_race [trials (1..10000, default 20)]\n");
    return 2;
  }
  nd_stream *s;
  CHECK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  static float host[BATCH * N * N];
  /* Unchecked mode: a singular batch gives NaN/inf like CuPy instead of an error, so the
   * race (under ND_AUTO_EVENTS=0) shows as wrong numbers. */
  nd_linalg_set_checked(0);
  int bad_trials = 0;
  for (int t = 0; t < trials; t++) {
    /* Keep the null stream busy so the fill lands late: a large zero fill first. */
    nd_array *big, *eye, *batch, *inv;
    int64_t big_shape[1] = {1 << 27};
    CHECK(nd_zeros(1, big_shape, ND_FLOAT32, &big));
    for (int r = 0; r < 4; r++) CHECK(nd_add(big, big, big, NULL)); /* ~2 ms of queued work */
    int64_t shape[3] = {BATCH, N, N};
    CHECK(nd_eye(N, N, 0, ND_FLOAT32, &eye)); /* on the null stream */
    nd_array *view;
    CHECK(nd_array_broadcast_to(eye, 3, shape, &view));
    const double scale = (double)(2 << (t % 4));
    CHECK(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(view), nd_arg_scalar(nd_scalar_float(scale))},
                        NULL, &batch)); /* still on the null stream */
    nd_array_release(view);

    CHECK(nd_stream_push(s)); /* from here on, work goes to the non-blocking stream */
    CHECK(nd_linalg_inv(batch, &inv));
    CHECK(nd_array_to_host(inv, host, sizeof host));
    CHECK(nd_stream_pop());

    int bad = 0;
    for (int k = 0; k < BATCH * N * N; k++) {
      int i = (k / N) % N, j = k % N;
      if (!(host[k] == (i == j ? (float)(1.0 / scale) : 0.0f))) bad++;
    }
    printf("trial %2d: %s (%d wrong elements)\n", t, bad ? "WRONG" : "ok", bad);
    bad_trials += bad != 0;
    nd_array_release(inv);
    nd_array_release(batch);
    nd_array_release(eye);
    nd_array_release(big);
  }
  CHECK(nd_stream_destroy(s));
  printf("stream_race: %d of %ld trials wrong\n", bad_trials, trials);
  return bad_trials ? 1 : 0;
}
