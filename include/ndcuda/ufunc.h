/* Elementwise math: NumPy's universal functions with broadcasting, NumPy 2 type promotion and
 * an optional `out` array.
 *
 * Conventions for every function below (NumPy's ufunc rules unless a comment says otherwise):
 * - Operands broadcast together (NumPy's rules). Arrays are borrowed. Scalars (nd_operand
 *   built with nd_arg_scalar) are either weak Python-style values (ND_PYINT, ND_PYFLOAT,
 *   ND_PYCOMPLEX: their kind counts, not their width, NEP 50) or strong NumPy scalars (an
 *   array dtype: they promote like a 0-d array of that dtype).
 * - The loop dtype is chosen as NumPy 2 does: the promoted dtype of the operands when the
 *   function has a loop for it, else the first loop (in NumPy's type order) that every operand
 *   casts to safely (so sqrt(int8) computes in float16 and arctan2(int16, int16) in float32).
 *   Integer and bool division gives float64. float16 loops compute in float32 and round the
 *   result once. A weak Python int that does not fit an integer loop dtype is an error
 *   (ND_ERR_VALUE, NumPy's OverflowError "Python integer 300 out of bounds for uint8"),
 *   except for comparisons, which answer by value (uint8 array == 300 is all false), and
 *   logical_and/or/xor, which take its truth.
 * - `out` NULL: a new array of the broadcast shape and the loop's result dtype is allocated,
 *   laid out like the first input that has the full shape (NumPy's order='K'), else C order.
 *   `out` given: it must have the broadcast shape of the inputs and out together (the inputs
 *   broadcast to it; it does not broadcast), be writeable, live on the current device, and
 *   accept the result under 'same_kind' casting. It may be (or overlap) an input: the result
 *   is as if all inputs had been read first. On success *result receives a new reference:
 *   the new array, or out itself; with out given, result may be NULL (nothing is returned).
 *   On failure *result and out are left untouched.
 * - Errors: ND_ERR_NULL_POINTER (an array operand or result is NULL), ND_ERR_SHAPE (shapes
 *   that do not broadcast: "nd_add: operands could not be broadcast together with shapes
 *   (3,4) (5,)"; an out of the wrong shape), ND_ERR_DTYPE (no loop for the input dtypes:
 *   "ufunc 'bitwise_and' not supported for the input types (float64, float64)"),
 *   ND_ERR_CASTING (an out that needs an unsafe cast: "Cannot cast ufunc 'add' output from
 *   dtype('float64') to dtype('int32') with casting rule 'same_kind'"), ND_ERR_VALUE
 *   (weak integer out of bounds; negative integer power), ND_ERR_READ_ONLY,
 *   ND_ERR_DEVICE_MISMATCH, ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA. Every message names the function
 *   (nd_ufunc_call's the named function of its op: "nd_add: ..." for ND_UFUNC_ADD) and the
 *   operands' shapes or dtypes.
 * - Stream behaviour: the work is enqueued on the calling thread's current stream and the
 *   call returns without waiting, except nd_allclose and nd_array_equal, which block until
 *   their host answer is known. Buffers written or read on other streams are ordered
 *   automatically (see stream.h).
 *
 * Semantics worth knowing (all as NumPy): integer division, floor_divide, remainder and fmod
 * by zero give 0; integer overflow wraps; shifts by a negative amount or by at least the bit
 * width give 0 (-1 for a right shift of a negative signed value); comparisons of complex
 * numbers are lexicographic (real part first), as are maximum/minimum on complex;
 * maximum/minimum propagate NaN while fmax/fmin ignore it; complex functions follow C99's
 * branch cuts.
 *
 * Float power with a scalar exponent of 0.5 is sqrt, as in NumPy 2.1 and later (-0 and NaN
 * at -0 and -inf, where pow gives +0 and +inf); an array of 0.5 takes pow's values.
 *
 * Integer power with a negative exponent: a scalar exponent is rejected up front with
 * ND_ERR_VALUE ("Integers to negative integer powers are not allowed."), as NumPy does. An
 * array exponent is not inspected (that would need a blocking device read): elements with a
 * negative exponent get the truncated value of the true power, that is 1 for base 1, +-1 for
 * base -1 and 0 otherwise (NumPy raises ValueError instead). */
#ifndef NDCUDA_UFUNC_H
#define NDCUDA_UFUNC_H

#include "ndcuda/array.h"
#include "ndcuda/dtype.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, numpy_name, nin). The enum and nd_ufunc_name/nd_ufunc_nin come from this one list.
 * Values are append-only. REAL, IMAG and ANGLE (radians) are NumPy functions rather than
 * ufuncs; CLIP (a, lo, hi) and WHERE (cond, x, y) take three operands. */
