/* Host conversions against NumPy: nd__scalar_to_bytes (the bytes that fill and full write),
 * the half-precision helpers of src/convert.c, and the host reference of tests/src/nd_ref.c
 * that every GPU suite trusts (its conversions and its strided indexing).
 *
 * Expected values come from NumPy 2.4 on x86-64, generated once and pasted as literals (the
 * cast table lives in nd_ref.c, with its generator; the half tables are below, with theirs).
 * Nothing calls Python at run time. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/array.h"
#include "src/convert.h"
#include "tests/src/nd_ref.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static char *hex_of(const unsigned char *b, size_t n, char *buf, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 3 <= cap; i++) k += (size_t)snprintf(buf + k, cap - k, "%02x", b[i]);
  if (n == 0 && cap > 0) buf[0] = '\0';
  return buf;
}

/* Decodes one case of the cast table: source values and each target's expected bytes. */
typedef struct decoded_case {
  const nd_ref_cast_case *c;
  unsigned char src[64 * 16];
  unsigned char dst[ND_NUM_DTYPES][64 * 16];
} decoded_case;

static void decode_case(int s, decoded_case *d) {
  const nd_ref_cast_case *c = &nd_ref_cast_table[s];
  d->c = c;
  ck_assert_msg(c->src == (nd_dtype)s, "cast table entry %d is for dtype %d", s, (int)c->src);
  ck_assert_msg(c->n > 0 && c->n <= 64, "cast table entry %s: n = %d", nd_dtype_name(c->src), c->n);
  int64_t got = nd_ref_unhex(c->src_hex, d->src, sizeof d->src);
  ck_assert_msg(got == c->n * (int64_t)nd_dtype_itemsize(c->src), "cast table %s: %lld source bytes "
                "for %d values", nd_dtype_name(c->src), (long long)got, c->n);
  for (int t = 0; t < ND_NUM_DTYPES; t++) {
    got = nd_ref_unhex(c->dst_hex[t], d->dst[t], sizeof d->dst[t]);
    ck_assert_msg(got == c->n * (int64_t)nd_dtype_itemsize((nd_dtype)t), "cast table %s -> %s: %lld "
                  "bytes for %d values", nd_dtype_name(c->src), nd_dtype_name((nd_dtype)t),
                  (long long)got, c->n);
  }
}

/* A converter under test: writes v converted to dtype into out (16 bytes of room). */
typedef void (*converter)(nd_scalar v, nd_dtype dtype, unsigned char *out);

static void conv_library(nd_scalar v, nd_dtype dtype, unsigned char *out) {
  nd_kscalar k;
  nd__scalar_to_bytes(v, dtype, &k);
  memcpy(out, k.bytes, 16);
}

static void conv_reference(nd_scalar v, nd_dtype dtype, unsigned char *out) {
  memset(out, 0, 16);
  nd_ref_store(dtype, out, v);
}

/* Runs one converter over the whole table. Source scalars are strong scalars of the source
 * dtype; int64, float64 and complex128 rows are also run as the weak kinds, which convert the
 * same way (NumPy's full/fill of a Python scalar is an unsafe cast from those dtypes). Byte
 * comparison is exact: on the host, NaN payloads come out as NumPy's do. */
