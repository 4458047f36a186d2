/* GPU suite for sorting and searching: sort, argsort, partition, unique, searchsorted,
 * nonzero, argwhere, isin, bincount, histogram.
 *
 * The reference is a stable host sort with NumPy's order (NaN last, -0.0 tied with 0.0;
 * complex by real then imaginary part with NaN parts last, in NumPy's classes), applied to
 * the same values through the nd_ref views, over every dtype and the awkward
 * layouts, along every axis and flattened, with sizes that take each device path (native
 * one-row keys, composite row keys, the two-pass sort of 8-byte types, and the one-block
 * sorts of rows up to 16384 keys). Special values (NaN,
 * +-inf, -0.0, duplicates) are planted in the float inputs. The histogram counts were
 * generated with NumPy 2.4.6 (generator quoted above the table). Exits 77 without a GPU. */
#include "tests/nd_test.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/src/nd_ref.h"

static int cmp_num(double a, double b) { return (a > b) - (a < b); }

/* NumPy's sort order: <0, 0, >0. Complex values (npysort's CLT): classes by which parts are
 * NaN, [R + Rj, R + nanj, nan + Rj, nan + nanj], then within a class by the parts that are
 * numbers, real first; -0.0 ties with 0.0. */
static int order_cmp(nd_scalar a, nd_scalar b) {
  switch (nd_dtype_kind(a.dtype)) {
    case 'c': {
      const int ac = 2 * !!isnan(a.v.c[0]) + !!isnan(a.v.c[1]);
      const int bc = 2 * !!isnan(b.v.c[0]) + !!isnan(b.v.c[1]);
      if (ac != bc) return ac - bc;
      if (ac == 3) return 0;
      if (ac == 2) return cmp_num(a.v.c[1], b.v.c[1]);
      const int c = cmp_num(a.v.c[0], b.v.c[0]);
      return c || ac == 1 ? c : cmp_num(a.v.c[1], b.v.c[1]);
    }
    case 'b': return a.v.b - b.v.b;
    case 'i': return (a.v.i > b.v.i) - (a.v.i < b.v.i);
    case 'u': return (a.v.u > b.v.u) - (a.v.u < b.v.u);
    default: {
      int an = isnan(a.v.f), bn = isnan(b.v.f);
      if (an || bn) return an - bn;
      return (a.v.f > b.v.f) - (a.v.f < b.v.f);
    }
  }
}

typedef struct {
  nd_scalar v;
  int64_t i;
} item;

static int item_cmp(const void *x, const void *y) {
  const item *a = x, *b = y;
  int c = order_cmp(a->v, b->v);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Stable sort of r along axis (ND_AXIS_NONE: flattened) on the host: values and indices. */
static void ref_sort(const nd_ref *r, int64_t axis, nd_ref *vals, nd_ref *idx) {
  nd_ref src = axis == ND_AXIS_NONE ? nd_ref_reshape(r, 1, (int64_t[]){r->size}) : nd_ref_copy(r);
  int ax = axis == ND_AXIS_NONE ? 0 : (int)(axis < 0 ? axis + r->ndim : axis);
  *vals = nd_ref_new(r->dtype, src.ndim, src.shape);
  *idx = nd_ref_new(ND_INT64, src.ndim, src.shape);
  int64_t n = src.shape[ax], inner = 1, outer = 1;
  for (int i = ax + 1; i < src.ndim; i++) inner *= src.shape[i];
  for (int i = 0; i < ax; i++) outer *= src.shape[i];
  item *buf = malloc((size_t)(n + 1) * sizeof(item));
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      for (int64_t j = 0; j < n; j++) {
        buf[j].v = nd_ref_get(&src, (o * n + j) * inner + in);
        buf[j].i = j;
      }
      qsort(buf, (size_t)n, sizeof(item), item_cmp);
      for (int64_t j = 0; j < n; j++) {
        int64_t at = (o * n + j) * inner + in;
        memcpy(nd_ref_flat(vals, at), nd_ref_flat(&src, (o * n + buf[j].i) * inner + in), src.itemsize);
        nd_scalar s;
        s.dtype = ND_INT64;
        s.v.i = buf[j].i;
        nd_ref_set(idx, at, s);
      }
    }
  free(buf);
  nd_ref_free(&src);
}

/* Plants NaN, infinities, -0.0 and duplicates into a float or complex reference (C order
 * positions). Complex elements get pairs of special parts (every pair once the array has 72
 * elements), so each NaN class, (-0.0, 0.0) against (0.0, -0.0), and exact duplicates occur. */
static void plant_specials(nd_ref *r) {
  if (nd_dtype_kind(r->dtype) == 'c' && r->size >= 8) {
    const double sp[6] = {NAN, 0.0, INFINITY, -0.0, -INFINITY, 1.5};
    for (int64_t k = 0; k < r->size; k += 2)
      nd_ref_set(r, k, nd_scalar_complex(sp[(k / 2) % 6], sp[(k / 12) % 6]));
    /* sign-bit-set NaN parts must not move a value before the numbers */
    nd_ref_set(r, 1, nd_scalar_complex(copysign(NAN, -1.0), 2.0));
    nd_ref_set(r, 3, nd_scalar_complex(-1.0, copysign(NAN, -1.0)));
    return;
  }
  if (nd_dtype_kind(r->dtype) != 'f' || r->size < 8) return;
  const double sp[8] = {NAN, INFINITY, -0.0, 0.0, -INFINITY, NAN, 1.5, 1.5};
  for (int64_t k = 0; k < r->size; k += 3) nd_ref_set(r, k, nd_scalar_float(sp[(k / 3) % 8]));
  /* a negative NaN: its sign must not move it before the numbers */
  double nn = -NAN;
  nd_ref_set(r, 1, nd_scalar_float(copysign(nn, -1.0)));
}

static void check_sort(const nd_array *a, const nd_ref *ra, int64_t axis, const char *ctx) {
  nd_ref wv, wi;
  ref_sort(ra, axis, &wv, &wi);
  nd_array *gv, *gi;
  ND_ASSERT_OK(nd_sort(a, axis, &gv));
  ND_ASSERT_OK(nd_argsort(a, axis, &gi));
  nd_ref_expect(gv, &wv, "%s: sort of %s axis %lld", ctx, nd_dtype_name(ra->dtype), (long long)axis);
  nd_ref_expect(gi, &wi, "%s: argsort of %s axis %lld", ctx, nd_dtype_name(ra->dtype), (long long)axis);
  nd_array_release(gv);
  nd_array_release(gi);
  if (ra->size > 0) {
    const int64_t n = axis == ND_AXIS_NONE ? ra->size : ra->shape[axis < 0 ? axis + ra->ndim : axis];
    if (n > 0) {
      ND_ASSERT_OK(nd_partition(a, n / 2, axis, &gv));
      nd_ref_expect(gv, &wv, "%s: partition", ctx);
      nd_array_release(gv);
      ND_ASSERT_OK(nd_argpartition(a, -1, axis, &gi));
      nd_ref_expect(gi, &wi, "%s: argpartition", ctx);
      nd_array_release(gi);
    }
  }
  nd_ref_free(&wv);
  nd_ref_free(&wi);
}

START_TEST(test_sort_layouts) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, (nd_dtype)dt, 6, 9, 1 + dt, &l);
      /* specials on a contiguous copy of the same view, so every layout sees them */
      nd_ref r = nd_ref_copy(&l.ref);
      plant_specials(&r);
      nd_array *a = r.ndim == 2 && lk != ND_REF_BROADCAST ? nd_ref_upload(&r) : nd_array_retain(l.array);
      const nd_ref *ra = r.ndim == 2 && lk != ND_REF_BROADCAST ? &r : &l.ref;
      check_sort(l.array, &l.ref, ND_AXIS_NONE, l.name);
      for (int ax = -l.ref.ndim; ax < l.ref.ndim; ax++) check_sort(l.array, &l.ref, ax, l.name);
      check_sort(a, ra, ND_AXIS_NONE, "specials");
      for (int ax = 0; ax < ra->ndim; ax++) check_sort(a, ra, ax, "specials");
      nd_array_release(a);
      nd_ref_free(&r);
      nd_ref_layout_free(&l);
    }
  }
}
END_TEST

