/* The nd_bench harness: a table of cases, CUDA-event and host-clock timing, result rows.
 *
 * A case is a row of a bench_case table (one table per area, in bench_<area>.c). The harness
 * runs each selected case as: setup -> (timing) -> check -> teardown. Two kinds of timing:
 *
 * - Device cases (measure == NULL): run() enqueues one repetition on the calling thread's
 *   current stream (the harness pushes its own non-blocking stream, ctx->stream, around every
 *   case). The harness runs it ctx->warmup times, then ctx->reps times, each between two CUDA
 *   events on ctx->cu, and emits one row named after the case: median and min time, and
 *   GB/s from st->bytes (device bytes read + written by one run, set by setup).
 * - Custom cases (measure != NULL): measure() times itself with bench_time_device() or
 *   bench_time_host() and emits one or more rows with bench_emit_time()/bench_emit_ratio().
 *   Row names are "<case>.<suffix>".
 *
 * check(), when given, verifies the output of the last repetition against host values (never
 * time a case whose output nobody looked at). Every callback returns 0 on success and -1 on
 * failure, after printing what failed (the BENCH_ND / BENCH_CU macros do that). Arrays put in
 * st->arr[] are released by the harness after teardown, so most cases need no teardown.
 *
 * The same case names, sizes and timing method are used by bench/cupy_bench.py, so that
 * bench/compare.py can put the two side by side. */
#ifndef ND_BENCH_H
#define ND_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "ndcuda.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_ARRAYS 16
#define BENCH_NAME_MAX 96
#define BENCH_NOTE_MAX 160

typedef struct bench_ctx bench_ctx;
typedef struct bench_state bench_state;

typedef struct bench_case {
  const char *name; /* "<area>.<op>[.<variant>]"; the same name in cupy_bench.py */
  int (*setup)(bench_ctx *ctx, bench_state *st);    /* may be NULL */
  int (*run)(bench_ctx *ctx, bench_state *st);      /* device cases: one repetition */
  int (*check)(bench_ctx *ctx, bench_state *st);    /* may be NULL */
  void (*teardown)(bench_ctx *ctx, bench_state *st); /* may be NULL */
  int (*measure)(bench_ctx *ctx, bench_state *st);  /* custom cases: NULL for device cases */
} bench_case;

/* One case's working state; zeroed before setup. */
struct bench_state {
  const bench_case *c;
  int64_t bytes;                     /* device bytes read + written per run (device cases) */
  nd_array *arr[BENCH_MAX_ARRAYS];   /* released by the harness after teardown */
  void *p;                           /* case-owned; free it in teardown */
  int64_t n;                         /* free for the case (usually an element count) */
};

/* One line of the result table and of the output file. */
typedef struct bench_result {
  char name[BENCH_NAME_MAX];
  const char *kind;  /* "device" (CUDA events), "host" (host clock), "ratio", "error" */
  double median_us;  /* NAN where not applicable */
  double min_us;
  int reps;
  int64_t bytes;     /* device bytes per repetition (0: not a bandwidth case) */
  double gbps;       /* bytes / median time, NAN when bytes is 0 */
  double pct_copy;   /* gbps / the measured copy bandwidth * 100 */
  double value;      /* ratio rows: the ratio */
  char note[BENCH_NOTE_MAX];
} bench_result;

struct bench_ctx {
  int quick;              /* --quick: smaller sizes */
  int reps;               /* timed repetitions of a device case (>= 20 unless --reps) */
  int warmup;             /* untimed repetitions first */
  int host_batches;       /* batches of a host-clock measurement */
  nd_stream *stream;      /* the harness stream (non-blocking), current during every case */
  cudaStream_t cu;        /* its CUDA stream: the timing events are recorded there */
  double copy_gbps;       /* measured device-to-device copy bandwidth (read + write) */
  const float *rand_block;/* host copy of the random block bench_random_f32 repeats */
  int64_t rand_block_n;
  bench_result *results;  /* rows emitted so far */
  int nresults, cap;
  int failures;
  const bench_case *current;
};

/* ---- checks ------------------------------------------------------------------------------ */