static void check_converter(converter conv, const char *name) {
  static decoded_case d;
  char msg[4096];
  size_t m = 0;
  int bad = 0, total = 0;
  msg[0] = '\0';
  for (int s = 0; s < ND_NUM_DTYPES; s++) {
    decode_case(s, &d);
    size_t ssz = nd_dtype_itemsize((nd_dtype)s);
    for (int weak = 0; weak < 2; weak++) {
      nd_dtype wk = s == ND_INT64 ? ND_PYINT : s == ND_FLOAT64 ? ND_PYFLOAT : s == ND_COMPLEX128 ? ND_PYCOMPLEX : ND_BOOL;
      if (weak && wk == ND_BOOL) continue;
      for (int k = 0; k < d.c->n; k++) {
        nd_scalar v = nd_ref_load((nd_dtype)s, d.src + (size_t)k * ssz);
        if (weak) v.dtype = wk;
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
          size_t tsz = nd_dtype_itemsize((nd_dtype)t);
          unsigned char out[16];
          conv(v, (nd_dtype)t, out);
          total++;
          const unsigned char *want = d.dst[t] + (size_t)k * tsz;
          if (memcmp(out, want, tsz) == 0) continue;
          if (bad < 12 && m < sizeof msg) {
            char vs[128], g[40], w[40];
            m += (size_t)snprintf(msg + m, sizeof msg - m, "\n  %s%s value %d (%s) -> %s: got %s, want %s",
                                  weak ? "weak " : "", nd_dtype_name((nd_dtype)s), k,
                                  nd_ref_format((nd_dtype)s, d.src + (size_t)k * ssz, vs, sizeof vs),
                                  nd_dtype_name((nd_dtype)t), hex_of(out, tsz, g, sizeof g),
                                  hex_of(want, tsz, w, sizeof w));
          }
          bad++;
        }
      }
    }
  }
  ck_assert_msg(bad == 0, "%s: %d of %d conversions differ from NumPy:%s", name, bad, total, msg);
  ck_assert_int_gt(total, 14 * 14 * 5);
}

/* ---- the cast table --------------------------------------------------------------------- */

START_TEST(cast_table_is_well_formed) {
  static decoded_case d;
  for (int s = 0; s < ND_NUM_DTYPES; s++) {
    decode_case(s, &d);
    /* Each row converted to its own dtype is itself (the table's own sanity). */
    size_t n = (size_t)d.c->n * nd_dtype_itemsize((nd_dtype)s);
    ck_assert_msg(memcmp(d.src, d.dst[s], n) == 0, "%s -> %s is not the identity", nd_dtype_name((nd_dtype)s),
                  nd_dtype_name((nd_dtype)s));
  }
  unsigned char b[4];
  ck_assert_int_eq(nd_ref_unhex("0aff", b, sizeof b), 2);
  ck_assert_int_eq(b[0], 0x0a);
  ck_assert_int_eq(b[1], 0xff);
  ck_assert_int_eq(nd_ref_unhex("0g", b, sizeof b), -1);
  ck_assert_int_eq(nd_ref_unhex("abc", b, sizeof b), -1);
  ck_assert_int_eq(nd_ref_unhex("0011223344", b, sizeof b), -1);
}
END_TEST

START_TEST(scalar_to_bytes_matches_numpy) { check_converter(conv_library, "nd__scalar_to_bytes"); }
END_TEST

START_TEST(reference_store_matches_numpy) { check_converter(conv_reference, "nd_ref_store"); }
END_TEST

START_TEST(scalar_to_bytes_spot_values) {
  /* Hand-checked spot values, readable where the table is not. */
  nd_kscalar k;
  nd__scalar_to_bytes(nd_scalar_float(300.7), ND_INT8, &k);
  ck_assert_int_eq((int8_t)k.bytes[0], 44); /* 300 mod 256 */
  nd__scalar_to_bytes(nd_scalar_float(-1.5), ND_UINT8, &k);
  ck_assert_int_eq(k.bytes[0], 255);
  nd__scalar_to_bytes(nd_scalar_float(NAN), ND_INT32, &k);
  int32_t i32;
  memcpy(&i32, k.bytes, 4);
  ck_assert_int_eq(i32, INT32_MIN);
  nd__scalar_to_bytes(nd_scalar_complex(0.0, 2.0), ND_BOOL, &k);
  ck_assert_int_eq(k.bytes[0], 1);
  nd__scalar_to_bytes(nd_scalar_complex(-0.0, 0.0), ND_BOOL, &k);
  ck_assert_int_eq(k.bytes[0], 0);
  nd__scalar_to_bytes(nd_scalar_complex(3.5, -2.0), ND_FLOAT32, &k);
  float f;
  memcpy(&f, k.bytes, 4);
  ck_assert(f == 3.5f);
  nd__scalar_to_bytes(nd_scalar_int(-1), ND_UINT64, &k);
  uint64_t u;
  memcpy(&u, k.bytes, 8);
  ck_assert(u == UINT64_MAX);
  nd__scalar_to_bytes(nd_scalar_bool(1), ND_COMPLEX128, &k);
  double c[2];
  memcpy(c, k.bytes, 16);
  ck_assert(c[0] == 1.0 && c[1] == 0.0);
  /* The unused bytes are zero, so a fill kernel can copy all 16. */
  nd__scalar_to_bytes(nd_scalar_int(-1), ND_INT8, &k);
  for (int i = 1; i < 16; i++) ck_assert_int_eq(k.bytes[i], 0);
  /* Strong unsigned scalars above INT64_MAX keep their value. */
  nd_scalar big;
  big.dtype = ND_UINT64;
  big.v.u = UINT64_MAX;
  nd__scalar_to_bytes(big, ND_FLOAT64, &k);
  double d;
  memcpy(&d, k.bytes, 8);
  ck_assert(d == 18446744073709551616.0);
}
END_TEST

