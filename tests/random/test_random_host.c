/* Host suite for the random module: everything that needs no GPU.
 *
 * - Philox4x32-10 against Random123's known-answer vectors, the word stream of an element
 *   block, and the bit-to-value conversions at their edges;
 * - Lemire's thresholds, and an exhaustive check over all 2^32 words that accepted words map
 *   onto each value of a range equally often;
 * - ND_SEED parsing, entropy, generator creation, counter bookkeeping (also from many
 *   threads), the per-thread default generator and nd_random_seed;
 * - integers' bounds per dtype, choice's probability vectors, values per block;
 * - every parameter, dtype and NULL check of the public functions (they come before any
 *   device work), and that a failed call does not advance the generator;
 * - the statistics helpers of random_stats.h against known values; the radix sort against
 *   qsort, the KS shortcut against the full statistic, and the moment check on a
 *   Bernoulli(1/2) sample (whose sample variance moves at second order only) and on samples
 *   that must fail;
 * - the host reference of the Philox fills (random_ref.h), which the GPU suite compares the
 *   device with, tested statistically here: if the algorithms were biased this would fail
 *   without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "random/random_internal.h"
#include "tests/random/random_ref.h"
#include "tests/random/random_stats.h"

/* The p-value below which a goodness-of-fit test fails. The seeds are fixed, so each test is
 * deterministic; the threshold is small enough that a correct sampler passes at essentially any
 * seed, and large enough that the sample sizes used expose real bias. */
#define P_MIN 1e-6

/* ---- Philox ------------------------------------------------------------------------------------ */

