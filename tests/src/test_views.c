/* GPU suite for views: reshape (view or copy, as NumPy decides), ravel, transpose and
 * permute_dims, swapaxes, moveaxis, expand_dims, squeeze, broadcast_to, flip, slicing,
 * integer indexing, diagonal, and the real/imag views of complex arrays.
 *
 * Each view is copied back to the host with nd_array_to_host (which must cope with its
 * layout) and compared with a result the host builds independently: an index map written
 * here, applied element by element by nd_ref_gather, never the view's strides. The view/copy
 * decisions of reshape and ravel are NumPy 2.4's (np.shares_memory, recorded next to each
 * case). Runs with CK_FORK=no and exits 77 without a device. */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/src/nd_ref.h"

#define OK(expr) ND_ASSERT_OK(expr)
#define SENTINEL ((nd_array *)(uintptr_t)0x5e71)
#define FAILS_OUT(status, needle, ...)                                                        \
  do {                                                                                        \
    nd_array *o = SENTINEL;                                                                   \
    ND_ASSERT_FAILS((__VA_ARGS__), status, needle);                                           \
    ck_assert_msg(o == SENTINEL, "%s wrote its output although it failed", #__VA_ARGS__);     \
  } while (0)

static nd_ref pattern_ref(nd_dtype dt, int ndim, const int64_t *shape, int64_t seed) {
  nd_ref r = nd_ref_new(dt, ndim, shape);
  nd_ref_fill_pattern(&r, seed);
  return r;
}

/* A device array with pattern values and its host twin (C-contiguous). */
typedef struct twin {
  nd_array *a;
  nd_ref r;
} twin;

static twin make_twin(nd_dtype dt, int ndim, const int64_t *shape, int64_t seed) {
  twin t;
  t.r = pattern_ref(dt, ndim, shape, seed);
  t.a = nd_ref_upload(&t.r);
  return t;
}

static void free_twin(twin *t) {
  nd_array_release(t->a);
  nd_ref_free(&t->r);
}

/* A view must share its source's buffer, and writing through it must reach the source. The
 * write goes to every element of the view (fill with a marker), and the source, downloaded,
 * must equal the host source with the same elements set through the host map. */
typedef void (*view_map)(const int64_t *out_idx, int64_t *src_idx, const void *ctx);

static void expect_view(const nd_array *src, const nd_ref *rsrc, const nd_array *view, int ndim,
                        const int64_t *shape, view_map map, const void *ctx, const char *what) {
  char d[512];
  ck_assert_msg(nd_array_shares_buffer(view, src), "%s: result %s does not share the source's buffer", what,
                nd_ref_describe(view, d, sizeof d));
  ck_assert_msg(!(nd_array_flags(view) & ND_ARRAY_OWNDATA), "%s: a view claims to own its data", what);
  nd_ref want = nd_ref_gather(rsrc, ndim, shape, map, ctx);
  nd_ref_expect(view, &want, "%s", what);
  nd_ref_free(&want);
}

/* ---- maps ----------------------------------------------------------------------------------- */

typedef struct perm_ctx {
  int ndim;
  int perm[ND_MAXDIMS]; /* output axis i is source axis perm[i] */
} perm_ctx;

static void perm_map(const int64_t *o, int64_t *s, const void *ctx) {
  const perm_ctx *p = ctx;
  for (int i = 0; i < p->ndim; i++) s[p->perm[i]] = o[i];
}

typedef struct flat_ctx {
  int ndim;
  const int64_t *shape; /* the source's */
  const int64_t *oshape;
  int ondim;
} flat_ctx;

/* Reshape in C order: the output's linear index is the source's. */
static void flat_map(const int64_t *o, int64_t *s, const void *ctx) {
  const flat_ctx *f = ctx;
  int64_t k = 0;
  for (int i = 0; i < f->ondim; i++) k = k * f->oshape[i] + o[i];
  nd_ref_unravel(f->ndim, f->shape, k, s);
}

typedef struct slice_ctx {
  int ndim;
  int64_t start[ND_MAXDIMS], step[ND_MAXDIMS];
} slice_ctx;

static void slice_map(const int64_t *o, int64_t *s, const void *ctx) {
  const slice_ctx *c = ctx;
  for (int i = 0; i < c->ndim; i++) s[i] = c->start[i] + o[i] * c->step[i];
}

typedef struct insert_ctx {
  int ndim; /* the source's */
  int axis; /* position of the axis the output has and the source has not */
  int64_t value; /* -1: drop the output index (new axis); else the source index there */
} insert_ctx;

/* expand_dims (value -1: the output has an extra axis of length 1 at axis) and integer
 * indexing (the source has an extra axis at axis, fixed to value). */
static void insert_map(const int64_t *o, int64_t *s, const void *ctx) {
  const insert_ctx *c = ctx;
  if (c->value < 0) {
    for (int i = 0, j = 0; i <= c->ndim; i++)
      if (i != c->axis) s[j++] = o[i];
  } else {
    for (int i = 0, j = 0; i < c->ndim; i++) s[i] = i == c->axis ? c->value : o[j++];
  }
}

typedef struct bcast_ctx {
  int ndim, ondim;
  const int64_t *shape;
} bcast_ctx;

static void bcast_map(const int64_t *o, int64_t *s, const void *ctx) {
  const bcast_ctx *b = ctx;
  int lead = b->ondim - b->ndim;
  for (int i = 0; i < b->ndim; i++) s[i] = b->shape[i] == 1 ? 0 : o[i + lead];
}

typedef struct flip_ctx {
  int ndim;
  uint64_t mask;
  const int64_t *shape;
} flip_ctx;

static void flip_map(const int64_t *o, int64_t *s, const void *ctx) {
  const flip_ctx *f = ctx;
  for (int i = 0; i < f->ndim; i++) s[i] = (f->mask >> i & 1) ? f->shape[i] - 1 - o[i] : o[i];
}

typedef struct diag_ctx {
  int ndim, a1, a2;
  int64_t offset;
} diag_ctx;

/* NumPy's diagonal: the other axes in order, then the diagonal index i, at which the source
 * has axis1 = i - min(offset, 0) and axis2 = i + max(offset, 0). */
static void diag_map(const int64_t *o, int64_t *s, const void *ctx) {
  const diag_ctx *d = ctx;
  int j = 0;
  for (int i = 0; i < d->ndim; i++)
    if (i != d->a1 && i != d->a2) s[i] = o[j++];
  int64_t i = o[j];
  s[d->a1] = i + (d->offset < 0 ? -d->offset : 0);
  s[d->a2] = i + (d->offset > 0 ? d->offset : 0);
}

/* ---- reshape and ravel -------------------------------------------------------------------- */

/* Builds the source of a reshape case on both sides. */
enum { SRC_C, SRC_T, SRC_STEP_COLS, SRC_STEP_ROWS, SRC_REV, SRC_BCAST, SRC_F };

typedef struct src_case {
  nd_array *a, *base;
  nd_ref r, base_ref;
} src_case;

static src_case make_src(int kind) {
  src_case c;
  int64_t s234[3] = {2, 3, 4}, s34[2] = {3, 4}, s46[2] = {4, 6}, s64[2] = {6, 4}, s5 = 5, s4 = 4, s43[2] = {4, 3};
  int perm2[2] = {1, 0};
  nd_slice cols2[2] = {ND_SLICE_ALL, {ND_NONE, ND_NONE, 2}}, rows2[1] = {{ND_NONE, ND_NONE, 2}},
           rev[1] = {{ND_NONE, ND_NONE, -1}};
  switch (kind) {
    case SRC_C:
      c.base_ref = pattern_ref(ND_FLOAT64, 3, s234, 1);
      c.base = nd_ref_upload(&c.base_ref);
      c.a = nd_array_retain(c.base);
      c.r = nd_ref_slice(&c.base_ref, 0, NULL);
      break;
    case SRC_T:
      c.base_ref = pattern_ref(ND_FLOAT64, 2, s34, 2);
      c.base = nd_ref_upload(&c.base_ref);
      OK(nd_array_transpose(c.base, 0, NULL, &c.a));
      c.r = nd_ref_permute(&c.base_ref, perm2);
      break;
    case SRC_STEP_COLS:
      c.base_ref = pattern_ref(ND_FLOAT64, 2, s46, 3);
      c.base = nd_ref_upload(&c.base_ref);
      OK(nd_array_slice(c.base, 2, cols2, &c.a));
      c.r = nd_ref_slice(&c.base_ref, 2, cols2);
      break;
    case SRC_STEP_ROWS:
      c.base_ref = pattern_ref(ND_FLOAT64, 2, s64, 4);
      c.base = nd_ref_upload(&c.base_ref);
      OK(nd_array_slice(c.base, 1, rows2, &c.a));
      c.r = nd_ref_slice(&c.base_ref, 1, rows2);
      break;
    case SRC_REV:
      c.base_ref = pattern_ref(ND_FLOAT64, 1, &s5, 5);
      c.base = nd_ref_upload(&c.base_ref);
      OK(nd_array_slice(c.base, 1, rev, &c.a));
      c.r = nd_ref_slice(&c.base_ref, 1, rev);
      break;
    case SRC_BCAST:
      c.base_ref = pattern_ref(ND_FLOAT64, 1, &s4, 6);
      c.base = nd_ref_upload(&c.base_ref);
      OK(nd_array_broadcast_to(c.base, 2, s34, &c.a));
      c.r = nd_ref_broadcast(&c.base_ref, 2, s34);
      break;
    default: { /* SRC_F: a Fortran-ordered (4, 3) array, filled through a copy */
      c.base_ref = pattern_ref(ND_FLOAT64, 2, s43, 7);
      nd_array *tmp = nd_ref_upload(&c.base_ref);
      OK(nd_array_copy(tmp, ND_ORDER_F, &c.base));
      nd_array_release(tmp);
      c.a = nd_array_retain(c.base);
      c.r = nd_ref_slice(&c.base_ref, 0, NULL);
      break;
    }
  }
  return c;
}

static void free_src(src_case *c) {
  nd_array_release(c->a);
  nd_array_release(c->base);
  nd_ref_free(&c->base_ref);
}

START_TEST(views_reshape_view_or_copy) {
  /* np.shares_memory(x.reshape(shape), x), NumPy 2.4, for each source:
   *   C (2,3,4): (6,4) view, (4,6) view, (24,) view, (-1,2) view, (2,-1,2) view, (4,3,2) view
   *   (3,4).T: (12,) copy, (2,6) copy, (4,3) view, (2,2,3) view, (4,3,1) view
   *   (4,6)[:, ::2]: (12,) view, (2,2,3) view, (4,1,3) view
   *   (6,4)[::2]: (3,2,2) view, (12,) copy
   *   (5,)[::-1]: (5,1) view, (1,5) view
   *   broadcast_to((4,), (3,4)): (12,) copy, (3,2,2) view
   *   F-ordered (4,3): (12,) copy, (3,4) copy, (4,3,1) view, (2,2,3) view */
  static const struct {
    int src, ndim;
    int64_t shape[3];
    int view;
  } cases[] = {
      {SRC_C, 2, {6, 4}, 1},       {SRC_C, 2, {4, 6}, 1},       {SRC_C, 1, {24}, 1},
      {SRC_C, 2, {-1, 2}, 1},      {SRC_C, 3, {2, -1, 2}, 1},   {SRC_C, 3, {4, 3, 2}, 1},
      {SRC_T, 1, {12}, 0},         {SRC_T, 2, {2, 6}, 0},       {SRC_T, 2, {4, 3}, 1},
      {SRC_T, 3, {2, 2, 3}, 1},    {SRC_T, 3, {4, 3, 1}, 1},    {SRC_STEP_COLS, 1, {12}, 1},
      {SRC_STEP_COLS, 3, {2, 2, 3}, 1}, {SRC_STEP_COLS, 3, {4, 1, 3}, 1}, {SRC_STEP_ROWS, 3, {3, 2, 2}, 1},
      {SRC_STEP_ROWS, 1, {12}, 0}, {SRC_REV, 2, {5, 1}, 1},     {SRC_REV, 2, {1, 5}, 1},
      {SRC_BCAST, 1, {12}, 0},     {SRC_BCAST, 3, {3, 2, 2}, 1}, {SRC_F, 1, {12}, 0},
      {SRC_F, 2, {3, 4}, 0},       {SRC_F, 3, {4, 3, 1}, 1},    {SRC_F, 3, {2, 2, 3}, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    src_case c = make_src(cases[i].src);
    int nd = cases[i].ndim;
    int64_t shape[3];
    memcpy(shape, cases[i].shape, sizeof shape);
    int64_t known = 1;
    int unknown = -1;
    for (int k = 0; k < nd; k++) {
      if (shape[k] == -1) unknown = k;
      else known *= shape[k];
    }
    if (unknown >= 0) shape[unknown] = c.r.size / known;
    char what[160], sh[64];
    snprintf(what, sizeof what, "reshape case %zu (source %d to %s)", i, cases[i].src,
             nd_ref_shape_str(nd, cases[i].shape, sh, sizeof sh));
    nd_array *out;
    OK(nd_array_reshape(c.a, nd, cases[i].shape, &out));
    flat_ctx f = {c.r.ndim, c.r.shape, shape, nd};
    nd_ref want = nd_ref_gather(&c.r, nd, shape, flat_map, &f);
    nd_ref_expect(out, &want, "%s", what);
    nd_ref_free(&want);
    int shares = nd_array_shares_buffer(out, c.a);
    ck_assert_msg(shares == cases[i].view, "%s: NumPy gives a %s, ndcuda a %s", what,
                  cases[i].view ? "view" : "copy", shares ? "view" : "copy");
    int f_ = nd_array_flags(out);
    if (!cases[i].view)
      ck_assert_msg((f_ & ND_ARRAY_OWNDATA) && (f_ & ND_ARRAY_WRITEABLE) && (f_ & ND_ARRAY_C_CONTIGUOUS),
                    "%s: a copy must be a fresh C-contiguous array (flags %d)", what, f_);
    else
      ck_assert_msg(!!(f_ & ND_ARRAY_WRITEABLE) == !!(nd_array_flags(c.a) & ND_ARRAY_WRITEABLE),
                    "%s: the view changed writeability", what);
    nd_array_release(out);
    free_src(&c);
  }

  /* A reshaped view writes through to its source. */
  src_case c = make_src(SRC_STEP_COLS);
  int64_t s223[3] = {2, 2, 3};
  nd_array *v, *e;
  OK(nd_array_reshape(c.a, 3, s223, &v));
  OK(nd_array_index(v, 0, 1, &e)); /* rows 2 and 3 of the (4, 3) source */
  OK(nd_array_fill(e, nd_scalar_float(-99.0)));
  for (int64_t r = 2; r < 4; r++)
    for (int64_t k = 0; k < 3; k++) {
      int64_t idx[2] = {r, k};
      nd_ref_store(ND_FLOAT64, nd_ref_ptr(&c.r, idx), nd_scalar_float(-99.0));
    }
  nd_ref_expect(c.base, &c.base_ref, "base after filling a reshaped view of a[:, ::2]");
  nd_array_release(e);
  nd_array_release(v);

  /* Zero-size and 0-d. */
  int64_t z03[2] = {0, 3}, z30[2] = {3, 0}, z_1[2] = {-1, 0}, one1[2] = {1, 1};
  nd_array *z, *out;
  OK(nd_zeros(2, z03, ND_INT8, &z));
  OK(nd_array_reshape(z, 2, z30, &out));
  ck_assert(nd_array_ndim(out) == 2 && nd_array_dim(out, 0) == 3 && nd_array_dim(out, 1) == 0);
  nd_array_release(out);
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_reshape: cannot reshape array of size 0 into shape (-1, 0)",
            nd_array_reshape(z, 2, z_1, &o));
  nd_array_release(z);
  twin s = make_twin(ND_COMPLEX64, 0, NULL, 3);
  OK(nd_array_reshape(s.a, 2, one1, &out));
  nd_ref want = nd_ref_reshape(&s.r, 2, one1);
  nd_ref_expect(out, &want, "reshape of a 0-d array to (1, 1)");
  ck_assert(nd_array_shares_buffer(out, s.a));
  nd_array *back;
  OK(nd_array_reshape(out, 0, NULL, &back));
  nd_ref_expect(back, &s.r, "reshape of (1, 1) back to ()");
  nd_array_release(back);
  nd_array_release(out);
  nd_ref_free(&want);
  free_twin(&s);

  /* Errors. */
  int64_t five = 5, two_unknown[2] = {-1, -1}, neg2[2] = {-2, -12}, many[ND_MAXDIMS + 1];
  for (int k = 0; k <= ND_MAXDIMS; k++) many[k] = 1;
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_reshape: cannot reshape array of size 12 into shape (5,)",
            nd_array_reshape(c.a, 1, &five, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "can only specify one unknown dimension", nd_array_reshape(c.a, 2, two_unknown, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_reshape", nd_array_reshape(c.a, 2, neg2, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_reshape", nd_array_reshape(c.a, ND_MAXDIMS + 1, many, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_reshape", nd_array_reshape(c.a, 2, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_reshape", nd_array_reshape(NULL, 1, &five, &o));
  ND_ASSERT_FAILS(nd_array_reshape(c.a, 1, &five, NULL), ND_ERR_NULL_POINTER, "nd_array_reshape");
  free_src(&c);
}
END_TEST

START_TEST(views_ravel) {
  /* NumPy's ravel (order 'C') views only C-contiguous input; np.ravel(x[::2]) and
   * np.ravel(x[::-1]) are copies although reshape(-1) could view them. */
  static const struct {
    int src, view;
  } cases[] = {{SRC_C, 1}, {SRC_T, 0}, {SRC_STEP_COLS, 0}, {SRC_STEP_ROWS, 0}, {SRC_REV, 0}, {SRC_BCAST, 0}, {SRC_F, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    src_case c = make_src(cases[i].src);
    nd_array *out;
    OK(nd_array_ravel(c.a, &out));
    int64_t n = c.r.size;
    flat_ctx f = {c.r.ndim, c.r.shape, &n, 1};
    nd_ref want = nd_ref_gather(&c.r, 1, &n, flat_map, &f);
    nd_ref_expect(out, &want, "ravel of source %d", cases[i].src);
    nd_ref_free(&want);
    ck_assert_msg(nd_array_shares_buffer(out, c.a) == cases[i].view, "ravel of source %d: NumPy gives a %s",
                  cases[i].src, cases[i].view ? "view" : "copy");
    if (!cases[i].view) {
      /* A copy: writing to it leaves the source alone. */
      OK(nd_array_fill(out, nd_scalar_int(123)));
      nd_ref_expect(c.base, &c.base_ref, "source %d after writing to its raveled copy", cases[i].src);
    }
    nd_array_release(out);
    free_src(&c);
  }
  twin s = make_twin(ND_INT16, 0, NULL, 1);
  nd_array *out;
  OK(nd_array_ravel(s.a, &out));
  int64_t one = 1;
  ck_assert(nd_array_ndim(out) == 1 && nd_array_dim(out, 0) == 1);
  nd_ref want = nd_ref_reshape(&s.r, 1, &one);
  nd_ref_expect(out, &want, "ravel of a 0-d array");
  nd_ref_free(&want);
  nd_array_release(out);
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_ravel", nd_array_ravel(NULL, &o));
  ND_ASSERT_FAILS(nd_array_ravel(s.a, NULL), ND_ERR_NULL_POINTER, "nd_array_ravel");
  free_twin(&s);
}
END_TEST

/* ---- axis permutations ------------------------------------------------------------------------ */

START_TEST(views_transpose_swapaxes_moveaxis) {
  int64_t s234[3] = {2, 3, 4}, s5 = 5;
  for (int form = 0; form < 2; form++) {
    /* form 1: the source is itself a view, a[:, ::-1, 1:] of a (2, 3, 5) array */
    int64_t s235[3] = {2, 3, 5};
    twin base = make_twin(form ? ND_INT16 : ND_FLOAT32, 3, form ? s235 : s234, 3);
    nd_array *a;
    nd_ref ra;
    nd_slice sl[3] = {ND_SLICE_ALL, {ND_NONE, ND_NONE, -1}, {1, ND_NONE, ND_NONE}};
    if (form) {
      OK(nd_array_slice(base.a, 3, sl, &a));
      ra = nd_ref_slice(&base.r, 3, sl);
    } else {
      a = nd_array_retain(base.a);
      ra = nd_ref_slice(&base.r, 0, NULL);
    }
    const char *fname = form ? "a[:, ::-1, 1:]" : "a";
    static const int64_t perms[][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}, {-1, 0, 1}, {2, 1, 0}};
    for (size_t p = 0; p < sizeof perms / sizeof perms[0]; p++) {
      perm_ctx ctx = {3, {0}};
      int64_t shape[3];
      for (int i = 0; i < 3; i++) {
        ctx.perm[i] = (int)(perms[p][i] < 0 ? perms[p][i] + 3 : perms[p][i]);
        shape[i] = ra.shape[ctx.perm[i]];
      }
      nd_array *t;
      char what[128];
      snprintf(what, sizeof what, "permute_dims(%s, (%lld, %lld, %lld))", fname, (long long)perms[p][0],
               (long long)perms[p][1], (long long)perms[p][2]);
      OK(nd_array_permute_dims(a, 3, perms[p], &t));
      expect_view(a, &ra, t, 3, shape, perm_map, &ctx, what);
      nd_array_release(t);
      OK(nd_array_transpose(a, 3, perms[p], &t));
      expect_view(a, &ra, t, 3, shape, perm_map, &ctx, what);
      nd_array_release(t);
    }
    /* Default transpose reverses the axes. */
    perm_ctx rev = {3, {2, 1, 0}};
    int64_t rshape[3] = {ra.shape[2], ra.shape[1], ra.shape[0]};
    nd_array *t;
    OK(nd_array_transpose(a, 0, NULL, &t));
    expect_view(a, &ra, t, 3, rshape, perm_map, &rev, "transpose(a) with no axes");
    nd_array_release(t);
    /* swapaxes. */
    static const int64_t sw[][2] = {{0, 2}, {1, -1}, {0, 0}, {-3, 1}};
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
      perm_ctx ctx = {3, {0, 1, 2}};
      int x = (int)(sw[i][0] < 0 ? sw[i][0] + 3 : sw[i][0]), y = (int)(sw[i][1] < 0 ? sw[i][1] + 3 : sw[i][1]);
      ctx.perm[x] = y;
      ctx.perm[y] = x;
      int64_t shape[3];
      for (int k = 0; k < 3; k++) shape[k] = ra.shape[ctx.perm[k]];
      char what[96];
      snprintf(what, sizeof what, "swapaxes(%s, %lld, %lld)", fname, (long long)sw[i][0], (long long)sw[i][1]);
      OK(nd_array_swapaxes(a, sw[i][0], sw[i][1], &t));
      expect_view(a, &ra, t, 3, shape, perm_map, &ctx, what);
      nd_array_release(t);
    }
    /* moveaxis: NumPy's np.moveaxis(a, s, d). Resulting axis orders (by hand):
     * (0, 2) -> (1, 2, 0); (2, 0) -> (2, 0, 1); (-1, 1) -> (0, 2, 1); (1, 1) -> (0, 1, 2). */
    static const struct {
      int64_t s, d;
      int order[3];
    } mv[] = {{0, 2, {1, 2, 0}}, {2, 0, {2, 0, 1}}, {-1, 1, {0, 2, 1}}, {1, 1, {0, 1, 2}}, {0, -2, {1, 0, 2}}};
    for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++) {
      perm_ctx ctx = {3, {mv[i].order[0], mv[i].order[1], mv[i].order[2]}};
      int64_t shape[3];
      for (int k = 0; k < 3; k++) shape[k] = ra.shape[ctx.perm[k]];
      char what[96];
      snprintf(what, sizeof what, "moveaxis(%s, %lld, %lld)", fname, (long long)mv[i].s, (long long)mv[i].d);
      OK(nd_array_moveaxis(a, mv[i].s, mv[i].d, &t));
      expect_view(a, &ra, t, 3, shape, perm_map, &ctx, what);
      nd_array_release(t);
    }
    nd_array_release(a);
    free_twin(&base);
  }
  /* 0-d and 1-d transposes are the array itself, as views. */
  twin s = make_twin(ND_FLOAT64, 0, NULL, 2), v = make_twin(ND_UINT8, 1, &s5, 2);
  nd_array *t;
  OK(nd_array_transpose(s.a, 0, NULL, &t));
  nd_ref_expect(t, &s.r, "transpose of a 0-d array");
  ck_assert(nd_array_shares_buffer(t, s.a));
  nd_array_release(t);
  OK(nd_array_transpose(v.a, 0, NULL, &t));
  nd_ref_expect(t, &v.r, "transpose of a 1-d array");
  nd_array_release(t);

  twin b = make_twin(ND_FLOAT32, 3, s234, 1);
  const int64_t two[2] = {1, 0}, dup[3] = {0, 1, 1}, far[3] = {0, 1, 3};
  FAILS_OUT(ND_ERR_AXIS, "nd_array_permute_dims: axes don't match array", nd_array_permute_dims(b.a, 2, two, &o));
  FAILS_OUT(ND_ERR_AXIS, "repeated axis", nd_array_permute_dims(b.a, 3, dup, &o));
  FAILS_OUT(ND_ERR_AXIS, "axis 3 is out of bounds for array of dimension 3", nd_array_transpose(b.a, 3, far, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_permute_dims", nd_array_permute_dims(b.a, 3, NULL, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_swapaxes: axis 3 is out of bounds", nd_array_swapaxes(b.a, 0, 3, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_swapaxes: axis -4", nd_array_swapaxes(b.a, -4, 0, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_moveaxis", nd_array_moveaxis(b.a, 3, 0, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_moveaxis", nd_array_moveaxis(b.a, 0, -4, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_swapaxes", nd_array_swapaxes(NULL, 0, 1, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_moveaxis", nd_array_moveaxis(NULL, 0, 1, &o));
  ND_ASSERT_FAILS(nd_array_transpose(b.a, 0, NULL, NULL), ND_ERR_NULL_POINTER, "nd_array_transpose:");
  free_twin(&b);
  free_twin(&s);
  free_twin(&v);
}
END_TEST

/* ---- expand_dims, squeeze ------------------------------------------------------------------------ */

START_TEST(views_expand_dims_and_squeeze) {
  int64_t s23[2] = {2, 3};
  twin a = make_twin(ND_COMPLEX64, 2, s23, 4);
  /* np.expand_dims(a, axis).shape for axis 0, 1, 2, -1, -3: (1,2,3) (2,1,3) (2,3,1) (2,3,1) (1,2,3) */
  static const struct {
    int64_t axis;
    int pos;
  } ex[] = {{0, 0}, {1, 1}, {2, 2}, {-1, 2}, {-3, 0}};
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    int64_t shape[3];
    for (int k = 0, j = 0; k < 3; k++) shape[k] = k == ex[i].pos ? 1 : s23[j++];
    insert_ctx ctx = {2, ex[i].pos, -1};
    nd_array *e;
    char what[64];
    snprintf(what, sizeof what, "expand_dims(a, %lld)", (long long)ex[i].axis);
    OK(nd_array_expand_dims(a.a, ex[i].axis, &e));
    expect_view(a.a, &a.r, e, 3, shape, insert_map, &ctx, what);
    ck_assert_msg(nd_array_is_c_contiguous(e), "%s of a C-contiguous array is not C-contiguous", what);
    nd_array_release(e);
  }
  twin s = make_twin(ND_INT8, 0, NULL, 9);
  nd_array *e;
  OK(nd_array_expand_dims(s.a, 0, &e));
  int64_t one = 1;
  insert_ctx c0 = {0, 0, -1};
  expect_view(s.a, &s.r, e, 1, &one, insert_map, &c0, "expand_dims of a 0-d array");
  nd_array_release(e);
  FAILS_OUT(ND_ERR_AXIS, "nd_array_expand_dims: axis 3 is out of bounds for array of dimension 3",
            nd_array_expand_dims(a.a, 3, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_expand_dims", nd_array_expand_dims(a.a, -4, &o));
  int64_t ones[ND_MAXDIMS];
  for (int k = 0; k < ND_MAXDIMS; k++) ones[k] = 1;
  nd_array *deep;
  OK(nd_zeros(ND_MAXDIMS, ones, ND_INT8, &deep));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_expand_dims: the array already has the maximum 32",
            nd_array_expand_dims(deep, 0, &o));
  /* Squeezing all 32 length-1 axes gives a 0-d view. */
  nd_array *sq;
  OK(nd_array_squeeze(deep, 0, NULL, &sq));
  ck_assert_int_eq(nd_array_ndim(sq), 0);
  ck_assert(nd_array_shares_buffer(sq, deep));
  nd_array_release(sq);
  nd_array_release(deep);

  /* squeeze on (1, 3, 1, 2): all -> (3, 2); (0) -> (3, 1, 2); (-2) -> (1, 3, 2); (0, 2) -> (3, 2). */
  int64_t s1312[4] = {1, 3, 1, 2};
  twin q = make_twin(ND_FLOAT16, 4, s1312, 6);
  static const struct {
    int n;
    int64_t axes[2];
    uint64_t mask;
  } sqc[] = {{0, {0}, 0x5}, {1, {0}, 0x1}, {1, {-2}, 0x4}, {2, {0, 2}, 0x5}, {2, {2, -4}, 0x5}};
  for (size_t i = 0; i < sizeof sqc / sizeof sqc[0]; i++) {
    int64_t shape[4];
    int nd = 0;
    for (int k = 0; k < 4; k++)
      if (!(sqc[i].mask >> k & 1)) shape[nd++] = s1312[k];
    /* The source index: 0 on the squeezed axes, the output's elsewhere. Expressed as a
     * reshape, since only length-1 axes go: C order is unchanged. */
    flat_ctx f = {4, s1312, shape, nd};
    nd_array *out;
    char what[64];
    snprintf(what, sizeof what, "squeeze case %zu", i);
    OK(nd_array_squeeze(q.a, sqc[i].n, sqc[i].n ? sqc[i].axes : NULL, &out));
    expect_view(q.a, &q.r, out, nd, shape, flat_map, &f, what);
    nd_array_release(out);
  }
  const int64_t bad1 = 1, dup[2] = {0, 0}, far = 4;
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_squeeze: cannot select an axis to squeeze out which has size not equal to one",
            nd_array_squeeze(q.a, 1, &bad1, &o));
  FAILS_OUT(ND_ERR_AXIS, "repeated axis", nd_array_squeeze(q.a, 2, dup, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_squeeze: axis 4 is out of bounds", nd_array_squeeze(q.a, 1, &far, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_squeeze", nd_array_squeeze(q.a, 1, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_expand_dims", nd_array_expand_dims(NULL, 0, &o));
  free_twin(&q);
  free_twin(&s);
  free_twin(&a);
}
END_TEST

/* ---- broadcast_to ------------------------------------------------------------------------------- */

START_TEST(views_broadcast_to_is_read_only) {
  static const struct {
    int ndim, ondim;
    int64_t shape[2], oshape[3];
  } cases[] = {
      {1, 3, {3}, {2, 4, 3}}, {2, 2, {4, 1}, {4, 5}}, {0, 2, {0}, {2, 2}}, {1, 1, {1}, {0}},
      {2, 2, {2, 3}, {2, 3}}, {2, 3, {1, 3}, {4, 2, 3}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    twin a = make_twin(ND_INT32, cases[i].ndim, cases[i].shape, 5);
    nd_array *b;
    char what[96], s1[64], s2[64];
    snprintf(what, sizeof what, "broadcast_to(%s, %s)", nd_ref_shape_str(cases[i].ndim, cases[i].shape, s1, sizeof s1),
             nd_ref_shape_str(cases[i].ondim, cases[i].oshape, s2, sizeof s2));
    OK(nd_array_broadcast_to(a.a, cases[i].ondim, cases[i].oshape, &b));
    bcast_ctx ctx = {cases[i].ndim, cases[i].ondim, cases[i].shape};
    expect_view(a.a, &a.r, b, cases[i].ondim, cases[i].oshape, bcast_map, &ctx, what);
    /* Broadcast axes have stride 0, and the view is read-only in every way. */
    for (int k = 0; k < cases[i].ondim; k++) {
      int src = k - (cases[i].ondim - cases[i].ndim);
      if (src < 0 || (cases[i].shape[src] == 1 && cases[i].oshape[k] != 1))
        ck_assert_msg(nd_array_strides(b)[k] == 0, "%s: axis %d has stride %lld", what, k,
                      (long long)nd_array_strides(b)[k]);
    }
    ck_assert_msg(!(nd_array_flags(b) & ND_ARRAY_WRITEABLE), "%s is writeable", what);
    int has_zero_stride = 0;
    for (int k = 0; k < cases[i].ondim; k++) has_zero_stride |= nd_array_strides(b)[k] == 0 && cases[i].oshape[k] > 1;
    ND_ASSERT_FAILS(nd_array_fill(b, nd_scalar_int(1)), ND_ERR_READ_ONLY, "nd_array_fill");
    ND_ASSERT_FAILS(nd_copyto(b, a.a, ND_CASTING_NO), ND_ERR_READ_ONLY, "nd_copyto");
    if (has_zero_stride)
      ND_ASSERT_FAILS(nd_array_set_writeable(b, 1), ND_ERR_READ_ONLY, "nd_array_set_writeable");
    /* Views of the broadcast stay read-only. */
    nd_array *t;
    OK(nd_array_transpose(b, 0, NULL, &t));
    ck_assert(!(nd_array_flags(t) & ND_ARRAY_WRITEABLE));
    ND_ASSERT_FAILS(nd_array_fill(t, nd_scalar_int(1)), ND_ERR_READ_ONLY, "nd_array_fill");
    nd_array_release(t);
    nd_ref_expect(a.a, &a.r, "%s: source after refused writes", what);
    nd_array_release(b);
    free_twin(&a);
  }
  int64_t s3 = 3, s4 = 4, s23[2] = {2, 3}, neg[2] = {-1, 3}, many[ND_MAXDIMS + 1];
  for (int k = 0; k <= ND_MAXDIMS; k++) many[k] = 1;
  twin a = make_twin(ND_INT32, 1, &s3, 1), m = make_twin(ND_INT32, 2, s23, 1);
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_broadcast_to: cannot broadcast shape (3,) to (4,)", nd_array_broadcast_to(a.a, 1, &s4, &o));
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_broadcast_to: cannot broadcast shape (2, 3) to (3,)", nd_array_broadcast_to(m.a, 1, &s3, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_broadcast_to", nd_array_broadcast_to(a.a, 2, neg, &o));
  FAILS_OUT(ND_ERR_INVALID_ARGUMENT, "nd_array_broadcast_to", nd_array_broadcast_to(a.a, ND_MAXDIMS + 1, many, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_broadcast_to", nd_array_broadcast_to(a.a, 2, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_broadcast_to", nd_array_broadcast_to(NULL, 1, &s3, &o));
  free_twin(&a);
  free_twin(&m);
}
END_TEST

/* ---- flip --------------------------------------------------------------------------------------- */

START_TEST(views_flip) {
  int64_t s234[3] = {2, 3, 4};
  twin a = make_twin(ND_FLOAT64, 3, s234, 8);
  static const struct {
    int n;
    int64_t axes[3];
    uint64_t mask;
  } cases[] = {{0, {0}, 0x7}, {1, {0}, 0x1}, {1, {1}, 0x2}, {1, {-1}, 0x4}, {2, {0, 2}, 0x5}, {3, {2, 0, 1}, 0x7}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nd_array *f;
    char what[64];
    snprintf(what, sizeof what, "flip case %zu", i);
    OK(nd_array_flip(a.a, cases[i].n, cases[i].n ? cases[i].axes : NULL, &f));
    flip_ctx ctx = {3, cases[i].mask, s234};
    expect_view(a.a, &a.r, f, 3, s234, flip_map, &ctx, what);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(nd_array_strides(f)[k] == ((cases[i].mask >> k & 1) ? -1 : 1) * nd_array_strides(a.a)[k],
                    "%s: stride %d", what, k);
    /* Flipping back gives the original geometry. */
    nd_array *g;
    OK(nd_array_flip(f, cases[i].n, cases[i].n ? cases[i].axes : NULL, &g));
    ck_assert(nd_array_data(g) == nd_array_data(a.a));
    ck_assert(memcmp(nd_array_strides(g), nd_array_strides(a.a), 3 * sizeof(int64_t)) == 0);
    nd_array_release(g);
    nd_array_release(f);
  }
  /* Zero-size and 0-d flips. */
  int64_t z[2] = {0, 4};
  twin e = make_twin(ND_INT8, 2, z, 1), s = make_twin(ND_INT8, 0, NULL, 1);
  nd_array *f;
  OK(nd_array_flip(e.a, 0, NULL, &f));
  ck_assert(nd_array_size(f) == 0 && nd_array_dim(f, 1) == 4);
  nd_array_release(f);
  OK(nd_array_flip(s.a, 0, NULL, &f));
  nd_ref_expect(f, &s.r, "flip of a 0-d array");
  nd_array_release(f);
  const int64_t dup[2] = {1, -2}, far = 3;
  FAILS_OUT(ND_ERR_AXIS, "repeated axis", nd_array_flip(a.a, 2, dup, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_flip: axis 3 is out of bounds", nd_array_flip(a.a, 1, &far, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_flip", nd_array_flip(a.a, 1, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_flip", nd_array_flip(NULL, 0, NULL, &o));
  free_twin(&e);
  free_twin(&s);
  free_twin(&a);
}
END_TEST

/* ---- slicing and indexing ------------------------------------------------------------------------ */

static void check_slice(const nd_array *a, const nd_ref *ra, int n, const nd_slice *sl, const char *what) {
  slice_ctx ctx;
  int64_t shape[ND_MAXDIMS];
  ctx.ndim = ra->ndim;
  for (int i = 0; i < ra->ndim; i++) {
    int64_t count;
    if (i < n) {
      OK(nd_slice_indices(sl[i], ra->shape[i], &ctx.start[i], &ctx.step[i], &count));
    } else {
      ctx.start[i] = 0;
      ctx.step[i] = 1;
      count = ra->shape[i];
    }
    shape[i] = count;
  }
  nd_array *v;
  OK(nd_array_slice(a, n, sl, &v));
  expect_view(a, ra, v, ra->ndim, shape, slice_map, &ctx, what);
  nd_array_release(v);
}

START_TEST(views_slice_and_index) {
  int64_t s67[2] = {6, 7};
  twin a = make_twin(ND_INT16, 2, s67, 2);
  static const struct {
    int n;
    nd_slice s[2];
    const char *what;
  } cases[] = {
      {2, {{1, 5, 2}, {ND_NONE, ND_NONE, -3}}, "a[1:5:2, ::-3]"},
      {2, {{-2, ND_NONE, ND_NONE}, {-1, ND_NONE, -2}}, "a[-2:, -1::-2]"},
      {1, {{10, 20, ND_NONE}}, "a[10:20] (empty)"},
      {1, {{ND_NONE, ND_NONE, -1}}, "a[::-1]"},
      {2, {{4, 1, -1}, {2, 3, ND_NONE}}, "a[4:1:-1, 2:3]"},
      {2, {{-100, 100, 4}, {ND_NONE, -100, -1}}, "a[-100:100:4, :-100:-1]"},
      {0, {{0}}, "a[()]"},
      {2, {{3, 3, ND_NONE}, {ND_NONE, ND_NONE, 100}}, "a[3:3, ::100]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_slice(a.a, &a.r, cases[i].n, cases[i].s, cases[i].what);
  /* Hand-checked: the pattern of int16 element k is 3k - 1000; a[1:5:2, ::-3] holds
   * elements (1, 6) (1, 3) (1, 0) (3, 6) (3, 3) (3, 0), i.e. k = 13, 10, 7, 27, 24, 21. */
  nd_array *v;
  OK(nd_array_slice(a.a, 2, cases[0].s, &v));
  int16_t got[6];
  OK(nd_array_to_host(v, got, sizeof got));
  static const int k[6] = {13, 10, 7, 27, 24, 21};
  for (int i = 0; i < 6; i++) ck_assert_int_eq(got[i], 3 * (k[i] + 2) - 1000);
  ck_assert_int_eq(nd_array_offset(v), (1 * 7 + 6) * 2);
  ck_assert(nd_array_strides(v)[0] == 28 && nd_array_strides(v)[1] == -6);

  /* Slices of slices point at the root buffer and survive the views in between. */
  nd_array *w;
  nd_slice inner[2] = {{ND_NONE, ND_NONE, -1}, {1, ND_NONE, ND_NONE}};
  OK(nd_array_slice(v, 2, inner, &w));
  nd_ref rv = nd_ref_slice(&a.r, 2, cases[0].s);
  nd_ref rw = nd_ref_slice(&rv, 2, inner);
  nd_array_release(v);
  ck_assert(nd_array_shares_buffer(w, a.a));
  nd_ref_expect(w, &rw, "a[1:5:2, ::-3][::-1, 1:] after the middle view is released");
  nd_array_release(w);

  /* 3-d sources: a transposed view and a stepped one. */
  int64_t s345[3] = {3, 4, 5};
  twin b = make_twin(ND_COMPLEX128, 3, s345, 1);
  nd_array *t;
  const int64_t perm[3] = {2, 0, 1};
  const int permi[3] = {2, 0, 1};
  OK(nd_array_transpose(b.a, 3, perm, &t));
  nd_ref rt = nd_ref_permute(&b.r, permi);
  nd_slice s3[3] = {{ND_NONE, ND_NONE, -2}, {1, ND_NONE, ND_NONE}, {-1, 0, -2}};
  check_slice(t, &rt, 3, s3, "b.transpose(2, 0, 1)[::-2, 1:, -1:0:-2]");
  check_slice(t, &rt, 1, s3, "b.transpose(2, 0, 1)[::-2]");

  /* Integer indexing drops the axis. */
  static const struct {
    int64_t axis, index;
  } idx[] = {{0, 2}, {1, -1}, {-1, 0}, {2, 3}, {0, -3}};
  for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
    int ax = (int)(idx[i].axis < 0 ? idx[i].axis + 3 : idx[i].axis);
    int64_t ix = idx[i].index < 0 ? idx[i].index + rt.shape[ax] : idx[i].index;
    insert_ctx ctx = {3, ax, ix};
    int64_t shape[2];
    for (int k2 = 0, j = 0; k2 < 3; k2++)
      if (k2 != ax) shape[j++] = rt.shape[k2];
    char what[96];
    snprintf(what, sizeof what, "index(b.T', axis %lld, %lld)", (long long)idx[i].axis, (long long)idx[i].index);
    OK(nd_array_index(t, idx[i].axis, idx[i].index, &v));
    expect_view(t, &rt, v, 2, shape, insert_map, &ctx, what);
    nd_array_release(v);
  }
  /* Down to 0-d, and the 0-d view writes through. */
  int64_t s4 = 4;
  twin c = make_twin(ND_FLOAT32, 1, &s4, 3);
  nd_array *e;
  OK(nd_array_index(c.a, 0, -2, &e));
  ck_assert_int_eq(nd_array_ndim(e), 0);
  OK(nd_array_fill(e, nd_scalar_float(0.125)));
  nd_ref_set(&c.r, 2, nd_scalar_float(0.125));
  nd_ref_expect(c.a, &c.r, "after writing through a[-2]");
  FAILS_OUT(ND_ERR_AXIS, "nd_array_index", nd_array_index(e, 0, 0, &o));
  nd_array_release(e);

  FAILS_OUT(ND_ERR_INDEX, "nd_array_index: index 5 is out of bounds for axis 0 with size 4", nd_array_index(c.a, 0, 5, &o));
  FAILS_OUT(ND_ERR_INDEX, "index -5 is out of bounds for axis 0 with size 4", nd_array_index(c.a, 0, -5, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_index: axis 1 is out of bounds", nd_array_index(c.a, 1, 0, &o));
  nd_slice zero_step = {0, 2, 0}, two[2] = {ND_SLICE_ALL, ND_SLICE_ALL};
  FAILS_OUT(ND_ERR_VALUE, "nd_array_slice: slice step cannot be zero", nd_array_slice(c.a, 1, &zero_step, &o));
  FAILS_OUT(ND_ERR_INDEX, "nd_array_slice: too many indices for array: array is 1-dimensional, but 2 were indexed",
            nd_array_slice(c.a, 2, two, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_slice", nd_array_slice(c.a, 1, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_slice", nd_array_slice(NULL, 0, NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_index", nd_array_index(NULL, 0, 0, &o));
  nd_array_release(t);
  free_twin(&c);
  free_twin(&b);
  free_twin(&a);
}
END_TEST

/* ---- diagonal ------------------------------------------------------------------------------------ */

START_TEST(views_diagonal) {
  int64_t s35[2] = {3, 5}, s234[3] = {2, 3, 4};
  twin a = make_twin(ND_FLOAT32, 2, s35, 1), b = make_twin(ND_INT64, 3, s234, 2);
  static const struct {
    int which;
    int64_t offset, a1, a2;
  } cases[] = {
      {0, 0, 0, 1},  {0, 1, 0, 1},  {0, 4, 0, 1},  {0, 5, 0, 1},  {0, 6, 0, 1},  {0, -1, 0, 1},
      {0, -2, 0, 1}, {0, -3, 0, 1}, {0, 2, 1, 0},  {0, -1, 1, 0}, {0, 0, -1, -2}, {1, 0, 0, 2},
      {1, 1, 1, 2},  {1, -1, 2, 0}, {1, 2, 0, 1},  {1, -2, 1, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    twin *t = cases[i].which ? &b : &a;
    int nd = t->r.ndim;
    int a1 = (int)(cases[i].a1 < 0 ? cases[i].a1 + nd : cases[i].a1);
    int a2 = (int)(cases[i].a2 < 0 ? cases[i].a2 + nd : cases[i].a2);
    int64_t off = cases[i].offset, n1 = t->r.shape[a1], n2 = t->r.shape[a2];
    int64_t len = off >= 0 ? (n2 - off < n1 ? n2 - off : n1) : (n1 + off < n2 ? n1 + off : n2);
    if (len < 0) len = 0;
    int64_t shape[3];
    int j = 0;
    for (int k = 0; k < nd; k++)
      if (k != a1 && k != a2) shape[j++] = t->r.shape[k];
    shape[j++] = len;
    diag_ctx ctx = {nd, a1, a2, off};
    nd_array *d;
    char what[96];
    snprintf(what, sizeof what, "diagonal(%dd, offset %lld, axes %lld, %lld)", nd, (long long)off,
             (long long)cases[i].a1, (long long)cases[i].a2);
    OK(nd_array_diagonal(t->a, off, cases[i].a1, cases[i].a2, &d));
    expect_view(t->a, &t->r, d, j, shape, diag_map, &ctx, what);
    ck_assert_msg(!(nd_array_flags(d) & ND_ARRAY_WRITEABLE), "%s is writeable (NumPy's is read-only)", what);
    ND_ASSERT_FAILS(nd_array_fill(d, nd_scalar_int(0)), ND_ERR_READ_ONLY, "nd_array_fill");
    nd_array_release(d);
  }
  int64_t s3 = 3;
  twin v = make_twin(ND_FLOAT32, 1, &s3, 1);
  FAILS_OUT(ND_ERR_SHAPE, "nd_array_diagonal", nd_array_diagonal(v.a, 0, 0, 1, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_diagonal: axis1 and axis2 cannot be the same", nd_array_diagonal(a.a, 0, 1, -1, &o));
  FAILS_OUT(ND_ERR_AXIS, "nd_array_diagonal: axis 2 is out of bounds", nd_array_diagonal(a.a, 0, 0, 2, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_diagonal", nd_array_diagonal(NULL, 0, 0, 1, &o));
  free_twin(&v);
  free_twin(&a);
  free_twin(&b);
}
END_TEST

/* ---- real and imag ------------------------------------------------------------------------------- */

START_TEST(views_real_and_imag) {
  static const nd_dtype cdts[] = {ND_COMPLEX64, ND_COMPLEX128};
  static const nd_ref_layout_kind ls[] = {ND_REF_CONTIG, ND_REF_TRANSPOSED, ND_REF_NEGATIVE, ND_REF_STEPPED,
                                          ND_REF_OFFSET, ND_REF_SCALAR, ND_REF_BROADCAST};
  for (int c = 0; c < 2; c++)
    for (size_t l = 0; l < sizeof ls / sizeof ls[0]; l++) {
      nd_dtype cd = cdts[c], rd = c ? ND_FLOAT64 : ND_FLOAT32;
      nd_ref_layout L;
      nd_ref_layout_make(ls[l], cd, 3, 4, 5, &L);
      nd_array *re, *im;
      OK(nd_array_real(L.array, &re));
      OK(nd_array_imag(L.array, &im));
      /* Expected parts, element by element from the complex reference. */
      nd_ref wre = nd_ref_new(rd, L.ref.ndim, L.ref.shape), wim = nd_ref_new(rd, L.ref.ndim, L.ref.shape);
      for (int64_t k = 0; k < L.ref.size; k++) {
        nd_scalar z = nd_ref_get(&L.ref, k);
        nd_ref_set(&wre, k, nd_scalar_float(z.v.c[0]));
        nd_ref_set(&wim, k, nd_scalar_float(z.v.c[1]));
      }
      nd_ref_expect(re, &wre, "real of a %s %s view", nd_dtype_name(cd), L.name);
      nd_ref_expect(im, &wim, "imag of a %s %s view", nd_dtype_name(cd), L.name);
      ck_assert(nd_array_shares_buffer(re, L.array) && nd_array_shares_buffer(im, L.array));
      ck_assert(memcmp(nd_array_strides(re), nd_array_strides(L.array), (size_t)L.ref.ndim * sizeof(int64_t)) == 0);
      ck_assert_int_eq(nd_array_offset(im), nd_array_offset(L.array) + (int64_t)nd_dtype_itemsize(rd));
      if (ls[l] == ND_REF_BROADCAST) {
        ND_ASSERT_FAILS(nd_array_fill(im, nd_scalar_int(1)), ND_ERR_READ_ONLY, "nd_array_fill");
      } else {
        /* Writing through the imaginary view changes only the imaginary parts. */
        OK(nd_array_fill(im, nd_scalar_float(-4.5)));
        for (int64_t k = 0; k < L.ref.size; k++) {
          nd_scalar z = nd_ref_get(&L.ref, k);
          nd_ref_set(&L.ref, k, nd_scalar_complex(z.v.c[0], -4.5));
        }
        nd_ref_expect(L.base, &L.base_ref, "%s %s base after imag(view)[...] = -4.5", nd_dtype_name(cd), L.name);
        /* And copyto into the real view from a float array of the view's shape. */
        nd_ref src = pattern_ref(ND_FLOAT32, L.ref.ndim, L.ref.shape, 77);
        nd_array *ds = nd_ref_upload(&src);
        OK(nd_copyto(re, ds, ND_CASTING_SAFE));
        for (int64_t k = 0; k < L.ref.size; k++) {
          nd_scalar z = nd_ref_get(&L.ref, k);
          nd_ref_set(&L.ref, k, nd_scalar_complex(nd_ref_get(&src, k).v.f, z.v.c[1]));
        }
        nd_ref_expect(L.base, &L.base_ref, "%s %s base after real(view)[...] = float32 values", nd_dtype_name(cd), L.name);
        nd_array_release(ds);
        nd_ref_free(&src);
      }
      nd_ref_free(&wre);
      nd_ref_free(&wim);
      nd_array_release(re);
      nd_array_release(im);
      nd_ref_layout_free(&L);
    }
  /* A real array: real is the array itself, imag an error. */
  int64_t s3 = 3;
  twin f = make_twin(ND_FLOAT32, 1, &s3, 1);
  nd_array *re;
  OK(nd_array_real(f.a, &re));
  ck_assert(re == f.a);
  nd_array_release(re);
  nd_ref_expect(f.a, &f.r, "a float32 array after taking its real part");
  FAILS_OUT(ND_ERR_DTYPE, "nd_array_imag: array of dtype float32 has no imaginary part", nd_array_imag(f.a, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_real", nd_array_real(NULL, &o));
  FAILS_OUT(ND_ERR_NULL_POINTER, "nd_array_imag", nd_array_imag(NULL, &o));
  free_twin(&f);
}
END_TEST

/* ---- flags and accessors --------------------------------------------------------------------------- */

START_TEST(views_flags_are_computed) {
  /* NumPy's flags: for c = np.arange(12.).reshape(3, 4): c[:, :1] is neither C nor F,
   * c[:1] is both (length-1 axes are ignored), c.T is F, c[:, ::2] neither, c[::-1] neither,
   * a 1-d, 0-d or zero-size array is both. */
  int64_t s34[2] = {3, 4};
  twin c = make_twin(ND_FLOAT64, 2, s34, 1);
  static const struct {
    int n;
    nd_slice s[2];
    int cc, fc;
    const char *what;
  } cases[] = {
      {2, {ND_SLICE_ALL, {ND_NONE, 1, ND_NONE}}, 0, 0, "c[:, :1]"},
      {1, {{ND_NONE, 1, ND_NONE}}, 1, 1, "c[:1]"},
      {2, {ND_SLICE_ALL, {ND_NONE, ND_NONE, 2}}, 0, 0, "c[:, ::2]"},
      {1, {{ND_NONE, ND_NONE, -1}}, 0, 0, "c[::-1]"},
      {1, {{1, ND_NONE, ND_NONE}}, 1, 0, "c[1:]"},
      {2, {{1, 2, ND_NONE}, {1, 3, ND_NONE}}, 1, 1, "c[1:2, 1:3]"},
      {1, {{2, 2, ND_NONE}}, 1, 1, "c[2:2]"},
      {0, {{0}}, 1, 0, "c[()]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nd_array *v;
    OK(nd_array_slice(c.a, cases[i].n, cases[i].s, &v));
    int f = nd_array_flags(v);
    char d[512];
    ck_assert_msg(!!(f & ND_ARRAY_C_CONTIGUOUS) == cases[i].cc && !!(f & ND_ARRAY_F_CONTIGUOUS) == cases[i].fc,
                  "%s: %s, NumPy has C %d F %d", cases[i].what, nd_ref_describe(v, d, sizeof d), cases[i].cc, cases[i].fc);
    ck_assert_int_eq(nd_array_is_c_contiguous(v), cases[i].cc);
    ck_assert_int_eq(nd_array_is_f_contiguous(v), cases[i].fc);
    ck_assert_msg(!(f & ND_ARRAY_OWNDATA) && (f & ND_ARRAY_WRITEABLE), "%s: flags %d", cases[i].what, f);
    ck_assert(nd_array_device(v) == nd_array_device(c.a));
    /* The data pointer is the base's plus the offset, in bytes. */
    if (nd_array_size(v) > 0)
      ck_assert((char *)nd_array_data(v) == (char *)nd_array_data(c.a) + nd_array_offset(v));
    nd_array_release(v);
  }
  nd_array *t;
  OK(nd_array_transpose(c.a, 0, NULL, &t));
  ck_assert(nd_array_is_f_contiguous(t) && !nd_array_is_c_contiguous(t));
  nd_array_release(t);
  ck_assert(nd_array_flags(c.a) & ND_ARRAY_OWNDATA);
  /* Accessors accept NULL and never fail. */
  ck_assert_int_eq(nd_array_ndim(NULL), -1);
  ck_assert_int_eq(nd_array_size(NULL), 0);
  ck_assert_int_eq(nd_array_flags(NULL), 0);
  ck_assert(nd_array_shape(NULL) == NULL && nd_array_strides(NULL) == NULL && nd_array_data(NULL) == NULL);
  ck_assert_int_eq(nd_array_device(NULL), -1);
  ck_assert(!nd_array_shares_buffer(c.a, NULL));
  ck_assert(nd_array_retain(NULL) == NULL);
  nd_array_release(NULL);
  ND_ASSERT_FAILS(nd_array_set_writeable(NULL, 1), ND_ERR_NULL_POINTER, "nd_array_set_writeable");
  /* Retain/release: the array lives until the last reference. */
  ck_assert(nd_array_retain(c.a) == c.a);
  nd_array_release(c.a);
  nd_ref_expect(c.a, &c.r, "array after a retain/release pair");
  free_twin(&c);
}
END_TEST

static Suite *views_suite(void) {
  Suite *s = suite_create("views");
  TCase *tc = tcase_create("views");
  tcase_add_test(tc, views_reshape_view_or_copy);
  tcase_add_test(tc, views_ravel);
  tcase_add_test(tc, views_transpose_swapaxes_moveaxis);
  tcase_add_test(tc, views_expand_dims_and_squeeze);
  tcase_add_test(tc, views_broadcast_to_is_read_only);
  tcase_add_test(tc, views_flip);
  tcase_add_test(tc, views_slice_and_index);
  tcase_add_test(tc, views_diagonal);
  tcase_add_test(tc, views_real_and_imag);
  tcase_add_test(tc, views_flags_are_computed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main_gpu(views_suite()); }
