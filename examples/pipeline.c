/* pipeline: overlap host-to-device copies, kernels and device-to-host copies over N streams.
 *
 * A large float32 array in pinned (page-locked) host memory is cut into chunks. Each chunk is
 * copied to the GPU, run through a small polynomial (six elementwise kernels) and copied back,
 * and chunk c goes to stream c % N. With one stream every step waits for the one before it;
 * with several, the copy engines move one chunk in while another chunk is copied out and a
 * third is computed, so the whole job takes about as long as the longer of the two copy
 * directions. That is the bound printed beside the measured speedup:
 *
 *   bound = (time on one stream) / max(sum of H2D copy times, sum of D2H copy times)
 *
 * where both sums are measured in the same run by timing the copies alone. A second floor is
 * printed too: both directions' copies alone on the N streams (no kernels), which is what the
 * host link and the copy engines give when they move data both ways at once; the full job is
 * reported as a percentage of each.
 *
 * Each stream owns its own pair of device buffers and every chunk on that stream reuses them:
 * work on one stream runs in order, so reuse needs no synchronisation, and buffers that are
 * never shared between streams make ndcuda insert no cross-stream waits at all. (Had the
 * chunks been views of one big device buffer, the library would have ordered every write to
 * it after the previous one, correctly, and the streams would have run one after the other.)
 *
 * Run: build/examples/pipeline [streams [chunks [mebibytes]]]   (defaults 4 32 256)
 * Exit status: 0 results right, 1 wrong, 2 bad arguments, 77 no GPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ndcuda.h>

/* Returns from the enclosing function with the status when a call fails, after printing the
 * library's message; main turns the status into the exit code. */
#define TRY(call)                                                                              \
  do {                                                                                         \
    nd_status st_ = (call);                                                                    \
    if (st_ != ND_OK) {                                                                        \
      if (st_ != ND_ERR_NO_DEVICE) fprintf(stderr, "pipeline: %s\n  %s\n", #call, nd_last_error()); \
      return st_;                                                                              \
    }                                                                                          \
  } while (0)

enum { MAX_STREAMS = 32, REPS = 5 };
enum mode { FULL, H2D_ONLY, D2H_ONLY, COPIES };

/* The polynomial each chunk goes through, ((C0 x + C1) x + C2) x + C3, one operation per
 * kernel, as the host reference below computes it too. */
static const float C0 = 0.5f, C1 = -1.25f, C2 = 2.0f, C3 = 0.75f;

typedef struct job {
  int64_t n, chunk_len;
  int nchunks;
  float *in, *out;            /* pinned host memory */
  nd_stream *s[MAX_STREAMS];  /* non-blocking streams */
  nd_array *dx[MAX_STREAMS];  /* per-stream device input buffer, chunk_len elements */
  nd_array *dy[MAX_STREAMS];  /* per-stream device output buffer */
} job;

/* view = buf[0:len], a view (no copy) for the last, shorter chunk. */
static nd_status head(nd_array *buf, int64_t len, nd_array **view) {
  nd_slice sl = {0, len, 1};
  return nd_array_slice(buf, 1, &sl, view);
}

/* y = poly(x) with every intermediate written into y (out=y), so no memory is allocated. */
static nd_status poly(const nd_array *x, nd_array *y) {
  nd_operand xin = nd_arg(x), yin = nd_arg(y);
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){xin, nd_arg_scalar(nd_scalar_float(C0))}, y, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){yin, nd_arg_scalar(nd_scalar_float(C1))}, y, NULL));
  TRY(nd_multiply(y, x, y, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){yin, nd_arg_scalar(nd_scalar_float(C2))}, y, NULL));
  TRY(nd_multiply(y, x, y, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){yin, nd_arg_scalar(nd_scalar_float(C3))}, y, NULL));
  return ND_OK;
}

/* Enqueues every chunk over the first `ns` streams and returns the elapsed device time. A
 * timing event on stream 0 starts the clock and the other streams wait for it; at the end
 * stream 0 waits for an event from each of the others before the stop event, so the interval
 * covers all of them. The host blocks only once, on the stop event. */