START_TEST(test_philox_kat) {
  /* Random123's kat_vectors for philox4x32_10. */
  static const uint32_t ctr[3][4] = {{0, 0, 0, 0},
                                     {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                     {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}};
  static const uint32_t key[3][2] = {{0, 0}, {0xffffffff, 0xffffffff}, {0xa4093822, 0x299f31d0}};
  static const uint32_t want[3][4] = {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
                                      {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
                                      {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}};
  for (int t = 0; t < 3; t++) {
    uint32_t x[4] = {ctr[t][0], ctr[t][1], ctr[t][2], ctr[t][3]};
    nd__philox4x32_10(x, key[t][0], key[t][1]);
    for (int k = 0; k < 4; k++)
      ck_assert_msg(x[k] == want[t][k], "vector %d word %d: got %08x, want %08x", t, k, x[k], want[t][k]);
  }
}
END_TEST

START_TEST(test_philox_stream) {
  const uint64_t seed = UINT64_C(0x0123456789abcdef), ctr = UINT64_C(0xfedcba9876543210);
  nd__philox_stream ps;
  nd__philox_init(&ps, seed);
  ck_assert_uint_eq(ps.k0, 0x89abcdefu);
  ck_assert_uint_eq(ps.k1, 0x01234567u);
  nd__philox_begin(&ps, ctr);
  /* Counter s = 0, 1, 2 of the block, computed directly. */
  uint32_t blk[3][4];
  for (uint32_t s = 0; s < 3; s++) {
    blk[s][0] = (uint32_t)ctr;
    blk[s][1] = (uint32_t)(ctr >> 32);
    blk[s][2] = s;
    blk[s][3] = 0;
    nd__philox4x32_10(blk[s], ps.k0, ps.k1);
  }
  uint32_t w[4];
  nd__philox_next4(&ps, w);
  for (int k = 0; k < 4; k++) ck_assert_uint_eq(w[k], blk[0][k]);
  for (int k = 0; k < 4; k++) ck_assert_uint_eq(nd__philox_next(&ps), blk[1][k]);
  ck_assert_uint_eq(nd__philox_next(&ps), blk[2][0]);
  /* next4 drops the words left over from the last draw. */
  nd__philox_next4(&ps, w);
  ck_assert_uint_ne(w[0], blk[2][1]);
  /* begin restarts at s = 0: next() from a fresh block gives the block's first words. */
  nd__philox_begin(&ps, ctr);
  for (int k = 0; k < 4; k++) ck_assert_uint_eq(nd__philox_next(&ps), blk[0][k]);
  /* Different seeds and counters give different words. */
  nd__philox_begin(&ps, ctr + 1);
  nd__philox_next4(&ps, w);
  ck_assert_uint_ne(w[0], blk[0][0]);
}
END_TEST

START_TEST(test_conversions) {
  ck_assert(nd__unit_f32(0) == 0.0f);
  ck_assert(nd__unit_f32(0xffffffffu) == 1.0f - 0x1p-24f);
  ck_assert(nd__unit_f32(0x80000000u) == 0.5f);
  ck_assert(nd__unit_f64(0, 0) == 0.0);
  ck_assert(nd__unit_f64(0xffffffffu, 0xffffffffu) == 1.0 - 0x1p-53);
  ck_assert(nd__unit_f64(0x80000000u, 0) == 0.5);
  /* Box-Muller's radius input: never 0, at most 1. */
  ck_assert(nd__open_f32(0) == 0x1p-33f);
  ck_assert(nd__open_f32(0xffffffffu) <= 1.0f);
  ck_assert(nd__open_f64(0, 0) == 0x1p-53);
  ck_assert(nd__open_f64(0xffffffffu, 0xffffffffu) < 1.0);
  ck_assert(nd__open_f64(0xffffffffu, 0xffffffffu) == 1.0 - 0x1p-53);
  /* The angle in [-1, 1). */
  ck_assert(nd__sym_f32(0x80000000u) == -1.0f);
  ck_assert(nd__sym_f32(0x7fffffffu) == 1.0f - 0x1p-23f);
  ck_assert(nd__sym_f32(0xffffffffu) == -0x1p-23f);
  ck_assert(nd__sym_f32(0) == 0.0f);
  ck_assert(nd__sym_f64(0x80000000u, 0) == -1.0);
  ck_assert(nd__sym_f64(0x7fffffffu, 0xffffffffu) == 1.0 - 0x1p-52);
  ck_assert(nd__sym_f64(0xffffffffu, 0xffffffffu) == -0x1p-52);
}
END_TEST

/* ---- Lemire -------------------------------------------------------------------------------------- */

START_TEST(test_lemire_threshold) {
  const uint64_t p32 = UINT64_C(1) << 32;
  const uint64_t narrow[] = {1, 2, 3, 6, 10, 255, 256, 1000003, 3000000000u, p32 - 1, p32 / 2 + 1};
  for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
    ck_assert_uint_eq(nd__lemire_threshold(narrow[i], 0), (p32 - narrow[i]) % narrow[i]);
  ck_assert_uint_eq(nd__lemire_threshold(p32, 0), 0);
  ck_assert_uint_eq(nd__lemire_threshold(0, 1), 0);
  const uint64_t wide[] = {p32 + 1, UINT64_C(3) << 40, UINT64_MAX, (UINT64_C(1) << 63) + 1};
  for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
    const unsigned __int128 two64 = (unsigned __int128)1 << 64;
    ck_assert_uint_eq(nd__lemire_threshold(wide[i], 1), (uint64_t)((two64 - wide[i]) % wide[i]));
  }
  /* Full ranges accept everything. */
  int ok;
  ck_assert_uint_eq(nd__lemire32(0xdeadbeefu, 0, 0, &ok), 0xdeadbeefu);
  ck_assert_int_eq(ok, 1);
  ck_assert_uint_eq(nd__lemire64(UINT64_C(0xdeadbeefcafef00d), 0, 0, &ok), UINT64_C(0xdeadbeefcafef00d));
  ck_assert_int_eq(ok, 1);
  /* mulhi64 against a hand-computed product: (2^64 - 1)^2 >> 64 = 2^64 - 2. */
  ck_assert_uint_eq(nd__mulhi64(UINT64_MAX, UINT64_MAX), UINT64_MAX - 1);
  ck_assert_uint_eq(nd__lemire64(UINT64_MAX, 3, nd__lemire_threshold(3, 1), &ok), 2);
}
END_TEST

START_TEST(test_lemire_exhaustive) {
  /* Every 32-bit word once: the accepted words must hit each value of the range exactly
   * floor(2^32 / r) times (that is what "unbiased" means), for a small range and for one whose
   * threshold is large. */
  const uint32_t r1 = 6, r2 = 1000003;
  const uint32_t t1 = (uint32_t)nd__lemire_threshold(r1, 0), t2 = (uint32_t)nd__lemire_threshold(r2, 0);
  int64_t c1[6] = {0};
  int64_t *c2 = calloc(r2, sizeof *c2);
  ck_assert_ptr_nonnull(c2);
  uint32_t x = 0;
  do {
    int ok;
    uint32_t v = nd__lemire32(x, r1, t1, &ok);
    if (ok) c1[v]++;
    v = nd__lemire32(x, r2, t2, &ok);
    if (ok) c2[v]++;
  } while (++x != 0);
  const int64_t want1 = (int64_t)((UINT64_C(1) << 32) / r1), want2 = (int64_t)((UINT64_C(1) << 32) / r2);
  for (uint32_t v = 0; v < r1; v++) ck_assert_int_eq(c1[v], want1);
  for (uint32_t v = 0; v < r2; v++)
    if (c2[v] != want2) ck_abort_msg("range %u: value %u hit %lld times, want %lld", r2, v,
                                     (long long)c2[v], (long long)want2);
  free(c2);
}
END_TEST

/* ---- seeds and generators ------------------------------------------------------------------------ */

START_TEST(test_parse_seed) {
  static const struct {
    const char *text;
    uint64_t want;
  } good[] = {{"0", 0},
              {"42", 42},
              {"  42\t", 42},
              {"0x2A", 42},
              {"0XfF", 255},
              {"007", 7},
              {"18446744073709551615", UINT64_MAX},
              {"0xffffffffffffffff", UINT64_MAX}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint64_t v = 1;
    ND_ASSERT_OK(nd__random_parse_seed("f", good[i].text, &v));
    ck_assert_msg(v == good[i].want, "'%s': got %llu", good[i].text, (unsigned long long)v);
  }
  static const char *bad[] = {"", " ", "-1", "+1", "1.5", "abc", "0x", "12 34", "1e3", "0x1g",
                              "18446744073709551616", "0x10000000000000000", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v = 5;
    char needle[64];
    snprintf(needle, sizeof needle, "ND_SEED='%s'", bad[i]);
    ND_ASSERT_FAILS(nd__random_parse_seed("nd_fn", bad[i], &v), ND_ERR_VALUE, needle);
    ck_assert(strstr(nd_last_error(), "nd_fn: ") == nd_last_error());
    ck_assert_uint_eq(v, 5);
  }
}
END_TEST

START_TEST(test_entropy) {
  uint64_t a = nd__random_entropy(), b = nd__random_entropy(), c = nd__random_entropy();
  ck_assert(a != b || b != c);
}
END_TEST

START_TEST(test_generator_create) {
  nd_generator *g = NULL;
  ND_ASSERT_OK(nd_generator_create(7, ND_BITGEN_PHILOX, &g));
  ck_assert_uint_eq(nd_generator_seed(g), 7);
  ck_assert_int_eq(nd_generator_bitgen(g), ND_BITGEN_PHILOX);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  ND_ASSERT_OK(nd_generator_destroy(g));
  ND_ASSERT_OK(nd_generator_destroy(NULL));
  ND_ASSERT_FAILS(nd_generator_create(7, (nd_bitgen)99, &g), ND_ERR_VALUE,
                  "nd_generator_create: argument 'bitgen'");
  ND_ASSERT_FAILS(nd_generator_create(7, (nd_bitgen)-1, &g), ND_ERR_VALUE, "value -1");
  ND_ASSERT_FAILS(nd_generator_create(7, ND_BITGEN_PHILOX, NULL), ND_ERR_NULL_POINTER,
                  "nd_generator_create: argument 'out'");
  if (!nd_test_have_gpu()) {
    /* The stateful generators need a device; failing leaves *out alone. */
    nd_generator *keep = (nd_generator *)&g;
    g = keep;
    nd_status st = nd_generator_create(7, ND_BITGEN_XORWOW, &g);
    ck_assert_int_ne(st, ND_OK);
    ck_assert_ptr_eq(g, keep);
    ck_assert(strstr(nd_last_error(), "nd_generator_create") != NULL);
  }
}
END_TEST

START_TEST(test_generator_take) {
  nd_generator *g;
  ND_ASSERT_OK(nd_generator_create(1, ND_BITGEN_PHILOX, &g));
  ck_assert_uint_eq(nd__generator_take(g, 10), 0);
  ck_assert_uint_eq(nd__generator_take(g, 5), 10);
  ck_assert_uint_eq(nd__generator_take(g, 0), 15);
  ck_assert_uint_eq(nd_generator_offset(g), 15);
  /* The counter wraps modulo 2^64 like Philox's. */
  g->offset = UINT64_MAX - 1;
  ck_assert_uint_eq(nd__generator_take(g, 3), UINT64_MAX - 1);
  ck_assert_uint_eq(nd_generator_offset(g), 1);
  ND_ASSERT_OK(nd_generator_destroy(g));
}
END_TEST

#define TAKE_THREADS 4
#define TAKES 20000

typedef struct take_arg {
  nd_generator *g;
  uint64_t bases[TAKES];
} take_arg;

static void *take_main(void *p) {
  take_arg *a = p;
  for (int i = 0; i < TAKES; i++) a->bases[i] = nd__generator_take(a->g, 3);
  return NULL;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

START_TEST(test_generator_take_threads) {
  /* Four threads take blocks from one generator at once: the ranges they get are disjoint and
   * cover [0, 3 * 4 * TAKES) exactly. */
  nd_generator *g;
  ND_ASSERT_OK(nd_generator_create(1, ND_BITGEN_PHILOX, &g));
  static take_arg args[TAKE_THREADS];
  pthread_t th[TAKE_THREADS];
  for (int t = 0; t < TAKE_THREADS; t++) {
    args[t].g = g;
    ck_assert_int_eq(pthread_create(&th[t], NULL, take_main, &args[t]), 0);
  }
  for (int t = 0; t < TAKE_THREADS; t++) pthread_join(th[t], NULL);
  ck_assert_uint_eq(nd_generator_offset(g), 3u * TAKE_THREADS * TAKES);
  uint64_t *all = malloc(sizeof(uint64_t) * TAKE_THREADS * TAKES);
  for (int t = 0; t < TAKE_THREADS; t++) memcpy(all + t * TAKES, args[t].bases, sizeof args[t].bases);
  qsort(all, TAKE_THREADS * TAKES, sizeof *all, cmp_u64);
  for (int i = 0; i < TAKE_THREADS * TAKES; i++) ck_assert_uint_eq(all[i], 3u * (uint64_t)i);
  free(all);
  ND_ASSERT_OK(nd_generator_destroy(g));
}
END_TEST

typedef struct default_arg {
  nd_generator *gen;
  uint64_t seed;
  nd_status st;
  char msg[256];
} default_arg;

static void *default_main(void *p) {
  default_arg *a = p;
  a->st = nd_generator_default(&a->gen);
  snprintf(a->msg, sizeof a->msg, "%s", nd_last_error());
  if (a->st == ND_OK) a->seed = nd_generator_seed(a->gen);
  return NULL;
}

static default_arg run_default_thread(void) {
  default_arg a;
  memset(&a, 0, sizeof a);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, default_main, &a), 0);
  pthread_join(th, NULL);
  return a;
}

START_TEST(test_default_generator) {
  nd__config_override(ND__CFG_SEED, NULL);
  nd_generator *a = NULL, *b = NULL;
  ND_ASSERT_OK(nd_generator_default(&a));
  ND_ASSERT_OK(nd_generator_default(&b));
  ck_assert_ptr_eq(a, b);
  ck_assert_int_eq(nd_generator_bitgen(NULL), ND_BITGEN_PHILOX);
  ck_assert_uint_eq(nd_generator_seed(NULL), nd_generator_seed(a));
  ND_ASSERT_FAILS(nd_generator_destroy(a), ND_ERR_INVALID_ARGUMENT, "default generator");
  ND_ASSERT_FAILS(nd_generator_default(NULL), ND_ERR_NULL_POINTER, "nd_generator_default");
  /* Another thread has its own default; without ND_SEED the seeds come from entropy. */
  default_arg t1 = run_default_thread(), t2 = run_default_thread();
  ck_assert_int_eq(t1.st, ND_OK);
  ck_assert_ptr_ne(t1.gen, a);
  ck_assert(t1.seed != t2.seed || t1.seed != nd_generator_seed(a));
  /* ND_SEED seeds every new thread's default generator. */
  nd__config_override(ND__CFG_SEED, "0x1234");
  default_arg t3 = run_default_thread(), t4 = run_default_thread();
  ck_assert_int_eq(t3.st, ND_OK);
  ck_assert_uint_eq(t3.seed, 0x1234);
  ck_assert_uint_eq(t4.seed, 0x1234);
  /* A malformed ND_SEED is reported, naming the variable and its value. */
  nd__config_override(ND__CFG_SEED, "twelve");
  default_arg t5 = run_default_thread();
  ck_assert_int_eq(t5.st, ND_ERR_VALUE);
  ck_assert_msg(strstr(t5.msg, "nd_generator_default: ND_SEED='twelve'") != NULL, "%s", t5.msg);
  nd__config_override(ND__CFG_SEED, NULL);
}
END_TEST

