/* GPU suite for the ndarray core: creation, host transfers, astype, copies and assignment, the
 * copy kernel's paths, and wrapping of foreign device memory.
 *
 * Every result is compared with the host reference (tests/src/nd_ref.c, itself checked by the
 * host suite test_convert_host) over the awkward layouts: offset, transposed, negative and
 * stepped strides, broadcast, zero-size and 0-d. Values that are NumPy's own choices (casts,
 * arange, linspace) come from literal tables generated once with NumPy 2.4; the generators are
 * quoted next to the tables. Runs with CK_FORK=no and exits 77 without a device. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/internal.h"
#include "tests/src/nd_ref.h"

#define OK(expr) ND_ASSERT_OK(expr)

/* Stands in for an output that a failing call must leave alone. */
#define SENTINEL ((nd_array *)(uintptr_t)0x5e71)

/* Asserts status and message of a call whose last argument is &o, and that o is untouched. */
#define FAILS_OUT(status, needle, ...)                                                        \
  do {                                                                                        \
    nd_array *o = SENTINEL;                                                                   \
    ND_ASSERT_FAILS((__VA_ARGS__), status, needle);                                           \
    ck_assert_msg(o == SENTINEL, "%s wrote its output although it failed", #__VA_ARGS__);     \
  } while (0)

static nd_scalar strong_i(nd_dtype dt, int64_t v) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  s.v.i = v;
  return s;
}
static nd_scalar strong_u(nd_dtype dt, uint64_t v) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  s.v.u = v;
  return s;
}
static nd_scalar strong_f(nd_dtype dt, double v) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  s.v.f = v;
  return s;
}
static nd_scalar strong_c(nd_dtype dt, double re, double im) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  s.v.c[0] = re;
  s.v.c[1] = im;
  return s;
}

static int current_device(void) {
  int d = -1;
  ck_assert(cudaGetDevice(&d) == cudaSuccess);
  return d;
}

static int64_t bytes_in_use(void) {
  nd_memory_stats s;
  OK(nd_memory_stats_get(-1, &s));
  return s.bytes_in_use;
}

static void sync_current(void) { OK(nd_stream_synchronize(nd_stream_current())); }

/* Strides NumPy gives a fresh array (C or F). */
static void fresh_strides(int ndim, const int64_t *shape, int64_t item, char order, int64_t *st) {
  int64_t s = item;
  if (order == 'F') {
    for (int i = 0; i < ndim; i++) {
      st[i] = s;
      s *= shape[i];
    }
  } else {
    for (int i = ndim - 1; i >= 0; i--) {
      st[i] = s;
      s *= shape[i];
    }
  }
}

static void expect_strides(const nd_array *a, int ndim, const int64_t *want, const char *ctx) {
  char d[512], w[256];
  ck_assert_msg(nd_array_ndim(a) == ndim &&
                    memcmp(nd_array_strides(a), want, (size_t)ndim * sizeof(int64_t)) == 0,
                "%s: strides of %s, want %s", ctx, nd_ref_describe(a, d, sizeof d),
                nd_ref_shape_str(ndim, want, w, sizeof w));
}

/* A freshly allocated array: geometry, flags, device, data pointer. */
static void expect_new_array(const nd_array *a, nd_dtype dt, int ndim, const int64_t *shape, char order,
                             const char *ctx) {
  char d[512], w[256];
  nd_ref_describe(a, d, sizeof d);
  ck_assert_msg(nd_array_dtype(a) == dt, "%s: %s, want dtype %s", ctx, d, nd_dtype_name(dt));
  ck_assert_msg(nd_array_ndim(a) == ndim && memcmp(nd_array_shape(a), shape, (size_t)ndim * sizeof(int64_t)) == 0,
                "%s: %s, want shape %s", ctx, d, nd_ref_shape_str(ndim, shape, w, sizeof w));
  int64_t size = 1;
  for (int i = 0; i < ndim; i++) size *= shape[i];
  size_t item = nd_dtype_itemsize(dt);
  ck_assert_msg(nd_array_size(a) == size && nd_array_itemsize(a) == item &&
                    nd_array_nbytes(a) == size * (int64_t)item,
                "%s: size %lld itemsize %zu nbytes %lld, want %lld elements of %zu bytes", ctx,
                (long long)nd_array_size(a), nd_array_itemsize(a), (long long)nd_array_nbytes(a),
                (long long)size, item);
  ck_assert_msg(nd_array_offset(a) == 0, "%s: offset %lld", ctx, (long long)nd_array_offset(a));
  ck_assert_msg(nd_array_device(a) == current_device(), "%s: device %d, current %d", ctx,
                nd_array_device(a), current_device());
  int f = nd_array_flags(a);
  ck_assert_msg((f & ND_ARRAY_OWNDATA) && (f & ND_ARRAY_WRITEABLE), "%s: flags of %s", ctx, d);
  ck_assert_msg((f & (order == 'F' ? ND_ARRAY_F_CONTIGUOUS : ND_ARRAY_C_CONTIGUOUS)) != 0,
                "%s: %s is not %c-contiguous", ctx, d, order);
  if (size > 0) {
    /* NumPy zeroes every stride of a zero-size array; ndcuda's are unobservable there. */
    int64_t st[ND_MAXDIMS];
    fresh_strides(ndim, shape, (int64_t)item, order, st);
    expect_strides(a, ndim, st, ctx);
    ck_assert_msg(nd_array_data(a) != NULL, "%s: no data pointer", ctx);
  }
  if (ndim > 0) {
    ck_assert_int_eq(nd_array_dim(a, -1), shape[ndim - 1]);
    ck_assert_int_eq(nd_array_dim(a, 0), shape[0]);
  }
  ck_assert_int_eq(nd_array_dim(a, ndim), -1);
  ck_assert_int_eq(nd_array_dim(a, -ndim - 1), -1);
}

/* Shapes every creation function is run over: 0-d, zero-size, 1-d to 4-d. */
static const struct {
  int ndim;
  int64_t shape[4];
} SHAPES[] = {
    {0, {0}}, {1, {0}}, {3, {3, 0, 2}}, {1, {5}}, {2, {3, 4}}, {3, {2, 3, 4}}, {4, {2, 1, 3, 2}},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

/* ---- creation ------------------------------------------------------------------------------ */

START_TEST(creation_every_dtype_and_shape) {
  const nd_scalar fills[] = {
      nd_scalar_int(-3),           nd_scalar_float(2.5),       nd_scalar_complex(1.5, -2.0),
      strong_i(ND_INT8, -5),       nd_scalar_bool(1),          nd_scalar_float(NAN),
      strong_f(ND_FLOAT16, 0.375), strong_u(ND_UINT64, UINT64_MAX), nd_scalar_float(-0.0),
  };
  for (int t = 0; t < ND_NUM_DTYPES; t++) {
    nd_dtype dt = (nd_dtype)t;
    for (int s = 0; s < NSHAPES; s++) {
      int nd = SHAPES[s].ndim;
      const int64_t *shape = SHAPES[s].shape;
      char ctx[256], sh[128];
      snprintf(ctx, sizeof ctx, "%s %s", nd_dtype_name(dt), nd_ref_shape_str(nd, shape, sh, sizeof sh));
      nd_array *a;
      OK(nd_empty(nd, shape, dt, &a));
      expect_new_array(a, dt, nd, shape, 'C', ctx);
      nd_array_release(a);
      OK(nd_empty_order(nd, shape, dt, ND_ORDER_F, &a));
      expect_new_array(a, dt, nd, shape, 'F', ctx);
      nd_array_release(a);
      OK(nd_empty_order(nd, shape, dt, ND_ORDER_C, &a));
      expect_new_array(a, dt, nd, shape, 'C', ctx);
      nd_array_release(a);

      nd_ref want = nd_ref_new(dt, nd, shape);
      OK(nd_zeros(nd, shape, dt, &a));
      expect_new_array(a, dt, nd, shape, 'C', ctx);
      nd_ref_expect(a, &want, "nd_zeros %s", ctx);
      nd_array_release(a);
      nd_ref_fill(&want, nd_scalar_int(1));
      OK(nd_ones(nd, shape, dt, &a));
      expect_new_array(a, dt, nd, shape, 'C', ctx);
      nd_ref_expect(a, &want, "nd_ones %s", ctx);
      nd_array_release(a);
      for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        char v[128];
        /* A Python int must fit the dtype (NumPy raises OverflowError otherwise; checked
         * below): -3 does not fit an unsigned dtype, so those take 3. */
        const nd_scalar fill = fills[f].dtype == ND_PYINT && nd_dtype_kind(dt) == 'u' ? nd_scalar_int(3) : fills[f];
        nd_ref_fill(&want, fill);
        OK(nd_full(nd, shape, fill, dt, &a));
        expect_new_array(a, dt, nd, shape, 'C', ctx);
        nd_ref_expect(a, &want, "nd_full(%s) %s", nd_ref_format_scalar(fill, v, sizeof v), ctx);
        nd_array_release(a);
      }
      nd_ref_free(&want);
      /* A Python int outside an integer dtype's range is NumPy's OverflowError ("Python
       * integer 256 out of bounds for uint8"): an error, and no output. */
      const char kind = nd_dtype_kind(dt);
      const int bits = (int)nd_dtype_itemsize(dt) * 8;
      if (kind == 'u' || (kind == 'i' && bits < 64)) { /* every Python int in an nd_scalar fits int64 */
        int64_t bad[2] = {kind == 'u' ? -1 : -(INT64_C(1) << (bits - 1)) - 1, 0};
        int nbad = 1;
        if (bits < 64) bad[nbad++] = kind == 'u' ? (INT64_C(1) << bits) : (INT64_C(1) << (bits - 1));
        for (int k = 0; k < nbad; k++) {
          char needle[96];
          snprintf(needle, sizeof needle, "nd_full: Python integer %lld out of bounds for %s",
                   (long long)bad[k], nd_dtype_name(dt));
          FAILS_OUT(ND_ERR_VALUE, needle, nd_full(nd, shape, nd_scalar_int(bad[k]), dt, &o));
        }
      }
    }
  }
}
END_TEST