static nd_status run(job *j, int ns, enum mode mode, float *ms) {
  nd_event *start, *stop, *done[MAX_STREAMS] = {0};
  TRY(nd_event_create(ND_EVENT_TIMING, &start));
  TRY(nd_event_create(ND_EVENT_TIMING, &stop));
  TRY(nd_event_record(start, j->s[0]));
  for (int k = 1; k < ns; k++) TRY(nd_stream_wait_event(j->s[k], start));

  for (int c = 0; c < j->nchunks; c++) {
    int k = c % ns;
    int64_t first = (int64_t)c * j->chunk_len;
    int64_t len = j->n - first < j->chunk_len ? j->n - first : j->chunk_len;
    size_t bytes = (size_t)len * sizeof(float);
    nd_array *x, *y;
    TRY(head(j->dx[k], len, &x));
    TRY(head(j->dy[k], len, &y));
    TRY(nd_stream_push(j->s[k])); /* everything below goes to stream k */
    if (mode != D2H_ONLY) TRY(nd_array_from_host_async(x, j->in + first, bytes));
    if (mode == FULL) TRY(poly(x, y));
    if (mode != H2D_ONLY) TRY(nd_array_to_host_async(y, j->out + first, bytes));
    TRY(nd_stream_pop());
    nd_array_release(x);
    nd_array_release(y);
  }

  for (int k = 1; k < ns; k++) {
    TRY(nd_event_create(ND_EVENT_DEFAULT, &done[k]));
    TRY(nd_event_record(done[k], j->s[k]));
    TRY(nd_stream_wait_event(j->s[0], done[k]));
  }
  TRY(nd_event_record(stop, j->s[0]));
  TRY(nd_event_synchronize(stop)); /* the host waits here, and only here */
  TRY(nd_event_elapsed_ms(start, stop, ms));
  for (int k = 1; k < ns; k++) nd_event_destroy(done[k]);
  nd_event_destroy(start);
  nd_event_destroy(stop);
  return ND_OK;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The median of REPS runs, after one warm-up run that also pays for first-use costs. */
static nd_status timed(job *j, int ns, enum mode mode, float *median) {
  float t[REPS], warm;
  TRY(run(j, ns, mode, &warm));
  for (int r = 0; r < REPS; r++) TRY(run(j, ns, mode, &t[r]));
  qsort(t, REPS, sizeof t[0], cmp_float);
  *median = t[REPS / 2];
  return ND_OK;
}

/* Counts the output elements that differ from the host's polynomial by more than a few
 * float32 roundings (the device computes the same operations in the same order). */
static int64_t count_wrong(const job *j) {
  int64_t wrong = 0;
  for (int64_t i = 0; i < j->n; i++) {
    float x = j->in[i];
    float y = x * C0;
    y = y + C1;
    y = y * x;
    y = y + C2;
    y = y * x;
    y = y + C3;
    if (!(fabsf(j->out[i] - y) <= 1e-6f * (1.0f + fabsf(y)))) wrong++;
  }
  return wrong;
}

static int parse(const char *s, long lo, long hi, long *v) {
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return errno == 0 && end != s && *end == '\0' && *v >= lo && *v <= hi;
}

static nd_status pipeline(job *j, int ns, int mib, int *wrong_runs) {
  float t1, tn, h2d, d2h, both;
  /* Every stream's buffers are allocated while that stream is current, so the first use on
   * it does not wait for the null stream. */
  for (int k = 0; k < ns; k++) {
    TRY(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &j->s[k]));
    TRY(nd_stream_push(j->s[k]));
    TRY(nd_empty(1, &j->chunk_len, ND_FLOAT32, &j->dx[k]));
    TRY(nd_empty(1, &j->chunk_len, ND_FLOAT32, &j->dy[k]));
    TRY(nd_stream_pop());
  }
  /* NaN bytes in the output before each checked run, so a chunk that was never written
   * cannot pass. */
  memset(j->out, 0xff, (size_t)j->n * sizeof(float));
  TRY(timed(j, 1, FULL, &t1));
  *wrong_runs += count_wrong(j) != 0;
  TRY(timed(j, 1, H2D_ONLY, &h2d));
  TRY(timed(j, 1, D2H_ONLY, &d2h));
  TRY(timed(j, ns, COPIES, &both));
  memset(j->out, 0xff, (size_t)j->n * sizeof(float));
  TRY(timed(j, ns, FULL, &tn));
  int64_t wrong = count_wrong(j);
  *wrong_runs += wrong != 0;

  float copy = h2d > d2h ? h2d : d2h;
  printf("pipeline: %d MiB in %d chunks, %d streams %.2f ms, 1 stream %.2f ms: speedup %.2fx "
         "(bound %.2fx: H2D %.2f ms, D2H %.2f ms; %d streams at %.0f%% of the longer direction, "
         "%.0f%% of both directions' copies at once on %d streams, %.2f ms); %s\n",
         mib, j->nchunks, ns, tn, t1, t1 / tn, t1 / copy, h2d, d2h, ns, 100.0 * copy / tn,
         100.0 * both / tn, ns, both, *wrong_runs ? "WRONG results" : "results ok");
  if (wrong) fprintf(stderr, "pipeline: %lld of %lld elements wrong\n", (long long)wrong, (long long)j->n);
  return ND_OK;
}

int main(int argc, char **argv) {
  long ns = 4, nchunks = 32, mib = 256;
  if (argc > 4 || (argc > 1 && !parse(argv[1], 1, MAX_STREAMS, &ns)) ||
      (argc > 2 && !parse(argv[2], 1, 4096, &nchunks)) || (argc > 3 && !parse(argv[3], 1, 4096, &mib))) {
    fprintf(stderr, "usage: pipeline [streams (1..%d) [chunks (1..4096) [mebibytes (1..4096)]]]\n",
            MAX_STREAMS);
    return 2;
  }
  job j = {0};
  j.n = mib * (1 << 20) / (int64_t)sizeof(float);
  j.nchunks = (int)nchunks;
  j.chunk_len = (j.n + nchunks - 1) / nchunks;
  if ((int64_t)(j.nchunks - 1) * j.chunk_len >= j.n) j.nchunks = (int)((j.n + j.chunk_len - 1) / j.chunk_len);

  int wrong_runs = 0;
  nd_status st = nd_host_alloc_pinned((size_t)j.n * sizeof(float), (void **)&j.in);
  if (st == ND_OK) st = nd_host_alloc_pinned((size_t)j.n * sizeof(float), (void **)&j.out);
  if (st != ND_OK && st != ND_ERR_NO_DEVICE) fprintf(stderr, "pipeline: %s\n", nd_last_error());
  if (st == ND_OK) {
    for (int64_t i = 0; i < j.n; i++) j.in[i] = (float)(i % 2000) * 1e-3f - 1.0f; /* [-1, 1) */
    st = pipeline(&j, (int)ns, (int)mib, &wrong_runs);
  }
  for (int k = 0; k < MAX_STREAMS; k++) {
    nd_array_release(j.dx[k]);
    nd_array_release(j.dy[k]);
    nd_stream_destroy(j.s[k]);
  }
  nd_host_free_pinned(j.in);
  nd_host_free_pinned(j.out);
  if (st == ND_ERR_NO_DEVICE) {
    printf("pipeline: no CUDA device, skipped\n");
    return 77;
  }
  return st != ND_OK || wrong_runs ? 1 : 0;
}
