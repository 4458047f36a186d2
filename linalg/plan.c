/* Pure host planning for linalg/: dtype promotion, stack and shape checks, NumPy's matmul and
 * solve broadcasting, per-call flags and the per-thread settings, einsum parsing. Nothing here
 * touches the device, so the host suite tests all of it for real. */
#include <stdio.h>
#include <string.h>

#include "linalg/linalg_internal.h"

/* ---- settings ---------------------------------------------------------------------------- */

static _Thread_local int nd__checked_set = 0; /* 0: not set (default checked) */
static _Thread_local int nd__checked_val = 1;
static _Thread_local int nd__tf32_set = 0;
static _Thread_local int nd__tf32_val = 0;

int nd_linalg_set_checked(int checked) {
  int prev = nd_linalg_get_checked();
  nd__checked_set = 1;
  nd__checked_val = checked != 0;
  return prev;
}

int nd_linalg_get_checked(void) { return nd__checked_set ? nd__checked_val : 1; }

int nd_linalg_set_tf32(int on) {
  int prev = nd_linalg_get_tf32();
  if (on < 0) {
    nd__tf32_set = 0;
  } else {
    nd__tf32_set = 1;
    nd__tf32_val = on != 0;
  }
  return prev;
}

int nd_linalg_get_tf32(void) { return nd__tf32_set ? nd__tf32_val : nd__config_flag(ND__CFG_TF32); }

nd_status nd__linalg_flags(const char *fn, unsigned flags, int *checked, int *tf32) {
  const unsigned known = ND_LINALG_CHECKED | ND_LINALG_UNCHECKED | ND_LINALG_TF32;
  if (flags & ~known)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: argument 'flags' has unknown bits 0x%x", fn,
                     flags & ~known);
  if ((flags & ND_LINALG_CHECKED) && (flags & ND_LINALG_UNCHECKED))
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: argument 'flags' asks for both "
                     "ND_LINALG_CHECKED and ND_LINALG_UNCHECKED", fn);
  if (checked != NULL)
    *checked = (flags & ND_LINALG_CHECKED) ? 1 : (flags & ND_LINALG_UNCHECKED) ? 0 : nd_linalg_get_checked();
  if (tf32 != NULL) *tf32 = (flags & ND_LINALG_TF32) ? 1 : nd_linalg_get_tf32();
  return ND_OK;
}

/* ---- dtypes ------------------------------------------------------------------------------ */

nd_status nd__linalg_compute_dtype(const char *fn, nd_dtype in, nd_dtype *out) {
  switch (in) {
    case ND_FLOAT32:
    case ND_FLOAT64:
    case ND_COMPLEX64:
    case ND_COMPLEX128: *out = in; return ND_OK;
    case ND_BOOL:
    case ND_INT8:
    case ND_INT16:
    case ND_INT32:
    case ND_INT64:
    case ND_UINT8:
    case ND_UINT16:
    case ND_UINT32:
    case ND_UINT64: *out = ND_FLOAT64; return ND_OK;
    default: break;
  }
  return nd__error(ND_ERR_DTYPE, "%s: array type %s is unsupported in linalg", fn, nd_dtype_name(in));
}

nd_status nd__linalg_common_dtype(const char *fn, nd_dtype a, nd_dtype b, nd_dtype *out) {
  nd_dtype ca = ND_FLOAT64, cb = ND_FLOAT64; /* set by the calls below; -Wmaybe-uninitialized */
  ND_TRY(nd__linalg_compute_dtype(fn, a, &ca));
  ND_TRY(nd__linalg_compute_dtype(fn, b, &cb));
  /* NumPy's _commonType: the real part is float64 when either operand is float64, complex128
   * or not inexact at all (an integer array counts as float64), else float32; complex when
   * either is complex. Promoting the raw dtypes first would give float32 for uint8 with
   * float32, and would let float16 through when the other operand is float64. */
  const int dbl = ca == ND_FLOAT64 || ca == ND_COMPLEX128 || cb == ND_FLOAT64 || cb == ND_COMPLEX128;
  const int cpx = ca == ND_COMPLEX64 || ca == ND_COMPLEX128 || cb == ND_COMPLEX64 || cb == ND_COMPLEX128;
  *out = cpx ? (dbl ? ND_COMPLEX128 : ND_COMPLEX64) : (dbl ? ND_FLOAT64 : ND_FLOAT32);
  return ND_OK;
}