START_TEST(test_sort_paths) {
  /* one long row (native keys), many rows of 1-4 byte types (composite keys), many rows of
   * 8-byte types (two passes), both axes */
  static const nd_dtype dts[] = {ND_FLOAT32, ND_INT64,   ND_FLOAT64,   ND_UINT16,    ND_INT8,
                                 ND_FLOAT16, ND_BOOL,    ND_UINT64,    ND_COMPLEX64, ND_COMPLEX128};
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    const int64_t flat[1] = {(1 << 20) + 3}, grid[2] = {257, 1031};
    nd_ref r = nd_ref_new(dts[i], 1, flat);
    nd_ref_fill_pattern(&r, 7);
    plant_specials(&r);
    nd_array *a = nd_ref_upload(&r);
    check_sort(a, &r, 0, "long row");
    nd_array_release(a);
    nd_ref_free(&r);
    r = nd_ref_new(dts[i], 2, grid);
    nd_ref_fill_pattern(&r, 3);
    plant_specials(&r);
    a = nd_ref_upload(&r);
    check_sort(a, &r, 1, "rows");
    check_sort(a, &r, 0, "columns");
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* 3-d, middle axis */
  const int64_t s3[3] = {7, 33, 5};
  nd_ref r = nd_ref_new(ND_FLOAT64, 3, s3);
  nd_ref_fill_pattern(&r, 2);
  plant_specials(&r);
  nd_array *a = nd_ref_upload(&r);
  check_sort(a, &r, 1, "3-d");
  nd_array_release(a);
  nd_ref_free(&r);
}
END_TEST

/* A fixed shuffle of r's elements (Fisher-Yates driven by a 64-bit LCG), so that the sorts see
 * the pattern's duplicates and specials out of order. */
static void shuffle_ref(nd_ref *r, uint64_t seed) {
  char tmp[16];
  for (int64_t k = r->size - 1; k > 0; k--) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    const int64_t j = (int64_t)((seed >> 33) % (uint64_t)(k + 1));
    memcpy(tmp, nd_ref_flat(r, k), r->itemsize);
    memcpy(nd_ref_flat(r, k), nd_ref_flat(r, j), r->itemsize);
    memcpy(nd_ref_flat(r, j), tmp, r->itemsize);
  }
}

/* An array of dt and shape filled with pattern, shuffled with seed, specials planted. */
static nd_ref shuffled_ref(nd_dtype dt, int ndim, const int64_t *shape, int64_t pattern, uint64_t seed) {
  nd_ref r = nd_ref_new(dt, ndim, shape);
  nd_ref_fill_pattern(&r, pattern);
  shuffle_ref(&r, seed);
  plant_specials(&r);
  return r;
}

/* One row of each length in lens, every real dtype: filled with pattern k * pat_mul + pat_add
 * for the k-th length, shuffled (seed dtype * 100 + seed_add + k), specials planted, and sort,
 * argsort, partition and argpartition checked against the host's stable sort. */
static void check_one_rows(const int64_t *lens, size_t count, int64_t pat_mul, int64_t pat_add, int seed_add,
                           const char *label) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    if (nd_dtype_kind((nd_dtype)dt) == 'c') continue;
    for (size_t i = 0; i < count; i++) {
      nd_ref r = shuffled_ref((nd_dtype)dt, 1, &lens[i], pat_mul * (int64_t)i + pat_add,
                              (uint64_t)(dt * 100 + seed_add + (int)i));
      nd_array *a = nd_ref_upload(&r);
      char what[64];
      snprintf(what, sizeof what, "%s, %lld keys", label, (long long)lens[i]);
      check_sort(a, &r, 0, what);
      nd_array_release(a);
      nd_ref_free(&r);
    }
  }
}

/* A (rows, cols) array of dt filled with pattern, shuffled by seed, specials planted: sorted
 * along its rows, and with columns_too along its columns (strided: copied first). */
static void check_shuffled_rows(nd_dtype dt, const int64_t shape[2], int64_t pattern, uint64_t seed,
                                int columns_too) {
  nd_ref r = shuffled_ref(dt, 2, shape, pattern, seed);
  nd_array *a = nd_ref_upload(&r);
  char what[64];
  snprintf(what, sizeof what, "%lld rows of %lld", (long long)shape[0], (long long)shape[1]);
  check_sort(a, &r, 1, what);
  if (columns_too) check_sort(a, &r, 0, what);
  nd_array_release(a);
  nd_ref_free(&r);
}

START_TEST(test_sort_one_block) {
  /* One row that one block sorts (sort/sort_block.cu): lengths on each side of its tiles (2048,
   * 4096, 4864, 8192, 12288 and 16384 keys) and of the 2048 keys up to which wide keys stay
   * with CUB, every real dtype, shuffled, specials planted: the native-key sort and partition,
   * and argsort and argpartition (the one-launch argsort, keys twiddled as they are loaded).
   * One row past 8192 keys (past 12288 for values of 4 bytes, from 3072 keys for argsort of
   * 1-byte keys) goes to the grid sort; the several rows below keep the tiles. */
  static const int64_t lens[] = {2047, 2049, 4096, 4865, 8192, 8193, 12289, 16384, 16385};
  check_one_rows(lens, sizeof lens / sizeof lens[0], 11, 0, 0, "one block");
  /* Several rows, one block each: each side of the row tiles (256 and 1024 keys) and of the
   * largest tiles, every real dtype, along the last axis and (strided, copied first) the
   * first. */
  static const int64_t grids[][2] = {{9, 257}, {40, 1000}, {20, 1024}, {20, 1025}, {30, 2048},
                                     {3, 4864}, {5, 8193}, {2, 16384}, {2, 16385}, {600, 256}};
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    if (nd_dtype_kind((nd_dtype)dt) == 'c') continue;
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
      check_shuffled_rows((nd_dtype)dt, grids[i], 3 * (int64_t)i, (uint64_t)(dt * 100 + 50 + (int)i), 0);
    const int64_t tall[2] = {1000, 7};
    nd_ref r = shuffled_ref((nd_dtype)dt, 2, tall, 4, (uint64_t)dt);
    nd_array *a = nd_ref_upload(&r);
    check_sort(a, &r, 0, "columns of 1000");
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* Views: flattened (a strided input is copied first), along rows and along columns. (3, 2500):
   * one block per row of 2500, a few threads per column of 3. (3, 20001), (20001, 3): flattened,
   * one row of 60003 (the grid sort); rows of 20001, past the one-launch argsort (16384 keys),
   * through CUB's pair sort of twiddled keys (composite row and key), whose positions land in
   * the result straight from the sort as int64 along rows (the long rows of test_sort_paths take
   * uint32 positions, widened as they are written out) and as uint32 positions along columns,
   * whose result is written through strides. */
  static const nd_dtype vdt[] = {ND_FLOAT32, ND_FLOAT64, ND_INT16, ND_INT64, ND_UINT8};
  static const nd_ref_layout_kind kinds[] = {ND_REF_OFFSET, ND_REF_TRANSPOSED, ND_REF_NEGATIVE};
  static const int64_t vshapes[][2] = {{3, 2500}, {3, 20001}, {20001, 3}};
  for (size_t v = 0; v < sizeof vshapes / sizeof vshapes[0]; v++)
    for (size_t i = 0; i < sizeof vdt / sizeof vdt[0]; i++)
      for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        nd_ref_layout l;
        nd_ref_layout_make(kinds[k], vdt[i], vshapes[v][0], vshapes[v][1], 5 + 4 * (int64_t)v + (int64_t)i, &l);
        check_sort(l.array, &l.ref, ND_AXIS_NONE, l.name);
        check_sort(l.array, &l.ref, 1, l.name);
        check_sort(l.array, &l.ref, 0, l.name);
        nd_ref_layout_free(&l);
      }
}
END_TEST

START_TEST(test_sort_grid) {
  /* One row that one cooperative launch sorts (sort/sort_grid.cu): from 8193 keys (12289
   * for values of 4 bytes, 3072 for argsort of 1-byte keys: each side of each bound, the shorter
   * row to the one-block sort) up to 2^19 keys, every real dtype (one 8-bit pass for 1-byte
   * keys, eight for 8-byte ones), shuffled, specials planted: each side of the grid's tiles of
   * 4096 keys and of its largest grid (2^19 keys; one more goes to CUB's sort), sort, argsort,
   * partition and argpartition against the host's stable sort. */
  static const int64_t lens[] = {3071, 3072, 8192, 8193, 12288, 12289, 16384, 16385, 20000, 65543, 262145, 524288, 524289};
  check_one_rows(lens, sizeof lens / sizeof lens[0], 13, 1, 70, "grid");
}
END_TEST

