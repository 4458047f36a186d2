/* Check suite for the pure host shape logic (src/shape.c): sizes, strides, contiguity,
 * broadcasting, axes, slices, reshape and dimension collapsing.
 *
 * Expected values are either derived by hand (the comment next to each says how) or were
 * generated once with CPython 3 / NumPy 2.4 and pasted here as literals; nothing calls Python
 * at run time. The generators are quoted above each table so that the tables can be
 * regenerated. The slice table is long on purpose: it is the whole cross product of the
 * awkward values, which is how CPython's clamping rules get pinned down. */
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/shape.h"

#define FN "nd_test_fn"
#define P40 (INT64_C(1) << 40)
#define P62 (INT64_C(1) << 62)

static void expect_i64s(const char *what, int n, const int64_t *got, const int64_t *want) {
  for (int i = 0; i < n; i++)
    ck_assert_msg(got[i] == want[i], "%s[%d]: got %lld, want %lld", what, i, (long long)got[i],
                  (long long)want[i]);
}

/* The message must be exactly `want` (used where the text is NumPy's). */
static void expect_message(const char *want) {
  ck_assert_msg(strcmp(nd_last_error(), want) == 0, "message\n  '%s'\nwant\n  '%s'",
                nd_last_error(), want);
}

/* ------------------------------------------------------------------------------------------ */
/* nd__shape_count, nd__shape_nbytes                                                           */

START_TEST(test_shape_count_values) {
  /* Hand-derived products; 3037000499^2 is the largest square below 2^63. */
  static const struct {
    int ndim;
    int64_t shape[4];
    int64_t count;
  } cases[] = {
      {0, {0}, 1},
      {1, {5}, 5},
      {2, {3, 4}, 12},
      {1, {0}, 0},
      {3, {3, 0, 4}, 0},
      {3, {1, 1, 1}, 1},
      {1, {INT64_MAX}, INT64_MAX},
      {2, {INT64_MAX, 1}, INT64_MAX},
      {2, {3037000499, 3037000499}, INT64_C(9223372030926249001)},
      {3, {P40, P40, 0}, 0}, /* a zero dimension wins over an overflowing product */
      {3, {0, P62, P62}, 0},
      {4, {INT64_MAX, INT64_MAX, INT64_MAX, 0}, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t count = -7;
    ND_ASSERT_OK(nd__shape_count(FN, cases[i].ndim, cases[i].shape, &count));
    ck_assert_msg(count == cases[i].count, "case %zu: count %lld, want %lld", i,
                  (long long)count, (long long)cases[i].count);
  }
  /* 32 dimensions: 2^32 elements; ndim 0 with a NULL shape is the scalar. */
  int64_t shape[ND_MAXDIMS];
  for (int i = 0; i < ND_MAXDIMS; i++) shape[i] = 2;
  int64_t count = 0;
  ND_ASSERT_OK(nd__shape_count(FN, ND_MAXDIMS, shape, &count));
  ck_assert_int_eq(count, INT64_C(1) << 32);
  ND_ASSERT_OK(nd__shape_count(FN, 0, NULL, &count));
  ck_assert_int_eq(count, 1);
}
END_TEST

START_TEST(test_shape_count_errors) {
  int64_t shape[ND_MAXDIMS + 1];
  int64_t count = -7;
  for (int i = 0; i <= ND_MAXDIMS; i++) shape[i] = 1;
  ND_ASSERT_FAILS(nd__shape_count(FN, ND_MAXDIMS + 1, shape, &count), ND_ERR_INVALID_ARGUMENT,
                  "nd_test_fn: ndim 33");
  ND_ASSERT_FAILS(nd__shape_count(FN, -1, shape, &count), ND_ERR_INVALID_ARGUMENT, "ndim -1");
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, NULL, &count), ND_ERR_NULL_POINTER, "'shape'");
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, shape, NULL), ND_ERR_NULL_POINTER, "'count'");

  const int64_t neg[2] = {3, -2};
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, neg, &count), ND_ERR_INVALID_ARGUMENT,
                  "negative dimensions are not allowed");
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "(3, -2)"));
  const int64_t neg0[2] = {0, -1}; /* a zero dimension does not excuse a negative one */
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, neg0, &count), ND_ERR_INVALID_ARGUMENT, "-1");

  const int64_t big[2] = {P40, P40};
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, big, &count), ND_ERR_OVERFLOW,
                  "nd_test_fn: array is too big: shape (1099511627776, 1099511627776)");
  const int64_t just_over[2] = {INT64_C(1) << 31, INT64_C(1) << 32}; /* exactly 2^63 */
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, just_over, &count), ND_ERR_OVERFLOW, "too big");
  const int64_t max2[2] = {INT64_MAX, 2};
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, max2, &count), ND_ERR_OVERFLOW, "too big");
  const int64_t sq[2] = {3037000500, 3037000500}; /* 3037000500^2 > 2^63 - 1 */
  ND_ASSERT_FAILS(nd__shape_count(FN, 2, sq, &count), ND_ERR_OVERFLOW, "too big");
  for (int i = 0; i < ND_MAXDIMS; i++) shape[i] = 4; /* 4^32 = 2^64 */
  ND_ASSERT_FAILS(nd__shape_count(FN, ND_MAXDIMS, shape, &count), ND_ERR_OVERFLOW, "too big");
  ck_assert_int_eq(count, -7); /* untouched by every failure */

  /* A NULL function name still gives a prefixed message. */
  ND_ASSERT_FAILS(nd__shape_count(NULL, -1, shape, &count), ND_ERR_INVALID_ARGUMENT, "ndcuda: ");
}
END_TEST

START_TEST(test_shape_nbytes) {
  int64_t count = -7, nbytes = -7;
  const int64_t s34[2] = {3, 4};
  ND_ASSERT_OK(nd__shape_nbytes(FN, 2, s34, 8, &count, &nbytes));
  ck_assert_int_eq(count, 12);
  ck_assert_int_eq(nbytes, 96);
  ND_ASSERT_OK(nd__shape_nbytes(FN, 0, NULL, 16, &count, &nbytes));
  ck_assert_int_eq(count, 1);
  ck_assert_int_eq(nbytes, 16);
  const int64_t zero_big[3] = {P40, P40, 0};
  ND_ASSERT_OK(nd__shape_nbytes(FN, 3, zero_big, 8, &count, &nbytes));
  ck_assert_int_eq(count, 0);
  ck_assert_int_eq(nbytes, 0);
  const int64_t p60[1] = {INT64_C(1) << 60};
  ND_ASSERT_OK(nd__shape_nbytes(FN, 1, p60, 7, &count, &nbytes)); /* 7 * 2^60 < 2^63 */
  ck_assert_int_eq(nbytes, 7 * (INT64_C(1) << 60));

  count = nbytes = -7;
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 1, p60, 8, &count, &nbytes), ND_ERR_OVERFLOW,
                  "nd_test_fn: array is too big: shape (1152921504606846976,) of 8-byte items");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 1, p60, INT64_MAX, &count, &nbytes), ND_ERR_OVERFLOW,
                  "too big");
  const int64_t one[1] = {1};
  ND_ASSERT_OK(nd__shape_nbytes(FN, 1, one, INT64_MAX, &count, &nbytes));
  ck_assert_int_eq(nbytes, INT64_MAX);
  count = nbytes = -7;
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, s34, 0, &count, &nbytes), ND_ERR_INVALID_ARGUMENT,
                  "itemsize 0");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, s34, -8, &count, &nbytes), ND_ERR_INVALID_ARGUMENT,
                  "itemsize -8");
  const int64_t big[2] = {P40, P40};
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, big, 1, &count, &nbytes), ND_ERR_OVERFLOW, "too big");
  const int64_t neg[1] = {-1};
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 1, neg, 8, &count, &nbytes), ND_ERR_INVALID_ARGUMENT,
                  "negative");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 33, s34, 8, &count, &nbytes), ND_ERR_INVALID_ARGUMENT,
                  "ndim 33");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, NULL, 8, &count, &nbytes), ND_ERR_NULL_POINTER,
                  "'shape'");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, s34, 8, NULL, &nbytes), ND_ERR_NULL_POINTER,
                  "'count'");
  ND_ASSERT_FAILS(nd__shape_nbytes(FN, 2, s34, 8, &count, NULL), ND_ERR_NULL_POINTER,
                  "'nbytes'");
  ck_assert_int_eq(count, -7);
  ck_assert_int_eq(nbytes, -7);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd__strides_c, nd__strides_f, contiguity                                                    */