static void *bad_seed_main(void *p) {
  default_arg *a = p;
  nd_array *r = NULL;
  const int64_t shape[1] = {4};
  a->st = nd_random_normal(NULL, 0.0, 1.0, 1, shape, ND_FLOAT32, &r);
  snprintf(a->msg, sizeof a->msg, "%s", nd_last_error());
  /* nd_random_seed works even though ND_SEED is malformed. */
  if (nd_random_seed(77) == ND_OK) a->seed = nd_generator_seed(NULL);
  return NULL;
}

START_TEST(test_default_bad_seed_in_call) {
  nd__config_override(ND__CFG_SEED, "-3");
  default_arg a;
  memset(&a, 0, sizeof a);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, bad_seed_main, &a), 0);
  pthread_join(th, NULL);
  nd__config_override(ND__CFG_SEED, NULL);
  ck_assert_int_eq(a.st, ND_ERR_VALUE);
  ck_assert_msg(strstr(a.msg, "nd_random_normal: nd_generator_default: ND_SEED='-3'") == a.msg, "%s", a.msg);
  ck_assert_uint_eq(a.seed, 77);
}
END_TEST

START_TEST(test_random_seed) {
  nd_generator *g;
  ND_ASSERT_OK(nd_random_seed(99));
  ND_ASSERT_OK(nd_generator_default(&g));
  ck_assert_uint_eq(nd_generator_seed(g), 99);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  (void)nd__generator_take(g, 12);
  ck_assert_uint_eq(nd_generator_offset(NULL), 12);
  ND_ASSERT_OK(nd_random_seed(5));
  ck_assert_uint_eq(nd_generator_seed(NULL), 5);
  ck_assert_uint_eq(nd_generator_offset(NULL), 0);
  nd_generator *g2;
  ND_ASSERT_OK(nd_generator_default(&g2));
  ck_assert_ptr_eq(g, g2);
}
END_TEST

/* ---- integer bounds ------------------------------------------------------------------------------ */

static nd_scalar u64s(uint64_t v) {
  nd_scalar s;
  s.dtype = ND_UINT64;
  s.v.u = v;
  return s;
}

START_TEST(test_int_params) {
  static const struct {
    int64_t low, high;
    int endpoint;
    nd_dtype dtype;
    uint64_t range;
    int wide;
  } cases[] = {
      {0, 10, 0, ND_INT64, 10, 0},
      {-128, 127, 1, ND_INT8, 256, 0},
      {-128, 128, 0, ND_INT8, 256, 0},
      {0, 1, 1, ND_BOOL, 2, 0},
      {0, 2, 0, ND_BOOL, 2, 0},
      {0, 256, 0, ND_UINT8, 256, 0},
      {5, 5, 1, ND_INT32, 1, 0},
      {-5, 5, 0, ND_INT16, 10, 0},
      {0, INT64_C(4294967295), 1, ND_UINT32, UINT64_C(1) << 32, 0},
      {INT32_MIN, INT64_C(2147483648), 0, ND_INT32, UINT64_C(1) << 32, 0},
      {0, INT64_C(4294967296), 0, ND_INT64, UINT64_C(1) << 32, 0},
      {0, INT64_C(4294967296), 1, ND_INT64, (UINT64_C(1) << 32) + 1, 1},
      {INT64_MIN, INT64_MAX, 1, ND_INT64, 0, 1},
      {INT64_MIN, INT64_MAX, 0, ND_INT64, UINT64_MAX, 1},
      {-1, 1, 1, ND_INT64, 3, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nd_krparams p;
    memset(&p, 0xab, sizeof p);
    ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(cases[i].low), nd_scalar_int(cases[i].high),
                                       cases[i].endpoint, cases[i].dtype, 1, &p));
    ck_assert_int_eq(p.dist, ND_KR_INTEGERS);
    ck_assert_msg(p.low == (uint64_t)cases[i].low, "case %zu: low", i);
    ck_assert_msg(p.range == cases[i].range, "case %zu: range %llu, want %llu", i,
                  (unsigned long long)p.range, (unsigned long long)cases[i].range);
    ck_assert_msg(p.wide == cases[i].wide, "case %zu: wide %d", i, p.wide);
    ck_assert_msg(p.threshold == nd__lemire_threshold(p.range, p.wide), "case %zu: threshold", i);
  }
  /* uint64's full range needs an unsigned bound. */
  nd_krparams p;
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(0), u64s(UINT64_MAX), 1, ND_UINT64, 1, &p));
  ck_assert(p.range == 0 && p.wide == 1 && p.threshold == 0 && p.low == 0);
  ND_ASSERT_OK(nd__random_int_params("f", u64s(UINT64_C(1) << 63), u64s(UINT64_MAX), 1, ND_UINT64, 1, &p));
  ck_assert(p.range == UINT64_C(1) << 63 && p.low == UINT64_C(1) << 63 && p.wide == 1);
  /* Bool and strong integer scalars are integers too. */
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_bool(0), nd_scalar_bool(1), 1, ND_BOOL, 1, &p));
  ck_assert(p.range == 2);
  nd_scalar i8 = {.dtype = ND_INT8, .v.i = -3};
  ND_ASSERT_OK(nd__random_int_params("f", i8, nd_scalar_int(3), 0, ND_INT8, 1, &p));
  ck_assert(p.range == 6 && p.low == (uint64_t)-3);
}
END_TEST

START_TEST(test_int_params_errors) {
  nd_krparams p;
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(5), nd_scalar_int(5), 0, ND_INT64, 1, &p),
                  ND_ERR_VALUE, "nd_fn: low >= high (low = 5, high = 5)");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(6), nd_scalar_int(5), 1, ND_INT64, 1, &p),
                  ND_ERR_VALUE, "low > high (low = 6, high = 5)");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(-1), nd_scalar_int(10), 0, ND_UINT8, 1, &p),
                  ND_ERR_VALUE, "low is out of bounds for uint8 (low = -1");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_int(257), 0, ND_UINT8, 1, &p),
                  ND_ERR_VALUE, "high is out of bounds for uint8 (high = 257");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_int(256), 1, ND_UINT8, 1, &p),
                  ND_ERR_VALUE, "high is out of bounds for uint8");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_int(2), 1, ND_BOOL, 1, &p),
                  ND_ERR_VALUE, "high is out of bounds for bool");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(-129), nd_scalar_int(0), 0, ND_INT8, 1, &p),
                  ND_ERR_VALUE, "the smallest int8 is -128");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), u64s(UINT64_MAX), 1, ND_INT64, 1, &p),
                  ND_ERR_VALUE, "high = 18446744073709551615");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_float(0.5), nd_scalar_int(3), 0, ND_INT64, 1, &p),
                  ND_ERR_DTYPE, "argument 'low' must be an integer scalar");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_complex(3, 0), 0, ND_INT64, 1, &p),
                  ND_ERR_DTYPE, "argument 'high' must be an integer scalar");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_int(3), 0, ND_FLOAT32, 1, &p),
                  ND_ERR_DTYPE, "float32 is not an integer dtype");
  /* Nothing to draw: NumPy (rng.integers(5, 5, size=0), or -1 for uint8) checks no bounds, but
   * the arguments' types still. */
  ND_ASSERT_OK(nd__random_int_params("nd_fn", nd_scalar_int(5), nd_scalar_int(5), 0, ND_INT64, 0, &p));
  ck_assert(p.range == 1);
  ND_ASSERT_OK(nd__random_int_params("nd_fn", nd_scalar_int(6), nd_scalar_int(5), 1, ND_INT64, 0, &p));
  ND_ASSERT_OK(nd__random_int_params("nd_fn", nd_scalar_int(-1), nd_scalar_int(300), 0, ND_UINT8, 0, &p));
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_float(0.5), nd_scalar_int(3), 0, ND_INT64, 0, &p),
                  ND_ERR_DTYPE, "argument 'low' must be an integer scalar");
  ND_ASSERT_FAILS(nd__random_int_params("nd_fn", nd_scalar_int(0), nd_scalar_int(3), 0, ND_FLOAT32, 0, &p),
                  ND_ERR_DTYPE, "float32 is not an integer dtype");
}
END_TEST