START_TEST(test_sort_grid_streams) {
  /* Cooperative grids on four streams at once, nothing synchronised between them: one row of
   * 2^19 float32 keys (the grid's largest, 128 blocks: about all the device holds, so that no
   * two fit beside each other) sorted and argsorted on each stream, three rounds. Each grid must
   * run whole (the driver holds a cooperative grid back until all its blocks fit), never half
   * resident beside another; every result read back on the legacy stream, which the library
   * orders after the stream that wrote it, against the host's stable sort. */
  const int64_t n = 524288;
  nd_ref r = shuffled_ref(ND_FLOAT32, 1, &n, 29, 2029);
  nd_array *a = nd_ref_upload(&r);
  nd_ref wv, wi;
  ref_sort(&r, 0, &wv, &wi);
  enum { streams = 4, rounds = 3 };
  nd_stream *st[streams];
  nd_array *v[rounds][streams], *ix[rounds][streams];
  for (int k = 0; k < streams; k++) ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &st[k]));
  for (int j = 0; j < rounds; j++)
    for (int k = 0; k < streams; k++) {
      ND_ASSERT_OK(nd_stream_push(st[k]));
      ND_ASSERT_OK(nd_sort(a, 0, &v[j][k]));
      ND_ASSERT_OK(nd_argsort(a, 0, &ix[j][k]));
      ND_ASSERT_OK(nd_stream_pop());
    }
  for (int j = 0; j < rounds; j++)
    for (int k = 0; k < streams; k++) {
      nd_ref_expect(v[j][k], &wv, "grid sort, round %d, stream %d", j, k);
      nd_ref_expect(ix[j][k], &wi, "grid argsort, round %d, stream %d", j, k);
      nd_array_release(v[j][k]);
      nd_array_release(ix[j][k]);
    }
  for (int k = 0; k < streams; k++) ND_ASSERT_OK(nd_stream_destroy(st[k]));
  nd_array_release(a);
  nd_ref_free(&wv);
  nd_ref_free(&wi);
  nd_ref_free(&r);
}
END_TEST

START_TEST(test_sort_under_capture) {
  /* A one-row sort captured into a CUDA graph: the grid sort refuses a capturing stream (its
   * launch is cooperative) and CUB's sort, which captures plainly, takes the row. 65536 float32
   * keys (the grid's range outside a capture), specials planted: sort and argsort right once
   * the graph has run. */
  const int64_t n = 65536;
  nd_ref r = shuffled_ref(ND_FLOAT32, 1, &n, 31, 3031);
  nd_ref wv, wi;
  ref_sort(&r, 0, &wv, &wi);
  nd_stream *s;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  ND_ASSERT_OK(nd_stream_push(s));
  nd_array *a = nd_ref_upload(&r); /* produced on s before the capture */
  cudaStream_t cs = (cudaStream_t)nd_stream_cuda(s);
  ck_assert_int_eq(cudaStreamSynchronize(cs), 0);
  ck_assert_int_eq(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal), 0);
  nd_array *v = NULL, *ix = NULL;
  const nd_status sv = nd_sort(a, 0, &v), si = nd_argsort(a, 0, &ix);
  cudaGraph_t g;
  ck_assert_int_eq(cudaStreamEndCapture(cs, &g), 0);
  ND_ASSERT_OK(sv);
  ND_ASSERT_OK(si);
  cudaGraphExec_t ge;
  ck_assert_int_eq(cudaGraphInstantiate(&ge, g, 0), 0);
  ck_assert_int_eq(cudaGraphLaunch(ge, cs), 0);
  ck_assert_int_eq(cudaStreamSynchronize(cs), 0);
  nd_ref_expect(v, &wv, "sort of %lld keys captured in a graph", (long long)n);
  nd_ref_expect(ix, &wi, "argsort of %lld keys captured in a graph", (long long)n);
  ND_ASSERT_OK(nd_stream_pop());
  nd_array_release(v);
  nd_array_release(ix);
  nd_array_release(a);
  ck_assert_int_eq(cudaGraphExecDestroy(ge), 0);
  ck_assert_int_eq(cudaGraphDestroy(g), 0);
  ND_ASSERT_OK(nd_stream_destroy(s));
  nd_ref_free(&wv);
  nd_ref_free(&wi);
  nd_ref_free(&r);
}
END_TEST

START_TEST(test_argsort_nan_payloads) {
  /* NumPy's argsort orders every NaN alike, last, in input order, whatever its sign and payload;
   * the one-launch argsort twiddles them all to one key, the native order would not. One row,
   * several rows (one block each), rows of 40 (a few threads each), one row of the grid sort
   * and one past it (CUB's pair sort). */
  static const nd_dtype fdt[] = {ND_FLOAT16, ND_FLOAT32, ND_FLOAT64};
  static const int64_t shapes[][2] = {{1, 300}, {1, 3000}, {30, 300}, {500, 40}, {1, 30000}, {1, 600000}};
  for (size_t d = 0; d < sizeof fdt / sizeof fdt[0]; d++)
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      nd_ref r = nd_ref_new(fdt[d], 2, shapes[i]);
      nd_ref_fill_pattern(&r, 11);
      shuffle_ref(&r, 17 + (uint64_t)i);
      for (int64_t k = 0; k < r.size; k += 5) { /* quiet and signalling payloads, both signs */
        const uint64_t p = (uint64_t)(k / 5) % 3 + 1, neg = (uint64_t)(k / 5) % 2;
        if (fdt[d] == ND_FLOAT16) {
          uint16_t b = (uint16_t)(0x7c00u | (k % 2 ? 0x200u : 0u) | p | (neg << 15));
          memcpy(nd_ref_flat(&r, k), &b, 2);
        } else if (fdt[d] == ND_FLOAT32) {
          uint32_t b = 0x7f800000u | (k % 2 ? 0x400000u : 0u) | (uint32_t)p | (uint32_t)(neg << 31);
          memcpy(nd_ref_flat(&r, k), &b, 4);
        } else {
          uint64_t b = 0x7ff0000000000000ull | (k % 2 ? 0x8000000000000ull : 0u) | p | (neg << 63);
          memcpy(nd_ref_flat(&r, k), &b, 8);
        }
      }
      nd_array *a = nd_ref_upload(&r);
      nd_ref wv, wi;
      ref_sort(&r, 1, &wv, &wi);
      nd_array *gi;
      ND_ASSERT_OK(nd_argsort(a, 1, &gi));
      nd_ref_expect(gi, &wi, "argsort of %s (%lld, %lld) with NaN payloads", nd_dtype_name(fdt[d]),
                    (long long)shapes[i][0], (long long)shapes[i][1]);
      nd_array_release(gi);
      nd_array_release(a);
      nd_ref_free(&wv);
      nd_ref_free(&wi);
      nd_ref_free(&r);
    }
}
END_TEST

START_TEST(test_sort_short_rows) {
  /* Several rows of up to 128 keys: a few threads of a warp per row (sort/sort_short.cu), groups
   * of 4, 8, 16 and 32 threads (up to 16, 32, 64 and 128 keys), many rows to a block; just past
   * it the one-block sort's small row tiles. Lengths of 1 key to 256, row counts that leave a
   * block part empty, every real dtype, shuffled, specials planted; along the last axis and
   * (strided, copied first) the first; then views. */
  static const int64_t grids[][2] = {{2, 1}, {3, 2}, {7, 5}, {65, 16}, {500, 17}, {501, 31}, {1000, 64},
                                     {600, 65}, {700, 128}, {300, 129}, {1200, 256}, {1, 256}};
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    if (nd_dtype_kind((nd_dtype)dt) == 'c') continue;
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++)
      check_shuffled_rows((nd_dtype)dt, grids[i], 5 * (int64_t)i, (uint64_t)(dt * 100 + 7 + (int)i),
                          grids[i][0] <= 256);
  }
  static const nd_dtype vdt[] = {ND_FLOAT32, ND_FLOAT64, ND_INT8, ND_UINT64, ND_FLOAT16, ND_BOOL};
  static const nd_ref_layout_kind kinds[] = {ND_REF_OFFSET, ND_REF_TRANSPOSED, ND_REF_NEGATIVE, ND_REF_BROADCAST};
  for (size_t i = 0; i < sizeof vdt / sizeof vdt[0]; i++)
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
      nd_ref_layout l;
      nd_ref_layout_make(kinds[k], vdt[i], 600, 40, 3 + (int64_t)i, &l);
      for (int ax = -l.ref.ndim; ax < l.ref.ndim; ax++) check_sort(l.array, &l.ref, ax, l.name);
      nd_ref_layout_free(&l);
    }
}
END_TEST