START_TEST(test_strides_c_f) {
  /* Hand-derived: stride[i] = itemsize * product of the later (C) or earlier (F) dims. */
  static const struct {
    int ndim;
    int64_t shape[4], itemsize, c[4], f[4];
  } cases[] = {
      {3, {2, 3, 4}, 8, {96, 32, 8}, {8, 16, 48}},
      {1, {5}, 4, {4}, {4}},
      {2, {3, 1}, 8, {8, 8}, {8, 24}},
      {3, {1, 5, 1}, 2, {10, 2, 2}, {2, 2, 10}},
      {2, {3, 0}, 8, {0, 8}, {8, 24}}, /* the formula, zero dimension included */
      {3, {2, 0, 3}, 1, {0, 3, 1}, {1, 2, 0}},
      {4, {2, 3, 4, 5}, 16, {960, 320, 80, 16}, {16, 32, 96, 384}},
      /* Zero-size with an overflowing product: the running product saturates to 0. */
      {3, {0, P62, P62}, 8, {0, 0, 8}, {8, 0, 0}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t got[4] = {-1, -1, -1, -1};
    nd__strides_c(cases[i].ndim, cases[i].shape, cases[i].itemsize, got);
    expect_i64s("C strides", cases[i].ndim, got, cases[i].c);
    nd__strides_f(cases[i].ndim, cases[i].shape, cases[i].itemsize, got);
    expect_i64s("F strides", cases[i].ndim, got, cases[i].f);
  }
  int64_t untouched = 42;
  nd__strides_c(0, NULL, 8, &untouched);
  nd__strides_f(0, NULL, 8, &untouched);
  ck_assert_int_eq(untouched, 42);
}
END_TEST

/* Generated with NumPy's own flags:
 *   a = as_strided(np.zeros(1, dtype_of_itemsize), shape, strides)
 *   (a.flags.c_contiguous, a.flags.f_contiguous)
 * over hand-picked layouts and 60 random ones (random.Random(12345)). */
static const struct {
  int ndim;
  int64_t shape[4], strides[4], itemsize;
  int c, f;
} contig_cases[] = {
    {0, {0}, {0}, 8, 1, 1},
    {1, {5}, {8}, 8, 1, 1},
    {1, {5}, {16}, 8, 0, 0},
    {1, {5}, {-8}, 8, 0, 0},
    {1, {1}, {123}, 8, 1, 1},
    {2, {3, 4}, {32, 8}, 8, 1, 0},
    {2, {3, 4}, {8, 24}, 8, 0, 1},
    {2, {3, 1}, {8, 999}, 8, 1, 1},
    {2, {1, 3}, {-5, 8}, 8, 1, 1},
    {2, {3, 0}, {7, -3}, 8, 1, 1},
    {1, {0}, {0}, 8, 1, 1},
    {3, {2, 3, 4}, {96, 32, 8}, 8, 1, 0},
    {3, {2, 3, 4}, {8, 16, 48}, 8, 0, 1},
    {3, {2, 3, 4}, {0, 32, 8}, 8, 0, 0},
    {3, {2, 1, 4}, {32, 0, 8}, 8, 1, 0},
    {3, {2, 3, 4}, {12, 4, 1}, 1, 1, 0},
    {2, {2, 3}, {3, 1}, 1, 1, 0},
    {2, {2, 3}, {6, 2}, 2, 1, 0},
    {3, {1, 1, 1}, {0, 0, 0}, 4, 1, 1},
    {2, {4, 1}, {4, 4}, 4, 1, 1},
    {2, {2, 2}, {16, 8}, 4, 0, 0},
    {2, {2, 2}, {4, 8}, 4, 0, 1},
    {4, {3, 2, 4, 1}, {64, 32, 8, 8}, 8, 1, 0},
    {2, {2, 1}, {8, 8}, 8, 1, 1},
    {2, {2, 3}, {1, 2}, 1, 0, 1},
    {1, {4}, {1}, 1, 1, 1},
    {2, {2, 4}, {3, 1}, 1, 0, 0},
    {4, {3, 2, 2, 2}, {12, 4, 0, 4}, 4, 0, 0},
    {3, {1, 2, 3}, {2, 2, 4}, 2, 0, 1},
    {1, {4}, {8}, 8, 1, 1},
    {2, {3, 1}, {0, 8}, 8, 0, 0},
    {4, {4, 2, 1, 1}, {16, 8, 8, 8}, 8, 1, 0},
    {3, {2, 2, 1}, {4, 2, 2}, 2, 1, 0},
    {4, {1, 4, 2, 2}, {32, 8, 4, 2}, 2, 1, 0},
    {3, {2, 2, 4}, {32, 16, 4}, 4, 1, 0},
    {4, {2, 2, 3, 3}, {18, 9, 3, 1}, 1, 1, 0},
    {4, {3, 1, 1, 1}, {4, 8, -4, 8}, 4, 1, 1},
    {4, {3, 4, 2, 1}, {2, 2, 7, 0}, 2, 0, 0},
    {1, {1}, {8}, 8, 1, 1},
    {3, {3, 4, 1}, {0, -4, 4}, 4, 0, 0},
    {2, {1, 4}, {8, 2}, 2, 1, 1},
    {1, {1}, {4}, 4, 1, 1},
    {1, {4}, {4}, 2, 0, 0},
    {3, {3, 0, 1}, {0, 7, 24}, 8, 1, 1},
    {2, {3, 2}, {8, 24}, 8, 0, 1},
    {1, {1}, {8}, 8, 1, 1},
    {1, {4}, {1}, 1, 1, 1},
    {4, {2, 1, 4, 1}, {8, 8, 2, 2}, 2, 1, 0},
    {1, {2}, {1}, 1, 1, 1},
    {4, {1, 3, 2, 2}, {8, 24, 24, 24}, 8, 0, 0},
    {2, {4, 1}, {2, 2}, 2, 1, 1},
    {1, {1}, {1}, 1, 1, 1},
    {2, {3, 3}, {24, 8}, 8, 1, 0},
    {4, {1, 3, 4, 4}, {384, 128, 32, 8}, 8, 1, 0},
    {2, {4, 2}, {-2, 4}, 2, 0, 0},
    {2, {3, 2}, {4, 7}, 4, 0, 0},
    {3, {2, 3, 2}, {0, 0, 4}, 4, 0, 0},
    {2, {2, 3}, {12, 4}, 4, 1, 0},
    {4, {4, 4, 3, 1}, {8, -8, 8, 8}, 8, 0, 0},
    {4, {0, 1, 3, 4}, {96, 96, 32, 8}, 8, 1, 1},
    {4, {1, 2, 1, 2}, {1, 1, 2, 2}, 1, 0, 1},
    {3, {4, 3, 3}, {72, 24, 8}, 8, 1, 0},
    {2, {4, 4}, {8, 32}, 8, 0, 1},
    {3, {3, 2, 1}, {8, -8, -8}, 8, 0, 0},
    {2, {3, 2}, {8, 24}, 8, 0, 1},
    {1, {3}, {3}, 1, 0, 0},
    {1, {2}, {4}, 4, 1, 1},
    {2, {1, 2}, {12, 8}, 4, 0, 0},
    {3, {1, 4, 3}, {24, 6, 2}, 2, 1, 0},
    {2, {1, 2}, {2, 7}, 2, 0, 0},
    {3, {1, 4, 2}, {1, 0, 0}, 1, 0, 0},
    {2, {4, 1}, {2, 8}, 2, 1, 1},
    {1, {1}, {2}, 2, 1, 1},
    {3, {1, 2, 3}, {48, 24, 8}, 8, 1, 0},
    {2, {2, 2}, {16, 8}, 8, 1, 0},
    {2, {3, 4}, {6, 4}, 2, 0, 0},
    {3, {1, 3, 2}, {48, 16, 8}, 8, 1, 0},
    {1, {2}, {8}, 8, 1, 1},
    {1, {1}, {1}, 1, 1, 1},
    {1, {1}, {8}, 8, 1, 1},
    {2, {2, 2}, {1, 2}, 1, 0, 1},
    {3, {1, 4, 3}, {2, 2, 8}, 2, 0, 1},
};

START_TEST(test_contiguity_numpy_table) {
  for (size_t i = 0; i < sizeof contig_cases / sizeof contig_cases[0]; i++) {
    int c = nd__is_c_contiguous(contig_cases[i].ndim, contig_cases[i].shape,
                                contig_cases[i].strides, contig_cases[i].itemsize);
    int f = nd__is_f_contiguous(contig_cases[i].ndim, contig_cases[i].shape,
                                contig_cases[i].strides, contig_cases[i].itemsize);
    ck_assert_msg(c == contig_cases[i].c && f == contig_cases[i].f,
                  "case %zu: got C %d F %d, want C %d F %d", i, c, f, contig_cases[i].c,
                  contig_cases[i].f);
  }
}
END_TEST

START_TEST(test_contiguity_hand) {
  /* Size-1 dimensions are ignored whatever their stride. */
  const int64_t s1[3] = {4, 1, 3}, st1[3] = {24, -999, 8};
  ck_assert(nd__is_c_contiguous(3, s1, st1, 8));
  ck_assert(!nd__is_f_contiguous(3, s1, st1, 8));
  /* Any zero dimension makes both true, even with nonsense strides elsewhere. */
  const int64_t s0[3] = {4, 0, 3}, st0[3] = {-5, 7, 1000};
  ck_assert(nd__is_c_contiguous(3, s0, st0, 8));
  ck_assert(nd__is_f_contiguous(3, s0, st0, 8));
  /* 0-d: both. A broadcast (stride 0) axis of size > 1: neither. */
  ck_assert(nd__is_c_contiguous(0, NULL, NULL, 8));
  ck_assert(nd__is_f_contiguous(0, NULL, NULL, 8));
  const int64_t sb[2] = {3, 4}, stb[2] = {0, 8};
  ck_assert(!nd__is_c_contiguous(2, sb, stb, 8));
  ck_assert(!nd__is_f_contiguous(2, sb, stb, 8));
  /* The expected stride overflows before a later non-1 dimension: not contiguous, and no
   * undefined behaviour. The zero dimension after the overflow still wins. */
  const int64_t so[3] = {2, P62, 4}, sto[3] = {0, 0, 8};
  ck_assert(!nd__is_c_contiguous(3, so, sto, 8));
  const int64_t soz[3] = {0, P62, 4};
  ck_assert(nd__is_c_contiguous(3, soz, sto, 8));
  ck_assert(nd__is_f_contiguous(3, soz, sto, 8));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd_broadcast_shapes, nd__broadcast_strides                                                  */

/* Generated with r = np.broadcast_shapes(*shapes). */
static const struct {
  int n;
  int ndims[4];
  int64_t shapes[4][5];
  int out_ndim;
  int64_t out[5];
} bcast_cases[] = {
    {2, {2, 1}, {{3, 4}, {4}}, 2, {3, 4}},
    {3, {2, 2, 3}, {{1, 3}, {2, 1}, {4, 1, 3}}, 3, {4, 2, 3}},
    {2, {3, 3}, {{5, 1, 4}, {1, 3, 1}}, 3, {5, 3, 4}},
    {2, {0, 1}, {{0}, {3}}, 1, {3}},
    {2, {0, 0}, {{0}, {0}}, 0, {0}},
    {2, {1, 1}, {{0}, {1}}, 1, {0}},
    {2, {2, 2}, {{2, 0}, {1, 0}}, 2, {2, 0}},
    {2, {1, 3}, {{1}, {1, 1, 1}}, 3, {1, 1, 1}},
    {2, {4, 3}, {{8, 1, 6, 1}, {7, 1, 5}}, 4, {8, 7, 6, 5}},
    {3, {2, 1, 2}, {{3, 1}, {1}, {1, 3}}, 2, {3, 3}},
    {2, {2, 2}, {{1, 0}, {5, 1}}, 2, {5, 0}},
    {2, {5, 5}, {{2, 1, 3, 1, 4}, {1, 5, 1, 6, 1}}, 5, {2, 5, 3, 6, 4}},
    {1, {1}, {{3}}, 1, {3}},
    {2, {2, 1}, {{1, 1}, {1}}, 2, {1, 1}},
    {3, {1, 1, 1}, {{4}, {4}, {4}}, 1, {4}},
};

/* Generated with str(ValueError) of np.broadcast_shapes(*shapes). */
static const struct {
  int n;
  int ndims[4];
  int64_t shapes[4][5];
  const char *msg;
} bcast_bad[] = {
    {2, {2, 1}, {{3, 4}, {5}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (3, 4) and arg 1 with shape (5,)."},
    {3, {2, 2, 3}, {{1, 3}, {2, 1}, {4, 1, 5}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (1, 3) and arg 2 with shape (4, 1, 5)."},
    {3, {2, 2, 2}, {{2, 1}, {1, 3}, {3, 3}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (2, 1) and arg 2 with shape (3, 3)."},
    {2, {1, 1}, {{0}, {2}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (0,) and arg 1 with shape (2,)."},
    {3, {1, 1, 1}, {{2}, {3}, {4}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (2,) and arg 1 with shape (3,)."},
    {4, {1, 1, 1, 1}, {{1}, {2}, {1}, {3}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 1 with shape (2,) and arg 3 with shape (3,)."},
    {3, {2, 1, 3}, {{5, 4}, {1}, {2, 3, 4}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (5, 4) and arg 2 with shape (2, 3, 4)."},
    {2, {2, 2}, {{2, 3}, {1, 4}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (2, 3) and arg 1 with shape (1, 4)."},
    {3, {3, 3, 3}, {{1, 2, 3}, {4, 1, 1}, {4, 5, 1}},
     "shape mismatch: objects cannot be broadcast to a single shape.  "
     "Mismatch is between arg 0 with shape (1, 2, 3) and arg 2 with shape (4, 5, 1)."},
};

static void shape_ptrs(int n, const int64_t (*shapes)[5], const int64_t **ptrs) {
  for (int j = 0; j < n; j++) ptrs[j] = shapes[j];
}

START_TEST(test_broadcast_shapes_numpy) {
  for (size_t i = 0; i < sizeof bcast_cases / sizeof bcast_cases[0]; i++) {
    const int64_t *ptrs[4];
    int64_t out[ND_MAXDIMS];
    int out_ndim = -1;
    shape_ptrs(bcast_cases[i].n, bcast_cases[i].shapes, ptrs);
    ND_ASSERT_OK(nd_broadcast_shapes(bcast_cases[i].n, bcast_cases[i].ndims, ptrs, &out_ndim,
                                     out));
    ck_assert_msg(out_ndim == bcast_cases[i].out_ndim, "case %zu: ndim %d, want %d", i,
                  out_ndim, bcast_cases[i].out_ndim);
    expect_i64s("broadcast shape", out_ndim, out, bcast_cases[i].out);
  }
  for (size_t i = 0; i < sizeof bcast_bad / sizeof bcast_bad[0]; i++) {
    const int64_t *ptrs[4];
    int64_t out[ND_MAXDIMS] = {-7};
    int out_ndim = -7;
    char want[512];
    shape_ptrs(bcast_bad[i].n, bcast_bad[i].shapes, ptrs);
    snprintf(want, sizeof want, "nd_broadcast_shapes: %s", bcast_bad[i].msg);
    ND_ASSERT_FAILS(nd_broadcast_shapes(bcast_bad[i].n, bcast_bad[i].ndims, ptrs, &out_ndim, out),
                    ND_ERR_SHAPE, "shape mismatch");
    expect_message(want);
    ck_assert_int_eq(out_ndim, -7);
    ck_assert_int_eq(out[0], -7);
  }
}
END_TEST

START_TEST(test_broadcast_shapes_args) {
  int64_t out[ND_MAXDIMS];
  int out_ndim = -7;
  /* No shapes at all: the scalar shape (NumPy: broadcast_shapes() == ()). */
  ND_ASSERT_OK(nd_broadcast_shapes(0, NULL, NULL, &out_ndim, out));
  ck_assert_int_eq(out_ndim, 0);

  /* 32 dimensions from a 32-d and a 1-d shape; the internal name carries fn. */
  int64_t big[ND_MAXDIMS], last[1] = {7};
  for (int i = 0; i < ND_MAXDIMS; i++) big[i] = i == ND_MAXDIMS - 1 ? 1 : 2;
  const int64_t *p2[2] = {big, last};
  int nd2[2] = {ND_MAXDIMS, 1};
  ND_ASSERT_OK(nd__broadcast_shapes(FN, 2, nd2, p2, &out_ndim, out));
  ck_assert_int_eq(out_ndim, ND_MAXDIMS);
  ck_assert_int_eq(out[0], 2);
  ck_assert_int_eq(out[ND_MAXDIMS - 1], 7);

  /* A 0-d operand may have a NULL shape. */
  const int64_t s3[1] = {3};
  const int64_t *pn[2] = {NULL, s3};
  int ndn[2] = {0, 1};
  ND_ASSERT_OK(nd_broadcast_shapes(2, ndn, pn, &out_ndim, out));
  ck_assert_int_eq(out_ndim, 1);
  ck_assert_int_eq(out[0], 3);

  out_ndim = -7;
  ND_ASSERT_FAILS(nd_broadcast_shapes(-1, ndn, pn, &out_ndim, out), ND_ERR_INVALID_ARGUMENT,
                  "nd_broadcast_shapes: number of shapes -1");
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, NULL, pn, &out_ndim, out), ND_ERR_NULL_POINTER,
                  "'ndims'");
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, ndn, NULL, &out_ndim, out), ND_ERR_NULL_POINTER,
                  "'shapes'");
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, ndn, pn, NULL, out), ND_ERR_NULL_POINTER,
                  "'out_ndim'");
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, ndn, pn, &out_ndim, NULL), ND_ERR_NULL_POINTER,
                  "'out_shape'");
  const int64_t *pnull[2] = {s3, NULL};
  int nd11[2] = {1, 1};
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, nd11, pnull, &out_ndim, out), ND_ERR_NULL_POINTER,
                  "'shapes[1]'");
  int nd33[2] = {1, ND_MAXDIMS + 1};
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, nd33, p2, &out_ndim, out), ND_ERR_INVALID_ARGUMENT,
                  "ndim 33 of 'shapes[1]'");
  int ndneg[1] = {-1};
  ND_ASSERT_FAILS(nd_broadcast_shapes(1, ndneg, p2, &out_ndim, out), ND_ERR_INVALID_ARGUMENT,
                  "ndim -1 of 'shapes[0]'");
  const int64_t neg[2] = {2, -3};
  const int64_t *pneg[2] = {s3, neg};
  int nd12[2] = {1, 2};
  ND_ASSERT_FAILS(nd_broadcast_shapes(2, nd12, pneg, &out_ndim, out), ND_ERR_INVALID_ARGUMENT,
                  "negative dimensions are not allowed: 'shapes[1]' is (2, -3)");
  ck_assert_int_eq(out_ndim, -7);
}
END_TEST

START_TEST(test_broadcast_strides) {
  /* Hand-derived: right-align; new leading axes and 1 -> n (n != 1) axes get stride 0;
   * matching axes (including 1 -> 1 and 0 -> 0) keep theirs. */
  static const struct {
    int ndim;
    int64_t shape[3], strides[3];
    int out_ndim;
    int64_t out_shape[4], want[4];
  } cases[] = {
      {1, {3}, {8}, 2, {4, 3}, {0, 8}},
      {2, {3, 1}, {8, 8}, 3, {2, 3, 4}, {0, 8, 0}},
      {1, {1}, {8}, 1, {1}, {8}},
      {2, {1, 3}, {24, 8}, 2, {1, 3}, {24, 8}},
      {1, {1}, {8}, 1, {0}, {0}},
      {1, {0}, {8}, 2, {5, 0}, {0, 8}},
      {0, {0}, {0}, 2, {2, 2}, {0, 0}},
      {1, {3}, {-8}, 2, {2, 3}, {0, -8}},
      {3, {2, 1, 4}, {-32, 16, 4}, 4, {7, 2, 5, 4}, {0, -32, 0, 4}},
      {2, {3, 4}, {0, 8}, 2, {3, 4}, {0, 8}},
      {0, {0}, {0}, 0, {0}, {0}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t got[4] = {-1, -1, -1, -1};
    ND_ASSERT_OK(nd__broadcast_strides(FN, cases[i].ndim, cases[i].shape, cases[i].strides,
                                       cases[i].out_ndim, cases[i].out_shape, got));
    expect_i64s("broadcast strides", cases[i].out_ndim, got, cases[i].want);
  }
  /* In place: the output may be the input's stride array. */
  int64_t inout[3] = {8, 8, -1};
  const int64_t s31[2] = {3, 1}, o[3] = {2, 3, 4};
  ND_ASSERT_OK(nd__broadcast_strides(FN, 2, s31, inout, 3, o, inout));
  const int64_t want_inout[3] = {0, 8, 0};
  expect_i64s("in-place strides", 3, inout, want_inout);

  int64_t out[4] = {-7, -7, -7, -7};
  const int64_t s3[1] = {3}, st8[1] = {8}, o45[2] = {4, 5};
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, st8, 2, o45, out), ND_ERR_SHAPE, "");
  expect_message("nd_test_fn: cannot broadcast shape (3,) to (4, 5)");
  const int64_t s23[2] = {2, 3}, st23[2] = {24, 8};
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 2, s23, st23, 1, s3, out), ND_ERR_SHAPE,
                  "cannot broadcast shape (2, 3) to (3,)");
  const int64_t s0[1] = {0}, s1[1] = {1}, s2[1] = {2};
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s0, st8, 1, s1, out), ND_ERR_SHAPE,
                  "cannot broadcast shape (0,) to (1,)");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s2, st8, 1, s0, out), ND_ERR_SHAPE,
                  "cannot broadcast shape (2,) to (0,)");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 33, s3, st8, 2, o45, out), ND_ERR_INVALID_ARGUMENT,
                  "ndim 33");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, st8, 33, o45, out), ND_ERR_INVALID_ARGUMENT,
                  "ndim 33 of 'out_shape'");
  const int64_t oneg[2] = {4, -3};
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, st8, 2, oneg, out), ND_ERR_INVALID_ARGUMENT,
                  "negative dimensions are not allowed");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, NULL, st8, 2, o45, out), ND_ERR_NULL_POINTER,
                  "'shape'");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, NULL, 2, o45, out), ND_ERR_NULL_POINTER,
                  "'strides'");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, st8, 2, NULL, out), ND_ERR_NULL_POINTER,
                  "'out_shape'");
  ND_ASSERT_FAILS(nd__broadcast_strides(FN, 1, s3, st8, 2, o45, NULL), ND_ERR_NULL_POINTER,
                  "'out_strides'");
  for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], -7);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd__normalize_axis, nd__normalize_axes                                                      */