/* ---- half precision --------------------------------------------------------------------- */

/* np.array([x]).astype(np.float16).view(np.uint16) for each x. */
static const struct {
  double x;
  uint16_t h;
} half_cases[] = {
    {0.0, 0x0000},
    {-0.0, 0x8000},
    {1.0, 0x3c00},
    {-1.0, 0xbc00},
    {65504.0, 0x7bff},
    {65519.99, 0x7bff},
    {65520.0, 0x7c00}, /* the tie between 65504 and 2^16 rounds to even: infinity */
    {-65520.0, 0xfc00},
    {65536.0, 0x7c00},
    {1e+20, 0x7c00},
    {INFINITY, 0x7c00},
    {-INFINITY, 0xfc00},
    {NAN, 0x7e00},
    {6.103515625e-05, 0x0400},
    {5.960464477539063e-08, 0x0001},
    {2.9802322387695312e-08, 0x0000}, /* half of the smallest subnormal: ties to even (0) */
    {2.980232536792755e-08, 0x0001},
    {-2.9802322387695312e-08, 0x8000},
    {8.940696716308594e-08, 0x0002}, /* 1.5 subnormal quanta: ties to even (2) */
    {1.4901161193847656e-08, 0x0000},
    {1e-08, 0x0000},
    {6.1e-05, 0x03ff},
    {6.097555160522461e-05, 0x03ff},
    {6.102025508880615e-05, 0x0400}, /* rounds up from the subnormals into the normals */
    {1.00048828125, 0x3c00},         /* 1 + 2^-11: tie, even */
    {1.00146484375, 0x3c02},         /* 1 + 3 * 2^-11: tie, even */
    {1.0004882812509095, 0x3c01},    /* just above the tie: no double rounding via float */
    {1.0004882812490905, 0x3c00},
    {2049.0, 0x6800},
    {2051.0, 0x6802},
    {4095.0, 0x6c00},
    {0.1, 0x2e66},
    {0.3333333333333333, 0x3555},
    {-0.6666666666666666, 0xb955},
    {3.14159, 0x4248},
    {1e-300, 0x0000},
    {5e-324, 0x0000},
    {1024.5, 0x6400},
    {1025.5, 0x6402},
    {2047.9, 0x6800},
    {300.7, 0x5cb3},
    {-300.7, 0xdcb3},
};

START_TEST(double_to_half_matches_numpy) {
  for (size_t i = 0; i < sizeof half_cases / sizeof half_cases[0]; i++) {
    uint16_t a = nd__double_to_half(half_cases[i].x), b = nd_ref_double_to_half(half_cases[i].x);
    ck_assert_msg(a == half_cases[i].h, "nd__double_to_half(%.17g) = 0x%04x, want 0x%04x", half_cases[i].x,
                  a, half_cases[i].h);
    ck_assert_msg(b == half_cases[i].h, "nd_ref_double_to_half(%.17g) = 0x%04x, want 0x%04x",
                  half_cases[i].x, b, half_cases[i].h);
  }
}
END_TEST