START_TEST(test_sort_errors) {
  nd_array *c, *f, *r = NULL;
  ND_ASSERT_OK(nd_ones(1, (int64_t[]){4}, ND_COMPLEX64, &c));
  /* complex input is checked like real input */
  ND_ASSERT_FAILS(nd_sort(c, 1, &r), ND_ERR_AXIS, "nd_sort: axis 1 is out of bounds for array of dimension 1");
  ND_ASSERT_FAILS(nd_argsort(c, -2, &r), ND_ERR_AXIS, "nd_argsort: axis -2 is out of bounds");
  ND_ASSERT_FAILS(nd_partition(c, 4, 0, &r), ND_ERR_VALUE, "nd_partition: kth(=4) out of bounds (4)");
  ND_ASSERT_FAILS(nd_unique(c, NULL, NULL, NULL, NULL), ND_ERR_NULL_POINTER, "nd_unique");
  ck_assert_ptr_null(r);
  ND_ASSERT_OK(nd_ones(2, (int64_t[]){2, 3}, ND_FLOAT32, &f));
  ND_ASSERT_FAILS(nd_sort(f, 2, &r), ND_ERR_AXIS, "nd_sort: axis 2 is out of bounds for array of dimension 2");
  ND_ASSERT_FAILS(nd_partition(f, 3, 1, &r), ND_ERR_VALUE, "nd_partition: kth(=3) out of bounds (3)");
  ND_ASSERT_FAILS(nd_argpartition(f, -4, 1, &r), ND_ERR_VALUE, "nd_argpartition: kth(=-4)");
  ND_ASSERT_FAILS(nd_sort(NULL, 0, &r), ND_ERR_NULL_POINTER, "nd_sort");
  ND_ASSERT_FAILS(nd_sort(f, 0, NULL), ND_ERR_NULL_POINTER, "nd_sort");
  ck_assert_ptr_null(r);
  /* NumPy returns an empty array from partition before it looks at kth; the axis is checked */
  nd_array *e0;
  ND_ASSERT_OK(nd_empty(2, (int64_t[]){0, 3}, ND_FLOAT32, &e0));
  ND_ASSERT_OK(nd_partition(e0, 3, 1, &r));
  ck_assert_int_eq(nd_array_size(r), 0);
  nd_array_release(r);
  ND_ASSERT_OK(nd_argpartition(e0, -7, ND_AXIS_NONE, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_INT64);
  nd_array_release(r);
  r = NULL;
  ND_ASSERT_FAILS(nd_partition(e0, 0, 2, &r), ND_ERR_AXIS, "nd_partition: axis 2 is out of bounds");
  ck_assert_ptr_null(r);
  nd_array_release(e0);
  nd_array_release(c);
  nd_array_release(f);
}
END_TEST

/* isin with complex operands (NumPy promotes both to complex and compares with ==: a NaN
 * part equals nothing). The reference is the brute-force search over every pair. */
static void cvalue(nd_scalar v, double *re, double *im) {
  *im = 0;
  switch (nd_dtype_kind(v.dtype)) {
    case 'b': *re = v.v.b; break;
    case 'i': *re = (double)v.v.i; break;
    case 'u': *re = (double)v.v.u; break;
    case 'f': *re = v.v.f; break;
    default: *re = v.v.c[0], *im = v.v.c[1];
  }
}

static void check_isin_ref(const nd_ref *re, const nd_array *e, const nd_ref *rt, const char *ctx) {
  nd_array *t = nd_ref_upload(rt), *res;
  for (int inv = 0; inv < 2; inv++) {
    ND_ASSERT_OK(nd_isin(e, t, inv, &res));
    nd_ref w = nd_ref_new(ND_BOOL, re->ndim, re->shape);
    for (int64_t k = 0; k < re->size; k++) {
      double xr, xi, yr, yi;
      int found = 0;
      cvalue(nd_ref_get(re, k), &xr, &xi);
      for (int64_t j = 0; j < rt->size && !found; j++) {
        cvalue(nd_ref_get(rt, j), &yr, &yi);
        found = xr == yr && xi == yi;
      }
      nd_ref_set(&w, k, nd_scalar_bool(found != inv));
    }
    nd_ref_expect(res, &w, "%s invert %d", ctx, inv);
    nd_ref_free(&w);
    nd_array_release(res);
  }
  nd_array_release(t);
}

START_TEST(test_isin_complex) {
  /* Test sets of both complex dtypes, large enough for several merge-sort tiles, on a small
   * grid (many duplicates) with NaN real and imaginary parts, -0.0 and infinities. */
  const double grid[8] = {-2, -0.0, 0, 1, 2.5, INFINITY, NAN, -1};
  const nd_dtype tdts[2] = {ND_COMPLEX64, ND_COMPLEX128};
  const nd_dtype edts[4] = {ND_COMPLEX128, ND_COMPLEX64, ND_FLOAT32, ND_INT32};
  for (int a = 0; a < 2; a++) {
    const int64_t nt = a ? 5000 : 37;
    nd_ref rt = nd_ref_new(tdts[a], 1, &nt);
    for (int64_t j = 0; j < nt; j++) {
      /* leave grid point (1, -1) out of the set, so that some elements are not found */
      int64_t r = (j * 7 + 3) % 8, i = (j * 5 + 1) % 8;
      if (r == 3 && i == 7) i = 0;
      nd_ref_set(&rt, j, nd_scalar_complex(grid[r], grid[i]));
    }
    for (int b = 0; b < 4; b++) {
      const int64_t es[2] = {8, 9};
      nd_ref re = nd_ref_new(edts[b], 2, es);
      for (int64_t k = 0; k < re.size; k++) {
        const double x = grid[k % 8] == grid[k % 8] && grid[k % 8] != INFINITY ? grid[k % 8] : 3;
        if (nd_dtype_kind(edts[b]) == 'c') nd_ref_set(&re, k, nd_scalar_complex(grid[k % 8], grid[(k / 8) % 8]));
        else if (nd_dtype_kind(edts[b]) == 'f') nd_ref_set(&re, k, nd_scalar_float(grid[(k * 3) % 8]));
        else nd_ref_set(&re, k, nd_scalar_int((int64_t)x));
      }
      char ctx[96];
      snprintf(ctx, sizeof ctx, "isin(%s, %lld %s)", nd_dtype_name(edts[b]), (long long)nt, nd_dtype_name(tdts[a]));
      nd_array *e = nd_ref_upload(&re);
      check_isin_ref(&re, e, &rt, ctx);
      /* the elements transposed (a strided view): the same answers, transposed */
      nd_array *et;
      ND_ASSERT_OK(nd_array_transpose(e, 2, (int64_t[]){1, 0}, &et));
      nd_ref rtr = nd_ref_permute(&re, (int[]){1, 0});
      nd_ref rtc = nd_ref_copy(&rtr);
      strcat(ctx, " transposed");
      check_isin_ref(&rtc, et, &rt, ctx);
      nd_ref_free(&rtc);
      nd_array_release(et);
      nd_array_release(e);
      nd_ref_free(&re);
    }
    /* a real test set with complex elements, and a 0-d complex test set */
    nd_ref re = nd_ref_copy(&rt);
    nd_array *e = nd_ref_upload(&re);
    nd_ref rr = nd_ref_new(ND_FLOAT64, 1, (int64_t[]){4});
    for (int k = 0; k < 4; k++) nd_ref_set(&rr, k, nd_scalar_float(grid[k + 2]));
    check_isin_ref(&re, e, &rr, "isin(complex, float64)");
    nd_ref r0 = nd_ref_new(tdts[a], 0, NULL);
    nd_ref_set(&r0, 0, nd_scalar_complex(2.5, -0.0));
    check_isin_ref(&re, e, &r0, "isin(complex, 0-d complex)");
    nd_ref_free(&r0);
    nd_ref_free(&rr);
    nd_array_release(e);
    nd_ref_free(&re);
    nd_ref_free(&rt);
  }
}
END_TEST

/* NumPy 2.5: argsort and argpartition see a 0-d array as its 1-element ravel (axis -1, 0 and
 * None answer [0]; axis 1 is out of bounds "for array of dimension 1"), while sort and
 * partition check the axis against 0 dimensions. */
START_TEST(test_sort_zero_d) {
  nd_array *z, *r = NULL;
  ND_ASSERT_OK(nd_full(0, NULL, nd_scalar_float(2.5), ND_FLOAT32, &z));
  const int64_t axes[3] = {-1, 0, ND_AXIS_NONE};
  nd_ref want = nd_ref_new(ND_INT64, 1, (int64_t[]){1});
  nd_ref_set(&want, 0, nd_scalar_int(0));
  for (int k = 0; k < 3; k++) {
    ND_ASSERT_OK(nd_argsort(z, axes[k], &r));
    nd_ref_expect(r, &want, "argsort(0-d, axis=%lld)", (long long)axes[k]);
    nd_array_release(r);
    ND_ASSERT_OK(nd_argpartition(z, 0, axes[k], &r));
    nd_ref_expect(r, &want, "argpartition(0-d, 0, axis=%lld)", (long long)axes[k]);
    nd_array_release(r);
  }
  r = NULL;
  ND_ASSERT_FAILS(nd_argsort(z, 1, &r), ND_ERR_AXIS, "nd_argsort: axis 1 is out of bounds for array of dimension 1");
  ND_ASSERT_FAILS(nd_argsort(z, -2, &r), ND_ERR_AXIS, "nd_argsort: axis -2 is out of bounds for array of dimension 1");
  ND_ASSERT_FAILS(nd_argpartition(z, 1, -1, &r), ND_ERR_VALUE, "nd_argpartition: kth(=1) out of bounds (1)");
  ND_ASSERT_FAILS(nd_sort(z, -1, &r), ND_ERR_AXIS, "nd_sort: axis -1 is out of bounds for array of dimension 0");
  ND_ASSERT_FAILS(nd_partition(z, 0, 0, &r), ND_ERR_AXIS, "nd_partition: axis 0 is out of bounds for array of dimension 0");
  ck_assert_ptr_null(r);
  /* sort with axis None flattens: a 1-element 1-d copy */
  ND_ASSERT_OK(nd_sort(z, ND_AXIS_NONE, &r));
  ck_assert_int_eq(nd_array_ndim(r), 1);
  nd_array_release(r);
  nd_ref_free(&want);
  nd_array_release(z);
}
END_TEST

/* Complex order spelled out by hand, for both complex dtypes (NumPy 2.4.6's
 * np.argsort(a, kind='stable') and np.unique(a, return_index=True, return_inverse=True,
 * return_counts=True) of this array give exactly these); then 0-d and empty complex input. */
START_TEST(test_sort_complex_order) {
  const double in[10][2] = {{NAN, NAN}, {1, NAN}, {NAN, 0}, {2, 1}, {-0.0, 0}, {0, -0.0}, {1, -INFINITY},
                            {-INFINITY, 5}, {NAN, -1}, {0, NAN}};
  const int64_t order[10] = {7, 4, 5, 6, 3, 9, 1, 8, 2, 0};
  const int64_t uidx[5] = {7, 4, 6, 3, 9}, ucnt[5] = {1, 2, 1, 1, 5};
  static const nd_dtype cdts[2] = {ND_COMPLEX64, ND_COMPLEX128};
  for (int d = 0; d < 2; d++) {
    const char *dn = nd_dtype_name(cdts[d]);
    nd_ref r = nd_ref_new(cdts[d], 1, (int64_t[]){10});
    nd_ref ws = nd_ref_new(cdts[d], 1, (int64_t[]){10}), wi = nd_ref_new(ND_INT64, 1, (int64_t[]){10});
    nd_ref wu = nd_ref_new(cdts[d], 1, (int64_t[]){5}), wx = nd_ref_new(ND_INT64, 1, (int64_t[]){5});
    nd_ref wc = nd_ref_new(ND_INT64, 1, (int64_t[]){5}), wv = nd_ref_new(ND_INT64, 1, (int64_t[]){10});
    for (int k = 0; k < 10; k++) {
      nd_ref_set(&r, k, nd_scalar_complex(in[k][0], in[k][1]));
      nd_ref_set(&ws, k, nd_scalar_complex(in[order[k]][0], in[order[k]][1]));
      nd_ref_set(&wi, k, nd_scalar_int(order[k]));
    }
    for (int u = 0; u < 5; u++) {
      nd_ref_set(&wu, u, nd_scalar_complex(in[uidx[u]][0], in[uidx[u]][1]));
      nd_ref_set(&wx, u, nd_scalar_int(uidx[u]));
      nd_ref_set(&wc, u, nd_scalar_int(ucnt[u]));
    }
    /* inverse: the group of each input element */
    const int64_t inv[10] = {4, 4, 4, 3, 1, 1, 2, 0, 4, 4};
    for (int k = 0; k < 10; k++) nd_ref_set(&wv, k, nd_scalar_int(inv[k]));
    nd_array *a = nd_ref_upload(&r), *g, *gx, *gv, *gc;
    ND_ASSERT_OK(nd_sort(a, -1, &g));
    nd_ref_expect(g, &ws, "sort(%s)", dn);
    nd_array_release(g);
    ND_ASSERT_OK(nd_argsort(a, 0, &g));
    nd_ref_expect(g, &wi, "argsort(%s)", dn);
    nd_array_release(g);
    ND_ASSERT_OK(nd_unique(a, &g, &gx, &gv, &gc));
    nd_ref_expect(g, &wu, "unique(%s) values", dn);
    nd_ref_expect(gx, &wx, "unique(%s) index", dn);
    nd_ref_expect(gv, &wv, "unique(%s) inverse", dn);
    nd_ref_expect(gc, &wc, "unique(%s) counts", dn);
    nd_array_release(g);
    nd_array_release(gx);
    nd_array_release(gv);
    nd_array_release(gc);
    /* a negative-stride view: the reversed input sorts to the same values, ties reversed */
    nd_array *rev;
    ND_ASSERT_OK(nd_array_flip(a, 0, NULL, &rev));
    nd_ref rr = nd_ref_new(cdts[d], 1, (int64_t[]){10});
    for (int k = 0; k < 10; k++) memcpy(nd_ref_flat(&rr, k), nd_ref_flat(&r, 9 - k), rr.itemsize);
    check_sort(rev, &rr, 0, "reversed complex");
    nd_ref_free(&rr);
    nd_array_release(rev);
    nd_array_release(a);
    nd_ref_free(&r);
    nd_ref_free(&ws);
    nd_ref_free(&wi);
    nd_ref_free(&wu);
    nd_ref_free(&wx);
    nd_ref_free(&wc);
    nd_ref_free(&wv);

    /* 0-d: argsort sees the 1-element ravel; sort refuses axis -1 and flattens for None */
    nd_array *z, *res = NULL;
    ND_ASSERT_OK(nd_full(0, NULL, nd_scalar_complex(NAN, 1), cdts[d], &z));
    ND_ASSERT_OK(nd_argsort(z, -1, &res));
    ck_assert_int_eq(nd_array_ndim(res), 1);
    ck_assert_int_eq(nd_array_size(res), 1);
    nd_array_release(res);
    res = NULL;
    ND_ASSERT_FAILS(nd_sort(z, -1, &res), ND_ERR_AXIS, "nd_sort: axis -1 is out of bounds for array of dimension 0");
    ck_assert_ptr_null(res);
    ND_ASSERT_OK(nd_sort(z, ND_AXIS_NONE, &res));
    nd_ref one = nd_ref_new(cdts[d], 1, (int64_t[]){1});
    nd_ref_set(&one, 0, nd_scalar_complex(NAN, 1));
    nd_ref_expect(res, &one, "sort(0-d %s, None)", dn);
    nd_array_release(res);
    ND_ASSERT_OK(nd_unique(z, &res, NULL, NULL, NULL));
    nd_ref_expect(res, &one, "unique(0-d %s)", dn);
    nd_array_release(res);
    nd_ref_free(&one);
    nd_array_release(z);

    /* empty: shapes kept, nothing to sort */
    nd_array *e, *inv0;
    ND_ASSERT_OK(nd_empty(2, (int64_t[]){0, 3}, cdts[d], &e));
    ND_ASSERT_OK(nd_sort(e, 1, &res));
    ck_assert_int_eq(nd_array_size(res), 0);
    ck_assert_int_eq(nd_array_dtype(res), cdts[d]);
    nd_array_release(res);
    ND_ASSERT_OK(nd_argsort(e, 0, &res));
    ck_assert_int_eq(nd_array_dtype(res), ND_INT64);
    nd_array_release(res);
    ND_ASSERT_OK(nd_unique(e, &res, NULL, &inv0, NULL));
    ck_assert_int_eq(nd_array_size(res), 0);
    ck_assert_int_eq(nd_array_ndim(inv0), 2);
    nd_array_release(res);
    nd_array_release(inv0);
    nd_array_release(e);
  }
}
END_TEST

/* ---- unique ------------------------------------------------------------------------------------ */

/* Whether unique puts a and b (neighbours in sorted order) in one group: ties in the sort
 * order, and for complex every value with a NaN part (NumPy 2's equal_nan=True). */
static int unique_same(nd_scalar a, nd_scalar b) {
  if (nd_dtype_kind(a.dtype) == 'c' && (isnan(a.v.c[0]) || isnan(a.v.c[1])) &&
      (isnan(b.v.c[0]) || isnan(b.v.c[1])))
    return 1;
  return order_cmp(a, b) == 0;
}

static void check_unique(const nd_ref *r, const char *ctx) {
  nd_array *a = nd_ref_upload(r), *v, *ix, *inv, *cnt;
  ND_ASSERT_OK(nd_unique(a, &v, &ix, &inv, &cnt));
  nd_ref sv, si;
  ref_sort(r, ND_AXIS_NONE, &sv, &si);
  /* groups of tied values in sorted order */
  int64_t N = r->size, U = 0;
  int64_t *first = malloc((size_t)(N + 1) * sizeof(int64_t)), *count = malloc((size_t)(N + 1) * sizeof(int64_t));
  int64_t *inverse = malloc((size_t)(N + 1) * sizeof(int64_t));
  nd_ref want_v = nd_ref_new(r->dtype, 1, (int64_t[]){N});
  for (int64_t j = 0; j < N; j++) {
    if (j == 0 || !unique_same(nd_ref_get(&sv, j), nd_ref_get(&sv, j - 1))) {
      memcpy(nd_ref_flat(&want_v, U), nd_ref_flat(&sv, j), r->itemsize);
      first[U] = nd_ref_get(&si, j).v.i;
      count[U] = 0;
      U++;
    }
    count[U - 1]++;
    inverse[nd_ref_get(&si, j).v.i] = U - 1;
  }
  ck_assert_msg(nd_array_size(v) == U, "%s: %lld unique values, want %lld", ctx, (long long)nd_array_size(v),
                (long long)U);
  nd_ref gv = nd_ref_download(v), gi = nd_ref_download(ix), ginv = nd_ref_download(inv), gc = nd_ref_download(cnt);
  for (int64_t u = 0; u < U; u++) {
    /* the value itself may be either zero of a tied -0.0/0.0 group; compare by order */
    ck_assert_msg(order_cmp(nd_ref_get(&gv, u), nd_ref_get(&want_v, u)) == 0, "%s: value %lld", ctx, (long long)u);
    /* complex values come from the group's first element in stable sorted order, bit for bit
     * (which zero of a tied -0.0/0.0 group, which value of the NaN group) */
    if (nd_dtype_kind(r->dtype) == 'c')
      ck_assert_msg(nd_ref_same(r->dtype, nd_ref_flat(&gv, u), nd_ref_flat(&want_v, u)),
                    "%s: value %lld is not the group's first in sorted order", ctx, (long long)u);
    ck_assert_msg(nd_ref_get(&gi, u).v.i == first[u], "%s: index %lld is %lld, want %lld", ctx, (long long)u,
                  (long long)nd_ref_get(&gi, u).v.i, (long long)first[u]);
    ck_assert_msg(nd_ref_get(&gc, u).v.i == count[u], "%s: count %lld", ctx, (long long)u);
  }
  ck_assert_int_eq(ginv.ndim, r->ndim);
  for (int64_t k = 0; k < N; k++)
    ck_assert_msg(nd_ref_get(&ginv, k).v.i == inverse[k], "%s: inverse %lld", ctx, (long long)k);
  nd_ref_free(&gv);
  nd_ref_free(&gi);
  nd_ref_free(&ginv);
  nd_ref_free(&gc);
  nd_ref_free(&want_v);
  nd_ref_free(&sv);
  nd_ref_free(&si);
  free(first);
  free(count);
  free(inverse);
  nd_array_release(v);
  nd_array_release(ix);
  nd_array_release(inv);
  nd_array_release(cnt);
  nd_array_release(a);
}

START_TEST(test_unique) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++) {
    const int64_t shape[2] = {13, 11};
    nd_ref r = nd_ref_new((nd_dtype)dt, 2, shape);
    for (int64_t k = 0; k < r.size; k++) nd_ref_set(&r, k, nd_ref_pattern((nd_dtype)dt, (k * 7) % 23));
    plant_specials(&r);
    char ctx[48];
    snprintf(ctx, sizeof ctx, "unique %s", nd_dtype_name((nd_dtype)dt));
    check_unique(&r, ctx);
    nd_ref_free(&r);
  }
  nd_ref one = nd_ref_new(ND_INT32, 1, (int64_t[]){50});
  nd_ref_fill(&one, nd_scalar_int(4));
  check_unique(&one, "all equal");
  nd_ref_free(&one);
  nd_ref empty = nd_ref_new(ND_FLOAT32, 2, (int64_t[]){0, 3});
  nd_array *e = nd_ref_upload(&empty), *v, *inv;
  ND_ASSERT_OK(nd_unique(e, &v, NULL, &inv, NULL));
  ck_assert_int_eq(nd_array_size(v), 0);
  ck_assert_int_eq(nd_array_ndim(inv), 2);
  nd_array_release(v);
  nd_array_release(inv);
  nd_array_release(e);
  nd_ref_free(&empty);
}
END_TEST