START_TEST(test_normalize_axis) {
  for (int64_t a = -3; a < 3; a++) {
    int out = -7;
    ND_ASSERT_OK(nd__normalize_axis(FN, a, 3, &out));
    ck_assert_int_eq(out, a < 0 ? a + 3 : a);
  }
  int out = -7;
  ND_ASSERT_OK(nd__normalize_axis(FN, -32, ND_MAXDIMS, &out));
  ck_assert_int_eq(out, 0);
  out = -7;
  ND_ASSERT_FAILS(nd__normalize_axis(FN, 3, 2, &out), ND_ERR_AXIS, "");
  expect_message("nd_test_fn: axis 3 is out of bounds for array of dimension 2");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, -3, 2, &out), ND_ERR_AXIS, "");
  expect_message("nd_test_fn: axis -3 is out of bounds for array of dimension 2");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, 0, 0, &out), ND_ERR_AXIS,
                  "axis 0 is out of bounds for array of dimension 0");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, -1, 0, &out), ND_ERR_AXIS, "axis -1 is out of bounds");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, INT64_MIN, 3, &out), ND_ERR_AXIS,
                  "axis -9223372036854775808 is out of bounds");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, INT64_MAX, 3, &out), ND_ERR_AXIS,
                  "axis 9223372036854775807 is out of bounds");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, (int64_t)1 << 32, 3, &out), ND_ERR_AXIS,
                  "axis 4294967296 is out of bounds"); /* would wrap to 0 as an int */
  ND_ASSERT_FAILS(nd__normalize_axis(FN, 0, 33, &out), ND_ERR_INVALID_ARGUMENT, "ndim 33");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, 0, -1, &out), ND_ERR_INVALID_ARGUMENT, "ndim -1");
  ND_ASSERT_FAILS(nd__normalize_axis(FN, 0, 3, NULL), ND_ERR_NULL_POINTER, "'out'");
  ck_assert_int_eq(out, -7);
}
END_TEST

START_TEST(test_normalize_axes) {
  int out[ND_MAXDIMS + 8];
  uint64_t mask = 0;
  const int64_t a1[2] = {0, -1};
  ND_ASSERT_OK(nd__normalize_axes(FN, 2, a1, 3, out, &mask));
  ck_assert_int_eq(out[0], 0);
  ck_assert_int_eq(out[1], 2);
  ck_assert_uint_eq(mask, 0x5);
  const int64_t a2[3] = {2, 0, -2};
  ND_ASSERT_OK(nd__normalize_axes(FN, 3, a2, 3, out, &mask));
  ck_assert_int_eq(out[0], 2);
  ck_assert_int_eq(out[1], 0);
  ck_assert_int_eq(out[2], 1);
  ck_assert_uint_eq(mask, 0x7);
  const int64_t a3[2] = {31, -32};
  ND_ASSERT_OK(nd__normalize_axes(FN, 2, a3, ND_MAXDIMS, out, NULL)); /* mask optional */
  ck_assert_int_eq(out[0], 31);
  ck_assert_int_eq(out[1], 0);
  ND_ASSERT_OK(nd__normalize_axes(FN, 2, a3, ND_MAXDIMS, out, &mask));
  ck_assert_uint_eq(mask, UINT64_C(0x80000001));
  mask = 99;
  ND_ASSERT_OK(nd__normalize_axes(FN, 0, NULL, 3, NULL, &mask));
  ck_assert_uint_eq(mask, 0);
  /* All 32 axes, reversed and negative. */
  int64_t all[ND_MAXDIMS];
  for (int i = 0; i < ND_MAXDIMS; i++) all[i] = -1 - i;
  ND_ASSERT_OK(nd__normalize_axes(FN, ND_MAXDIMS, all, ND_MAXDIMS, out, &mask));
  for (int i = 0; i < ND_MAXDIMS; i++) ck_assert_int_eq(out[i], ND_MAXDIMS - 1 - i);
  ck_assert_uint_eq(mask, UINT64_C(0xffffffff));

  for (int i = 0; i < ND_MAXDIMS + 8; i++) out[i] = -7;
  mask = 99;
  const int64_t dup[3] = {1, 0, -2};
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 3, dup, 3, out, &mask), ND_ERR_AXIS,
                  "nd_test_fn: repeated axis");
  ck_assert_ptr_nonnull(strstr(nd_last_error(), "axes[0] = 1 and axes[2] = -2"));
  /* Out-of-range axes are reported before duplicates, as NumPy's normalize_axis_tuple. */
  const int64_t oob[3] = {0, 0, 5};
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 3, oob, 2, out, &mask), ND_ERR_AXIS,
                  "axis 5 is out of bounds for array of dimension 2");
  /* More axes than dimensions: 40 valid axes must repeat one. */
  int64_t many[40];
  for (int i = 0; i < 40; i++) many[i] = i % ND_MAXDIMS;
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 40, many, ND_MAXDIMS, out, &mask), ND_ERR_AXIS,
                  "axes[0] = 0 and axes[32] = 0");
  ND_ASSERT_FAILS(nd__normalize_axes(FN, -1, a1, 3, out, &mask), ND_ERR_INVALID_ARGUMENT,
                  "number of axes -1");
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 2, a1, 33, out, &mask), ND_ERR_INVALID_ARGUMENT,
                  "ndim 33");
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 2, NULL, 3, out, &mask), ND_ERR_NULL_POINTER,
                  "'axes'");
  ND_ASSERT_FAILS(nd__normalize_axes(FN, 2, a1, 3, NULL, &mask), ND_ERR_NULL_POINTER, "'out'");
  for (int i = 0; i < ND_MAXDIMS + 8; i++) ck_assert_int_eq(out[i], -7);
  ck_assert_uint_eq(mask, 99);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd_slice_indices, nd__slice_normalize                                                       */

/* Generated with CPython 3 over the cross product below (None = ND_NONE, MAX = 2^63 - 1):
 *   for n in LENGTHS: for step in STEPS: for start in VALUES: for stop in VALUES:
 *     i = slice(start, stop, step).indices(n); emit (i[0], len(range(*i)))
 * One line per (length, step, start), one entry per stop. */
static const int64_t slice_values[] = {ND_NONE, -INT64_MAX, -11, -6, -5, -1, 0, 1, 4, 5, 11,
                                       INT64_MAX};
static const int64_t slice_steps[] = {ND_NONE, 1, 2, 3, -1, -2, -3, INT64_MAX, -INT64_MAX};
static const int64_t slice_lengths[] = {0, 1, 5, 10};
#define NV (sizeof slice_values / sizeof slice_values[0])
#define NS (sizeof slice_steps / sizeof slice_steps[0])
#define NL (sizeof slice_lengths / sizeof slice_lengths[0])