#define ND_UFUNC_MAP(X)                                                                   \
  X(ADD, add, 2) X(SUBTRACT, subtract, 2) X(MULTIPLY, multiply, 2) X(DIVIDE, divide, 2)   \
  X(FLOOR_DIVIDE, floor_divide, 2) X(REMAINDER, remainder, 2) X(FMOD, fmod, 2)            \
  X(POWER, power, 2) X(NEGATIVE, negative, 1) X(POSITIVE, positive, 1)                    \
  X(ABSOLUTE, absolute, 1) X(SIGN, sign, 1) X(RECIPROCAL, reciprocal, 1)                  \
  X(SQUARE, square, 1) X(SQRT, sqrt, 1) X(CBRT, cbrt, 1)                                  \
  X(EXP, exp, 1) X(EXP2, exp2, 1) X(EXPM1, expm1, 1) X(LOG, log, 1) X(LOG2, log2, 1)      \
  X(LOG10, log10, 1) X(LOG1P, log1p, 1) X(LOGADDEXP, logaddexp, 2)                        \
  X(LOGADDEXP2, logaddexp2, 2)                                                            \
  X(SIN, sin, 1) X(COS, cos, 1) X(TAN, tan, 1) X(ARCSIN, arcsin, 1)                       \
  X(ARCCOS, arccos, 1) X(ARCTAN, arctan, 1) X(ARCTAN2, arctan2, 2) X(SINH, sinh, 1)       \
  X(COSH, cosh, 1) X(TANH, tanh, 1) X(ARCSINH, arcsinh, 1) X(ARCCOSH, arccosh, 1)         \
  X(ARCTANH, arctanh, 1) X(HYPOT, hypot, 2) X(DEG2RAD, deg2rad, 1)                        \
  X(RAD2DEG, rad2deg, 1)                                                                  \
  X(FLOOR, floor, 1) X(CEIL, ceil, 1) X(TRUNC, trunc, 1) X(RINT, rint, 1)                 \
  X(EQUAL, equal, 2) X(NOT_EQUAL, not_equal, 2) X(LESS, less, 2)                          \
  X(LESS_EQUAL, less_equal, 2) X(GREATER, greater, 2) X(GREATER_EQUAL, greater_equal, 2)  \
  X(LOGICAL_AND, logical_and, 2) X(LOGICAL_OR, logical_or, 2)                             \
  X(LOGICAL_XOR, logical_xor, 2) X(LOGICAL_NOT, logical_not, 1)                           \
  X(BITWISE_AND, bitwise_and, 2) X(BITWISE_OR, bitwise_or, 2)                             \
  X(BITWISE_XOR, bitwise_xor, 2) X(INVERT, invert, 1) X(LEFT_SHIFT, left_shift, 2)        \
  X(RIGHT_SHIFT, right_shift, 2)                                                          \
  X(MAXIMUM, maximum, 2) X(MINIMUM, minimum, 2) X(FMAX, fmax, 2) X(FMIN, fmin, 2)         \
  X(COPYSIGN, copysign, 2) X(NEXTAFTER, nextafter, 2) X(SIGNBIT, signbit, 1)              \
  X(ISNAN, isnan, 1) X(ISINF, isinf, 1) X(ISFINITE, isfinite, 1)                          \
  X(CONJUGATE, conjugate, 1) X(REAL, real, 1) X(IMAG, imag, 1) X(ANGLE, angle, 1)         \
  X(CLIP, clip, 3) X(WHERE, where, 3)

/* The functions, ND_UFUNC_ADD to ND_UFUNC_WHERE, in the order of ND_UFUNC_MAP. */
typedef enum nd_ufunc {
#define ND_UFUNC_ENUM_(e, name, nin) ND_UFUNC_##e,
  ND_UFUNC_MAP(ND_UFUNC_ENUM_)
#undef ND_UFUNC_ENUM_
  ND_UFUNC_COUNT_ /* number of functions; not a function */
} nd_ufunc;

/* NumPy's name ("add", "logical_and"), or "invalid". Static storage. */
ND_API const char *nd_ufunc_name(nd_ufunc op);
/* Number of inputs (1, 2 or 3), or 0 for a value that is not a function. */
ND_API int nd_ufunc_nin(nd_ufunc op);

/* An operand: an array (borrowed), a scalar value, or nothing (only clip's bounds). A small
 * value type built with the helpers below; it holds no reference. */
typedef enum nd_operand_kind {
  ND_OPERAND_NONE = 0,
  ND_OPERAND_ARRAY = 1,
  ND_OPERAND_SCALAR = 2
} nd_operand_kind;

/* One operand of nd_ufunc_call; `kind` says which member is meaningful. */
typedef struct nd_operand {
  nd_operand_kind kind;
  const nd_array *array; /* ND_OPERAND_ARRAY */
  nd_scalar scalar;      /* ND_OPERAND_SCALAR */
} nd_operand;

