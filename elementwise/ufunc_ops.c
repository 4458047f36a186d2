/* The public elementwise functions: the generic nd_ufunc_call, one named function per ufunc,
 * and the NumPy functions built on the same executor (clip, where, round, nan_to_num, angle,
 * isclose, allclose, array_equal). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "elementwise/ufunc.h"
#include "src/api_scope.h"

static nd_status nd__unary(int op, const nd_array *a, nd_array *out, nd_array **result) {
  const nd_operand in[1] = {nd_arg(a)};
  return nd__ufunc_exec(nd__ufunc_fn(op), op, 1, in, out, result, NULL);
}

static nd_status nd__binary(int op, const nd_array *a, const nd_array *b, nd_array *out,
                            nd_array **result) {
  const nd_operand in[2] = {nd_arg(a), nd_arg(b)};
  return nd__ufunc_exec(nd__ufunc_fn(op), op, 2, in, out, result, NULL);
}

/* The scope makes the aliases (nd_abs, nd_conj, nd_mod) report under their own names rather
 * than their ufunc's (nd_absolute, ...). */
#define ND__UNARY(name, OP)                                                        \
  nd_status nd_##name(const nd_array *a, nd_array *out, nd_array **result) {       \
    ND__API_SCOPE("nd_" #name);                                                    \
    return nd__unary(ND_UFUNC_##OP, a, out, result);                               \
  }
#define ND__BINARY(name, OP)                                                                    \
  nd_status nd_##name(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result) { \
    ND__API_SCOPE("nd_" #name);                                                                 \
    return nd__binary(ND_UFUNC_##OP, a, b, out, result);                                        \
  }

ND__BINARY(add, ADD)
ND__BINARY(subtract, SUBTRACT)
ND__BINARY(multiply, MULTIPLY)
ND__BINARY(divide, DIVIDE)
ND__BINARY(floor_divide, FLOOR_DIVIDE)
ND__BINARY(remainder, REMAINDER)
ND__BINARY(mod, REMAINDER)
ND__BINARY(fmod, FMOD)
ND__BINARY(power, POWER)
ND__UNARY(negative, NEGATIVE)
ND__UNARY(positive, POSITIVE)
ND__UNARY(absolute, ABSOLUTE)
ND__UNARY(abs, ABSOLUTE)
ND__UNARY(sign, SIGN)
ND__UNARY(reciprocal, RECIPROCAL)
ND__UNARY(square, SQUARE)
ND__UNARY(sqrt, SQRT)
ND__UNARY(cbrt, CBRT)
ND__UNARY(exp, EXP)
ND__UNARY(exp2, EXP2)
ND__UNARY(expm1, EXPM1)
ND__UNARY(log, LOG)
ND__UNARY(log2, LOG2)
ND__UNARY(log10, LOG10)
ND__UNARY(log1p, LOG1P)
ND__BINARY(logaddexp, LOGADDEXP)
ND__BINARY(logaddexp2, LOGADDEXP2)
ND__UNARY(sin, SIN)
ND__UNARY(cos, COS)
ND__UNARY(tan, TAN)
ND__UNARY(arcsin, ARCSIN)
ND__UNARY(arccos, ARCCOS)
ND__UNARY(arctan, ARCTAN)
ND__BINARY(arctan2, ARCTAN2)
ND__UNARY(sinh, SINH)
ND__UNARY(cosh, COSH)
ND__UNARY(tanh, TANH)
ND__UNARY(arcsinh, ARCSINH)
ND__UNARY(arccosh, ARCCOSH)
ND__UNARY(arctanh, ARCTANH)
ND__BINARY(hypot, HYPOT)
ND__UNARY(deg2rad, DEG2RAD)
ND__UNARY(rad2deg, RAD2DEG)
ND__UNARY(floor, FLOOR)
ND__UNARY(ceil, CEIL)
ND__UNARY(trunc, TRUNC)
ND__UNARY(rint, RINT)
ND__BINARY(equal, EQUAL)
ND__BINARY(not_equal, NOT_EQUAL)
ND__BINARY(less, LESS)
ND__BINARY(less_equal, LESS_EQUAL)
ND__BINARY(greater, GREATER)
ND__BINARY(greater_equal, GREATER_EQUAL)
ND__BINARY(logical_and, LOGICAL_AND)
ND__BINARY(logical_or, LOGICAL_OR)
ND__BINARY(logical_xor, LOGICAL_XOR)
ND__UNARY(logical_not, LOGICAL_NOT)
ND__BINARY(bitwise_and, BITWISE_AND)
ND__BINARY(bitwise_or, BITWISE_OR)
ND__BINARY(bitwise_xor, BITWISE_XOR)
ND__UNARY(invert, INVERT)
ND__BINARY(left_shift, LEFT_SHIFT)
ND__BINARY(right_shift, RIGHT_SHIFT)
ND__BINARY(maximum, MAXIMUM)
ND__BINARY(minimum, MINIMUM)
ND__BINARY(fmax, FMAX)
ND__BINARY(fmin, FMIN)
ND__BINARY(copysign, COPYSIGN)
ND__BINARY(nextafter, NEXTAFTER)
ND__UNARY(signbit, SIGNBIT)
ND__UNARY(isnan, ISNAN)
ND__UNARY(isinf, ISINF)
ND__UNARY(isfinite, ISFINITE)
ND__UNARY(conjugate, CONJUGATE)
ND__UNARY(conj, CONJUGATE)
ND__UNARY(real, REAL)
ND__UNARY(imag, IMAG)
#undef ND__UNARY
#undef ND__BINARY

/* The operands' dtypes, with the NULL and kind checks every entry needs. */
static nd_status nd__operand_dtypes(const char *fn, int nin, const nd_operand *in, nd_dtype *dt) {
  for (int i = 0; i < nin; i++) {
    if (in[i].kind == ND_OPERAND_ARRAY) {
      if (in[i].array == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: operand %d is NULL", fn, i);
      dt[i] = in[i].array->dtype;
    } else if (in[i].kind == ND_OPERAND_SCALAR) {
      dt[i] = in[i].scalar.dtype;
    } else {
      return nd__error(ND_ERR_VALUE, "%s: operand %d has no value", fn, i);
    }
  }
  return ND_OK;
}

static nd_status nd__clip(const char *fn, nd_operand a, nd_operand lo, nd_operand hi,
                          nd_array *out, nd_array **result) {
  ND_CHECK_RESULT(fn, out, result);
  const int has_lo = lo.kind != ND_OPERAND_NONE, has_hi = hi.kind != ND_OPERAND_NONE;
  if (!has_lo && !has_hi)
    return nd__error(ND_ERR_VALUE, "%s: One of max or min must be given", fn);
  /* np.clip turns a scalar first argument into an array (np.asarray): a weak value takes its
   * default dtype and promotes as a strong one (np.clip(5, int8 lo, int8 hi) is int64). */
  if (a.kind == ND_OPERAND_SCALAR && nd_dtype_is_weak(a.scalar.dtype)) a.scalar.dtype = nd__weak_default(a.scalar.dtype);
  nd_operand in[3] = {a, lo, hi};
  int nin = 3, op = ND_UFUNC_CLIP;
  if (!has_hi || !has_lo) {
    /* One bound: maximum(a, lo) or minimum(a, hi), with clip's rule for weak integers. */
    in[1] = has_lo ? lo : hi;
    nin = 2;
    op = has_lo ? ND_UFUNC_MAXIMUM : ND_UFUNC_MINIMUM;
  }
  nd_dtype dt[3];
  ND_TRY(nd__operand_dtypes(fn, nin, in, dt));
  nd__ufunc_loop L;
  ND_TRY(nd__ufunc_resolve(fn, op, nin, dt, &L));
  L.op = ND_UFUNC_CLIP;
  return nd__ufunc_run(fn, &L, in, out, result, NULL);
}

nd_status nd_ufunc_call(nd_ufunc op, int nin, const nd_operand *in, nd_array *out,
                        nd_array **result) {
  const char *fn = nd__ufunc_fn((int)op);
  if ((unsigned)op >= ND_UFUNC_COUNT_)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_ufunc_call: unknown ufunc %d", (int)op);
  ND_CHECK_NULL(fn, in);
  if (nin != nd_ufunc_nin(op))
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ufunc '%s' takes %d inputs (got %d)", fn,
                     nd_ufunc_name(op), nd_ufunc_nin(op), nin);
  if (op == ND_UFUNC_CLIP) return nd__clip(fn, in[0], in[1], in[2], out, result);
  return nd__ufunc_exec(fn, (int)op, nin, in, out, result, NULL);
}

nd_status nd_clip(const nd_array *a, nd_operand lo, nd_operand hi, nd_array *out,
                  nd_array **result) {
  ND_CHECK_NULL("nd_clip", a);
  return nd__clip("nd_clip", nd_arg(a), lo, hi, out, result);
}

nd_status nd_where(nd_operand cond, nd_operand x, nd_operand y, nd_array *out,
                   nd_array **result) {
  const nd_operand in[3] = {cond, x, y};
  return nd__ufunc_exec("nd_where", ND_UFUNC_WHERE, 3, in, out, result, NULL);
}

nd_status nd_angle(const nd_array *a, int deg, nd_array *out, nd_array **result) {
  const nd_operand in[1] = {nd_arg(a)};
  nd_kparams p;
  memset(&p, 0, sizeof p);
  p.i = deg != 0;
  return nd__ufunc_exec("nd_angle", ND_UFUNC_ANGLE, 1, in, out, result, &p);
}

/* A loop of one input that keeps the dtype (kernel op kop), or copies. */
static void nd__same_loop(nd__ufunc_loop *L, int op, int kop, nd_dtype d, int action) {
  memset(L, 0, sizeof *L);
  L->op = op;
  L->kop = kop;
  L->key = d;
  L->nin = 1;
  L->src[0] = 0;
  L->in[0] = d;
  L->out = d;
  L->action = action;
}

nd_status nd_round(const nd_array *a, int decimals, nd_array *out, nd_array **result) {
  const char *fn = "nd_round";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  const nd_operand in[1] = {nd_arg(a)};
  const char kind = nd_dtype_kind(a->dtype);
  if (decimals == 0 && kind != ND_KIND_INT && kind != ND_KIND_UINT)
    return nd__ufunc_exec(fn, ND_UFUNC_RINT, 1, in, out, result, NULL);
  if (kind == ND_KIND_BOOL)
    return nd__error(ND_ERR_DTYPE, "%s: cannot round a bool array to %d decimals (NumPy: "
                     "Cannot cast ufunc 'multiply' output from dtype('float64') to "
                     "dtype('bool'))", fn, decimals);
  nd__ufunc_loop L;
  const int is_int = kind == ND_KIND_INT || kind == ND_KIND_UINT;
  nd__same_loop(&L, ND_UFUNC_RINT, ND_KOP_ROUND, a->dtype,
                is_int && decimals >= 0 ? ND__UF_COPY : ND__UF_RUN);
  nd_kparams p;
  memset(&p, 0, sizeof p);
  p.i = decimals;
  return nd__ufunc_run(fn, &L, in, out, result, &p);
}

nd_status nd_nan_to_num(const nd_array *a, double nan, double posinf, double neginf,
                        nd_array *out, nd_array **result) {
  const char *fn = "nd_nan_to_num";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_RESULT(fn, out, result);
  const nd_operand in[1] = {nd_arg(a)};
  const char kind = nd_dtype_kind(a->dtype);
  nd__ufunc_loop L;
  if (kind != ND_KIND_FLOAT && kind != ND_KIND_COMPLEX) {
    nd__same_loop(&L, ND_UFUNC_POSITIVE, ND_UFUNC_POSITIVE, a->dtype, ND__UF_COPY);
    return nd__ufunc_run(fn, &L, in, out, result, NULL);
  }
  nd__same_loop(&L, ND_UFUNC_POSITIVE, ND_KOP_NAN_TO_NUM, a->dtype, ND__UF_RUN);
  const nd_dtype r = a->dtype == ND_COMPLEX64 ? ND_FLOAT32 : a->dtype == ND_COMPLEX128 ? ND_FLOAT64 : a->dtype;
  const double big = r == ND_FLOAT16 ? 65504.0 : r == ND_FLOAT32 ? (double)FLT_MAX : DBL_MAX;
  nd_kparams p;
  memset(&p, 0, sizeof p);
  p.d[0] = nan;
  p.d[1] = isnan(posinf) ? big : posinf;
  p.d[2] = isnan(neginf) ? -big : neginf;
  return nd__ufunc_run(fn, &L, in, out, result, &p);
}

/* isclose's loop: b promoted with a Python float, then with a (NumPy's isclose). */
static nd_status nd__isclose_loop(const char *fn, const nd_array *a, const nd_array *b,
                                  nd__ufunc_loop *L) {
  nd_dtype yb[2] = {b->dtype, ND_PYFLOAT}, y, xy[2], d;
  ND_TRY(nd_result_type(2, yb, &y));
  xy[0] = a->dtype;
  xy[1] = y;
  ND_TRY(nd_result_type(2, xy, &d));
  memset(L, 0, sizeof *L);
  L->op = ND_UFUNC_EQUAL;
  L->kop = ND_KOP_ISCLOSE;
  L->key = d;
  L->nin = 2;
  L->src[0] = 0;
  L->src[1] = 1;
  L->in[0] = L->in[1] = d;
  L->out = ND_BOOL;
  (void)fn;
  return ND_OK;
}

/* The isclose mask of a and b into a new bool array (the shared part of isclose/allclose). */
static nd_status nd__isclose_run(const char *fn, const nd_array *a, const nd_array *b, double rtol,
                                 double atol, int equal_nan, nd_array **result) {
  nd__ufunc_loop L;
  ND_TRY(nd__isclose_loop(fn, a, b, &L));
  nd_kparams p;
  memset(&p, 0, sizeof p);
  p.d[0] = rtol;
  p.d[1] = atol;
  p.i = equal_nan != 0;
  const nd_operand in[2] = {nd_arg(a), nd_arg(b)};
  return nd__ufunc_run(fn, &L, in, NULL, result, &p);
}

nd_status nd_isclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                     int equal_nan, nd_array **result) {
  const char *fn = "nd_isclose";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, result);
  return nd__isclose_run(fn, a, b, rtol, atol, equal_nan, result);
}