static const struct {
  int64_t start, count;
} slice_expect[] = {
    /* length 0, step N */
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 0, step 1 */
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 0, step 2 */
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 0, step 3 */
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 0, step -1 */
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    /* length 0, step -2 */
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    /* length 0, step -3 */
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    /* length 0, step MAX */
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 0, step -MAX */
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    /* length 1, step N */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    /* length 1, step 1 */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    /* length 1, step 2 */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    /* length 1, step 3 */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    /* length 1, step -1 */
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 1, step -2 */
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 1, step -3 */
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 1, step MAX */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    {1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},{1,0},
    /* length 1, step -MAX */
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {0,1},{0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    /* length 5, step N */
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {1,4},{1,0},{1,0},{1,0},{1,0},{1,3},{1,0},{1,0},{1,3},{1,4},{1,4},{1,4},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    /* length 5, step 1 */
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {0,5},{0,0},{0,0},{0,0},{0,0},{0,4},{0,0},{0,1},{0,4},{0,5},{0,5},{0,5},
    {1,4},{1,0},{1,0},{1,0},{1,0},{1,3},{1,0},{1,0},{1,3},{1,4},{1,4},{1,4},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    /* length 5, step 2 */
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {0,3},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,3},{0,3},{0,3},
    {1,2},{1,0},{1,0},{1,0},{1,0},{1,2},{1,0},{1,0},{1,2},{1,2},{1,2},{1,2},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    /* length 5, step 3 */
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {0,2},{0,0},{0,0},{0,0},{0,0},{0,2},{0,0},{0,1},{0,2},{0,2},{0,2},{0,2},
    {1,2},{1,0},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,1},{1,2},{1,2},{1,2},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    /* length 5, step -1 */
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,2},{1,2},{1,2},{1,2},{1,1},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {4,5},{4,5},{4,5},{4,5},{4,4},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    /* length 5, step -2 */
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,1},{1,1},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {4,3},{4,3},{4,3},{4,3},{4,2},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    /* length 5, step -3 */
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,1},{1,1},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,2},{4,2},{4,2},{4,2},{4,2},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    /* length 5, step MAX */
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {0,1},{0,0},{0,0},{0,0},{0,0},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,1},{1,0},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,1},{1,1},{1,1},{1,1},
    {4,1},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    {5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},{5,0},
    /* length 5, step -MAX */
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {0,1},{0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,1},{1,1},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {4,1},{4,1},{4,1},{4,1},{4,1},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    /* length 10, step N */
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {4,6},{4,0},{4,0},{4,0},{4,1},{4,5},{4,0},{4,0},{4,0},{4,1},{4,6},{4,6},
    {5,5},{5,0},{5,0},{5,0},{5,0},{5,4},{5,0},{5,0},{5,0},{5,0},{5,5},{5,5},
    {9,1},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,1},{9,1},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {1,9},{1,0},{1,0},{1,3},{1,4},{1,8},{1,0},{1,0},{1,3},{1,4},{1,9},{1,9},
    {4,6},{4,0},{4,0},{4,0},{4,1},{4,5},{4,0},{4,0},{4,0},{4,1},{4,6},{4,6},
    {5,5},{5,0},{5,0},{5,0},{5,0},{5,4},{5,0},{5,0},{5,0},{5,0},{5,5},{5,5},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    /* length 10, step 1 */
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {4,6},{4,0},{4,0},{4,0},{4,1},{4,5},{4,0},{4,0},{4,0},{4,1},{4,6},{4,6},
    {5,5},{5,0},{5,0},{5,0},{5,0},{5,4},{5,0},{5,0},{5,0},{5,0},{5,5},{5,5},
    {9,1},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,1},{9,1},
    {0,10},{0,0},{0,0},{0,4},{0,5},{0,9},{0,0},{0,1},{0,4},{0,5},{0,10},{0,10},
    {1,9},{1,0},{1,0},{1,3},{1,4},{1,8},{1,0},{1,0},{1,3},{1,4},{1,9},{1,9},
    {4,6},{4,0},{4,0},{4,0},{4,1},{4,5},{4,0},{4,0},{4,0},{4,1},{4,6},{4,6},
    {5,5},{5,0},{5,0},{5,0},{5,0},{5,4},{5,0},{5,0},{5,0},{5,0},{5,5},{5,5},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    /* length 10, step 2 */
    {0,5},{0,0},{0,0},{0,2},{0,3},{0,5},{0,0},{0,1},{0,2},{0,3},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,2},{0,3},{0,5},{0,0},{0,1},{0,2},{0,3},{0,5},{0,5},
    {0,5},{0,0},{0,0},{0,2},{0,3},{0,5},{0,0},{0,1},{0,2},{0,3},{0,5},{0,5},
    {4,3},{4,0},{4,0},{4,0},{4,1},{4,3},{4,0},{4,0},{4,0},{4,1},{4,3},{4,3},
    {5,3},{5,0},{5,0},{5,0},{5,0},{5,2},{5,0},{5,0},{5,0},{5,0},{5,3},{5,3},
    {9,1},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,1},{9,1},
    {0,5},{0,0},{0,0},{0,2},{0,3},{0,5},{0,0},{0,1},{0,2},{0,3},{0,5},{0,5},
    {1,5},{1,0},{1,0},{1,2},{1,2},{1,4},{1,0},{1,0},{1,2},{1,2},{1,5},{1,5},
    {4,3},{4,0},{4,0},{4,0},{4,1},{4,3},{4,0},{4,0},{4,0},{4,1},{4,3},{4,3},
    {5,3},{5,0},{5,0},{5,0},{5,0},{5,2},{5,0},{5,0},{5,0},{5,0},{5,3},{5,3},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    /* length 10, step 3 */
    {0,4},{0,0},{0,0},{0,2},{0,2},{0,3},{0,0},{0,1},{0,2},{0,2},{0,4},{0,4},
    {0,4},{0,0},{0,0},{0,2},{0,2},{0,3},{0,0},{0,1},{0,2},{0,2},{0,4},{0,4},
    {0,4},{0,0},{0,0},{0,2},{0,2},{0,3},{0,0},{0,1},{0,2},{0,2},{0,4},{0,4},
    {4,2},{4,0},{4,0},{4,0},{4,1},{4,2},{4,0},{4,0},{4,0},{4,1},{4,2},{4,2},
    {5,2},{5,0},{5,0},{5,0},{5,0},{5,2},{5,0},{5,0},{5,0},{5,0},{5,2},{5,2},
    {9,1},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,1},{9,1},
    {0,4},{0,0},{0,0},{0,2},{0,2},{0,3},{0,0},{0,1},{0,2},{0,2},{0,4},{0,4},
    {1,3},{1,0},{1,0},{1,1},{1,2},{1,3},{1,0},{1,0},{1,1},{1,2},{1,3},{1,3},
    {4,2},{4,0},{4,0},{4,0},{4,1},{4,2},{4,0},{4,0},{4,0},{4,1},{4,2},{4,2},
    {5,2},{5,0},{5,0},{5,0},{5,0},{5,2},{5,0},{5,0},{5,0},{5,0},{5,2},{5,2},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    /* length 10, step -1 */
    {9,10},{9,10},{9,10},{9,5},{9,4},{9,0},{9,9},{9,8},{9,5},{9,4},{9,0},{9,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {4,5},{4,5},{4,5},{4,0},{4,0},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {5,6},{5,6},{5,6},{5,1},{5,0},{5,0},{5,5},{5,4},{5,1},{5,0},{5,0},{5,0},
    {9,10},{9,10},{9,10},{9,5},{9,4},{9,0},{9,9},{9,8},{9,5},{9,4},{9,0},{9,0},
    {0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,2},{1,2},{1,2},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,5},{4,5},{4,5},{4,0},{4,0},{4,0},{4,4},{4,3},{4,0},{4,0},{4,0},{4,0},
    {5,6},{5,6},{5,6},{5,1},{5,0},{5,0},{5,5},{5,4},{5,1},{5,0},{5,0},{5,0},
    {9,10},{9,10},{9,10},{9,5},{9,4},{9,0},{9,9},{9,8},{9,5},{9,4},{9,0},{9,0},
    {9,10},{9,10},{9,10},{9,5},{9,4},{9,0},{9,9},{9,8},{9,5},{9,4},{9,0},{9,0},
    /* length 10, step -2 */
    {9,5},{9,5},{9,5},{9,3},{9,2},{9,0},{9,5},{9,4},{9,3},{9,2},{9,0},{9,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {4,3},{4,3},{4,3},{4,0},{4,0},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {5,3},{5,3},{5,3},{5,1},{5,0},{5,0},{5,3},{5,2},{5,1},{5,0},{5,0},{5,0},
    {9,5},{9,5},{9,5},{9,3},{9,2},{9,0},{9,5},{9,4},{9,3},{9,2},{9,0},{9,0},
    {0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,3},{4,3},{4,3},{4,0},{4,0},{4,0},{4,2},{4,2},{4,0},{4,0},{4,0},{4,0},
    {5,3},{5,3},{5,3},{5,1},{5,0},{5,0},{5,3},{5,2},{5,1},{5,0},{5,0},{5,0},
    {9,5},{9,5},{9,5},{9,3},{9,2},{9,0},{9,5},{9,4},{9,3},{9,2},{9,0},{9,0},
    {9,5},{9,5},{9,5},{9,3},{9,2},{9,0},{9,5},{9,4},{9,3},{9,2},{9,0},{9,0},
    /* length 10, step -3 */
    {9,4},{9,4},{9,4},{9,2},{9,2},{9,0},{9,3},{9,3},{9,2},{9,2},{9,0},{9,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {4,2},{4,2},{4,2},{4,0},{4,0},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {5,2},{5,2},{5,2},{5,1},{5,0},{5,0},{5,2},{5,2},{5,1},{5,0},{5,0},{5,0},
    {9,4},{9,4},{9,4},{9,2},{9,2},{9,0},{9,3},{9,3},{9,2},{9,2},{9,0},{9,0},
    {0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,2},{4,2},{4,2},{4,0},{4,0},{4,0},{4,2},{4,1},{4,0},{4,0},{4,0},{4,0},
    {5,2},{5,2},{5,2},{5,1},{5,0},{5,0},{5,2},{5,2},{5,1},{5,0},{5,0},{5,0},
    {9,4},{9,4},{9,4},{9,2},{9,2},{9,0},{9,3},{9,3},{9,2},{9,2},{9,0},{9,0},
    {9,4},{9,4},{9,4},{9,2},{9,2},{9,0},{9,3},{9,3},{9,2},{9,2},{9,0},{9,0},
    /* length 10, step MAX */
    {0,1},{0,0},{0,0},{0,1},{0,1},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,1},{0,1},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {0,1},{0,0},{0,0},{0,1},{0,1},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,1},{5,0},{5,0},{5,0},{5,0},{5,1},{5,0},{5,0},{5,0},{5,0},{5,1},{5,1},
    {9,1},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,0},{9,1},{9,1},
    {0,1},{0,0},{0,0},{0,1},{0,1},{0,1},{0,0},{0,1},{0,1},{0,1},{0,1},{0,1},
    {1,1},{1,0},{1,0},{1,1},{1,1},{1,1},{1,0},{1,0},{1,1},{1,1},{1,1},{1,1},
    {4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,1},
    {5,1},{5,0},{5,0},{5,0},{5,0},{5,1},{5,0},{5,0},{5,0},{5,0},{5,1},{5,1},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    {10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},{10,0},
    /* length 10, step -MAX */
    {9,1},{9,1},{9,1},{9,1},{9,1},{9,0},{9,1},{9,1},{9,1},{9,1},{9,0},{9,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},{-1,0},
    {4,1},{4,1},{4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {5,1},{5,1},{5,1},{5,1},{5,0},{5,0},{5,1},{5,1},{5,1},{5,0},{5,0},{5,0},
    {9,1},{9,1},{9,1},{9,1},{9,1},{9,0},{9,1},{9,1},{9,1},{9,1},{9,0},{9,0},
    {0,1},{0,1},{0,1},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},{0,0},
    {1,1},{1,1},{1,1},{1,0},{1,0},{1,0},{1,1},{1,0},{1,0},{1,0},{1,0},{1,0},
    {4,1},{4,1},{4,1},{4,0},{4,0},{4,0},{4,1},{4,1},{4,0},{4,0},{4,0},{4,0},
    {5,1},{5,1},{5,1},{5,1},{5,0},{5,0},{5,1},{5,1},{5,1},{5,0},{5,0},{5,0},
    {9,1},{9,1},{9,1},{9,1},{9,1},{9,0},{9,1},{9,1},{9,1},{9,1},{9,0},{9,0},
    {9,1},{9,1},{9,1},{9,1},{9,1},{9,0},{9,1},{9,1},{9,1},{9,1},{9,0},{9,0},
};
_Static_assert(sizeof slice_expect / sizeof slice_expect[0] == NL * NS * NV * NV,
               "slice table does not match the cross product");

START_TEST(test_slice_python_table) {
  size_t k = 0;
  for (size_t l = 0; l < NL; l++)
    for (size_t s = 0; s < NS; s++)
      for (size_t a = 0; a < NV; a++)
        for (size_t b = 0; b < NV; b++, k++) {
          nd_slice sl = {slice_values[a], slice_values[b], slice_steps[s]};
          int64_t start = -99, step = -99, count = -99;
          ND_ASSERT_OK(nd_slice_indices(sl, slice_lengths[l], &start, &step, &count));
          int64_t want_step = slice_steps[s] == ND_NONE ? 1 : slice_steps[s];
          ck_assert_msg(start == slice_expect[k].start && count == slice_expect[k].count &&
                            step == want_step,
                        "slice(%lld, %lld, %lld).indices(%lld): got start %lld step %lld count "
                        "%lld, want %lld %lld %lld",
                        (long long)sl.start, (long long)sl.stop, (long long)sl.step,
                        (long long)slice_lengths[l], (long long)start, (long long)step,
                        (long long)count, (long long)slice_expect[k].start,
                        (long long)want_step, (long long)slice_expect[k].count);
        }
  ck_assert_int_eq(k, NL * NS * NV * NV);
}
END_TEST

