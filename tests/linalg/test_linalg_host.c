/* Host suite for linalg/'s pure planning logic: dtype promotion, stack checks, NumPy's matmul
 * and solve shape rules (NumPy 2: b is a vector only when 1-d), per-call flags and per-thread
 * settings, batch stride folding, einsum parsing. No device is touched. */
#include <stdlib.h>

#include "linalg/kernels.h"
#include "linalg/linalg_internal.h"
#include "tests/nd_test.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

static void assert_shape(int ndim, const int64_t *shape, int want_ndim, const int64_t *want) {
  ck_assert_int_eq(ndim, want_ndim);
  for (int i = 0; i < ndim; i++) ck_assert_msg(shape[i] == want[i], "dim %d: %lld != %lld", i, (long long)shape[i], (long long)want[i]);
}

START_TEST(test_compute_dtype) {
  nd_dtype out = ND_BOOL;
  ND_ASSERT_OK(nd__linalg_compute_dtype("f", ND_FLOAT32, &out));
  ck_assert_int_eq(out, ND_FLOAT32);
  ND_ASSERT_OK(nd__linalg_compute_dtype("f", ND_COMPLEX64, &out));
  ck_assert_int_eq(out, ND_COMPLEX64);
  ND_ASSERT_OK(nd__linalg_compute_dtype("f", ND_COMPLEX128, &out));
  ck_assert_int_eq(out, ND_COMPLEX128);
  const nd_dtype ints[] = {ND_BOOL, ND_INT8, ND_INT16, ND_INT32, ND_INT64, ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    out = ND_BOOL;
    ND_ASSERT_OK(nd__linalg_compute_dtype("f", ints[i], &out));
    ck_assert_int_eq(out, ND_FLOAT64);
  }
  out = ND_BOOL;
  ND_ASSERT_FAILS(nd__linalg_compute_dtype("nd_linalg_inv", ND_FLOAT16, &out), ND_ERR_DTYPE, "nd_linalg_inv");
  ck_assert(strstr(nd_last_error(), "float16") != NULL);
  ck_assert_int_eq(out, ND_BOOL); /* untouched */
  ND_ASSERT_FAILS(nd__linalg_compute_dtype("nd_linalg_det", (nd_dtype)99, &out), ND_ERR_DTYPE, "nd_linalg_det");
  ck_assert_int_eq(nd__linalg_real_dtype(ND_COMPLEX64), ND_FLOAT32);
  ck_assert_int_eq(nd__linalg_real_dtype(ND_COMPLEX128), ND_FLOAT64);
  ck_assert_int_eq(nd__linalg_real_dtype(ND_FLOAT32), ND_FLOAT32);
}
END_TEST

/* The dtype of solve and lstsq for every pair of operand dtypes, as NumPy 2.4 gives it:
 * np.linalg.solve(np.eye(2, dtype=A), np.ones(2, dtype=B)).dtype, 'E' for TypeError. Codes in
 * ndcuda's dtype order '?bhilBHILefdFD'. */
START_TEST(test_common_dtype_matches_numpy) {
  static const char *rows[14] = {"dddddddddEddDD", "dddddddddEddDD", "dddddddddEddDD", "dddddddddEddDD",
                                 "dddddddddEddDD", "dddddddddEddDD", "dddddddddEddDD", "dddddddddEddDD",
                                 "dddddddddEddDD", "EEEEEEEEEEEEEE", "dddddddddEfdFD", "dddddddddEddDD",
                                 "DDDDDDDDDEFDFD", "DDDDDDDDDEDDDD"};
  static const char codes[] = "?bhilBHILefdFD";
  for (int a = 0; a < 14; a++)
    for (int b = 0; b < 14; b++) {
      nd_dtype out = (nd_dtype)-5;
      nd_status st = nd__linalg_common_dtype("nd_linalg_solve", (nd_dtype)a, (nd_dtype)b, &out);
      if (rows[a][b] == 'E') {
        ck_assert_msg(st == ND_ERR_DTYPE, "%s, %s: expected an error", nd_dtype_name(a), nd_dtype_name(b));
        ck_assert(strstr(nd_last_error(), "nd_linalg_solve: array type float16 is unsupported") != NULL);
      } else {
        ck_assert_msg(st == ND_OK && codes[out] == rows[a][b], "%s, %s: got %s, NumPy %c", nd_dtype_name(a),
                      nd_dtype_name(b), st == ND_OK ? nd_dtype_name(out) : "an error", rows[a][b]);
      }
    }
}
END_TEST