/* Operand constructors: an array (borrowed), a scalar value, or no value. */
static inline nd_operand nd_arg(const nd_array *a) {
  nd_operand o;
  o.kind = ND_OPERAND_ARRAY;
  o.array = a;
  o.scalar = nd_scalar_int(0);
  return o;
}
static inline nd_operand nd_arg_scalar(nd_scalar s) {
  nd_operand o;
  o.kind = ND_OPERAND_SCALAR;
  o.array = 0;
  o.scalar = s;
  return o;
}
static inline nd_operand nd_arg_none(void) {
  nd_operand o;
  o.kind = ND_OPERAND_NONE;
  o.array = 0;
  o.scalar = nd_scalar_int(0);
  return o;
}

/* The generic entry: op applied to nin operands (nin must equal nd_ufunc_nin(op)), result
 * into out or a new array (see the conventions above). At least one operand must be an
 * array unless every operand is a scalar, in which case the result is a 0-d array (weak
 * scalars alone take the default dtypes int64/float64/complex128, as NumPy). Borrows in
 * and out. Errors: those above, plus ND_ERR_INVALID_ARGUMENT for an unknown op or a wrong
 * nin, ND_ERR_VALUE for ND_OPERAND_NONE where a value is required. Enqueues and returns. */
ND_API nd_status nd_ufunc_call(nd_ufunc op, int nin, const nd_operand *in, nd_array *out,
                               nd_array **result);

/* Resolves, without touching any array or device, the dtype a call of op with operands of
 * the given dtypes (array dtypes or weak kinds) would produce: NumPy's ufunc result dtype.
 * Errors: ND_ERR_INVALID_ARGUMENT (op, nin), ND_ERR_NULL_POINTER, ND_ERR_DTYPE (no loop). */
ND_API nd_status nd_ufunc_result_type(nd_ufunc op, int nin, const nd_dtype *dtypes,
                                      nd_dtype *out);