START_TEST(test_slice_named_cases) {
  /* Hand-derived, the last five on an axis of length INT64_MAX (checked against CPython:
   * len(range(0, 2**63 - 1, 2)) == 2**62). */
  static const struct {
    nd_slice s;
    int64_t length, start, step, count;
  } cases[] = {
      {{ND_NONE, ND_NONE, ND_NONE}, 5, 0, 1, 5},
      {{ND_NONE, ND_NONE, -1}, 5, 4, -1, 5},
      {{ND_NONE, ND_NONE, -1}, 0, -1, -1, 0},
      {{1, ND_NONE, 2}, 10, 1, 2, 5},
      {{-3, ND_NONE, ND_NONE}, 10, 7, 1, 3},
      {{ND_NONE, -INT64_MAX, -INT64_MAX}, 10, 9, -INT64_MAX, 1},
      {{3, 3, 1}, 10, 3, 1, 0},
      {{8, 2, -2}, 10, 8, -2, 3},
      {{ND_NONE, ND_NONE, ND_NONE}, INT64_MAX, 0, 1, INT64_MAX},
      {{ND_NONE, ND_NONE, -1}, INT64_MAX, INT64_MAX - 1, -1, INT64_MAX},
      {{-INT64_MAX, INT64_MAX, 1}, INT64_MAX, 0, 1, INT64_MAX},
      {{ND_NONE, ND_NONE, 2}, INT64_MAX, 0, 2, INT64_C(1) << 62},
      {{ND_NONE, ND_NONE, INT64_MAX}, INT64_MAX, 0, INT64_MAX, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t start, step, count;
    ND_ASSERT_OK(nd__slice_normalize(FN, cases[i].s, cases[i].length, &start, &step, &count));
    ck_assert_msg(start == cases[i].start && step == cases[i].step && count == cases[i].count,
                  "case %zu: got (%lld, %lld, %lld)", i, (long long)start, (long long)step,
                  (long long)count);
  }
  int64_t start, step, count;
  ND_ASSERT_OK(nd_slice_indices(ND_SLICE_ALL, 3, &start, &step, &count));
  ck_assert(start == 0 && step == 1 && count == 3);
}
END_TEST

START_TEST(test_slice_errors) {
  int64_t start = -7, step = -7, count = -7;
  nd_slice zero = {1, 5, 0};
  ND_ASSERT_FAILS(nd_slice_indices(zero, 10, &start, &step, &count), ND_ERR_VALUE, "");
  expect_message("nd_slice_indices: slice step cannot be zero");
  ND_ASSERT_FAILS(nd__slice_normalize(FN, zero, 10, &start, &step, &count), ND_ERR_VALUE,
                  "nd_test_fn: slice step cannot be zero");
  ND_ASSERT_FAILS(nd_slice_indices(ND_SLICE_ALL, -1, &start, &step, &count),
                  ND_ERR_INVALID_ARGUMENT, "slice length -1 is negative");
  ND_ASSERT_FAILS(nd_slice_indices(ND_SLICE_ALL, INT64_MIN, &start, &step, &count),
                  ND_ERR_INVALID_ARGUMENT, "negative");
  ND_ASSERT_FAILS(nd_slice_indices(ND_SLICE_ALL, 3, NULL, &step, &count), ND_ERR_NULL_POINTER,
                  "'start'");
  ND_ASSERT_FAILS(nd_slice_indices(ND_SLICE_ALL, 3, &start, NULL, &count), ND_ERR_NULL_POINTER,
                  "'step'");
  ND_ASSERT_FAILS(nd_slice_indices(ND_SLICE_ALL, 3, &start, &step, NULL), ND_ERR_NULL_POINTER,
                  "'count'");
  ck_assert(start == -7 && step == -7 && count == -7);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd__reshape_infer                                                                           */

/* Generated with np.zeros(count).reshape(shape): ND_OK and the result's shape, or the error
 * (ValueError "cannot reshape ..." -> ND_ERR_SHAPE, "can only specify one unknown
 * dimension" -> ND_ERR_INVALID_ARGUMENT). One row is changed on purpose, marked below. */
static const struct {
  int64_t count;
  int ndim;
  int64_t shape[3];
  nd_status status;
  int64_t want[3];
} infer_cases[] = {
    {6, 2, {2, 3}, ND_OK, {2, 3}},
    {6, 1, {-1}, ND_OK, {6}},
    {6, 2, {2, -1}, ND_OK, {2, 3}},
    {6, 2, {-1, 3}, ND_OK, {2, 3}},
    {6, 3, {1, -1, 1}, ND_OK, {1, 6, 1}},
    {0, 2, {0, -1}, ND_ERR_SHAPE, {0, -1}},
    {0, 2, {-1, 0}, ND_ERR_SHAPE, {-1, 0}},
    {0, 2, {3, 0}, ND_OK, {3, 0}},
    {1, 0, {0}, ND_OK, {0}},
    {1, 1, {-1}, ND_OK, {1}},
    {1, 3, {1, 1, -1}, ND_OK, {1, 1, 1}},
    {24, 3, {2, -1, 4}, ND_OK, {2, 3, 4}},
    {0, 3, {2, 0, -1}, ND_ERR_SHAPE, {2, 0, -1}},
    {6, 1, {4}, ND_ERR_SHAPE, {4}},
    {6, 2, {4, -1}, ND_ERR_SHAPE, {4, -1}},
    {6, 2, {-1, -1}, ND_ERR_INVALID_ARGUMENT, {-1, -1}},
    /* Changed: NumPy infers any negative dimension; the header allows only -1. */
    {6, 2, {-2, 3}, ND_ERR_INVALID_ARGUMENT, {0}},
    {6, 3, {6, 1, 1}, ND_OK, {6, 1, 1}},
    {0, 1, {-1}, ND_OK, {0}},
    {6, 2, {0, -1}, ND_ERR_SHAPE, {0, -1}},
    {7, 2, {2, -1}, ND_ERR_SHAPE, {2, -1}},
    {1, 1, {0}, ND_ERR_SHAPE, {0}},
    {0, 0, {0}, ND_ERR_SHAPE, {0}},
};

START_TEST(test_reshape_infer_numpy) {
  for (size_t i = 0; i < sizeof infer_cases / sizeof infer_cases[0]; i++) {
    int64_t got[3] = {-7, -7, -7};
    nd_status st = nd__reshape_infer(FN, infer_cases[i].count, infer_cases[i].ndim,
                                     infer_cases[i].shape, got);
    ck_assert_msg(st == infer_cases[i].status, "case %zu: %s, want %s (%s)", i,
                  nd_status_name(st), nd_status_name(infer_cases[i].status), nd_last_error());
    if (st == ND_OK)
      expect_i64s("inferred shape", infer_cases[i].ndim, got, infer_cases[i].want);
    else
      ck_assert_int_eq(got[0], -7);
  }
}
END_TEST

START_TEST(test_reshape_infer_messages) {
  int64_t out[4] = {-7, -7, -7, -7};
  const int64_t s4[1] = {4};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 1, s4, out), ND_ERR_SHAPE, "");
  expect_message("nd_test_fn: cannot reshape array of size 6 into shape (4,)");
  const int64_t s4u[2] = {4, -1};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 2, s4u, out), ND_ERR_SHAPE, "");
  expect_message("nd_test_fn: cannot reshape array of size 6 into shape (4, -1)");
  const int64_t uu[2] = {-1, -1};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 2, uu, out), ND_ERR_INVALID_ARGUMENT,
                  "nd_test_fn: can only specify one unknown dimension");
  const int64_t m2[2] = {-2, 3};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 2, m2, out), ND_ERR_INVALID_ARGUMENT,
                  "negative dimensions are not allowed: shape (-2, 3)");
  /* Overflowing known dimensions never match a count. */
  const int64_t big[2] = {P40, P40};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 2, big, out), ND_ERR_SHAPE,
                  "cannot reshape array of size 6 into shape (1099511627776, 1099511627776)");
  const int64_t bigu[3] = {P40, P40, -1};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 3, bigu, out), ND_ERR_SHAPE, "cannot reshape");
  const int64_t maxmax[2] = {INT64_MAX, INT64_MAX};
  ND_ASSERT_FAILS(nd__reshape_infer(FN, INT64_MAX, 2, maxmax, out), ND_ERR_SHAPE,
                  "cannot reshape");
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 33, s4, out), ND_ERR_INVALID_ARGUMENT, "ndim 33");
  ND_ASSERT_FAILS(nd__reshape_infer(FN, -1, 1, s4, out), ND_ERR_INVALID_ARGUMENT,
                  "element count -1");
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 1, NULL, out), ND_ERR_NULL_POINTER, "'shape_in'");
  ND_ASSERT_FAILS(nd__reshape_infer(FN, 6, 1, s4, NULL), ND_ERR_NULL_POINTER, "'shape_out'");
  for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], -7);

  /* A zero dimension makes the other dimensions' product irrelevant, as in nd__shape_count. */
  const int64_t zbig[3] = {P40, P40, 0};
  ND_ASSERT_OK(nd__reshape_infer(FN, 0, 3, zbig, out));
  expect_i64s("zero-size shape", 3, out, zbig);
  /* In place, and at the edge of the int64 range. */
  int64_t io[3] = {-1, 2, 1};
  ND_ASSERT_OK(nd__reshape_infer(FN, INT64_C(1) << 62, 3, io, io));
  const int64_t want_io[3] = {INT64_C(1) << 61, 2, 1};
  expect_i64s("in-place shape", 3, io, want_io);
  int64_t scalar_out = -7;
  ND_ASSERT_OK(nd__reshape_infer(FN, 1, 0, NULL, &scalar_out));
  ck_assert_int_eq(scalar_out, -7);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd__reshape_strides                                                                         */

/* Generated from NumPy views of np.arange(720.0) (itemsize 8: sliced, transposed, reversed,
 * Fortran-ordered, broadcast, with size-1 axes, 0-d):
 *   v = np.reshape(a, new_shape, order=order, copy=False)   -> ok 1, v.strides
 *   ValueError (a copy is needed)                           -> ok 0
 * over up to four shuffled factorisations of a.size into 0..4 dimensions, both orders. */