START_TEST(test_check_stack) {
  ND_ASSERT_OK(nd__linalg_check_stack("f", "a", 2, SHAPE(3, 3), 1));
  ND_ASSERT_OK(nd__linalg_check_stack("f", "a", 3, SHAPE(0, 3, 3), 1));
  ND_ASSERT_OK(nd__linalg_check_stack("f", "a", 2, SHAPE(3, 4), 0));
  ND_ASSERT_OK(nd__linalg_check_stack("f", "a", 2, SHAPE(0, 0), 1));
  ND_ASSERT_FAILS(nd__linalg_check_stack("nd_linalg_inv", "a", 1, SHAPE(3), 1), ND_ERR_SHAPE,
                  "nd_linalg_inv: argument 'a': 1-dimensional array given");
  ND_ASSERT_FAILS(nd__linalg_check_stack("nd_linalg_inv", "a", 0, NULL, 1), ND_ERR_SHAPE, "0-dimensional");
  ND_ASSERT_FAILS(nd__linalg_check_stack("nd_linalg_det", "a", 3, SHAPE(2, 3, 4), 1), ND_ERR_SHAPE, "square");
  ck_assert(strstr(nd_last_error(), "(2, 3, 4)") != NULL);
}
END_TEST

START_TEST(test_matmul_shapes) {
  nd__mm_plan p;
  ND_ASSERT_OK(nd__matmul_shapes("f", 2, SHAPE(3, 4), 2, SHAPE(4, 5), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(3, 5));
  ck_assert(p.m == 3 && p.n == 5 && p.k == 4 && p.batch == 1 && !p.a_vec && !p.b_vec);
  ND_ASSERT_OK(nd__matmul_shapes("f", 1, SHAPE(4), 2, SHAPE(4, 5), &p));
  assert_shape(p.out_ndim, p.out_shape, 1, SHAPE(5));
  ck_assert(p.a_vec && p.m == 1);
  ND_ASSERT_OK(nd__matmul_shapes("f", 2, SHAPE(3, 4), 1, SHAPE(4), &p));
  assert_shape(p.out_ndim, p.out_shape, 1, SHAPE(3));
  ck_assert(p.b_vec && p.n == 1);
  ND_ASSERT_OK(nd__matmul_shapes("f", 1, SHAPE(4), 1, SHAPE(4), &p));
  ck_assert_int_eq(p.out_ndim, 0);
  /* batch broadcasting, 1-d operand against a stack */
  ND_ASSERT_OK(nd__matmul_shapes("f", 4, SHAPE(2, 1, 3, 4), 3, SHAPE(5, 4, 6), &p));
  assert_shape(p.out_ndim, p.out_shape, 4, SHAPE(2, 5, 3, 6));
  ck_assert_int_eq(p.batch, 10);
  assert_shape(p.batch_ndim, p.batch_shape, 2, SHAPE(2, 5));
  ND_ASSERT_OK(nd__matmul_shapes("f", 1, SHAPE(4), 3, SHAPE(7, 4, 6), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(7, 6));
  ND_ASSERT_OK(nd__matmul_shapes("f", 3, SHAPE(7, 3, 4), 1, SHAPE(4), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(7, 3));
  /* zero sizes */
  ND_ASSERT_OK(nd__matmul_shapes("f", 3, SHAPE(0, 3, 4), 2, SHAPE(4, 5), &p));
  assert_shape(p.out_ndim, p.out_shape, 3, SHAPE(0, 3, 5));
  ck_assert_int_eq(p.batch, 0);
  ND_ASSERT_OK(nd__matmul_shapes("f", 2, SHAPE(3, 0), 2, SHAPE(0, 5), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(3, 5));
  ck_assert_int_eq(p.k, 0);
  /* errors */
  ND_ASSERT_FAILS(nd__matmul_shapes("nd_matmul", 2, SHAPE(3, 4), 2, SHAPE(5, 6), &p), ND_ERR_SHAPE,
                  "nd_matmul: Input operand 1 has a mismatch in its core dimension 0");
  ck_assert(strstr(nd_last_error(), "size 5 is different from 4") != NULL);
  ND_ASSERT_FAILS(nd__matmul_shapes("nd_matmul", 0, NULL, 2, SHAPE(5, 6), &p), ND_ERR_SHAPE, "does not have enough dimensions");
  ND_ASSERT_FAILS(nd__matmul_shapes("nd_matmul", 2, SHAPE(5, 6), 0, NULL, &p), ND_ERR_SHAPE, "Input operand 1");
  ND_ASSERT_FAILS(nd__matmul_shapes("nd_matmul", 3, SHAPE(2, 3, 4), 3, SHAPE(3, 4, 5), &p), ND_ERR_SHAPE, "nd_matmul");
  ND_ASSERT_FAILS(nd__matmul_shapes("nd_matmul", 1, SHAPE(3), 1, SHAPE(4), &p), ND_ERR_SHAPE, "mismatch");
}
END_TEST

START_TEST(test_solve_shapes) {
  nd__solve_plan p;
  ND_ASSERT_OK(nd__solve_shapes("f", 2, SHAPE(3, 3), 1, SHAPE(3), &p));
  ck_assert(p.b_vec && p.n == 3 && p.k == 1 && p.batch == 1);
  assert_shape(p.out_ndim, p.out_shape, 1, SHAPE(3));
  ND_ASSERT_OK(nd__solve_shapes("f", 3, SHAPE(2, 3, 3), 1, SHAPE(3), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(2, 3));
  ck_assert_int_eq(p.batch, 2);
  ND_ASSERT_OK(nd__solve_shapes("f", 3, SHAPE(2, 3, 3), 2, SHAPE(3, 4), &p));
  assert_shape(p.out_ndim, p.out_shape, 3, SHAPE(2, 3, 4));
  ck_assert(!p.b_vec && p.k == 4);
  ND_ASSERT_OK(nd__solve_shapes("f", 4, SHAPE(5, 1, 3, 3), 3, SHAPE(4, 3, 2), &p));
  assert_shape(p.out_ndim, p.out_shape, 4, SHAPE(5, 4, 3, 2));
  ck_assert_int_eq(p.batch, 20);
  ND_ASSERT_OK(nd__solve_shapes("f", 3, SHAPE(0, 3, 3), 1, SHAPE(3), &p));
  assert_shape(p.out_ndim, p.out_shape, 2, SHAPE(0, 3));
  ck_assert_int_eq(p.batch, 0);
  ND_ASSERT_OK(nd__solve_shapes("f", 2, SHAPE(0, 0), 1, SHAPE(0), &p));
  assert_shape(p.out_ndim, p.out_shape, 1, SHAPE(0));
  /* NumPy 2: a 2-d b is a matrix even when it looks like a stack of vectors */
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 3, SHAPE(2, 3, 3), 2, SHAPE(2, 3), &p), ND_ERR_SHAPE,
                  "nd_linalg_solve: b has 2 rows");
  ND_ASSERT_OK(nd__solve_shapes("f", 3, SHAPE(2, 3, 3), 3, SHAPE(2, 3, 1), &p));
  assert_shape(p.out_ndim, p.out_shape, 3, SHAPE(2, 3, 1));
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 2, SHAPE(3, 4), 1, SHAPE(3), &p), ND_ERR_SHAPE, "square");
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 1, SHAPE(3), 1, SHAPE(3), &p), ND_ERR_SHAPE, "1-dimensional");
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 2, SHAPE(3, 3), 0, NULL, &p), ND_ERR_SHAPE, "0-dimensional");
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 2, SHAPE(3, 3), 1, SHAPE(4), &p), ND_ERR_SHAPE, "b has 4 rows");
  ND_ASSERT_FAILS(nd__solve_shapes("nd_linalg_solve", 3, SHAPE(2, 3, 3), 3, SHAPE(3, 3, 1), &p), ND_ERR_SHAPE,
                  "nd_linalg_solve");
}
END_TEST

