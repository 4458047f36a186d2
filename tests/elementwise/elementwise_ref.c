/* Host reference of the elementwise operations (see elementwise_ref.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/elementwise/elementwise_ref.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI_ 3.141592653589793238462643383279502884

/* ---- scalars ------------------------------------------------------------------------- */

static nd_scalar s_b(int v) { return nd_scalar_bool(v); }
static nd_scalar s_i(nd_dtype dt, int64_t v) {
  nd_scalar s = {.dtype = ND_INT64, .v.i = v};
  return nd_ref_cast(s, dt);
}
static nd_scalar s_u(nd_dtype dt, uint64_t v) {
  nd_scalar s = {.dtype = ND_UINT64, .v.u = v};
  return nd_ref_cast(s, dt);
}
static nd_scalar s_f(nd_dtype dt, double v) {
  nd_scalar s = {.dtype = ND_FLOAT64, .v.f = v};
  return nd_ref_cast(s, dt);
}
static nd_scalar s_c(nd_dtype dt, double re, double im) {
  nd_scalar s = {.dtype = ND_COMPLEX128, .v.c = {re, im}};
  return nd_ref_cast(s, dt);
}

/* float16 rounding of a float value, and a double parameter rounded to float16. */
static float hr(float x) { return (float)nd_ref_half_to_double(nd_ref_double_to_half((double)x)); }
static float hparam(double d) { return (float)nd_ref_half_to_double(nd_ref_double_to_half(d)); }

static int is_cmp(int op) { return op >= ND_UFUNC_EQUAL && op <= ND_UFUNC_GREATER_EQUAL; }

static int cmp_real(int op, double a, double b) {
  switch (op) {
    case ND_UFUNC_EQUAL: return a == b;
    case ND_UFUNC_NOT_EQUAL: return a != b;
    case ND_UFUNC_LESS: return a < b;
    case ND_UFUNC_LESS_EQUAL: return a <= b;
    case ND_UFUNC_GREATER: return a > b;
    default: return a >= b;
  }
}

/* 10^|d| as NumPy's power_of_ten and the kernel compute it (exact up to 1e22, then the same
 * chain of products), inf beyond 1e308. */
static double pow10_(int64_t decimals) {
  const int64_t d = decimals < 0 ? -decimals : decimals;
  double f = 1;
  for (int64_t k = 0; k < d && f < 1e308; k++) f *= 10;
  return d > 308 ? (double)INFINITY : f;
}

/* ---- real floating point, in float and in double ------------------------------------- */

/* NumPy's npy_divmod: floor quotient and Python-style modulus. */
#define ND_REF_DIVMOD(name, T, F)                                  \
  static T name(T a, T b, T *modulus) {                            \
    T mod = fmod##F(a, b);                                         \
    if (b == 0) {                                                  \
      *modulus = mod;                                              \
      return a / b;                                                \
    }                                                              \
    T div = (a - mod) / b;                                         \
    if (mod != 0) {                                                \
      if ((b < 0) != (mod < 0)) {                                  \
        mod += b;                                                  \
        div -= (T)1;                                               \
      }                                                            \
    } else {                                                       \
      mod = copysign##F((T)0, b);                                  \
    }                                                              \
    T fl;                                                          \
    if (div != 0) {                                                \
      fl = floor##F(div);                                          \
      if (div - fl > (T)0.5) fl += (T)1;                           \
    } else {                                                       \
      fl = copysign##F((T)0, a / b);                               \
    }                                                              \
    *modulus = mod;                                                \
    return fl;                                                     \
  }
ND_REF_DIVMOD(divmod_f, float, f)
ND_REF_DIVMOD(divmod_d, double, )

/* The result of op on a, b, c of type T as a double (exact: T's value), or a bool in *b_out
 * (return value ignored) when *is_bool is set. */
