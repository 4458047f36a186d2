/* Sorting: sort, argsort, partition, argpartition, and the row sort median uses.
 *
 * Every sort runs on the sorted axis moved last (a view), as `rows` independent rows of n.
 * Paths (see sort/sort.h for the two key representations):
 * - values, one row: a radix sort of native keys read straight from a contiguous input, with
 *   the sign-bit-set NaNs (which the native order puts first) moved to the end: by the
 *   one-block sort as it stores a row of up to 16384 keys, or by a fix-up after CUB's SortKeys
 *   that exits at once when there are none, so the 1-d case the bandwidth target measures is
 *   the sort alone;
 * - several rows of more than 128 keys that one block's tile holds (up to 16384 keys; fewer
 *   for 8-byte keys): one block per row (sort/sort_block.cu), on native keys for values;
 * - argsort of one row, or of several rows of more than 128 keys, that a tile holds: one block
 *   per row that twiddles the keys as it loads them and carries their positions (one launch);
 * - one row of 8193 to 2^19 keys (from 12289 for values of 4 bytes, from 3072 for argsort of
 *   1-byte keys) where the device holds the whole grid: one cooperative launch that sorts it
 *   digit by digit with grid-wide barriers (sort/sort_grid.cu), asked before the one-block
 *   sort: values through nd_k_sort_keys, argsort from here (keys twiddled as they are loaded);
 * - several rows of up to 128 keys: a few threads of a warp per row (sort/sort_short.cu), keys
 *   twiddled as they are loaded, with the elements' bits or their positions riding along;
 * - what those kernels do not take (a row of argsort, or several rows, past their largest
 *   tiles), indices or values of 1-, 2- and 4-byte dtypes: one radix sort of pairs (the
 *   one-block sort or CUB's SortPairs, sort/sort_pairs.cu) over twiddled keys, with the row
 *   number in the high bits for several rows; positions ride along as uint32 where that pays
 *   (nd__idx32_min_keys) and are widened to int64 as they are written out;
 *   values ride along as raw bits, so -0.0 and NaN payloads come out exactly as they went in;
 * - 8-byte dtypes in several rows: a stable sort of the whole array by value, then a stable
 *   sort by row of the resulting permutation, then a gather.
 * - complex dtypes: one stable merge sort of (row, value) keys in NumPy's complex order with
 *   the flat index as the value (sort_complex.cu), then a gather of the values or the indices
 *   modulo the row length. */
#include <string.h>

#include "src/api_scope.h"
#include "src/device.h"
#include "reduce/scan.h"
#include "sort/sort.h"
#include "reduce/reduce_internal.h"
#include "sort/sort_internal.h"

/* ---- temporaries ------------------------------------------------------------------------------ */

nd_status nd__temp(nd__temps *t, int64_t bytes, void **ptr) {
  if (t->n >= ND__TEMPS_MAX) return nd__error(ND_ERR_INTERNAL, "%s: too many temporaries", t->fn);
  nd__buffer *b;
  ND_TRY(nd__buffer_alloc(t->fn, t->s->device, t->s, bytes > 0 ? bytes : 1, &b));
  t->b[t->n++] = b;
  *ptr = b->ptr;
  return ND_OK;
}

void nd__temps_release(nd__temps *t) {
  for (int i = 0; i < t->n; i++) nd__buffer_release(t->b[i]);
  t->n = 0;
}

nd_status nd__phase_begin(nd__sync *sync, nd__temps *t, int nread, const nd_array *const *reads,
                          int nwrite, nd_array *const *writes) {
  nd__sync_init(sync, t->s);
  for (int i = 0; i < nread; i++)
    if (reads[i]) ND_TRY(nd__sync_add(sync, &reads[i]->buf->hz, ND__READ));
  for (int i = 0; i < nwrite; i++)
    if (writes[i]) ND_TRY(nd__sync_add(sync, &writes[i]->buf->hz, ND__WRITE));
  for (int i = 0; i < t->n; i++) ND_TRY(nd__sync_add(sync, &t->b[i]->hz, ND__WRITE));
  return nd__sync_begin(sync);
}

nd_status nd__phase_end(nd__sync *sync, const char *fn, nd_status st) {
  if (st != ND_OK) st = nd__error_context(st, fn);
  nd_status e = nd__sync_end(sync);
  return st != ND_OK ? st : e;
}

