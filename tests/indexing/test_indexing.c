/* GPU suite for integer-array and boolean indexing and for DLPack on the device: take,
 * take_along_axis, put, compress, mask_select, mask_assign, index_gather, index_scatter,
 * nd_array_to_dlpack / nd_array_from_dlpack.
 *
 * The reference is one host gather (ref_gather below) written from NumPy's definition of
 * advanced indexing: for each result position, split it into the non-indexed coordinates and
 * the broadcast index position, look the indices up, bring them into range by the mode, and
 * read the source element. take, take_along_axis, compress and a[mask] are checked against it
 * or against their own direct definitions; put and the scatters against the same walk
 * writing instead of reading. Sources, index arrays, masks and destinations come in the
 * awkward layouts of nd_ref (offset, transposed, negative and stepped strides, broadcast,
 * zero-size, 0-d); writes are checked on the whole base buffer, so a stray write outside the
 * view shows. Failing calls must leave their output untouched. Exits 77 without a device. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/src/nd_ref.h"

#define OK(expr) ND_ASSERT_OK(expr)

enum { RAISE = ND_INDEX_RAISE, WRAP = ND_INDEX_WRAP, CLIP = ND_INDEX_CLIP };

static int64_t ival(nd_scalar s) {
  switch (nd_dtype_kind(s.dtype)) {
    case 'b': return s.v.b;
    case 'u': return (int64_t)s.v.u;
    case 'f': return (int64_t)s.v.f;
    default: return s.v.i;
  }
}

static int64_t norm(int64_t v, int64_t n, int mode) {
  if (mode == WRAP) {
    v %= n;
    return v < 0 ? v + n : v;
  }
  if (mode == CLIP) return v < 0 ? 0 : v >= n ? n - 1 : v;
  ck_assert_msg(v >= -n && v < n, "reference: index %lld out of range %lld", (long long)v, (long long)n);
  return v < 0 ? v + n : v;
}

/* An index array of dtype dt, shape (ndim, shape), elements vals[0..size) in C order. */
static nd_ref idx_ref(nd_dtype dt, int ndim, const int64_t *shape, const int64_t *vals) {
  nd_ref r = nd_ref_new(dt, ndim, shape);
  for (int64_t k = 0; k < r.size; k++) nd_ref_set(&r, k, nd_scalar_int(vals[k]));
  return r;
}

/* The same index array on the device in an awkward layout: 0 as is, 1 transposed (uploaded as
 * its transpose, viewed back), 2 reversed along every axis. The host twin gets the same view
 * through nd_ref so both index the same values. */
static nd_array *idx_upload(const nd_ref *r, int how) {
  if (r->ndim < 1 || how == 0) return nd_ref_upload(r);
  if (how == 1) {
    int perm[ND_MAXDIMS];
    for (int i = 0; i < r->ndim; i++) perm[i] = r->ndim - 1 - i;
    nd_ref t = nd_ref_permute(r, perm);
    nd_ref c = nd_ref_copy(&t);
    nd_array *up = nd_ref_upload(&c), *v;
    OK(nd_array_transpose(up, 0, NULL, &v));
    nd_array_release(up);
    nd_ref_free(&c);
    return v;
  }
  nd_ref f = nd_ref_copy(r);
  for (int i = 0; i < r->ndim; i++) {
    nd_ref g = nd_ref_flip(&f, i);
    nd_ref c = nd_ref_copy(&g);
    nd_ref_free(&f);
    f = c;
  }
  nd_array *up = nd_ref_upload(&f), *v;
  OK(nd_array_flip(up, 0, NULL, &v));
  nd_array_release(up);
  nd_ref_free(&f);
  return v;
}

typedef struct gspec {
  int nidx;
  const nd_ref *idx[ND_MAXDIMS];
  int axes[ND_MAXDIMS];
  int front;
  int mode;
} gspec;

/* Result geometry of NumPy's advanced indexing (computed independently of nd__ix_plan). */
static void ref_geometry(const nd_ref *a, const gspec *g, int *bnd, int64_t *bsh, int *pos, int *rnd,
                         int64_t *rsh, int *rem, int *nrem) {
  int nds[ND_MAXDIMS];
  const int64_t *shs[ND_MAXDIMS];
  for (int k = 0; k < g->nidx; k++) nds[k] = g->idx[k]->ndim, shs[k] = g->idx[k]->shape;
  OK(nd_broadcast_shapes(g->nidx, nds, shs, bnd, bsh));
  *nrem = 0;
  for (int i = 0; i < a->ndim; i++) {
    int hit = 0;
    for (int k = 0; k < g->nidx; k++) hit |= g->axes[k] == i;
    if (!hit) rem[(*nrem)++] = i;
  }
  int consecutive = 1;
  for (int k = 1; k < g->nidx; k++) consecutive &= g->axes[k] == g->axes[k - 1] + 1;
  *pos = (consecutive && !g->front) ? g->axes[0] : 0;
  *rnd = *nrem + *bnd;
  for (int i = 0, r = 0; i < *rnd; i++)
    rsh[i] = (i >= *pos && i < *pos + *bnd) ? bsh[i - *pos] : a->shape[rem[r++]];
}

/* For result position ri: the source multi-index in a. */
static void ref_source(const nd_ref *a, const gspec *g, const nd_ref *bidx, int bnd, int pos, const int *rem,
                       const int64_t *ri, int64_t *si) {
  int64_t b[ND_MAXDIMS];
  for (int i = 0; i < bnd; i++) b[i] = ri[pos + i];
  for (int i = 0, r = 0, rr = 0; i < bnd + a->ndim - g->nidx; i++) {
    if (i >= pos && i < pos + bnd) continue;
    si[rem[r++]] = ri[i];
    rr++;
  }
  for (int k = 0; k < g->nidx; k++) {
    nd_scalar v = nd_ref_load(bidx[k].dtype, nd_ref_ptr(&bidx[k], b));
    si[g->axes[k]] = norm(ival(v), a->shape[g->axes[k]], g->mode);
  }
}

static nd_ref ref_gather(const nd_ref *a, const gspec *g) {
  int bnd, pos, rnd, rem[ND_MAXDIMS], nrem;
  int64_t bsh[ND_MAXDIMS], rsh[ND_MAXDIMS];
  ref_geometry(a, g, &bnd, bsh, &pos, &rnd, rsh, rem, &nrem);
  nd_ref bidx[ND_MAXDIMS];
  for (int k = 0; k < g->nidx; k++) bidx[k] = nd_ref_broadcast(g->idx[k], bnd, bsh);
  nd_ref out = nd_ref_new(a->dtype, rnd, rsh);
  for (int64_t k = 0; k < out.size; k++) {
    int64_t ri[ND_MAXDIMS], si[ND_MAXDIMS];
    nd_ref_unravel(rnd, rsh, k, ri);
    ref_source(a, g, bidx, bnd, pos, rem, ri, si);
    memcpy(nd_ref_flat(&out, k), nd_ref_ptr(a, si), a->itemsize);
  }
  return out;
}