nd_dtype nd__linalg_real_dtype(nd_dtype dt) {
  switch (dt) {
    case ND_COMPLEX64: return ND_FLOAT32;
    case ND_COMPLEX128: return ND_FLOAT64;
    default: return dt;
  }
}

/* ---- shapes ------------------------------------------------------------------------------ */

nd_status nd__linalg_check_stack(const char *fn, const char *arg, int ndim, const int64_t *shape,
                                 int square) {
  if (ndim < 2)
    return nd__error(ND_ERR_SHAPE, "%s: argument '%s': %d-dimensional array given. Array must be "
                     "at least two-dimensional", fn, arg, ndim);
  if (square && shape[ndim - 1] != shape[ndim - 2]) {
    char s[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: argument '%s': last 2 dimensions of the array must be "
                     "square (shape %s)", fn, arg, nd__format_shape(s, sizeof s, ndim, shape));
  }
  return ND_OK;
}

static nd_status nd__batch_broadcast(const char *fn, int na, const int64_t *sa, int nb,
                                     const int64_t *sb, int *ndim, int64_t *shape, int64_t *count) {
  const int64_t *shapes[2] = {sa, sb};
  int ndims[2] = {na, nb};
  ND_TRY(nd__broadcast_shapes(fn, 2, ndims, shapes, ndim, shape));
  return nd__shape_count(fn, *ndim, shape, count);
}

nd_status nd__matmul_shapes(const char *fn, int a_ndim, const int64_t *a_shape, int b_ndim,
                          const int64_t *b_shape, nd__mm_plan *p) {
  if (a_ndim < 1 || b_ndim < 1)
    return nd__error(ND_ERR_SHAPE, "%s: Input operand %d does not have enough dimensions (has 0, "
                     "gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)", fn,
                     a_ndim < 1 ? 0 : 1);
  memset(p, 0, sizeof *p);
  p->a_vec = a_ndim == 1;
  p->b_vec = b_ndim == 1;
  p->m = p->a_vec ? 1 : a_shape[a_ndim - 2];
  int64_t ka = a_shape[a_ndim - 1];
  int64_t kb = p->b_vec ? b_shape[0] : b_shape[b_ndim - 2];
  p->n = p->b_vec ? 1 : b_shape[b_ndim - 1];
  if (ka != kb)
    return nd__error(ND_ERR_SHAPE, "%s: Input operand 1 has a mismatch in its core dimension 0, "
                     "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size %lld is different from %lld)",
                     fn, (long long)kb, (long long)ka);
  p->k = ka;
  int abn = p->a_vec ? 0 : a_ndim - 2, bbn = p->b_vec ? 0 : b_ndim - 2;
  ND_TRY(nd__batch_broadcast(fn, abn, a_shape, bbn, b_shape, &p->batch_ndim,
                             p->batch_shape, &p->batch));
  p->out_ndim = p->batch_ndim;
  memcpy(p->out_shape, p->batch_shape, (size_t)p->batch_ndim * sizeof(int64_t));
  if (!p->a_vec) p->out_shape[p->out_ndim++] = p->m;
  if (!p->b_vec) p->out_shape[p->out_ndim++] = p->n;
  int64_t count;
  return nd__shape_count(fn, p->out_ndim, p->out_shape, &count);
}

