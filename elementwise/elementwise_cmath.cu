/* Complex math instances (complex64, complex128): sqrt, exp, exp2, expm1, log, log2, log10,
 * log1p, the trigonometric and hyperbolic functions and their inverses, and power.
 *
 * Branch cuts and signed zeros follow C99 Annex G: sqrt, log and the inverse functions take
 * the sign of a zero imaginary part to pick the side of the cut (sqrt(-1-0j) = -1j). The
 * inverse trigonometric functions use Kahan's formulas ("Branch cuts for complex elementary
 * functions", 1987), which are exact about the cuts given a correct sqrt; beyond |z| = 1/eps
 * asin, asinh and acosh are log(2z) by quadrant. exp2, expm1,
 * log1p, log2, log10 and power are NumPy's own formulas (numpy/_core/src/umath/funcs.inc.src
 * and npy_math_complex.c), not C99's, so that results match NumPy's; expm1 at infinite and
 * NaN arguments is exp - 1 with C99's exp values instead (cspecial.cuh), the array API's
 * special cases, where NumPy's formula gives NaN parts. Accuracy is that of
 * the formulas: a few ulp away from the cuts and from zeros of the result. sqrt, log, sinh,
 * cosh (so sin and cos), atanh (so atan) scale their arguments at the ends of the range as
 * the C library does (cspecial.cuh). At infinite and NaN arguments
 * the trigonometric and hyperbolic functions and their inverses give the C library's values
 * (kernels/cspecial.cuh), which NumPy returns. */
#include "elementwise/elementwise.cuh"

