/* Benchmark cases for run-time compiled user kernels (issue 24), with the same names in
 * bench/cupy_bench.py (CuPy's ElementwiseKernel and RawKernel):
 *
 * - jit.compile_cold: host time of defining a small elementwise kernel (z = x * a + y, float32)
 *   and running it once on 1000 elements, with a source no cache has seen (a fresh nonce in the
 *   preamble per repetition), the disk cache on: NVRTC, the disk write and the load.
 * - jit.disk_hit_new_process: a new process (nd_bench_jit_child) creates the module of a
 *   kernel this process compiled into ND_CACHE_DIR; the time of nd_module_create there, after
 *   the CUDA context exists (a disk read, validation and the driver load).
 * - jit.memory_hit: host time of nd_module_create of a source this process already holds.
 * - jit.threads_32x4_cold: wall time of 32 threads asking at once for 4 new kernels (8 each).
 * - jit.ew_add_f32: the generated z = x + y over 2^28 float32 (the sizes of ew.add_f32), to be
 *   read beside the built-in nd_add's ew.add_f32 row.
 * - jit.sum_f32: a generated float32 sum (ReductionKernel "x", "a + b", identity 0) of 2^28
 *   float32 to a 0-d result, beside red.sum_f32 (nd_sum). */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { A = 0, B = 1, OUT = 2 };

static unsigned long bench_jit_nonce(void) {
  static unsigned long n = 0;
  return ((unsigned long)getpid() << 32) ^ ((unsigned long)time(NULL) << 8) ^ ++n;
}

/* ---- cold compile ----------------------------------------------------------------------- */

static int measure_cold(bench_ctx *ctx, bench_state *st) {
  enum { REPS = 9 };
  double t[REPS];
  int64_t n = 1000;
  float h[1000];
  for (int i = 0; i < 1000; i++) h[i] = (float)i;
  nd_array *x = NULL, *y = NULL;
  BENCH_ND(nd_array_from_host(h, sizeof h, 1, &n, ND_FLOAT32, &x));
  st->arr[A] = x;
  BENCH_ND(nd_array_from_host(h, sizeof h, 1, &n, ND_FLOAT32, &y));
  st->arr[B] = y;
  for (int r = 0; r < REPS; r++) {
    char pre[64];
    snprintf(pre, sizeof pre, "// nonce %lx", bench_jit_nonce());
    BENCH_CU(cudaDeviceSynchronize());
    const double t0 = bench_now_us();
    nd_elementwise_kernel *k = NULL;
    BENCH_ND(nd_elementwise_kernel_create("T x, T y, T a", "T z", "z = x * a + y", "axpy_cold", pre, NULL, &k));
    nd_operand in[3] = {nd_arg(x), nd_arg(y), nd_arg_scalar(nd_scalar_float(2.0))};
    nd_array *z = NULL;
    nd_status s = nd_elementwise_kernel_call(k, 3, in, 1, NULL, &z);
    if (s == ND_OK) s = nd_stream_synchronize(nd_stream_current());
    t[r] = bench_now_us() - t0;
    nd_elementwise_kernel_release(k);
    if (s != ND_OK) {
      nd_array_release(z);
      return bench_fail_nd(ctx, s, "axpy_cold", __FILE__, __LINE__);
    }
    float got[1000];
    s = nd_array_to_host(z, got, sizeof got);
    nd_array_release(z);
    BENCH_ND(s);
    for (int i = 0; i < 1000; i++)
      if (got[i] != 3.0f * i) return bench_fail(ctx, "check: z[%d] = %g, want %g", i, got[i], 3.0 * i);
  }
  double med, mn;
  bench_median_min(t, REPS, &med, &mn);
  bench_emit_time(ctx, NULL, "host", med, mn, REPS, 0,
                  "ElementwiseKernel-style axpy, new source each time, disk cache on: compile + write + load + run");
  return 0;
}

/* ---- disk hit in a new process ---------------------------------------------------------- */

static const char *child_source_fmt =
    "// nonce %lx\nextern \"C\" __global__ void axpy(const float *x, const float *y, float *z, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = a * x[i] + y[i]; }\n";