/* 64-bit FNV-1a, fed byte by byte. */
static uint64_t fnv_add(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}
#define FNV_INIT UINT64_C(0xcbf29ce484222325)

START_TEST(half_to_double_exhaustive) {
  /* NumPy: h = np.arange(65536).astype(np.uint16).view(np.float16).astype(np.float64);
   * bits = h.view(np.uint64); bits[np.isnan(h)] = 0x7ff8000000000000; FNV-1a of the bytes. */
  uint64_t fnv = FNV_INIT;
  for (uint32_t h = 0; h < 65536; h++) {
    double a = nd__half_to_double((uint16_t)h), b = nd_ref_half_to_double((uint16_t)h);
    uint64_t bits;
    if (isnan(a)) {
      bits = UINT64_C(0x7ff8000000000000);
      ck_assert_msg(isnan(b), "half 0x%04x: library NaN, reference %.17g", h, b);
    } else {
      memcpy(&bits, &a, 8);
      ck_assert_msg(memcmp(&a, &b, 8) == 0, "half 0x%04x: library %.17g, reference %.17g", h, a, b);
    }
    fnv = fnv_add(fnv, &bits, 8);
  }
  ck_assert_msg(fnv == UINT64_C(0xfe87bb782adb2fc5), "FNV of all halves as doubles: 0x%016llx, NumPy "
                "0xfe87bb782adb2fc5", (unsigned long long)fnv);
  /* Spot values, as NumPy prints them. */
  ck_assert(nd__half_to_double(0x0001) == 5.960464477539063e-08);
  ck_assert(nd__half_to_double(0x03ff) == 6.097555160522461e-05);
  ck_assert(nd__half_to_double(0x3555) == 0.333251953125);
  ck_assert(nd__half_to_double(0x3c01) == 1.0009765625);
  ck_assert(nd__half_to_double(0xfbff) == -65504.0);
  ck_assert(signbit(nd__half_to_double(0x8000)) && nd__half_to_double(0x8000) == 0.0);
}
END_TEST

START_TEST(double_to_half_round_trip_and_ties) {
  /* Every finite half survives the round trip; NaNs stay NaN. Between each pair of adjacent
   * positive halves, the exact midpoint goes to the even one and its neighbouring doubles go
   * to the nearer one (both signs). */
  for (uint32_t h = 0; h < 65536; h++) {
    double x = nd__half_to_double((uint16_t)h);
    uint16_t back = nd__double_to_half(x);
    if (isnan(x)) {
      ck_assert_msg((back & 0x7c00) == 0x7c00 && (back & 0x3ff), "NaN 0x%04x -> 0x%04x", h, back);
      continue;
    }
    ck_assert_msg(back == h, "half 0x%04x -> %.17g -> 0x%04x", h, x, back);
  }
  for (uint32_t h = 0; h < 0x7c00; h++) {
    /* Above 65504 the next step would be 2^16, which is where infinity begins. */
    double lo = nd__half_to_double((uint16_t)h);
    double hi = h + 1 == 0x7c00 ? 65536.0 : nd__half_to_double((uint16_t)(h + 1));
    double mid = lo + (hi - lo) / 2; /* exact: a few more bits than a half has */
    uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
    for (int sgn = 0; sgn < 2; sgn++) {
      double m = sgn ? -mid : mid;
      uint16_t sb = sgn ? 0x8000 : 0;
      double below = nextafter(m, 0.0), above = nextafter(m, sgn ? -INFINITY : INFINITY);
      uint16_t got[3] = {nd__double_to_half(m), nd__double_to_half(below), nd__double_to_half(above)};
      uint16_t ref[3] = {nd_ref_double_to_half(m), nd_ref_double_to_half(below), nd_ref_double_to_half(above)};
      uint16_t want[3] = {(uint16_t)(sb | even), (uint16_t)(sb | h), (uint16_t)(sb | (h + 1))};
      for (int i = 0; i < 3; i++) {
        ck_assert_msg(got[i] == want[i], "nd__double_to_half(%.17g) = 0x%04x, want 0x%04x (between 0x%04x "
                      "and 0x%04x)", i == 0 ? m : i == 1 ? below : above, got[i], want[i], h, h + 1);
        ck_assert_msg(ref[i] == want[i], "nd_ref_double_to_half(%.17g) = 0x%04x, want 0x%04x",
                      i == 0 ? m : i == 1 ? below : above, ref[i], want[i]);
      }
    }
  }
}
END_TEST

