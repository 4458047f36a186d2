/* peer_race: data produced on one GPU, copied to another and consumed there, with no manual
 * event anywhere.
 *
 * Each trial keeps a non-blocking stream of device 0 busy, fills x there (late), copies x to
 * device 1 with nd_array_to_device (on device 1's default stream), and doubles the copy on a
 * non-blocking stream of device 1. Three streams on two devices, none of which waits for the
 * others by itself: a library that does not track where data came from copies x before it is
 * filled, or doubles y before it has arrived, and gets the previous trial's numbers. ndcuda
 * recorded the fill on device 0's stream and the copy on device 1's, so the copy waits for the
 * fill and the doubling for the copy, through events, without the host waiting.
 *
 * Run: build/examples/peer_race [trials]   (1..10000, default 20; ND_AUTO_EVENTS=0 shows the race)
 * Exit status: 0 every trial right, 1 some wrong, 2 bad arguments, 77 fewer than two GPUs. */
#include <errno.h>
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

enum { N = 1 << 22 };

int main(int argc, char **argv) {
  long trials = 20;
  char *end = NULL;
  if (argc > 2 || (argc == 2 && ((errno = 0), (trials = strtol(argv[1], &end, 10)), errno != 0 ||
                                 end == argv[1] || *end != '\0' || trials < 1 || trials > 10000))) {
    fprintf(stderr, "usage: peer_race [trials (1..10000, default 20)]\n");
    return 2;
  }
  int ndev = 0;
  CHECK(nd_device_count(&ndev));
  if (ndev < 2) {
    fprintf(stderr, "peer_race: %d GPU(s) here, two are needed; skipped\n", ndev);
    return 77;
  }
  int peer = 0;
  CHECK(nd_device_can_access_peer(0, 1, &peer));
  printf("device 0 -> device 1: %s\n", peer ? "peer to peer" : "staged through the host");

  nd_stream *s0, *s1;
  CHECK(nd_device_set(1));
  CHECK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  CHECK(nd_device_set(0));
  CHECK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s0));
  int64_t shape[1] = {N}, big_shape[1] = {1 << 27};
  nd_array *x, *big;
  CHECK(nd_zeros(1, shape, ND_FLOAT32, &x));
  CHECK(nd_zeros(1, big_shape, ND_FLOAT32, &big));
  static float host[N];
  int bad_trials = 0;
  for (int t = 0; t < trials; t++) {
    const float v = (float)(t % 50 + 1);
    /* Device 0: a couple of milliseconds of queued work, then the fill, on s0. */
    CHECK(nd_device_set(0));
    CHECK(nd_stream_push(s0));
    for (int r = 0; r < 4; r++) CHECK(nd_add(big, big, big, NULL));
    CHECK(nd_array_fill(x, nd_scalar_float(v)));
    CHECK(nd_stream_pop());
    /* The copy: enqueued on device 1's current stream (its default stream here). */
    nd_array *y, *z;
    CHECK(nd_array_to_device(x, 1, &y));
    /* Device 1: the consumer on a non-blocking stream. */
    CHECK(nd_device_set(1));
    CHECK(nd_stream_push(s1));
    CHECK(nd_add(y, y, NULL, &z));
    CHECK(nd_array_to_host(z, host, sizeof host)); /* waits for z's producer only */
    CHECK(nd_stream_pop());
    int bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != 2.0f * v;
    printf("trial %2d: %s (%d wrong elements)\n", t, bad ? "WRONG" : "ok", bad);
    bad_trials += bad != 0;
    nd_array_release(z);
    nd_array_release(y);
    CHECK(nd_device_synchronize(0));
    CHECK(nd_device_synchronize(1));
  }
  nd_array_release(x);
  nd_array_release(big);
  CHECK(nd_device_synchronize(0));
  CHECK(nd_device_synchronize(1));
  CHECK(nd_stream_destroy(s0));
  CHECK(nd_stream_destroy(s1));
  printf("peer_race: %d of %ld trials wrong\n", bad_trials, trials);
  return bad_trials ? 1 : 0;
}