static int measure_disk_hit(bench_ctx *ctx, bench_state *st) {
  char src[512];
  snprintf(src, sizeof src, child_source_fmt, bench_jit_nonce());
  nd_module *m = NULL;
  BENCH_ND(nd_module_create(src, NULL, &m)); /* compiled here, written to ND_CACHE_DIR */
  nd_module_release(m);
  char self[1024];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return bench_fail(ctx, "readlink /proc/self/exe failed");
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  snprintf(slash + 1, sizeof self - (size_t)(slash + 1 - self), "nd_bench_jit_child");
  enum { REPS = 7 };
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    int fd[2];
    if (pipe(fd) != 0) return bench_fail(ctx, "pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    char *argv[] = {self, src, NULL};
    pid_t pid;
    if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0) return bench_fail(ctx, "cannot run %s", self);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    char buf[128] = "";
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return bench_fail(ctx, "nd_bench_jit_child failed (status %d): %s", status, got > 0 ? buf : "");
    t[r] = atof(buf);
  }
  double med, mn;
  bench_median_min(t, REPS, &med, &mn);
  bench_emit_time(ctx, NULL, "host", med, mn, REPS, 0,
                  "nd_module_create in a new process (context already up), 0 compiles: read + validate + load");
  (void)st;
  return 0;
}

/* ---- memory hit --------------------------------------------------------------------------- */

typedef struct mem_arg {
  const char *src;
} mem_arg;

static int mem_batch(bench_ctx *ctx, void *p) {
  mem_arg *g = p;
  for (int i = 0; i < 256; i++) {
    nd_module *m = NULL;
    BENCH_ND(nd_module_create(g->src, NULL, &m));
    nd_module_release(m);
  }
  return 0;
}

static int measure_memory_hit(bench_ctx *ctx, bench_state *st) {
  char src[512];
  snprintf(src, sizeof src, child_source_fmt, bench_jit_nonce());
  nd_module *keep = NULL;
  BENCH_ND(nd_module_create(src, NULL, &keep));
  mem_arg g = {src};
  double med, mn;
  int rc = bench_time_host(ctx, mem_batch, NULL, &g, 256, ctx->host_batches, &med, &mn);
  nd_module_release(keep);
  if (rc != 0) return -1;
  bench_emit_time(ctx, NULL, "host", med, mn, ctx->host_batches, 0, "nd_module_create of a source held in memory");
  (void)st;
  return 0;
}

/* ---- 32 threads x 4 kernels, cold ----------------------------------------------------------- */

typedef struct th_arg {
  const char *src;
  pthread_barrier_t *bar;
  nd_status st;
} th_arg;

static void *th_main(void *p) {
  th_arg *a = p;
  pthread_barrier_wait(a->bar);
  nd_module *m = NULL;
  a->st = nd_module_create(a->src, NULL, &m);
  nd_module_release(m);
  return NULL;
}

static int measure_threads(bench_ctx *ctx, bench_state *st) {
  enum { REPS = 5 };
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    char src[4][512];
    const unsigned long nonce = bench_jit_nonce();
    for (int k = 0; k < 4; k++) snprintf(src[k], sizeof src[k], child_source_fmt, nonce * 4 + (unsigned long)k);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 32);
    th_arg a[32];
    pthread_t th[32];
    const double t0 = bench_now_us();
    for (int i = 0; i < 32; i++) {
      a[i] = (th_arg){src[i % 4], &bar, ND_OK};
      pthread_create(&th[i], NULL, th_main, &a[i]);
    }
    for (int i = 0; i < 32; i++) pthread_join(th[i], NULL);
    t[r] = bench_now_us() - t0;
    pthread_barrier_destroy(&bar);
    for (int i = 0; i < 32; i++) BENCH_ND(a[i].st);
  }
  double med, mn;
  bench_median_min(t, REPS, &med, &mn);
  nd_jit_cache_stats s;
  BENCH_ND(nd_jit_cache_get_stats(&s));
  char note[BENCH_NOTE_MAX];
  snprintf(note, sizeof note, "32 threads, 4 new kernels, wall; process totals: %llu compiles, %.0f ms compiling",
           (unsigned long long)s.compiles, s.compile_ms);
  bench_emit_time(ctx, NULL, "host", med, mn, REPS, 0, note);
  (void)st;
  return 0;
}