/* ---- searchsorted and isin ---------------------------------------------------------------------- */

START_TEST(test_searchsorted) {
  const double av[8] = {-1, 0, 0, 2.5, 2.5, 2.5, 7, NAN};
  const int64_t n8 = 8, n9 = 9;
  nd_ref ra = nd_ref_new(ND_FLOAT64, 1, &n8);
  for (int k = 0; k < 8; k++) nd_ref_set(&ra, k, nd_scalar_float(av[k]));
  const double vv[9] = {-5, -1, 0, 1, 2.5, 7, 8, NAN, INFINITY};
  const int64_t left[9] = {0, 0, 1, 3, 3, 6, 7, 7, 7}, right[9] = {0, 1, 3, 3, 6, 7, 7, 8, 7};
  nd_ref rv = nd_ref_new(ND_FLOAT32, 1, &n9);
  for (int k = 0; k < 9; k++) nd_ref_set(&rv, k, nd_scalar_float(vv[k]));
  nd_array *a = nd_ref_upload(&ra), *v = nd_ref_upload(&rv), *res;
  for (int side = 0; side < 2; side++) {
    ND_ASSERT_OK(nd_searchsorted(a, v, side, &res));
    nd_ref want = nd_ref_new(ND_INT64, 1, &n9);
    for (int k = 0; k < 9; k++) nd_ref_set(&want, k, nd_scalar_int(side ? right[k] : left[k]));
    nd_ref want64 = nd_ref_astype(&want, ND_INT64);
    nd_ref_expect(res, &want64, "searchsorted side %d", side);
    nd_ref_free(&want);
    nd_ref_free(&want64);
    nd_array_release(res);
  }
  /* integer a, 2-d strided float v: compared as float64 */
  nd_ref ri = nd_ref_new(ND_INT16, 1, (int64_t[]){5});
  const int iv[5] = {-3, 1, 1, 4, 9};
  for (int k = 0; k < 5; k++) nd_ref_set(&ri, k, nd_scalar_int(iv[k]));
  nd_array *ai = nd_ref_upload(&ri), *v2, *vt;
  nd_ref rv2 = nd_ref_new(ND_FLOAT64, 2, (int64_t[]){2, 3});
  const double v2v[6] = {1, 0.5, 9, 10, -3, 4};
  for (int k = 0; k < 6; k++) nd_ref_set(&rv2, k, nd_scalar_float(v2v[k]));
  v2 = nd_ref_upload(&rv2);
  ND_ASSERT_OK(nd_array_transpose(v2, 0, NULL, &vt));
  ND_ASSERT_OK(nd_searchsorted(ai, vt, 0, &res));
  /* v.T = [[1, 10], [0.5, -3], [9, 4]] */
  const int64_t wl[6] = {1, 5, 1, 0, 4, 3};
  nd_ref want = nd_ref_new(ND_INT64, 2, (int64_t[]){3, 2});
  for (int k = 0; k < 6; k++) nd_ref_set(&want, k, nd_ref_cast(nd_scalar_int(wl[k]), ND_INT64));
  nd_ref_expect(res, &want, "searchsorted int16 a, transposed float64 v");
  nd_ref_free(&want);
  nd_array_release(res);
  ND_ASSERT_FAILS(nd_searchsorted(v2, v, 0, &res), ND_ERR_SHAPE, "nd_searchsorted: a must be 1-dimensional");
  nd_array_release(vt);
  nd_array_release(v2);
  nd_array_release(ai);
  nd_ref_free(&rv2);
  nd_ref_free(&ri);
  nd_array_release(a);
  nd_array_release(v);
  nd_ref_free(&ra);
  nd_ref_free(&rv);
}
END_TEST