nd_status nd__solve_shapes(const char *fn, int a_ndim, const int64_t *a_shape, int b_ndim,
                         const int64_t *b_shape, nd__solve_plan *p) {
  ND_TRY(nd__linalg_check_stack(fn, "a", a_ndim, a_shape, 1));
  memset(p, 0, sizeof *p);
  p->n = a_shape[a_ndim - 1];
  if (b_ndim < 1)
    return nd__error(ND_ERR_SHAPE, "%s: argument 'b' is 0-dimensional; it must be a vector (n,) or "
                     "a stack of matrices (..., n, k)", fn);
  p->b_vec = b_ndim == 1;
  int64_t bn = p->b_vec ? b_shape[0] : b_shape[b_ndim - 2];
  if (bn != p->n) {
    char sa[ND__SHAPE_STR], sb[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: b has %lld rows but a is %lld x %lld (a %s, b %s; b is a "
                     "vector only when it is 1-dimensional)", fn, (long long)bn, (long long)p->n,
                     (long long)p->n, nd__format_shape(sa, sizeof sa, a_ndim, a_shape),
                     nd__format_shape(sb, sizeof sb, b_ndim, b_shape));
  }
  p->k = p->b_vec ? 1 : b_shape[b_ndim - 1];
  ND_TRY(nd__batch_broadcast(fn, a_ndim - 2, a_shape, p->b_vec ? 0 : b_ndim - 2, b_shape,
                             &p->batch_ndim, p->batch_shape, &p->batch));
  p->out_ndim = p->batch_ndim;
  memcpy(p->out_shape, p->batch_shape, (size_t)p->batch_ndim * sizeof(int64_t));
  p->out_shape[p->out_ndim++] = p->n;
  if (!p->b_vec) p->out_shape[p->out_ndim++] = p->k;
  return ND_OK;
}

int nd__batch_single_stride(int batch_ndim, const int64_t *shape, const int64_t *strides,
                            int64_t *stride) {
  int64_t count = 1;
  for (int i = 0; i < batch_ndim; i++) count *= shape[i];
  if (count == 0) {
    *stride = 0;
    return 1;
  }
  /* Walk from the innermost batch dimension outwards: every dimension of length > 1 must
   * continue the arithmetic progression of the ones inside it. */
  int64_t st = 0, span = 1;
  int have = 0;
  for (int i = batch_ndim - 1; i >= 0; i--) {
    if (shape[i] == 1) continue;
    if (!have) {
      st = strides[i];
      have = 1;
    } else if (strides[i] != st * span) {
      return 0;
    }
    span *= shape[i];
  }
  *stride = have ? st : 0;
  return 1;
}

/* ---- einsum ------------------------------------------------------------------------------ */

static int nd__is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Parses one term of letters with at most one "...". Writes the letters with the ellipsis
 * position (-1 if none). */
static nd_status nd__einsum_term(const char *fn, const char *s, size_t len, char *letters, int *nl,
                                 int *ell) {
  *nl = 0;
  *ell = -1;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.') {
        if (*ell >= 0) return nd__error(ND_ERR_VALUE, "%s: more than one ellipsis in a subscript term", fn);
        *ell = *nl;
        i += 2;
        continue;
      }
      return nd__error(ND_ERR_VALUE, "%s: invalid ellipsis in subscripts (a '.' that is not part of '...')", fn);
    }
    if (!nd__is_letter(c))
      return nd__error(ND_ERR_VALUE, "%s: invalid subscript '%c' in einstein sum subscripts string, "
                       "subscripts must be letters", fn, c);
    if (*nl >= ND_MAXDIMS)
      return nd__error(ND_ERR_VALUE, "%s: too many subscripts in one term", fn);
    letters[(*nl)++] = c;
  }
  return ND_OK;
}

