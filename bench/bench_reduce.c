/* Benchmark cases of reductions, scans, sorting and searching (issue 6).
 *
 * - red.sum_f32: nd_sum of 2^28 float32 over every axis to a 0-d result; bytes 4n + 4.
 *   red.sum_f32_n24, red.sum_f32_n26: the same over 2^24 / 2^26 float32 (sizes past
 *   the L2 cache where the size sweep had ndcuda behind CuPy; --quick: 2^20 / 2^22).
 * - red.sum_axis0_f32, red.sum_axis1_f32: nd_sum over axis 0 / axis 1 of a 16384 x 16384
 *   float32 matrix; bytes 4 x 16384^2 + 4 x 16384 (read once, one row of sums written).
 * - red.argmax_f32: nd_argmax of 2^28 float32 over the flattened array (ND_AXIS_NONE), with a
 *   unique maximum (2.0, above every random value) planted at a known index; bytes 4n + 8.
 * - scan.cumsum_f32: nd_cumsum of 2^28 float32 along its only axis; bytes 2 x 4n.
 * - sort.sort_f32: nd_sort of 2^26 float32 along its only axis, a new sorted array each run
 *   from the same unsorted input; bytes 2 x 4n (the sort's minimum traffic, read and write
 *   once); the note gives Gkeys/s.
 * - Reference kernels (bench_ref.cu), timed beside the library's cases on the same data and
 *   checked the same way, into outputs allocated once in setup; CuPy and PyTorch have no rows
 *   of these names:
 *   ceiling.read_f32_u4/_u8/_u16: a bare read of the 2^28 float32 with 4, 8 or 16 16-byte loads
 *   in flight per thread (the read rate the reductions are held to; bytes 4n);
 *   ref.sum_axis1_f32_cubseg: CUB's segmented sum over the 16384 rows (CuPy's method);
 *   ref.cumsum_f32_cub32: CUB's scan as the library calls it but with 32-bit offsets;
 *   ref.cumsum_f32_t256i24, _t512i16, _t256i32, _t384i24: other tile shapes (threads x items
 *   per thread) with CUB's sm_90 look-back delay, and larger tiles after _t256i32 led on both
 *   GPUs: _t256i40, _t320i32, _t128i64, and after _t128i64 led on the H200 _t64i128 and
 *   _t128i80; _t128i24_nodelay, _t256i32_nodelay and _t128i64_nodelay: without the backoff
 *   delay.
 * --quick: 2^24 elements (2^22 for the sort) and 4096 x 4096 matrices.
 *
 * Every case allocates its output inside run() (out NULL, as a user's call) and releases the
 * previous repetition's output first, so the pool hands back the same memory. Checks are
 * against host values computed in double from the random block: the full sum within 2^-24 per
 * element summed (a float32 sum of n values in [-1, 1) is off by far less than n ulps of 1,
 * while a skipped or doubled chunk moves it by hundreds), axis sums within n 2^-24 sqrt(n)
 * (see check_axis), argmax exactly, sampled prefix sums
 * of the scan within 2^-23 per element before them plus 2^-16 of their magnitude, and the
 * sort as non-decreasing with the input's multiset (the sums of the values and of their bit
 * patterns, the xor of the bit patterns). bench/cupy_bench.py mirrors each case under the
 * same name (its sort check compares with NumPy's sort directly). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slots in bench_state.arr. */
enum { IN = 0, OUT = 1, VIEW = 2, TEMP = 3 };

static int64_t red_n(const bench_ctx *ctx) { return ctx->quick ? (int64_t)1 << 24 : (int64_t)1 << 28; }
static int64_t red_side(const bench_ctx *ctx) { return ctx->quick ? 4096 : 16384; }
static int64_t sort_n(const bench_ctx *ctx) { return ctx->quick ? (int64_t)1 << 22 : (int64_t)1 << 26; }

/* The row this case emitted (the last one with its name), or NULL. */
static bench_result *red_row(bench_ctx *ctx) {
  for (int i = ctx->nresults - 1; i >= 0; i--)
    if (strcmp(ctx->results[i].name, ctx->current->name) == 0) return &ctx->results[i];
  return NULL;
}