/* a[...] = values (broadcast to the result shape, converted), in place on the host view a. */
static void ref_scatter(nd_ref *a, const gspec *g, const nd_ref *values) {
  int bnd, pos, rnd, rem[ND_MAXDIMS], nrem;
  int64_t bsh[ND_MAXDIMS], rsh[ND_MAXDIMS];
  ref_geometry(a, g, &bnd, bsh, &pos, &rnd, rsh, rem, &nrem);
  nd_ref bidx[ND_MAXDIMS];
  for (int k = 0; k < g->nidx; k++) bidx[k] = nd_ref_broadcast(g->idx[k], bnd, bsh);
  int64_t cnt = 1;
  for (int i = 0; i < rnd; i++) cnt *= rsh[i];
  if (cnt == 0) return;
  nd_ref vb = nd_ref_broadcast(values, rnd, rsh);
  for (int64_t k = 0; k < cnt; k++) {
    int64_t ri[ND_MAXDIMS], si[ND_MAXDIMS];
    nd_ref_unravel(rnd, rsh, k, ri);
    ref_source(a, g, bidx, bnd, pos, rem, ri, si);
    nd_ref_store(a->dtype, nd_ref_ptr(a, si), nd_ref_load(vb.dtype, nd_ref_ptr(&vb, ri)));
  }
}

/* ---- take ----------------------------------------------------------------------------------- */

static void check_take(const nd_array *a, const nd_ref *ra, const nd_ref *ri, int how, int64_t axis, int mode,
                       const char *ctx) {
  nd_array *di = idx_upload(ri, how);
  nd_ref want;
  gspec g = {.nidx = 1, .idx = {ri}, .axes = {0}, .mode = mode};
  if (axis == ND_AXIS_NONE || ra->ndim == 0) {
    nd_ref flat = nd_ref_reshape(ra, 1, (int64_t[]){ra->size});
    want = ref_gather(&flat, &g);
    nd_ref_free(&flat);
  } else {
    g.axes[0] = (int)(axis < 0 ? axis + ra->ndim : axis);
    want = ref_gather(ra, &g);
  }
  nd_array *got;
  OK(nd_take(a, di, axis, (nd_index_mode)mode, NULL, &got));
  nd_ref_expect(got, &want, "%s: take axis %lld mode %d index layout %d", ctx, (long long)axis, mode, how);
  nd_array_release(got);
  nd_ref_free(&want);
  nd_array_release(di);
}

START_TEST(test_take_layouts) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, (nd_dtype)dt, 5, 7, 3 + dt, &l);
      const int64_t axes[4] = {ND_AXIS_NONE, 0, 1, -1};
      for (int ai = 0; ai < 4; ai++) {
        int64_t axis = axes[ai];
        if (l.ref.ndim == 0 && ai > 1) continue;
        const int64_t n = (axis == ND_AXIS_NONE || l.ref.ndim == 0) ? l.ref.size : l.ref.shape[axis < 0 ? axis + 2 : axis];
        const nd_dtype idts[3] = {ND_INT64, ND_INT16, ND_UINT8};
        for (int mode = RAISE; mode <= CLIP; mode++) {
          int64_t vals[6];
          for (int k = 0; k < 6; k++)
            vals[k] = mode == RAISE ? (n > 0 ? ((k * 5 + 2) % (2 * n)) - n : 0) : (k * 7 - 9) * (k % 2 ? 3 : -2);
          if (idts[mode] == ND_UINT8)
            for (int k = 0; k < 6; k++) vals[k] = vals[k] < 0 ? -vals[k] : vals[k];
          nd_ref ri = n > 0 ? idx_ref(idts[mode], 2, (int64_t[]){2, 3}, vals) : idx_ref(ND_INT64, 1, (int64_t[]){0}, vals);
          check_take(l.array, &l.ref, &ri, (dt + lk + mode) % 3, axis, mode, l.name);
          nd_ref_free(&ri);
        }
      }
      nd_ref_layout_free(&l);
    }
}
END_TEST