/* Whether every element of a bool array is true; blocks for the answer. */
static nd_status nd__all_true(const char *fn, const nd_array *m, int *answer) {
  if (m->size == 0) {
    *answer = 1;
    return ND_OK;
  }
  nd_array *flag;
  ND_TRY(nd__array_alloc(fn, 0, NULL, ND_INT32, 'C', &flag));
  nd_status st = nd_array_fill(flag, nd_scalar_int(1));
  nd_stream *s = NULL;
  if (st == ND_OK) st = nd__array_stream(fn, m, &s);
  if (st == ND_OK) {
    /* The mask is a fresh array: dense from its first element, whatever its axis order. */
    nd__sync sync;
    nd__sync_init(&sync, s);
    st = nd__sync_add(&sync, &m->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &flag->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_k_all_true((const char *)m->buf->ptr + m->offset, m->size,
                         (int *)((char *)flag->buf->ptr + flag->offset), s->cu);
      if (st != ND_OK) st = nd__error_context(st, fn);
    }
    if (st == ND_OK) st = nd__sync_end(&sync);
  }
  int32_t host = 0;
  if (st == ND_OK) st = nd_array_to_host(flag, &host, sizeof host);
  nd_array_release(flag);
  if (st == ND_OK) *answer = host != 0;
  return st;
}