/* The sample generator shared with the NumPy script below: splitmix64 outputs turned into
 * doubles with exponents in [2^-40, 2^15], a quarter of them exact ties of the normal range. */
static double half_sample(uint64_t *s) {
  *s += UINT64_C(0x9E3779B97F4A7C15);
  uint64_t z = *s;
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  uint64_t sign = z >> 63, e = 1023 + ((z >> 52) % 56) - 40, man = z & ((UINT64_C(1) << 52) - 1);
  if (((z >> 8) & 3) == 0) man = (man & ~((UINT64_C(1) << 42) - 1)) | (UINT64_C(1) << 41);
  uint64_t bits = (sign << 63) | (e << 52) | man;
  double x;
  memcpy(&x, &bits, 8);
  return x;
}

START_TEST(double_to_half_random_matches_numpy) {
  /* NumPy (same generator in Python ints, N = 200000):
   *   x = np.array(samples, dtype=np.uint64).view(np.float64)
   *   FNV-1a of x.astype(np.float16).view(np.uint16).tobytes()  ->  0xa44103fa18cd2059
   * The first three samples are 8.48168405, -1.71458753e-07, -9.94134821e-09, which NumPy
   * makes 0x483e, 0x8003, 0x8000. */
  uint64_t s = UINT64_C(0x243F6A8885A308D3), fnv = FNV_INIT;
  int mism = 0;
  for (int i = 0; i < 200000; i++) {
    double x = half_sample(&s);
    uint16_t h = nd__double_to_half(x), r = nd_ref_double_to_half(x);
    if (h != r && mism++ < 5) ck_abort_msg("sample %d (%.17g): library 0x%04x, reference 0x%04x", i, x, h, r);
    if (i == 0) ck_assert_int_eq(h, 0x483e);
    if (i == 1) ck_assert_int_eq(h, 0x8003);
    if (i == 2) ck_assert_int_eq(h, 0x8000);
    fnv = fnv_add(fnv, &h, 2);
  }
  ck_assert_msg(fnv == UINT64_C(0xa44103fa18cd2059), "FNV of 200000 conversions: 0x%016llx, NumPy "
                "0xa44103fa18cd2059", (unsigned long long)fnv);
}
END_TEST

/* ---- the host reference's arrays -------------------------------------------------------- */

static int32_t ref_i32(const nd_ref *r, int64_t k) { return (int32_t)nd_ref_get(r, k).v.i; }

static void expect_i32s(const nd_ref *r, int n, const int32_t *want, const char *what) {
  ck_assert_msg(r->size == n, "%s: size %lld, want %d", what, (long long)r->size, n);
  for (int k = 0; k < n; k++)
    ck_assert_msg(ref_i32(r, k) == want[k], "%s: element %d is %d, want %d", what, k, ref_i32(r, k), want[k]);
}