START_TEST(test_flags_and_settings) {
  int checked = -1, tf32 = -1;
  ck_assert_int_eq(nd_linalg_get_checked(), 1); /* documented default */
  ND_ASSERT_OK(nd__linalg_flags("f", 0, &checked, &tf32));
  ck_assert_int_eq(checked, 1);
  ck_assert_int_eq(tf32, nd__config_flag(ND__CFG_TF32));
  ck_assert_int_eq(nd_linalg_set_checked(0), 1);
  ck_assert_int_eq(nd_linalg_get_checked(), 0);
  ND_ASSERT_OK(nd__linalg_flags("f", 0, &checked, NULL));
  ck_assert_int_eq(checked, 0);
  ND_ASSERT_OK(nd__linalg_flags("f", ND_LINALG_CHECKED, &checked, NULL));
  ck_assert_int_eq(checked, 1);
  ck_assert_int_eq(nd_linalg_set_checked(1), 0);
  ND_ASSERT_OK(nd__linalg_flags("f", ND_LINALG_UNCHECKED, &checked, NULL));
  ck_assert_int_eq(checked, 0);
  ND_ASSERT_OK(nd__linalg_flags("f", ND_LINALG_TF32, NULL, &tf32));
  ck_assert_int_eq(tf32, 1);
  nd_linalg_set_tf32(1);
  ck_assert_int_eq(nd_linalg_get_tf32(), 1);
  nd_linalg_set_tf32(0);
  ck_assert_int_eq(nd_linalg_get_tf32(), 0);
  ND_ASSERT_OK(nd__linalg_flags("f", 0, NULL, &tf32));
  ck_assert_int_eq(tf32, 0);
  nd_linalg_set_tf32(-1);
  ND_ASSERT_FAILS(nd__linalg_flags("nd_linalg_inv", 64, &checked, NULL), ND_ERR_INVALID_ARGUMENT, "nd_linalg_inv: argument 'flags'");
  ND_ASSERT_FAILS(nd__linalg_flags("nd_linalg_inv", ND_LINALG_CHECKED | ND_LINALG_UNCHECKED, &checked, NULL),
                  ND_ERR_INVALID_ARGUMENT, "both");
}
END_TEST