/* ---- probability vectors ------------------------------------------------------------------------- */

START_TEST(test_check_p) {
  double cdf[8];
  int64_t nnz = -1, last = -1;
  const double p1[3] = {0.2, 0.3, 0.5};
  ND_ASSERT_OK(nd__random_check_p("f", p1, 3, cdf, &nnz, &last));
  ck_assert(fabs(cdf[0] - 0.2) < 1e-15 && fabs(cdf[1] - 0.5) < 1e-15 && cdf[2] == 1.0);
  ck_assert_int_eq(nnz, 3);
  ck_assert_int_eq(last, 2);
  /* Trailing zeros: the cdf is exactly 1 from the last non-zero entry on. */
  const double p2[5] = {0.0, 0.5, 0.0, 0.5, 0.0};
  ND_ASSERT_OK(nd__random_check_p("f", p2, 5, cdf, &nnz, &last));
  ck_assert(cdf[0] == 0.0 && cdf[1] == 0.5 && cdf[2] == 0.5 && cdf[3] == 1.0 && cdf[4] == 1.0);
  ck_assert_int_eq(nnz, 2);
  ck_assert_int_eq(last, 3);
  /* Within NumPy's tolerance (sqrt(eps) = 1.49e-8) the vector is accepted and normalised. */
  const double p3[2] = {0.25, 0.75 + 1e-9};
  ND_ASSERT_OK(nd__random_check_p("f", p3, 2, cdf, NULL, NULL));
  ck_assert(fabs(cdf[0] - 0.25 / (1.0 + 1e-9)) < 1e-15 && cdf[1] == 1.0);
  const double p4[2] = {0.25, 0.75 + 1e-7};
  ND_ASSERT_FAILS(nd__random_check_p("nd_fn", p4, 2, cdf, NULL, NULL), ND_ERR_VALUE,
                  "nd_fn: argument 'p': probabilities do not sum to 1 (sum = 1.0000000");
  const double p5[3] = {0.5, -0.1, 0.6};
  ND_ASSERT_FAILS(nd__random_check_p("nd_fn", p5, 3, NULL, NULL, NULL), ND_ERR_VALUE,
                  "probabilities are not non-negative (p[1] = -0.1");
  const double p6[3] = {0.5, 0.5, NAN};
  ND_ASSERT_FAILS(nd__random_check_p("nd_fn", p6, 3, NULL, NULL, NULL), ND_ERR_VALUE,
                  "probabilities contain NaN (p[2] = nan)");
  const double p7[2] = {INFINITY, 0.0};
  ND_ASSERT_FAILS(nd__random_check_p("nd_fn", p7, 2, NULL, NULL, NULL), ND_ERR_VALUE, "do not sum to 1");
  const double p8[2] = {0.0, 0.0};
  ND_ASSERT_FAILS(nd__random_check_p("nd_fn", p8, 2, NULL, NULL, NULL), ND_ERR_VALUE, "sum = 0");
}
END_TEST

START_TEST(test_per_block) {
  nd_krparams p;
  memset(&p, 0, sizeof p);
  const int cont[4] = {ND_KR_UNIFORM, ND_KR_NORMAL, ND_KR_LOGNORMAL, ND_KR_EXPONENTIAL};
  for (int i = 0; i < 4; i++) {
    p.dist = cont[i];
    ck_assert_int_eq(nd_kr_per_block(&p, 4), 4);
    ck_assert_int_eq(nd_kr_per_block(&p, 8), 2);
  }
  p.dist = ND_KR_INTEGERS;
  p.wide = 0;
  for (int sz = 1; sz <= 8; sz *= 2) ck_assert_int_eq(nd_kr_per_block(&p, sz), 4);
  p.wide = 1;
  ck_assert_int_eq(nd_kr_per_block(&p, 8), 2);
  p.dist = ND_KR_BERNOULLI;
  ck_assert_int_eq(nd_kr_per_block(&p, 1), 2);
  const int rej[4] = {ND_KR_GAMMA, ND_KR_BETA, ND_KR_POISSON, ND_KR_BINOMIAL};
  for (int i = 0; i < 4; i++) {
    p.dist = rej[i];
    ck_assert_int_eq(nd_kr_per_block(&p, 8), 1);
  }
  ck_assert_uint_eq(nd_kr_blocks(0, 4), 0);
  ck_assert_uint_eq(nd_kr_blocks(1, 4), 1);
  ck_assert_uint_eq(nd_kr_blocks(4, 4), 1);
  ck_assert_uint_eq(nd_kr_blocks(5, 4), 2);
  ck_assert_uint_eq(nd_kr_blocks(1001, 2), 501);
  ck_assert_uint_eq(nd_kr_blocks(INT64_MAX, 1), (uint64_t)INT64_MAX);
  ck_assert_uint_eq(nd_kr_blocks(INT64_MAX, 4), (uint64_t)INT64_MAX / 4 + 1);
}
END_TEST

/* ---- argument checks of the public functions ------------------------------------------------------- */