#define ND_REF_REAL(name, T, F, DIVMOD)                                                     \
  static double name(int op, T a, T b, T c, const nd_kparams *p, int *is_bool, int *bres) { \
    *is_bool = 0;                                                                           \
    T m;                                                                                    \
    if (is_cmp(op)) {                                                                       \
      *is_bool = 1;                                                                         \
      *bres = cmp_real(op, (double)a, (double)b);                                           \
      return 0;                                                                             \
    }                                                                                       \
    switch (op) {                                                                           \
      case ND_UFUNC_ADD: return a + b;                                                      \
      case ND_UFUNC_SUBTRACT: return a - b;                                                 \
      case ND_UFUNC_MULTIPLY: return a * b;                                                 \
      case ND_UFUNC_DIVIDE: return a / b;                                                   \
      case ND_UFUNC_FLOOR_DIVIDE: return b == 0 ? a / b : DIVMOD(a, b, &m);                 \
      case ND_UFUNC_REMAINDER:                                                              \
        if (b == 0) return fmod##F(a, b);                                                   \
        DIVMOD(a, b, &m);                                                                   \
        return m;                                                                           \
      case ND_UFUNC_FMOD: return fmod##F(a, b);                                             \
      case ND_UFUNC_POWER: return pow##F(a, b);                                             \
      case ND_UFUNC_NEGATIVE: return -a;                                                    \
      case ND_UFUNC_ABSOLUTE: return fabs##F(a);                                            \
      case ND_UFUNC_SIGN: return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;          \
      case ND_UFUNC_RECIPROCAL: return (T)1 / a;                                            \
      case ND_UFUNC_SQUARE: return a * a;                                                   \
      case ND_UFUNC_SQRT: return sqrt##F(a);                                                \
      case ND_UFUNC_CBRT: return cbrt##F(a);                                                \
      case ND_UFUNC_EXP: return exp##F(a);                                                  \
      case ND_UFUNC_EXP2: return exp2##F(a);                                                \
      case ND_UFUNC_EXPM1: return expm1##F(a);                                              \
      case ND_UFUNC_LOG: return log##F(a);                                                  \
      case ND_UFUNC_LOG2: return log2##F(a);                                                \
      case ND_UFUNC_LOG10: return log10##F(a);                                              \
      case ND_UFUNC_LOG1P: return log1p##F(a);                                              \
      case ND_UFUNC_LOGADDEXP: {                                                            \
        if (a == b) return a + (T)0.693147180559945309417232121458176568;                   \
        const T t = a - b;                                                                  \
        if (t > 0) return a + log1p##F(exp##F(-t));                                         \
        if (t <= 0) return b + log1p##F(exp##F(t));                                         \
        return t;                                                                           \
      }                                                                                     \
      case ND_UFUNC_LOGADDEXP2: {                                                           \
        const T l2e = (T)1.442695040888963407359924681001892137;                            \
        if (a == b) return a + (T)1;                                                        \
        const T t = a - b;                                                                  \
        if (t > 0) return a + l2e * log1p##F(exp2##F(-t));                                  \
        if (t <= 0) return b + l2e * log1p##F(exp2##F(t));                                  \
        return t;                                                                           \
      }                                                                                     \
      case ND_UFUNC_SIN: return sin##F(a);                                                  \
      case ND_UFUNC_COS: return cos##F(a);                                                  \
      case ND_UFUNC_TAN: return tan##F(a);                                                  \
      case ND_UFUNC_ARCSIN: return asin##F(a);                                              \
      case ND_UFUNC_ARCCOS: return acos##F(a);                                              \
      case ND_UFUNC_ARCTAN: return atan##F(a);                                              \
      case ND_UFUNC_ARCTAN2: return atan2##F(a, b);                                         \
      case ND_UFUNC_SINH: return sinh##F(a);                                                \
      case ND_UFUNC_COSH: return cosh##F(a);                                                \
      case ND_UFUNC_TANH: return tanh##F(a);                                                \
      case ND_UFUNC_ARCSINH: return asinh##F(a);                                            \
      case ND_UFUNC_ARCCOSH: return acosh##F(a);                                            \
      case ND_UFUNC_ARCTANH: return atanh##F(a);                                            \
      case ND_UFUNC_HYPOT: return hypot##F(a, b);                                           \
      case ND_UFUNC_DEG2RAD: return a * ((T)PI_ / (T)180);                                  \
      case ND_UFUNC_RAD2DEG: return a * ((T)180 / (T)PI_);                                  \
      case ND_UFUNC_FLOOR: return floor##F(a);                                              \
      case ND_UFUNC_CEIL: return ceil##F(a);                                                \
      case ND_UFUNC_TRUNC: return trunc##F(a);                                              \
      case ND_UFUNC_RINT: return rint##F(a);                                                \
      case ND_UFUNC_MAXIMUM: return (isnan(a) || a > b) ? a : b;                            \
      case ND_UFUNC_MINIMUM: return (isnan(a) || a < b) ? a : b;                            \
      case ND_UFUNC_FMAX: return (isnan(b) || a >= b) ? a : b;                              \
      case ND_UFUNC_FMIN: return (isnan(b) || a <= b) ? a : b;                              \
      case ND_UFUNC_CLIP: {                                                                 \
        const T lo = (isnan(a) || a > b) ? a : b;                                           \
        return (isnan(lo) || lo < c) ? lo : c;                                              \
      }                                                                                     \
      case ND_UFUNC_COPYSIGN: return copysign##F(a, b);                                     \
      case ND_UFUNC_NEXTAFTER: return nextafter##F(a, b);                                   \
      case ND_UFUNC_ANGLE: {                                                                \
        const T r = atan2##F((T)0, a);                                                      \
        return p && p->i ? r * (T)(180.0 / PI_) : r;                                        \
      }                                                                                     \
      case ND_KOP_NAN_TO_NUM:                                                               \
        return isnan(a) ? (T)p->d[0] : a == (T)INFINITY ? (T)p->d[1]                        \
             : a == -(T)INFINITY ? (T)p->d[2] : a;                                          \
      case ND_KOP_ROUND: {                                                                  \
        const T f = (T)pow10_(p->i);                                                        \
        if (p->i > 0) return rint##F(a * f) / f;                                            \
        return rint##F(a / f) * f;                                                          \
      }                                                                                     \
      default: break;                                                                       \
    }                                                                                       \
    *is_bool = 1;                                                                           \
    switch (op) {                                                                           \
      case ND_UFUNC_LOGICAL_AND: *bres = (a != 0 || isnan(a)) && (b != 0 || isnan(b)); break; \
      case ND_UFUNC_LOGICAL_OR: *bres = (a != 0 || isnan(a)) || (b != 0 || isnan(b)); break;  \
      case ND_UFUNC_LOGICAL_XOR: *bres = (a != 0 || isnan(a)) != (b != 0 || isnan(b)); break; \
      case ND_UFUNC_LOGICAL_NOT: *bres = !(a != 0 || isnan(a)); break;                      \
      case ND_UFUNC_SIGNBIT: *bres = signbit(a) != 0; break;                                \
      case ND_UFUNC_ISNAN: *bres = isnan(a) != 0; break;                                    \
      case ND_UFUNC_ISINF: *bres = isinf(a) != 0; break;                                    \
      case ND_UFUNC_ISFINITE: *bres = isfinite(a) != 0; break;                              \
      case ND_KOP_EQUAL_NAN: *bres = a == b || (isnan(a) && isnan(b)); break;               \
      case ND_KOP_ISCLOSE: {                                                                \
        const T rt = (T)p->d[0], at = (T)p->d[1];                                           \
        *bres = (fabs##F(a - b) <= at + rt * fabs##F(b) && isfinite(b)) || a == b;          \
        if (p->i) *bres = *bres || (isnan(a) && isnan(b));                                  \
        break;                                                                              \
      }                                                                                     \
      default: ck_abort_msg("ew_ref: no real reference for op %d", op);                     \
    }                                                                                       \
    return 0;                                                                               \
  }
ND_REF_REAL(real_f, float, f, divmod_f)
ND_REF_REAL(real_d, double, , divmod_d)

/* NumPy's float16 nextafter, on the half bits. */
static uint16_t half_nextafter(uint16_t x, uint16_t y) {
  const int xnan = (x & 0x7c00u) == 0x7c00u && (x & 0x03ffu);
  const int ynan = (y & 0x7c00u) == 0x7c00u && (y & 0x03ffu);
  if (xnan || ynan) return 0x7e00u;
  if (x == y || ((x | y) & 0x7fffu) == 0) return x;
  if ((x & 0x7fffu) == 0) return (uint16_t)((y & 0x8000u) + 1);
  if (!(x & 0x8000u)) return (uint16_t)((int16_t)x > (int16_t)y ? x - 1 : x + 1);
  return (uint16_t)((!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) ? x - 1 : x + 1);
}

/* float16 operations whose intermediate steps NumPy rounds to float16. */
static int half_special(int op, float a, float b, const nd_kparams *p, double *r, int *isb, int *bres) {
  *isb = 0;
  switch (op) {
    case ND_UFUNC_NEXTAFTER:
      *r = nd_ref_half_to_double(half_nextafter(nd_ref_double_to_half(a), nd_ref_double_to_half(b)));
      return 1;
    case ND_UFUNC_ANGLE: {
      const float t = hr(atan2f(0.0f, a));
      *r = p && p->i ? hr(t * hparam(180.0 / PI_)) : t;
      return 1;
    }
    case ND_KOP_NAN_TO_NUM:
      *r = isnan(a) ? hparam(p->d[0]) : a == INFINITY ? hparam(p->d[1]) : a == -INFINITY ? hparam(p->d[2]) : a;
      return 1;
    case ND_KOP_ROUND: {
      const float f = hparam(pow10_(p->i));
      const float y = rintf(hr(p->i > 0 ? a * f : a / f));
      *r = hr(p->i > 0 ? y / f : y * f);
      return 1;
    }
    case ND_KOP_ISCLOSE: {
      const float rt = hparam(p->d[0]), at = hparam(p->d[1]);
      const float rhs = hr(at + hr(rt * fabsf(b)));
      *isb = 1;
      *bres = (fabsf(hr(a - b)) <= rhs && isfinite(b)) || a == b;
      if (p->i) *bres = *bres || (isnan(a) && isnan(b));
      return 1;
    }
    default: return 0;
  }
}

/* ---- complex ----------------------------------------------------------------------------- */

/* NumPy's complex product and quotient (Smith's method), without fused operations. */
#define ND_REF_CARITH(mul, div, T, F)                                                     \
  static void mul(T ar, T ai, T br, T bi, T *r) {                                         \
    r[0] = ar * br - ai * bi;                                                             \
    r[1] = ar * bi + ai * br;                                                             \
  }                                                                                       \
  static void div(T ar, T ai, T br, T bi, T *r) {                                         \
    const T abr = fabs##F(br), abi = fabs##F(bi);                                         \
    if (abr >= abi) {                                                                     \
      if (abr == 0 && abi == 0) {                                                         \
        r[0] = ar / abr;                                                                  \
        r[1] = ai / abr;                                                                  \
        return;                                                                           \
      }                                                                                   \
      const T rat = bi / br, scl = (T)1 / (br + bi * rat);                                \
      r[0] = (ar + ai * rat) * scl;                                                       \
      r[1] = (ai - ar * rat) * scl;                                                       \
      return;                                                                             \
    }                                                                                     \
    const T rat = br / bi, scl = (T)1 / (bi + br * rat);                                  \
    r[0] = (ar * rat + ai) * scl;                                                         \
    r[1] = (ai * rat - ar) * scl;                                                         \
  }
ND_REF_CARITH(cmul_f, cdiv_f, float, f)
ND_REF_CARITH(cmul_d, cdiv_d, double, )

/* The product as NumPy's multiply and square loops compute it on x86 with FMA (simd_cmul):
 * each real product fused with the other, rounded one. power's integer path keeps the plain
 * product above (scalar C in NumPy). */
#define ND_REF_CFMUL(name, T, F)                                                          \
  static void name(T ar, T ai, T br, T bi, T *r) {                                        \
    const T p = ai * bi, q = ai * br;                                                     \
    r[0] = fma##F(ar, br, -p);                                                            \
    r[1] = fma##F(ar, bi, q);                                                             \
  }
ND_REF_CFMUL(cfmul_f, float, f)
ND_REF_CFMUL(cfmul_d, double, )

static int c_isnan(double re, double im) { return isnan(re) || isnan(im); }

/* Complex ops in precision T (float for complex64); results into r[2], or a bool. */
#define ND_REF_COMPLEX(name, T, F, CT, MUL, FMUL, DIV, CMK)                                                  \
  static int name(int op, const T *a, const T *b, const T *c, const nd_kparams *p, T *r,          \
                  int *bres) {                                                                    \
    const CT z = CMK(a[0], a[1]), w = CMK(b[0], b[1]);                                  \
    CT y = 0;                                                                                     \
    T t[2];                                                                                       \
    const int an = c_isnan(a[0], a[1]), bn = c_isnan(b[0], b[1]);                                 \
    const int ge = (a[0] > b[0] && !isnan(a[1]) && !isnan(b[1])) || (a[0] == b[0] && a[1] >= b[1]); \
    const int le = (a[0] < b[0] && !isnan(a[1]) && !isnan(b[1])) || (a[0] == b[0] && a[1] <= b[1]); \
    const int eq = a[0] == b[0] && a[1] == b[1];                                                  \
    switch (op) {                                                                                 \
      case ND_UFUNC_EQUAL: *bres = eq; return 1;                                                  \
      case ND_UFUNC_NOT_EQUAL: *bres = !eq; return 1;                                             \
      case ND_UFUNC_LESS: *bres = le && !eq; return 1;                                            \
      case ND_UFUNC_LESS_EQUAL: *bres = le; return 1;                                             \
      case ND_UFUNC_GREATER: *bres = ge && !eq; return 1;                                         \
      case ND_UFUNC_GREATER_EQUAL: *bres = ge; return 1;                                          \
      case ND_UFUNC_LOGICAL_AND: *bres = (a[0] != 0 || a[1] != 0 || an) && (b[0] != 0 || b[1] != 0 || bn); return 1; \
      case ND_UFUNC_LOGICAL_OR: *bres = (a[0] != 0 || a[1] != 0 || an) || (b[0] != 0 || b[1] != 0 || bn); return 1; \
      case ND_UFUNC_LOGICAL_XOR: *bres = (a[0] != 0 || a[1] != 0 || an) != (b[0] != 0 || b[1] != 0 || bn); return 1; \
      case ND_UFUNC_LOGICAL_NOT: *bres = !(a[0] != 0 || a[1] != 0 || an); return 1;              \
      case ND_UFUNC_ISNAN: *bres = an; return 1;                                                  \
      case ND_UFUNC_ISINF: *bres = isinf(a[0]) || isinf(a[1]); return 1;                          \
      case ND_UFUNC_ISFINITE: *bres = isfinite(a[0]) && isfinite(a[1]); return 1;                 \
      case ND_KOP_EQUAL_NAN: *bres = eq || (an && bn); return 1;                                  \
      case ND_KOP_ISCLOSE: {                                                                      \
        const T ad = hypot##F(a[0] - b[0], a[1] - b[1]), ab = hypot##F(b[0], b[1]);               \
        const T rt = (T)p->d[0], at = (T)p->d[1];                                                 \
        *bres = (ad <= at + rt * ab && isfinite(b[0]) && isfinite(b[1])) || eq;                   \
        if (p->i) *bres = *bres || (an && bn);                                                    \
        return 1;                                                                                 \
      }                                                                                           \
      case ND_UFUNC_ADD: r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; return 0;                        \
      case ND_UFUNC_SUBTRACT: r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; return 0;                   \
      case ND_UFUNC_MULTIPLY: FMUL(a[0], a[1], b[0], b[1], r); return 0;                           \
      case ND_UFUNC_DIVIDE: DIV(a[0], a[1], b[0], b[1], r); return 0;                             \
      case ND_UFUNC_NEGATIVE: r[0] = -a[0]; r[1] = -a[1]; return 0;                               \
      case ND_UFUNC_CONJUGATE: r[0] = a[0]; r[1] = -a[1]; return 0;                               \
      case ND_UFUNC_SQUARE: FMUL(a[0], a[1], a[0], a[1], r); return 0;                             \
      case ND_UFUNC_ABSOLUTE: r[0] = hypot##F(a[0], a[1]); r[1] = 0; return 0;                    \
      case ND_UFUNC_REAL: r[0] = a[0]; r[1] = 0; return 0;                                        \
      case ND_UFUNC_IMAG: r[0] = a[1]; r[1] = 0; return 0;                                        \
      case ND_UFUNC_ANGLE:                                                                        \
        r[0] = atan2##F(a[1], a[0]);                                                              \
        if (p && p->i) r[0] = r[0] * (T)(180.0 / PI_);                                            \
        r[1] = 0;                                                                                 \
        return 0;                                                                                 \
      case ND_UFUNC_RECIPROCAL:                                                                   \
        if (fabs##F(a[1]) <= fabs##F(a[0])) {                                                     \
          const T q = a[1] / a[0], d = a[0] + a[1] * q;                                           \
          r[0] = (T)1 / d;                                                                        \
          r[1] = -q / d;                                                                          \
        } else {                                                                                  \
          const T q = a[0] / a[1], d = a[0] * q + a[1];                                           \
          r[0] = q / d;                                                                           \
          r[1] = (T)-1 / d;                                                                       \
        }                                                                                         \
        return 0;                                                                                 \
      case ND_UFUNC_SIGN:                                                                         \
        if (an) { r[0] = r[1] = NAN; }                                                            \
        else if (isinf(a[0])) { r[0] = isinf(a[1]) ? NAN : a[0] > 0 ? 1 : -1; r[1] = isinf(a[1]) ? NAN : 0; } \
        else if (isinf(a[1])) { r[0] = 0; r[1] = a[1] > 0 ? 1 : -1; }                            \
        else if (a[0] == 0 && a[1] == 0) { r[0] = r[1] = 0; }                                    \
        else { const T h = hypot##F(a[0], a[1]); r[0] = a[0] / h; r[1] = a[1] / h; }              \
        return 0;                                                                                 \
      case ND_UFUNC_RINT: r[0] = rint##F(a[0]); r[1] = rint##F(a[1]); return 0;                   \
      case ND_UFUNC_MAXIMUM: memcpy(r, (an || ge) ? a : b, 2 * sizeof(T)); return 0;              \
      case ND_UFUNC_MINIMUM: memcpy(r, (an || le) ? a : b, 2 * sizeof(T)); return 0;              \
      case ND_UFUNC_FMAX: memcpy(r, (bn || ge) ? a : b, 2 * sizeof(T)); return 0;                 \
      case ND_UFUNC_FMIN: memcpy(r, (bn || le) ? a : b, 2 * sizeof(T)); return 0;                 \
      case ND_UFUNC_CLIP: {                                                                       \
        T lo[2];                                                                                  \
        memcpy(lo, (an || ge) ? a : b, sizeof lo);                                                \
        const int ln = c_isnan(lo[0], lo[1]);                                                     \
        const int lle = (lo[0] < c[0] && !isnan(lo[1]) && !isnan(c[1])) || (lo[0] == c[0] && lo[1] <= c[1]); \
        memcpy(r, (ln || lle) ? lo : c, sizeof lo);                                               \
        return 0;                                                                                 \
      }                                                                                           \
      case ND_KOP_NAN_TO_NUM:                                                                     \
        for (int k = 0; k < 2; k++)                                                               \
          r[k] = isnan(a[k]) ? (T)p->d[0] : a[k] == (T)INFINITY ? (T)p->d[1]                      \
               : a[k] == -(T)INFINITY ? (T)p->d[2] : a[k];                                        \
        return 0;                                                                                 \
      case ND_KOP_ROUND: {                                                                        \
        /* NumPy rounds the real and the imaginary part as real arrays. */                        \
        const T f = (T)pow10_(p->i);                                                              \
        for (int k = 0; k < 2; k++)                                                               \
          r[k] = p->i > 0 ? rint##F(a[k] * f) / f : rint##F(a[k] / f) * f;                        \
        return 0;                                                                                 \
      }                                                                                           \
      case ND_UFUNC_SQRT: y = csqrt##F(z); break;                                                 \
      case ND_UFUNC_EXP: y = cexp##F(z); break;                                                   \
      case ND_UFUNC_EXP2: {                                                                       \
        const T l2 = (T)0.693147180559945309417232121458176568;                                   \
        y = cexp##F(CMK(a[0] * l2, a[1] * l2));                                              \
        break;                                                                                    \
      }                                                                                           \
      case ND_UFUNC_EXPM1: {                                                                      \
        /* NumPy's formula; at infinite and NaN arguments cexp - 1 (the array API's cases). */    \
        if (!isfinite(a[0]) || !isfinite(a[1])) {                                                 \
          const CT e = cexp##F(z);                                                                \
          y = CMK(creal##F(e) - 1, cimag##F(e));                                                  \
          break;                                                                                  \
        }                                                                                         \
        const T s = sin##F(a[1] / 2);                                                             \
        y = CMK(expm1##F(a[0]) * cos##F(a[1]) - 2 * s * s, exp##F(a[0]) * sin##F(a[1]));     \
        break;                                                                                    \
      }                                                                                           \
      case ND_UFUNC_LOG: y = clog##F(z); break;                                                   \
      case ND_UFUNC_LOG2: {                                                                       \
        const CT l = clog##F(z);                                                                  \
        const T k = (T)1.442695040888963407359924681001892137;                                    \
        y = CMK(creal##F(l) * k, cimag##F(l) * k);                                           \
        break;                                                                                    \
      }                                                                                           \
      case ND_UFUNC_LOG10: {                                                                      \
        const CT l = clog##F(z);                                                                  \
        const T k = (T)0.434294481903251827651128918916605082;                                    \
        y = CMK(creal##F(l) * k, cimag##F(l) * k);                                           \
        break;                                                                                    \
      }                                                                                           \
      case ND_UFUNC_LOG1P:                                                                        \
        y = CMK(log##F(hypot##F(a[0] + 1, a[1])), atan2##F(a[1], a[0] + 1));                 \
        break;                                                                                    \
      case ND_UFUNC_SIN: y = csin##F(z); break;                                                   \
      case ND_UFUNC_COS: y = ccos##F(z); break;                                                   \
      case ND_UFUNC_TAN: y = ctan##F(z); break;                                                   \
      case ND_UFUNC_ARCSIN: y = casin##F(z); break;                                               \
      case ND_UFUNC_ARCCOS: y = cacos##F(z); break;                                               \
      case ND_UFUNC_ARCTAN: y = catan##F(z); break;                                               \
      case ND_UFUNC_SINH: y = csinh##F(z); break;                                                 \
      case ND_UFUNC_COSH: y = ccosh##F(z); break;                                                 \
      case ND_UFUNC_TANH: y = ctanh##F(z); break;                                                 \
      case ND_UFUNC_ARCSINH: y = casinh##F(z); break;                                             \
      case ND_UFUNC_ARCCOSH: y = cacosh##F(z); break;                                             \
      case ND_UFUNC_ARCTANH: y = catanh##F(z); break;                                             \
      case ND_UFUNC_POWER: {                                                                      \
        /* NumPy's npy_cpow: 0 and small integer exponents exactly, else libm's cpow. */          \
        if (b[0] == 0 && b[1] == 0) { r[0] = 1; r[1] = 0; return 0; }                             \
        if (a[0] == 0 && a[1] == 0) {                                                             \
          r[0] = b[0] > 0 ? 0 : NAN;                                                              \
          r[1] = b[0] > 0 ? 0 : NAN;                                                              \
          return 0;                                                                               \
        }                                                                                         \
        if (b[1] == 0 && b[0] >= -100 && b[0] <= 100 && b[0] == trunc##F(b[0])) {                 \
          const long n = (long)b[0];                                                              \
          if (n == 1) { r[0] = a[0]; r[1] = a[1]; return 0; }                                     \
          if (n == 2) { MUL(a[0], a[1], a[0], a[1], r); return 0; }                               \
          if (n == 3) { MUL(a[0], a[1], a[0], a[1], t); MUL(a[0], a[1], t[0], t[1], r); return 0; } \
          if (n > -100 && n < 100) {                                                              \
            T acc[2] = {1, 0}, pw[2] = {a[0], a[1]};                                              \
            long m = n < 0 ? -n : n, mask = 1;                                                    \
            for (;;) {                                                                            \
              if (m & mask) { MUL(acc[0], acc[1], pw[0], pw[1], t); acc[0] = t[0]; acc[1] = t[1]; } \
              mask <<= 1;                                                                         \
              if (m < mask || mask <= 0) break;                                                   \
              MUL(pw[0], pw[1], pw[0], pw[1], t);                                                 \
              pw[0] = t[0];                                                                       \
              pw[1] = t[1];                                                                       \
            }                                                                                     \
            if (n < 0) DIV(1, 0, acc[0], acc[1], r); else { r[0] = acc[0]; r[1] = acc[1]; }       \
            return 0;                                                                             \
          }                                                                                       \
        }                                                                                         \
        y = cpow##F(z, w);                                                                        \
        break;                                                                                    \
      }                                                                                           \
      default: ck_abort_msg("ew_ref: no complex reference for op %d", op);                        \
    }                                                                                             \
    r[0] = creal##F(y);                                                                           \
    r[1] = cimag##F(y);                                                                           \
    return 0;                                                                                     \
  }
ND_REF_COMPLEX(cplx_f, float, f, float complex, cmul_f, cfmul_f, cdiv_f, CMPLXF)
ND_REF_COMPLEX(cplx_d, double, , double complex, cmul_d, cfmul_d, cdiv_d, CMPLX)

/* ---- integers and bool ------------------------------------------------------------------- */

static nd_scalar int_op(int op, nd_dtype dt, nd_dtype out, const nd_scalar *x, const nd_kparams *p) {
  const int sgn = nd_dtype_kind(dt) == ND_KIND_INT;
  const int w = (int)(8 * nd_dtype_itemsize(dt));
  const int64_t a = x[0].v.i, b = x[1].v.i, c = x[2].v.i;
  const uint64_t ua = x[0].v.u, ub = x[1].v.u, uc = x[2].v.u;
  const int64_t imin = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
#define WRAP(u) (sgn ? s_i(dt, (int64_t)(u)) : s_u(dt, (uint64_t)(u)))
  if (is_cmp(op)) {
    if (sgn) return s_b(op == ND_UFUNC_EQUAL ? a == b : op == ND_UFUNC_NOT_EQUAL ? a != b : op == ND_UFUNC_LESS ? a < b
                        : op == ND_UFUNC_LESS_EQUAL ? a <= b : op == ND_UFUNC_GREATER ? a > b : a >= b);
    return s_b(op == ND_UFUNC_EQUAL ? ua == ub : op == ND_UFUNC_NOT_EQUAL ? ua != ub : op == ND_UFUNC_LESS ? ua < ub
                   : op == ND_UFUNC_LESS_EQUAL ? ua <= ub : op == ND_UFUNC_GREATER ? ua > ub : ua >= ub);
  }
  /* Signed and unsigned values as a uint64 bit pattern for wrapping arithmetic. */
  const uint64_t A = sgn ? (uint64_t)a : ua, B = sgn ? (uint64_t)b : ub;
  const int bz = sgn ? b == 0 : ub == 0;
  const int lt = sgn ? a < b : ua < ub, gt = sgn ? a > b : ua > ub;
  switch (op) {
    case ND_UFUNC_ADD: return WRAP(A + B);
    case ND_UFUNC_SUBTRACT: return WRAP(A - B);
    case ND_UFUNC_MULTIPLY: return WRAP(A * B);
    case ND_UFUNC_DIVIDE: return s_f(out, sgn ? (double)a / (double)b : (double)ua / (double)ub);
    case ND_UFUNC_FLOOR_DIVIDE:
      if (bz) return WRAP(0);
      if (!sgn) return WRAP(ua / ub);
      if (b == -1) return WRAP(0 - A);
      {
        int64_t q = a / b;
        if (a % b != 0 && ((a < 0) != (b < 0))) q--;
        return WRAP(q);
      }
    case ND_UFUNC_REMAINDER:
      if (bz) return WRAP(0);
      if (!sgn) return WRAP(ua % ub);
      if (b == -1) return WRAP(0);
      {
        int64_t r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return WRAP(r);
      }
    case ND_UFUNC_FMOD:
      if (bz) return WRAP(0);
      if (!sgn) return WRAP(ua % ub);
      return WRAP(b == -1 ? 0 : a % b);
    case ND_UFUNC_POWER: {
      if (sgn && b < 0) return WRAP(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);
      if (B == 0 || (sgn ? a == 1 : ua == 1)) return WRAP(1);
      uint64_t r = 1, base = A, e = B;
      while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
      }
      return WRAP(r);
    }
    case ND_UFUNC_NEGATIVE: return WRAP(0 - A);
    case ND_UFUNC_ABSOLUTE: return WRAP(sgn && a < 0 ? 0 - A : A);
    case ND_UFUNC_SIGN: return sgn ? s_i(dt, (a > 0) - (a < 0)) : s_u(dt, ua != 0);
    case ND_UFUNC_RECIPROCAL: {
      const nd_scalar q = {.dtype = ND_FLOAT64, .v.f = 1.0 / (sgn ? (double)a : (double)ua)};
      return nd_ref_cast(q, dt);
    }
    case ND_UFUNC_SQUARE: return WRAP(A * A);
    case ND_UFUNC_BITWISE_AND: return WRAP(A & B);
    case ND_UFUNC_BITWISE_OR: return WRAP(A | B);
    case ND_UFUNC_BITWISE_XOR: return WRAP(A ^ B);
    case ND_UFUNC_INVERT: return WRAP(~A);
    case ND_UFUNC_LEFT_SHIFT: return B < (uint64_t)w ? WRAP(A << B) : WRAP(0);
    case ND_UFUNC_RIGHT_SHIFT:
      if (B < (uint64_t)w) return sgn ? WRAP((uint64_t)(a >> b)) : WRAP(ua >> ub);
      return WRAP(sgn && a < 0 ? (uint64_t)-1 : 0);
    case ND_UFUNC_MAXIMUM:
    case ND_UFUNC_FMAX: return gt ? x[0] : x[1];
    case ND_UFUNC_MINIMUM:
    case ND_UFUNC_FMIN: return lt ? x[0] : x[1];
    case ND_UFUNC_CLIP: {
      nd_scalar lo = gt ? x[0] : x[1];
      const int lc = sgn ? lo.v.i < c : lo.v.u < uc;
      return lc ? lo : x[2];
    }
    case ND_UFUNC_LOGICAL_AND: return s_b(A != 0 && B != 0);
    case ND_UFUNC_LOGICAL_OR: return s_b(A != 0 || B != 0);
    case ND_UFUNC_LOGICAL_XOR: return s_b((A != 0) != (B != 0));
    case ND_UFUNC_LOGICAL_NOT: return s_b(A == 0);
    case ND_KOP_ROUND: {
      const double f = pow10_(p->i);
      const nd_scalar q = {.dtype = ND_FLOAT64, .v.f = rint((sgn ? (double)a : (double)ua) / f) * f};
      if (dt == ND_UINT32) /* NumPy's round casts through int64 here: 2^32 + 4 gives 4 */
        return s_u(dt, (uint64_t)(q.v.f > -9223372036854775808.0 && q.v.f < 9223372036854775808.0 ? (int64_t)q.v.f : INT64_MIN));
      return nd_ref_cast(q, dt);
    }
    default: break;
  }
  (void)imin;
  ck_abort_msg("ew_ref: no integer reference for op %d on %s", op, nd_dtype_name(dt));
  return s_b(0);
#undef WRAP
}

static nd_scalar bool_op(int op, const nd_scalar *x, nd_dtype out) {
  const int a = x[0].v.b != 0, b = x[1].v.b != 0, c = x[2].v.b != 0;
  if (is_cmp(op)) return s_b(cmp_real(op, a, b));
  switch (op) {
    case ND_UFUNC_ADD: case ND_UFUNC_LOGICAL_OR: case ND_UFUNC_BITWISE_OR:
    case ND_UFUNC_MAXIMUM: case ND_UFUNC_FMAX: return s_b(a || b);
    case ND_UFUNC_MULTIPLY: case ND_UFUNC_LOGICAL_AND: case ND_UFUNC_BITWISE_AND:
    case ND_UFUNC_MINIMUM: case ND_UFUNC_FMIN: return s_b(a && b);
    case ND_UFUNC_LOGICAL_XOR: case ND_UFUNC_BITWISE_XOR: return s_b(a != b);
    case ND_UFUNC_LOGICAL_NOT: case ND_UFUNC_INVERT: return s_b(!a);
    case ND_UFUNC_DIVIDE: return s_f(out, (double)a / (double)b);
    case ND_UFUNC_CLIP: return s_b((a || b) && c);
    default: break;
  }
  ck_abort_msg("ew_ref: no bool reference for op %d", op);
  return s_b(0);
}

nd_scalar ew_ref(const nd__ufunc_loop *L, const nd_scalar *xin, const nd_kparams *p) {
  const int op = L->kop;
  const nd_dtype out = L->out;
  nd_scalar x[3];
  for (int j = 0; j < 3; j++) x[j] = j < L->nin ? xin[j] : xin[0];
  if (op == ND_UFUNC_WHERE) return nd_ref_cast(x[0].v.b ? x[1] : x[2], out);
  if (L->key == ND_KEY_INT64_UINT64) {
    const int64_t a = x[0].v.i;
    const uint64_t b = x[1].v.u;
    if (a < 0) return s_b(op == ND_UFUNC_NOT_EQUAL || op == ND_UFUNC_LESS || op == ND_UFUNC_LESS_EQUAL);
    const uint64_t ua = (uint64_t)a;
    return s_b(op == ND_UFUNC_EQUAL ? ua == b : op == ND_UFUNC_NOT_EQUAL ? ua != b : op == ND_UFUNC_LESS ? ua < b
               : op == ND_UFUNC_LESS_EQUAL ? ua <= b : op == ND_UFUNC_GREATER ? ua > b : ua >= b);
  }
  const nd_dtype k = (nd_dtype)L->key;
  int isb = 0, bres = 0;
  double r;
  switch (nd_dtype_kind(k)) {
    case ND_KIND_BOOL: return bool_op(op, x, out);
    case ND_KIND_INT:
    case ND_KIND_UINT: return int_op(op, k, out, x, p);
    case ND_KIND_FLOAT:
      if (k == ND_FLOAT16) {
        const float a = (float)x[0].v.f, b = (float)x[1].v.f, c = (float)x[2].v.f;
        if (!half_special(op, a, b, p, &r, &isb, &bres)) {
          r = real_f(op, a, b, c, p, &isb, &bres);
          r = hr((float)r);
        }
      } else if (k == ND_FLOAT32) {
        r = real_f(op, (float)x[0].v.f, (float)x[1].v.f, (float)x[2].v.f, p, &isb, &bres);
      } else {
        r = real_d(op, x[0].v.f, x[1].v.f, x[2].v.f, p, &isb, &bres);
      }
      return isb ? s_b(bres) : s_f(out, r);
    default: {
      double res[2];
      if (k == ND_COMPLEX64) {
        float a[2] = {(float)x[0].v.c[0], (float)x[0].v.c[1]}, b[2] = {(float)x[1].v.c[0], (float)x[1].v.c[1]};
        float c[2] = {(float)x[2].v.c[0], (float)x[2].v.c[1]}, rf[2] = {0, 0};
        isb = cplx_f(op, a, b, c, p, rf, &bres);
        res[0] = rf[0];
        res[1] = rf[1];
      } else {
        isb = cplx_d(op, x[0].v.c, x[1].v.c, x[2].v.c, p, res, &bres);
      }
      if (isb) return s_b(bres);
      if (nd_dtype_kind(out) == ND_KIND_FLOAT) return s_f(out, res[0]);
      return s_c(out, res[0], res[1]);
    }
  }
}

/* ---- tolerances ---------------------------------------------------------------------------- */

int ew_ref_ulps(int kop, int key) {
  if (key < ND_FLOAT16 || key > ND_COMPLEX128) return 0;
  const int cplx = key >= ND_COMPLEX64;
  switch (kop) {
    case ND_UFUNC_CBRT: case ND_UFUNC_EXP: case ND_UFUNC_EXP2: case ND_UFUNC_EXPM1:
    case ND_UFUNC_LOG: case ND_UFUNC_LOG2: case ND_UFUNC_LOG10: case ND_UFUNC_LOG1P:
    case ND_UFUNC_SIN: case ND_UFUNC_COS: case ND_UFUNC_TAN: case ND_UFUNC_ARCSIN:
    case ND_UFUNC_ARCCOS: case ND_UFUNC_ARCTAN: case ND_UFUNC_ARCTAN2: case ND_UFUNC_SINH:
    case ND_UFUNC_COSH: case ND_UFUNC_TANH: case ND_UFUNC_ARCSINH: case ND_UFUNC_ARCCOSH:
    case ND_UFUNC_ARCTANH: case ND_UFUNC_HYPOT: case ND_UFUNC_ANGLE:
    case ND_UFUNC_LOGADDEXP: case ND_UFUNC_LOGADDEXP2: case ND_UFUNC_POWER:
      if (cplx) return kop == ND_UFUNC_POWER ? 256 : 64;
      return key == ND_FLOAT16 ? 1 : kop == ND_UFUNC_POWER || kop == ND_UFUNC_LOGADDEXP || kop == ND_UFUNC_LOGADDEXP2 ? 8 : 4;
    case ND_UFUNC_SQRT: case ND_UFUNC_ABSOLUTE: case ND_UFUNC_SIGN:
      return cplx ? 8 : 0; /* real sqrt is correctly rounded on both sides */
    default: return 0;
  }
}

static int64_t ordered32(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static int64_t ordered64(double d) {
  int64_t i;
  memcpy(&i, &d, 8);
  return i < 0 ? INT64_MIN - i : i;
}
static int64_t ordered16(double d) {
  const int16_t i = (int16_t)nd_ref_double_to_half(d);
  return i < 0 ? (int64_t)INT16_MIN - i : i;
}

static int close_real(nd_dtype dt, double g, double w, int ulps, char *why, size_t cap) {
  if (isnan(g) || isnan(w)) {
    if (isnan(g) && isnan(w)) return 1;
    snprintf(why, cap, "got %.9g, want %.9g", g, w);
    return 0;
  }
  if (isinf(g) || isinf(w)) {
    if (g == w) return 1;
    snprintf(why, cap, "got %.9g, want %.9g", g, w);
    return 0;
  }
  const int64_t d = dt == ND_FLOAT16 ? ordered16(g) - ordered16(w)
                    : dt == ND_FLOAT32 ? ordered32((float)g) - ordered32((float)w)
                                       : ordered64(g) - ordered64(w);
  const int64_t ad = d < 0 ? -d : d;
  if (ad <= ulps) return 1;
  snprintf(why, cap, "got %.17g, want %.17g: %lld ulp apart (bound %d)", g, w, (long long)ad, ulps);
  return 0;
}

int ew_ref_close(nd_scalar got, nd_scalar want, int ulps, char *why, size_t cap) {
  if (got.dtype != want.dtype) {
    snprintf(why, cap, "dtype %s, want %s", nd_dtype_name(got.dtype), nd_dtype_name(want.dtype));
    return 0;
  }
  const char kind = nd_dtype_kind(want.dtype);
  if (ulps == 0 || (kind != ND_KIND_FLOAT && kind != ND_KIND_COMPLEX)) {
    unsigned char g[16], w[16];
    nd_ref_store(want.dtype, g, got);
    nd_ref_store(want.dtype, w, want);
    if (nd_ref_same(want.dtype, g, w)) return 1;
    char a[96], b[96];
    snprintf(why, cap, "got %s, want %s (exact)", nd_ref_format(want.dtype, g, a, sizeof a),
             nd_ref_format(want.dtype, w, b, sizeof b));
    return 0;
  }
  if (kind == ND_KIND_FLOAT) return close_real(want.dtype, got.v.f, want.v.f, ulps, why, cap);
  const int single = want.dtype == ND_COMPLEX64;
  const double eps = single ? FLT_EPSILON : DBL_EPSILON, tiny = single ? FLT_MIN : DBL_MIN;
  const double mag = hypot(want.v.c[0], want.v.c[1]);
  for (int k = 0; k < 2; k++) {
    const double g = got.v.c[k], w = want.v.c[k];
    if (isnan(g) || isnan(w) || isinf(g) || isinf(w) || isinf(mag)) {
      if ((isnan(g) && isnan(w)) || g == w) continue;
      snprintf(why, cap, "component %d: got %.9g, want %.9g", k, g, w);
      return 0;
    }
    if (fabs(g - w) > ulps * eps * (isnan(mag) ? fabs(w) : mag) + tiny) {
      snprintf(why, cap, "component %d: got %.17g, want %.17g (|want| %.3g, bound %d eps)", k, g, w, mag, ulps);
      return 0;
    }
  }
  return 1;
}