/* One element of a float32 or int64 array, downloaded (blocks). */
static int red_fetch(bench_ctx *ctx, const nd_array *a, int64_t i, double *value) {
  nd_slice sl = {i, i + 1, 1};
  nd_array *v = NULL;
  unsigned char b[8];
  BENCH_ND(nd_array_slice(a, 1, &sl, &v));
  nd_status s = nd_array_to_host(v, b, nd_array_itemsize(a));
  nd_array_release(v);
  BENCH_ND(s);
  if (nd_array_dtype(a) == ND_FLOAT32) {
    float f;
    memcpy(&f, b, 4);
    *value = f;
  } else {
    int64_t k;
    memcpy(&k, b, 8);
    *value = (double)k;
  }
  return 0;
}

/* ---- full sum ---------------------------------------------------------------------------------- */

static int setup_vector(bench_ctx *ctx, bench_state *st, int64_t n) {
  st->n = n;
  return bench_random_f32(ctx, 1, &st->n, &st->arr[IN]);
}

/* The sums' input: red_n(ctx) >> shift float32 (0 for red.sum_f32, 4 and 2 for the mid sizes). */
static int setup_sum_of(bench_ctx *ctx, bench_state *st, int shift) {
  if (setup_vector(ctx, st, red_n(ctx) >> shift) != 0) return -1;
  st->bytes = 4 * st->n + 4;
  return 0;
}
static int setup_sum(bench_ctx *ctx, bench_state *st) { return setup_sum_of(ctx, st, 0); }
static int setup_sum_n24(bench_ctx *ctx, bench_state *st) { return setup_sum_of(ctx, st, 4); }
static int setup_sum_n26(bench_ctx *ctx, bench_state *st) { return setup_sum_of(ctx, st, 2); }
static int run_sum(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_sum(st->arr[IN], 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &st->arr[OUT]));
  return 0;
}
static int check_sum(bench_ctx *ctx, bench_state *st) {
  const nd_array *r = st->arr[OUT];
  if (nd_array_ndim(r) != 0 || nd_array_dtype(r) != ND_FLOAT32)
    return bench_fail(ctx, "check: the sum is not a 0-d float32 array (ndim %d, dtype %s)",
                      nd_array_ndim(r), nd_dtype_name(nd_array_dtype(r)));
  double want = 0;
  for (int64_t i = 0; i < st->n; i++) want += bench_rand_value(ctx, i);
  nd_scalar got;
  BENCH_ND(nd_array_item(r, &got));
  const double tol = ldexp((double)st->n, -24);
  if (!(fabs(got.v.f - want) <= tol))
    return bench_fail(ctx, "check: sum is %.9g, expected %.9g (tolerance %.3g)", got.v.f, want, tol);
  return 0;
}

/* ---- sums over one axis of a square matrix ----------------------------------------------------- */

/* st->p: the host sums (double) of the side columns (axis 0) or rows (axis 1). */
static int setup_axis(bench_ctx *ctx, bench_state *st) {
  st->n = red_side(ctx);
  int64_t shape[2] = {st->n, st->n};
  if (bench_random_f32(ctx, 2, shape, &st->arr[IN]) != 0) return -1;
  st->bytes = 4 * st->n * st->n + 4 * st->n;
  return 0;
}
static int run_axis(bench_ctx *ctx, bench_state *st, int64_t axis) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_sum(st->arr[IN], 1, &axis, 0, ND_DTYPE_DEFAULT, NULL, &st->arr[OUT]));
  return 0;
}
static int run_axis0(bench_ctx *ctx, bench_state *st) { return run_axis(ctx, st, 0); }
static int run_axis1(bench_ctx *ctx, bench_state *st) { return run_axis(ctx, st, 1); }