START_TEST(creation_default_dtypes) {
  /* NumPy: np.full(4, 7).dtype is int64, np.full(4, 0.5) float64, np.full(4, 1+2j)
   * complex128; a NumPy scalar keeps its dtype; np.empty/zeros/ones default to float64. */
  const struct {
    nd_scalar v;
    nd_dtype want;
  } cases[] = {
      {nd_scalar_int(7), ND_INT64},          {nd_scalar_float(0.5), ND_FLOAT64},
      {nd_scalar_complex(1, 2), ND_COMPLEX128}, {nd_scalar_bool(1), ND_BOOL},
      {strong_u(ND_UINT8, 200), ND_UINT8},    {strong_f(ND_FLOAT16, 0.5), ND_FLOAT16},
      {strong_c(ND_COMPLEX64, 1, -1), ND_COMPLEX64},
  };
  int64_t shape[1] = {4};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nd_array *a;
    char v[128];
    nd_ref_format_scalar(cases[i].v, v, sizeof v);
    OK(nd_full(1, shape, cases[i].v, ND_DTYPE_DEFAULT, &a));
    nd_ref want = nd_ref_new(cases[i].want, 1, shape);
    nd_ref_fill(&want, cases[i].v);
    nd_ref_expect(a, &want, "nd_full(%s) with the default dtype", v);
    nd_ref_free(&want);
    nd_array_release(a);
  }
  nd_array *a;
  OK(nd_empty(1, shape, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);
  OK(nd_zeros(1, shape, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array *b;
  OK(nd_empty_like(a, ND_DTYPE_DEFAULT, &b));
  ck_assert_int_eq(nd_array_dtype(b), ND_FLOAT64);
  nd_array_release(b);
  nd_array_release(a);
  OK(nd_ones(1, shape, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);
}
END_TEST

START_TEST(creation_like_keeps_layout) {
  /* Strides as NumPy's empty_like gives them (order='K'):
   *   np.empty((3,4,5), np.float32, order='F')            -> (4, 12, 48); as float64 (8, 24, 96)
   *   np.empty((3,4,5), np.float32).transpose(2, 0, 1)    -> (4, 80, 20)
   *   np.empty((3,4), np.int16)[:, ::-1]                  -> (8, 2)
   *   np.empty((4,6))[:, ::2]                             -> (24, 8)
   *   np.broadcast_to(np.arange(4.), (3, 4))              -> (8, 24) */
  int64_t s3[3] = {3, 4, 5};
  nd_array *f, *a;
  OK(nd_empty_order(3, s3, ND_FLOAT32, ND_ORDER_F, &f));
  OK(nd_empty_like(f, ND_DTYPE_DEFAULT, &a));
  expect_new_array(a, ND_FLOAT32, 3, s3, 'F', "empty_like(F-ordered)");
  nd_array_release(a);
  OK(nd_empty_like(f, ND_FLOAT64, &a));
  const int64_t f64[3] = {8, 24, 96};
  expect_strides(a, 3, f64, "empty_like(F-ordered, float64)");
  nd_array_release(a);
  OK(nd_zeros_like(f, ND_INT16, &a));
  const int64_t f16[3] = {2, 6, 24};
  expect_strides(a, 3, f16, "zeros_like(F-ordered, int16)");
  nd_ref want = nd_ref_new(ND_INT16, 3, s3);
  nd_ref_expect(a, &want, "zeros_like(F-ordered, int16)");
  nd_ref_free(&want);
  nd_array_release(a);
  nd_array_release(f);

  nd_array *c, *t;
  const int64_t perm[3] = {2, 0, 1}, tshape[3] = {5, 3, 4};
  OK(nd_empty(3, s3, ND_FLOAT32, &c));
  OK(nd_array_transpose(c, 3, perm, &t));
  OK(nd_ones_like(t, ND_DTYPE_DEFAULT, &a));
  const int64_t tst[3] = {4, 80, 20};
  expect_strides(a, 3, tst, "ones_like(transposed)");
  ck_assert(!nd_array_shares_buffer(a, t));
  ck_assert(nd_array_flags(a) & ND_ARRAY_OWNDATA);
  want = nd_ref_new(ND_FLOAT32, 3, tshape);
  nd_ref_fill(&want, nd_scalar_int(1));
  nd_ref_expect(a, &want, "ones_like(transposed)");
  nd_ref_free(&want);
  nd_array_release(a);
  OK(nd_full_like(t, nd_scalar_float(-2.5), ND_FLOAT64, &a));
  const int64_t tst64[3] = {8, 160, 40};
  expect_strides(a, 3, tst64, "full_like(transposed, float64)");
  want = nd_ref_new(ND_FLOAT64, 3, tshape);
  nd_ref_fill(&want, nd_scalar_float(-2.5));
  nd_ref_expect(a, &want, "full_like(transposed, float64)");
  nd_ref_free(&want);
  nd_array_release(a);
  nd_array_release(t);
  nd_array_release(c);

  int64_t s2[2] = {3, 4};
  OK(nd_empty(2, s2, ND_INT16, &c));
  const int64_t ax1 = 1;
  OK(nd_array_flip(c, 1, &ax1, &t));
  OK(nd_empty_like(t, ND_DTYPE_DEFAULT, &a));
  const int64_t neg[2] = {8, 2};
  expect_strides(a, 2, neg, "empty_like(a[:, ::-1])");
  nd_array_release(a);
  nd_array_release(t);
  nd_array_release(c);

  int64_t s46[2] = {4, 6};
  nd_slice every2[2] = {ND_SLICE_ALL, {ND_NONE, ND_NONE, 2}};
  OK(nd_empty(2, s46, ND_FLOAT64, &c));
  OK(nd_array_slice(c, 2, every2, &t));
  OK(nd_zeros_like(t, ND_DTYPE_DEFAULT, &a));
  const int64_t step[2] = {24, 8};
  expect_strides(a, 2, step, "zeros_like(a[:, ::2])");
  nd_array_release(a);
  nd_array_release(t);
  nd_array_release(c);

  int64_t four = 4, s34[2] = {3, 4};
  OK(nd_empty(1, &four, ND_FLOAT64, &c));
  OK(nd_array_broadcast_to(c, 2, s34, &t));
  OK(nd_empty_like(t, ND_DTYPE_DEFAULT, &a));
  const int64_t bst[2] = {8, 24};
  expect_strides(a, 2, bst, "empty_like(broadcast_to((4,), (3, 4)))");
  ck_assert(nd_array_flags(a) & ND_ARRAY_WRITEABLE); /* a fresh array, not a broadcast */
  nd_array_release(a);
  nd_array_release(t);
  nd_array_release(c);

  /* 0-d and zero-size prototypes keep their shapes. */
  int64_t z[2] = {0, 3};
  OK(nd_empty(0, NULL, ND_UINT8, &c));
  /* NumPy: full_like(uint8 array, 300) is OverflowError "Python integer 300 out of bounds". */
  a = (nd_array *)0x1;
  ND_ASSERT_FAILS(nd_full_like(c, nd_scalar_int(300), ND_DTYPE_DEFAULT, &a), ND_ERR_VALUE,
                  "nd_full_like: Python integer 300 out of bounds for uint8");
  ck_assert_ptr_eq(a, (nd_array *)0x1);
  OK(nd_full_like(c, nd_scalar_int(200), ND_DTYPE_DEFAULT, &a));
  want = nd_ref_new(ND_UINT8, 0, NULL);
  nd_ref_fill(&want, nd_scalar_int(200));
  nd_ref_expect(a, &want, "full_like(0-d uint8, 200)");
  nd_ref_free(&want);
  nd_array_release(a);
  nd_array_release(c);
  OK(nd_empty(2, z, ND_COMPLEX64, &c));
  OK(nd_ones_like(c, ND_DTYPE_DEFAULT, &a));
  expect_new_array(a, ND_COMPLEX64, 2, z, 'C', "ones_like(zero-size)");
  nd_array_release(a);

  /* Errors name the function the caller used. */
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_zeros_like", nd_zeros_like(NULL, ND_DTYPE_DEFAULT, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_empty_like", nd_empty_like(NULL, ND_DTYPE_DEFAULT, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_ones_like", nd_ones_like(c, (nd_dtype)99, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_full_like", nd_full_like(c, strong_i((nd_dtype)42, 1), ND_DTYPE_DEFAULT, &o));
  ND_ASSERT_FAILS(nd_empty_like(c, ND_FLOAT32, NULL), ND_ERR_NULL_POINTER, "nd_empty_like");
  nd_array_release(c);
}
END_TEST

START_TEST(creation_bad_inputs) {
  int64_t base = bytes_in_use();
  int64_t ok2[2] = {2, 3}, neg[2] = {2, -1}, big[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  int64_t big_bytes[2] = {INT64_C(1) << 31, INT64_C(1) << 31}, many[ND_MAXDIMS + 1];
  for (int i = 0; i <= ND_MAXDIMS; i++) many[i] = 1;
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_empty: negative dimensions", nd_empty(2, neg, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "ndim 33", nd_empty(ND_MAXDIMS + 1, many, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "ndim -1", nd_empty(-1, ok2, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_empty", nd_empty(2, NULL, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_empty: array is too big", nd_empty(2, big, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_empty", nd_empty(2, big_bytes, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_empty: argument 'dtype'", nd_empty(2, ok2, (nd_dtype)99, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_empty", nd_empty(2, ok2, ND_PYFLOAT, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_empty", nd_empty_order(2, ok2, ND_FLOAT32, ND_ORDER_K, &o));
  ND_ASSERT_FAILS(nd_empty(2, ok2, ND_FLOAT32, NULL), ND_ERR_NULL_POINTER, "'out'");
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_zeros", nd_zeros(2, neg, ND_INT8, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_ones", nd_ones(2, big, ND_INT8, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_full", nd_full(2, ok2, strong_i((nd_dtype)77, 1), ND_DTYPE_DEFAULT, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_full", nd_full(2, ok2, nd_scalar_int(1), (nd_dtype)14, &o));

  /* Host transfers: the byte count must match exactly; NULL only for empty data. */
  float host[6] = {0};
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_from_host: host buffer of 20 bytes",
            nd_array_from_host(host, 20, 2, ok2, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "(24 bytes)", nd_array_from_host(host, 28, 2, ok2, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_from_host", nd_array_from_host(NULL, 24, 2, ok2, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_array_from_host", nd_array_from_host(host, 24, 2, ok2, (nd_dtype)-7, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_from_host", nd_array_from_host(host, 24, 2, neg, ND_FLOAT32, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_array_from_host", nd_array_from_host(host, 24, 2, big, ND_FLOAT32, &o));
  ND_ASSERT_FAILS(nd_array_from_host(host, 24, 2, ok2, ND_FLOAT32, NULL), ND_ERR_NULL_POINTER, "nd_array_from_host");
  int64_t zero = 0;
  nd_array *a;
  OK(nd_array_from_host(NULL, 0, 1, &zero, ND_FLOAT32, &a));
  ck_assert_int_eq(nd_array_size(a), 0);
  OK(nd_array_to_host(a, NULL, 0));
  nd_array_release(a);
  OK(nd_array_from_host(host, 24, 2, ok2, ND_FLOAT32, &a));
  ND_ASSERT_FAILS(nd_array_to_host(a, host, 23), ND_ERR_INVALID_ARGUMENT, "nd_array_to_host: host buffer of 23 bytes");
  ND_ASSERT_FAILS(nd_array_to_host(a, NULL, 24), ND_ERR_NULL_POINTER, "nd_array_to_host");
  ND_ASSERT_FAILS(nd_array_to_host(NULL, host, 24), ND_ERR_NULL_POINTER, "nd_array_to_host");
  nd_array_release(a);
  ck_assert_msg(bytes_in_use() == base, "failed creations leaked: %lld bytes in use, %lld before",
                (long long)bytes_in_use(), (long long)base);
}
END_TEST

/* ---- sequences ------------------------------------------------------------------------------- */

/* NumPy 2.4: np.arange(start, stop, step, dtype=dt), printed with repr. Integer dtypes with a
 * float step follow NumPy's fill from the first two elements (0.5, 5, 1.5 gives 0, 2, 4), and
 * float64 uses its step (start + step) - start (1, 2, 0.1 ends in 1.9000000000000008). */
static const struct {
  double start, stop, step;
  nd_dtype dt;
  int n;
  double want[16];
} ARANGE[] = {
    {0.0, 5.0, 1.0, ND_FLOAT64, 5, {0.0, 1.0, 2.0, 3.0, 4.0}},
    {1.0, 2.0, 0.1, ND_FLOAT64, 10, {1.0, 1.1, 1.2000000000000002, 1.3000000000000003, 1.4000000000000004, 1.5000000000000004, 1.6000000000000005, 1.7000000000000006, 1.8000000000000007, 1.9000000000000008}},
    {10.0, 0.0, -1.5, ND_FLOAT64, 7, {10.0, 8.5, 7.0, 5.5, 4.0, 2.5, 1.0}},
    {0.5, 3.7, 0.3, ND_FLOAT64, 11, {0.5, 0.8, 1.1, 1.4000000000000001, 1.7000000000000002, 2.0, 2.3000000000000003, 2.6000000000000005, 2.9000000000000004, 3.2, 3.5000000000000004}},
    {2.5, -2.5, -0.5, ND_FLOAT64, 10, {2.5, 2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0, -1.5, -2.0}},
    {10000000000.0, 10000000001.0, 0.1, ND_FLOAT64, 10, {10000000000.0, 10000000000.1, 10000000000.2, 10000000000.300001, 10000000000.400002, 10000000000.500002, 10000000000.600002, 10000000000.700003, 10000000000.800003, 10000000000.900003}},
    {0.1, 1.0, 0.7, ND_FLOAT64, 2, {0.1, 0.7999999999999999}},
    {100.0, 0.0, -7.3, ND_FLOAT64, 14, {100.0, 92.7, 85.4, 78.10000000000001, 70.80000000000001, 63.500000000000014, 56.20000000000002, 48.90000000000002, 41.60000000000002, 34.300000000000026, 27.00000000000003, 19.70000000000003, 12.400000000000034, 5.100000000000037}},
    {0.0, 0.0, 1.0, ND_FLOAT64, 0, {0}},
    {5.0, 0.0, 1.0, ND_FLOAT64, 0, {0}},
    {0.0, 1.0, 2.0, ND_FLOAT64, 1, {0.0}},
    {0.1, 0.2, 0.7, ND_FLOAT64, 1, {0.1}},
    {0.0, 4.0, 0.5, ND_FLOAT32, 8, {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5}},
    {-2.0, 2.0, 0.25, ND_FLOAT16, 16, {-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75}},
    {0.0, 2.0, 0.5, ND_COMPLEX128, 4, {0.0, 0.5, 1.0, 1.5}},
    {0.5, 5.0, 1.5, ND_INT64, 3, {0.0, 2.0, 4.0}},
    {-2.5, 3.0, 1.2, ND_INT32, 5, {-2.0, -1.0, 0.0, 1.0, 2.0}},
    {10.0, 0.0, -2.5, ND_INT16, 4, {10.0, 7.0, 4.0, 1.0}},
    {0.0, 10.0, 2.7, ND_UINT8, 4, {0.0, 2.0, 4.0, 6.0}},
    {-3.7, 2.0, 1.0, ND_INT64, 6, {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0}},
    {0.9, 4.2, 0.9, ND_INT8, 4, {0.0, 1.0, 2.0, 3.0}},
};

/* np.linspace(start, stop, num, endpoint=endpoint, dtype=dt). Integer dtypes take the floor. */
static const struct {
  double start, stop;
  int64_t num;
  int endpoint;
  nd_dtype dt;
  double want[16];
} LINSPACE[] = {
    {0.0, 1.0, 5, 1, ND_FLOAT64, {0.0, 0.25, 0.5, 0.75, 1.0}},
    {0.0, 1.0, 5, 0, ND_FLOAT64, {0.0, 0.2, 0.4, 0.6000000000000001, 0.8}},
    {2.5, -7.25, 6, 1, ND_FLOAT64, {2.5, 0.55, -1.4, -3.3499999999999996, -5.3, -7.25}},
    {0.0, 1.0, 10, 1, ND_FLOAT64, {0.0, 0.1111111111111111, 0.2222222222222222, 0.3333333333333333, 0.4444444444444444, 0.5555555555555556, 0.6666666666666666, 0.7777777777777777, 0.8888888888888888, 1.0}},
    {-1.0, 1.0, 7, 0, ND_FLOAT64, {-1.0, -0.7142857142857143, -0.4285714285714286, -0.1428571428571429, 0.1428571428571428, 0.4285714285714284, 0.7142857142857142}},
    {1.0, 0.001, 4, 1, ND_FLOAT64, {1.0, 0.667, 0.33399999999999996, 0.001}},
    {0.1, 0.7, 13, 1, ND_FLOAT64, {0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.44999999999999996, 0.5, 0.5499999999999999, 0.6, 0.6499999999999999, 0.7}},
    {0.0, 1.0, 0, 1, ND_FLOAT64, {0}},
    {3.0, 7.0, 1, 1, ND_FLOAT64, {3.0}},
    {3.0, 7.0, 1, 0, ND_FLOAT64, {3.0}},
    {0.0, 1.0, 7, 1, ND_FLOAT32, {0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666865348816, 0.8333333134651184, 1.0}},
    {0.0, 1.0, 9, 1, ND_FLOAT16, {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0}},
    {-1.0, 1.0, 5, 1, ND_INT64, {-1.0, -1.0, 0.0, 0.0, 1.0}},
    {2.5, -7.25, 6, 1, ND_INT16, {2.0, 0.0, -2.0, -4.0, -6.0, -8.0}},
    {0.0, 1.0, 7, 0, ND_INT32, {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
    {0.0, 10.0, 4, 1, ND_UINT8, {0.0, 3.0, 6.0, 10.0}},
    {0.0, 1.0, 3, 1, ND_COMPLEX128, {0.0, 0.5, 1.0}},
};

static nd_ref ref_from_doubles(nd_dtype dt, int64_t n, const double *v) {
  nd_ref r = nd_ref_new(dt, 1, &n);
  for (int64_t i = 0; i < n; i++) nd_ref_set(&r, i, nd_scalar_float(v[i]));
  return r;
}

START_TEST(creation_arange) {
  for (size_t i = 0; i < sizeof ARANGE / sizeof ARANGE[0]; i++) {
    nd_array *a;
    OK(nd_arange(ARANGE[i].start, ARANGE[i].stop, ARANGE[i].step, ARANGE[i].dt, &a));
    nd_ref want = ref_from_doubles(ARANGE[i].dt, ARANGE[i].n, ARANGE[i].want);
    nd_ref_expect(a, &want, "nd_arange(%.17g, %.17g, %.17g, %s)", ARANGE[i].start, ARANGE[i].stop,
                  ARANGE[i].step, nd_dtype_name(ARANGE[i].dt));
    expect_new_array(a, ARANGE[i].dt, 1, want.shape, 'C', "nd_arange");
    nd_ref_free(&want);
    nd_array_release(a);
  }
  /* Default dtypes: float64 and int64. */
  nd_array *a;
  OK(nd_arange(0, 3, 1, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);
  OK(nd_arange_int(0, 3, 1, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_INT64);
  nd_array_release(a);

  /* Exact integer sequences, NumPy's length ceil((stop - start) / step) without overflow. */
  static const struct {
    int64_t start, stop, step;
    nd_dtype dt;
    int n;
    int64_t want[6];
  } ints[] = {
      {0, 10, 3, ND_INT64, 4, {0, 3, 6, 9}},
      {10, 0, -3, ND_INT64, 4, {10, 7, 4, 1}},
      {-5, 5, 2, ND_INT8, 5, {-5, -3, -1, 1, 3}},
      {0, 300, 100, ND_UINT8, 3, {0, 100, 200}},
      {0, 5, 1, ND_FLOAT32, 5, {0, 1, 2, 3, 4}},
      {0, 7, 2, ND_FLOAT16, 4, {0, 2, 4, 6}},
      {0, 2, 1, ND_COMPLEX64, 2, {0, 1}},
      {INT64_MAX - 2, INT64_MAX, 1, ND_INT64, 2, {INT64_MAX - 2, INT64_MAX - 1}},
      {INT64_MIN, INT64_MIN + 3, 1, ND_INT64, 3, {INT64_MIN, INT64_MIN + 1, INT64_MIN + 2}},
      {INT64_MAX, INT64_MIN, INT64_MIN, ND_INT64, 2, {INT64_MAX, -1}},
      {5, 5, 1, ND_INT64, 0, {0}},
      {5, 0, 1, ND_INT16, 0, {0}},
      {0, 10, INT64_MAX, ND_INT64, 1, {0}},
      {-1, -10, -4, ND_INT32, 3, {-1, -5, -9}},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    OK(nd_arange_int(ints[i].start, ints[i].stop, ints[i].step, ints[i].dt, &a));
    int64_t n = ints[i].n;
    nd_ref want = nd_ref_new(ints[i].dt, 1, &n);
    for (int k = 0; k < ints[i].n; k++) nd_ref_set(&want, k, nd_scalar_int(ints[i].want[k]));
    nd_ref_expect(a, &want, "nd_arange_int(%lld, %lld, %lld, %s)", (long long)ints[i].start,
                  (long long)ints[i].stop, (long long)ints[i].step, nd_dtype_name(ints[i].dt));
    nd_ref_free(&want);
    nd_array_release(a);
  }

  FAILS_OUT(ND_ERR_VALUE, "nd_arange: step must not be zero", nd_arange(0, 1, 0, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_arange", nd_arange(NAN, 1, 1, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_arange", nd_arange(0, INFINITY, 1, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_arange", nd_arange(0, 1e300, 1e-300, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_arange", nd_arange(0, 5, 1, (nd_dtype)99, &o));
  ND_ASSERT_FAILS(nd_arange(0, 5, 1, ND_FLOAT64, NULL), ND_ERR_NULL_POINTER, "nd_arange");
  FAILS_OUT(ND_ERR_VALUE, "nd_arange_int: step must not be zero", nd_arange_int(0, 1, 0, ND_INT64, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_arange_int", nd_arange_int(INT64_MIN, INT64_MAX, 1, ND_INT64, &o));
  FAILS_OUT(ND_ERR_OVERFLOW, "nd_arange_int", nd_arange_int(0, INT64_MAX, 1, ND_INT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_arange_int", nd_arange_int(0, 5, 1, ND_PYINT, &o));
}
END_TEST

START_TEST(creation_linspace) {
  for (size_t i = 0; i < sizeof LINSPACE / sizeof LINSPACE[0]; i++) {
    nd_array *a;
    OK(nd_linspace(LINSPACE[i].start, LINSPACE[i].stop, LINSPACE[i].num, LINSPACE[i].endpoint, LINSPACE[i].dt, &a));
    nd_ref want = ref_from_doubles(LINSPACE[i].dt, LINSPACE[i].num, LINSPACE[i].want);
    nd_ref_expect(a, &want, "nd_linspace(%.17g, %.17g, %lld, endpoint=%d, %s)", LINSPACE[i].start,
                  LINSPACE[i].stop, (long long)LINSPACE[i].num, LINSPACE[i].endpoint,
                  nd_dtype_name(LINSPACE[i].dt));
    nd_ref_free(&want);
    nd_array_release(a);
  }
  nd_array *a;
  OK(nd_linspace(0, 1, 3, 1, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);
  FAILS_OUT(ND_ERR_VALUE, "nd_linspace: number of samples, -1", nd_linspace(0, 1, -1, 1, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_linspace", nd_linspace(0, 1, 3, 1, (nd_dtype)20, &o));
  ND_ASSERT_FAILS(nd_linspace(0, 1, 3, 1, ND_FLOAT64, NULL), ND_ERR_NULL_POINTER, "nd_linspace");
}
END_TEST

/* ---- eye, tri, tril/triu, diag --------------------------------------------------------------- */

static const nd_dtype SOME_DTYPES[] = {ND_BOOL, ND_INT8, ND_UINT16, ND_INT64, ND_FLOAT16,
                                       ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
#define NSOME ((int)(sizeof SOME_DTYPES / sizeof SOME_DTYPES[0]))

/* Sets element (i, j) of a 2-d reference to 1 where keep(j - i, k), else 0. */
static nd_ref ref_band(nd_dtype dt, int64_t n, int64_t m, int64_t k, int lower_tri) {
  int64_t shape[2] = {n, m};
  nd_ref r = nd_ref_new(dt, 2, shape);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      int one = lower_tri ? (j - i <= k) : (j - i == k);
      int64_t idx[2] = {i, j};
      nd_ref_store(dt, nd_ref_ptr(&r, idx), nd_scalar_int(one));
    }
  return r;
}

START_TEST(creation_eye_identity_tri) {
  static const struct {
    int64_t n, m, k;
  } cases[] = {{3, 3, 0}, {3, 5, 1}, {4, 2, -1}, {3, 3, 5}, {3, 3, -3}, {0, 0, 0},
               {3, -1, -2}, {1, 1, 0}, {5, 4, -4}, {2, 6, 5}, {2, 6, 6}, {4, 0, 0}};
  for (int t = 0; t < NSOME; t++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      nd_dtype dt = SOME_DTYPES[t];
      int64_t n = cases[c].n, m = cases[c].m < 0 ? n : cases[c].m, k = cases[c].k;
      nd_array *a;
      OK(nd_eye(cases[c].n, cases[c].m, k, dt, &a));
      nd_ref want = ref_band(dt, n, m, k, 0);
      nd_ref_expect(a, &want, "nd_eye(%lld, %lld, k=%lld, %s)", (long long)cases[c].n,
                    (long long)cases[c].m, (long long)k, nd_dtype_name(dt));
      expect_new_array(a, dt, 2, want.shape, 'C', "nd_eye");
      nd_ref_free(&want);
      nd_array_release(a);
      OK(nd_tri(cases[c].n, cases[c].m, k, dt, &a));
      want = ref_band(dt, n, m, k, 1);
      nd_ref_expect(a, &want, "nd_tri(%lld, %lld, k=%lld, %s)", (long long)cases[c].n,
                    (long long)cases[c].m, (long long)k, nd_dtype_name(dt));
      nd_ref_free(&want);
      nd_array_release(a);
    }
  nd_array *a;
  OK(nd_identity(4, ND_INT32, &a));
  nd_ref want = ref_band(ND_INT32, 4, 4, 0, 0);
  nd_ref_expect(a, &want, "nd_identity(4, int32)");
  nd_ref_free(&want);
  nd_array_release(a);
  OK(nd_eye(2, -1, 0, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);
  OK(nd_tri(2, -1, 0, ND_DTYPE_DEFAULT, &a));
  ck_assert_int_eq(nd_array_dtype(a), ND_FLOAT64);
  nd_array_release(a);

  FAILS_OUT(ND_ERR_VALUE, "nd_eye", nd_eye(-1, 3, 0, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_eye", nd_eye(3, 3, 0, (nd_dtype)99, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_tri", nd_tri(-2, 3, 0, ND_FLOAT64, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_tri", nd_tri(2, 3, 0, ND_PYINT, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_identity", nd_identity(2, ND_PYFLOAT, &o));
  ND_ASSERT_FAILS(nd_eye(2, 2, 0, ND_FLOAT64, NULL), ND_ERR_NULL_POINTER, "nd_eye");
}
END_TEST

/* Zeroes, in place, the elements of the last two axes with j - i > k (lower) or < k (upper). */
static void ref_mask(nd_ref *r, int lower, int64_t k) {
  int64_t idx[ND_MAXDIMS];
  for (int64_t f = 0; f < r->size; f++) {
    nd_ref_unravel(r->ndim, r->shape, f, idx);
    int64_t d = idx[r->ndim - 1] - idx[r->ndim - 2];
    if (lower ? d > k : d < k) nd_ref_set(r, f, nd_scalar_int(0));
  }
}

static void check_tri_of(const nd_array *a, const nd_ref *ra, const char *what) {
  static const int64_t ks[] = {-10, -2, -1, 0, 1, 3, 10};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    for (int lower = 0; lower < 2; lower++) {
      nd_array *t;
      OK(lower ? nd_tril(a, ks[i], &t) : nd_triu(a, ks[i], &t));
      nd_ref want = nd_ref_copy(ra);
      ref_mask(&want, lower, ks[i]);
      nd_ref_expect(t, &want, "%s(%s, k=%lld)", lower ? "nd_tril" : "nd_triu", what, (long long)ks[i]);
      ck_assert_msg(!nd_array_shares_buffer(t, a), "%s: result shares the input's buffer", what);
      ck_assert(nd_array_is_c_contiguous(t));
      nd_ref_free(&want);
      nd_array_release(t);
    }
}

START_TEST(creation_tril_triu) {
  static const nd_dtype dts[] = {ND_FLOAT32, ND_INT8, ND_COMPLEX128, ND_BOOL, ND_FLOAT16};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      if (l == ND_REF_SCALAR) continue;
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, dts[t], 4, 5, 3, &L);
      char what[128];
      snprintf(what, sizeof what, "%s %s (4, 5)", nd_dtype_name(dts[t]), L.name);
      check_tri_of(L.array, &L.ref, what);
      nd_ref_layout_free(&L);
    }
  /* Batched: (2, 3, 4) contiguous and a (3, 2, 4) array with its first two axes swapped. */
  int64_t s3[3] = {2, 3, 4}, s3b[3] = {3, 2, 4};
  nd_ref r = nd_ref_new(ND_FLOAT64, 3, s3);
  nd_ref_fill_pattern(&r, 1);
  nd_array *a = nd_ref_upload(&r);
  check_tri_of(a, &r, "float64 (2, 3, 4)");
  nd_array_release(a);
  nd_ref_free(&r);
  r = nd_ref_new(ND_INT32, 3, s3b);
  nd_ref_fill_pattern(&r, 5);
  a = nd_ref_upload(&r);
  nd_array *v;
  const int64_t perm[3] = {1, 0, 2};
  const int permi[3] = {1, 0, 2};
  OK(nd_array_transpose(a, 3, perm, &v));
  nd_ref rv = nd_ref_permute(&r, permi);
  check_tri_of(v, &rv, "int32 (3, 2, 4).transpose(1, 0, 2)");
  nd_array_release(v);

  int64_t one = 3;
  nd_array *one_d, *zero_d;
  OK(nd_zeros(1, &one, ND_FLOAT32, &one_d));
  OK(nd_zeros(0, NULL, ND_FLOAT32, &zero_d));
  FAILS_OUT(ND_ERR_SHAPE, "nd_tril", nd_tril(one_d, 0, &o));
  FAILS_OUT(ND_ERR_SHAPE, "nd_triu", nd_triu(zero_d, 0, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_tril", nd_tril(NULL, 0, &o));
  ND_ASSERT_FAILS(nd_triu(a, 0, NULL), ND_ERR_NULL_POINTER, "nd_triu");
  nd_array_release(one_d);
  nd_array_release(zero_d);
  nd_array_release(a);
  nd_ref_free(&r);
}
END_TEST

START_TEST(creation_diag) {
  static const nd_dtype dts[] = {ND_FLOAT64, ND_INT32, ND_COMPLEX64, ND_BOOL};
  static const int64_t k1[] = {0, 1, -2, 4};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
    /* 1-d input (contiguous, reversed, stepped) -> a matrix with it on diagonal k. */
    int64_t eight = 8;
    nd_ref base = nd_ref_new(dts[t], 1, &eight);
    nd_ref_fill_pattern(&base, 2);
    nd_array *dbase = nd_ref_upload(&base);
    for (int form = 0; form < 3; form++) {
      nd_slice sl = form == 0 ? (nd_slice){2, 6, ND_NONE} : form == 1 ? (nd_slice){5, 1, -1} : (nd_slice){1, ND_NONE, 2};
      nd_array *v;
      OK(nd_array_slice(dbase, 1, &sl, &v));
      nd_ref rv = nd_ref_slice(&base, 1, &sl);
      for (size_t i = 0; i < sizeof k1 / sizeof k1[0]; i++) {
        int64_t k = k1[i], n = rv.shape[0] + (k < 0 ? -k : k);
        int64_t shape[2] = {n, n};
        nd_ref want = nd_ref_new(dts[t], 2, shape);
        for (int64_t e = 0; e < rv.shape[0]; e++) {
          int64_t idx[2] = {k >= 0 ? e : e - k, k >= 0 ? e + k : e};
          memcpy(nd_ref_ptr(&want, idx), nd_ref_flat(&rv, e), want.itemsize);
        }
        nd_array *d;
        OK(nd_diag(v, k, &d));
        nd_ref_expect(d, &want, "nd_diag(1-d %s form %d, k=%lld)", nd_dtype_name(dts[t]), form, (long long)k);
        nd_ref_free(&want);
        nd_array_release(d);
      }
      nd_array_release(v);
    }
    nd_array_release(dbase);
    nd_ref_free(&base);

    /* 2-d input in several layouts -> a copy of diagonal k. */
    static const int64_t k2[] = {-3, -2, -1, 0, 1, 4, 5, 6};
    static const nd_ref_layout_kind ls[] = {ND_REF_CONTIG, ND_REF_TRANSPOSED, ND_REF_NEGATIVE, ND_REF_OFFSET,
                                            ND_REF_STEPPED};
    for (size_t l = 0; l < sizeof ls / sizeof ls[0]; l++) {
      nd_ref_layout L;
      nd_ref_layout_make(ls[l], dts[t], 3, 5, 7, &L);
      for (size_t i = 0; i < sizeof k2 / sizeof k2[0]; i++) {
        int64_t k = k2[i];
        int64_t len = k >= 0 ? (5 - k < 3 ? 5 - k : 3) : (3 + k < 5 ? 3 + k : 5);
        if (len < 0) len = 0;
        nd_ref want = nd_ref_new(dts[t], 1, &len);
        for (int64_t e = 0; e < len; e++) {
          int64_t idx[2] = {k >= 0 ? e : e - k, k >= 0 ? e + k : e};
          memcpy(nd_ref_flat(&want, e), nd_ref_ptr(&L.ref, idx), want.itemsize);
        }
        nd_array *d;
        OK(nd_diag(L.array, k, &d));
        nd_ref_expect(d, &want, "nd_diag(%s %s (3, 5), k=%lld)", nd_dtype_name(dts[t]), L.name, (long long)k);
        ck_assert(!nd_array_shares_buffer(d, L.array));
        ck_assert(nd_array_flags(d) & ND_ARRAY_WRITEABLE);
        nd_ref_free(&want);
        nd_array_release(d);
      }
      nd_ref_layout_free(&L);
    }
  }
  int64_t s3[3] = {2, 2, 2};
  nd_array *a, *z;
  OK(nd_zeros(3, s3, ND_FLOAT32, &a));
  OK(nd_zeros(0, NULL, ND_FLOAT32, &z));
  FAILS_OUT(ND_ERR_SHAPE, "nd_diag", nd_diag(a, 0, &o));
  FAILS_OUT(ND_ERR_SHAPE, "nd_diag", nd_diag(z, 0, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_diag", nd_diag(NULL, 0, &o));
  nd_array_release(a);
  nd_array_release(z);
}
END_TEST

/* ---- host transfers ------------------------------------------------------------------------- */

START_TEST(transfer_round_trip_every_dtype) {
  for (int t = 0; t < ND_NUM_DTYPES; t++)
    for (int s = 0; s < NSHAPES; s++) {
      nd_dtype dt = (nd_dtype)t;
      int nd = SHAPES[s].ndim;
      const int64_t *shape = SHAPES[s].shape;
      char ctx[256], sh[128];
      snprintf(ctx, sizeof ctx, "%s %s", nd_dtype_name(dt), nd_ref_shape_str(nd, shape, sh, sizeof sh));
      nd_ref r = nd_ref_new(dt, nd, shape);
      nd_ref_fill_pattern(&r, 11);
      nd_array *a = nd_ref_upload(&r);
      expect_new_array(a, dt, nd, shape, 'C', ctx);
      nd_ref_expect(a, &r, "round trip of %s", ctx);
      /* A larger host buffer is accepted; only the array's bytes are written. */
      size_t nb = (size_t)r.size * r.itemsize;
      unsigned char *h = malloc(nb + 32);
      ck_assert(h != NULL);
      memset(h, 0xab, nb + 32);
      OK(nd_array_to_host(a, h, nb + 32));
      ck_assert_msg(memcmp(h, r.data, nb) == 0, "%s: bytes differ", ctx);
      for (size_t i = nb; i < nb + 32; i++)
        ck_assert_msg(h[i] == 0xab, "%s: byte %zu past the data was written", ctx, i);
      free(h);
      nd_array_release(a);
      nd_ref_free(&r);
    }
}
END_TEST

START_TEST(transfer_to_host_of_views) {
  static const nd_dtype dts[] = {ND_BOOL, ND_INT8, ND_FLOAT16, ND_INT32, ND_FLOAT64, ND_COMPLEX128};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, dts[t], 5, 7, 13, &L);
      nd_ref_expect(L.array, &L.ref, "nd_array_to_host of a %s %s view", nd_dtype_name(dts[t]), L.name);
      nd_ref_layout_free(&L);
    }
  /* A 3-d view that is transposed, offset, stepped and reversed at once. */
  int64_t s3[3] = {4, 5, 6};
  nd_ref r = nd_ref_new(ND_FLOAT32, 3, s3);
  nd_ref_fill_pattern(&r, 3);
  nd_array *a = nd_ref_upload(&r), *t, *v;
  const int64_t perm[3] = {2, 0, 1};
  const int permi[3] = {2, 0, 1};
  nd_slice sl[3] = {{ND_NONE, ND_NONE, -2}, {1, ND_NONE, ND_NONE}, {ND_NONE, ND_NONE, 3}};
  OK(nd_array_transpose(a, 3, perm, &t));
  OK(nd_array_slice(t, 3, sl, &v));
  nd_ref rt = nd_ref_permute(&r, permi);
  nd_ref rv = nd_ref_slice(&rt, 3, sl);
  nd_ref_expect(v, &rv, "a.transpose(2, 0, 1)[::-2, 1:, ::3]");
  nd_array_release(v);
  nd_array_release(t);
  nd_array_release(a);
  nd_ref_free(&r);
}
END_TEST

START_TEST(transfer_async_pinned) {
  void *pin = NULL, *none = SENTINEL;
  OK(nd_host_alloc_pinned(1 << 16, &pin));
  ck_assert(pin != NULL);
  ck_assert_int_eq(nd_host_is_pinned(pin), 1);
  ck_assert_int_eq(nd_host_is_pinned((char *)pin + 100), 1);
  unsigned char *pageable = malloc(1 << 16);
  ck_assert(pageable != NULL);
  ck_assert_int_eq(nd_host_is_pinned(pageable), 0);
  ck_assert_int_eq(nd_host_is_pinned(NULL), 0);
  OK(nd_host_alloc_pinned(0, &none));
  ck_assert(none == NULL);
  ND_ASSERT_FAILS(nd_host_alloc_pinned(16, NULL), ND_ERR_NULL_POINTER, "nd_host_alloc_pinned");
  OK(nd_host_free_pinned(NULL));

  static const nd_dtype dts[] = {ND_FLOAT32, ND_COMPLEX64, ND_INT8};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, dts[t], 6, 9, 21, &L);
      size_t nb = (size_t)L.ref.size * L.ref.itemsize;
      /* Device to pinned host, then wait on the stream. */
      memset(pin, 0xcd, nb);
      OK(nd_array_to_host_async(L.array, pin, nb));
      sync_current();
      nd_ref got = nd_ref_new(dts[t], L.ref.ndim, L.ref.shape);
      if (nb > 0) memcpy(got.data, pin, nb);
      nd_ref_expect_ref(&got, &L.ref, "nd_array_to_host_async of a %s %s view", nd_dtype_name(dts[t]), L.name);
      nd_ref_free(&got);
      ND_ASSERT_FAILS(nd_array_to_host_async(L.array, pageable, nb), nb ? ND_ERR_INVALID_ARGUMENT : ND_OK,
                      nb ? "pageable" : "");
      /* Pinned host into the (writeable) view; the rest of the base must stay as it was. */
      if (l == ND_REF_BROADCAST) {
        ND_ASSERT_FAILS(nd_array_from_host_async(L.array, pin, nb), ND_ERR_READ_ONLY, "nd_array_from_host_async");
      } else {
        nd_ref src = nd_ref_new(dts[t], L.ref.ndim, L.ref.shape);
        nd_ref_fill_pattern(&src, 1000);
        if (nb > 0) memcpy(pin, src.data, nb);
        OK(nd_array_from_host_async(L.array, pin, nb));
        sync_current();
        nd_ref_assign(&L.ref, &src);
        nd_ref_expect(L.base, &L.base_ref, "nd_array_from_host_async into a %s %s view", nd_dtype_name(dts[t]), L.name);
        nd_ref_free(&src);
        if (nb > 0) {
          ND_ASSERT_FAILS(nd_array_from_host_async(L.array, pageable, nb), ND_ERR_INVALID_ARGUMENT, "pageable");
          ND_ASSERT_FAILS(nd_array_from_host_async(L.array, pin, nb + 1), ND_ERR_INVALID_ARGUMENT,
                          "nd_array_from_host_async: host buffer of");
          ND_ASSERT_FAILS(nd_array_from_host_async(L.array, NULL, nb), ND_ERR_NULL_POINTER, "nd_array_from_host_async");
          ND_ASSERT_FAILS(nd_array_to_host_async(L.array, NULL, nb), ND_ERR_NULL_POINTER, "nd_array_to_host_async");
          ND_ASSERT_FAILS(nd_array_to_host_async(L.array, pin, nb - 1), ND_ERR_INVALID_ARGUMENT, "nd_array_to_host_async");
        }
      }
      nd_ref_layout_free(&L);
    }
  ND_ASSERT_FAILS(nd_array_to_host_async(NULL, pin, 4), ND_ERR_NULL_POINTER, "nd_array_to_host_async");
  ND_ASSERT_FAILS(nd_array_from_host_async(NULL, pin, 4), ND_ERR_NULL_POINTER, "nd_array_from_host_async");
  free(pageable);
  OK(nd_host_free_pinned(pin));
}
END_TEST

typedef struct release_log {
  int calls;
  void *ptr;
} release_log;

static void on_release(void *ptr, void *ctx) {
  release_log *l = ctx;
  l->calls++;
  l->ptr = ptr;
}

START_TEST(transfer_from_device_ptr) {
  enum { N = 64 };
  float host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = (float)i * 0.5f - 3.0f;
  float *dev = NULL;
  ck_assert(cudaMalloc((void **)&dev, sizeof host) == cudaSuccess);
  ck_assert(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);
  int device = current_device();
  int64_t n = N, shape[2] = {4, 16};
  nd_ref flat = nd_ref_new(ND_FLOAT32, 1, &n);
  memcpy(flat.data, host, sizeof host);
  nd_ref mat = nd_ref_reshape(&flat, 2, shape);

  release_log log = {0, NULL};
  nd_array *a, *v;
  OK(nd_array_from_device_ptr(dev, device, 2, shape, NULL, ND_FLOAT32, on_release, &log, &a));
  ck_assert(nd_array_data(a) == (void *)dev);
  const int64_t cst[2] = {64, 4};
  expect_strides(a, 2, cst, "wrapped (4, 16)");
  ck_assert_int_eq(nd_array_device(a), device);
  ck_assert(!(nd_array_flags(a) & ND_ARRAY_OWNDATA));
  ck_assert(nd_array_flags(a) & ND_ARRAY_WRITEABLE);
  nd_ref_expect(a, &mat, "wrapped (4, 16) float32");

  /* A view outlives the wrapper: no callback until the last one goes, then exactly one. */
  nd_slice sl[2] = {{1, 3, ND_NONE}, {ND_NONE, ND_NONE, -1}};
  OK(nd_array_slice(a, 2, sl, &v));
  nd_array_release(a);
  ck_assert_int_eq(log.calls, 0);
  OK(nd_array_fill(v, nd_scalar_float(7.0)));
  sync_current();
  ck_assert(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < N; i++) {
    float want = (i >= 16 && i < 48) ? 7.0f : host[i];
    ck_assert_msg(back[i] == want, "caller memory [%d] = %g after fill through a view, want %g", i, back[i], want);
  }
  nd_array_release(v);
  ck_assert_int_eq(log.calls, 1);
  ck_assert(log.ptr == (void *)dev);
  ck_assert(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);

  /* Negative strides: element 0 at the end of the allocation. */
  int64_t neg1 = -4;
  OK(nd_array_from_device_ptr(dev + N - 1, device, 1, &n, &neg1, ND_FLOAT32, NULL, NULL, &a));
  nd_ref rev = nd_ref_flip(&flat, 0);
  nd_ref_expect(a, &rev, "wrapped float32 with stride -4");
  nd_array *c;
  OK(nd_array_copy(a, ND_ORDER_K, &c));
  nd_ref_expect(c, &rev, "copy of a wrapped reversed array");
  nd_array_release(c);
  nd_array_release(a);
  int64_t neg2[2] = {-64, 4};
  OK(nd_array_from_device_ptr(dev + 48, device, 2, shape, neg2, ND_FLOAT32, on_release, &log, &a));
  nd_ref rrows = nd_ref_flip(&mat, 0);
  nd_ref_expect(a, &rrows, "wrapped (4, 16) with strides (-64, 4)");
  nd_array_release(a);
  ck_assert_int_eq(log.calls, 2);
  ck_assert(log.ptr == (void *)(dev + 48));

  /* Zero-size wraps accept NULL; the callback still runs once. */
  release_log zlog = {0, SENTINEL};
  int64_t zero = 0;
  OK(nd_array_from_device_ptr(NULL, device, 1, &zero, NULL, ND_FLOAT64, on_release, &zlog, &a));
  ck_assert_int_eq(nd_array_size(a), 0);
  nd_array_release(a);
  ck_assert_int_eq(zlog.calls, 1);

  /* Failures take no ownership: the callback never runs. */
  release_log flog = {0, NULL};
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_from_device_ptr",
            nd_array_from_device_ptr(NULL, device, 2, shape, NULL, ND_FLOAT32, on_release, &flog, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "device -1",
            nd_array_from_device_ptr(dev, -1, 2, shape, NULL, ND_FLOAT32, on_release, &flog, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "device 4096 does not exist",
            nd_array_from_device_ptr(dev, 4096, 2, shape, NULL, ND_FLOAT32, on_release, &flog, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "aligned",
            nd_array_from_device_ptr((char *)dev + 2, device, 2, shape, NULL, ND_FLOAT32, on_release, &flog, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_array_from_device_ptr",
            nd_array_from_device_ptr(dev, device, 2, shape, NULL, (nd_dtype)99, on_release, &flog, &o));
  /* Kernels move whole items: a complex128 needs 16-byte alignment, every stride a multiple of
   * the itemsize (a misaligned access would end the CUDA context). */
  int64_t four = 4, odd_stride[2] = {64, 6};
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "not aligned to 16 bytes for dtype complex128",
            nd_array_from_device_ptr(dev + 2, device, 1, &four, NULL, ND_COMPLEX128, on_release, &flog, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_from_device_ptr: stride 6 of axis 1 is not a multiple",
            nd_array_from_device_ptr(dev, device, 2, shape, odd_stride, ND_FLOAT32, on_release, &flog, &o));
  OK(nd_array_from_device_ptr(dev + 4, device, 1, &four, NULL, ND_COMPLEX128, NULL, NULL, &a));
  nd_array_release(a);
  int64_t bad[2] = {4, -16};
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_from_device_ptr",
            nd_array_from_device_ptr(dev, device, 2, bad, NULL, ND_FLOAT32, on_release, &flog, &o));
  ND_ASSERT_FAILS(nd_array_from_device_ptr(dev, device, 2, shape, NULL, ND_FLOAT32, on_release, &flog, NULL),
                  ND_ERR_NULL_POINTER, "nd_array_from_device_ptr");
  ck_assert_int_eq(flog.calls, 0);
  ck_assert(cudaFree(dev) == cudaSuccess);
  nd_ref_free(&mat);
  nd_ref_free(&flat);
}
END_TEST

/* ---- astype ------------------------------------------------------------------------------------ */

typedef struct cast_data {
  int n;
  unsigned char src[64 * 16];
  unsigned char dst[ND_NUM_DTYPES][64 * 16];
} cast_data;

static void cast_decode(int s, cast_data *d) {
  const nd_ref_cast_case *c = &nd_ref_cast_table[s];
  ck_assert(c->src == (nd_dtype)s && c->n > 0 && c->n <= 64);
  d->n = c->n;
  ck_assert(nd_ref_unhex(c->src_hex, d->src, sizeof d->src) == c->n * (int64_t)nd_dtype_itemsize((nd_dtype)s));
  for (int t = 0; t < ND_NUM_DTYPES; t++)
    ck_assert(nd_ref_unhex(c->dst_hex[t], d->dst[t], sizeof d->dst[t]) ==
              c->n * (int64_t)nd_dtype_itemsize((nd_dtype)t));
}

/* b = astype(a, t) where a holds the table's values of s (in reverse order if reversed). */
static void check_cast(const nd_array *b, nd_dtype s, nd_dtype t, const cast_data *d, int reversed,
                       const char *layout) {
  char ctx[160];
  snprintf(ctx, sizeof ctx, "astype(%s -> %s) of a %s array", nd_dtype_name(s), nd_dtype_name(t), layout);
  ck_assert_msg(nd_array_dtype(b) == t && nd_array_ndim(b) == 1 && nd_array_dim(b, 0) == d->n,
                "%s: result has dtype %s, %d dimensions", ctx, nd_dtype_name(nd_array_dtype(b)), nd_array_ndim(b));
  ck_assert_msg(nd_array_is_c_contiguous(b), "%s: result is not contiguous", ctx);
  nd_ref got = nd_ref_download(b);
  size_t ssz = nd_dtype_itemsize(s), tsz = nd_dtype_itemsize(t);
  char msg[2048];
  size_t m = 0;
  int bad = 0;
  for (int k = 0; k < d->n; k++) {
    int v = reversed ? d->n - 1 - k : k;
    const unsigned char *want = d->dst[t] + (size_t)v * tsz, *g = nd_ref_flat(&got, k);
    if (nd_ref_same(t, g, want)) continue;
    if (bad++ < 6 && m < sizeof msg) {
      char a[96], b2[96], c[96];
      m += (size_t)snprintf(msg + m, sizeof msg - m, "\n  %s: got %s, NumPy %s",
                            nd_ref_format(s, d->src + (size_t)v * ssz, a, sizeof a), nd_ref_format(t, g, b2, sizeof b2),
                            nd_ref_format(t, want, c, sizeof c));
    }
  }
  nd_ref_free(&got);
  ck_assert_msg(bad == 0, "%s: %d of %d values differ from NumPy:%s", ctx, bad, d->n, msg);
}

START_TEST(astype_every_pair_matches_numpy) {
  static cast_data d;
  for (int s = 0; s < ND_NUM_DTYPES; s++) {
    cast_decode(s, &d);
    nd_dtype sd = (nd_dtype)s;
    size_t ssz = nd_dtype_itemsize(sd);
    int64_t n = d.n, ws[2] = {d.n, 3};
    nd_array *a, *w, *col, *rev;
    OK(nd_array_from_host(d.src, (size_t)n * ssz, 1, &n, sd, &a));
    /* The same values as column 1 of an (n, 3) array: a strided source with an offset. */
    unsigned char *wide = calloc((size_t)n * 3, ssz);
    ck_assert(wide != NULL);
    for (int k = 0; k < d.n; k++) memcpy(wide + ((size_t)k * 3 + 1) * ssz, d.src + (size_t)k * ssz, ssz);
    OK(nd_array_from_host(wide, (size_t)n * 3 * ssz, 2, ws, sd, &w));
    free(wide);
    OK(nd_array_index(w, 1, 1, &col));
    OK(nd_array_flip(a, 0, NULL, &rev));
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
      nd_array *b;
      OK(nd_array_astype(a, (nd_dtype)t, &b));
      check_cast(b, sd, (nd_dtype)t, &d, 0, "contiguous");
      ck_assert(!nd_array_shares_buffer(a, b));
      nd_array_release(b);
      OK(nd_array_astype(col, (nd_dtype)t, &b));
      check_cast(b, sd, (nd_dtype)t, &d, 0, "strided, offset");
      nd_array_release(b);
      OK(nd_array_astype(rev, (nd_dtype)t, &b));
      check_cast(b, sd, (nd_dtype)t, &d, 1, "reversed");
      nd_array_release(b);
    }
    nd_array_release(rev);
    nd_array_release(col);
    nd_array_release(w);
    nd_array_release(a);
  }
}
END_TEST

START_TEST(astype_layouts_and_typed_paths) {
  static const nd_dtype pairs[][2] = {{ND_FLOAT32, ND_FLOAT64}, {ND_INT16, ND_FLOAT16}, {ND_COMPLEX128, ND_INT8},
                                      {ND_UINT8, ND_BOOL}, {ND_FLOAT16, ND_COMPLEX64}};
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, pairs[p][0], 5, 7, 40, &L);
      nd_array *b;
      OK(nd_array_astype(L.array, pairs[p][1], &b));
      nd_ref want = nd_ref_astype(&L.ref, pairs[p][1]);
      nd_ref_expect(b, &want, "astype(%s -> %s) of a %s view", nd_dtype_name(pairs[p][0]),
                    nd_dtype_name(pairs[p][1]), L.name);
      ck_assert(nd_array_flags(b) & ND_ARRAY_WRITEABLE);
      /* Order K: a transposed C array (F-contiguous) gives an F-contiguous result. */
      if (l == ND_REF_TRANSPOSED) ck_assert_msg(nd_array_is_f_contiguous(b), "astype of a transposed view is not F");
      if (l == ND_REF_CONTIG || l == ND_REF_NEGATIVE || l == ND_REF_OFFSET)
        ck_assert_msg(nd_array_is_c_contiguous(b), "astype of a %s view is not C", L.name);
      nd_ref_free(&want);
      nd_array_release(b);
      nd_ref_layout_free(&L);
    }

  /* The typed contiguous kernels: long enough for many blocks of whole units and a partial
   * last unit, short ones (a tail only, one partial unit), each with a tail, and once more from
   * a view one element in (not 16-byte aligned, which must take the general path). */
  static const nd_dtype typed[][2] = {{ND_FLOAT32, ND_FLOAT64}, {ND_FLOAT64, ND_FLOAT32}, {ND_FLOAT32, ND_FLOAT16},
                                      {ND_FLOAT16, ND_FLOAT32}, {ND_INT32, ND_FLOAT32}, {ND_INT64, ND_FLOAT64},
                                      {ND_INT32, ND_FLOAT64}};
  static const int64_t lens[] = {3 * (INT64_C(1) << 20) + 3, 1, 7, 4 * 1024 * 8 + 5};
  for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
  for (size_t p = 0; p < sizeof typed / sizeof typed[0]; p++) {
    int64_t n = lens[k];
    nd_ref r = nd_ref_new(typed[p][0], 1, &n);
    nd_ref_fill_pattern(&r, 0);
    nd_array *a = nd_ref_upload(&r), *b, *v;
    OK(nd_array_astype(a, typed[p][1], &b));
    nd_ref want = nd_ref_astype(&r, typed[p][1]);
    nd_ref_expect(b, &want, "astype(%s -> %s) of %lld contiguous elements", nd_dtype_name(typed[p][0]),
                  nd_dtype_name(typed[p][1]), (long long)n);
    nd_ref_free(&want);
    nd_array_release(b);
    nd_slice tail = {1, ND_NONE, ND_NONE};
    OK(nd_array_slice(a, 1, &tail, &v));
    OK(nd_array_astype(v, typed[p][1], &b));
    nd_ref rv = nd_ref_slice(&r, 1, &tail);
    want = nd_ref_astype(&rv, typed[p][1]);
    nd_ref_expect(b, &want, "astype(%s -> %s) of a[1:]", nd_dtype_name(typed[p][0]), nd_dtype_name(typed[p][1]));
    nd_ref_free(&want);
    nd_array_release(b);
    nd_array_release(v);
    nd_array_release(a);
    nd_ref_free(&r);
  }

  int64_t two = 2;
  nd_array *a;
  OK(nd_zeros(1, &two, ND_FLOAT32, &a));
  FAILS_OUT(ND_ERR_DTYPE, "nd_array_astype", nd_array_astype(a, (nd_dtype)14, &o));
  FAILS_OUT(ND_ERR_DTYPE, "nd_array_astype", nd_array_astype(a, ND_PYCOMPLEX, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_astype", nd_array_astype(NULL, ND_FLOAT32, &o));
  ND_ASSERT_FAILS(nd_array_astype(a, ND_FLOAT32, NULL), ND_ERR_NULL_POINTER, "nd_array_astype");
  nd_array_release(a);
}
END_TEST

/* ---- copies ------------------------------------------------------------------------------------ */

START_TEST(copy_orders_and_layouts) {
  static const nd_dtype dts[] = {ND_INT8, ND_FLOAT16, ND_FLOAT32, ND_COMPLEX128, ND_BOOL};
  static const nd_order orders[] = {ND_ORDER_C, ND_ORDER_F, ND_ORDER_K, ND_ORDER_A};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, dts[t], 5, 7, 17, &L);
      int in_c = nd_array_is_c_contiguous(L.array), in_f = nd_array_is_f_contiguous(L.array);
      for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        nd_array *c;
        char ctx[160], d[512];
        snprintf(ctx, sizeof ctx, "nd_array_copy(%s %s view, order %c)", nd_dtype_name(dts[t]), L.name, (char)orders[o]);
        OK(nd_array_copy(L.array, orders[o], &c));
        nd_ref_expect(c, &L.ref, "%s", ctx);
        ck_assert_msg(!nd_array_shares_buffer(c, L.array), "%s: shares the source's buffer", ctx);
        int f = nd_array_flags(c);
        ck_assert_msg((f & ND_ARRAY_OWNDATA) && (f & ND_ARRAY_WRITEABLE), "%s: flags of %s", ctx,
                      nd_ref_describe(c, d, sizeof d));
        int want_f;
        switch (orders[o]) {
          case ND_ORDER_F: want_f = 1; break;
          case ND_ORDER_A: want_f = in_f && !in_c; break;
          case ND_ORDER_K: want_f = l == ND_REF_TRANSPOSED || l == ND_REF_BROADCAST; break;
          default: want_f = 0; break;
        }
        if (want_f)
          ck_assert_msg(f & ND_ARRAY_F_CONTIGUOUS, "%s: %s is not F-contiguous", ctx, nd_ref_describe(c, d, sizeof d));
        else
          ck_assert_msg(f & ND_ARRAY_C_CONTIGUOUS, "%s: %s is not C-contiguous", ctx, nd_ref_describe(c, d, sizeof d));
        nd_array_release(c);
      }
      nd_ref_layout_free(&L);
    }
  /* NumPy: a = np.empty((3,4,5), np.float32).transpose(2, 0, 1);
   * a.copy(order='K').strides == (4, 80, 20), a.copy(order='A').strides == (48, 16, 4). */
  int64_t s3[3] = {3, 4, 5};
  const int64_t perm[3] = {2, 0, 1};
  const int permi[3] = {2, 0, 1};
  nd_ref r = nd_ref_new(ND_FLOAT32, 3, s3);
  nd_ref_fill_pattern(&r, 4);
  nd_array *a = nd_ref_upload(&r), *t, *c;
  nd_ref rt = nd_ref_permute(&r, permi);
  OK(nd_array_transpose(a, 3, perm, &t));
  OK(nd_array_copy(t, ND_ORDER_K, &c));
  const int64_t kst[3] = {4, 80, 20}, ast[3] = {48, 16, 4};
  expect_strides(c, 3, kst, "copy(order K) of a (3, 4, 5).transpose(2, 0, 1)");
  nd_ref_expect(c, &rt, "copy(order K) of a (3, 4, 5).transpose(2, 0, 1)");
  nd_array_release(c);
  OK(nd_array_copy(t, ND_ORDER_A, &c));
  expect_strides(c, 3, ast, "copy(order A) of a (3, 4, 5).transpose(2, 0, 1)");
  nd_ref_expect(c, &rt, "copy(order A)");
  nd_array_release(c);
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_copy: order", nd_array_copy(t, (nd_order)'X', &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_copy", nd_array_copy(NULL, ND_ORDER_C, &o));
  ND_ASSERT_FAILS(nd_array_copy(t, ND_ORDER_C, NULL), ND_ERR_NULL_POINTER, "nd_array_copy");
  nd_array_release(t);
  nd_array_release(a);
  nd_ref_free(&r);
}
END_TEST

START_TEST(ascontiguous_reuses_or_copies) {
  int64_t s2[2] = {4, 6}, s1 = 9, z[2] = {0, 3};
  nd_array *c, *f, *v, *out;
  OK(nd_zeros(2, s2, ND_FLOAT32, &c));
  OK(nd_zeros(1, &s1, ND_INT16, &v));
  OK(nd_empty_order(2, s2, ND_FLOAT64, ND_ORDER_F, &f));
  /* Already contiguous in the asked order: the same array, one more reference. */
  OK(nd_array_ascontiguous(c, ND_ORDER_C, &out));
  ck_assert(out == c);
  nd_array_release(out);
  OK(nd_array_ascontiguous(f, ND_ORDER_F, &out));
  ck_assert(out == f);
  nd_array_release(out);
  OK(nd_array_ascontiguous(v, ND_ORDER_C, &out));
  ck_assert(out == v);
  nd_array_release(out);
  OK(nd_array_ascontiguous(v, ND_ORDER_F, &out));
  ck_assert(out == v);
  nd_array_release(out);
  nd_array *zs;
  OK(nd_zeros(2, z, ND_INT8, &zs));
  OK(nd_array_ascontiguous(zs, ND_ORDER_F, &out));
  ck_assert(out == zs);
  nd_array_release(out);
  nd_array_release(zs);
  /* Not contiguous in that order: a new contiguous copy with the same values. */
  for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
    nd_ref_layout L;
    nd_ref_layout_make((nd_ref_layout_kind)l, ND_FLOAT32, 4, 6, 9, &L);
    for (int o = 0; o < 2; o++) {
      nd_order ord = o ? ND_ORDER_F : ND_ORDER_C;
      int already = o ? nd_array_is_f_contiguous(L.array) : nd_array_is_c_contiguous(L.array);
      OK(nd_array_ascontiguous(L.array, ord, &out));
      nd_ref_expect(out, &L.ref, "ascontiguous(%s view, %c)", L.name, (char)ord);
      ck_assert_msg(o ? nd_array_is_f_contiguous(out) : nd_array_is_c_contiguous(out),
                    "ascontiguous(%s, %c) is not contiguous", L.name, (char)ord);
      ck_assert_msg(already ? out == L.array : !nd_array_shares_buffer(out, L.array),
                    "ascontiguous(%s, %c): reused %d, already contiguous %d", L.name, (char)ord,
                    out == L.array, already);
      nd_array_release(out);
    }
    nd_ref_layout_free(&L);
  }
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_ascontiguous", nd_array_ascontiguous(c, ND_ORDER_K, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_ascontiguous", nd_array_ascontiguous(NULL, ND_ORDER_C, &o));
  nd_array_release(c);
  nd_array_release(f);
  nd_array_release(v);
}
END_TEST

/* copyto(dview, src) on the device and the same assignment on the host; the whole base of the
 * destination is compared, so elements outside the view must be untouched. */
static void check_copyto(const nd_array *dbase, const nd_ref *rbase, nd_array *dview, nd_ref *rview,
                         const nd_array *src, const nd_ref *rsrc, nd_casting casting, const char *what) {
  OK(nd_copyto(dview, src, casting));
  nd_ref_assign(rview, rsrc);
  nd_ref_expect(dbase, rbase, "nd_copyto: %s", what);
}

static nd_ref pattern_ref(nd_dtype dt, int ndim, const int64_t *shape, int64_t seed) {
  nd_ref r = nd_ref_new(dt, ndim, shape);
  nd_ref_fill_pattern(&r, seed);
  return r;
}

/* The copy of a view whose last two axes are swapped goes through kernels/copy.cu's tiled
 * transpose: 64-wide tiles for items of up to 4 bytes, 32-wide for 8 and 16. Whole and
 * partial tiles of every item size, a batch of several matrices, more batches than the grid's
 * z limit (65535) and more row tiles than its y limit (65535 tiles of 64 or 32 rows), which the
 * host launches in parts. */
static void check_swapped_copy(nd_dtype dt, const int64_t shape[3], int64_t seed) {
  nd_ref rb = pattern_ref(dt, 3, shape, seed);
  nd_array *b = nd_ref_upload(&rb), *v, *c;
  const int64_t axes[3] = {0, 2, 1};
  const int perm[3] = {0, 2, 1};
  OK(nd_array_transpose(b, 3, axes, &v));
  nd_ref rv = nd_ref_permute(&rb, perm);
  OK(nd_array_copy(v, ND_ORDER_C, &c));
  ck_assert(nd_array_is_c_contiguous(c));
  nd_ref_expect(c, &rv, "%s (%lld, %lld, %lld).transpose(0, 2, 1).copy()", nd_dtype_name(dt),
                (long long)shape[0], (long long)shape[1], (long long)shape[2]);
  nd_array_release(c);
  nd_array_release(v);
  nd_array_release(b);
  nd_ref_free(&rv);
  nd_ref_free(&rb);
}

START_TEST(copy_of_swapped_axes_every_item_size) {
  const nd_dtype dts[] = {ND_UINT8, ND_INT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX128};
  const int64_t shapes[][3] = {{1, 64, 64}, {1, 65, 129}, {1, 8, 200}, {1, 130, 8}, {1, 127, 63},
                               {3, 70, 66}, {2, 32, 96}};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
      check_swapped_copy(dts[t], shapes[k], 7 + (int64_t)k);
  const int64_t many[3] = {65537, 8, 9};
  check_swapped_copy(ND_UINT8, many, 3);
  /* 65535 * 64 + 101 rows of 9 one-byte items, 65535 * 32 + 37 rows of 8 eight-byte ones */
  const int64_t tall1[3] = {1, 9, 65535 * 64 + 101}, tall8[3] = {1, 8, 65535 * 32 + 37};
  check_swapped_copy(ND_UINT8, tall1, 5);
  check_swapped_copy(ND_FLOAT64, tall8, 6);
}
END_TEST

START_TEST(copyto_broadcasts_into_strided_views) {
  /* NumPy: a = <(5, 6) float32>; a[1:, ::2] = b for b of shapes (3,), (4, 1), (), (4, 3). */
  int64_t s56[2] = {5, 6};
  nd_slice sl[2] = {{1, ND_NONE, ND_NONE}, {ND_NONE, ND_NONE, 2}};
  struct {
    nd_dtype dt;
    int ndim;
    int64_t shape[2];
    int form; /* 0 contiguous, 1 transposed of the reversed shape, 2 reversed last axis */
    nd_casting casting;
    const char *what;
  } srcs[] = {
      {ND_INT32, 1, {3}, 0, ND_CASTING_SAME_KIND, "a[1:, ::2] = int32 (3,)"},
      {ND_FLOAT64, 2, {4, 1}, 0, ND_CASTING_SAME_KIND, "a[1:, ::2] = float64 (4, 1)"},
      {ND_INT16, 0, {0}, 0, ND_CASTING_SAFE, "a[1:, ::2] = int16 ()"},
      {ND_FLOAT32, 2, {4, 3}, 1, ND_CASTING_NO, "a[1:, ::2] = float32 (3, 4).T"},
      {ND_UINT8, 2, {1, 3}, 2, ND_CASTING_SAFE, "a[1:, ::2] = uint8 (1, 3)[:, ::-1]"},
      {ND_COMPLEX64, 2, {4, 3}, 0, ND_CASTING_UNSAFE, "a[1:, ::2] = complex64 (4, 3), unsafe"},
  };
  for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    nd_ref rbase = pattern_ref(ND_FLOAT32, 2, s56, 1);
    nd_array *dbase = nd_ref_upload(&rbase), *dview, *src, *tmp;
    OK(nd_array_slice(dbase, 2, sl, &dview));
    nd_ref rview = nd_ref_slice(&rbase, 2, sl);
    nd_ref rsrc, rsrc_base;
    if (srcs[i].form == 1) {
      int64_t rs[2] = {srcs[i].shape[1], srcs[i].shape[0]};
      int perm[2] = {1, 0};
      rsrc_base = pattern_ref(srcs[i].dt, 2, rs, 50);
      tmp = nd_ref_upload(&rsrc_base);
      OK(nd_array_transpose(tmp, 0, NULL, &src));
      rsrc = nd_ref_permute(&rsrc_base, perm);
    } else if (srcs[i].form == 2) {
      rsrc_base = pattern_ref(srcs[i].dt, srcs[i].ndim, srcs[i].shape, 50);
      tmp = nd_ref_upload(&rsrc_base);
      const int64_t last = -1;
      OK(nd_array_flip(tmp, 1, &last, &src));
      rsrc = nd_ref_flip(&rsrc_base, srcs[i].ndim - 1);
    } else {
      rsrc_base = pattern_ref(srcs[i].dt, srcs[i].ndim, srcs[i].shape, 50);
      tmp = nd_ref_upload(&rsrc_base);
      src = nd_array_retain(tmp);
      rsrc = nd_ref_slice(&rsrc_base, 0, NULL);
    }
    check_copyto(dbase, &rbase, dview, &rview, src, &rsrc, srcs[i].casting, srcs[i].what);
    nd_array_release(src);
    nd_array_release(tmp);
    nd_array_release(dview);
    nd_array_release(dbase);
    nd_ref_free(&rsrc_base);
    nd_ref_free(&rbase);
  }
  /* Every writeable layout as destination, from a broadcast row and from a reversed full array. */
  for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
    if (l == ND_REF_BROADCAST) continue;
    nd_ref_layout D, S;
    nd_ref_layout_make((nd_ref_layout_kind)l, ND_INT64, 5, 6, 3, &D);
    nd_ref_layout_make(l == ND_REF_ZERO_SIZE || l == ND_REF_SCALAR ? (nd_ref_layout_kind)l : ND_REF_NEGATIVE,
                       ND_INT32, 5, 6, 70, &S);
    char what[128];
    snprintf(what, sizeof what, "int64 %s view = int32 %s", D.name, S.name);
    check_copyto(D.base, &D.base_ref, D.array, &D.ref, S.array, &S.ref, ND_CASTING_SAFE, what);
    nd_ref_layout_free(&S);
    if (l != ND_REF_SCALAR) {
      nd_ref_layout_make(ND_REF_BROADCAST, ND_INT8, 5, 6, 90, &S);
      nd_array *row;
      OK(nd_array_index(S.array, 0, 0, &row)); /* a (6,) row of the broadcast view */
      nd_ref rrow = nd_ref_index(&S.ref, 0, 0);
      snprintf(what, sizeof what, "int64 %s view = int8 (6,) row", D.name);
      check_copyto(D.base, &D.base_ref, D.array, &D.ref, row, &rrow, ND_CASTING_SAME_KIND, what);
      nd_array_release(row);
      nd_ref_layout_free(&S);
    }
    nd_ref_layout_free(&D);
  }
}
END_TEST

START_TEST(copyto_casting_and_errors) {
  int64_t s34[2] = {3, 4}, s5 = 5, s24[2] = {2, 4};
  nd_ref rd = pattern_ref(ND_INT32, 2, s34, 1), rs = pattern_ref(ND_FLOAT64, 2, s34, 2);
  nd_array *d = nd_ref_upload(&rd), *s = nd_ref_upload(&rs), *bad, *bad2;
  OK(nd_zeros(1, &s5, ND_INT32, &bad));
  OK(nd_zeros(2, s24, ND_INT32, &bad2));
  ND_ASSERT_FAILS(nd_copyto(d, s, ND_CASTING_SAME_KIND), ND_ERR_CASTING,
                  "nd_copyto: cannot cast array data from dtype('float64') to dtype('int32') according to the rule 'same_kind'");
  ND_ASSERT_FAILS(nd_copyto(d, s, ND_CASTING_SAFE), ND_ERR_CASTING, "'safe'");
  ND_ASSERT_FAILS(nd_copyto(d, bad, ND_CASTING_UNSAFE), ND_ERR_SHAPE, "nd_copyto");
  ND_ASSERT_FAILS(nd_copyto(d, bad2, ND_CASTING_UNSAFE), ND_ERR_SHAPE, "nd_copyto");
  ND_ASSERT_FAILS(nd_copyto(NULL, s, ND_CASTING_UNSAFE), ND_ERR_NULL_POINTER, "nd_copyto");
  ND_ASSERT_FAILS(nd_copyto(d, NULL, ND_CASTING_UNSAFE), ND_ERR_NULL_POINTER, "nd_copyto");
  nd_ref_expect(d, &rd, "destination after failed copyto calls");
  /* Read-only destinations: a broadcast view and a diagonal view. */
  nd_array *b, *diag;
  OK(nd_array_broadcast_to(bad, 2, (int64_t[]){3, 5}, &b));
  ND_ASSERT_FAILS(nd_copyto(b, bad, ND_CASTING_NO), ND_ERR_READ_ONLY, "nd_copyto");
  OK(nd_array_diagonal(d, 0, 0, 1, &diag));
  ND_ASSERT_FAILS(nd_copyto(diag, bad, ND_CASTING_UNSAFE), ND_ERR_READ_ONLY, "nd_copyto");
  nd_array_release(diag);
  nd_array_release(b);
  nd_ref_expect(d, &rd, "destination after read-only failures");
  /* The casting rules that allow it. */
  OK(nd_copyto(d, s, ND_CASTING_UNSAFE));
  nd_ref_assign(&rd, &rs);
  nd_ref_expect(d, &rd, "int32 = float64, unsafe (truncation)");
  nd_ref r16 = pattern_ref(ND_INT16, 2, s34, 3), ru32 = pattern_ref(ND_UINT32, 1, &s34[1], 4);
  nd_array *a16 = nd_ref_upload(&r16), *au32 = nd_ref_upload(&ru32);
  OK(nd_copyto(d, a16, ND_CASTING_SAFE));
  nd_ref_assign(&rd, &r16);
  nd_ref_expect(d, &rd, "int32 = int16, safe");
  ND_ASSERT_FAILS(nd_copyto(d, au32, ND_CASTING_SAFE), ND_ERR_CASTING, "dtype('uint32') to dtype('int32')");
  ND_ASSERT_FAILS(nd_copyto(d, a16, ND_CASTING_NO), ND_ERR_CASTING, "'no'");
  ND_ASSERT_FAILS(nd_copyto(d, a16, ND_CASTING_EQUIV), ND_ERR_CASTING, "'equiv'");
  /* np.can_cast(np.uint32, np.int32, 'same_kind') is True: both are integers. */
  OK(nd_copyto(d, au32, ND_CASTING_SAME_KIND));
  nd_ref_assign(&rd, &ru32);
  nd_ref_expect(d, &rd, "int32 = uint32 row broadcast, same_kind");
  nd_array *d2;
  OK(nd_array_copy(d, ND_ORDER_C, &d2));
  OK(nd_copyto(d, d2, ND_CASTING_NO));
  OK(nd_copyto(d, d, ND_CASTING_NO));
  nd_ref_expect(d, &rd, "copyto of an equal array and of itself");
  nd_array_release(d2);
  nd_array_release(a16);
  nd_array_release(au32);
  nd_ref_free(&r16);
  nd_ref_free(&ru32);
  nd_array_release(bad);
  nd_array_release(bad2);
  nd_array_release(d);
  nd_array_release(s);
  nd_ref_free(&rd);
  nd_ref_free(&rs);
}
END_TEST

/* NumPy's assignment between overlapping views reads the source completely first. */
START_TEST(copyto_overlapping_views) {
  int64_t ten = 10, s66[2] = {6, 6}, four = 4;
  nd_slice tail = {1, ND_NONE, ND_NONE}, head = {ND_NONE, -1, ND_NONE}, rev = {ND_NONE, ND_NONE, -1},
           even = {ND_NONE, ND_NONE, 2}, odd = {1, ND_NONE, 2}, all = ND_SLICE_ALL;
  struct {
    nd_slice d, s;
    const char *what;
  } one_d[] = {
      {tail, head, "x[1:] = x[:-1]"}, {head, tail, "x[:-1] = x[1:]"}, {all, rev, "x[:] = x[::-1]"},
      {even, odd, "x[::2] = x[1::2]"}, {rev, all, "x[::-1] = x"},    {{2, 9, ND_NONE}, {0, 7, ND_NONE}, "x[2:9] = x[0:7]"},
  };
  for (size_t i = 0; i < sizeof one_d / sizeof one_d[0]; i++) {
    nd_ref r = pattern_ref(ND_INT32, 1, &ten, 5);
    nd_array *x = nd_ref_upload(&r), *dv, *sv;
    OK(nd_array_slice(x, 1, &one_d[i].d, &dv));
    OK(nd_array_slice(x, 1, &one_d[i].s, &sv));
    nd_ref rdv = nd_ref_slice(&r, 1, &one_d[i].d), rsv = nd_ref_slice(&r, 1, &one_d[i].s);
    check_copyto(x, &r, dv, &rdv, sv, &rsv, ND_CASTING_NO, one_d[i].what);
    nd_array_release(dv);
    nd_array_release(sv);
    nd_array_release(x);
    nd_ref_free(&r);
  }
  /* 2-d: a = a.T, a = a[0] (a broadcast row of a itself), a[1:, 1:] = a[:-1, :-1]. */
  nd_ref r = pattern_ref(ND_FLOAT64, 2, s66, 8);
  nd_array *a = nd_ref_upload(&r), *t, *row, *dv, *sv;
  int perm[2] = {1, 0};
  OK(nd_array_transpose(a, 0, NULL, &t));
  nd_ref rt = nd_ref_permute(&r, perm), rall = nd_ref_slice(&r, 0, NULL);
  check_copyto(a, &r, a, &rall, t, &rt, ND_CASTING_NO, "a[...] = a.T");
  OK(nd_array_index(a, 0, 0, &row));
  nd_ref rrow = nd_ref_index(&r, 0, 0);
  check_copyto(a, &r, a, &rall, row, &rrow, ND_CASTING_NO, "a[...] = a[0]");
  nd_slice lo[2] = {{1, ND_NONE, ND_NONE}, {1, ND_NONE, ND_NONE}}, hi[2] = {{ND_NONE, -1, ND_NONE}, {ND_NONE, -1, ND_NONE}};
  OK(nd_array_slice(a, 2, lo, &dv));
  OK(nd_array_slice(a, 2, hi, &sv));
  nd_ref rdv = nd_ref_slice(&r, 2, lo), rsv = nd_ref_slice(&r, 2, hi);
  check_copyto(a, &r, dv, &rdv, sv, &rsv, ND_CASTING_NO, "a[1:, 1:] = a[:-1, :-1]");
  nd_array_release(dv);
  nd_array_release(sv);
  nd_array_release(row);
  nd_array_release(t);
  nd_array_release(a);
  nd_ref_free(&r);
  /* Different dtypes over one buffer: the real part of a complex array from its imaginary part. */
  nd_ref rc = pattern_ref(ND_COMPLEX128, 1, &four, 3);
  nd_array *c = nd_ref_upload(&rc), *re, *im;
  OK(nd_array_real(c, &re));
  OK(nd_array_imag(c, &im));
  OK(nd_copyto(re, im, ND_CASTING_NO));
  for (int k = 0; k < 4; k++) {
    double *e = (double *)nd_ref_flat(&rc, k);
    e[0] = e[1];
  }
  nd_ref_expect(c, &rc, "real(c)[...] = imag(c)");
  nd_array_release(re);
  nd_array_release(im);
  nd_array_release(c);
  nd_ref_free(&rc);
}
END_TEST

/* NumPy's ndarray.fill with a Python scalar: an int must fit an integer dtype (OverflowError),
 * a float goes through int() for an integer dtype (NaN: ValueError, inf: OverflowError, and
 * the truncated value must fit), a complex cannot go into an integer or float array
 * (TypeError). Array scalars (strong dtypes) and bool targets are cast. */
static int numpy_fill_refuses(nd_dtype dt, nd_scalar v) {
  const char k = nd_dtype_kind(dt);
  const int integer = k == 'i' || k == 'u';
  const int bits = (int)nd_dtype_itemsize(dt) * 8;
  const double lo = k == 'u' ? 0.0 : -ldexp(1.0, bits - 1), hi = k == 'u' ? ldexp(1.0, bits) : ldexp(1.0, bits - 1);
  if (v.dtype == ND_PYINT && integer)
    return k == 'u' ? v.v.i < 0 || (bits < 64 && v.v.i >= (INT64_C(1) << bits))
                    : bits < 64 && (v.v.i < -(INT64_C(1) << (bits - 1)) || v.v.i >= (INT64_C(1) << (bits - 1)));
  if (v.dtype == ND_PYFLOAT && integer) return !isfinite(v.v.f) || trunc(v.v.f) < lo || trunc(v.v.f) >= hi;
  if (v.dtype == ND_PYCOMPLEX) return integer || k == 'f';
  return 0;
}

START_TEST(fill_every_kind_into_every_dtype) {
  const nd_scalar values[] = {
      nd_scalar_bool(1),
      strong_i(ND_INT8, -5),
      strong_i(ND_INT64, INT64_MIN),
      strong_u(ND_UINT64, UINT64_MAX),
      strong_u(ND_UINT16, 65535),
      strong_f(ND_FLOAT16, -1.5),
      strong_f(ND_FLOAT32, (double)300.7f),
      strong_f(ND_FLOAT64, NAN),
      strong_c(ND_COMPLEX64, 1.5, -2.5),
      strong_c(ND_COMPLEX128, 0.0, 1.0),
      nd_scalar_int(300),
      nd_scalar_int(-1),
      nd_scalar_float(-1.5),
      nd_scalar_float(1e20),
      nd_scalar_float(-0.0),
      nd_scalar_float(INFINITY),
      nd_scalar_complex(-7.25, 3.0),
      nd_scalar_int(0),
  };
  static const nd_ref_layout_kind ls[] = {ND_REF_CONTIG, ND_REF_STEPPED, ND_REF_SCALAR, ND_REF_ZERO_SIZE,
                                          ND_REF_TRANSPOSED, ND_REF_OFFSET, ND_REF_NEGATIVE};
  for (int t = 0; t < ND_NUM_DTYPES; t++)
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
      for (size_t l = 0; l < sizeof ls / sizeof ls[0]; l++) {
        /* Every value with the first four layouts; the others with a few values. */
        if (l >= 4 && v % 5 != 0) continue;
        nd_ref_layout L;
        nd_ref_layout_make(ls[l], (nd_dtype)t, 3, 5, 2, &L);
        char vs[128];
        if (numpy_fill_refuses((nd_dtype)t, values[v])) {
          /* NumPy raises; nothing may be written. */
          ck_assert_msg(nd_array_fill(L.array, values[v]) != ND_OK, "fill(%s, %s) should fail",
                        nd_dtype_name((nd_dtype)t), nd_ref_format_scalar(values[v], vs, sizeof vs));
          nd_ref_expect(L.base, &L.base_ref, "refused fill(%s %s view, %s)", nd_dtype_name((nd_dtype)t), L.name,
                        nd_ref_format_scalar(values[v], vs, sizeof vs));
          nd_ref_layout_free(&L);
          continue;
        }
        OK(nd_array_fill(L.array, values[v]));
        nd_ref_fill(&L.ref, values[v]);
        nd_ref_expect(L.base, &L.base_ref, "fill(%s %s view, %s)", nd_dtype_name((nd_dtype)t), L.name,
                      nd_ref_format_scalar(values[v], vs, sizeof vs));
        nd_ref_layout_free(&L);
      }
  nd_ref_layout L;
  nd_ref_layout_make(ND_REF_BROADCAST, ND_FLOAT32, 3, 5, 2, &L);
  ND_ASSERT_FAILS(nd_array_fill(L.array, nd_scalar_int(1)), ND_ERR_READ_ONLY, "nd_array_fill");
  nd_ref_expect(L.base, &L.base_ref, "broadcast base after a refused fill");
  ND_ASSERT_FAILS(nd_array_fill(L.base, strong_i((nd_dtype)50, 1)), ND_ERR_DTYPE, "nd_array_fill");
  ND_ASSERT_FAILS(nd_array_fill(NULL, nd_scalar_int(1)), ND_ERR_NULL_POINTER, "nd_array_fill");
  nd_array *ro;
  OK(nd_array_slice(L.base, 0, NULL, &ro));
  OK(nd_array_set_writeable(ro, 0));
  ND_ASSERT_FAILS(nd_array_fill(ro, nd_scalar_int(1)), ND_ERR_READ_ONLY, "nd_array_fill");
  OK(nd_array_set_writeable(ro, 1));
  OK(nd_array_fill(ro, nd_scalar_int(4)));
  nd_ref_fill(&L.base_ref, nd_scalar_int(4));
  nd_ref_expect(L.base, &L.base_ref, "fill through a view made writeable again");
  nd_array_release(ro);
  nd_ref_layout_free(&L);
}
END_TEST

/* ---- concatenate, stack, tile, repeat ------------------------------------------------------------ */

/* NumPy's concatenate of host references along axis ax, converted to dt. */
static nd_ref ref_concat(int n, const nd_ref *const *parts, int ax, nd_dtype dt) {
  int nd = parts[0]->ndim;
  int64_t shape[ND_MAXDIMS], idx[ND_MAXDIMS];
  memcpy(shape, parts[0]->shape, (size_t)nd * sizeof(int64_t));
  shape[ax] = 0;
  for (int i = 0; i < n; i++) shape[ax] += parts[i]->shape[ax];
  nd_ref out = nd_ref_new(dt, nd, shape);
  for (int64_t k = 0; k < out.size; k++) {
    nd_ref_unravel(nd, shape, k, idx);
    int i = 0;
    while (idx[ax] >= parts[i]->shape[ax]) idx[ax] -= parts[i++]->shape[ax];
    nd_ref_set(&out, k, nd_ref_load(parts[i]->dtype, nd_ref_ptr(parts[i], idx)));
  }
  return out;
}

/* NumPy's stack: a new axis ax indexes the inputs. */
static nd_ref ref_stack(int n, const nd_ref *const *parts, int ax, nd_dtype dt) {
  int nd = parts[0]->ndim + 1;
  int64_t shape[ND_MAXDIMS], idx[ND_MAXDIMS], sidx[ND_MAXDIMS];
  for (int i = 0, j = 0; i < nd; i++) shape[i] = i == ax ? n : parts[0]->shape[j++];
  nd_ref out = nd_ref_new(dt, nd, shape);
  for (int64_t k = 0; k < out.size; k++) {
    nd_ref_unravel(nd, shape, k, idx);
    for (int i = 0, j = 0; i < nd; i++)
      if (i != ax) sidx[j++] = idx[i];
    const nd_ref *p = parts[idx[ax]];
    nd_ref_set(&out, k, nd_ref_load(p->dtype, nd_ref_ptr(p, sidx)));
  }
  return out;
}

/* A device array and its host twin, made contiguous, transposed (2-d) or reversed. */
typedef struct part {
  nd_array *a;
  nd_ref r, base;
} part;

static part make_part(nd_dtype dt, int ndim, const int64_t *shape, int form, int64_t seed) {
  part p;
  if (form == 1 && ndim == 2) {
    int64_t rs[2] = {shape[1], shape[0]};
    int perm[2] = {1, 0};
    p.base = pattern_ref(dt, 2, rs, seed);
    nd_array *b = nd_ref_upload(&p.base);
    OK(nd_array_transpose(b, 0, NULL, &p.a));
    nd_array_release(b);
    p.r = nd_ref_permute(&p.base, perm);
  } else if (form == 2 && ndim >= 1) {
    p.base = pattern_ref(dt, ndim, shape, seed);
    nd_array *b = nd_ref_upload(&p.base);
    const int64_t zero = 0;
    OK(nd_array_flip(b, 1, &zero, &p.a));
    nd_array_release(b);
    p.r = nd_ref_flip(&p.base, 0);
  } else {
    p.base = pattern_ref(dt, ndim, shape, seed);
    p.a = nd_ref_upload(&p.base);
    p.r = nd_ref_slice(&p.base, 0, NULL);
  }
  return p;
}

static void free_part(part *p) {
  nd_array_release(p->a);
  nd_ref_free(&p->base);
}

/* The contiguous fill's 16-byte store kernel: every item size, lengths around the 16-byte
 * groups and the per-block work (ND_ONESHOT_U * 256 groups), views that start on and off a
 * 16-byte boundary; the elements around the view keep their values. A value of identical
 * bytes is a memset (every one-byte fill is), so 3.25 (3 in int16) is used. */
START_TEST(fill_contiguous_lengths_and_alignments) {
  static const nd_dtype dts[] = {ND_INT16, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX128};
  static const int64_t lens[] = {1, 3, 15, 16, 17, 33, 1023, 4097, 16383, 65536 + 7, 262144 + 9};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
      for (int64_t off = 0; off < 4; off++) {
        int64_t n = lens[k] + 40;
        nd_ref r = nd_ref_new(dts[t], 1, &n);
        nd_ref_fill_pattern(&r, (int)k);
        nd_array *a = nd_ref_upload(&r), *v;
        nd_slice sl = {off, off + lens[k], 1};
        OK(nd_array_slice(a, 1, &sl, &v));
        const nd_scalar val = nd_scalar_float(3.25);
        OK(nd_array_fill(v, val));
        nd_ref rv = nd_ref_slice(&r, 1, &sl);
        nd_ref_fill(&rv, val);
        nd_ref_expect(a, &r, "fill(%s[%lld:%lld]) of %lld elements", nd_dtype_name(dts[t]), (long long)off,
                      (long long)(off + lens[k]), (long long)n);
        nd_array_release(v);
        nd_array_release(a);
        nd_ref_free(&r);
      }
}
END_TEST

/* Fills larger than the L2 cache take the wide kernel (one 16-byte store per thread, as many
 * blocks as stores) whatever the value, identical bytes (0 and 3 in int8) included: item sizes
 * 1 to 16, lengths that leave a tail of bytes after the last 16-byte store, views on and off a
 * 16-byte boundary (off it, the other paths); the elements around the view keep their values. */
START_TEST(fill_past_the_l2_cache) {
  int dev = 0;
  nd_device_properties props;
  OK(nd_device_get(&dev));
  OK(nd_device_get_properties(dev, &props));
  static const struct {
    nd_dtype dt;
    double v;
  } cases[] = {{ND_INT8, 3}, {ND_INT8, 0}, {ND_FLOAT16, -1.5}, {ND_FLOAT32, 3.25}, {ND_FLOAT64, 0.0},
               {ND_COMPLEX128, 2.5}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int64_t off = 0; off < 2; off++) {
      const int64_t isz = (int64_t)nd_dtype_itemsize(cases[c].dt);
      const int64_t len = props.l2_cache_bytes / isz + 5, n = len + 3;
      nd_ref r = nd_ref_new(cases[c].dt, 1, &n);
      nd_ref_fill_pattern(&r, (int)c);
      nd_array *a = nd_ref_upload(&r), *v;
      nd_slice sl = {off, off + len, 1};
      OK(nd_array_slice(a, 1, &sl, &v));
      const nd_scalar val = nd_scalar_float(cases[c].v);
      OK(nd_array_fill(v, val));
      nd_ref rv = nd_ref_slice(&r, 1, &sl);
      nd_ref_fill(&rv, val);
      nd_ref_expect(a, &r, "fill(%s[%lld:%lld], %g) past the L2 cache (%lld bytes)", nd_dtype_name(cases[c].dt),
                    (long long)off, (long long)(off + len), cases[c].v, (long long)props.l2_cache_bytes);
      nd_array_release(v);
      nd_array_release(a);
      nd_ref_free(&r);
    }
}
END_TEST

START_TEST(concatenate_and_stack) {
  static const struct {
    int n, ndim, axis;
    nd_dtype dt[3];
    int64_t shape[3][2];
    int form[3];
    nd_dtype want;
  } cases[] = {
      {3, 2, 0, {ND_FLOAT32, ND_FLOAT32, ND_FLOAT32}, {{2, 3}, {4, 3}, {0, 3}}, {0, 1, 0}, ND_FLOAT32},
      {2, 2, 1, {ND_INT8, ND_UINT8}, {{2, 1}, {2, 3}}, {0, 2}, ND_INT16},
      {2, 2, -1, {ND_FLOAT32, ND_INT64}, {{3, 2}, {3, 5}}, {1, 1}, ND_FLOAT64},
      {3, 1, 0, {ND_BOOL, ND_INT8, ND_BOOL}, {{4}, {1}, {3}}, {2, 0, 2}, ND_INT8},
      {2, 2, 0, {ND_COMPLEX64, ND_FLOAT64}, {{1, 4}, {2, 4}}, {0, 2}, ND_COMPLEX128},
      {1, 2, 1, {ND_UINT16}, {{3, 4}}, {1}, ND_UINT16},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    part p[3];
    const nd_array *arrs[3];
    const nd_ref *refs[3];
    for (int i = 0; i < cases[c].n; i++) {
      p[i] = make_part(cases[c].dt[i], cases[c].ndim, cases[c].shape[i], cases[c].form[i], 10 * i + 1);
      arrs[i] = p[i].a;
      refs[i] = &p[i].r;
    }
    nd_array *out;
    OK(nd_concatenate(cases[c].n, arrs, cases[c].axis, &out));
    int ax = cases[c].axis < 0 ? cases[c].axis + cases[c].ndim : cases[c].axis;
    nd_ref want = ref_concat(cases[c].n, refs, ax, cases[c].want);
    nd_ref_expect(out, &want, "nd_concatenate case %zu (axis %d)", c, cases[c].axis);
    expect_new_array(out, cases[c].want, want.ndim, want.shape, 'C', "nd_concatenate");
    nd_ref_free(&want);
    nd_array_release(out);
    for (int i = 0; i < cases[c].n; i++) free_part(&p[i]);
  }
  /* axis=None ravels every input, 0-d ones included:
   * np.concatenate([np.ones((2,3)), np.ones(4), np.array(5.)], axis=None).shape == (11,) */
  int64_t s23[2] = {2, 3}, s4 = 4;
  part q[3] = {make_part(ND_FLOAT32, 2, s23, 1, 1), make_part(ND_INT16, 1, &s4, 2, 2), make_part(ND_FLOAT64, 0, NULL, 0, 3)};
  const nd_array *qa[3] = {q[0].a, q[1].a, q[2].a};
  nd_ref flat[3];
  const nd_ref *fr[3];
  for (int i = 0; i < 3; i++) {
    int64_t n = q[i].r.size;
    flat[i] = nd_ref_reshape(&q[i].r, 1, &n);
    fr[i] = &flat[i];
  }
  nd_array *out;
  OK(nd_concatenate(3, qa, ND_AXIS_NONE, &out));
  nd_ref want = ref_concat(3, fr, 0, ND_FLOAT64);
  ck_assert_int_eq(want.size, 11);
  nd_ref_expect(out, &want, "nd_concatenate(axis=None)");
  nd_ref_free(&want);
  nd_array_release(out);
  for (int i = 0; i < 3; i++) nd_ref_free(&flat[i]);

  /* Errors. */
  int64_t s24[2] = {2, 4};
  part e[2] = {make_part(ND_FLOAT32, 2, s23, 0, 1), make_part(ND_FLOAT32, 2, s24, 0, 2)};
  const nd_array *ea[2] = {e[0].a, e[1].a}, *mixed[2] = {e[0].a, q[1].a}, *scal[2] = {q[2].a, q[2].a},
                 *withnull[2] = {e[0].a, NULL};
  FAILS_OUT(ND_ERR_SHAPE, "nd_concatenate: all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1",
            nd_concatenate(2, ea, 0, &o));
  FAILS_OUT(ND_ERR_SHAPE, "same number of dimensions", nd_concatenate(2, mixed, 0, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_concatenate: axis 2 is out of bounds for array of dimension 2", nd_concatenate(2, ea, 2, &o));
  FAILS_OUT(ND_ERR_SHAPE, "zero-dimensional", nd_concatenate(2, scal, 0, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_concatenate", nd_concatenate(0, ea, 0, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_concatenate", nd_concatenate(2, NULL, 0, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "arrays[1]", nd_concatenate(2, withnull, 0, &o));

  /* stack: a new axis at 0, 1, 2 and -1; 0-d inputs make a 1-d result. */
  part s[3] = {make_part(ND_INT16, 2, s23, 0, 4), make_part(ND_INT16, 2, s23, 1, 5), make_part(ND_FLOAT32, 2, s23, 2, 6)};
  const nd_array *sa[3] = {s[0].a, s[1].a, s[2].a};
  const nd_ref *sr[3] = {&s[0].r, &s[1].r, &s[2].r};
  static const int64_t axes[] = {0, 1, 2, -1, -3};
  for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
    OK(nd_stack(3, sa, axes[i], &out));
    want = ref_stack(3, sr, (int)(axes[i] < 0 ? axes[i] + 3 : axes[i]), ND_FLOAT32);
    nd_ref_expect(out, &want, "nd_stack(axis %lld)", (long long)axes[i]);
    nd_ref_free(&want);
    nd_array_release(out);
  }
  const nd_array *za[4] = {q[2].a, q[2].a, q[2].a, q[2].a};
  const nd_ref *zr[4] = {&q[2].r, &q[2].r, &q[2].r, &q[2].r};
  OK(nd_stack(4, za, 0, &out));
  want = ref_stack(4, zr, 0, ND_FLOAT64);
  nd_ref_expect(out, &want, "nd_stack of four 0-d arrays");
  nd_ref_free(&want);
  nd_array_release(out);
  FAILS_OUT(ND_ERR_SHAPE, "nd_stack: all input arrays must have the same shape", nd_stack(2, ea, 0, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_stack", nd_stack(3, sa, 3, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_stack", nd_stack(0, sa, 0, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_stack", nd_stack(2, withnull, 0, &o));
  for (int i = 0; i < 3; i++) free_part(&s[i]);
  for (int i = 0; i < 2; i++) free_part(&e[i]);
  for (int i = 0; i < 3; i++) free_part(&q[i]);
}
END_TEST

typedef struct tile_ctx {
  int d, andim;
  const int64_t *ashape;
} tile_ctx;

static void tile_map(const int64_t *o, int64_t *s, const void *ctx) {
  const tile_ctx *t = ctx;
  for (int k = 0; k < t->andim; k++) s[k] = o[k + t->d - t->andim] % t->ashape[k];
}

typedef struct repeat_ctx {
  int ax, ndim;
  int64_t rep;
  const int64_t *ashape; /* for axis=None: unravel into the input's shape */
} repeat_ctx;

static void repeat_map(const int64_t *o, int64_t *s, const void *ctx) {
  const repeat_ctx *r = ctx;
  if (r->ax < 0) {
    nd_ref_unravel(r->ndim, r->ashape, o[0] / r->rep, s);
    return;
  }
  for (int k = 0; k < r->ndim; k++) s[k] = k == r->ax ? o[k] / r->rep : o[k];
}

START_TEST(tile_and_repeat) {
  int64_t s23[2] = {2, 3}, s3 = 3;
  part inputs[4] = {make_part(ND_FLOAT32, 2, s23, 0, 1), make_part(ND_INT8, 2, s23, 1, 2),
                    make_part(ND_COMPLEX128, 1, &s3, 2, 3), make_part(ND_INT32, 0, NULL, 0, 4)};
  static const struct {
    int n;
    int64_t reps[3];
  } reps[] = {{1, {2}}, {2, {2, 2}}, {2, {1, 0}}, {3, {3, 1, 2}}, {0, {0}}, {1, {1}}, {2, {3, 1}}};
  for (int i = 0; i < 4; i++)
    for (size_t r = 0; r < sizeof reps / sizeof reps[0]; r++) {
      const nd_ref *a = &inputs[i].r;
      int d = a->ndim > reps[r].n ? a->ndim : reps[r].n;
      int64_t shape[ND_MAXDIMS];
      for (int k = 0; k < d; k++) {
        int ri = k - (d - reps[r].n), si = k - (d - a->ndim);
        shape[k] = (ri >= 0 ? reps[r].reps[ri] : 1) * (si >= 0 ? a->shape[si] : 1);
      }
      tile_ctx ctx = {d, a->ndim, a->shape};
      nd_ref want = nd_ref_gather(a, d, shape, tile_map, &ctx);
      nd_array *out;
      OK(nd_tile(inputs[i].a, reps[r].n, reps[r].n ? reps[r].reps : NULL, &out));
      char sh[128];
      nd_ref_expect(out, &want, "nd_tile(%s %s, reps case %zu)", nd_dtype_name(a->dtype),
                    nd_ref_shape_str(a->ndim, a->shape, sh, sizeof sh), r);
      nd_ref_free(&want);
      nd_array_release(out);
    }
  static const struct {
    int64_t rep, axis;
  } rc[] = {{2, 0}, {2, 1}, {3, -1}, {2, ND_AXIS_NONE}, {0, 0}, {1, 1}, {4, ND_AXIS_NONE}};
  for (int i = 0; i < 4; i++)
    for (size_t r = 0; r < sizeof rc / sizeof rc[0]; r++) {
      const nd_ref *a = &inputs[i].r;
      int64_t axis = rc[r].axis;
      if (axis != ND_AXIS_NONE && (axis >= a->ndim || axis < -a->ndim)) {
        FAILS_OUT(ND_ERR_AXIS, "nd_repeat", nd_repeat(inputs[i].a, rc[r].rep, axis, &o));
        continue;
      }
      repeat_ctx ctx = {axis == ND_AXIS_NONE ? -1 : (int)(axis < 0 ? axis + a->ndim : axis), a->ndim, rc[r].rep, a->shape};
      int64_t shape[ND_MAXDIMS];
      int nd;
      if (ctx.ax < 0) {
        nd = 1;
        shape[0] = a->size * rc[r].rep;
      } else {
        nd = a->ndim;
        memcpy(shape, a->shape, (size_t)nd * sizeof(int64_t));
        shape[ctx.ax] *= rc[r].rep;
      }
      nd_ref want = nd_ref_gather(a, nd, shape, repeat_map, &ctx);
      nd_array *out;
      OK(nd_repeat(inputs[i].a, rc[r].rep, axis, &out));
      nd_ref_expect(out, &want, "nd_repeat(%s %d-d, %lld, axis case %zu)", nd_dtype_name(a->dtype), a->ndim,
                    (long long)rc[r].rep, r);
      nd_ref_free(&want);
      nd_array_release(out);
    }
  const int64_t negrep[2] = {2, -1};
  FAILS_OUT(ND_ERR_VALUE, "nd_tile", nd_tile(inputs[0].a, 2, negrep, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_tile", nd_tile(inputs[0].a, ND_MAXDIMS + 1, negrep, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_tile", nd_tile(inputs[0].a, 2, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_tile", nd_tile(NULL, 0, NULL, &o));
  FAILS_OUT(ND_ERR_VALUE, "nd_repeat", nd_repeat(inputs[0].a, -1, 0, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_repeat: axis 2 is out of bounds", nd_repeat(inputs[0].a, 2, 2, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_repeat", nd_repeat(NULL, 2, 0, &o));
  /* Tiling needs two working dimensions per axis: 17 dimensions are more than it supports. */
  int64_t ones[17];
  for (int i = 0; i < 17; i++) ones[i] = 1;
  nd_array *deep;
  OK(nd_zeros(17, ones, ND_INT8, &deep));
  FAILS_OUT(ND_ERR_NOT_IMPLEMENTED, "nd_tile", nd_tile(deep, 0, NULL, &o));
  nd_array_release(deep);
  for (int i = 0; i < 4; i++) free_part(&inputs[i]);
}
END_TEST

/* ---- the transposed copy path (kernels/copy.cu, k_transpose) --------------------------------- */

static void transpose_case(nd_dtype dt, int64_t R, int64_t C, int offset) {
  /* A (C + pad, R + pad) array whose [pad:, pad:] block, transposed, is the (R, C) source. */
  int pad = offset ? 3 : 0;
  int64_t bs[2] = {C + pad, R + pad};
  nd_ref rb = pattern_ref(dt, 2, bs, 7);
  nd_array *b = nd_ref_upload(&rb), *s, *t, *c;
  nd_slice sl[2] = {{pad, ND_NONE, ND_NONE}, {pad, ND_NONE, ND_NONE}};
  int perm[2] = {1, 0};
  OK(nd_array_slice(b, 2, sl, &s));
  OK(nd_array_transpose(s, 0, NULL, &t));
  nd_ref rs = nd_ref_slice(&rb, 2, sl);
  nd_ref rt = nd_ref_permute(&rs, perm);
  OK(nd_array_copy(t, ND_ORDER_C, &c));
  nd_ref_expect(c, &rt, "C copy of a transposed %s (%lld, %lld)%s", nd_dtype_name(dt), (long long)R, (long long)C,
                offset ? " with an offset" : "");
  nd_array_release(c);
  /* The same data as an F-ordered array made C-contiguous. */
  OK(nd_array_ascontiguous(t, ND_ORDER_C, &c));
  nd_ref_expect(c, &rt, "ascontiguous(C) of a transposed %s (%lld, %lld)", nd_dtype_name(dt), (long long)R, (long long)C);
  nd_array_release(c);
  nd_array_release(t);
  nd_array_release(s);
  nd_array_release(b);
  nd_ref_free(&rb);
}

START_TEST(copy_transposed_kernel_paths) {
  /* Item sizes 1, 2, 4, 8, 16; shapes around the 32- and 64-wide tiles, odd sizes, and the
   * small ones (under 8) that take the element-wise path instead. */
  static const nd_dtype dts[] = {ND_INT8, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
  static const int64_t shapes[][2] = {{33, 65}, {64, 64}, {8, 8}, {65, 33}, {1, 100}, {7, 9},
                                      {257, 130}, {31, 32}, {100, 1}, {129, 8}};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      transpose_case(dts[t], shapes[s][0], shapes[s][1], 0);
      transpose_case(dts[t], shapes[s][0], shapes[s][1], 1);
    }
  transpose_case(ND_FLOAT32, 2049, 1031, 0);
  transpose_case(ND_COMPLEX128, 513, 260, 1);

  /* Batched: (B, R, C) from (B, C, R).transpose(0, 2, 1), and from (C, B, R) moved so that
   * the batch stride sits between the others. */
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
    int64_t s1[3] = {5, 65, 33}, s2[3] = {65, 4, 33};
    const int64_t p1[3] = {0, 2, 1}, p2[3] = {1, 2, 0};
    const int q1[3] = {0, 2, 1}, q2[3] = {1, 2, 0};
    for (int form = 0; form < 2; form++) {
      nd_ref r = pattern_ref(dts[t], 3, form ? s2 : s1, 9);
      nd_array *a = nd_ref_upload(&r), *v, *c;
      OK(nd_array_transpose(a, 3, form ? p2 : p1, &v));
      nd_ref rv = nd_ref_permute(&r, form ? q2 : q1);
      OK(nd_array_copy(v, ND_ORDER_C, &c));
      nd_ref_expect(c, &rv, "C copy of a batched transposed %s (form %d)", nd_dtype_name(dts[t]), form);
      nd_array_release(c);
      nd_array_release(v);
      nd_array_release(a);
      nd_ref_free(&r);
    }
  }
}
END_TEST

/* ---- launches from threads that have made no CUDA call yet ------------------------------
 *
 * The driver launch (kernels/launch.cu) takes the primary context's function handle when that
 * context is current, the context-independent handle otherwise, and the runtime's launch when
 * the thread has no context at all. A fresh thread's first library call can be a launch into
 * arrays it did not allocate: each thread below starts with a different kind of kernel (fill,
 * elementwise, reduction, arange), then runs the others, and the main thread checks every
 * result (Check's assertions stay on the main thread). */

#define FT_N 1000

typedef struct fresh_job {
  int first; /* which operation comes first */
  nd_array *x, *y, *sum_out, *fill_out;
  nd_array *sum, *seq; /* made by the thread */
  nd_status st[4];
  char msg[256]; /* the thread's first error message */
} fresh_job;

static void *fresh_thread(void *p) {
  fresh_job *j = p;
  for (int k = 0; k < 4; k++) {
    const int op = (j->first + k) % 4;
    switch (op) {
      case 0: j->st[op] = nd_array_fill(j->fill_out, nd_scalar_float(7.0)); break;
      case 1: j->st[op] = nd_add(j->x, j->y, j->sum_out, NULL); break;
      case 2: j->st[op] = nd_sum(j->x, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &j->sum); break;
      default: j->st[op] = nd_arange(0, FT_N, 1, ND_FLOAT32, &j->seq); break;
    }
    if (j->st[op] != ND_OK && j->msg[0] == '\0') snprintf(j->msg, sizeof j->msg, "%s", nd_last_error());
  }
  /* The results are read on the main thread, on its own current (legacy) stream: this thread's
   * work went to the same legacy stream, so the reads are ordered after it. */
  return NULL;
}

START_TEST(launch_from_fresh_threads) {
  int64_t n = FT_N;
  nd_array *x, *y;
  OK(nd_arange(0, FT_N, 1, ND_FLOAT32, &x));
  OK(nd_full(1, &n, nd_scalar_float(0.5), ND_FLOAT32, &y));
  for (int first = 0; first < 4; first++) {
    fresh_job j = {first, x, y, NULL, NULL, NULL, NULL, {ND_OK, ND_OK, ND_OK, ND_OK}, ""};
    OK(nd_empty(1, &n, ND_FLOAT32, &j.sum_out));
    OK(nd_empty(1, &n, ND_FLOAT32, &j.fill_out));
    ck_assert_int_eq(cudaDeviceSynchronize(), 0);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, fresh_thread, &j), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    for (int k = 0; k < 4; k++)
      ck_assert_msg(j.st[k] == ND_OK, "thread starting with op %d: op %d failed: %s", first, k, j.msg);
    float h[FT_N];
    OK(nd_array_to_host(j.sum_out, h, sizeof h));
    for (int i = 0; i < FT_N; i++) ck_assert_msg(h[i] == (float)i + 0.5f, "add [%d] = %g (first op %d)", i, h[i], first);
    OK(nd_array_to_host(j.fill_out, h, sizeof h));
    for (int i = 0; i < FT_N; i++) ck_assert_msg(h[i] == 7.0f, "fill [%d] = %g (first op %d)", i, h[i], first);
    OK(nd_array_to_host(j.seq, h, sizeof h));
    for (int i = 0; i < FT_N; i++) ck_assert_msg(h[i] == (float)i, "arange [%d] = %g (first op %d)", i, h[i], first);
    float total = 0;
    OK(nd_array_to_host(j.sum, &total, sizeof total));
    ck_assert_msg(total == (float)(FT_N * (FT_N - 1) / 2), "sum = %g (first op %d)", total, first);
    nd_array_release(j.sum_out);
    nd_array_release(j.fill_out);
    nd_array_release(j.sum);
    nd_array_release(j.seq);
  }
  nd_array_release(x);
  nd_array_release(y);
}
END_TEST

/* Every launch path of kernels/launch.cu gives the same results: the driver launch with the
 * primary context's function handles (the default), with the context-independent handles only
 * (a thread in a context of its own), and the runtime's cudaLaunchKernel (no driver entry
 * point). Copies over every layout, an elementwise sum, a reduction and a sequence. */
START_TEST(launch_paths_agree) {
  static const int modes[] = {ND__LAUNCH_RUNTIME, ND__LAUNCH_DRIVER_KERNEL, ND__LAUNCH_DRIVER};
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    nd__launch_set_mode(modes[m]);
    for (int l = 0; l < ND_REF_NUM_LAYOUTS; l++) {
      nd_ref_layout L;
      nd_ref_layout_make((nd_ref_layout_kind)l, ND_FLOAT64, 5, 7, 17, &L);
      nd_array *c;
      OK(nd_array_copy(L.array, ND_ORDER_F, &c));
      nd_ref_expect(c, &L.ref, "launch mode %d: nd_array_copy(%s view)", modes[m], L.name);
      nd_array_release(c);
      nd_ref_layout_free(&L);
    }
    const int n = 1000;
    nd_array *a, *s, *t;
    OK(nd_arange(0, n, 1, ND_FLOAT64, &a));
    OK(nd_add(a, a, NULL, &s));
    OK(nd_sum(s, 0, NULL, 0, ND_FLOAT64, NULL, &t));
    double h[1000], sum = -1;
    OK(nd_array_to_host(s, h, sizeof h));
    OK(nd_array_to_host(t, &sum, sizeof sum));
    for (int i = 0; i < n; i++) ck_assert_msg(h[i] == 2.0 * i, "launch mode %d: a + a at %d is %g", modes[m], i, h[i]);
    ck_assert_msg(sum == (double)n * (n - 1), "launch mode %d: sum %g", modes[m], sum);
    nd_array_release(t);
    nd_array_release(s);
    nd_array_release(a);
    /* batched inverses (kernels that opt into more than 48 KiB of shared memory among them):
     * A = 4 I + J (J: ones everywhere) has the inverse (I - J / (4 + n)) / 4 */
    static const struct { nd_dtype dt; int64_t n; } inv[] = {{ND_FLOAT32, 8}, {ND_FLOAT32, 30}, {ND_FLOAT64, 32}, {ND_FLOAT64, 100}};
    for (size_t c = 0; c < sizeof inv / sizeof inv[0]; c++) {
      const int64_t nn = inv[c].n, sh[3] = {3, nn, nn};
      const size_t cnt = (size_t)(3 * nn * nn);
      double *hd = malloc(cnt * sizeof(double));
      float *hf = malloc(cnt * sizeof(float));
      for (size_t i = 0; i < cnt; i++) {
        hd[i] = 1.0 + 4.0 * (i / (size_t)nn % (size_t)nn == i % (size_t)nn);
        hf[i] = (float)hd[i];
      }
      nd_array *mat, *im;
      if (inv[c].dt == ND_FLOAT32) OK(nd_array_from_host(hf, cnt * sizeof(float), 3, sh, ND_FLOAT32, &mat));
      else OK(nd_array_from_host(hd, cnt * sizeof(double), 3, sh, ND_FLOAT64, &mat));
      free(hd);
      free(hf);
      OK(nd_linalg_inv(mat, &im));
      nd_array *im64;
      OK(nd_array_astype(im, ND_FLOAT64, &im64));
      double *hi = malloc((size_t)(3 * nn * nn) * sizeof(double));
      OK(nd_array_to_host(im64, hi, (size_t)(3 * nn * nn) * sizeof(double)));
      const double tol = inv[c].dt == ND_FLOAT32 ? 1e-5 : 1e-13;
      for (int64_t i = 0; i < 3 * nn * nn; i++) {
        const int64_t r = i / nn % nn, col = i % nn;
        const double want = ((r == col) - 1.0 / (4.0 + (double)nn)) / 4.0;
        ck_assert_msg(fabs(hi[i] - want) <= tol, "launch mode %d: inverse of order %lld, %s at %lld: %g, want %g",
                      modes[m], (long long)nn, nd_dtype_name(inv[c].dt), (long long)i, hi[i], want);
      }
      free(hi);
      nd_array_release(im64);
      nd_array_release(im);
      nd_array_release(mat);
    }
  }
  ck_assert_int_eq(nd__launch_set_mode(ND__LAUNCH_DRIVER), ND__LAUNCH_DRIVER);
}
END_TEST

static Suite *array_suite(void) {
  Suite *s = suite_create("array");
  TCase *tc = tcase_create("creation");
  tcase_add_test(tc, creation_every_dtype_and_shape);
  tcase_add_test(tc, creation_default_dtypes);
  tcase_add_test(tc, creation_like_keeps_layout);
  tcase_add_test(tc, creation_bad_inputs);
  tcase_add_test(tc, creation_arange);
  tcase_add_test(tc, creation_linspace);
  tcase_add_test(tc, creation_eye_identity_tri);
  tcase_add_test(tc, creation_tril_triu);
  tcase_add_test(tc, creation_diag);
  suite_add_tcase(s, tc);
  tc = tcase_create("transfer");
  tcase_add_test(tc, transfer_round_trip_every_dtype);
  tcase_add_test(tc, transfer_to_host_of_views);
  tcase_add_test(tc, transfer_async_pinned);
  tcase_add_test(tc, transfer_from_device_ptr);
  suite_add_tcase(s, tc);
  tc = tcase_create("astype");
  tcase_add_test(tc, astype_every_pair_matches_numpy);
  tcase_add_test(tc, astype_layouts_and_typed_paths);
  suite_add_tcase(s, tc);
  tc = tcase_create("copy");
  tcase_add_test(tc, copy_orders_and_layouts);
  tcase_add_test(tc, ascontiguous_reuses_or_copies);
  tcase_add_test(tc, copy_of_swapped_axes_every_item_size);
  tcase_add_test(tc, copyto_broadcasts_into_strided_views);
  tcase_add_test(tc, copyto_casting_and_errors);
  tcase_add_test(tc, copyto_overlapping_views);
  tcase_add_test(tc, fill_every_kind_into_every_dtype);
  tcase_add_test(tc, fill_contiguous_lengths_and_alignments);
  tcase_add_test(tc, fill_past_the_l2_cache);
  tcase_add_test(tc, concatenate_and_stack);
  tcase_add_test(tc, tile_and_repeat);
  tcase_add_test(tc, copy_transposed_kernel_paths);
  suite_add_tcase(s, tc);
  tc = tcase_create("threads");
  tcase_add_test(tc, launch_from_fresh_threads);
  tcase_add_test(tc, launch_paths_agree);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(array_suite()); }