nd_status nd_allclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                      int equal_nan, int *answer) {
  const char *fn = "nd_allclose";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, answer);
  nd_array *m;
  ND_TRY(nd__isclose_run(fn, a, b, rtol, atol, equal_nan, &m));
  nd_status st = nd__all_true(fn, m, answer);
  nd_array_release(m);
  return st;
}

nd_status nd_array_equal(const nd_array *a, const nd_array *b, int equal_nan, int *answer) {
  const char *fn = "nd_array_equal";
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, answer);
  if (a->ndim != b->ndim || memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof(int64_t))) {
    *answer = 0;
    return ND_OK;
  }
  const nd_dtype dt[2] = {a->dtype, b->dtype};
  nd__ufunc_loop L;
  ND_TRY(nd__ufunc_resolve(fn, ND_UFUNC_EQUAL, 2, dt, &L));
  const char kind = nd_dtype_kind(L.in[0]);
  if (equal_nan && L.key != ND_KEY_INT64_UINT64 && (kind == ND_KIND_FLOAT || kind == ND_KIND_COMPLEX))
    L.kop = ND_KOP_EQUAL_NAN;
  const nd_operand in[2] = {nd_arg(a), nd_arg(b)};
  nd_array *m;
  ND_TRY(nd__ufunc_run(fn, &L, in, NULL, &m, NULL));
  nd_status st = nd__all_true(fn, m, answer);
  nd_array_release(m);
  return st;
}