static double expect_axis(const bench_ctx *ctx, const bench_state *st, int64_t i) {
  (void)ctx;
  return ((const double *)st->p)[i];
}
static int check_axis(bench_ctx *ctx, bench_state *st, int axis) {
  const int64_t n = st->n;
  const nd_array *r = st->arr[OUT];
  if (nd_array_ndim(r) != 1 || nd_array_dim(r, 0) != n || nd_array_dtype(r) != ND_FLOAT32)
    return bench_fail(ctx, "check: the sums are not a float32 vector of %lld", (long long)n);
  double *sums = calloc((size_t)n, sizeof *sums);
  if (sums == NULL) return bench_fail(ctx, "check: out of host memory");
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) sums[axis == 0 ? j : i] += bench_rand_value(ctx, i * n + j);
  free(st->p);
  st->p = sums;
  /* Each output sums n values in [-1, 1). A float32 sum in any order errs by at most about
   * n u max|partial sum| (u = 2^-24); the partial sums of such values are of size sqrt(n), so
   * n u sqrt(n) (0.125 at n = 16384) is far above an honest rounding error (a column summed in
   * order, as NumPy does over axis 0, errs by ~2e-3 at most here) and far below a missing or
   * doubled element. */
  return bench_check_values(ctx, st, r, expect_axis, 0.0, ldexp((double)n, -24) * sqrt((double)n));
}
static int check_axis0(bench_ctx *ctx, bench_state *st) { return check_axis(ctx, st, 0); }
static int check_axis1(bench_ctx *ctx, bench_state *st) { return check_axis(ctx, st, 1); }
static void teardown_p(bench_ctx *ctx, bench_state *st) {
  (void)ctx;
  free(st->p);
  st->p = NULL;
}

/* ---- argmax -------------------------------------------------------------------------------------- */

/* Random values are in [-1, 1), so 2.0 at one index is the unique maximum. The index is odd and
 * away from chunk and block boundaries. */
static int64_t argmax_at(int64_t n) { return n - n / 3 + 12345; }

static int setup_argmax(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st, red_n(ctx)) != 0) return -1;
  BENCH_ND(nd_array_index(st->arr[IN], 0, argmax_at(st->n), &st->arr[VIEW]));
  BENCH_ND(nd_array_fill(st->arr[VIEW], nd_scalar_float(2.0)));
  st->bytes = 4 * st->n + 8;
  return 0;
}
static int run_argmax(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_argmax(st->arr[IN], ND_AXIS_NONE, 0, NULL, &st->arr[OUT]));
  return 0;
}
static int check_argmax(bench_ctx *ctx, bench_state *st) {
  const nd_array *r = st->arr[OUT];
  if (nd_array_ndim(r) != 0 || nd_array_dtype(r) != ND_INT64)
    return bench_fail(ctx, "check: argmax is not a 0-d int64 array");
  nd_scalar got;
  BENCH_ND(nd_array_item(r, &got));
  if (got.v.i != argmax_at(st->n))
    return bench_fail(ctx, "check: argmax is %lld, expected %lld", (long long)got.v.i,
                      (long long)argmax_at(st->n));
  return 0;
}

/* ---- cumsum -------------------------------------------------------------------------------------- */

#define SCAN_SAMPLES 4096

static int setup_cumsum(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st, red_n(ctx)) != 0) return -1;
  st->bytes = 2 * 4 * st->n;
  return 0;
}
static int run_cumsum(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_cumsum(st->arr[IN], 0, ND_DTYPE_DEFAULT, NULL, &st->arr[OUT]));
  return 0;
}
/* Sample i (0 .. SCAN_SAMPLES) -> element index: the first 64 elements, then spread over the
 * array at a stride that is not a multiple of any tile size, and the last element. */