START_TEST(test_take_special) {
  const int64_t s57[2] = {5, 7};
  nd_ref ra = nd_ref_new(ND_INT64, 2, s57);
  nd_ref_fill_pattern(&ra, 1);
  nd_array *a = nd_ref_upload(&ra);
  /* uint64 2^64 - 1 is -1 after NumPy's cast; bool indices count as 0/1; 0-d indices */
  {
    nd_ref ri = nd_ref_new(ND_UINT64, 1, (int64_t[]){2});
    nd_scalar s = {.dtype = ND_UINT64};
    s.v.u = UINT64_MAX;
    nd_ref_set(&ri, 0, s);
    s.v.u = 3;
    nd_ref_set(&ri, 1, s);
    nd_ref rs = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){-1, 3});
    check_take(a, &ra, &ri, 0, 1, RAISE, "uint64");
    nd_ref rb = idx_ref(ND_BOOL, 1, (int64_t[]){3}, (int64_t[]){1, 0, 1});
    check_take(a, &ra, &rb, 0, 0, RAISE, "bool");
    nd_ref r0 = idx_ref(ND_INT32, 0, NULL, (int64_t[]){-2});
    check_take(a, &ra, &r0, 0, 1, RAISE, "0-d index");
    check_take(a, &ra, &r0, 0, ND_AXIS_NONE, RAISE, "0-d index flat");
    nd_ref_free(&ri);
    nd_ref_free(&rs);
    nd_ref_free(&rb);
    nd_ref_free(&r0);
  }
  /* out: a dtype that casts safely to a's (int32 -> int64), converted; out overlapping a */
  {
    nd_ref ri = idx_ref(ND_INT64, 1, (int64_t[]){3}, (int64_t[]){6, 0, -3});
    nd_array *di = nd_ref_upload(&ri);
    gspec g = {.nidx = 1, .idx = {&ri}, .axes = {1}, .mode = RAISE};
    nd_ref want = ref_gather(&ra, &g);
    nd_ref want32 = nd_ref_astype(&want, ND_INT32);
    nd_array *o32, *r;
    OK(nd_empty(2, (int64_t[]){5, 3}, ND_INT32, &o32));
    OK(nd_take(a, di, 1, ND_INDEX_RAISE, o32, &r));
    ck_assert_ptr_eq(r, o32);
    nd_array_release(r);
    nd_ref_expect(o32, &want32, "take into int32 out");
    OK(nd_take(a, di, 1, ND_INDEX_RAISE, o32, NULL));
    nd_ref_expect(o32, &want32, "take into out, no result");
    /* in place: row 0 of a reversed into itself */
    nd_array *row;
    OK(nd_array_index(a, 0, 0, &row));
    nd_ref rrow = nd_ref_index(&ra, 0, 0);
    nd_ref rev = idx_ref(ND_INT64, 1, (int64_t[]){7}, (int64_t[]){6, 5, 4, 3, 2, 1, 0});
    nd_array *drev = nd_ref_upload(&rev);
    gspec gr = {.nidx = 1, .idx = {&rev}, .axes = {0}, .mode = RAISE};
    nd_ref wrev = ref_gather(&rrow, &gr);
    OK(nd_take(row, drev, 0, ND_INDEX_RAISE, row, NULL));
    nd_ref_expect(row, &wrev, "take into its own source");
    /* raise: the error names the value, and out keeps its contents */
    nd_ref bad = idx_ref(ND_INT64, 2, (int64_t[]){2, 2}, (int64_t[]){1, 2, 9, -9});
    nd_array *dbad = nd_ref_upload(&bad);
    nd_array *o = NULL;
    ND_ASSERT_FAILS(nd_take(a, dbad, 1, ND_INDEX_RAISE, NULL, &o), ND_ERR_INDEX,
                    "nd_take: index 9 is out of bounds for axis 1 with size 7");
    ck_assert_ptr_null(o);
    nd_array *o4;
    OK(nd_full(3, (int64_t[]){5, 2, 2}, nd_scalar_int(-5), ND_INT64, &o4));
    ND_ASSERT_FAILS(nd_take(a, dbad, 1, ND_INDEX_RAISE, o4, NULL), ND_ERR_INDEX, "index 9 is out of bounds");
    nd_ref m5 = nd_ref_new(ND_INT64, 3, (int64_t[]){5, 2, 2});
    nd_ref_fill(&m5, nd_scalar_int(-5));
    nd_ref_expect(o4, &m5, "out after a failed take");
    nd_ref bad2 = idx_ref(ND_INT16, 1, (int64_t[]){3}, (int64_t[]){34, -35, -36});
    nd_array *dbad2 = nd_ref_upload(&bad2);
    ND_ASSERT_FAILS(nd_take(a, dbad2, ND_AXIS_NONE, ND_INDEX_RAISE, NULL, &o), ND_ERR_INDEX,
                    "nd_take: index -36 is out of bounds for axis 0 with size 35");
    ck_assert_ptr_null(o);
    nd_array_release(dbad2);
    nd_ref_free(&bad2);
    /* an empty result does not check (np.take), an empty axis refuses non-empty indices */
    nd_array *e, *r2;
    OK(nd_empty(2, (int64_t[]){0, 7}, ND_INT64, &e));
    OK(nd_take(e, dbad, 1, ND_INDEX_RAISE, NULL, &r2));
    ck_assert_int_eq(nd_array_ndim(r2), 3);
    ck_assert_int_eq(nd_array_size(r2), 0);
    ND_ASSERT_FAILS(nd_take(e, dbad, 0, ND_INDEX_CLIP, NULL, &o), ND_ERR_INDEX,
                    "nd_take: cannot do a non-empty take from an empty axes.");
    nd_array *arrs[] = {di, o32, row, drev, dbad, o4, e, r2};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
    nd_ref frees[] = {ri, want, want32, rev, wrev, bad, m5};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++) nd_ref_free(&frees[i]);
  }
  nd_array_release(a);
  nd_ref_free(&ra);
}
END_TEST

/* ---- take_along_axis ------------------------------------------------------------------------ */

static nd_ref ref_along(const nd_ref *a, const nd_ref *idx, int ax) {
  int64_t ash[ND_MAXDIMS], rsh[ND_MAXDIMS];
  memcpy(ash, a->shape, sizeof ash);
  ash[ax] = 1;
  int rnd, nds[2] = {a->ndim, idx->ndim};
  const int64_t *shs[2] = {ash, idx->shape};
  OK(nd_broadcast_shapes(2, nds, shs, &rnd, rsh));
  nd_ref bi = nd_ref_broadcast(idx, rnd, rsh), out = nd_ref_new(a->dtype, rnd, rsh);
  for (int64_t k = 0; k < out.size; k++) {
    int64_t ri[ND_MAXDIMS], si[ND_MAXDIMS];
    nd_ref_unravel(rnd, rsh, k, ri);
    for (int i = 0; i < rnd; i++) si[i] = a->shape[i] == 1 ? 0 : ri[i];
    si[ax] = norm(ival(nd_ref_load(bi.dtype, nd_ref_ptr(&bi, ri))), a->shape[ax], RAISE);
    memcpy(nd_ref_flat(&out, k), nd_ref_ptr(a, si), a->itemsize);
  }
  return out;
}