static const struct {
  int ndim;
  int64_t shape[5], strides[5];
  int new_ndim;
  int64_t new_shape[5];
  char order;
  int ok;
  int64_t new_strides[5];
} reshape_cases[] = {
    {3, {2, 3, 4}, {96, 32, 8}, 1, {24}, 'C', 1, {8}},
    {3, {2, 3, 4}, {96, 32, 8}, 1, {24}, 'F', 0, {0}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {12, 2}, 'C', 1, {16, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {12, 2}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {8, 3}, 'C', 1, {24, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {8, 3}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {2, 12}, 'C', 1, {96, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {2, 12}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {4, 6}, 'C', 1, {48, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 2, {4, 6}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {12, 2, 1}, 'C', 1, {16, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {12, 2, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {2, 6, 2}, 'C', 1, {96, 16, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {2, 6, 2}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {8, 3, 1}, 'C', 1, {24, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {8, 3, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {4, 3, 2}, 'C', 1, {48, 16, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 3, {4, 3, 2}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {3, 1, 8, 1}, 'C', 1, {64, 64, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {3, 1, 8, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {24, 1, 1, 1}, 'C', 1, {8, 8, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {24, 1, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {1, 4, 6, 1}, 'C', 1, {192, 48, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {1, 4, 6, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {4, 6, 1, 1}, 'C', 1, {48, 8, 8, 8}},
    {3, {2, 3, 4}, {96, 32, 8}, 4, {4, 6, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 1, {24}, 'C', 0, {0}},
    {3, {4, 2, 3}, {8, 96, 32}, 1, {24}, 'F', 0, {0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {4, 6}, 'C', 1, {8, 32}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {4, 6}, 'F', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {6, 4}, 'C', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {6, 4}, 'F', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {8, 3}, 'C', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {8, 3}, 'F', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {3, 8}, 'C', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 2, {3, 8}, 'F', 0, {0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {2, 4, 3}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {2, 4, 3}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {2, 1, 12}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {2, 1, 12}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {12, 2, 1}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {12, 2, 1}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {4, 1, 6}, 'C', 1, {8, 192, 32}},
    {3, {4, 2, 3}, {8, 96, 32}, 3, {4, 1, 6}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {6, 4, 1, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {6, 4, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {3, 1, 1, 8}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {3, 1, 1, 8}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {12, 1, 1, 2}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {12, 1, 1, 2}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {1, 4, 2, 3}, 'C', 1, {32, 8, 96, 32}},
    {3, {4, 2, 3}, {8, 96, 32}, 4, {1, 4, 2, 3}, 'F', 1, {8, 8, 96, 32}},
    {3, {2, 3, 4}, {96, -32, 8}, 1, {24}, 'C', 0, {0}},
    {3, {2, 3, 4}, {96, -32, 8}, 1, {24}, 'F', 0, {0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {12, 2}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {12, 2}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {1, 24}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {1, 24}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {8, 3}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {8, 3}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {24, 1}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 2, {24, 1}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {8, 1, 3}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {8, 1, 3}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {2, 1, 12}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {2, 1, 12}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {12, 2, 1}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {12, 2, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {1, 3, 8}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 3, {1, 3, 8}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {1, 2, 1, 12}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {1, 2, 1, 12}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {3, 4, 2, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {3, 4, 2, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {2, 1, 1, 12}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {2, 1, 1, 12}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {6, 2, 1, 2}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {96, -32, 8}, 4, {6, 2, 1, 2}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 1, {24}, 'C', 0, {0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 1, {24}, 'F', 0, {0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {6, 4}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {6, 4}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {2, 12}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {2, 12}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {12, 2}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {12, 2}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {1, 24}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 2, {1, 24}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {24, 1, 1}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {24, 1, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {1, 3, 8}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {1, 3, 8}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {4, 1, 6}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {4, 1, 6}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {3, 1, 8}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 3, {3, 1, 8}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {1, 3, 2, 4}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {1, 3, 2, 4}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {4, 2, 3, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {4, 2, 3, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {2, 6, 2, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {2, 6, 2, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {1, 1, 4, 6}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {-96, 32, -8}, 4, {1, 1, 4, 6}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 1, {24}, 'C', 1, {16}},
    {3, {2, 3, 4}, {192, 64, 16}, 1, {24}, 'F', 0, {0}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {8, 3}, 'C', 1, {48, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {8, 3}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {6, 4}, 'C', 1, {64, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {6, 4}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {4, 6}, 'C', 1, {96, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {4, 6}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {3, 8}, 'C', 1, {128, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 2, {3, 8}, 'F', 0, {0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {6, 2, 2}, 'C', 1, {64, 32, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {6, 2, 2}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {8, 3, 1}, 'C', 1, {48, 16, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {8, 3, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {3, 8, 1}, 'C', 1, {128, 16, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {3, 8, 1}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {2, 4, 3}, 'C', 1, {192, 48, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 3, {2, 4, 3}, 'F', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {1, 1, 3, 8}, 'C', 1, {384, 384, 128, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {1, 1, 3, 8}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {2, 4, 1, 3}, 'C', 1, {192, 48, 48, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {2, 4, 1, 3}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {2, 12, 1, 1}, 'C', 1, {192, 16, 16, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {2, 12, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {1, 2, 6, 2}, 'C', 1, {384, 192, 32, 16}},
    {3, {2, 3, 4}, {192, 64, 16}, 4, {1, 2, 6, 2}, 'F', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 1, {24}, 'C', 0, {0}},
    {2, {4, 6}, {96, 8}, 1, {24}, 'F', 0, {0}},
    {2, {4, 6}, {96, 8}, 2, {24, 1}, 'C', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {24, 1}, 'F', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {2, 12}, 'C', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {2, 12}, 'F', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {1, 24}, 'C', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {1, 24}, 'F', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {3, 8}, 'C', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 2, {3, 8}, 'F', 0, {0, 0}},
    {2, {4, 6}, {96, 8}, 3, {12, 1, 2}, 'C', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {12, 1, 2}, 'F', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {1, 24, 1}, 'C', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {1, 24, 1}, 'F', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {2, 6, 2}, 'C', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {2, 6, 2}, 'F', 0, {0, 0, 0}},
    {2, {4, 6}, {96, 8}, 3, {1, 4, 6}, 'C', 1, {384, 96, 8}},
    {2, {4, 6}, {96, 8}, 3, {1, 4, 6}, 'F', 1, {96, 96, 8}},
    {2, {4, 6}, {96, 8}, 4, {1, 12, 2, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {1, 12, 2, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {1, 24, 1, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {1, 24, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {2, 3, 4, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {2, 3, 4, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {1, 1, 8, 3}, 'C', 0, {0, 0, 0, 0}},
    {2, {4, 6}, {96, 8}, 4, {1, 1, 8, 3}, 'F', 0, {0, 0, 0, 0}},
    {2, {6, 4}, {8, 48}, 1, {24}, 'C', 0, {0}},
    {2, {6, 4}, {8, 48}, 1, {24}, 'F', 1, {8}},
    {2, {6, 4}, {8, 48}, 2, {2, 12}, 'C', 0, {0, 0}},
    {2, {6, 4}, {8, 48}, 2, {2, 12}, 'F', 1, {8, 16}},
    {2, {6, 4}, {8, 48}, 2, {4, 6}, 'C', 0, {0, 0}},
    {2, {6, 4}, {8, 48}, 2, {4, 6}, 'F', 1, {8, 32}},
    {2, {6, 4}, {8, 48}, 2, {1, 24}, 'C', 0, {0, 0}},
    {2, {6, 4}, {8, 48}, 2, {1, 24}, 'F', 1, {8, 8}},
    {2, {6, 4}, {8, 48}, 2, {12, 2}, 'C', 0, {0, 0}},
    {2, {6, 4}, {8, 48}, 2, {12, 2}, 'F', 1, {8, 96}},
    {2, {6, 4}, {8, 48}, 3, {8, 1, 3}, 'C', 0, {0, 0, 0}},
    {2, {6, 4}, {8, 48}, 3, {8, 1, 3}, 'F', 1, {8, 64, 64}},
    {2, {6, 4}, {8, 48}, 3, {2, 4, 3}, 'C', 0, {0, 0, 0}},
    {2, {6, 4}, {8, 48}, 3, {2, 4, 3}, 'F', 1, {8, 16, 64}},
    {2, {6, 4}, {8, 48}, 3, {4, 1, 6}, 'C', 0, {0, 0, 0}},
    {2, {6, 4}, {8, 48}, 3, {4, 1, 6}, 'F', 1, {8, 32, 32}},
    {2, {6, 4}, {8, 48}, 3, {2, 3, 4}, 'C', 1, {24, 8, 48}},
    {2, {6, 4}, {8, 48}, 3, {2, 3, 4}, 'F', 1, {8, 16, 48}},
    {2, {6, 4}, {8, 48}, 4, {1, 1, 1, 24}, 'C', 0, {0, 0, 0, 0}},
    {2, {6, 4}, {8, 48}, 4, {1, 1, 1, 24}, 'F', 1, {8, 8, 8, 8}},
    {2, {6, 4}, {8, 48}, 4, {4, 2, 3, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {6, 4}, {8, 48}, 4, {4, 2, 3, 1}, 'F', 1, {8, 32, 64, 192}},
    {2, {6, 4}, {8, 48}, 4, {1, 3, 8, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {6, 4}, {8, 48}, 4, {1, 3, 8, 1}, 'F', 1, {8, 8, 24, 192}},
    {2, {6, 4}, {8, 48}, 4, {1, 1, 6, 4}, 'C', 1, {48, 48, 8, 48}},
    {2, {6, 4}, {8, 48}, 4, {1, 1, 6, 4}, 'F', 1, {8, 8, 8, 48}},
    {3, {2, 3, 4}, {8, 16, 48}, 1, {24}, 'C', 0, {0}},
    {3, {2, 3, 4}, {8, 16, 48}, 1, {24}, 'F', 1, {8}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {4, 6}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {4, 6}, 'F', 1, {8, 32}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {12, 2}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {12, 2}, 'F', 1, {8, 96}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {6, 4}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {6, 4}, 'F', 1, {8, 48}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {24, 1}, 'C', 0, {0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 2, {24, 1}, 'F', 1, {8, 192}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {1, 4, 6}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {1, 4, 6}, 'F', 1, {8, 8, 32}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {1, 8, 3}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {1, 8, 3}, 'F', 1, {8, 8, 64}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {4, 1, 6}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {4, 1, 6}, 'F', 1, {8, 32, 32}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {8, 1, 3}, 'C', 0, {0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 3, {8, 1, 3}, 'F', 1, {8, 64, 64}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {6, 2, 1, 2}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {6, 2, 1, 2}, 'F', 1, {8, 48, 96, 96}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {2, 6, 2, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {2, 6, 2, 1}, 'F', 1, {8, 16, 96, 192}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {2, 1, 6, 2}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {2, 1, 6, 2}, 'F', 1, {8, 16, 16, 96}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {4, 3, 2, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {2, 3, 4}, {8, 16, 48}, 4, {4, 3, 2, 1}, 'F', 1, {8, 32, 96, 192}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 1, {24}, 'C', 1, {8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 1, {24}, 'F', 0, {0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {8, 3}, 'C', 1, {24, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {8, 3}, 'F', 0, {0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {2, 12}, 'C', 1, {96, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {2, 12}, 'F', 0, {0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {24, 1}, 'C', 1, {8, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {24, 1}, 'F', 0, {0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {12, 2}, 'C', 1, {16, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 2, {12, 2}, 'F', 0, {0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {8, 3, 1}, 'C', 1, {24, 8, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {8, 3, 1}, 'F', 0, {0, 0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {2, 3, 4}, 'C', 1, {96, 32, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {2, 3, 4}, 'F', 1, {96, 32, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {1, 4, 6}, 'C', 1, {192, 48, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {1, 4, 6}, 'F', 0, {0, 0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {1, 6, 4}, 'C', 1, {192, 32, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 3, {1, 6, 4}, 'F', 0, {0, 0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {1, 2, 3, 4}, 'C', 1, {192, 96, 32, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {1, 2, 3, 4}, 'F', 1, {96, 96, 32, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {1, 4, 2, 3}, 'C', 1, {192, 48, 24, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {1, 4, 2, 3}, 'F', 0, {0, 0, 0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {2, 1, 1, 12}, 'C', 1, {96, 96, 96, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {2, 1, 1, 12}, 'F', 0, {0, 0, 0, 0}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {12, 2, 1, 1}, 'C', 1, {16, 8, 8, 8}},
    {5, {2, 1, 3, 1, 4}, {96, 96, 32, 32, 8}, 4, {12, 2, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 1, {12}, 'C', 1, {8}},
    {3, {3, 1, 4}, {32, 0, 8}, 1, {12}, 'F', 0, {0}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {3, 4}, 'C', 1, {32, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {3, 4}, 'F', 1, {32, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {1, 12}, 'C', 1, {96, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {1, 12}, 'F', 0, {0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {4, 3}, 'C', 1, {24, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {4, 3}, 'F', 0, {0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {2, 6}, 'C', 1, {48, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 2, {2, 6}, 'F', 0, {0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {2, 1, 6}, 'C', 1, {48, 48, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {2, 1, 6}, 'F', 0, {0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {6, 1, 2}, 'C', 1, {16, 16, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {6, 1, 2}, 'F', 0, {0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {2, 2, 3}, 'C', 1, {48, 24, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {2, 2, 3}, 'F', 0, {0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {3, 4, 1}, 'C', 1, {32, 8, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 3, {3, 4, 1}, 'F', 1, {32, 8, 32}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {4, 1, 1, 3}, 'C', 1, {24, 24, 24, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {4, 1, 1, 3}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {2, 3, 1, 2}, 'C', 1, {48, 16, 16, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {2, 3, 1, 2}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {4, 3, 1, 1}, 'C', 1, {24, 8, 8, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {4, 3, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {3, 2, 2, 1}, 'C', 1, {32, 16, 8, 8}},
    {3, {3, 1, 4}, {32, 0, 8}, 4, {3, 2, 2, 1}, 'F', 1, {32, 8, 16, 32}},
    {2, {3, 4}, {0, 8}, 1, {12}, 'C', 0, {0}},
    {2, {3, 4}, {0, 8}, 1, {12}, 'F', 0, {0}},
    {2, {3, 4}, {0, 8}, 2, {6, 2}, 'C', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {6, 2}, 'F', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {2, 6}, 'C', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {2, 6}, 'F', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {12, 1}, 'C', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {12, 1}, 'F', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {1, 12}, 'C', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 2, {1, 12}, 'F', 0, {0, 0}},
    {2, {3, 4}, {0, 8}, 3, {1, 12, 1}, 'C', 0, {0, 0, 0}},
    {2, {3, 4}, {0, 8}, 3, {1, 12, 1}, 'F', 0, {0, 0, 0}},
    {2, {3, 4}, {0, 8}, 3, {2, 2, 3}, 'C', 0, {0, 0, 0}},
    {2, {3, 4}, {0, 8}, 3, {2, 2, 3}, 'F', 0, {0, 0, 0}},
    {2, {3, 4}, {0, 8}, 3, {3, 2, 2}, 'C', 1, {0, 16, 8}},
    {2, {3, 4}, {0, 8}, 3, {3, 2, 2}, 'F', 1, {0, 8, 16}},
    {2, {3, 4}, {0, 8}, 3, {3, 1, 4}, 'C', 1, {0, 32, 8}},
    {2, {3, 4}, {0, 8}, 3, {3, 1, 4}, 'F', 1, {0, 8, 8}},
    {2, {3, 4}, {0, 8}, 4, {2, 1, 3, 2}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {2, 1, 3, 2}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {2, 2, 3, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {2, 2, 3, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {2, 1, 6, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {2, 1, 6, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {0, 8}, 4, {3, 1, 2, 2}, 'C', 1, {0, 32, 16, 8}},
    {2, {3, 4}, {0, 8}, 4, {3, 1, 2, 2}, 'F', 1, {0, 8, 8, 16}},
    {2, {3, 4}, {8, 0}, 1, {12}, 'C', 0, {0}},
    {2, {3, 4}, {8, 0}, 1, {12}, 'F', 0, {0}},
    {2, {3, 4}, {8, 0}, 2, {4, 3}, 'C', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 2, {4, 3}, 'F', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 2, {6, 2}, 'C', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 2, {6, 2}, 'F', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 2, {3, 4}, 'C', 1, {8, 0}},
    {2, {3, 4}, {8, 0}, 2, {3, 4}, 'F', 1, {8, 0}},
    {2, {3, 4}, {8, 0}, 2, {1, 12}, 'C', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 2, {1, 12}, 'F', 0, {0, 0}},
    {2, {3, 4}, {8, 0}, 3, {2, 6, 1}, 'C', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {2, 6, 1}, 'F', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {1, 2, 6}, 'C', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {1, 2, 6}, 'F', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {3, 4, 1}, 'C', 1, {8, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {3, 4, 1}, 'F', 1, {8, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {2, 1, 6}, 'C', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 3, {2, 1, 6}, 'F', 0, {0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {2, 1, 6, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {2, 1, 6, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {2, 1, 2, 3}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {2, 1, 2, 3}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {1, 2, 6, 1}, 'C', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {1, 2, 6, 1}, 'F', 0, {0, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {3, 2, 1, 2}, 'C', 1, {8, 0, 0, 0}},
    {2, {3, 4}, {8, 0}, 4, {3, 2, 1, 2}, 'F', 1, {8, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 1, {6}, 'C', 1, {0}},
    {2, {2, 3}, {0, 0}, 1, {6}, 'F', 1, {0}},
    {2, {2, 3}, {0, 0}, 2, {6, 1}, 'C', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {6, 1}, 'F', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {1, 6}, 'C', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {1, 6}, 'F', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {2, 3}, 'C', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {2, 3}, 'F', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {3, 2}, 'C', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 2, {3, 2}, 'F', 1, {0, 0}},
    {2, {2, 3}, {0, 0}, 3, {2, 1, 3}, 'C', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {2, 1, 3}, 'F', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {3, 1, 2}, 'C', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {3, 1, 2}, 'F', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {3, 2, 1}, 'C', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {3, 2, 1}, 'F', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {1, 2, 3}, 'C', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 3, {1, 2, 3}, 'F', 1, {0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {2, 1, 1, 3}, 'C', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {2, 1, 1, 3}, 'F', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 2, 3}, 'C', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 2, 3}, 'F', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 6, 1}, 'C', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 6, 1}, 'F', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 1, 6}, 'C', 1, {0, 0, 0, 0}},
    {2, {2, 3}, {0, 0}, 4, {1, 1, 1, 6}, 'F', 1, {0, 0, 0, 0}},
    {1, {6}, {-8}, 1, {6}, 'C', 1, {-8}},
    {1, {6}, {-8}, 1, {6}, 'F', 1, {-8}},
    {1, {6}, {-8}, 2, {1, 6}, 'C', 1, {-48, -8}},
    {1, {6}, {-8}, 2, {1, 6}, 'F', 1, {-8, -8}},
    {1, {6}, {-8}, 2, {6, 1}, 'C', 1, {-8, -8}},
    {1, {6}, {-8}, 2, {6, 1}, 'F', 1, {-8, -48}},
    {1, {6}, {-8}, 2, {2, 3}, 'C', 1, {-24, -8}},
    {1, {6}, {-8}, 2, {2, 3}, 'F', 1, {-8, -16}},
    {1, {6}, {-8}, 2, {3, 2}, 'C', 1, {-16, -8}},
    {1, {6}, {-8}, 2, {3, 2}, 'F', 1, {-8, -24}},
    {1, {6}, {-8}, 3, {1, 2, 3}, 'C', 1, {-48, -24, -8}},
    {1, {6}, {-8}, 3, {1, 2, 3}, 'F', 1, {-8, -8, -16}},
    {1, {6}, {-8}, 3, {3, 1, 2}, 'C', 1, {-16, -16, -8}},
    {1, {6}, {-8}, 3, {3, 1, 2}, 'F', 1, {-8, -24, -24}},
    {1, {6}, {-8}, 3, {1, 1, 6}, 'C', 1, {-48, -48, -8}},
    {1, {6}, {-8}, 3, {1, 1, 6}, 'F', 1, {-8, -8, -8}},
    {1, {6}, {-8}, 3, {3, 2, 1}, 'C', 1, {-16, -8, -8}},
    {1, {6}, {-8}, 3, {3, 2, 1}, 'F', 1, {-8, -24, -48}},
    {1, {6}, {-8}, 4, {6, 1, 1, 1}, 'C', 1, {-8, -8, -8, -8}},
    {1, {6}, {-8}, 4, {6, 1, 1, 1}, 'F', 1, {-8, -48, -48, -48}},
    {1, {6}, {-8}, 4, {2, 1, 1, 3}, 'C', 1, {-24, -24, -24, -8}},
    {1, {6}, {-8}, 4, {2, 1, 1, 3}, 'F', 1, {-8, -16, -16, -16}},
    {1, {6}, {-8}, 4, {1, 2, 3, 1}, 'C', 1, {-48, -24, -8, -8}},
    {1, {6}, {-8}, 4, {1, 2, 3, 1}, 'F', 1, {-8, -8, -16, -48}},
    {1, {6}, {-8}, 4, {1, 1, 2, 3}, 'C', 1, {-48, -48, -24, -8}},
    {1, {6}, {-8}, 4, {1, 1, 2, 3}, 'F', 1, {-8, -8, -8, -16}},
    {1, {6}, {16}, 1, {6}, 'C', 1, {16}},
    {1, {6}, {16}, 1, {6}, 'F', 1, {16}},
    {1, {6}, {16}, 2, {1, 6}, 'C', 1, {96, 16}},
    {1, {6}, {16}, 2, {1, 6}, 'F', 1, {16, 16}},
    {1, {6}, {16}, 2, {3, 2}, 'C', 1, {32, 16}},
    {1, {6}, {16}, 2, {3, 2}, 'F', 1, {16, 48}},
    {1, {6}, {16}, 2, {2, 3}, 'C', 1, {48, 16}},
    {1, {6}, {16}, 2, {2, 3}, 'F', 1, {16, 32}},
    {1, {6}, {16}, 2, {6, 1}, 'C', 1, {16, 16}},
    {1, {6}, {16}, 2, {6, 1}, 'F', 1, {16, 96}},
    {1, {6}, {16}, 3, {1, 2, 3}, 'C', 1, {96, 48, 16}},
    {1, {6}, {16}, 3, {1, 2, 3}, 'F', 1, {16, 16, 32}},
    {1, {6}, {16}, 3, {3, 2, 1}, 'C', 1, {32, 16, 16}},
    {1, {6}, {16}, 3, {3, 2, 1}, 'F', 1, {16, 48, 96}},
    {1, {6}, {16}, 3, {6, 1, 1}, 'C', 1, {16, 16, 16}},
    {1, {6}, {16}, 3, {6, 1, 1}, 'F', 1, {16, 96, 96}},
    {1, {6}, {16}, 3, {2, 1, 3}, 'C', 1, {48, 48, 16}},
    {1, {6}, {16}, 3, {2, 1, 3}, 'F', 1, {16, 32, 32}},
    {1, {6}, {16}, 4, {1, 3, 2, 1}, 'C', 1, {96, 32, 16, 16}},
    {1, {6}, {16}, 4, {1, 3, 2, 1}, 'F', 1, {16, 16, 48, 96}},
    {1, {6}, {16}, 4, {1, 1, 1, 6}, 'C', 1, {96, 96, 96, 16}},
    {1, {6}, {16}, 4, {1, 1, 1, 6}, 'F', 1, {16, 16, 16, 16}},
    {1, {6}, {16}, 4, {2, 3, 1, 1}, 'C', 1, {48, 16, 16, 16}},
    {1, {6}, {16}, 4, {2, 3, 1, 1}, 'F', 1, {16, 32, 96, 96}},
    {1, {6}, {16}, 4, {3, 2, 1, 1}, 'C', 1, {32, 16, 16, 16}},
    {1, {6}, {16}, 4, {3, 2, 1, 1}, 'F', 1, {16, 48, 96, 96}},
    {0, {0}, {0}, 0, {0}, 'C', 1, {0}},
    {0, {0}, {0}, 0, {0}, 'F', 1, {0}},
    {0, {0}, {0}, 1, {1}, 'C', 1, {8}},
    {0, {0}, {0}, 1, {1}, 'F', 1, {8}},
    {0, {0}, {0}, 2, {1, 1}, 'C', 1, {8, 8}},
    {0, {0}, {0}, 2, {1, 1}, 'F', 1, {8, 8}},
    {0, {0}, {0}, 3, {1, 1, 1}, 'C', 1, {8, 8, 8}},
    {0, {0}, {0}, 3, {1, 1, 1}, 'F', 1, {8, 8, 8}},
    {0, {0}, {0}, 4, {1, 1, 1, 1}, 'C', 1, {8, 8, 8, 8}},
    {0, {0}, {0}, 4, {1, 1, 1, 1}, 'F', 1, {8, 8, 8, 8}},
    {2, {1, 1}, {8, 8}, 0, {0}, 'C', 1, {0}},
    {2, {1, 1}, {8, 8}, 0, {0}, 'F', 1, {0}},
    {2, {1, 1}, {8, 8}, 1, {1}, 'C', 1, {8}},
    {2, {1, 1}, {8, 8}, 1, {1}, 'F', 1, {8}},
    {2, {1, 1}, {8, 8}, 2, {1, 1}, 'C', 1, {8, 8}},
    {2, {1, 1}, {8, 8}, 2, {1, 1}, 'F', 1, {8, 8}},
    {2, {1, 1}, {8, 8}, 3, {1, 1, 1}, 'C', 1, {8, 8, 8}},
    {2, {1, 1}, {8, 8}, 3, {1, 1, 1}, 'F', 1, {8, 8, 8}},
    {2, {1, 1}, {8, 8}, 4, {1, 1, 1, 1}, 'C', 1, {8, 8, 8, 8}},
    {2, {1, 1}, {8, 8}, 4, {1, 1, 1, 1}, 'F', 1, {8, 8, 8, 8}},
    {3, {3, 2, 5}, {160, 40, 8}, 1, {30}, 'C', 0, {0}},
    {3, {3, 2, 5}, {160, 40, 8}, 1, {30}, 'F', 0, {0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {3, 10}, 'C', 1, {160, 8}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {3, 10}, 'F', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {2, 15}, 'C', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {2, 15}, 'F', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {30, 1}, 'C', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {30, 1}, 'F', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {10, 3}, 'C', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 2, {10, 3}, 'F', 0, {0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {6, 1, 5}, 'C', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {6, 1, 5}, 'F', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {5, 3, 2}, 'C', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {5, 3, 2}, 'F', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {1, 6, 5}, 'C', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {1, 6, 5}, 'F', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {15, 1, 2}, 'C', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 3, {15, 1, 2}, 'F', 0, {0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {10, 3, 1, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {10, 3, 1, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {2, 3, 5, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {2, 3, 5, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {3, 1, 2, 5}, 'C', 1, {160, 80, 40, 8}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {3, 1, 2, 5}, 'F', 1, {160, 40, 40, 8}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {1, 5, 2, 3}, 'C', 0, {0, 0, 0, 0}},
    {3, {3, 2, 5}, {160, 40, 8}, 4, {1, 5, 2, 3}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 1, {40}, 'C', 0, {0}},
    {3, {4, 2, 5}, {40, 160, 8}, 1, {40}, 'F', 0, {0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {8, 5}, 'C', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {8, 5}, 'F', 1, {40, 8}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {40, 1}, 'C', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {40, 1}, 'F', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {2, 20}, 'C', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {2, 20}, 'F', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {4, 10}, 'C', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 2, {4, 10}, 'F', 0, {0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {8, 5, 1}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {8, 5, 1}, 'F', 1, {40, 8, 40}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {2, 10, 2}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {2, 10, 2}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {2, 1, 20}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {2, 1, 20}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {4, 10, 1}, 'C', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 3, {4, 10, 1}, 'F', 0, {0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 5, 2, 4}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 5, 2, 4}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 1, 40, 1}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 1, 40, 1}, 'F', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 2, 4, 5}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 2, 4, 5}, 'F', 1, {40, 40, 80, 8}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 2, 10, 2}, 'C', 0, {0, 0, 0, 0}},
    {3, {4, 2, 5}, {40, 160, 8}, 4, {1, 2, 10, 2}, 'F', 0, {0, 0, 0, 0}},
};

START_TEST(test_reshape_strides_numpy) {
  int nok = 0;
  for (size_t i = 0; i < sizeof reshape_cases / sizeof reshape_cases[0]; i++) {
    int64_t got[5] = {-7, -7, -7, -7, -7};
    int ok = nd__reshape_strides(reshape_cases[i].ndim, reshape_cases[i].shape,
                                 reshape_cases[i].strides, reshape_cases[i].new_ndim,
                                 reshape_cases[i].new_shape, reshape_cases[i].order, 8, got);
    ck_assert_msg(ok == reshape_cases[i].ok, "case %zu (order %c): got %d, want %d", i,
                  reshape_cases[i].order, ok, reshape_cases[i].ok);
    if (ok) {
      nok++;
      expect_i64s("reshape strides", reshape_cases[i].new_ndim, got,
                  reshape_cases[i].new_strides);
    }
  }
  ck_assert_int_gt(nok, 100); /* the table exercises both outcomes */
}
END_TEST

START_TEST(test_reshape_strides_special) {
  int64_t got[4] = {-7, -7, -7, -7};
  /* Zero-size: always a view with contiguous strides of the requested order (the formula of
   * nd__strides_c / nd__strides_f), whatever the old strides were. */
  const int64_t z[2] = {3, 0}, zst[2] = {-7, 13}, nz[2] = {0, 3};
  ck_assert_int_eq(nd__reshape_strides(2, z, zst, 2, nz, 'C', 8, got), 1);
  const int64_t zc[2] = {24, 8};
  expect_i64s("zero-size C", 2, got, zc);
  ck_assert_int_eq(nd__reshape_strides(2, z, zst, 2, nz, 'F', 8, got), 1);
  const int64_t zf[2] = {8, 0};
  expect_i64s("zero-size F", 2, got, zf);
  const int64_t nz3[3] = {2, 0, 5};
  ck_assert_int_eq(nd__reshape_strides(2, z, zst, 3, nz3, 'C', 4, got), 1);
  const int64_t zc3[3] = {0, 20, 4};
  expect_i64s("zero-size C 3-d", 3, got, zc3);
  const int64_t n6[1] = {6};
  ck_assert_int_eq(nd__reshape_strides(2, z, zst, 1, n6, 'C', 8, got), 0); /* 0 != 6 */

  /* 0-d and all-ones: trailing ones take the itemsize (NumPy: np.zeros(()).reshape(1, 1, 1)
   * has strides (8, 8, 8) in either order). */
  const int64_t ones[3] = {1, 1, 1}, w888[3] = {8, 8, 8};
  ck_assert_int_eq(nd__reshape_strides(0, NULL, NULL, 3, ones, 'C', 8, got), 1);
  expect_i64s("0-d to ones C", 3, got, w888);
  ck_assert_int_eq(nd__reshape_strides(0, NULL, NULL, 3, ones, 'F', 8, got), 1);
  expect_i64s("0-d to ones F", 3, got, w888);
  const int64_t st11[2] = {-100, 3};
  ck_assert_int_eq(nd__reshape_strides(2, ones, st11, 0, NULL, 'F', 8, got), 1);

  /* NumPy: np.arange(10.)[::2].reshape(5, 1, 1, order=o).strides. */
  const int64_t s5[1] = {5}, st16[1] = {16}, n511[3] = {5, 1, 1};
  ck_assert_int_eq(nd__reshape_strides(1, s5, st16, 3, n511, 'C', 8, got), 1);
  const int64_t w_c[3] = {16, 16, 16}, w_f[3] = {16, 80, 80};
  expect_i64s("trailing ones C", 3, got, w_c);
  ck_assert_int_eq(nd__reshape_strides(1, s5, st16, 3, n511, 'F', 8, got), 1);
  expect_i64s("trailing ones F", 3, got, w_f);

  /* Mismatched counts and bad arguments say "copy" instead of reading out of bounds. */
  const int64_t s23[2] = {2, 3}, st23[2] = {24, 8}, n4[1] = {4}, n7[1] = {7}, n62[2] = {6, 2};
  const int64_t n0[1] = {0};
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 1, n4, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 1, n7, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 2, n62, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 1, n0, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 0, NULL, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, 1, n6, 'X', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(33, s23, st23, 1, n6, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(2, s23, st23, -1, n6, 'C', 8, got), 0);
  /* Strides whose products overflow: no view (and no undefined behaviour). */
  const int64_t sbig[1] = {P62}, n31[2] = {3, 1}, wbig[2] = {P62, P62};
  /* ... except the stride of a trailing size-1 axis, which may be anything. */
  ck_assert_int_eq(nd__reshape_strides(1, s23 + 1, sbig, 2, n31, 'F', 8, got), 1);
  expect_i64s("overflowing trailing one", 2, got, wbig);
  const int64_t s6[1] = {6};
  ck_assert_int_eq(nd__reshape_strides(1, s6, sbig, 2, s23, 'C', 8, got), 0);
  ck_assert_int_eq(nd__reshape_strides(1, s6, sbig, 2, s23, 'F', 8, got), 0);
  /* Negative strides carry through a C-order split: (6,) stride -8 -> (2, 3). */
  const int64_t stneg[1] = {-8}, wneg[2] = {-24, -8};
  ck_assert_int_eq(nd__reshape_strides(1, s6, stneg, 2, s23, 'C', 8, got), 1);
  expect_i64s("negative split", 2, got, wneg);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* nd__collapse_dims                                                                           */

START_TEST(test_collapse_hand) {
  /* Hand-derived. */
  {
    int64_t shape[3] = {2, 3, 4}, s0[3] = {96, 32, 8};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 1, st), 1);
    ck_assert_int_eq(shape[0], 24);
    ck_assert_int_eq(s0[0], 8);
  }
  { /* The second operand is broadcast over axis 0: only axes 1 and 2 merge. */
    int64_t shape[3] = {2, 3, 4}, s0[3] = {96, 32, 8}, s1[3] = {0, 32, 8};
    int64_t *st[2] = {s0, s1};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 2, st), 2);
    const int64_t ws[2] = {2, 12}, w0[2] = {96, 8}, w1[2] = {0, 8};
    expect_i64s("shape", 2, shape, ws);
    expect_i64s("op0", 2, s0, w0);
    expect_i64s("op1", 2, s1, w1);
  }
  { /* Negative strides merge: (i, j) at -32i - 8j = -8 (4i + j). */
    int64_t shape[2] = {3, 4}, s0[2] = {-32, -8};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, st), 1);
    ck_assert_int_eq(shape[0], 12);
    ck_assert_int_eq(s0[0], -8);
  }
  { /* Fully broadcast operand: 0 == 0 * n. */
    int64_t shape[3] = {3, 4, 5}, s0[3] = {160, 40, 8}, s1[3] = {0, 0, 0};
    int64_t *st[2] = {s0, s1};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 2, st), 1);
    ck_assert_int_eq(shape[0], 60);
    ck_assert_int_eq(s0[0], 8);
    ck_assert_int_eq(s1[0], 0);
  }
  { /* Size-1 axes are dropped whatever their strides. */
    int64_t shape[4] = {1, 3, 1, 4}, s0[4] = {999, 32, -5, 8};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(4, shape, 1, st), 1);
    ck_assert_int_eq(shape[0], 12);
    ck_assert_int_eq(s0[0], 8);
  }
  { /* Transposed: nothing merges, the order is kept. */
    int64_t shape[2] = {4, 3}, s0[2] = {8, 32};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, st), 2);
    const int64_t ws[2] = {4, 3}, w0[2] = {8, 32};
    expect_i64s("shape", 2, shape, ws);
    expect_i64s("op0", 2, s0, w0);
  }
  { /* a[:, :3] of a (2, 6, 4) array: the inner pair merges, the outer does not. */
    int64_t shape[3] = {2, 3, 4}, s0[3] = {192, 32, 8};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 1, st), 2);
    const int64_t ws[2] = {2, 12}, w0[2] = {192, 8};
    expect_i64s("shape", 2, shape, ws);
    expect_i64s("op0", 2, s0, w0);
  }
  { /* A uniformly strided 2-d view a[:, ::2] of (4, 12) merges to one strided axis. */
    int64_t shape[2] = {4, 6}, s0[2] = {96, 16};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, st), 1);
    ck_assert_int_eq(shape[0], 24);
    ck_assert_int_eq(s0[0], 16);
  }
  { /* All ones: 0 dimensions (count 1). */
    int64_t shape[2] = {1, 1}, s0[2] = {8, 8};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, st), 0);
    ck_assert_int_eq(nd__collapse_dims(0, shape, 1, st), 0);
  }
  { /* Zero-size: the single dimension (0,), so the shape's product stays the count. */
    int64_t shape[3] = {3, 0, 4}, s0[3] = {32, 32, 8}, s1[3] = {0, 8, -8};
    int64_t *st[2] = {s0, s1};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 2, st), 1);
    ck_assert_int_eq(shape[0], 0);
    ck_assert_int_eq(s0[0], 0);
    ck_assert_int_eq(s1[0], 0);
  }
  { /* No operands: everything merges. */
    int64_t shape[3] = {2, 3, 4};
    ck_assert_int_eq(nd__collapse_dims(3, shape, 0, NULL), 1);
    ck_assert_int_eq(shape[0], 24);
  }
  { /* Strides whose product overflows do not merge. */
    int64_t shape[2] = {2, 4}, s0[2] = {0, P62};
    int64_t *st[1] = {s0};
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, st), 2);
  }
  { /* Bad arguments: -1, nothing touched. */
    int64_t shape[2] = {2, 3}, s0[2] = {24, 8};
    int64_t *st[1] = {s0}, *stnull[1] = {NULL};
    ck_assert_int_eq(nd__collapse_dims(33, shape, 1, st), -1);
    ck_assert_int_eq(nd__collapse_dims(-1, shape, 1, st), -1);
    ck_assert_int_eq(nd__collapse_dims(2, shape, -1, st), -1);
    ck_assert_int_eq(nd__collapse_dims(2, NULL, 1, st), -1);
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, NULL), -1);
    ck_assert_int_eq(nd__collapse_dims(2, shape, 1, stnull), -1);
    ck_assert_int_eq(shape[0], 2);
    ck_assert_int_eq(s0[0], 24);
  }
}
END_TEST

/* Byte offsets of every element in C order, for operand op. */
static int64_t enumerate_offsets(int ndim, const int64_t *shape, const int64_t *strides,
                                 int64_t *offs) {
  int64_t idx[ND_MAXDIMS] = {0}, n = 0, total = 1;
  for (int i = 0; i < ndim; i++) total *= shape[i];
  for (int64_t k = 0; k < total; k++) {
    int64_t off = 0;
    for (int i = 0; i < ndim; i++) off += idx[i] * strides[i];
    offs[n++] = off;
    for (int i = ndim - 1; i >= 0; i--) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return n;
}

static uint64_t lcg_state = 0x9e3779b97f4a7c15ULL;
static int lcg(int n) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((lcg_state >> 33) % (uint64_t)n);
}

/* Property check against brute force: the collapsed layout visits exactly the same byte
 * offsets in the same order for every operand, keeps no size-1 axis, and leaves no adjacent
 * pair that could still merge. Layouts are contiguous, transposed, sliced, reversed or
 * broadcast so that merges both happen and fail. */
START_TEST(test_collapse_property) {
  enum { MAXN = 4 * 4 * 4 * 4 * 4 };
  static int64_t before[MAXN], after[MAXN];
  for (int trial = 0; trial < 2000; trial++) {
    int ndim = 1 + lcg(5), nops = 1 + lcg(3);
    int64_t shape[5], orig_shape[5], st[3][5], orig[3][5];
    for (int i = 0; i < ndim; i++) shape[i] = orig_shape[i] = 1 + lcg(4);
    for (int op = 0; op < nops; op++) {
      int kind = lcg(5);
      int64_t s = 8 * (kind == 2 ? 2 : 1);
      for (int i = ndim - 1; i >= 0; i--) {
        st[op][i] = s;
        s *= shape[i] + (kind == 3 && i == ndim - 1 ? 1 : 0);
      }
      for (int i = 0; i < ndim; i++) {
        if (kind == 1 && lcg(2)) st[op][i] = -st[op][i];
        if (kind == 4 && lcg(2)) st[op][i] = 0;
      }
      if (kind == 0 && ndim > 1 && lcg(2)) { /* swap two strides: a transposed view */
        int a = lcg(ndim), b = lcg(ndim);
        int64_t t = st[op][a];
        st[op][a] = st[op][b];
        st[op][b] = t;
      }
      for (int i = 0; i < ndim; i++) orig[op][i] = st[op][i];
    }
    int64_t *ptrs[3] = {st[0], st[1], st[2]};
    int nd = nd__collapse_dims(ndim, shape, nops, ptrs);
    ck_assert(nd >= 0 && nd <= ndim);
    for (int i = 0; i < nd; i++) ck_assert_int_gt(shape[i], 1);
    for (int op = 0; op < nops; op++) {
      int64_t n1 = enumerate_offsets(ndim, orig_shape, orig[op], before);
      int64_t n2 = enumerate_offsets(nd, shape, st[op], after);
      ck_assert_int_eq(n1, n2);
      ck_assert_msg(memcmp(before, after, (size_t)n1 * sizeof before[0]) == 0,
                    "trial %d op %d: iteration order changed", trial, op);
    }
    for (int i = 0; i + 1 < nd; i++) {
      int mergeable = 1;
      for (int op = 0; op < nops; op++)
        if (st[op][i] != st[op][i + 1] * shape[i + 1]) mergeable = 0;
      ck_assert_msg(!mergeable, "trial %d: axes %d and %d could still merge", trial, i, i + 1);
    }
  }
}
END_TEST

static Suite *shape_suite(void) {
  Suite *s = suite_create("shape");
  TCase *t = tcase_create("sizes");
  tcase_add_test(t, test_shape_count_values);
  tcase_add_test(t, test_shape_count_errors);
  tcase_add_test(t, test_shape_nbytes);
  tcase_add_test(t, test_strides_c_f);
  tcase_add_test(t, test_contiguity_numpy_table);
  tcase_add_test(t, test_contiguity_hand);
  suite_add_tcase(s, t);
  t = tcase_create("broadcast");
  tcase_add_test(t, test_broadcast_shapes_numpy);
  tcase_add_test(t, test_broadcast_shapes_args);
  tcase_add_test(t, test_broadcast_strides);
  suite_add_tcase(s, t);
  t = tcase_create("axes");
  tcase_add_test(t, test_normalize_axis);
  tcase_add_test(t, test_normalize_axes);
  suite_add_tcase(s, t);
  t = tcase_create("slices");
  tcase_add_test(t, test_slice_python_table);
  tcase_add_test(t, test_slice_named_cases);
  tcase_add_test(t, test_slice_errors);
  suite_add_tcase(s, t);
  t = tcase_create("reshape");
  tcase_add_test(t, test_reshape_infer_numpy);
  tcase_add_test(t, test_reshape_infer_messages);
  tcase_add_test(t, test_reshape_strides_numpy);
  tcase_add_test(t, test_reshape_strides_special);
  suite_add_tcase(s, t);
  t = tcase_create("collapse");
  tcase_add_test(t, test_collapse_hand);
  tcase_add_test(t, test_collapse_property);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(shape_suite()); }