static int64_t scan_sample(int64_t n, int i) {
  if (i < 64) return i < n ? i : n - 1;
  if (i == SCAN_SAMPLES) return n - 1;
  int64_t stride = n / (SCAN_SAMPLES - 64) - 3;
  if (stride < 1) stride = 1;
  int64_t k = 64 + (int64_t)(i - 64) * stride + (i * 7919) % 97;
  return k < n ? k : n - 1;
}
static int check_cumsum(bench_ctx *ctx, bench_state *st) {
  const nd_array *r = st->arr[OUT];
  const int64_t n = st->n;
  if (nd_array_ndim(r) != 1 || nd_array_dim(r, 0) != n || nd_array_dtype(r) != ND_FLOAT32)
    return bench_fail(ctx, "check: the scan is not a float32 vector of %lld", (long long)n);
  double prefix = 0;
  int64_t i = 0, bad = 0;
  for (int s = 0; s <= SCAN_SAMPLES; s++) {
    const int64_t k = scan_sample(n, s);
    if (k < i - 1) continue; /* repeated sample */
    for (; i <= k; i++) prefix += bench_rand_value(ctx, i);
    double got = NAN;
    if (red_fetch(ctx, r, k, &got) != 0) return -1;
    /* A float32 scan adds in tiles and chains tile prefixes: its error grows with the number
     * of elements before k (far below 2^-23 per element for values in [-1, 1)) and with the
     * magnitude of the prefix (a few roundings of it, 2^-16 relative). */
    const double tol = ldexp((double)(k + 1), -23) + ldexp(fabs(prefix), -16);
    if (!(fabs(got - prefix) <= tol)) {
      if (bad < 5)
        fprintf(stderr, "%s: check: prefix %lld is %.9g, expected %.9g (tolerance %.3g)\n",
                ctx->current->name, (long long)k, got, prefix, tol);
      bad++;
    }
  }
  if (bad) return bench_fail(ctx, "check: %lld sampled prefix sums wrong", (long long)bad);
  return 0;
}

/* ---- sort ---------------------------------------------------------------------------------------- */

static int setup_sort(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st, sort_n(ctx)) != 0) return -1;
  st->bytes = 2 * 4 * st->n;
  return 0;
}
static int run_sort(bench_ctx *ctx, bench_state *st) {
  nd_array_release(st->arr[OUT]);
  st->arr[OUT] = NULL;
  BENCH_ND(nd_sort(st->arr[IN], -1, &st->arr[OUT]));
  return 0;
}
static uint32_t f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
/* Non-decreasing, and the same multiset as the input: the same sum, the same xor of the bit
 * patterns and the same sum of the bit patterns (a value lost and another duplicated changes
 * them). The note gets the sorting rate. */
static int check_sort(bench_ctx *ctx, bench_state *st) {
  const nd_array *r = st->arr[OUT];
  const int64_t n = st->n;
  if (nd_array_ndim(r) != 1 || nd_array_dim(r, 0) != n || nd_array_dtype(r) != ND_FLOAT32)
    return bench_fail(ctx, "check: the sorted array is not a float32 vector of %lld", (long long)n);
  double want_sum = 0;
  uint32_t want_xor = 0;
  uint64_t want_bits = 0;
  for (int64_t i = 0; i < n; i++) {
    float x = bench_rand_value(ctx, i);
    want_sum += x;
    want_xor ^= f32_bits(x);
    want_bits += f32_bits(x);
  }
  const int64_t chunk = (int64_t)1 << 24;
  float *h = malloc((size_t)(n < chunk ? n : chunk) * sizeof *h);
  if (h == NULL) return bench_fail(ctx, "check: out of host memory");
  double sum = 0;
  uint32_t x = 0;
  uint64_t bits = 0;
  float prev = -INFINITY;
  int64_t unordered = 0, first_bad = -1;
  for (int64_t start = 0; start < n; start += chunk) {
    const int64_t len = n - start < chunk ? n - start : chunk;
    nd_slice sl = {start, start + len, 1};
    nd_array *v = NULL;
    nd_status s = nd_array_slice(r, 1, &sl, &v);
    if (s == ND_OK) s = nd_array_to_host(v, h, (size_t)len * sizeof *h);
    nd_array_release(v);
    if (s != ND_OK) {
      free(h);
      return bench_fail_nd(ctx, s, "download of the sorted array", __FILE__, __LINE__);
    }
    for (int64_t i = 0; i < len; i++) {
      if (!(h[i] >= prev)) {
        if (first_bad < 0) first_bad = start + i;
        unordered++;
      }
      prev = h[i];
      sum += h[i];
      x ^= f32_bits(h[i]);
      bits += f32_bits(h[i]);
    }
  }
  free(h);
  if (unordered)
    return bench_fail(ctx, "check: %lld elements are smaller than the one before (first at %lld)",
                      (long long)unordered, (long long)first_bad);
  if (x != want_xor || bits != want_bits || !(fabs(sum - want_sum) <= ldexp((double)n, -30)))
    return bench_fail(ctx, "check: the sorted values are not the input's (sum %.9g vs %.9g, xor "
                      "%08x vs %08x)", sum, want_sum, (unsigned)x, (unsigned)want_xor);
  bench_result *row = red_row(ctx);
  if (row != NULL && row->median_us > 0)
    snprintf(row->note, sizeof row->note, "checked; %.1f Gkeys/s",
             (double)n / (row->median_us * 1e-6) / 1e9);
  return 0;
}