/* Complex values with NaN parts in NumPy's order (npysort's CLT): NumPy 2.4 sorts
 * [1+1j, 5+0j, 2+nanj, nan+1j, nan+nanj] so, and searchsorted of the values below gives
 * left [1, 3, 2, 3, 4, 4, 0, 2] and right [1, 3, 2, 3, 4, 5, 0, 2]. */
START_TEST(test_searchsorted_complex_nan) {
  const double a[10] = {1, 1, 5, 0, 2, NAN, NAN, 1, NAN, NAN};
  const double v[16] = {3, 0, 7, NAN, 1, NAN, NAN, 0, NAN, 5, NAN, NAN, 0, 0, 6, 0};
  const int64_t left[8] = {1, 3, 2, 3, 4, 4, 0, 2}, right[8] = {1, 3, 2, 3, 4, 5, 0, 2};
  const int64_t n5 = 5, n8 = 8;
  for (int single = 0; single < 2; single++) {
    nd_array *ac, *vc, *a1, *v1, *res;
    ND_ASSERT_OK(nd_array_from_host(a, sizeof a, 1, &n5, ND_COMPLEX128, &ac));
    ND_ASSERT_OK(nd_array_from_host(v, sizeof v, 1, &n8, ND_COMPLEX128, &vc));
    ND_ASSERT_OK(nd_array_astype(ac, single ? ND_COMPLEX64 : ND_COMPLEX128, &a1));
    ND_ASSERT_OK(nd_array_astype(vc, single ? ND_COMPLEX64 : ND_COMPLEX128, &v1));
    for (int side = 0; side < 2; side++) {
      int64_t got[8];
      ND_ASSERT_OK(nd_searchsorted(a1, v1, side, &res));
      ND_ASSERT_OK(nd_array_to_host(res, got, sizeof got));
      for (int k = 0; k < 8; k++)
        ck_assert_msg(got[k] == (side ? right[k] : left[k]), "%s side %d value %d: %lld, NumPy %lld",
                      single ? "complex64" : "complex128", side, k, (long long)got[k],
                      (long long)(side ? right[k] : left[k]));
      nd_array_release(res);
    }
    nd_array_release(ac), nd_array_release(vc), nd_array_release(a1), nd_array_release(v1);
  }
}
END_TEST