START_TEST(test_take_along_axis) {
  const nd_dtype dts[4] = {ND_FLOAT64, ND_INT16, ND_COMPLEX64, ND_BOOL};
  for (int d = 0; d < 4; d++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      if (lk == ND_REF_SCALAR) continue;
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, dts[d], 5, 7, 11 + d, &l);
      for (int ax = 0; ax < 2; ax++) {
        const int64_t n = l.ref.shape[ax];
        int64_t vals[21];
        for (int k = 0; k < 21; k++) vals[k] = n > 0 ? (k * 3 + 1) % (2 * n) - n : 0;
        /* full-shape indices (3 along axis), and indices broadcast along the other axis */
        int64_t sh[2] = {l.ref.shape[0], l.ref.shape[1]}, sb[2] = {1, 1};
        sh[ax] = n > 0 ? 3 : 0;
        sb[ax] = n > 0 ? 3 : 0;
        if (sh[0] * sh[1] > 21) sh[1 - ax] = 21 / 3;
        for (int variant = 0; variant < 2; variant++) {
          const int64_t *shp = variant ? sb : sh;
          if (!variant && sh[1 - ax] != l.ref.shape[1 - ax]) continue;
          nd_ref ri = idx_ref(ND_INT32, 2, shp, vals);
          nd_array *di = idx_upload(&ri, (lk + variant) % 3);
          nd_ref want = ref_along(&l.ref, &ri, ax);
          nd_array *got;
          OK(nd_take_along_axis(l.array, di, ax, NULL, &got));
          nd_ref_expect(got, &want, "%s: take_along_axis %s axis %d variant %d", l.name, nd_dtype_name(dts[d]), ax,
                        variant);
          nd_array_release(got);
          nd_array_release(di);
          nd_ref_free(&want);
          nd_ref_free(&ri);
        }
      }
      /* axis=None: 1-d indices into the flattened array */
      if (l.ref.size > 0) {
        nd_ref ri = idx_ref(ND_INT64, 1, (int64_t[]){4}, (int64_t[]){0, l.ref.size - 1, -1, 3});
        nd_array *di = nd_ref_upload(&ri), *got;
        nd_ref flat = nd_ref_reshape(&l.ref, 1, (int64_t[]){l.ref.size});
        gspec g = {.nidx = 1, .idx = {&ri}, .axes = {0}, .mode = RAISE};
        nd_ref want = ref_gather(&flat, &g);
        OK(nd_take_along_axis(l.array, di, ND_AXIS_NONE, NULL, &got));
        nd_ref_expect(got, &want, "%s: take_along_axis axis None", l.name);
        nd_array_release(got);
        nd_array_release(di);
        nd_ref_free(&want);
        nd_ref_free(&flat);
        nd_ref_free(&ri);
      }
      nd_ref_layout_free(&l);
    }
  nd_array *a, *i, *o = NULL;
  OK(nd_zeros(2, (int64_t[]){2, 3}, ND_FLOAT32, &a));
  nd_ref ri = idx_ref(ND_INT64, 2, (int64_t[]){2, 1}, (int64_t[]){0, 5});
  i = nd_ref_upload(&ri);
  ND_ASSERT_FAILS(nd_take_along_axis(a, i, 1, NULL, &o), ND_ERR_INDEX,
                  "nd_take_along_axis: index 5 is out of bounds for axis 1 with size 3");
  ck_assert_ptr_null(o);
  nd_array_release(a);
  nd_array_release(i);
  nd_ref_free(&ri);
}
END_TEST

/* ---- put ------------------------------------------------------------------------------------ */

static void ref_put(nd_ref *a, const nd_ref *idx, const nd_ref *vals, int mode) {
  if (idx->size == 0 || vals->size == 0) return;
  for (int64_t k = 0; k < idx->size; k++) {
    int64_t v = norm(ival(nd_ref_get(idx, k)), a->size, mode);
    nd_ref_set(a, v, nd_ref_get(vals, k % vals->size));
  }
}

START_TEST(test_put) {
  const nd_dtype dts[5] = {ND_INT32, ND_FLOAT16, ND_COMPLEX128, ND_UINT8, ND_BOOL};
  for (int d = 0; d < 5; d++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      if (lk == ND_REF_BROADCAST) continue;
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, dts[d], 4, 6, 5 + d, &l);
      const int64_t n = l.ref.size;
      for (int mode = RAISE; mode <= CLIP && n > 0; mode++) {
        /* distinct targets in every mode (n >= 1: a 0-d array gets one index) */
        int64_t vals[4];
        int ni = n >= 24 ? 4 : 1;
        if (mode == RAISE) vals[0] = -1, vals[1] = 5, vals[2] = -24, vals[3] = 17;
        else if (mode == WRAP) vals[0] = n + 1, vals[1] = -2 * n - 3, vals[2] = 7, vals[3] = 9;
        else vals[0] = n + 40, vals[1] = -100, vals[2] = 7, vals[3] = 9;
        nd_ref ri = idx_ref(mode == WRAP ? ND_INT8 : ND_INT64, 1, (int64_t[]){ni}, vals);
        nd_array *di = nd_ref_upload(&ri);
        /* float64 values, shorter than the indices (cycled) when there are several */
        nd_ref rv = nd_ref_new(ND_FLOAT64, 1, (int64_t[]){ni > 1 ? 3 : 1});
        for (int64_t k = 0; k < rv.size; k++) nd_ref_set(&rv, k, nd_scalar_float(2.75 + 10 * k + mode));
        nd_array *dv = nd_ref_upload(&rv);
        OK(nd_put(l.array, di, dv, (nd_index_mode)mode));
        ref_put(&l.ref, &ri, &rv, mode);
        nd_ref_expect(l.base, &l.base_ref, "%s: put %s mode %d (whole base)", l.name, nd_dtype_name(dts[d]), mode);
        nd_array_release(di);
        nd_array_release(dv);
        nd_ref_free(&ri);
        nd_ref_free(&rv);
      }
      /* raise: nothing written when one index is out of range */
      if (n > 0) {
        nd_ref ri = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){0, n});
        nd_array *di = nd_ref_upload(&ri), *dv;
        OK(nd_full(1, (int64_t[]){1}, nd_scalar_int(1), ND_INT64, &dv));
        char msg[96];
        snprintf(msg, sizeof msg, "nd_put: index %lld is out of bounds for axis 0 with size %lld", (long long)n,
                 (long long)n);
        ND_ASSERT_FAILS(nd_put(l.array, di, dv, ND_INDEX_RAISE), ND_ERR_INDEX, msg);
        nd_ref_expect(l.base, &l.base_ref, "%s: after a failed put", l.name);
        nd_array_release(di);
        nd_array_release(dv);
        nd_ref_free(&ri);
      }
      nd_ref_layout_free(&l);
    }
  /* float indices truncate, as NumPy's cast to intp */
  nd_array *a, *fi, *v;
  OK(nd_zeros(1, (int64_t[]){5}, ND_INT64, &a));
  nd_ref rf = nd_ref_new(ND_FLOAT32, 1, (int64_t[]){2});
  nd_ref_set(&rf, 0, nd_scalar_float(1.9));
  nd_ref_set(&rf, 1, nd_scalar_float(-1.5));
  fi = nd_ref_upload(&rf);
  OK(nd_full(1, (int64_t[]){2}, nd_scalar_int(4), ND_INT64, &v));
  OK(nd_put(a, fi, v, ND_INDEX_RAISE));
  nd_ref want = idx_ref(ND_INT64, 1, (int64_t[]){5}, (int64_t[]){0, 4, 0, 0, 4});
  nd_ref_expect(a, &want, "put with float indices");
  nd_array_release(a);
  nd_array_release(fi);
  nd_array_release(v);
  nd_ref_free(&rf);
  nd_ref_free(&want);
}
END_TEST

/* ---- boolean masks ------------------------------------------------------------------------- */