START_TEST(test_batch_stride) {
  int64_t st = -1;
  ck_assert(nd__batch_single_stride(2, SHAPE(2, 3), SHAPE(24, 8), &st) && st == 8);
  ck_assert(!nd__batch_single_stride(2, SHAPE(2, 3), SHAPE(8, 24), &st));
  ck_assert(nd__batch_single_stride(2, SHAPE(1, 3), SHAPE(999, 8), &st) && st == 8);
  ck_assert(nd__batch_single_stride(2, SHAPE(2, 3), SHAPE(0, 0), &st) && st == 0);
  ck_assert(!nd__batch_single_stride(2, SHAPE(2, 3), SHAPE(0, 8), &st));
  ck_assert(nd__batch_single_stride(1, SHAPE(4), SHAPE(-16), &st) && st == -16);
  ck_assert(nd__batch_single_stride(2, SHAPE(0, 3), SHAPE(5, 7), &st) && st == 0);
  ck_assert(nd__batch_single_stride(0, NULL, NULL, &st) && st == 0);
  ck_assert(nd__batch_single_stride(3, SHAPE(2, 1, 3), SHAPE(24, 5, 8), &st) && st == 8);
}
END_TEST

START_TEST(test_einsum_parse) {
  nd__einsum_plan p;
  int nd2[2] = {2, 2};
  ND_ASSERT_OK(nd__einsum_parse("f", "ij,jk->ik", 2, nd2, &p));
  ck_assert_str_eq(p.in[0], "ij");
  ck_assert_str_eq(p.in[1], "jk");
  ck_assert_str_eq(p.out, "ik");
  ND_ASSERT_OK(nd__einsum_parse("f", "ij,jk", 2, nd2, &p));
  ck_assert_str_eq(p.out, "ik");
  ND_ASSERT_OK(nd__einsum_parse("f", " i j , j k -> k i ", 2, nd2, &p));
  ck_assert_str_eq(p.out, "ki");
  ND_ASSERT_OK(nd__einsum_parse("f", "ij,jk->", 2, nd2, &p));
  ck_assert_int_eq(p.out_ndim, 0);
  int nd1[1] = {2};
  ND_ASSERT_OK(nd__einsum_parse("f", "ij->ji", 1, nd1, &p));
  ck_assert_str_eq(p.out, "ji");
  int ndv[2] = {1, 1};
  ND_ASSERT_OK(nd__einsum_parse("f", "i,i", 2, ndv, &p));
  ck_assert_int_eq(p.out_ndim, 0);
  ND_ASSERT_OK(nd__einsum_parse("f", "i,j", 2, ndv, &p));
  ck_assert_str_eq(p.out, "ij");
  /* ellipsis: (2, 5, 3, 4) and (5, 4, 6): right-aligned broadcast dims named 1, 2 */
  int nde[2] = {4, 3};
  ND_ASSERT_OK(nd__einsum_parse("f", "...ij,...jk->...ik", 2, nde, &p));
  ck_assert_int_eq(p.ndims[0], 4);
  ck_assert_int_eq(p.ndims[1], 3);
  ck_assert(p.in[0][0] == 1 && p.in[0][1] == 2 && p.in[0][2] == 'i');
  ck_assert(p.in[1][0] == 2 && p.in[1][1] == 'j');
  ck_assert(p.out_ndim == 4 && p.out[0] == 1 && p.out[1] == 2 && p.out[2] == 'i' && p.out[3] == 'k');
  ND_ASSERT_OK(nd__einsum_parse("f", "...ij,...jk", 2, nde, &p));
  ck_assert(p.out_ndim == 4 && p.out[0] == 1 && p.out[3] == 'k');
  /* errors */
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "i1,j", 2, ndv, &p), ND_ERR_VALUE, "nd_einsum: invalid subscript '1'");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij,jk,kl", 3, (int[]){2, 2, 2}, &p), ND_ERR_NOT_IMPLEMENTED, "nd_einsum");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij", 1, (int[]){3}, &p), ND_ERR_VALUE, "operand 0 has 3 dimensions");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij,jk->iz", 2, nd2, &p), ND_ERR_VALUE, "'z' does not appear");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij,jk->ii", 2, nd2, &p), ND_ERR_VALUE, "more than once");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij", 2, nd2, &p), ND_ERR_VALUE, "1 terms for 2 operands");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "i.j,jk", 2, nd2, &p), ND_ERR_VALUE, "ellipsis");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij->...ij", 1, nd1, &p), ND_ERR_VALUE, "no input does");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", NULL, 1, nd1, &p), ND_ERR_NULL_POINTER, "nd_einsum");
  ND_ASSERT_FAILS(nd__einsum_parse("nd_einsum", "ij", 0, nd1, &p), ND_ERR_VALUE, "no operands");
}
END_TEST