START_TEST(test_argument_errors) {
  nd_generator *g;
  ND_ASSERT_OK(nd_generator_create(3, ND_BITGEN_PHILOX, &g));
  nd_array *r = (nd_array *)&g; /* must stay untouched */
  nd_array *const keep = r;
  const int64_t shape[2] = {3, 4};
  /* Parameters outside their domains. */
  ND_ASSERT_FAILS(nd_random_uniform(g, 1.0, 1.0, 2, shape, ND_FLOAT32, &r), ND_ERR_VALUE,
                  "nd_random_uniform: low >= high (low = 1, high = 1)");
  ND_ASSERT_FAILS(nd_random_uniform(g, 2.0, 1.0, 2, shape, ND_FLOAT32, &r), ND_ERR_VALUE, "low >= high");
  ND_ASSERT_FAILS(nd_random_uniform(g, -INFINITY, 1.0, 2, shape, ND_FLOAT32, &r), ND_ERR_VALUE, "must be finite");
  ND_ASSERT_FAILS(nd_random_uniform(g, -DBL_MAX, DBL_MAX, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE, "overflows");
  ND_ASSERT_FAILS(nd_random_uniform_into(g, 0.0, NAN, NULL), ND_ERR_VALUE, "nd_random_uniform_into");
  ND_ASSERT_FAILS(nd_random_normal(g, 0.0, -1.0, 2, shape, ND_FLOAT32, &r), ND_ERR_VALUE,
                  "nd_random_normal: argument 'scale' must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_normal(g, 0.0, NAN, 2, shape, ND_FLOAT32, &r), ND_ERR_VALUE, "(got nan)");
  ND_ASSERT_FAILS(nd_random_normal_into(g, 0.0, -2.0, NULL), ND_ERR_VALUE, "nd_random_normal_into: argument 'scale'");
  ND_ASSERT_FAILS(nd_random_lognormal(g, 0.0, -0.5, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_lognormal: argument 'sigma' must be >= 0 (got -0.5)");
  ND_ASSERT_FAILS(nd_random_lognormal_into(g, 0.0, -0.5, NULL), ND_ERR_VALUE, "'sigma'");
  ND_ASSERT_FAILS(nd_random_exponential(g, -3.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_exponential: argument 'scale' must be >= 0 (got -3)");
  ND_ASSERT_FAILS(nd_random_exponential_into(g, -3.0, NULL), ND_ERR_VALUE, "'scale'");
  ND_ASSERT_FAILS(nd_random_standard_gamma(g, -1.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_standard_gamma: argument 'k' must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_standard_gamma_into(g, -1.0, NULL), ND_ERR_VALUE, "'k'");
  ND_ASSERT_FAILS(nd_random_gamma(g, 2.0, -1.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_gamma: argument 'scale' must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_gamma(g, NAN, 1.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE, "argument 'k'");
  ND_ASSERT_FAILS(nd_random_gamma_into(g, 1.0, -1.0, NULL), ND_ERR_VALUE, "'scale'");
  ND_ASSERT_FAILS(nd_random_beta(g, 0.0, 1.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_beta: argument 'a' must be > 0 (got 0)");
  ND_ASSERT_FAILS(nd_random_beta(g, 1.0, -2.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "argument 'b' must be > 0 (got -2)");
  ND_ASSERT_FAILS(nd_random_beta_into(g, 1.0, 0.0, NULL), ND_ERR_VALUE, "'b'");
  ND_ASSERT_FAILS(nd_random_chisquare(g, 0.0, 2, shape, ND_FLOAT64, &r), ND_ERR_VALUE,
                  "nd_random_chisquare: argument 'df' must be > 0 (got 0)");
  ND_ASSERT_FAILS(nd_random_chisquare_into(g, -1.0, NULL), ND_ERR_VALUE, "'df'");
  ND_ASSERT_FAILS(nd_random_poisson(g, -1.0, 2, shape, ND_INT64, &r), ND_ERR_VALUE,
                  "nd_random_poisson: argument 'lam' must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_poisson(g, 1e19, 2, shape, ND_INT64, &r), ND_ERR_VALUE,
                  "argument 'lam' is too large for int64 (got 1e+19");
  ND_ASSERT_FAILS(nd_random_poisson(g, 3e9, 2, shape, ND_INT32, &r), ND_ERR_VALUE, "too large for int32");
  ND_ASSERT_FAILS(nd_random_binomial(g, -1, 0.5, 2, shape, ND_INT64, &r), ND_ERR_VALUE,
                  "nd_random_binomial: argument 'n' must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_binomial(g, 10, 1.5, 2, shape, ND_INT64, &r), ND_ERR_VALUE,
                  "argument 'p' must be in [0, 1] (got 1.5)");
  ND_ASSERT_FAILS(nd_random_binomial(g, 10, -0.5, 2, shape, ND_INT64, &r), ND_ERR_VALUE, "(got -0.5)");
  ND_ASSERT_FAILS(nd_random_binomial(g, 10, NAN, 2, shape, ND_INT64, &r), ND_ERR_VALUE, "(got nan)");
  ND_ASSERT_FAILS(nd_random_binomial(g, INT64_C(3000000000), 0.5, 2, shape, ND_INT32, &r), ND_ERR_VALUE,
                  "does not fit dtype int32");
  ND_ASSERT_FAILS(nd_random_bernoulli(g, 1.01, 2, shape, ND_BOOL, &r), ND_ERR_VALUE,
                  "nd_random_bernoulli: argument 'p' must be in [0, 1] (got 1.01)");
  ND_ASSERT_FAILS(nd_random_bernoulli_into(g, -0.01, NULL), ND_ERR_VALUE, "nd_random_bernoulli_into");
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(3), nd_scalar_int(3), 0, 2, shape, ND_INT32, &r),
                  ND_ERR_VALUE, "nd_random_integers: low >= high (low = 3, high = 3)");
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(0), nd_scalar_int(300), 0, 2, shape, ND_INT8, &r),
                  ND_ERR_VALUE, "high is out of bounds for int8");
  /* Unsupported dtypes. */
  ND_ASSERT_FAILS(nd_random_normal(g, 0.0, 1.0, 2, shape, ND_INT32, &r), ND_ERR_DTYPE,
                  "nd_random_normal: unsupported dtype int32 (this distribution produces float32 or float64)");
  ND_ASSERT_FAILS(nd_random_random(g, 2, shape, ND_FLOAT16, &r), ND_ERR_DTYPE, "unsupported dtype float16");
  ND_ASSERT_FAILS(nd_random_uniform(g, 0, 1, 2, shape, ND_COMPLEX64, &r), ND_ERR_DTYPE, "complex64");
  ND_ASSERT_FAILS(nd_random_poisson(g, 1.0, 2, shape, ND_FLOAT64, &r), ND_ERR_DTYPE,
                  "nd_random_poisson: unsupported dtype float64 (this distribution produces int32 or int64)");
  ND_ASSERT_FAILS(nd_random_binomial(g, 3, 0.5, 2, shape, ND_UINT8, &r), ND_ERR_DTYPE, "uint8");
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(0), nd_scalar_int(3), 0, 2, shape, ND_FLOAT64, &r),
                  ND_ERR_DTYPE, "nd_random_integers: unsupported dtype float64");
  ND_ASSERT_FAILS(nd_random_bernoulli(g, 0.5, 2, shape, ND_COMPLEX128, &r), ND_ERR_DTYPE, "complex128");
  ND_ASSERT_FAILS(nd_random_bernoulli(g, 0.5, 2, shape, (nd_dtype)77, &r), ND_ERR_DTYPE, "(invalid)");
  /* NULL and bad shapes. */
  ND_ASSERT_FAILS(nd_random_random(g, 2, shape, ND_FLOAT32, NULL), ND_ERR_NULL_POINTER,
                  "nd_random_random: argument 'result' is NULL");
  ND_ASSERT_FAILS(nd_random_random(g, 2, NULL, ND_FLOAT32, &r), ND_ERR_NULL_POINTER, "nd_random_random");
  ND_ASSERT_FAILS(nd_random_random(g, -1, shape, ND_FLOAT32, &r), ND_ERR_INVALID_ARGUMENT, "ndim -1");
  /* integers: an ndim past ND_MAXDIMS is refused without reading the 2-element shape past its
   * end, and bad bounds are reported before a bad shape, in NumPy's order. */
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(0), nd_scalar_int(3), 0, ND_MAXDIMS + 1000, shape, ND_INT32, &r),
                  ND_ERR_INVALID_ARGUMENT, "nd_random_integers");
  ND_ASSERT_FAILS(nd_random_integers(g, nd_scalar_int(5), nd_scalar_int(1), 0, -1, shape, ND_INT32, &r),
                  ND_ERR_VALUE, "nd_random_integers: low >= high");
  const int64_t negative[2] = {3, -4};
  ND_ASSERT_FAILS(nd_random_standard_normal(g, 2, negative, ND_FLOAT32, &r), ND_ERR_INVALID_ARGUMENT,
                  "nd_random_standard_normal");
  ND_ASSERT_FAILS(nd_random_random_into(g, NULL), ND_ERR_NULL_POINTER, "nd_random_random_into: argument 'out'");
  ND_ASSERT_FAILS(nd_random_standard_normal_into(g, NULL), ND_ERR_NULL_POINTER, "'out'");
  ND_ASSERT_FAILS(nd_random_standard_exponential_into(g, NULL), ND_ERR_NULL_POINTER, "'out'");
  ND_ASSERT_FAILS(nd_random_standard_gamma_into(g, 1.0, NULL), ND_ERR_NULL_POINTER, "'out'");
  ND_ASSERT_FAILS(nd_random_poisson_into(g, 1.0, NULL), ND_ERR_NULL_POINTER, "nd_random_poisson_into");
  ND_ASSERT_FAILS(nd_random_binomial_into(g, 1, 0.5, NULL), ND_ERR_NULL_POINTER, "nd_random_binomial_into");
  ND_ASSERT_FAILS(nd_random_integers_into(g, nd_scalar_int(0), nd_scalar_int(1), 0, NULL),
                  ND_ERR_NULL_POINTER, "nd_random_integers_into");
  /* choice, permutation, shuffle. */
  const double p[3] = {0.5, 0.5, 0.0};
  const double pbad[3] = {0.5, 0.6, 0.0};
  ND_ASSERT_FAILS(nd_random_choice(g, -1, 2, shape, 1, NULL, &r), ND_ERR_VALUE,
                  "nd_random_choice: the population size must be >= 0 (got -1)");
  ND_ASSERT_FAILS(nd_random_choice(g, 0, 2, shape, 1, NULL, &r), ND_ERR_VALUE,
                  "a cannot be empty unless no samples are taken");
  ND_ASSERT_FAILS(nd_random_choice(g, 5, 2, shape, 0, NULL, &r), ND_ERR_VALUE,
                  "cannot take a larger sample than population when replace is false (12 samples, population 5)");
  ND_ASSERT_FAILS(nd_random_choice(g, 3, 2, shape, 1, pbad, &r), ND_ERR_VALUE,
                  "nd_random_choice: argument 'p': probabilities do not sum to 1");
  const int64_t two[1] = {3};
  ND_ASSERT_FAILS(nd_random_choice(g, 3, 1, two, 0, p, &r), ND_ERR_VALUE,
                  "fewer non-zero entries in p than size (2 non-zero entries, 3 samples)");
  ND_ASSERT_FAILS(nd_random_choice(g, 3, 2, shape, 1, p, NULL), ND_ERR_NULL_POINTER, "'result'");
  ND_ASSERT_FAILS(nd_random_choice_array(g, NULL, 2, shape, 1, NULL, &r), ND_ERR_NULL_POINTER,
                  "nd_random_choice_array: argument 'a'");
  ND_ASSERT_FAILS(nd_random_permutation(g, -2, &r), ND_ERR_VALUE,
                  "nd_random_permutation: argument 'n' must be >= 0 (got -2)");
  ND_ASSERT_FAILS(nd_random_permutation(g, 2, NULL), ND_ERR_NULL_POINTER, "nd_random_permutation");
  ND_ASSERT_FAILS(nd_random_permutation_array(g, NULL, 0, &r), ND_ERR_NULL_POINTER,
                  "nd_random_permutation_array: argument 'a'");
  ND_ASSERT_FAILS(nd_random_shuffle(g, NULL, 0), ND_ERR_NULL_POINTER, "nd_random_shuffle: argument 'a'");
  /* Nothing was written and no numbers were used. */
  ck_assert_ptr_eq(r, keep);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  ND_ASSERT_OK(nd_generator_destroy(g));
}
END_TEST

START_TEST(test_no_device) {
  /* Without a GPU a valid call fails cleanly, naming the function, and uses no numbers. */
  if (nd_test_have_gpu()) return;
  nd_generator *g;
  ND_ASSERT_OK(nd_generator_create(3, ND_BITGEN_PHILOX, &g));
  nd_array *r = NULL;
  const int64_t shape[1] = {10};
  nd_status st = nd_random_standard_normal(g, 1, shape, ND_FLOAT32, &r);
  ck_assert_int_ne(st, ND_OK);
  ck_assert_ptr_null(r);
  ck_assert_msg(strstr(nd_last_error(), "nd_random_standard_normal") != NULL, "%s", nd_last_error());
  st = nd_random_permutation(g, 10, &r);
  ck_assert_int_ne(st, ND_OK);
  st = nd_random_choice(g, 5, 1, shape, 1, NULL, &r);
  ck_assert_int_ne(st, ND_OK);
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(nd_generator_offset(g), 0);
  ND_ASSERT_OK(nd_generator_destroy(g));
}
END_TEST

/* ---- statistics helpers --------------------------------------------------------------------------- */

static double cdf_uniform(double x, const double *c) {
  (void)c;
  return x < 0 ? 0 : (x > 1 ? 1 : x);
}
static double cdf_normal(double x, const double *c) { return nd_st_normal_cdf((x - c[0]) / c[1]); }
static double cdf_expon(double x, const double *c) { return x <= 0 ? 0 : 1.0 - exp(-x / c[0]); }

START_TEST(test_stats_helpers) {
  ck_assert(fabs(nd_st_normal_cdf(1.959963984540054) - 0.975) < 1e-12);
  ck_assert(fabs(nd_st_normal_cdf(0.0) - 0.5) < 1e-15);
  /* P(1, x) = 1 - exp(-x); P(2, 1) = 1 - 2/e; P(a, x) on both sides of a + 1. */
  ck_assert(fabs(nd_st_gamma_p(1.0, 0.7) - (1.0 - exp(-0.7))) < 1e-13);
  ck_assert(fabs(nd_st_gamma_p(1.0, 7.0) - (1.0 - exp(-7.0))) < 1e-13);
  ck_assert(fabs(nd_st_gamma_p(2.0, 1.0) - (1.0 - 2.0 / exp(1.0))) < 1e-13);
  ck_assert(fabs(nd_st_gamma_p(2.0, 5.0) - (1.0 - 6.0 / exp(5.0))) < 1e-13);
  /* P(1/2, x) = erf(sqrt(x)). */
  ck_assert(fabs(nd_st_gamma_p(0.5, 0.3) - erf(sqrt(0.3))) < 1e-13);
  ck_assert(fabs(nd_st_gamma_p(0.5, 4.0) - erf(2.0)) < 1e-13);
  /* Chi-square critical values: 3.841459 (df 1) and 18.307038 (df 10) at 5%. */
  ck_assert(fabs(nd_st_chi2_sf(3.841458820694124, 1) - 0.05) < 1e-10);
  ck_assert(fabs(nd_st_chi2_sf(18.307038053275146, 10) - 0.05) < 1e-10);
  ck_assert(fabs(nd_st_chi2_sf(0.0, 4) - 1.0) < 1e-15);
  /* I_0.4(2, 3) = sum_{j=2..4} C(4,j) 0.4^j 0.6^(4-j) = 0.5248; I_x(1, 1) = x; symmetry. */
  ck_assert(fabs(nd_st_beta_cdf(0.4, 2.0, 3.0) - 0.5248) < 1e-12);
  ck_assert(fabs(nd_st_beta_cdf(0.9, 2.0, 3.0) - (1.0 - nd_st_beta_cdf(0.1, 3.0, 2.0))) < 1e-12);
  ck_assert(fabs(nd_st_beta_cdf(0.37, 1.0, 1.0) - 0.37) < 1e-13);
  /* I_x(1/2, 1/2) = (2/pi) asin(sqrt(x)). */
  ck_assert(fabs(nd_st_beta_cdf(0.2, 0.5, 0.5) - 2.0 / 3.14159265358979323846 * asin(sqrt(0.2))) < 1e-12);
  /* Kolmogorov: Q(1.3581) = 0.05, Q(1.6276) = 0.01 (the usual critical values). */
  ck_assert(fabs(nd_st_kolmogorov_q(1.3581) - 0.05) < 2e-4);
  ck_assert(fabs(nd_st_kolmogorov_q(1.6276) - 0.01) < 1e-4);
  ck_assert(nd_st_kolmogorov_q(0.1) == 1.0);
  /* KS of a perfect grid has D = 1/(2n) and a p-value of 1; of a shifted grid, p ~ 0. */
  enum { N = 1000 };
  static double x[N];
  for (int i = 0; i < N; i++) x[N - 1 - i] = (i + 0.5) / N;
  double d;
  ck_assert(nd_st_ks(x, N, cdf_uniform, NULL, &d) > 0.99);
  ck_assert(fabs(d - 0.5 / N) < 1e-12);
  for (int i = 0; i < N; i++) x[i] = 0.1 + 0.9 * (i + 0.5) / N;
  ck_assert(nd_st_ks(x, N, cdf_uniform, NULL, &d) < 1e-6);
  /* Chi-square: exact expected counts give 0 and p = 1; pooling of small bins; mass outside. */
  const double prob[4] = {0.25, 0.25, 0.25, 0.25};
  const int64_t obs[4] = {250, 250, 250, 250};
  double stat;
  int df;
  ck_assert(nd_st_chi2_counts(obs, prob, 4, 0, 1000, &stat, &df) > 0.999);
  ck_assert(stat < 1e-12);
  ck_assert_int_eq(df, 3);
  const int64_t skew[4] = {400, 200, 200, 200};
  ck_assert(nd_st_chi2_counts(skew, prob, 4, 0, 1000, &stat, &df) < 1e-6);
  ck_assert(fabs(stat - 120.0) < 1e-9); /* 150^2/250 + 3 * 50^2/250 */
  const double tiny[3] = {0.001, 0.001, 0.998};
  const int64_t tobs[3] = {1, 1, 998};
  nd_st_chi2_counts(tobs, tiny, 3, 0, 1000, &stat, &df);
  ck_assert_int_eq(df, 0); /* 1 + 1 < 5 pools into the last bin */
  const int64_t outside[2] = {500, 499};
  ck_assert(nd_st_chi2_counts(outside, prob, 2, 1, 999, &stat, &df) < 1e-6); /* 1 - 0.5 of mass missing */
  /* Moments. */
  const double m[4] = {1.0, 2.0, 3.0, 4.0};
  double mean, var, m4;
  nd_st_moments(m, 4, &mean, &var, &m4);
  ck_assert(mean == 2.5 && fabs(var - 5.0 / 3.0) < 1e-15 && fabs(m4 - (2 * 5.0625 + 2 * 0.0625) / 4) < 1e-15);
  /* pmfs sum to 1. */
  double s = 0.0;
  for (int k = 0; k < 200; k++) s += nd_st_poisson_pmf(k, 30.0);
  ck_assert(fabs(s - 1.0) < 1e-12);
  s = 0.0;
  for (int k = 0; k <= 50; k++) s += nd_st_binomial_pmf(k, 50, 0.3);
  ck_assert(fabs(s - 1.0) < 1e-12);
  ck_assert(fabs(nd_st_binomial_pmf(2, 4, 0.5) - 0.375) < 1e-14);
}
END_TEST

static double cdf_gamma_host(double x, const double *c) { return x <= 0 ? 0 : nd_st_gamma_p(c[0], x / c[1]); }

START_TEST(test_stats_sort_and_ks) {
  /* The radix sort orders like qsort over signs, zeros, subnormals, infinities and repeats. */
  enum { NS = 100003 };
  static double a[NS], b[NS];
  nd_ref_normal_f64(7, 0, NS, 0.0, 1.0, 0, a);
  for (int i = 0; i < NS; i++) {
    a[i] *= (i % 3 == 0) ? 1e300 : (i % 3 == 1 ? 1e-300 : 1.0);
    if (i % 101 == 0) a[i] = 0.0;
    if (i % 103 == 0) a[i] = -0.0;
    if (i % 107 == 0) a[i] = (i % 2) ? 4.9e-324 : -3e-310;
    if (i % 1009 == 0) a[i] = (i % 2) ? INFINITY : -INFINITY;
    if (i % 7 == 0) a[i] = a[i / 2];
  }
  memcpy(b, a, sizeof a);
  nd_st_sort(a, NS);
  qsort(b, NS, sizeof *b, nd_st_cmp_double);
  for (int i = 0; i < NS; i++) /* equal values: qsort may order -0.0 and +0.0 either way */
    if (!(a[i] == b[i])) ck_abort_msg("sort [%d]: %g vs %g", i, a[i], b[i]);
  for (int i = 0; i + 1 < NS; i++)
    if (!(a[i] <= a[i + 1])) ck_abort_msg("sort [%d]: %g > %g", i, a[i], a[i + 1]);
  /* The KS shortcut gives the full statistic: good and bad fits, sizes below, at and off a
   * multiple of the block, a cdf that is costly (gamma) and one that is not. */
  const int64_t sizes[5] = {1, 63, 64, 1000, NS};
  const double nc[2] = {0.0, 1.0}, off[2] = {0.05, 1.0}, g[2] = {0.5, 2.0}, gbad[2] = {0.52, 2.0};
  for (int si = 0; si < 5; si++) {
    const int64_t n = sizes[si];
    for (int v = 0; v < 4; v++) {
      nd_ref_normal_f64(100 + (uint64_t)si, 0, n, 0.0, 1.0, 0, a);
      if (v >= 2)
        for (int64_t i = 0; i < n; i++) a[i] = a[i] * a[i]; /* chi-square(1) = gamma(1/2, 2) */
      double (*cdf)(double, const double *) = v >= 2 ? cdf_gamma_host : cdf_normal;
      const double *ctx = v == 0 ? nc : v == 1 ? off : v == 2 ? g : gbad;
      double d;
      const double p = nd_st_ks(a, n, cdf, ctx, &d);
      const double full = nd_st_ks_d_full(a, n, cdf, ctx); /* a is sorted now */
      ck_assert_msg(fabs(d - full) <= 1e-9, "n %lld variant %d: D %.17g, full %.17g", (long long)n, v, d, full);
      if (n == NS) ck_assert_msg((v % 2 == 0) == (p > P_MIN), "n %lld variant %d: p %g", (long long)n, v, p);
    }
  }
}
END_TEST

START_TEST(test_stats_moments) {
  char why[300];
  /* Bernoulli(1/2), as the GPU suite met it: n = 2^19 with 262043 ones. The mean is 0.28 se from
   * 1/2 and the sample variance 0.25000044, 4.4e-7 above 1/4 (second order in the mean's
   * error), while (x - 1/2)^2 is exactly 1/4 for every sample: a correct sample must pass. */
  enum { NB = 1 << 19 };
  static double x[NB];
  for (int i = 0; i < NB; i++) x[i] = i < 262043 ? 1.0 : 0.0;
  ck_assert_msg(nd_st_moments_ok(x, NB, 0.5, 0.25, 6, why, sizeof why), "%s", why);
  /* ... but a biased coin fails: 8 se off in the mean. */
  for (int i = 0; i < NB; i++) x[i] = i < NB / 2 + 8 * 362 ? 1.0 : 0.0;
  ck_assert(!nd_st_moments_ok(x, NB, 0.5, 0.25, 6, why, sizeof why));
  /* Bernoulli(0.05): correct frequencies pass, as do their exact moments. */
  for (int i = 0; i < NB; i++) x[i] = (i % 20) == 0 ? 1.0 : 0.0;
  ck_assert_msg(nd_st_moments_ok(x, NB, 0.05, 0.05 * 0.95, 6, why, sizeof why), "%s", why);
  /* Normal samples: sigma 1 passes; sigma 1.02 (variance 4% high, ~ 15 se at n = 400000) and a
   * mean shifted by 0.02 (~ 13 se) fail. */
  enum { NN = 400000 };
  static double y[NN];
  nd_ref_normal_f64(31, 0, NN, 0.0, 1.0, 0, y);
  ck_assert_msg(nd_st_moments_ok(y, NN, 0.0, 1.0, 6, why, sizeof why), "%s", why);
  ck_assert(strstr(why, "sample variance") != NULL);
  nd_ref_normal_f64(31, 0, NN, 0.0, 1.02, 0, y);
  ck_assert_msg(!nd_st_moments_ok(y, NN, 0.0, 1.0, 6, why, sizeof why), "%s", why);
  nd_ref_normal_f64(31, 0, NN, 0.02, 1.0, 0, y);
  ck_assert_msg(!nd_st_moments_ok(y, NN, 0.0, 1.0, 6, why, sizeof why), "%s", why);
}
END_TEST

/* ---- the host reference, statistically ------------------------------------------------------------ */

#define REF_N 400000

START_TEST(test_ref_uniform_normal_exponential) {
  static double x[REF_N];
  static float f[REF_N];
  char why[256];
  const uint64_t seed = 2024;
  nd_ref_uniform_f32(seed, 0, REF_N, 0.0f, 1.0f, f);
  for (int i = 0; i < REF_N; i++) {
    if (!(f[i] >= 0.0f && f[i] < 1.0f)) ck_abort_msg("uniform f32 [%d] = %g", i, f[i]);
    x[i] = f[i];
  }
  ck_assert_msg(nd_st_moments_ok(x, REF_N, 0.5, 1.0 / 12, 6, why, sizeof why), "%s", why);
  ck_assert(nd_st_ks(x, REF_N, cdf_uniform, NULL, NULL) > P_MIN);
  nd_ref_uniform_f64(seed, 0, REF_N, 0.0, 1.0, x);
  ck_assert_msg(nd_st_moments_ok(x, REF_N, 0.5, 1.0 / 12, 6, why, sizeof why), "%s", why);
  ck_assert(nd_st_ks(x, REF_N, cdf_uniform, NULL, NULL) > P_MIN);
  const double nc[2] = {0.0, 1.0};
  nd_ref_normal_f32(seed, 0, REF_N, 0.0f, 1.0f, 0, f);
  for (int i = 0; i < REF_N; i++) x[i] = f[i];
  ck_assert_msg(nd_st_moments_ok(x, REF_N, 0.0, 1.0, 6, why, sizeof why), "%s", why);
  ck_assert(nd_st_ks(x, REF_N, cdf_normal, nc, NULL) > P_MIN);
  nd_ref_normal_f64(seed, 0, REF_N, 0.0, 1.0, 0, x);
  ck_assert_msg(nd_st_moments_ok(x, REF_N, 0.0, 1.0, 6, why, sizeof why), "%s", why);
  ck_assert(nd_st_ks(x, REF_N, cdf_normal, nc, NULL) > P_MIN);
  const double ec[1] = {2.0};
  nd_ref_exponential_f32(seed, 0, REF_N, 2.0f, f);
  for (int i = 0; i < REF_N; i++) x[i] = f[i];
  ck_assert_msg(nd_st_moments_ok(x, REF_N, 2.0, 4.0, 6, why, sizeof why), "%s", why);
  ck_assert(nd_st_ks(x, REF_N, cdf_expon, ec, NULL) > P_MIN);
  nd_ref_exponential_f64(seed, 0, REF_N, 2.0, x);
  ck_assert(nd_st_ks(x, REF_N, cdf_expon, ec, NULL) > P_MIN);
  /* A sampler that is off shows up: the normal values shifted by 2% of a sigma fail. */
  nd_ref_normal_f64(seed, 0, REF_N, 0.02, 1.0, 0, x);
  ck_assert(nd_st_ks(x, REF_N, cdf_normal, nc, NULL) < P_MIN);
}
END_TEST

START_TEST(test_ref_integers) {
  static uint8_t b8[REF_N];
  static uint64_t b64[REF_N];
  static uint32_t b32[REF_N];
  static int64_t counts[256];
  double prob[256];
  nd_krparams p;
  /* int8 over its full range, endpoints included: every value appears, uniformly. */
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(-128), nd_scalar_int(127), 1, ND_INT8, 1, &p));
  nd_ref_integers(11, 0, REF_N, &p, 1, b8);
  memset(counts, 0, sizeof counts);
  for (int i = 0; i < REF_N; i++) counts[b8[i]]++;
  for (int v = 0; v < 256; v++) {
    ck_assert_int_gt(counts[v], 0);
    prob[v] = 1.0 / 256;
  }
  ck_assert(nd_st_chi2_counts(counts, prob, 256, 0, REF_N, NULL, NULL) > P_MIN);
  /* A range with 30% rejection: [0, 3e9) in uint32, chi-square over 100 equal bins. */
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(0), nd_scalar_int(3000000000), 0, ND_UINT32, 1, &p));
  ck_assert_uint_gt(p.threshold, 1000000000u);
  nd_ref_integers(12, 0, REF_N, &p, 4, b32);
  memset(counts, 0, sizeof counts);
  for (int i = 0; i < REF_N; i++) {
    if (b32[i] >= 3000000000u) ck_abort_msg("[%d] = %u", i, b32[i]);
    counts[b32[i] / 30000000u]++;
  }
  for (int v = 0; v < 100; v++) prob[v] = 0.01;
  ck_assert(nd_st_chi2_counts(counts, prob, 100, 0, REF_N, NULL, NULL) > P_MIN);
  /* uint64's full range: the top byte and each of the 64 bits are uniform. */
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(0), u64s(UINT64_MAX), 1, ND_UINT64, 1, &p));
  nd_ref_integers(13, 0, REF_N, &p, 8, b64);
  memset(counts, 0, sizeof counts);
  int64_t bits[64] = {0};
  for (int i = 0; i < REF_N; i++) {
    counts[b64[i] >> 56]++;
    for (int k = 0; k < 64; k++) bits[k] += (b64[i] >> k) & 1;
  }
  for (int v = 0; v < 256; v++) prob[v] = 1.0 / 256;
  ck_assert(nd_st_chi2_counts(counts, prob, 256, 0, REF_N, NULL, NULL) > P_MIN);
  for (int k = 0; k < 64; k++) ck_assert_msg(fabs(bits[k] - REF_N / 2.0) < 6 * sqrt(REF_N / 4.0), "bit %d", k);
  /* A wide range that rejects: [0, 3 * 2^62) in uint64 (rejects a quarter of the words). */
  ND_ASSERT_OK(nd__random_int_params("f", nd_scalar_int(0), u64s(UINT64_C(3) << 62), 0, ND_UINT64, 1, &p));
  ck_assert_uint_eq(p.threshold, UINT64_C(1) << 62);
  ck_assert_int_eq(p.wide, 1);
  nd_ref_integers(14, 0, REF_N, &p, 8, b64);
  memset(counts, 0, sizeof counts);
  for (int i = 0; i < REF_N; i++) {
    if (b64[i] >= p.range) ck_abort_msg("[%d] = %llu", i, (unsigned long long)b64[i]);
    counts[(int)((double)b64[i] / (double)p.range * 3.0)]++;
  }
  for (int v = 0; v < 3; v++) prob[v] = 1.0 / 3;
  ck_assert(nd_st_chi2_counts(counts, prob, 3, 0, REF_N, NULL, NULL) > P_MIN);
}
END_TEST