/* a[mask] on the host, mask over the leading mask->ndim axes. */
static nd_ref ref_mask_select(const nd_ref *a, const nd_ref *mask) {
  const int k = mask->ndim;
  int64_t count = 0;
  for (int64_t i = 0; i < mask->size; i++) count += nd_ref_get(mask, i).v.b != 0;
  int64_t rsh[ND_MAXDIMS], inner = 1;
  rsh[0] = count;
  for (int i = k; i < a->ndim; i++) rsh[1 + i - k] = a->shape[i], inner *= a->shape[i];
  nd_ref out = nd_ref_new(a->dtype, 1 + a->ndim - k, rsh);
  int64_t o = 0;
  for (int64_t i = 0; i < mask->size; i++) {
    if (!nd_ref_get(mask, i).v.b) continue;
    for (int64_t j = 0; j < inner; j++, o++) {
      memcpy(nd_ref_flat(&out, o), nd_ref_flat(a, i * inner + j), a->itemsize);
    }
  }
  return out;
}

static void ref_mask_assign(nd_ref *a, const nd_ref *mask, const nd_ref *vals) {
  nd_ref sel = ref_mask_select(a, mask);
  int vnd = vals->ndim, lead = 0;
  while (vnd > sel.ndim && vals->shape[lead] == 1) lead++, vnd--;
  nd_ref vv = *vals;
  vv.ndim = vnd;
  memmove(vv.shape, vals->shape + lead, sizeof(int64_t) * (size_t)vnd);
  memmove(vv.strides, vals->strides + lead, sizeof(int64_t) * (size_t)vnd);
  vv.owned = NULL;
  nd_ref vb = nd_ref_broadcast(&vv, sel.ndim, sel.shape);
  int64_t inner = sel.size / (sel.shape[0] > 0 ? sel.shape[0] : 1), o = 0;
  for (int64_t i = 0; i < mask->size; i++) {
    if (!nd_ref_get(mask, i).v.b) continue;
    for (int64_t j = 0; j < inner; j++, o++) {
      int64_t ri[ND_MAXDIMS];
      nd_ref_unravel(sel.ndim, sel.shape, o, ri);
      nd_ref_store(a->dtype, nd_ref_flat(a, i * inner + j), nd_ref_load(vb.dtype, nd_ref_ptr(&vb, ri)));
    }
  }
  nd_ref_free(&sel);
}

/* A bool mask of shape (ndim, shape) with a pattern of trues selected by seed (all false for
 * seed < 0). */
static nd_ref mask_ref(int ndim, const int64_t *shape, int seed) {
  nd_ref m = nd_ref_new(ND_BOOL, ndim, shape);
  for (int64_t k = 0; k < m.size; k++) nd_ref_set(&m, k, nd_scalar_bool(seed >= 0 && (k * 7 + seed) % 3 != 0));
  return m;
}

START_TEST(test_mask_select) {
  const nd_dtype dts[3] = {ND_FLOAT32, ND_INT64, ND_COMPLEX128};
  for (int d = 0; d < 3; d++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, dts[d], 5, 7, 2 + d, &l);
      for (int k = 0; k <= l.ref.ndim; k++)
        for (int seed = -1; seed < 2; seed++) {
          nd_ref m = mask_ref(k, l.ref.shape, seed);
          nd_array *dm = idx_upload(&m, (lk + seed + 1) % 3);
          nd_ref want = ref_mask_select(&l.ref, &m);
          nd_array *got;
          OK(nd_mask_select(l.array, dm, &got));
          nd_ref_expect(got, &want, "%s: a[mask] %s mask ndim %d seed %d", l.name, nd_dtype_name(dts[d]), k, seed);
          nd_array_release(got);
          /* compress along axis 0 with a 1-d condition: the same rows */
          if (k == 1) {
            OK(nd_compress(dm, l.array, 0, NULL, &got));
            nd_ref_expect(got, &want, "%s: compress", l.name);
            nd_array_release(got);
          }
          nd_array_release(dm);
          nd_ref_free(&want);
          nd_ref_free(&m);
        }
      nd_ref_layout_free(&l);
    }
  /* compress: a shorter condition, axis None, an int condition, a too-long one */
  nd_ref ra = nd_ref_new(ND_INT32, 2, (int64_t[]){3, 4});
  nd_ref_fill_pattern(&ra, 4);
  nd_array *a = nd_ref_upload(&ra), *got, *c;
  nd_ref rc = idx_ref(ND_INT16, 1, (int64_t[]){3}, (int64_t[]){0, 5, -1});
  c = nd_ref_upload(&rc);
  OK(nd_compress(c, a, 1, NULL, &got));
  nd_ref ti = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){1, 2});
  gspec g = {.nidx = 1, .idx = {&ti}, .axes = {1}, .mode = RAISE};
  nd_ref want = ref_gather(&ra, &g);
  nd_ref_expect(got, &want, "compress shorter condition");
  nd_array_release(got);
  nd_ref_free(&want);
  OK(nd_compress(c, a, ND_AXIS_NONE, NULL, &got));
  nd_ref flat = nd_ref_reshape(&ra, 1, (int64_t[]){12});
  g.axes[0] = 0;
  want = ref_gather(&flat, &g);
  nd_ref_expect(got, &want, "compress axis None");
  nd_array_release(got);
  nd_ref_free(&want);
  nd_ref_free(&flat);
  nd_array_release(c);
  nd_ref_free(&rc);
  rc = idx_ref(ND_BOOL, 1, (int64_t[]){5}, (int64_t[]){0, 1, 0, 0, 1});
  c = nd_ref_upload(&rc);
  got = NULL;
  ND_ASSERT_FAILS(nd_compress(c, a, 0, NULL, &got), ND_ERR_INDEX,
                  "nd_compress: index 4 is out of bounds for axis 0 with size 3");
  ck_assert_ptr_null(got);
  nd_array_release(c);
  nd_array_release(a);
  nd_ref_free(&rc);
  nd_ref_free(&ra);
  nd_ref_free(&ti);
}
END_TEST

/* A mask dimension of length 0 matches any length of the array there (NumPy: a (2, 3) array
 * indexed by a (2, 0) mask is empty); other lengths that differ are refused; assignment through
 * an empty mask writes nothing and still checks the values against the empty selection. */