START_TEST(reference_arrays_index_like_numpy) {
  /* a = np.arange(12, dtype=np.int32).reshape(3, 4) */
  int64_t shape[2] = {3, 4};
  nd_ref a = nd_ref_new(ND_INT32, 2, shape);
  for (int k = 0; k < 12; k++) nd_ref_set(&a, k, nd_scalar_int(k));
  ck_assert_int_eq(a.strides[0], 16);
  ck_assert_int_eq(a.strides[1], 4);
  int64_t idx[2] = {2, 1};
  ck_assert_int_eq(*(int32_t *)nd_ref_ptr(&a, idx), 9);
  nd_ref_unravel(2, shape, 7, idx);
  ck_assert(idx[0] == 1 && idx[1] == 3);

  nd_ref f = nd_ref_new_order(ND_INT32, 2, shape, 'F');
  ck_assert(f.strides[0] == 4 && f.strides[1] == 12);
  nd_ref_assign(&f, &a);
  ck_assert_int_eq(*(int32_t *)(f.data + 4), 4); /* F order: element (1, 0) is second */
  nd_ref_expect_ref(&f, &a, "F-ordered copy");

  /* a[1:, ::-2] -> [[7, 5], [11, 9]] */
  nd_slice sl[2] = {{1, ND_NONE, ND_NONE}, {ND_NONE, ND_NONE, -2}};
  nd_ref v = nd_ref_slice(&a, 2, sl);
  static const int32_t want_slice[] = {7, 5, 11, 9};
  expect_i32s(&v, 4, want_slice, "a[1:, ::-2]");
  /* a.T[::-1] -> rows of a.T reversed: [[3, 7, 11], [2, 6, 10], [1, 5, 9], [0, 4, 8]] */
  int perm[2] = {1, 0};
  nd_ref t = nd_ref_permute(&a, perm);
  nd_ref tf = nd_ref_flip(&t, 0);
  static const int32_t want_tf[] = {3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8};
  expect_i32s(&tf, 12, want_tf, "a.T[::-1]");
  /* a[:, -1] -> [3, 7, 11]; a[1] -> [4, 5, 6, 7] */
  nd_ref col = nd_ref_index(&a, 1, -1);
  static const int32_t want_col[] = {3, 7, 11};
  expect_i32s(&col, 3, want_col, "a[:, -1]");
  nd_ref row = nd_ref_index(&a, 0, 1);
  static const int32_t want_row[] = {4, 5, 6, 7};
  expect_i32s(&row, 4, want_row, "a[1]");
  /* np.broadcast_to(a[1], (2, 4)) */
  int64_t bshape[2] = {2, 4};
  nd_ref b = nd_ref_broadcast(&row, 2, bshape);
  static const int32_t want_b[] = {4, 5, 6, 7, 4, 5, 6, 7};
  expect_i32s(&b, 8, want_b, "broadcast_to(a[1], (2, 4))");
  ck_assert_int_eq(b.strides[0], 0);
  /* reshape(a.T, (2, 6)) copies in C order of a.T */
  int64_t rs[2] = {2, 6};
  nd_ref r = nd_ref_reshape(&t, 2, rs);
  static const int32_t want_r[] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
  expect_i32s(&r, 12, want_r, "a.T.reshape(2, 6)");
  nd_ref_free(&r);
  /* An empty slice keeps the data pointer and has size 0. */
  nd_slice empty[1] = {{5, 1, 1}};
  nd_ref e = nd_ref_slice(&a, 1, empty);
  ck_assert_int_eq(e.size, 0);
  ck_assert_int_eq(e.shape[0], 0);

  /* Overlapping assignment reads the source first: x[1:] = x[:-1] on arange(6). */
  int64_t six = 6;
  nd_ref x = nd_ref_new(ND_INT32, 1, &six);
  for (int k = 0; k < 6; k++) nd_ref_set(&x, k, nd_scalar_int(k));
  nd_slice tail = {1, ND_NONE, ND_NONE}, head = {ND_NONE, -1, ND_NONE};
  nd_ref xt = nd_ref_slice(&x, 1, &tail), xh = nd_ref_slice(&x, 1, &head);
  nd_ref_assign(&xt, &xh);
  static const int32_t want_x[] = {0, 0, 1, 2, 3, 4};
  expect_i32s(&x, 6, want_x, "x[1:] = x[:-1]");
  nd_ref_free(&x);
  nd_ref_free(&f);
  nd_ref_free(&a);
}
END_TEST

static void transpose_map(const int64_t *o, int64_t *s, const void *ctx) {
  (void)ctx;
  s[0] = o[1];
  s[1] = o[0];
}