int bench_fail_nd(const bench_ctx *ctx, nd_status st, const char *call, const char *file, int line);
int bench_fail_cuda(const bench_ctx *ctx, cudaError_t e, const char *call, const char *file, int line);
int bench_fail(const bench_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* BENCH_ND(nd_foo(...)): on failure prints the case, the call, the status and nd_last_error(),
 * and returns -1 from the enclosing function. BENCH_CU the same for a CUDA runtime call. */
#define BENCH_ND(call)                                                          \
  do {                                                                          \
    nd_status bench_st_ = (call);                                               \
    if (bench_st_ != ND_OK) return bench_fail_nd(ctx, bench_st_, #call, __FILE__, __LINE__); \
  } while (0)
#define BENCH_CU(call)                                                          \
  do {                                                                          \
    cudaError_t bench_e_ = (call);                                              \
    if (bench_e_ != cudaSuccess) return bench_fail_cuda(ctx, bench_e_, #call, __FILE__, __LINE__); \
  } while (0)

/* ---- timing ------------------------------------------------------------------------------ */

/* Monotonic host clock in microseconds. */
double bench_now_us(void);

/* Times fn(ctx, arg) with CUDA events on ctx->cu: warmup untimed calls, then reps calls each
 * between two events; the device is synchronised before and after. fn must enqueue its work
 * so that ctx->cu's second event follows it (work on the current stream does; work on other
 * streams must be joined back, see bench_fork/bench_join). Writes median and min in us. */
int bench_time_device(bench_ctx *ctx, int (*fn)(bench_ctx *, void *), void *arg, int warmup,
                      int reps, double *median_us, double *min_us);

/* Times batch(ctx, arg) with the host clock, nbatches times after one untimed warm-up batch.
 * Each batch performs ops_per_batch operations; the result is per operation. After each batch
 * (untimed) post(ctx, arg) runs if not NULL, then the device is synchronised, so a batch never
 * waits for device work left by the previous one. Keep ops_per_batch well under the launch
 * queue depth (~1000) so that the host, not the device, is measured. */
int bench_time_host(bench_ctx *ctx, int (*batch)(bench_ctx *, void *), int (*post)(bench_ctx *, void *),
                    void *arg, int ops_per_batch, int nbatches, double *median_us, double *min_us);

/* Makes each of the n streams wait for work enqueued so far on ctx->cu (fork), and ctx->cu
 * wait for everything enqueued so far on the n streams (join). Raw CUDA events: the library
 * does not see them and does not need to. */
int bench_fork(bench_ctx *ctx, int n, nd_stream *const *streams);
int bench_join(bench_ctx *ctx, int n, nd_stream *const *streams);

/* ---- result rows --------------------------------------------------------------------------- */

/* The number after the last occurrence of tag in the current case's name ("_u" in
 * "ref.exp_f32_u8": 8), or 0: the variant of a case family that shares one setup and run. */
int bench_case_number(const bench_ctx *ctx, const char *tag);

/* Median and minimum of n >= 1 samples (sorts v in place). */
void bench_median_min(double *v, int n, double *median, double *min);

/* Emits "<case>.<suffix>" (suffix NULL: the case name) with a time; bytes 0 for no GB/s.
 * Returns the row (valid until the next emit) so that a case can adjust a field, or NULL when
 * out of host memory. */
bench_result *bench_emit_time(bench_ctx *ctx, const char *suffix, const char *kind, double median_us,
                     double min_us, int reps, int64_t bytes, const char *note);
/* Emits a ratio row (e.g. a speedup). */
bench_result *bench_emit_ratio(bench_ctx *ctx, const char *suffix, double value, const char *note);

/* ---- data -------------------------------------------------------------------------------- */

/* A new C-ordered float32 array of the given shape filled with pseudo-random values in
 * [-1, 1): a block of ctx->rand_block_n values (ctx->rand_block on the host) repeated. The
 * value of flat element i is bench_rand_value(ctx, i). Never zeros: zeros hide unwritten
 * outputs. */
int bench_random_f32(bench_ctx *ctx, int ndim, const int64_t *shape, nd_array **out);
static inline float bench_rand_value(const bench_ctx *ctx, int64_t i) {
  return ctx->rand_block[i % ctx->rand_block_n];
}

/* Expected value of flat (C-order) element i of a checked output. */
typedef double (*bench_expect_fn)(const bench_ctx *ctx, const bench_state *st, int64_t i);

/* Downloads a (any numeric real dtype, any layout) in chunks and compares element i (C order)
 * with expect(ctx, st, i): |got - want| <= abs_tol + rel_tol * |want|, NaN never passes.
 * Prints the first mismatches and returns -1 if any. */
int bench_check_values(bench_ctx *ctx, const bench_state *st, const nd_array *a,
                       bench_expect_fn expect, double rel_tol, double abs_tol);

/* Host float16 bits -> double (exact). */
double bench_half_to_double(uint16_t h);

/* ---- case tables --------------------------------------------------------------------------- */

/* One table per area, each ended by a row with name NULL. nd_bench.c lists the tables. */
extern const bench_case bench_core_cases[];    /* bench_core.c: ndarray core (issue 3) */
extern const bench_case bench_stream_cases[];  /* bench_streams.c: streams and ordering (issue 4) */
extern const bench_case bench_linalg_cases[];  /* bench_linalg.c: linear algebra (issue 7) */
extern const bench_case bench_elementwise_cases[]; /* bench_elementwise.c: ufuncs (issue 5) */
extern const bench_case bench_reduce_cases[];  /* bench_reduce.c: reductions, scans, sorts (issue 6) */
extern const bench_case bench_random_cases[];  /* bench_random.c: random numbers (issue 8) */
extern const bench_case bench_jit_cases[];     /* bench_jit.c: run-time compiled kernels (issue 24) */
extern const bench_case bench_multi_cases[];   /* bench_multi.c: copies between devices (issue 28) */

/* nd_bench --sweep (bench_sweep.c): times its operations (the nops named in ops, or all when
 * nops is 0) over their sizes and writes its own CSV rows to out (may be NULL) after the
 * '# launch_us' and '# copy_gbps' lines. Returns the number of sizes that failed, plus one for
 * each name in ops that is no operation. Runs on ctx->stream, pushed by the caller; needs
 * ctx->copy_gbps. */
int bench_sweep(bench_ctx *ctx, FILE *out, const char *const *ops, int nops);

/* Bare-launch baselines (bench_bare.cu): one thread stores value to p[0..n). */
cudaError_t bench_bare_fill_f32(float *p, int64_t n, float value, cudaStream_t stream);
cudaError_t bench_bare_fill_f32_driver(float *p, int64_t n, float value, cudaStream_t stream);
cudaError_t bench_bare_memset_d32(void *p, size_t n, unsigned value, cudaStream_t stream);

/* Reference kernels for the math, reduction and scan cases (bench_ref.cu). bench_read_f32 reads n
 * float32 with unroll (4, 8 or 16) 16-byte loads in flight per thread and writes one partial sum
 * per block into partials (bench_read_f32_blocks(n, unroll) floats). bench_cub_row_sums_f32 is
 * CUB's segmented sum over the rows of a C-ordered rows x cols matrix; bench_cub_scan_f32 an
 * inclusive float32 sum through CUB with 32-bit offsets (n < 2^32) under the policy the variant
 * names. The CUB calls take temp NULL for the size query, as CUB does.
 *
 * The scan variants besides CUB's own tuning (BENCH_SCAN_CUB32), in one list that gives their
 * enum, their case names (ref.cumsum_f32_<name>, bench_reduce.c) and their policies
 * (bench_ref.cu): X(id, name, threads, items per thread, look-back delay), the delay being
 * bench_ref.cu's Sm90Delay (CUB's sm_90 delay for float32 sums) or NoDelay (no backoff). */
#define BENCH_SCAN_SHAPES(X)                            \
  X(T256_I24, "t256i24", 256, 24, Sm90Delay)            \
  X(T512_I16, "t512i16", 512, 16, Sm90Delay)            \
  X(T256_I32, "t256i32", 256, 32, Sm90Delay)            \
  X(T384_I24, "t384i24", 384, 24, Sm90Delay)            \
  X(T128_I24_NODELAY, "t128i24_nodelay", 128, 24, NoDelay) \
  X(T256_I40, "t256i40", 256, 40, Sm90Delay)            \
  X(T320_I32, "t320i32", 320, 32, Sm90Delay)            \
  X(T128_I64, "t128i64", 128, 64, Sm90Delay)            \
  X(T256_I32_NODELAY, "t256i32_nodelay", 256, 32, NoDelay) \
  X(T64_I128, "t64i128", 64, 128, Sm90Delay)            \
  X(T128_I80, "t128i80", 128, 80, Sm90Delay)            \
  X(T128_I64_NODELAY, "t128i64_nodelay", 128, 64, NoDelay)
#define BENCH_SCAN_ENUM(id, name, threads, items, delay) BENCH_SCAN_##id,
enum {
  BENCH_SCAN_CUB32, /* DeviceScan::InclusiveSum, CUB's own (sm_90) tuning */
  BENCH_SCAN_SHAPES(BENCH_SCAN_ENUM)
  BENCH_SCAN_VARIANTS
};
#undef BENCH_SCAN_ENUM
/* out = exp(in) (fn 0) or sin(in) (fn 1) for n float32 with unroll (1, 2 or 8) float4 per
 * thread: the library's vec path reduced to its loads, math and stores (bench_ref.cu). */
cudaError_t bench_ref_math_f32(int fn, int unroll, const float *in, float *out, int64_t n, cudaStream_t stream);
/* bench_ref_fill_f32: n float32 set to v, unroll (1, 4 or 8) float4 stores per thread in blocks of
 * threads (256; 128 with unroll 4), streaming stores when streaming is set (unroll 1 or 4). */
cudaError_t bench_ref_fill_f32(int unroll, int threads, int streaming, float *out, int64_t n, float v,
                               cudaStream_t stream);
unsigned bench_read_f32_blocks(int64_t n, int unroll);
cudaError_t bench_read_f32(const float *in, int64_t n, int unroll, float *partials, cudaStream_t stream);
cudaError_t bench_cub_row_sums_f32(const float *in, float *out, int64_t rows, int64_t cols, void *temp,
                                   size_t *temp_bytes, cudaStream_t stream);
cudaError_t bench_cub_scan_f32(int variant, const float *in, float *out, int64_t n, void *temp,
                               size_t *temp_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_BENCH_H */