START_TEST(test_mask_empty_axes) {
  int64_t shape[2] = {2, 3}, n = 6;
  nd_ref ra = nd_ref_new(ND_FLOAT32, 2, shape);
  nd_ref_fill_pattern(&ra, 5);
  nd_array *a = nd_ref_upload(&ra), *m, *got;
  static const int64_t ok_shapes[][2] = {{2, 0}, {0, 3}, {0, 0}};
  for (int i = 0; i < 3; i++) {
    OK(nd_zeros(2, ok_shapes[i], ND_BOOL, &m));
    OK(nd_mask_select(a, m, &got));
    ck_assert_int_eq(nd_array_ndim(got), 1);
    ck_assert_int_eq(nd_array_shape(got)[0], 0);
    nd_array_release(got);
    nd_array *seven;
    OK(nd_full(0, NULL, nd_scalar_float(7), ND_FLOAT32, &seven));
    OK(nd_mask_assign(a, m, seven));
    nd_array_release(seven);
    nd_array_release(m);
  }
  int64_t zero = 0, one_zero[2] = {1, 0}, two = 2;
  OK(nd_zeros(1, &zero, ND_BOOL, &m));
  OK(nd_mask_select(a, m, &got));
  ck_assert_int_eq(nd_array_ndim(got), 2);
  ck_assert_int_eq(nd_array_shape(got)[0], 0);
  ck_assert_int_eq(nd_array_shape(got)[1], 3);
  nd_array_release(got);
  nd_array *row;
  OK(nd_ones(1, &shape[1], ND_FLOAT32, &row));
  OK(nd_mask_assign(a, m, row)); /* a row broadcasts to the empty (0, 3) selection */
  nd_array_release(row);
  nd_array_release(m);
  nd_ref_expect(a, &ra, "after assignments through empty masks");
  nd_array *flat, *vals;
  OK(nd_array_reshape(a, 1, &n, &flat));
  OK(nd_zeros(1, &zero, ND_BOOL, &m));
  OK(nd_ones(1, &two, ND_FLOAT32, &vals));
  ND_ASSERT_FAILS(nd_mask_assign(flat, m, vals), ND_ERR_SHAPE, "nd_mask_assign");
  nd_array_release(vals);
  nd_array_release(m);
  nd_array_release(flat);
  OK(nd_zeros(2, one_zero, ND_BOOL, &m));
  got = NULL;
  ND_ASSERT_FAILS(nd_mask_select(a, m, &got), ND_ERR_INDEX,
                  "nd_mask_select: boolean index did not match indexed array along axis 0; size of axis is 2 "
                  "but size of corresponding boolean axis is 1");
  ck_assert_ptr_null(got);
  nd_array_release(m);
  nd_ref_expect(a, &ra, "after the refusals");
  nd_array_release(a);
  nd_ref_free(&ra);
}
END_TEST

START_TEST(test_mask_assign) {
  const nd_dtype dts[3] = {ND_INT16, ND_FLOAT64, ND_COMPLEX64};
  for (int d = 0; d < 3; d++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      if (lk == ND_REF_BROADCAST) continue;
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, dts[d], 5, 7, 9 + d, &l);
      for (int k = 0; k <= l.ref.ndim; k++)
        for (int vk = 0; vk < 3; vk++) {
          /* values: 0 a 0-d float, 1 a row over the trailing axes (where path), 2 one entry per
           * selected element or row (count path; needs the count) */
          nd_ref m = mask_ref(k, l.ref.shape, lk % 2);
          nd_ref sel = ref_mask_select(&l.ref, &m);
          nd_ref rv;
          if (vk == 0 || (vk == 1 && k == l.ref.ndim)) {
            rv = nd_ref_new(ND_FLOAT64, 0, NULL);
            nd_ref_set(&rv, 0, nd_scalar_float(-3.25 - vk));
          } else if (vk == 1) {
            rv = nd_ref_new(ND_FLOAT32, l.ref.ndim - k, l.ref.shape + k);
            nd_ref_fill_pattern(&rv, 40);
          } else {
            rv = nd_ref_new(ND_INT32, sel.ndim, sel.shape);
            nd_ref_fill_pattern(&rv, 70);
          }
          nd_array *dm = idx_upload(&m, vk), *dv = nd_ref_upload(&rv);
          OK(nd_mask_assign(l.array, dm, dv));
          ref_mask_assign(&l.ref, &m, &rv);
          nd_ref_expect(l.base, &l.base_ref, "%s: a[mask] = v, %s, mask ndim %d, values kind %d", l.name,
                        nd_dtype_name(dts[d]), k, vk);
          nd_array_release(dm);
          nd_array_release(dv);
          nd_ref_free(&rv);
          nd_ref_free(&sel);
          nd_ref_free(&m);
        }
      nd_ref_layout_free(&l);
    }
  /* errors leave a untouched */
  nd_ref ra = nd_ref_new(ND_INT32, 2, (int64_t[]){2, 3});
  nd_ref_fill_pattern(&ra, 1);
  nd_array *a = nd_ref_upload(&ra), *v2, *v23, *m;
  nd_ref rm = idx_ref(ND_BOOL, 2, (int64_t[]){2, 3}, (int64_t[]){1, 0, 1, 0, 0, 1});
  m = nd_ref_upload(&rm);
  OK(nd_zeros(1, (int64_t[]){2}, ND_INT32, &v2));
  ND_ASSERT_FAILS(nd_mask_assign(a, m, v2), ND_ERR_SHAPE,
                  "nd_mask_assign: NumPy boolean array indexing assignment cannot assign 2 input values to the 3 "
                  "output values where the mask is true");
  nd_array *mrow;
  nd_ref rrow = idx_ref(ND_BOOL, 1, (int64_t[]){2}, (int64_t[]){1, 0});
  mrow = nd_ref_upload(&rrow);
  OK(nd_zeros(2, (int64_t[]){2, 3}, ND_INT32, &v23));
  ND_ASSERT_FAILS(nd_mask_assign(a, mrow, v23), ND_ERR_SHAPE,
                  "nd_mask_assign: shape mismatch: value array of shape (2, 3) could not be broadcast to indexing "
                  "result of shape (1, 3)");
  nd_ref_expect(a, &ra, "a after failed mask assignments");
  nd_array *arrs[] = {a, v2, v23, m, mrow};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
  nd_ref_free(&ra);
  nd_ref_free(&rm);
  nd_ref_free(&rrow);
}
END_TEST

/* ---- the advanced-indexing primitive -------------------------------------------------------- */

/* A (4, 5, 6) source in four layouts: contiguous, a permuted copy viewed back, reversed along
 * every axis, and an offset slice of a larger array. */