/* ---- reference kernels (bench_ref.cu) ------------------------------------------------------------ */

/* The scan variant of a reference case: its index in ref_scan_names. */
#define REF_SCAN_NAME(id, name, threads, items, delay) "ref.cumsum_f32_" name,
static const char *const ref_scan_names[BENCH_SCAN_VARIANTS] = {
    "ref.cumsum_f32_cub32", BENCH_SCAN_SHAPES(REF_SCAN_NAME)};
#undef REF_SCAN_NAME
static int ref_scan_variant(const bench_ctx *ctx) {
  for (int v = 0; v < BENCH_SCAN_VARIANTS; v++)
    if (strcmp(ctx->current->name, ref_scan_names[v]) == 0) return v;
  return -1;
}

/* CUB's temporary storage, sized by its query, in st->arr[TEMP] (at least one byte). */
static int ref_temp(bench_ctx *ctx, bench_state *st, size_t bytes) {
  const int64_t n = bytes > 0 ? (int64_t)bytes : 1;
  BENCH_ND(nd_empty(1, &n, ND_UINT8, &st->arr[TEMP]));
  return 0;
}
static size_t ref_temp_bytes(const bench_state *st) { return (size_t)nd_array_nbytes(st->arr[TEMP]); }

/* ceiling.read_f32_u{4,8,16}: the bare read (bytes 4n; the partial sums, 4 bytes per 32-64 KB
 * read, are left out). Checked: the partial sums add up to the sum of the input. */
static int setup_read(bench_ctx *ctx, bench_state *st) {
  if (setup_vector(ctx, st, red_n(ctx)) != 0) return -1;
  const int64_t blocks = bench_read_f32_blocks(st->n, bench_case_number(ctx, "_u"));
  BENCH_ND(nd_empty(1, &blocks, ND_FLOAT32, &st->arr[OUT]));
  st->bytes = 4 * st->n;
  return 0;
}
static int run_read(bench_ctx *ctx, bench_state *st) {
  BENCH_CU(bench_read_f32(nd_array_data(st->arr[IN]), st->n, bench_case_number(ctx, "_u"), nd_array_data(st->arr[OUT]),
                          ctx->cu));
  return 0;
}
static int check_read(bench_ctx *ctx, bench_state *st) {
  const int64_t blocks = nd_array_size(st->arr[OUT]);
  float *h = malloc((size_t)blocks * sizeof *h);
  if (h == NULL) return bench_fail(ctx, "check: out of host memory");
  nd_status s = nd_array_to_host(st->arr[OUT], h, (size_t)blocks * sizeof *h);
  double got = 0, want = 0;
  for (int64_t i = 0; s == ND_OK && i < blocks; i++) got += h[i];
  free(h);
  BENCH_ND(s);
  for (int64_t i = 0; i < st->n; i++) want += bench_rand_value(ctx, i);
  const double tol = ldexp((double)st->n, -24);
  if (!(fabs(got - want) <= tol))
    return bench_fail(ctx, "check: the partial sums add up to %.9g, expected %.9g (tolerance %.3g)", got,
                      want, tol);
  return 0;
}