START_TEST(test_ref_bernoulli_permutation_choice) {
  static uint8_t b[REF_N];
  nd_ref_bernoulli(5, 0, REF_N, 0.3, b);
  int64_t ones = 0;
  for (int i = 0; i < REF_N; i++) ones += b[i];
  ck_assert(fabs(ones - 0.3 * REF_N) < 6 * sqrt(REF_N * 0.21));
  nd_ref_bernoulli(5, 0, 1000, 0.0, b);
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(b[i], 0);
  nd_ref_bernoulli(5, 0, 1000, 1.0, b);
  for (int i = 0; i < 1000; i++) ck_assert_int_eq(b[i], 1);
  /* Permutations are permutations, and position 0 is uniform over many seeds. */
  enum { PN = 10, TRIALS = 20000 };
  int64_t perm[PN], first[PN] = {0};
  for (int t = 0; t < TRIALS; t++) {
    nd_ref_permutation(1000 + t, 0, PN, perm);
    int seen[PN] = {0};
    for (int i = 0; i < PN; i++) {
      ck_assert(perm[i] >= 0 && perm[i] < PN && !seen[perm[i]]);
      seen[perm[i]] = 1;
    }
    first[perm[0]]++;
  }
  double prob[PN];
  for (int i = 0; i < PN; i++) prob[i] = 1.0 / PN;
  ck_assert(nd_st_chi2_counts(first, prob, PN, 0, TRIALS, NULL, NULL) > P_MIN);
  /* choice by cdf follows p and never picks a zero-probability entry. */
  const double p[5] = {0.1, 0.0, 0.6, 0.3, 0.0};
  double cdf[5];
  int64_t nnz, last;
  ND_ASSERT_OK(nd__random_check_p("f", p, 5, cdf, &nnz, &last));
  static int64_t idx[REF_N];
  nd_ref_choice_cdf(6, 0, REF_N, cdf, last, idx);
  int64_t counts[5] = {0};
  for (int i = 0; i < REF_N; i++) counts[idx[i]]++;
  ck_assert_int_eq(counts[1], 0);
  ck_assert_int_eq(counts[4], 0);
  ck_assert(nd_st_chi2_counts(counts, p, 5, 0, REF_N, NULL, NULL) > P_MIN);
}
END_TEST