nd_status nd__einsum_parse(const char *fn, const char *subscripts, int nops, const int *ndims,
                           nd__einsum_plan *plan) {
  if (subscripts == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'subscripts' is NULL", fn);
  if (nops < 1) return nd__error(ND_ERR_VALUE, "%s: no operands given (nops = %d)", fn, nops);
  if (nops > 2)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: %d operands; only one or two operands are "
                     "supported (contract pairwise with repeated calls)", fn, nops);
  memset(plan, 0, sizeof *plan);
  plan->nops = nops;
  const char *arrow = strstr(subscripts, "->");
  size_t in_len = arrow ? (size_t)(arrow - subscripts) : strlen(subscripts);
  /* Split the input part at commas. */
  const char *terms[3];
  size_t lens[3];
  int nterms = 0;
  const char *start = subscripts;
  for (size_t i = 0; i <= in_len; i++) {
    if (i == in_len || subscripts[i] == ',') {
      if (nterms == 3) break;
      terms[nterms] = start;
      lens[nterms] = (size_t)(subscripts + i - start);
      nterms++;
      start = subscripts + i + 1;
    }
  }
  if (nterms != nops)
    return nd__error(ND_ERR_VALUE, "%s: more operands provided than subscript terms, or the "
                     "reverse (%d terms for %d operands)", fn, nterms, nops);
  char letters[2][ND_MAXDIMS];
  int nl[2], ell[2], ell_ndim = 0, any_ell = 0;
  for (int t = 0; t < nops; t++) {
    ND_TRY(nd__einsum_term(fn, terms[t], lens[t], letters[t], &nl[t], &ell[t]));
    int e = ndims[t] - nl[t];
    if (ell[t] < 0 ? e != 0 : e < 0)
      return nd__error(ND_ERR_VALUE, "%s: operand %d has %d dimensions but its subscripts '%.*s' "
                       "name %d", fn, t, ndims[t], (int)lens[t], terms[t], nl[t]);
    if (ell[t] >= 0) {
      any_ell = 1;
      if (e > ell_ndim) ell_ndim = e;
    }
  }
  if (ell_ndim > 26)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: an ellipsis may cover at most 26 dimensions", fn);
  /* Expand each term: the ellipsis dimensions become the characters 1..ell_ndim, aligned to
   * the right as broadcasting aligns them. */
  for (int t = 0; t < nops; t++) {
    int e = ndims[t] - nl[t], pos = 0;
    for (int i = 0; i <= nl[t]; i++) {
      if (i == ell[t])
        for (int j = 0; j < e; j++) plan->in[t][pos++] = (char)(1 + ell_ndim - e + j);
      if (i < nl[t]) plan->in[t][pos++] = letters[t][i];
    }
    plan->ndims[t] = pos;
    plan->in[t][pos] = '\0';
  }
  if (arrow) {
    char ol[ND_MAXDIMS];
    int onl, oell;
    ND_TRY(nd__einsum_term(fn, arrow + 2, strlen(arrow + 2), ol, &onl, &oell));
    if (oell >= 0 && !any_ell)
      return nd__error(ND_ERR_VALUE, "%s: output has an ellipsis but no input does", fn);
    int pos = 0;
    for (int i = 0; i <= onl; i++) {
      if (i == oell)
        for (int j = 0; j < ell_ndim; j++) plan->out[pos++] = (char)(1 + j);
      if (i < onl) {
        char c = ol[i];
        if (memchr(plan->out, c, (size_t)pos) != NULL)
          return nd__error(ND_ERR_VALUE, "%s: output subscript '%c' appears more than once", fn, c);
        int found = 0;
        for (int t = 0; t < nops; t++) found |= memchr(plan->in[t], c, (size_t)plan->ndims[t]) != NULL;
        if (!found)
          return nd__error(ND_ERR_VALUE, "%s: output subscript '%c' does not appear in the inputs", fn, c);
        plan->out[pos++] = c;
      }
      if (pos > ND_MAXDIMS) return nd__error(ND_ERR_VALUE, "%s: too many output subscripts", fn);
    }
    if (!any_ell || oell >= 0) {
      /* nothing more */
    } else if (ell_ndim > 0) {
      /* NumPy: an ellipsis in the inputs but not the output sums those dimensions away; we
       * only support the product forms. */
      return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: summing over the dimensions of an ellipsis "
                       "is not supported (put '...' in the output)", fn);
    }
    plan->out_ndim = pos;
  } else {
    int pos = 0;
    for (int j = 0; j < ell_ndim; j++) plan->out[pos++] = (char)(1 + j);
    for (int c = 'A'; c <= 'z'; c++) {
      if (!nd__is_letter((char)c)) continue;
      int count = 0;
      for (int t = 0; t < nops; t++)
        for (int i = 0; i < plan->ndims[t]; i++) count += plan->in[t][i] == (char)c;
      if (count == 1) plan->out[pos++] = (char)c;
    }
    plan->out_ndim = pos;
  }
  plan->out[plan->out_ndim] = '\0';
  return ND_OK;
}