START_TEST(test_isin) {
  nd_ref re = nd_ref_new(ND_FLOAT64, 2, (int64_t[]){2, 4}), rt = nd_ref_new(ND_INT32, 1, (int64_t[]){5});
  const double ev[8] = {1, 2.5, 3, NAN, -0.0, 7, 100, -4};
  const int tv[5] = {7, 0, 3, -4, 3};
  for (int k = 0; k < 8; k++) nd_ref_set(&re, k, nd_scalar_float(ev[k]));
  for (int k = 0; k < 5; k++) nd_ref_set(&rt, k, nd_scalar_int(tv[k]));
  nd_array *e = nd_ref_upload(&re), *t = nd_ref_upload(&rt), *res;
  const int want[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  for (int inv = 0; inv < 2; inv++) {
    ND_ASSERT_OK(nd_isin(e, t, inv, &res));
    nd_ref w = nd_ref_new(ND_BOOL, 2, (int64_t[]){2, 4});
    for (int k = 0; k < 8; k++) nd_ref_set(&w, k, nd_scalar_bool(want[k] != inv));
    nd_ref_expect(res, &w, "isin invert %d", inv);
    nd_ref_free(&w);
    nd_array_release(res);
  }
  /* NaN in both: never equal */
  ND_ASSERT_OK(nd_isin(e, e, 0, &res));
  nd_ref g = nd_ref_download(res);
  ck_assert_int_eq(nd_ref_get(&g, 3).v.b, 0);
  ck_assert_int_eq(nd_ref_get(&g, 0).v.b, 1);
  nd_ref_free(&g);
  nd_array_release(res);
  /* empty test set */
  nd_array *empty;
  ND_ASSERT_OK(nd_empty(1, (int64_t[]){0}, ND_INT8, &empty));
  ND_ASSERT_OK(nd_isin(e, empty, 0, &res));
  nd_ref w0 = nd_ref_new(ND_BOOL, 2, (int64_t[]){2, 4});
  nd_ref_expect(res, &w0, "isin of an empty set");
  nd_ref_free(&w0);
  nd_array_release(res);
  nd_array_release(empty);
  nd_array_release(e);
  nd_array_release(t);
  nd_ref_free(&re);
  nd_ref_free(&rt);
}
END_TEST

/* ---- nonzero ------------------------------------------------------------------------------------- */

START_TEST(test_nonzero) {
  for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
    if (lk == ND_REF_SCALAR) continue;
    nd_ref_layout l;
    nd_ref_layout_make((nd_ref_layout_kind)lk, ND_INT16, 5, 7, 4, &l);
    nd_array *res[ND_MAXDIMS] = {NULL}, *aw, *wh[ND_MAXDIMS];
    ND_ASSERT_OK(nd_nonzero(l.array, res, ND_MAXDIMS));
    ND_ASSERT_OK(nd_where_nonzero(l.array, wh, 2));
    ND_ASSERT_OK(nd_argwhere(l.array, &aw));
    int64_t cnt = 0;
    for (int64_t k = 0; k < l.ref.size; k++) cnt += nd_ref_get(&l.ref, k).v.i != 0;
    nd_ref want0 = nd_ref_new(ND_INT64, 1, &cnt), want1 = nd_ref_new(ND_INT64, 1, &cnt);
    nd_ref wantaw = nd_ref_new(ND_INT64, 2, (int64_t[]){cnt, 2});
    int64_t p = 0, idx[2];
    for (int64_t k = 0; k < l.ref.size; k++) {
      if (nd_ref_get(&l.ref, k).v.i == 0) continue;
      nd_ref_unravel(2, l.ref.shape, k, idx);
      nd_ref_set(&want0, p, nd_ref_cast(nd_scalar_int(idx[0]), ND_INT64));
      nd_ref_set(&want1, p, nd_ref_cast(nd_scalar_int(idx[1]), ND_INT64));
      nd_ref_set(&wantaw, 2 * p, nd_ref_cast(nd_scalar_int(idx[0]), ND_INT64));
      nd_ref_set(&wantaw, 2 * p + 1, nd_ref_cast(nd_scalar_int(idx[1]), ND_INT64));
      p++;
    }
    nd_ref_expect(res[0], &want0, "nonzero[0] %s", l.name);
    nd_ref_expect(res[1], &want1, "nonzero[1] %s", l.name);
    nd_ref_expect(wh[1], &want1, "where[1] %s", l.name);
    nd_ref_expect(aw, &wantaw, "argwhere %s", l.name);
    ck_assert_ptr_null(res[2]);
    nd_ref_free(&want0);
    nd_ref_free(&want1);
    nd_ref_free(&wantaw);
    for (int i = 0; i < 2; i++) {
      nd_array_release(res[i]);
      nd_array_release(wh[i]);
    }
    nd_array_release(aw);
    nd_ref_layout_free(&l);
  }
  nd_array *z, *res[2];
  ND_ASSERT_OK(nd_zeros(2, (int64_t[]){3, 3}, ND_FLOAT32, &z));
  ND_ASSERT_OK(nd_nonzero(z, res, 2));
  ck_assert_int_eq(nd_array_size(res[0]), 0);
  nd_array_release(res[0]);
  nd_array_release(res[1]);
  ND_ASSERT_FAILS(nd_nonzero(z, res, 1), ND_ERR_INVALID_ARGUMENT, "nd_nonzero");
  nd_array_release(z);
  ND_ASSERT_OK(nd_zeros(0, NULL, ND_FLOAT32, &z));
  ND_ASSERT_FAILS(nd_nonzero(z, res, 2), ND_ERR_VALUE, "nd_nonzero: Calling nonzero on 0d arrays is not allowed");
  nd_array_release(z);
}
END_TEST

/* ---- bincount and histogram ------------------------------------------------------------------- */