START_TEST(reference_gather_pattern_and_same) {
  int64_t shape[2] = {3, 5}, tshape[2] = {5, 3};
  nd_ref a = nd_ref_new(ND_FLOAT16, 2, shape);
  nd_ref_fill_pattern(&a, 0);
  int perm[2] = {1, 0};
  nd_ref t = nd_ref_permute(&a, perm);
  nd_ref g = nd_ref_gather(&a, 2, tshape, transpose_map, NULL);
  nd_ref_expect_ref(&g, &t, "gather(transpose) vs permute");
  nd_ref_free(&g);
  nd_ref_free(&a);

  /* Patterns are exact in their dtype and distinct over a small range. */
  for (int dt = 1; dt < ND_NUM_DTYPES; dt++) {
    for (int64_t i = 0; i < 200; i++)
      for (int64_t j = i + 1; j < 200; j++) {
        unsigned char x[16] = {0}, y[16] = {0};
        nd_ref_store((nd_dtype)dt, x, nd_ref_pattern((nd_dtype)dt, i));
        nd_ref_store((nd_dtype)dt, y, nd_ref_pattern((nd_dtype)dt, j));
        ck_assert_msg(!nd_ref_same((nd_dtype)dt, x, y), "%s pattern %lld == pattern %lld",
                      nd_dtype_name((nd_dtype)dt), (long long)i, (long long)j);
      }
  }
  /* nd_ref_same: NaN matches NaN of any payload, 0 and -0 differ. */
  float n1 = NAN, n2, z = 0.0f, mz = -0.0f;
  uint32_t bits = 0x7fffffffu;
  memcpy(&n2, &bits, 4);
  ck_assert(nd_ref_same(ND_FLOAT32, &n1, &n2));
  ck_assert(!nd_ref_same(ND_FLOAT32, &n1, &z));
  ck_assert(!nd_ref_same(ND_FLOAT32, &z, &mz));
  uint16_t h1 = 0x7e00, h2 = 0x7fff, hinf = 0x7c00;
  ck_assert(nd_ref_same(ND_FLOAT16, &h1, &h2));
  ck_assert(!nd_ref_same(ND_FLOAT16, &h1, &hinf));
  double c1[2] = {1.0, NAN}, c2[2] = {1.0, -NAN}, c3[2] = {2.0, NAN};
  ck_assert(nd_ref_same(ND_COMPLEX128, c1, c2));
  ck_assert(!nd_ref_same(ND_COMPLEX128, c1, c3));
  char buf[128];
  ck_assert_str_eq(nd_ref_format(ND_FLOAT32, &mz, buf, sizeof buf), "float32 -0 [0x80000000]");
  ck_assert_str_eq(nd_ref_format_scalar(nd_scalar_int(-3), buf, sizeof buf), "int -3");
  int64_t s3[3] = {2, 0, 5};
  ck_assert_str_eq(nd_ref_shape_str(3, s3, buf, sizeof buf), "(2, 0, 5)");
  ck_assert_str_eq(nd_ref_shape_str(1, s3, buf, sizeof buf), "(2,)");
  ck_assert_str_eq(nd_ref_shape_str(0, s3, buf, sizeof buf), "()");
}
END_TEST

static Suite *convert_suite(void) {
  Suite *s = suite_create("convert_host");
  TCase *tc = tcase_create("numpy");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cast_table_is_well_formed);
  tcase_add_test(tc, scalar_to_bytes_matches_numpy);
  tcase_add_test(tc, reference_store_matches_numpy);
  tcase_add_test(tc, scalar_to_bytes_spot_values);
  tcase_add_test(tc, double_to_half_matches_numpy);
  tcase_add_test(tc, half_to_double_exhaustive);
  tcase_add_test(tc, double_to_half_round_trip_and_ties);
  tcase_add_test(tc, double_to_half_random_matches_numpy);
  suite_add_tcase(s, tc);
  TCase *ref = tcase_create("reference");
  tcase_add_test(ref, reference_arrays_index_like_numpy);
  tcase_add_test(ref, reference_gather_pattern_and_same);
  suite_add_tcase(s, ref);
  return s;
}

int main(void) { return nd_test_main(convert_suite()); }