/* ---- the batched inverse's plan ---------------------------------------------------------------
 *
 * Which kernel runs the inverse, solve, determinant or slogdet of a batch of order-n matrices.
 * The kernels' own *_ok functions accept what their rows send them, and test_linalg_host checks
 * the table against them.
 *
 * The rule for a row that sends orders to a special kernel (a variant) rather than to the
 * generic kernel of the row below it: the variant stays only where it beats that neighbour by
 * 15% or more on both the H100 and the H200, on the same input. nd_bench times each variant and
 * its neighbour side by side (nd__gj_set_generic; bench/bench_linalg.c's *_generic cases), and
 * linalg/TUNING.md keeps the figures, including those of the variants removed under this rule
 * (the float32 row kernel of orders 25..32, within 2-12% of k_gjw). */
#define ND__M_INV_SOLVE ((1u << 0) | (1u << 1))                   /* ND_LK_INV, ND_LK_SOLVE */
#define ND__M_ALL ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 3)) /* every mode */

const nd__gj_plan_row nd__gj_plan_rows[] = {
    /* inverse and solve: one thread per tiny matrix (generic neighbour: the small kernel) */
    {ND__M_INV_SOLVE, ND_FLOAT32, 1, 8, 0, ND__GJ_TINY},
    {ND__M_INV_SOLVE, ND_FLOAT64, 1, 4, 0, ND__GJ_TINY},
    {ND__M_INV_SOLVE, ND_COMPLEX64, 1, 4, 0, ND__GJ_TINY},
    {ND__M_INV_SOLVE, ND_COMPLEX128, 1, 4, 0, ND__GJ_TINY},
    /* inverse and solve, one warp per matrix: float64 on the tensor cores (sm_80 and later;
     * generic neighbour: k_gjw), else k_gjw, blocked by panels in register tiles (generic
     * neighbour: the small kernel) */
    {ND__M_INV_SOLVE, ND_FLOAT64, 17, 32, 8, ND__GJ_TC},
    {ND__M_INV_SOLVE, ND_FLOAT64, 17, 32, 0, ND__GJ_WARP},
    {ND__M_INV_SOLVE, ND_FLOAT32, 25, 32, 0, ND__GJ_WARP},
    /* every mode: several matrices per warp up to 32, one block per matrix up to 128 (generic
     * neighbour: cuBLAS / cuSOLVER) */
    {ND__M_ALL, ND_FLOAT32, 1, 32, 0, ND__GJ_SMALL},
    {ND__M_ALL, ND_FLOAT64, 1, 32, 0, ND__GJ_SMALL},
    {ND__M_ALL, ND_COMPLEX64, 1, 32, 0, ND__GJ_SMALL},
    {ND__M_ALL, ND_COMPLEX128, 1, 32, 0, ND__GJ_SMALL},
    {ND__M_ALL, ND_FLOAT32, 33, 128, 0, ND__GJ_MEDIUM},
    {ND__M_ALL, ND_FLOAT64, 33, 128, 0, ND__GJ_MEDIUM},
    {ND__M_ALL, ND_COMPLEX64, 33, 128, 0, ND__GJ_MEDIUM},
    {ND__M_ALL, ND_COMPLEX128, 33, 64, 0, ND__GJ_MEDIUM},
};
const int nd__gj_plan_count = (int)(sizeof nd__gj_plan_rows / sizeof nd__gj_plan_rows[0]);

static unsigned nd__gj_generic_mask = 0;

unsigned nd__gj_set_generic(unsigned mask) {
  return __atomic_exchange_n(&nd__gj_generic_mask, mask, __ATOMIC_RELAXED);
}

unsigned nd__gj_generic(void) { return __atomic_load_n(&nd__gj_generic_mask, __ATOMIC_RELAXED); }

nd__gj_route nd__gj_plan(int mode, nd_dtype dt, int n, int cc_major) {
  if (mode < 0 || mode > 31) return ND__GJ_VENDOR;
  const unsigned skip = nd__gj_generic();
  for (int i = 0; i < nd__gj_plan_count; i++) {
    const nd__gj_plan_row *r = &nd__gj_plan_rows[i];
    if (!(r->modes >> mode & 1u) || r->dtype != dt || n < r->n_min || n > r->n_max || cc_major < r->cc_min) continue;
    if (skip & ND__GJ_SKIP(r->route)) continue;
    return r->route;
  }
  return ND__GJ_VENDOR;
}