static void source3(int how, nd_dtype dt, nd_array **a, nd_ref *base, nd_ref *view) {
  const int64_t s[3] = {4, 5, 6};
  switch (how) {
    case 0:
      *base = nd_ref_new(dt, 3, s);
      nd_ref_fill_pattern(base, 1);
      *view = *base;
      view->owned = NULL;
      *a = nd_ref_upload(base);
      return;
    case 1: {
      *base = nd_ref_new(dt, 3, (int64_t[]){6, 4, 5});
      nd_ref_fill_pattern(base, 2);
      const int perm[3] = {1, 2, 0};
      *view = nd_ref_permute(base, perm);
      nd_array *b = nd_ref_upload(base);
      OK(nd_array_transpose(b, 3, (int64_t[]){1, 2, 0}, a));
      nd_array_release(b);
      return;
    }
    case 2: {
      *base = nd_ref_new(dt, 3, s);
      nd_ref_fill_pattern(base, 3);
      nd_ref f0 = nd_ref_flip(base, 0), f1 = nd_ref_flip(&f0, 1);
      *view = nd_ref_flip(&f1, 2);
      nd_array *b = nd_ref_upload(base);
      OK(nd_array_flip(b, 0, NULL, a));
      nd_array_release(b);
      return;
    }
    default: {
      *base = nd_ref_new(dt, 3, (int64_t[]){6, 7, 12});
      nd_ref_fill_pattern(base, 4);
      const nd_slice sl[3] = {{1, 5, 1}, {2, 7, 1}, {0, 12, 2}};
      *view = nd_ref_slice(base, 3, sl);
      nd_array *b = nd_ref_upload(base);
      OK(nd_array_slice(b, 3, sl, a));
      nd_array_release(b);
      return;
    }
  }
}

typedef struct combo {
  int nidx;
  int axes[3];
  int front;
} combo;

START_TEST(test_index_gather_scatter) {
  const combo combos[] = {{1, {1}, 0}, {2, {0, 1}, 0}, {2, {1, 2}, 0}, {2, {0, 2}, 0}, {2, {1, 2}, 1},
                          {3, {0, 1, 2}, 0}, {1, {2}, 1}};
  const nd_dtype dts[3] = {ND_FLOAT32, ND_INT8, ND_COMPLEX128};
  for (int d = 0; d < 3; d++)
    for (int how = 0; how < 4; how++)
      for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
        for (int mode = RAISE; mode <= CLIP; mode++) {
          nd_array *a;
          nd_ref base, view;
          source3(how, dts[d], &a, &base, &view);
          const combo *cb = &combos[c];
          /* index arrays (3, 1), (1, 2) and () broadcast together; each in its own dtype */
          const nd_dtype idt[3] = {ND_INT16, ND_UINT8, ND_INT64};
          const int nds[3] = {2, 2, 0};
          const int64_t shs[3][2] = {{3, 1}, {1, 2}, {0, 0}};
          nd_ref ri[3];
          nd_array *di[3];
          gspec g = {.nidx = cb->nidx, .front = cb->front, .mode = mode};
          for (int k = 0; k < cb->nidx; k++) {
            const int64_t n = view.shape[cb->axes[k]];
            int64_t vals[3];
            for (int j = 0; j < 3; j++) {
              int64_t v = mode == RAISE ? (j * 2 + k) % n - (j == 1 ? n : 0) : (j - 1) * (n + 2) + k;
              if (idt[k] == ND_UINT8 && v < 0) v = mode == RAISE ? v + n : -v;
              vals[j] = v;
            }
            ri[k] = idx_ref(idt[k], nds[k], shs[k], vals);
            di[k] = idx_upload(&ri[k], (how + k) % 3);
            g.idx[k] = &ri[k];
            g.axes[k] = cb->axes[k];
          }
          int64_t axes[3];
          for (int k = 0; k < cb->nidx; k++) axes[k] = cb->axes[k] - (k == 0 && (how & 1) ? 3 : 0);
          nd_ref want = ref_gather(&view, &g);
          nd_array *got;
          OK(nd_index_gather(a, cb->nidx, (const nd_array *const *)di, axes, cb->front, (nd_index_mode)mode, &got));
          nd_ref_expect(got, &want, "gather %s source %d combo %zu mode %d", nd_dtype_name(dts[d]), how, c, mode);
          nd_array_release(got);
          /* scatter: distinct targets only in raise mode with these index values is not
           * guaranteed, so scatter values equal per target: the gathered values plus one, which
           * every duplicate computes the same way. */
          nd_array *one, *vals;
          OK(nd_ones(0, NULL, dts[d], &one));
          nd_array *g2;
          OK(nd_index_gather(a, cb->nidx, (const nd_array *const *)di, axes, cb->front, (nd_index_mode)mode, &g2));
          OK(nd_add(g2, one, NULL, &vals));
          nd_ref rvals = nd_ref_download(vals);
          OK(nd_index_scatter(a, cb->nidx, (const nd_array *const *)di, axes, cb->front, (nd_index_mode)mode, vals));
          ref_scatter(&view, &g, &rvals);
          nd_ref_expect(a, &view, "scatter %s source %d combo %zu mode %d", nd_dtype_name(dts[d]), how, c, mode);
          /* a scalar broadcast to every selected element */
          nd_array *s;
          OK(nd_full(0, NULL, nd_scalar_float(-7.5), ND_FLOAT64, &s));
          OK(nd_index_scatter(a, cb->nidx, (const nd_array *const *)di, axes, cb->front, (nd_index_mode)mode, s));
          nd_ref rs = nd_ref_download(s);
          ref_scatter(&view, &g, &rs);
          nd_ref_expect(a, &view, "scalar scatter source %d combo %zu", how, c);
          nd_array *arrs[] = {one, vals, g2, s, a};
          for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
          for (int k = 0; k < cb->nidx; k++) nd_array_release(di[k]), nd_ref_free(&ri[k]);
          nd_ref_free(&rvals);
          nd_ref_free(&rs);
          nd_ref_free(&want);
          nd_ref_free(&base);
        }
  /* raise errors name the axis; nothing is written */
  nd_array *a, *i0, *i2, *v, *o = NULL;
  OK(nd_zeros(3, (int64_t[]){4, 5, 6}, ND_INT32, &a));
  nd_ref r0 = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){1, -4});
  nd_ref r2 = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){5, -7});
  i0 = nd_ref_upload(&r0);
  i2 = nd_ref_upload(&r2);
  const nd_array *idx[2] = {i0, i2};
  ND_ASSERT_FAILS(nd_index_gather(a, 2, idx, (int64_t[]){0, 2}, 0, ND_INDEX_RAISE, &o), ND_ERR_INDEX,
                  "nd_index_gather: index -7 is out of bounds for axis 2 with size 6");
  ck_assert_ptr_null(o);
  OK(nd_full(0, NULL, nd_scalar_int(9), ND_INT32, &v));
  ND_ASSERT_FAILS(nd_index_scatter(a, 2, idx, (int64_t[]){0, 2}, 0, ND_INDEX_RAISE, v), ND_ERR_INDEX,
                  "nd_index_scatter: index -7 is out of bounds for axis 2 with size 6");
  nd_ref z = nd_ref_new(ND_INT32, 3, (int64_t[]){4, 5, 6});
  nd_ref_expect(a, &z, "a after a failed scatter");
  /* values overlapping the destination: a[[0, 1], :] = a[[1, 0], :] through a view */
  nd_ref ra = nd_ref_new(ND_INT32, 2, (int64_t[]){2, 3});
  nd_ref_fill_pattern(&ra, 6);
  nd_array *b = nd_ref_upload(&ra), *rev;
  OK(nd_array_flip(b, 1, (int64_t[]){0}, &rev));
  nd_ref rr = idx_ref(ND_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 1});
  nd_array *dr = nd_ref_upload(&rr);
  OK(nd_index_scatter(b, 1, (const nd_array *const *)&dr, (int64_t[]){0}, 0, ND_INDEX_RAISE, rev));
  nd_ref fr = nd_ref_flip(&ra, 0), want = nd_ref_copy(&fr);
  nd_ref_expect(b, &want, "scatter from a view of itself");
  nd_array *arrs[] = {a, i0, i2, v, b, rev, dr};
  for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) nd_array_release(arrs[i]);
  nd_ref frees[] = {r0, r2, z, ra, rr, want};
  for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++) nd_ref_free(&frees[i]);
}
END_TEST