namespace ndk {
namespace {

template <class F> __device__ __forceinline__ bool sgn(F x) { return signbit(x); }
/* A value of cspecial.cuh as the kernels' complex type. */
template <class F> __device__ __forceinline__ cplx<F> from_cs(cs::val<F> v) { return mk<F>(v.re, v.im); }

template <class F>
__device__ cplx<F> c_sqrt(cplx<F> z) {
  F a = z.re, b = z.im;
  if (a == 0 && b == 0) return mk<F>(0, b);
  if (isinf_(b)) return mk<F>((F)INFINITY, b);
  if (isnan_(a)) {
    const F t = (b - b) / (b - b);
    return mk<F>(a, t);
  }
  if (isinf_(a)) {
    if (sgn(a)) return mk<F>(m_fabs(b - b), m_copysign(a, b));
    return mk<F>(a, m_copysign(b - b, b));
  }
  /* Huge parts scaled down, tiny ones up (cspecial.cuh). */
  return from_cs(cs::sqrt_fin(a, b));
}

template <class F>
__device__ cplx<F> c_exp(cplx<F> z) {
  const F x = z.re, y = z.im;
  if (y == 0) return mk<F>(m_exp(x), y);
  if (x == 0) return mk<F>(m_cos(y), m_sin(y));
  if (!finite_(y)) {
    if (isinf_(x)) return x < 0 ? mk<F>(0, 0) : mk<F>(x, y - y);
    return mk<F>(y - y, y - y);
  }
  F s, c;
  s = m_sin(y);
  c = m_cos(y);
  /* exp(x) overflows before exp(x) * cos(y) does: split the factor in two halves. */
  const F lim = sizeof(F) == 4 ? (F)88.5 : (F)709.0;
  if (x > lim) {
    const F e = m_exp(x * (F)0.5);
    return mk<F>(c * e * e, s * e * e);
  }
  const F e = m_exp(x);
  return mk<F>(e * c, e * s);
}

/* log|z| + i arg z; near |z| = 1 through log1p so that the real part keeps its precision. */
template <class F>
__device__ cplx<F> c_log(cplx<F> z) {
  /* scaled where |z| would overflow or underflow (cspecial.cuh) */
  return mk<F>(cs::log_abs(z.re, z.im), m_atan2(z.im, z.re));
}

/* sinh, cosh, tanh, asin, acos, acosh, atanh below take finite arguments only: the others
 * are cspecial.cuh's (ND_K_NONFINITE). */
template <class F>
__device__ cplx<F> c_sinh(cplx<F> z) {
  const F x = z.re, y = z.im;
  if (y == 0) return mk<F>(m_sinh(x), y);
  if (x == 0) return mk<F>(mul_rn(x, m_cos(y)), m_sin(y));
  return from_cs(cs::sinhcosh_fin(x, y, false)); /* exp|x| in pieces where it overflows */
}

template <class F>
__device__ cplx<F> c_cosh(cplx<F> z) {
  const F x = z.re, y = z.im;
  if (y == 0) return mk<F>(m_cosh(x), m_copysign((F)0, x) * y);
  if (x == 0) return mk<F>(m_cos(y), mul_rn(x, m_sin(y)));
  return from_cs(cs::sinhcosh_fin(x, y, true));
}

/* FreeBSD's ctanh (Kahan's formula), which avoids overflow of sinh and cosh. */
template <class F>
__device__ cplx<F> c_tanh(cplx<F> z) {
  const F x = z.re, y = z.im;
  const F big = sizeof(F) == 4 ? (F)9 : (F)22;
  if (m_fabs(x) >= big) {
    const F e = m_exp(-m_fabs(x));
    return mk<F>(m_copysign((F)1, x), 4 * m_sin(y) * m_cos(y) * e * e);
  }
  const F t = m_tan(y);
  const F beta = 1 + t * t;
  const F s = m_sinh(x);
  const F rho = m_sqrt(1 + s * s);
  const F denom = 1 + beta * s * s;
  return mk<F>((beta * rho * s) / denom, t / denom);
}

/* i z and -i z. */
template <class F> __device__ __forceinline__ cplx<F> times_i(cplx<F> z) { return mk<F>(-z.im, z.re); }
template <class F> __device__ __forceinline__ cplx<F> times_mi(cplx<F> z) { return mk<F>(z.im, -z.re); }

/* Kahan: asin z = atan2(x, Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z))). */
template <class F>
__device__ cplx<F> c_asin(cplx<F> z) {
  const cplx<F> s1 = c_sqrt(mk<F>(1 - z.re, -z.im));
  const cplx<F> s2 = c_sqrt(mk<F>(1 + z.re, z.im));
  return mk<F>(m_atan2(z.re, mul_rn(s1.re, s2.re) - mul_rn(s1.im, s2.im)),
               m_asinh(mul_rn(s1.re, s2.im) - mul_rn(s1.im, s2.re)));
}

template <class F>
__device__ cplx<F> c_acos(cplx<F> z) {
  const cplx<F> s1 = c_sqrt(mk<F>(1 - z.re, -z.im));
  const cplx<F> s2 = c_sqrt(mk<F>(1 + z.re, z.im));
  return mk<F>(2 * m_atan2(s1.re, s2.re), m_asinh(mul_rn(s2.re, s1.im) - mul_rn(s2.im, s1.re)));
}

template <class F>
__device__ cplx<F> c_acosh(cplx<F> z) {
  const cplx<F> s1 = c_sqrt(mk<F>(z.re - 1, z.im));
  const cplx<F> s2 = c_sqrt(mk<F>(z.re + 1, z.im));
  return mk<F>(m_asinh(mul_rn(s1.re, s2.re) + mul_rn(s1.im, s2.im)), 2 * m_atan2(s1.im, s2.re));
}

/* atanh z = 1/4 log(|1+z|^2 / |1-z|^2) + i/2 atan2(2y, 1 - |z|^2), as glibc's catanh
 * computes it (cspecial.cuh): 1 - |z|^2 without cancellation, limits for huge |z|. */
template <class F>
__device__ cplx<F> c_atanh(cplx<F> z) {
  return from_cs(cs::atanh_fin(z.re, z.im));
}

/* The value at an infinite or NaN argument (cspecial.cuh), as NumPy's (the C library's). */
#define ND_K_NONFINITE(f) \
  if (!finite_(z.re) || !finite_(z.im)) return from_cs(cs::f(z.re, z.im));

/* One functor per function: op<T> with T a complex storage type. */
#define ND_K_COMPLEX(name, body, heavy)                                       \
  template <class T>                                                          \
  struct name : base<T, T, 1, heavy> {                                        \
    using base<T, T, 1, heavy>::base;                                         \
    typedef decltype(T().re) F;                                               \
    __device__ __forceinline__ T operator()(T z) const { body }               \
  };

ND_K_COMPLEX(cop_sqrt, return c_sqrt(z);, 1)
ND_K_COMPLEX(cop_exp, return c_exp(z);, 1)
ND_K_COMPLEX(cop_exp2, {
  const F ln2 = (F)0.693147180559945309417232121458176568;
  return c_exp(mk<F>(z.re * ln2, z.im * ln2));
}, 1)
ND_K_COMPLEX(cop_expm1, {
  ND_K_NONFINITE(expm1)
  const F a = m_sin(z.im / 2);
  return mk<F>(mul_rn(m_expm1(z.re), m_cos(z.im)) - mul_rn(2 * a, a), mul_rn(m_exp(z.re), m_sin(z.im)));
}, 1)
ND_K_COMPLEX(cop_log, return c_log(z);, 1)
ND_K_COMPLEX(cop_log2, {
  const cplx<F> l = c_log(z);
  const F k = (F)1.442695040888963407359924681001892137;
  return mk<F>(l.re * k, l.im * k);
}, 1)
ND_K_COMPLEX(cop_log10, {
  const cplx<F> l = c_log(z);
  const F k = (F)0.434294481903251827651128918916605082;
  return mk<F>(l.re * k, l.im * k);
}, 1)
ND_K_COMPLEX(cop_log1p, {
  const F l = m_hypot(z.re + 1, z.im);
  return mk<F>(m_log(l), m_atan2(z.im, z.re + 1));
}, 1)
ND_K_COMPLEX(cop_sin, ND_K_NONFINITE(sin) return times_mi(c_sinh(times_i(z)));, 1)
ND_K_COMPLEX(cop_cos, ND_K_NONFINITE(cos) return c_cosh(times_i(z));, 1)
ND_K_COMPLEX(cop_tan, ND_K_NONFINITE(tan) return times_mi(c_tanh(times_i(z)));, 1)
ND_K_COMPLEX(cop_asin, ND_K_NONFINITE(asin) if (cs::big_arg(z.re, z.im)) {
  const cs::val<F> t = cs::asinh_big(z.im, z.re); /* asin z = swap(asinh(swap z)) */
  return mk<F>(t.im, t.re);
} return c_asin(z);, 1)
ND_K_COMPLEX(cop_acos, ND_K_NONFINITE(acos) return c_acos(z);, 1)
ND_K_COMPLEX(cop_atan, ND_K_NONFINITE(atan) return times_mi(c_atanh(times_i(z)));, 1)
ND_K_COMPLEX(cop_sinh, ND_K_NONFINITE(sinh) return c_sinh(z);, 1)
ND_K_COMPLEX(cop_cosh, ND_K_NONFINITE(cosh) return c_cosh(z);, 1)
ND_K_COMPLEX(cop_tanh, ND_K_NONFINITE(tanh) return c_tanh(z);, 1)
ND_K_COMPLEX(cop_asinh, ND_K_NONFINITE(asinh) if (cs::big_arg(z.re, z.im)) return from_cs(cs::asinh_big(z.re, z.im));
             return times_mi(c_asin(times_i(z)));, 1)
ND_K_COMPLEX(cop_acosh, ND_K_NONFINITE(acosh) if (cs::big_arg(z.re, z.im)) return from_cs(cs::acosh_big(z.re, z.im));
             return c_acosh(z);, 1)
ND_K_COMPLEX(cop_atanh, ND_K_NONFINITE(atanh) return c_atanh(z);, 1)
#undef ND_K_COMPLEX
#undef ND_K_NONFINITE

/* NumPy's npy_cpow: exact small integer powers by repeated multiplication, else the C
 * library's cpow, exp(b log a). */
template <class T>
struct cop_power : base<T, T, 2, 1> {
  using base<T, T, 2, 1>::base;
  typedef decltype(T().re) F;
  __device__ __forceinline__ T operator()(T a, T b) const {
    const F nan = (F)NAN;
    if (b.re == 0 && b.im == 0) return mk<F>(1, 0);
    if (a.re == 0 && a.im == 0) return b.re > 0 ? mk<F>(0, 0) : mk<F>(nan, nan);
    if (b.im == 0 && b.re >= (F)-100 && b.re <= (F)100 && b.re == m_trunc(b.re)) {
      long n = (long)b.re;
      if (n == 1) return a;
      if (n == 2) return cmul(a, a);
      if (n == 3) return cmul(a, cmul(a, a));
      if (n > -100 && n < 100) {
        cplx<F> aa = mk<F>(1, 0), p = a;
        long m = n < 0 ? -n : n, mask = 1;
        for (;;) {
          if (m & mask) aa = cmul(aa, p);
          mask <<= 1;
          if (m < mask || mask <= 0) break;
          p = cmul(p, p);
        }
        return n < 0 ? cdiv(mk<F>(1, 0), aa) : aa;
      }
    }
    /* b log a with C99's product (infinities recovered), as the C library's cpow */
    const cplx<F> l = c_log(a);
    return c_exp(from_cs(cs::mul(b.re, b.im, l.re, l.im)));
  }
};

}  // namespace

void fill_cmath(table_t &t) {
  reg_complex<cop_sqrt>(t, ND_UFUNC_SQRT);
  reg_complex<cop_exp>(t, ND_UFUNC_EXP);
  reg_complex<cop_exp2>(t, ND_UFUNC_EXP2);
  reg_complex<cop_expm1>(t, ND_UFUNC_EXPM1);
  reg_complex<cop_log>(t, ND_UFUNC_LOG);
  reg_complex<cop_log2>(t, ND_UFUNC_LOG2);
  reg_complex<cop_log10>(t, ND_UFUNC_LOG10);
  reg_complex<cop_log1p>(t, ND_UFUNC_LOG1P);
  reg_complex<cop_sin>(t, ND_UFUNC_SIN);
  reg_complex<cop_cos>(t, ND_UFUNC_COS);
  reg_complex<cop_tan>(t, ND_UFUNC_TAN);
  reg_complex<cop_asin>(t, ND_UFUNC_ARCSIN);
  reg_complex<cop_acos>(t, ND_UFUNC_ARCCOS);
  reg_complex<cop_atan>(t, ND_UFUNC_ARCTAN);
  reg_complex<cop_sinh>(t, ND_UFUNC_SINH);
  reg_complex<cop_cosh>(t, ND_UFUNC_COSH);
  reg_complex<cop_tanh>(t, ND_UFUNC_TANH);
  reg_complex<cop_asinh>(t, ND_UFUNC_ARCSINH);
  reg_complex<cop_acosh>(t, ND_UFUNC_ARCCOSH);
  reg_complex<cop_atanh>(t, ND_UFUNC_ARCTANH);
  reg_complex<cop_power>(t, ND_UFUNC_POWER);
}

}  // namespace ndk