int nd__bits_for(int64_t x) {
  int b = 0;
  while (b < 63 && x >= (INT64_C(1) << b)) b++;
  return b;
}

static int nd__is_c(const nd_array *a) {
  return nd__is_c_contiguous(a->ndim, a->shape, a->strides, (int64_t)nd_dtype_itemsize(a->dtype));
}

/* ---- the core ------------------------------------------------------------------------------- */

/* nd__sort_last for complex dtypes: a stable sort of (row, value) keys carrying flat indices,
 * then the values gathered from src, or the indices within each row, written through dst's
 * strides. */
static nd_status nd__sort_last_complex(const char *fn, const nd_array *src, nd_array *dst,
                                       int want_idx) {
  const int64_t total = src->size, n = src->shape[src->ndim - 1];
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, src, &s));
  nd__temps t = {fn, s, {NULL}, 0};
  nd__sync sync;
  nd_array *hold = NULL;
  nd_kloop sl, dl;
  nd_koperand sop, dop;
  const nd_array *sa[1] = {src}, *da[1] = {dst};
  nd__array_loop(src->ndim, src->shape, 1, sa, &sl, &sop);
  nd__array_loop(dst->ndim, dst->shape, 1, da, &dl, &dop);
  if (!want_idx && nd__array_may_overlap(src, dst)) {
    /* The gather reads src while dst is written: read from a copy. */
    ND_TRY(nd_array_copy(src, ND_ORDER_C, &hold));
    const nd_array *ha[1] = {hold};
    nd__array_loop(hold->ndim, hold->shape, 1, ha, &sl, &sop);
  }
  void *keys = NULL, *idx = NULL, *temp = NULL;
  size_t bytes = 0;
  nd_status st = nd__temp(&t, total * (int64_t)nd_k_sort_complex_key_bytes((int)src->dtype), &keys);
  if (st == ND_OK) st = nd__temp(&t, total * 8, &idx);
  if (st == ND_OK) st = nd_k_sort_complex_pairs((int)src->dtype, NULL, NULL, total, NULL, &bytes, s->cu);
  if (st == ND_OK) st = nd__temp(&t, (int64_t)bytes, &temp);
  const nd_array *reads[2] = {src, hold};
  if (st == ND_OK) st = nd__phase_begin(&sync, &t, 2, reads, 1, &dst);
  if (st == ND_OK) {
    st = nd_k_sort_complex_prep(&sl, &sop, n, keys, (int64_t *)idx, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_complex_pairs((int)src->dtype, keys, (int64_t *)idx, total, temp, &bytes, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_emit(want_idx ? ND_KS_EMIT_IDX_MOD : ND_KS_EMIT_GATHER, &dl, &dop, NULL, 8,
                          (const int64_t *)idx, n, &sl, &sop, s->cu);
    st = nd__phase_end(&sync, fn, st);
  }
  nd__temps_release(&t);
  nd_array_release(hold);
  return st;
}

/* Keys from which argsort's positions travel through CUB's passes as uint32 rather than int64
 * where the int64 ones could land in dst straight from the sort: the uint32 passes move about
 * 24 bytes a key fewer but end in a widening launch, which pays from about two keys for each
 * thread the device holds resident (H100: 0.95 of the int64 path at 2^19 keys, 1.02 at 2^20,
 * 1.11 at 2^24). Where dst takes an emitting launch anyway, uint32 wins at every size. */
static int64_t nd__idx32_min_keys(void) {
  const nd__device_props *p = nd__device_props_current();
  return p ? 2 * (int64_t)p->sm_count * p->max_threads_per_sm : INT64_MAX;
}

/* Sorts src (sorted axis last, any strides) row by row into dst (same logical shape; src's
 * dtype for values, int64 for indices). dst may overlap src. */
static nd_status nd__sort_last(const char *fn, const nd_array *src, nd_array *dst, int want_idx) {
  const int64_t total = src->size;
  if (total == 0) return ND_OK;
  if (nd_dtype_kind(src->dtype) == 'c') return nd__sort_last_complex(fn, src, dst, want_idx);
  const int64_t n = src->shape[src->ndim - 1], rows = total / n;
  const int W = (int)nd_dtype_itemsize(src->dtype);
  const nd_dtype dt = src->dtype;
  const int overlap = nd__array_may_overlap(src, dst);
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, src, &s));
  nd__temps t = {fn, s, {NULL}, 0};
  nd__sync sync;
  nd_status st = ND_OK;
  char *dst_ptr = (char *)dst->buf->ptr + dst->offset;
  const int direct = nd__is_c(dst); /* results can land in dst as they come out of CUB */
  nd_array *hold = NULL;            /* a contiguous copy of src, when one is needed */
  /* Kernels that read the rows straight from the input below: rows of up to 128 keys, a few
   * threads of a warp each (sort/sort_short.cu, asked first: its bound is the only one between
   * the two); longer ones one block each (sort/sort_block.cu), values on native keys, argsort on
   * keys it twiddles as it loads them. */
  const int by_short = rows > 1 && nd_k_sort_short_fit((int)dt, n, rows);
  const int by_rows = !by_short && !want_idx && rows > 1 && nd_k_sort_rows_fit((int)dt, n, rows);
  /* argsort of one row of the lengths one cooperative launch takes (sort/sort_grid.cu; asked
   * first, and here for its temporaries' size) */
  size_t grid_bytes = 0;
  nd_status grid_st = ND_OK;
  const int by_grid = want_idx && rows == 1 &&
                      nd_k_sort_grid((int)dt, NULL, NULL, n, 1, NULL, &grid_bytes, s->cu, &grid_st);
  if (grid_st != ND_OK) return grid_st;
  const int by_arg = !by_short && !by_grid && want_idx && nd_k_sort_arg_fit((int)dt, n, rows);
  const int twiddles = by_short || by_arg || by_grid; /* the kernel twiddles the keys it loads */

  if (twiddles || (!want_idx && (rows == 1 || by_rows))) {
    /* Native keys. Float keys are sorted as they are, and the NaNs the native order puts first
     * (sign bit set) are moved last (nan_last), so a contiguous input costs the sort alone.
     * A copy is made only for a strided input (gathered into `hold`, sorted from there),
     * for an input that overlaps dst (median sorts its rows in place), and for bool, whose
     * bytes are made 0/1 first (nd_k_sort_canon; a canonicalising copy also makes every NaN
     * the positive quiet NaN, so no fix-up follows it). The kernels that twiddle the keys they
     * load need neither: no fix-up, and bool as it is. */
    const int isfloat = !twiddles && nd_dtype_kind(dt) == 'f';
    const int is_bool = !twiddles && dt == ND_BOOL;
    const int ow = want_idx ? 8 : W; /* bytes of a result */
    const char *in = NULL;
    if (nd__is_c(src) && !is_bool && !overlap) {
      in = (const char *)src->buf->ptr + src->offset;
    } else if (!nd__is_c(src)) {
      st = nd__array_alloc(fn, src->ndim, src->shape, dt, 'C', &hold);
      if (st == ND_OK) st = nd__assign(fn, hold, src);
      if (st == ND_OK) in = (const char *)hold->buf->ptr + hold->offset;
    }
    const int copy_canon = in == NULL;           /* canonicalising copy into tin */
    const int fix = isfloat && !copy_canon;      /* raw float keys: sign-bit NaNs moved last */
    void *tin = NULL, *tout = NULL;
    if (st == ND_OK && copy_canon) st = nd__temp(&t, total * W, &tin);
    if (st == ND_OK && !direct) st = nd__temp(&t, total * ow, &tout);
    const nd_array *reads[2] = {src, hold};
    if (st == ND_OK) {
      size_t bytes = 0;
      void *temp = NULL;
      const int device_sort = !by_rows && !twiddles; /* CUB's, with temporary storage */
      if (device_sort) st = nd_k_sort_keys((int)dt, NULL, NULL, total, fix, NULL, &bytes, s->cu);
      if (by_grid) bytes = grid_bytes;
      if (st == ND_OK && (device_sort || by_grid)) st = nd__temp(&t, (int64_t)bytes, &temp);
      if (st == ND_OK) st = nd__phase_begin(&sync, &t, 2, reads, 1, &dst);
      if (st == ND_OK) {
        const char *from = (const char *)src->buf->ptr + src->offset;
        void *sorted = direct ? (void *)dst_ptr : tout;
        if (copy_canon) {
          st = nd_k_sort_canon((int)dt, from, tin, total, s->cu);
          in = (const char *)tin;
        } else if (is_bool) {
          st = nd_k_sort_canon((int)dt, in, (void *)in, total, s->cu); /* hold is ours */
        }
        if (st == ND_OK && by_short) st = nd_k_sort_short((int)dt, in, sorted, n, rows, want_idx, s->cu);
        else if (st == ND_OK && by_arg) st = nd_k_sort_arg((int)dt, in, (int64_t *)sorted, n, rows, s->cu);
        else if (st == ND_OK && by_grid) {
          if (!nd_k_sort_grid((int)dt, in, sorted, n, 1, temp, &bytes, s->cu, &st) && st == ND_OK)
            st = nd__error(ND_ERR_INTERNAL, "%s: the grid sort refused %lld keys it had taken", fn, (long long)n);
        }
        else if (st == ND_OK && by_rows) st = nd_k_sort_rows_keys((int)dt, in, sorted, n, rows, fix, s->cu);
        else if (st == ND_OK) st = nd_k_sort_keys((int)dt, in, sorted, total, fix, temp, &bytes, s->cu);
        if (st == ND_OK && !direct) {
          nd_kloop dl;
          nd_koperand dop;
          const nd_array *da[1] = {dst};
          nd__array_loop(dst->ndim, dst->shape, 1, da, &dl, &dop);
          st = nd_k_sort_emit(ND_KS_EMIT_BITS, &dl, &dop, tout, ow, NULL, n, NULL, NULL, s->cu);
        }
        st = nd__phase_end(&sync, fn, st);
      }
    }
    nd__temps_release(&t);
    nd_array_release(hold);
    return st;
  }

  /* Twiddled keys (what the kernels above do not take). One pass for one row, or when the row
   * number fits above the key bits. */
  const int rowbits = nd__bits_for(rows - 1);
  const int one_pass = rows == 1 || 8 * W + rowbits <= 64;
  const int composite = rows > 1 && one_pass;
  const int kbytes = one_pass ? (composite ? 8 : W) : 8;
  nd_kloop sl;
  nd_koperand sop;
  const nd_array *sa[1] = {src};
  nd__array_loop(src->ndim, src->shape, 1, sa, &sl, &sop);
  nd_kloop dl;
  nd_koperand dop;
  const nd_array *da[1] = {dst};
  nd__array_loop(dst->ndim, dst->shape, 1, da, &dl, &dop);
  if (!one_pass && !want_idx && overlap) {
    /* The gather at the end reads src after dst is written: read from a copy. */
    st = nd_array_copy(src, ND_ORDER_C, &hold);
    if (st != ND_OK) return st;
    const nd_array *ha[1] = {hold};
    nd__array_loop(hold->ndim, hold->shape, 1, ha, &sl, &sop);
  }
  void *k0 = NULL, *k1 = NULL, *v0 = NULL, *v1 = NULL, *temp = NULL;
  /* argsort's positions in the row ride through the passes as uint32 (4 bytes a pair fewer
   * each pass than int64) and are widened as they are written out. */
  const int idx32 = want_idx && one_pass && n - 1 <= (int64_t)UINT32_MAX &&
                    (!direct || total >= nd__idx32_min_keys());
  const int vbytes = idx32 ? 4 : want_idx || !one_pass ? 8 : W;
  const int land = one_pass && direct && !idx32; /* CUB's value output is dst itself */
  st = nd__temp(&t, total * kbytes, &k0);
  if (st == ND_OK) st = nd__temp(&t, total * kbytes, &k1);
  if (st == ND_OK) st = nd__temp(&t, total * vbytes, &v0);
  if (st == ND_OK && !land) st = nd__temp(&t, total * vbytes, &v1);
  const int end_bit = one_pass ? 8 * W + (composite ? rowbits : 0) : 64;
  size_t bytes = 0, bytes2 = 0;
  void *const kb[2] = {k0, k1};
  uint32_t *const vb[2] = {(uint32_t *)v0, (uint32_t *)v1};
  int which = 0; /* the double buffers' half that holds idx32's result */
  if (st == ND_OK) {
    if (idx32) st = nd_k_sort_pairs_idx32(kbytes, kb, vb, total, end_bit, NULL, &bytes, &which, s->cu);
    else if (want_idx || !one_pass) st = nd_k_sort_pairs_idx(kbytes, NULL, NULL, NULL, NULL, total, end_bit, NULL, &bytes, s->cu);
    else st = nd_k_sort_pairs_val(W, NULL, NULL, NULL, NULL, total, end_bit, NULL, &bytes, s->cu);
  }
  if (st == ND_OK && !one_pass) {
    st = nd_k_sort_pairs_idx(8, NULL, NULL, NULL, NULL, total, rowbits, NULL, &bytes2, s->cu);
    if (bytes2 > bytes) bytes = bytes2;
  }
  if (st == ND_OK) st = nd__temp(&t, (int64_t)bytes, &temp);
  const nd_array *reads[2] = {src, hold};
  if (st == ND_OK) st = nd__phase_begin(&sync, &t, 2, reads, 1, &dst);
  if (st != ND_OK) {
    nd__temps_release(&t);
    nd_array_release(hold);
    return st;
  }
  void *vout = land ? (void *)dst_ptr : v1;
  if (idx32) {
    st = nd_k_sort_prep(&sl, &sop, n, composite, k0, kbytes, v0, 4, 1, NULL, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_pairs_idx32(kbytes, kb, vb, total, end_bit, temp, &bytes, &which, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_emit(ND_KS_EMIT_IDX32, &dl, &dop, vb[which], 4, NULL, n, NULL, NULL, s->cu);
  } else if (one_pass) {
    st = nd_k_sort_prep(&sl, &sop, n, composite, k0, kbytes, want_idx ? v0 : NULL, 8, 1,
                        want_idx ? NULL : v0, s->cu);
    if (st == ND_OK) {
      if (want_idx)
        st = nd_k_sort_pairs_idx(kbytes, k0, k1, (const int64_t *)v0, (int64_t *)vout, total,
                                 end_bit, temp, &bytes, s->cu);
      else
        st = nd_k_sort_pairs_val(W, (const uint64_t *)k0, (uint64_t *)k1, v0, vout, total, end_bit,
                                 temp, &bytes, s->cu);
    }
    if (st == ND_OK && !land)
      st = nd_k_sort_emit(ND_KS_EMIT_BITS, &dl, &dop, vout, vbytes, NULL, n, NULL, NULL, s->cu);
  } else {
    /* By value over everything, then by row; the second sort is stable, so each row keeps
     * the order of the first. */
    st = nd_k_sort_prep(&sl, &sop, n, 0, k0, 8, v0, 8, 0, NULL, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_pairs_idx(8, k0, k1, (const int64_t *)v0, (int64_t *)v1, total, 64, temp,
                               &bytes, s->cu);
    if (st == ND_OK) st = nd_k_sort_row_keys((const int64_t *)v1, (uint64_t *)k0, total, n, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_pairs_idx(8, k0, k1, (const int64_t *)v1, (int64_t *)v0, total, rowbits, temp,
                               &bytes, s->cu);
    if (st == ND_OK)
      st = nd_k_sort_emit(want_idx ? ND_KS_EMIT_IDX_MOD : ND_KS_EMIT_GATHER, &dl, &dop, NULL, 8,
                          (const int64_t *)v0, n, &sl, &sop, s->cu);
  }
  st = nd__phase_end(&sync, fn, st);
  nd__temps_release(&t);
  nd_array_release(hold);
  return st;
}

nd_status nd__sort_rows(const char *fn, const nd_array *src, nd_array *dst) {
  return nd__sort_last(fn, src, dst, 0);
}

nd_status nd__sorted_copy(const char *fn, const nd_array *a, int64_t axis, int want_idx,
                          nd_array **result) {
  nd_array *src;
  int ax = 0;
  if (axis == ND_AXIS_NONE) {
    ND_TRY(nd_array_ravel(a, &src));
  } else if (want_idx && a->ndim == 0) {
    /* NumPy's argsort and argpartition see a 0-d array as its 1-element ravel
     * (PyArray_CheckAxis), so axis -1 and 0 are valid and the result is 1-d; sort and
     * partition check the axis against 0 dimensions and raise AxisError. */
    ND_TRY(nd__normalize_axis(fn, axis, 1, &ax));
    ND_TRY(nd_array_ravel(a, &src));
  } else {
    ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
    src = nd_array_retain((nd_array *)a);
  }
  nd_array *res = NULL, *sv = NULL, *dv = NULL;
  nd_status st = nd__array_alloc(fn, src->ndim, src->shape, want_idx ? ND_INT64 : src->dtype, 'C', &res);
  if (st == ND_OK) st = nd__move_axes_last(fn, src, UINT64_C(1) << ax, &sv);
  if (st == ND_OK) st = nd__move_axes_last(fn, res, UINT64_C(1) << ax, &dv);
  if (st == ND_OK) st = nd__sort_last(fn, sv, dv, want_idx);
  nd_array_release(sv);
  nd_array_release(dv);
  nd_array_release(src);
  if (st != ND_OK) {
    nd_array_release(res);
    return st;
  }
  *result = res;
  return ND_OK;
}

/* ---- public functions ---------------------------------------------------------------------- */

nd_status nd_sort(const nd_array *a, int64_t axis, nd_array **result) {
  ND_CHECK_NULL("nd_sort", a);
  ND_CHECK_NULL("nd_sort", result);
  return nd__sorted_copy("nd_sort", a, axis, 0, result);
}

nd_status nd_argsort(const nd_array *a, int64_t axis, nd_array **result) {
  ND_CHECK_NULL("nd_argsort", a);
  ND_CHECK_NULL("nd_argsort", result);
  return nd__sorted_copy("nd_argsort", a, axis, 1, result);
}

/* want_idx: argpartition, which sees a 0-d array as 1-d (see nd__sorted_copy). */
static nd_status nd__check_kth(const char *fn, const nd_array *a, int64_t kth, int64_t axis,
                               int want_idx) {
  int64_t n;
  if (axis == ND_AXIS_NONE) {
    n = a->size;
  } else if (want_idx && a->ndim == 0) {
    int ax;
    ND_TRY(nd__normalize_axis(fn, axis, 1, &ax));
    n = 1;
  } else {
    int ax;
    ND_TRY(nd__normalize_axis(fn, axis, a->ndim, &ax));
    n = a->shape[ax];
  }
  /* NumPy returns an empty array as it is before it looks at kth (np.partition(zeros((0, 3)),
   * 3, axis=1) answers). */
  if (a->size == 0) return ND_OK;
  if (kth < -n || kth >= n)
    return nd__error(ND_ERR_VALUE, "%s: kth(=%lld) out of bounds (%lld)", fn, (long long)kth, (long long)n);
  return ND_OK;
}

nd_status nd_partition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result) {
  const char *fn = "nd_partition";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  ND_TRY(nd__check_kth(fn, a, kth, axis, 0));
  return nd__sorted_copy(fn, a, axis, 0, result);
}

nd_status nd_argpartition(const nd_array *a, int64_t kth, int64_t axis, nd_array **result) {
  const char *fn = "nd_argpartition";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, result);
  ND_TRY(nd__check_kth(fn, a, kth, axis, 1));
  return nd__sorted_copy(fn, a, axis, 1, result);
}

/* ---- unique --------------------------------------------------------------------------------- */

nd_status nd_unique(const nd_array *a, nd_array **values, nd_array **index, nd_array **inverse,
                    nd_array **counts) {
  const char *fn = "nd_unique";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, values);
  const int64_t N = a->size;
  const int W = (int)nd_dtype_itemsize(a->dtype);
  /* Complex values are sorted by comparison, with their flat indices sorted in place (i0 is
   * then the permutation); real values by twiddled radix keys (k0 -> k1, i0 -> perm). */
  const int cx = nd_dtype_kind(a->dtype) == 'c';
  const int dt = (int)a->dtype;
  const int64_t kb = cx ? (int64_t)nd_k_sort_complex_key_bytes(dt) : W;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, a, &s));
  nd__temps t = {fn, s, {NULL}, 0};
  nd__sync sync;
  nd_array *flags = NULL, *last = NULL, *vals = NULL, *first = NULL, *inv = NULL, *cnt = NULL;
  void *k0 = NULL, *k1 = NULL, *i0 = NULL, *perm = NULL, *temp = NULL, *start = NULL;
  int64_t U = 0;
  nd_status st = ND_OK;
  nd_kloop sl;
  nd_koperand sop;
  const nd_array *sa[1] = {a};
  nd__array_loop(a->ndim, a->shape, 1, sa, &sl, &sop);
  if (N > 0) {
    size_t bytes = 0, sbytes = 0;
    st = nd__array_alloc(fn, 1, &N, ND_UINT64, 'C', &flags);
    if (st == ND_OK) st = nd__temp(&t, N * kb, &k0);
    if (st == ND_OK && !cx) st = nd__temp(&t, N * W, &k1);
    if (st == ND_OK) st = nd__temp(&t, N * 8, &i0);
    if (st == ND_OK && !cx) st = nd__temp(&t, N * 8, &perm);
    if (st == ND_OK && cx) perm = i0;
    if (st == ND_OK && cx) st = nd_k_sort_complex_pairs(dt, NULL, NULL, N, NULL, &bytes, s->cu);
    if (st == ND_OK && !cx) st = nd_k_sort_pairs_idx(W, NULL, NULL, NULL, NULL, N, 8 * W, NULL, &bytes, s->cu);
    if (st == ND_OK) st = nd_k_scan(NULL, NULL, ND_UINT64, 0, 1, N, NULL, &sbytes, s->cu);
    if (st == ND_OK) st = nd__temp(&t, (int64_t)(bytes > sbytes ? bytes : sbytes), &temp);
    const nd_array *reads[1] = {a};
    nd_array *writes[1] = {flags};
    if (st == ND_OK) st = nd__phase_begin(&sync, &t, 1, reads, 1, writes);
    if (st == ND_OK) {
      uint64_t *fp = (uint64_t *)flags->buf->ptr;
      if (cx) {
        st = nd_k_sort_complex_prep(&sl, &sop, N, k0, (int64_t *)i0, s->cu);
        if (st == ND_OK) st = nd_k_sort_complex_pairs(dt, k0, (int64_t *)i0, N, temp, &bytes, s->cu);
        if (st == ND_OK) st = nd_k_unique_flags_complex(dt, k0, N, fp, s->cu);
      } else {
        st = nd_k_sort_prep(&sl, &sop, N, 0, k0, W, i0, 8, 0, NULL, s->cu);
        if (st == ND_OK)
          st = nd_k_sort_pairs_idx(W, k0, k1, (const int64_t *)i0, (int64_t *)perm, N, 8 * W,
                                   temp, &bytes, s->cu);
        if (st == ND_OK) st = nd_k_unique_flags(k1, W, N, fp, s->cu);
      }
      if (st == ND_OK) st = nd_k_scan(fp, fp, ND_UINT64, 0, 1, N, temp, &sbytes, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
    /* The number of groups decides the output sizes: read it back (blocks). */
    nd_scalar c;
    if (st == ND_OK) st = nd__array_view(fn, flags, 0, NULL, NULL, flags->offset + (N - 1) * 8, 0, &last);
    if (st == ND_OK) st = nd_array_item(last, &c);
    if (st == ND_OK) U = (int64_t)c.v.u;
  }
  if (st == ND_OK) st = nd__array_alloc(fn, 1, &U, a->dtype, 'C', &vals);
  if (st == ND_OK && index) st = nd__array_alloc(fn, 1, &U, ND_INT64, 'C', &first);
  if (st == ND_OK && inverse) st = nd__array_alloc(fn, a->ndim, a->shape, ND_INT64, 'C', &inv);
  if (st == ND_OK && counts) st = nd__array_alloc(fn, 1, &U, ND_INT64, 'C', &cnt);
  if (st == ND_OK && counts && U > 0) st = nd__temp(&t, U * 8, &start);
  if (st == ND_OK && N > 0) {
    const nd_array *reads[2] = {a, flags};
    nd_array *writes[4] = {vals, first, inv, cnt};
    st = nd__phase_begin(&sync, &t, 2, reads, 4, writes);
    if (st == ND_OK) {
      st = nd_k_unique_scatter((const uint64_t *)flags->buf->ptr, (const int64_t *)perm, N, &sl, &sop,
                               (char *)vals->buf->ptr, first ? (int64_t *)first->buf->ptr : NULL,
                               inv ? (int64_t *)inv->buf->ptr : NULL, (int64_t *)start, s->cu);
      if (st == ND_OK && cnt)
        st = nd_k_unique_counts((const int64_t *)start, U, N, (int64_t *)cnt->buf->ptr, s->cu);
      st = nd__phase_end(&sync, fn, st);
    }
  }
  nd__temps_release(&t);
  nd_array_release(flags);
  nd_array_release(last);
  if (st != ND_OK) {
    nd_array_release(vals);
    nd_array_release(first);
    nd_array_release(inv);
    nd_array_release(cnt);
    return st;
  }
  *values = vals;
  if (index) *index = first;
  if (inverse) *inverse = inv;
  if (counts) *counts = cnt;
  return ND_OK;
}