START_TEST(test_bincount) {
  const int xv[9] = {0, 1, 1, 3, 2, 1, 7, 0, 3};
  nd_ref rx = nd_ref_new(ND_UINT8, 1, (int64_t[]){9}), rw = nd_ref_new(ND_FLOAT32, 1, (int64_t[]){9});
  for (int k = 0; k < 9; k++) {
    nd_ref_set(&rx, k, nd_scalar_int(xv[k]));
    nd_ref_set(&rw, k, nd_scalar_float(0.5 * k));
  }
  nd_array *x = nd_ref_upload(&rx), *w = nd_ref_upload(&rw), *res;
  ND_ASSERT_OK(nd_bincount(x, NULL, 0, &res));
  const int64_t c[8] = {2, 3, 1, 2, 0, 0, 0, 1};
  nd_ref want = nd_ref_new(ND_INT64, 1, (int64_t[]){8});
  for (int k = 0; k < 8; k++) nd_ref_set(&want, k, nd_ref_cast(nd_scalar_int(c[k]), ND_INT64));
  nd_ref_expect(res, &want, "bincount");
  nd_array_release(res);
  nd_ref_free(&want);
  ND_ASSERT_OK(nd_bincount(x, w, 10, &res));
  nd_ref ww = nd_ref_new(ND_FLOAT64, 1, (int64_t[]){10});
  for (int k = 0; k < 9; k++) {
    nd_scalar s = nd_ref_get(&ww, xv[k]);
    nd_ref_set(&ww, xv[k], nd_scalar_float(s.v.f + 0.5 * k));
  }
  nd_ref_expect(res, &ww, "bincount with weights and minlength");
  nd_array_release(res);
  nd_ref_free(&ww);
  nd_array *neg, *flt, *e;
  ND_ASSERT_OK(nd_full(1, (int64_t[]){3}, nd_scalar_int(-1), ND_INT32, &neg));
  ND_ASSERT_FAILS(nd_bincount(neg, NULL, 0, &res), ND_ERR_VALUE, "nd_bincount: 'list' argument must have no negative elements");
  ND_ASSERT_OK(nd_ones(1, (int64_t[]){3}, ND_FLOAT64, &flt));
  ND_ASSERT_FAILS(nd_bincount(flt, NULL, 0, &res), ND_ERR_CASTING, "nd_bincount: Cannot cast array data from dtype('float64')");
  ND_ASSERT_FAILS(nd_bincount(x, flt, 0, &res), ND_ERR_SHAPE, "nd_bincount: The weights and list don't have the same length.");
  ND_ASSERT_FAILS(nd_bincount(x, NULL, -1, &res), ND_ERR_VALUE, "nd_bincount: 'minlength' must not be negative");
  ND_ASSERT_OK(nd_empty(1, (int64_t[]){0}, ND_INT64, &e));
  ND_ASSERT_OK(nd_bincount(e, NULL, 4, &res));
  ck_assert_int_eq(nd_array_size(res), 4);
  nd_array_release(res);
  /* NumPy: an empty x returns int64 zeros before the weights are looked at (their dtype and
   * length included): np.bincount(np.zeros(0, np.uint16), weights=np.zeros(3), minlength=6). */
  nd_ref z6 = nd_ref_new(ND_INT64, 1, (int64_t[]){6});
  ND_ASSERT_OK(nd_bincount(e, flt, 6, &res));
  nd_ref_expect(res, &z6, "bincount(empty, float64 weights of another length, minlength=6)");
  nd_array_release(res);
  nd_ref_free(&z6);
  ND_ASSERT_FAILS(nd_bincount(e, flt, -1, &res), ND_ERR_VALUE, "nd_bincount: 'minlength' must not be negative");
  /* uint64 is taken (NumPy >= 2.2.4 casts it to intp by force); 2**63 becomes negative */
  nd_array *u;
  ND_ASSERT_OK(nd_full(1, (int64_t[]){2}, nd_scalar_int(2), ND_UINT64, &u));
  ND_ASSERT_OK(nd_bincount(u, NULL, 0, &res));
  nd_ref u3 = nd_ref_new(ND_INT64, 1, (int64_t[]){3});
  nd_ref_set(&u3, 2, nd_scalar_int(2));
  nd_ref_expect(res, &u3, "bincount(uint64 [2, 2])");
  nd_ref_free(&u3);
  nd_array_release(res);
  nd_array_release(u);
  nd_scalar big;
  memset(&big, 0, sizeof big);
  big.dtype = ND_UINT64;
  big.v.u = UINT64_C(1) << 63;
  ND_ASSERT_OK(nd_full(1, (int64_t[]){2}, big, ND_UINT64, &u));
  ND_ASSERT_FAILS(nd_bincount(u, NULL, 0, &res), ND_ERR_VALUE, "nd_bincount: 'list' argument must have no negative elements");
  nd_array_release(u);
  nd_array_release(e);
  nd_array_release(neg);
  nd_array_release(flt);
  nd_array_release(x);
  nd_array_release(w);
  nd_ref_free(&rx);
  nd_ref_free(&rw);
}
END_TEST

/* Generated with NumPy 2.4.6:
 *   x = np.array(data, dtype); h, e = np.histogram(x, bins, range)  (counts pasted below) */
START_TEST(test_histogram_numpy) {
  static const struct {
    nd_dtype dt;
    int n;
    double data[12];
    int64_t bins;
    int has_range;
    double range[2];
    int64_t counts[8];
  } c[] = {
      {ND_FLOAT32, 12, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.0, 0.35}, 5, 0, {0, 0}, {2, 3, 2, 2, 3}},
      {ND_FLOAT64, 10, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, 3, 1, {0.2, 0.8}, {2, 3, 2}},
      {ND_INT32, 8, {1, 2, 2, 3, 3, 3, 10, -4}, 4, 0, {0, 0}, {1, 3, 3, 1}},
      {ND_FLOAT64, 6, {NAN, 1, 2, 3, 4, 5}, 2, 1, {1, 5}, {2, 3}},
      {ND_INT64, 3, {5, 5, 5}, 2, 0, {0, 0}, {0, 3}},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    nd_ref r = nd_ref_new(c[i].dt, 1, (int64_t[]){c[i].n});
    for (int k = 0; k < c[i].n; k++) nd_ref_set(&r, k, nd_scalar_float(c[i].data[k]));
    nd_array *a = nd_ref_upload(&r), *h, *e;
    ND_ASSERT_OK(nd_histogram(a, c[i].bins, c[i].has_range ? c[i].range : NULL, NULL, &h, &e));
    nd_ref want = nd_ref_new(ND_INT64, 1, &c[i].bins);
    for (int64_t b = 0; b < c[i].bins; b++) nd_ref_set(&want, b, nd_ref_cast(nd_scalar_int(c[i].counts[b]), ND_INT64));
    nd_ref_expect(h, &want, "histogram case %zu", i);
    ck_assert_int_eq(nd_array_size(e), c[i].bins + 1);
    nd_ref_free(&want);
    nd_array_release(h);
    nd_array_release(e);
    nd_array_release(a);
    nd_ref_free(&r);
  }
  /* weights: sums in the weights' dtype */
  nd_array *a, *w, *h;
  ND_ASSERT_OK(nd_arange(0, 10, 1, ND_FLOAT64, &a));
  ND_ASSERT_OK(nd_full(1, (int64_t[]){10}, nd_scalar_float(0.25), ND_FLOAT32, &w));
  ND_ASSERT_OK(nd_histogram(a, 2, NULL, w, &h, NULL));
  nd_ref want = nd_ref_new(ND_FLOAT32, 1, (int64_t[]){2});
  nd_ref_fill(&want, nd_scalar_float(1.25));
  nd_ref_expect(h, &want, "weighted histogram");
  nd_ref_free(&want);
  nd_array_release(h);
  double bad[2] = {1, 0};
  ND_ASSERT_FAILS(nd_histogram(a, 2, bad, NULL, &h, NULL), ND_ERR_VALUE,
                  "nd_histogram: max must be larger than min in range parameter.");
  bad[1] = INFINITY;
  bad[0] = 0;
  ND_ASSERT_FAILS(nd_histogram(a, 2, bad, NULL, &h, NULL), ND_ERR_VALUE, "is not finite");
  ND_ASSERT_FAILS(nd_histogram(a, 0, NULL, NULL, &h, NULL), ND_ERR_VALUE, "nd_histogram: `bins` must be positive");
  nd_array_release(w);
  nd_array_release(a);
  nd_ref rn = nd_ref_new(ND_FLOAT32, 1, (int64_t[]){2});
  nd_ref_set(&rn, 0, nd_scalar_float(NAN));
  a = nd_ref_upload(&rn);
  ND_ASSERT_FAILS(nd_histogram(a, 2, NULL, NULL, &h, NULL), ND_ERR_VALUE, "autodetected range of");
  nd_array_release(a);
  nd_ref_free(&rn);
}
END_TEST

static Suite *sort_suite(void) {
  Suite *s = suite_create("sort");
  TCase *t = tcase_create("sort");
  tcase_add_test(t, test_sort_layouts);
  tcase_add_test(t, test_sort_paths);
  tcase_add_test(t, test_sort_one_block);
  tcase_add_test(t, test_sort_grid);
  tcase_add_test(t, test_sort_grid_streams);
  tcase_add_test(t, test_sort_under_capture);
  tcase_add_test(t, test_sort_short_rows);
  tcase_add_test(t, test_argsort_nan_payloads);
  tcase_add_test(t, test_sort_errors);
  tcase_add_test(t, test_unique);
  suite_add_tcase(s, t);
  t = tcase_create("search");
  tcase_add_test(t, test_searchsorted);
  tcase_add_test(t, test_searchsorted_complex_nan);
  tcase_add_test(t, test_isin);
  tcase_add_test(t, test_sort_zero_d);
  tcase_add_test(t, test_sort_complex_order);
  tcase_add_test(t, test_isin_complex);
  tcase_add_test(t, test_nonzero);
  tcase_add_test(t, test_bincount);
  tcase_add_test(t, test_histogram_numpy);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main_gpu(sort_suite()); }