/* ---- DLPack on the device ----------------------------------------------------------------- */

static int deleted;
static void (*inner_v)(struct DLManagedTensorVersioned *);
static void (*inner_l)(DLManagedTensor *);
static void counting_v(struct DLManagedTensorVersioned *m) {
  deleted++;
  inner_v(m);
}
static void counting_l(DLManagedTensor *m) {
  deleted++;
  inner_l(m);
}

START_TEST(test_dlpack_round_trip) {
  for (int dt = 0; dt < ND_NUM_DTYPES; dt++)
    for (int lk = 0; lk < ND_REF_NUM_LAYOUTS; lk++) {
      nd_ref_layout l;
      nd_ref_layout_make((nd_ref_layout_kind)lk, (nd_dtype)dt, 3, 5, dt, &l);
      for (int legacy = 0; legacy < 2; legacy++) {
        nd_array *back;
        deleted = 0;
        if (legacy) {
          DLManagedTensor *m;
          OK(nd_array_to_dlpack_legacy(l.array, ND_DLPACK_STREAM_LEGACY, &m));
          inner_l = m->deleter;
          m->deleter = counting_l;
          OK(nd_array_from_dlpack_legacy(m, &back));
        } else {
          struct DLManagedTensorVersioned *m;
          OK(nd_array_to_dlpack(l.array, ND_DLPACK_STREAM_PER_THREAD, &m));
          inner_v = m->deleter;
          m->deleter = counting_v;
          OK(nd_array_from_dlpack(m, &back));
        }
        ck_assert_msg(nd_array_size(l.array) == 0 || nd_array_data(back) == nd_array_data(l.array),
                      "%s: the import copied", l.name);
        ck_assert_int_eq(!!(nd_array_flags(back) & ND_ARRAY_WRITEABLE),
                         legacy || lk != ND_REF_BROADCAST);
        nd_ref_expect(back, &l.ref, "%s: %s DLPack round trip (legacy %d)", l.name, nd_dtype_name((nd_dtype)dt),
                      legacy);
        /* a view of the import keeps the producer's memory: the deleter runs once, at the end */
        nd_array *view;
        OK(nd_array_expand_dims(back, 0, &view));
        nd_array_release(back);
        ck_assert_int_eq(deleted, 0);
        nd_array *copy;
        OK(nd_array_copy(view, ND_ORDER_C, &copy));
        nd_array_release(view);
        ck_assert_int_eq(deleted, 1);
        nd_array_release(copy);
        ck_assert_int_eq(deleted, 1);
      }
      nd_ref_layout_free(&l);
    }
}
END_TEST

START_TEST(test_dlpack_stream_order) {
  /* Written on stream A behind a long spin, consumed on stream B through the DLPack stream
   * argument: B must wait for A's fill without the host synchronising. */
  nd_stream *A, *B;
  OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &A));
  OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &B));
  const int64_t n = 1 << 20;
  int wrong = 0;
  int32_t *host;
  OK(nd_host_alloc_pinned((size_t)n * 4, (void **)&host));
  for (int rep = 0; rep < 20; rep++) {
    nd_array *x;
    OK(nd_stream_push(A));
    OK(nd_zeros(1, &n, ND_INT32, &x));
    ck_assert_int_eq(nd_test_spin(nd_stream_cuda(A), 2000.0), 0);
    OK(nd_array_fill(x, nd_scalar_int(rep + 1)));
    OK(nd_stream_pop());
    struct DLManagedTensorVersioned *m;
    OK(nd_array_to_dlpack(x, (int64_t)(uintptr_t)nd_stream_cuda(B), &m));
    memset(host, 0, (size_t)n * 4);
    /* the consumer's own work: a raw CUDA copy on B, which ndcuda does not see */
    ck_assert_int_eq(cudaMemcpyAsync(host, m->dl_tensor.data, (size_t)n * 4, cudaMemcpyDeviceToHost,
                                     (cudaStream_t)nd_stream_cuda(B)), cudaSuccess);
    OK(nd_stream_synchronize(B));
    for (int64_t i = 0; i < n; i += 4099) wrong += host[i] != rep + 1;
    m->deleter(m);
    nd_array_release(x);
  }
  ck_assert_msg(wrong == 0, "%d samples read before the producer's fill finished", wrong);
  OK(nd_host_free_pinned(host));
  OK(nd_stream_synchronize(A));
  OK(nd_stream_destroy(A));
  OK(nd_stream_destroy(B));
}
END_TEST

static Suite *indexing_suite(void) {
  Suite *s = suite_create("indexing");
  TCase *t = tcase_create("take");
  tcase_add_test(t, test_take_layouts);
  tcase_add_test(t, test_take_special);
  tcase_add_test(t, test_take_along_axis);
  tcase_add_test(t, test_put);
  suite_add_tcase(s, t);
  t = tcase_create("masks");
  tcase_add_test(t, test_mask_select);
  tcase_add_test(t, test_mask_assign);
  tcase_add_test(t, test_mask_empty_axes);
  suite_add_tcase(s, t);
  t = tcase_create("advanced");
  tcase_add_test(t, test_index_gather_scatter);
  suite_add_tcase(s, t);
  t = tcase_create("dlpack");
  tcase_add_test(t, test_dlpack_round_trip);
  tcase_add_test(t, test_dlpack_stream_order);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main_gpu(indexing_suite()); }