/* The route of (mode, dtype, n, cc) under the generic mask `mask` is one whose kernel accepts
 * that order (the launchers' own *_ok checks, which need no device except the tensor-core one),
 * and not one the mask leaves out. Plain tests with ck_abort_msg on failure: a ck_assert per
 * call would cost a message to the forked runner's parent each, half a million of them. */
static void check_route(unsigned mask, int mode, nd_dtype dt, int n, int cc) {
  const int inv = mode == ND_LK_INV, solve = mode == ND_LK_SOLVE;
  const nd__gj_route r = nd__gj_plan(mode, dt, n, cc);
  int ok;
  switch (r) {
    case ND__GJ_TINY: ok = (inv || solve) && nd_lk_inv_tiny_ok(dt, n); break;
    case ND__GJ_TC: ok = (inv || solve) && dt == ND_FLOAT64 && n > 16 && n <= 32 && cc >= 8; break;
    case ND__GJ_WARP:
      /* float64 takes the tensor cores from sm_80 on, unless they are left out */
      ok = (inv || solve) && nd_lk_inv_warp_ok(dt, n) &&
           (dt == ND_FLOAT32 || cc < 8 || (mask & ND__GJ_SKIP(ND__GJ_TC)));
      break;
    case ND__GJ_SMALL: ok = n <= 32; break;
    case ND__GJ_MEDIUM: ok = nd_lk_gj_medium_ok(dt, n); break;
    case ND__GJ_VENDOR:
      ok = n <= 32 ? (mask & ND__GJ_SKIP(ND__GJ_SMALL)) != 0
                   : !nd_lk_gj_medium_ok(dt, n) || (mask & ND__GJ_SKIP(ND__GJ_MEDIUM));
      break;
    default: ok = 0; break;
  }
  if (r != ND__GJ_VENDOR && (mask & ND__GJ_SKIP(r))) ok = 0;
  if (!ok)
    ck_abort_msg("%s n=%d mode %d cc %d mask 0x%x: route %d", nd_dtype_name(dt), n, mode, cc, mask, (int)r);
}

/* The batched inverse's plan: every (mode, dtype, order, capability) goes to one route whose
 * kernel accepts it, under the normal plan and every combination of routes left out by the bench
 * hook (each variant's generic neighbour); every row of the table is the first match for its own
 * orders (none is dead); the documented choices at the boundaries. */