/* ---- arithmetic ------------------------------------------------------------------------ */
/* Binary functions: op(a, b) elementwise. Unary: op(a). See the conventions at the top. */
ND_API nd_status nd_add(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_subtract(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_multiply(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
/* True division; integer and bool inputs give float64. */
ND_API nd_status nd_divide(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
/* Python's // and % (result takes the sign of b); fmod is C's (sign of a). */
ND_API nd_status nd_floor_divide(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_remainder(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_mod(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_fmod(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_power(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_negative(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_positive(const nd_array *a, nd_array *out, nd_array **result);
/* |a|; complex input gives the real magnitude (float32 for complex64). nd_abs is the same. */
ND_API nd_status nd_absolute(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_abs(const nd_array *a, nd_array *out, nd_array **result);
/* -1, 0, +1 (NaN stays NaN); complex input gives z/|z| (0 for 0), as NumPy 2. */
ND_API nd_status nd_sign(const nd_array *a, nd_array *out, nd_array **result);
/* 1/a; on integers C's truncating division (1/0 gives 0). */
ND_API nd_status nd_reciprocal(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_square(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_sqrt(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_cbrt(const nd_array *a, nd_array *out, nd_array **result);

/* ---- exponentials and logarithms ------------------------------------------------------- */
ND_API nd_status nd_exp(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_exp2(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_expm1(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_log(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_log2(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_log10(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_log1p(const nd_array *a, nd_array *out, nd_array **result);
/* log(exp(a) + exp(b)) and log2(2^a + 2^b) without overflow. Real inputs only. */
ND_API nd_status nd_logaddexp(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_logaddexp2(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);

/* ---- trigonometric and hyperbolic ------------------------------------------------------ */
ND_API nd_status nd_sin(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_cos(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_tan(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arcsin(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arccos(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arctan(const nd_array *a, nd_array *out, nd_array **result);
/* atan2(a, b): the angle of the point (b, a). Real inputs only. */
ND_API nd_status nd_arctan2(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_sinh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_cosh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_tanh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arcsinh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arccosh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_arctanh(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_hypot(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_deg2rad(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_rad2deg(const nd_array *a, nd_array *out, nd_array **result);

/* ---- rounding -------------------------------------------------------------------------- */
/* floor/ceil/trunc keep integer and bool dtypes (NumPy 2); rint rounds half to even. */
ND_API nd_status nd_floor(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_ceil(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_trunc(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_rint(const nd_array *a, nd_array *out, nd_array **result);
/* NumPy's round/around: half to even at `decimals` decimal places, computed as NumPy does
 * (rint(a * 10^d) / 10^d in a's dtype for d > 0, rint(a / 10^-d) * 10^-d for d < 0, each step
 * rounded to the dtype). Integer input keeps its dtype (a copy for d >= 0; d < 0 computes in
 * float64 and converts back); bool gives float16 as NumPy's rint does (d = 0), and is
 * rejected (ND_ERR_DTYPE) for d != 0. Complex rounds both parts. */
ND_API nd_status nd_round(const nd_array *a, int decimals, nd_array *out, nd_array **result);

/* ---- comparison and logic -------------------------------------------------------------- */
/* Results are bool. Mixed signed/unsigned 64-bit integers compare exactly (as NumPy). */
ND_API nd_status nd_equal(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_not_equal(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_less(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_less_equal(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_greater(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_greater_equal(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_logical_and(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_logical_or(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_logical_xor(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_logical_not(const nd_array *a, nd_array *out, nd_array **result);

/* ---- bitwise (bool and integer dtypes; float input is ND_ERR_DTYPE) --------------------- */
ND_API nd_status nd_bitwise_and(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_bitwise_or(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_bitwise_xor(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_invert(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_left_shift(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_right_shift(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);

/* ---- extrema, selection ---------------------------------------------------------------- */
ND_API nd_status nd_maximum(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_minimum(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_fmax(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_fmin(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
/* NumPy's clip: minimum(maximum(a, lo), hi) with NaN propagated, dtype promoted over all
 * three. lo or hi may be nd_arg_none() (not both: ND_ERR_VALUE). A weak integer lower bound
 * below an integer dtype's range, or upper bound above it, is no bound (np.clip drops it);
 * one beyond the other end is ND_ERR_VALUE, as NumPy's OverflowError. Through
 * nd_ufunc_call, a scalar first operand takes np.asarray's dtype (a weak 5 is int64). */
ND_API nd_status nd_clip(const nd_array *a, nd_operand lo, nd_operand hi, nd_array *out,
                         nd_array **result);
/* NumPy's where(cond, x, y): x where cond is true (cond is taken as bool: nonzero), else y;
 * dtype result_type(x, y). A weak integer outside that dtype's range is ND_ERR_VALUE, as
 * NumPy 2.5's OverflowError (2.4 wrapped it). */
ND_API nd_status nd_where(nd_operand cond, nd_operand x, nd_operand y, nd_array *out,
                          nd_array **result);

/* ---- floating-point classification and manipulation ------------------------------------ */
ND_API nd_status nd_copysign(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_nextafter(const nd_array *a, const nd_array *b, nd_array *out, nd_array **result);
ND_API nd_status nd_signbit(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_isnan(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_isinf(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_isfinite(const nd_array *a, nd_array *out, nd_array **result);
/* NaN -> nan, +inf -> posinf, -inf -> neginf (real and imaginary parts separately), values
 * converted to a's dtype. posinf or neginf NAN means NumPy's default: the dtype's largest
 * (most negative) finite value. Integer and bool input is copied unchanged. */
ND_API nd_status nd_nan_to_num(const nd_array *a, double nan, double posinf, double neginf,
                               nd_array *out, nd_array **result);

/* ---- complex parts --------------------------------------------------------------------- */
/* Complex conjugate (other dtypes: a copy; bool becomes int8 as in NumPy). */
ND_API nd_status nd_conjugate(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_conj(const nd_array *a, nd_array *out, nd_array **result);
/* Copies of the real or imaginary part (float32 for complex64). Real input: real is a copy,
 * imag is zeros of a's dtype. For views instead of copies see nd_array_real/nd_array_imag. */
ND_API nd_status nd_real(const nd_array *a, nd_array *out, nd_array **result);
ND_API nd_status nd_imag(const nd_array *a, nd_array *out, nd_array **result);
/* The argument atan2(imag, real), in degrees when deg is nonzero. Real input as NumPy:
 * arctan2(0, a) (so integer input gives a float dtype, and -0.0 gives pi). */
ND_API nd_status nd_angle(const nd_array *a, int deg, nd_array *out, nd_array **result);

/* ---- closeness and equality ------------------------------------------------------------ */
/* NumPy's isclose: |a - b| <= atol + rtol * |b| (and b finite), or a == b; NaNs compare
 * equal when equal_nan is set. Computed in NumPy's dtype (b promoted with a float, so
 * integers compare in float64). Result is a new bool array (no out, as NumPy). */
ND_API nd_status nd_isclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                            int equal_nan, nd_array **result);
/* Whether every element is close (1) or not (0). Shapes must broadcast. Blocks until the
 * answer is on the host (waits only for the work it depends on). */
ND_API nd_status nd_allclose(const nd_array *a, const nd_array *b, double rtol, double atol,
                             int equal_nan, int *answer);
/* NumPy's array_equal: 1 when a and b have the same shape and equal elements (NaNs equal
 * when equal_nan is set), else 0 (no broadcasting; different shapes are not an error).
 * Dtypes promote as for nd_equal. Blocks until the answer is on the host. */
ND_API nd_status nd_array_equal(const nd_array *a, const nd_array *b, int equal_nan, int *answer);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_UFUNC_H */