static Suite *random_host_suite(void) {
  Suite *s = suite_create("random_host");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_philox_kat);
  tcase_add_test(tc, test_philox_stream);
  tcase_add_test(tc, test_conversions);
  tcase_add_test(tc, test_lemire_threshold);
  tcase_add_test(tc, test_lemire_exhaustive);
  tcase_add_test(tc, test_parse_seed);
  tcase_add_test(tc, test_entropy);
  tcase_add_test(tc, test_generator_create);
  tcase_add_test(tc, test_generator_take);
  tcase_add_test(tc, test_generator_take_threads);
  tcase_add_test(tc, test_default_generator);
  tcase_add_test(tc, test_default_bad_seed_in_call);
  tcase_add_test(tc, test_random_seed);
  tcase_add_test(tc, test_int_params);
  tcase_add_test(tc, test_int_params_errors);
  tcase_add_test(tc, test_check_p);
  tcase_add_test(tc, test_per_block);
  tcase_add_test(tc, test_argument_errors);
  tcase_add_test(tc, test_no_device);
  tcase_add_test(tc, test_stats_helpers);
  tcase_add_test(tc, test_stats_sort_and_ks);
  tcase_add_test(tc, test_stats_moments);
  tcase_add_test(tc, test_ref_uniform_normal_exponential);
  tcase_add_test(tc, test_ref_integers);
  tcase_add_test(tc, test_ref_bernoulli_permutation_choice);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(random_host_suite()); }