START_TEST(test_gj_plan) {
  static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
  static const int modes[] = {ND_LK_INV, ND_LK_SOLVE, ND_LK_DET, ND_LK_SLOGDET};
  static const nd__gj_route skippable[] = {ND__GJ_TINY, ND__GJ_TC, ND__GJ_WARP, ND__GJ_SMALL, ND__GJ_MEDIUM};
  for (unsigned sub = 0; sub < 32u; sub++) {
    unsigned mask = 0;
    for (int k = 0; k < 5; k++)
      if (sub >> k & 1u) mask |= ND__GJ_SKIP(skippable[k]);
    ck_assert_uint_eq(nd__gj_set_generic(mask), 0);
    for (size_t d = 0; d < 4; d++)
      for (size_t m = 0; m < 4; m++)
        for (int cc = 6; cc <= 10; cc++)
          for (int n = 1; n <= 300; n++) check_route(mask, modes[m], dts[d], n, cc);
    ck_assert_uint_eq(nd__gj_set_generic(0), mask);
  }
  /* every row is reached: at its least capability, in the last of its modes, at both ends */
  for (int i = 0; i < nd__gj_plan_count; i++) {
    const nd__gj_plan_row *r = &nd__gj_plan_rows[i];
    int mode = 0;
    for (int k = 0; k < 32; k++)
      if (r->modes >> k & 1u) mode = k;
    ck_assert_msg(nd__gj_plan(mode, r->dtype, r->n_min, r->cc_min) == r->route, "row %d at n = %d", i, r->n_min);
    ck_assert_msg(nd__gj_plan(mode, r->dtype, r->n_max, r->cc_min) == r->route, "row %d at n = %d", i, r->n_max);
  }
  /* boundaries */
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 8, 9), ND__GJ_TINY);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 9, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_DET, ND_FLOAT32, 8, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 4, 9), ND__GJ_TINY);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 16, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 17, 9), ND__GJ_TC);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, 8), ND__GJ_TC);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, 7), ND__GJ_WARP);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SLOGDET, ND_FLOAT64, 32, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 24, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 25, 9), ND__GJ_WARP);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 32, 7), ND__GJ_WARP);
  ck_assert_int_eq(nd__gj_plan(ND_LK_DET, ND_FLOAT32, 32, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 33, 9), ND__GJ_MEDIUM);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 128, 9), ND__GJ_MEDIUM);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 129, 9), ND__GJ_VENDOR);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_COMPLEX128, 64, 9), ND__GJ_MEDIUM);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_COMPLEX128, 65, 9), ND__GJ_VENDOR);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT16, 8, 9), ND__GJ_VENDOR);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 8, 9), ND__GJ_TINY);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 9, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT64, 4, 9), ND__GJ_TINY);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT64, 32, 9), ND__GJ_TC);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT64, 16, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 32, 9), ND__GJ_WARP);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 24, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 33, 9), ND__GJ_MEDIUM);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT64, 128, 9), ND__GJ_MEDIUM);
  ck_assert_int_eq(nd__gj_plan(ND_LK_SOLVE, ND_FLOAT32, 129, 9), ND__GJ_VENDOR);
  /* the bench hook: each variant's generic neighbour; the plain forms leave the plan alone */
  ck_assert_uint_eq(nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_TC)), 0);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, 9), ND__GJ_WARP);
  nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_TC) | ND__GJ_SKIP(ND__GJ_WARP));
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 32, 9), ND__GJ_SMALL);
  nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_TINY));
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 8, 9), ND__GJ_SMALL);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_COMPLEX128, 4, 9), ND__GJ_SMALL);
  nd__gj_set_generic(ND__GJ_SKIP(ND__GJ_MEDIUM));
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 128, 9), ND__GJ_VENDOR);
  ck_assert_int_eq(nd__gj_plan(ND_LK_DET, ND_FLOAT64, 100, 9), ND__GJ_VENDOR);
  ck_assert_uint_eq(nd__gj_set_generic(ND__GJ_PLAIN), ND__GJ_SKIP(ND__GJ_MEDIUM));
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT64, 32, 9), ND__GJ_TC);
  ck_assert_int_eq(nd__gj_plan(ND_LK_INV, ND_FLOAT32, 128, 9), ND__GJ_MEDIUM);
  ck_assert_uint_eq(nd__gj_set_generic(0), ND__GJ_PLAIN);
  ck_assert_uint_eq(nd__gj_generic(), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("linalg_host");
  TCase *tc = tcase_create("plan");
  tcase_add_test(tc, test_compute_dtype);
  tcase_add_test(tc, test_common_dtype_matches_numpy);
  tcase_add_test(tc, test_check_stack);
  tcase_add_test(tc, test_matmul_shapes);
  tcase_add_test(tc, test_solve_shapes);
  tcase_add_test(tc, test_flags_and_settings);
  tcase_add_test(tc, test_batch_stride);
  tcase_add_test(tc, test_einsum_parse);
  tcase_add_test(tc, test_gj_plan);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(suite()); }