/* ref.sum_axis1_f32_cubseg: CUB's segmented sum, one block per row; checked as red.sum_axis1_f32. */
static int setup_axis1_cub(bench_ctx *ctx, bench_state *st) {
  if (setup_axis(ctx, st) != 0) return -1;
  BENCH_ND(nd_empty(1, &st->n, ND_FLOAT32, &st->arr[OUT]));
  size_t bytes = 0;
  BENCH_CU(bench_cub_row_sums_f32(nd_array_data(st->arr[IN]), nd_array_data(st->arr[OUT]), st->n, st->n, NULL,
                                  &bytes, ctx->cu));
  return ref_temp(ctx, st, bytes);
}
static int run_axis1_cub(bench_ctx *ctx, bench_state *st) {
  size_t bytes = ref_temp_bytes(st);
  BENCH_CU(bench_cub_row_sums_f32(nd_array_data(st->arr[IN]), nd_array_data(st->arr[OUT]), st->n, st->n,
                                  nd_array_data(st->arr[TEMP]), &bytes, ctx->cu));
  return 0;
}

/* ref.cumsum_f32_<variant>: CUB's float32 scan under the variant's policy; checked as
 * scan.cumsum_f32. */
static int setup_scan_cub(bench_ctx *ctx, bench_state *st) {
  if (setup_cumsum(ctx, st) != 0) return -1;
  const int v = ref_scan_variant(ctx);
  if (v < 0) return bench_fail(ctx, "no scan variant of this name");
  BENCH_ND(nd_empty(1, &st->n, ND_FLOAT32, &st->arr[OUT]));
  size_t bytes = 0;
  BENCH_CU(bench_cub_scan_f32(v, nd_array_data(st->arr[IN]), nd_array_data(st->arr[OUT]), st->n, NULL, &bytes,
                              ctx->cu));
  return ref_temp(ctx, st, bytes);
}
static int run_scan_cub(bench_ctx *ctx, bench_state *st) {
  size_t bytes = ref_temp_bytes(st);
  BENCH_CU(bench_cub_scan_f32(ref_scan_variant(ctx), nd_array_data(st->arr[IN]), nd_array_data(st->arr[OUT]),
                              st->n, nd_array_data(st->arr[TEMP]), &bytes, ctx->cu));
  return 0;
}

const bench_case bench_reduce_cases[] = {
    {"red.sum_f32", setup_sum, run_sum, check_sum, NULL, NULL},
    {"red.sum_f32_n24", setup_sum_n24, run_sum, check_sum, NULL, NULL},
    {"red.sum_f32_n26", setup_sum_n26, run_sum, check_sum, NULL, NULL},
    {"red.sum_axis0_f32", setup_axis, run_axis0, check_axis0, teardown_p, NULL},
    {"red.sum_axis1_f32", setup_axis, run_axis1, check_axis1, teardown_p, NULL},
    {"red.argmax_f32", setup_argmax, run_argmax, check_argmax, NULL, NULL},
    {"scan.cumsum_f32", setup_cumsum, run_cumsum, check_cumsum, NULL, NULL},
    {"sort.sort_f32", setup_sort, run_sort, check_sort, NULL, NULL},
    {"ceiling.read_f32_u4", setup_read, run_read, check_read, NULL, NULL},
    {"ceiling.read_f32_u8", setup_read, run_read, check_read, NULL, NULL},
    {"ceiling.read_f32_u16", setup_read, run_read, check_read, NULL, NULL},
    {"ref.sum_axis1_f32_cubseg", setup_axis1_cub, run_axis1_cub, check_axis1, teardown_p, NULL},
    {"ref.cumsum_f32_cub32", setup_scan_cub, run_scan_cub, check_cumsum, NULL, NULL},
#define REF_SCAN_CASE(id, name, threads, items, delay) \
  {"ref.cumsum_f32_" name, setup_scan_cub, run_scan_cub, check_cumsum, NULL, NULL},
    BENCH_SCAN_SHAPES(REF_SCAN_CASE)
#undef REF_SCAN_CASE
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