/* ---- generated z = x + y against nd_add ------------------------------------------------------ */

static int setup_ew_add(bench_ctx *ctx, bench_state *st) {
  st->n = ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28;
  if (bench_random_f32(ctx, 1, &st->n, &st->arr[A]) != 0) return -1;
  BENCH_ND(nd_square(st->arr[A], NULL, &st->arr[B]));
  st->bytes = 3 * st->n * 4;
  nd_elementwise_kernel *k = NULL;
  BENCH_ND(nd_elementwise_kernel_create("T x, T y", "T z", "z = x + y", "user_add", NULL, NULL, &k));
  st->p = k;
  return 0;
}

static int run_ew_add(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  nd_operand in[2] = {nd_arg(st->arr[A]), nd_arg(st->arr[B])};
  BENCH_ND(nd_elementwise_kernel_call((nd_elementwise_kernel *)st->p, 2, in, 1, NULL, &st->arr[OUT]));
  return 0;
}

static double expect_ew_add(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)st;
  const float x = bench_rand_value(ctx, i);
  return (float)(x + (float)(x * x));
}

static int check_ew_add(bench_ctx *ctx, bench_state *st) {
  return bench_check_values(ctx, st, st->arr[OUT], expect_ew_add, 0.0, 0.0);
}

static void teardown_ew_add(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  nd_elementwise_kernel_release((nd_elementwise_kernel *)st->p);
}

/* ---- generated sum against nd_sum ------------------------------------------------------------ */

static int setup_sum(bench_ctx *ctx, bench_state *st) {
  st->n = ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28;
  if (bench_random_f32(ctx, 1, &st->n, &st->arr[A]) != 0) return -1;
  st->bytes = 4 * st->n + 4;
  nd_reduction_kernel *k = NULL;
  BENCH_ND(nd_reduction_kernel_create("T x", "T y", "x", "a + b", "y = a", "0", NULL, "user_sum", NULL, NULL, &k));
  st->p = k;
  return 0;
}

static int run_sum(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  nd_operand in[1] = {nd_arg(st->arr[A])};
  BENCH_ND(nd_reduction_kernel_call((nd_reduction_kernel *)st->p, 1, in, 0, NULL, 0, NULL, &st->arr[OUT]));
  return 0;
}

static int check_sum(bench_ctx *ctx, bench_state *st) {
  double want = 0;
  for (int64_t i = 0; i < st->n; i++) want += bench_rand_value(ctx, i);
  nd_scalar got;
  BENCH_ND(nd_array_item(st->arr[OUT], &got));
  const double tol = ldexp((double)st->n, -24);
  if (!(fabs(got.v.f - want) <= tol)) return bench_fail(ctx, "check: sum is %.9g, expected %.9g", got.v.f, want);
  return 0;
}

static void teardown_sum(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  nd_reduction_kernel_release((nd_reduction_kernel *)st->p);
}

const bench_case bench_jit_cases[] = {
    /* name,                       setup,         run,        check,        teardown,        measure */
    {"jit.compile_cold",           NULL,          NULL,       NULL,         NULL,            measure_cold},
    {"jit.disk_hit_new_process",   NULL,          NULL,       NULL,         NULL,            measure_disk_hit},
    {"jit.memory_hit",             NULL,          NULL,       NULL,         NULL,            measure_memory_hit},
    {"jit.threads_32x4_cold",      NULL,          NULL,       NULL,         NULL,            measure_threads},
    {"jit.ew_add_f32",             setup_ew_add,  run_ew_add, check_ew_add, teardown_ew_add, NULL},
    {"jit.sum_f32",                setup_sum,     run_sum,    check_sum,    teardown_sum,    NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
