/* Real floating-point math instances (float16 via float32, float32, float64): roots,
 * exponentials, logarithms, trigonometric and hyperbolic functions, logaddexp, arctan2,
 * hypot, deg2rad/rad2deg, copysign, nextafter.
 *
 * The functions are CUDA's libdevice ones (float: at most 1-4 ulp depending on the function,
 * double: at most 1-3 ulp; CUDA Math API documentation). logaddexp and logaddexp2 follow
 * NumPy's npy_logaddexp formulas. copysign and nextafter on float16 work on the half bits
 * (as NumPy's npy_half_copysign / npy_half_nextafter), not through float. */
#include "elementwise/elementwise.cuh"

namespace ndk {
namespace {

/* Unary functor T -> T from a math overload. */
#define ND_K_UNARY(name, expr, heavy)                                        \
  template <class T>                                                         \
  struct name : base<T, T, 1, heavy> {                                       \
    using base<T, T, 1, heavy>::base;                                        \
    __device__ __forceinline__ T operator()(T x) const { return expr; }      \
  };

ND_K_UNARY(op_sqrt, m_sqrt(x), 0)
ND_K_UNARY(op_cbrt, m_cbrt(x), 1)
ND_K_UNARY(op_exp, m_exp(x), 0)
ND_K_UNARY(op_exp2, m_exp2(x), 0)
ND_K_UNARY(op_expm1, m_expm1(x), 1)
ND_K_UNARY(op_log, m_log(x), 0)
ND_K_UNARY(op_log2, m_log2(x), 0)
ND_K_UNARY(op_log10, m_log10(x), 1)
ND_K_UNARY(op_log1p, m_log1p(x), 1)
ND_K_UNARY(op_sin, m_sin(x), 0)
ND_K_UNARY(op_cos, m_cos(x), 0)
ND_K_UNARY(op_tan, m_tan(x), 1)
ND_K_UNARY(op_asin, m_asin(x), 1)
ND_K_UNARY(op_acos, m_acos(x), 1)
ND_K_UNARY(op_atan, m_atan(x), 1)
ND_K_UNARY(op_sinh, m_sinh(x), 1)
ND_K_UNARY(op_cosh, m_cosh(x), 1)
ND_K_UNARY(op_tanh, m_tanh(x), 1)
ND_K_UNARY(op_asinh, m_asinh(x), 1)
ND_K_UNARY(op_acosh, m_acosh(x), 1)
ND_K_UNARY(op_atanh, m_atanh(x), 1)
/* NumPy: x * (pi / 180) with the constant computed in the type itself (for float32,
 * 180.0f / NPY_PIf = 57.295776f, not the rounded double quotient 57.29578f). */
ND_K_UNARY(op_deg2rad, x * ((T)3.141592653589793238462643383279502884 / (T)180), 0)
ND_K_UNARY(op_rad2deg, x * ((T)180 / (T)3.141592653589793238462643383279502884), 0)
#undef ND_K_UNARY

#define ND_K_BINARY(name, expr, heavy)                                          \
  template <class T>                                                            \
  struct name : base<T, T, 2, heavy> {                                          \
    using base<T, T, 2, heavy>::base;                                           \
    __device__ __forceinline__ T operator()(T x, T y) const { return expr; }    \
  };

ND_K_BINARY(op_atan2, m_atan2(x, y), 1)
ND_K_BINARY(op_hypot, m_hypot(x, y), 1)
#undef ND_K_BINARY

template <class T>
struct op_logaddexp : base<T, T, 2, 1> {
  using base<T, T, 2, 1>::base;
  __device__ __forceinline__ T operator()(T x, T y) const {
    if (x == y) return x + (T)0.693147180559945309417232121458176568; /* ln 2; also inf+inf */
    const T tmp = x - y;
    if (tmp > 0) return x + m_log1p(m_exp(-tmp));
    if (tmp <= 0) return y + m_log1p(m_exp(tmp));
    return tmp; /* NaN */
  }
};

template <class T>
struct op_logaddexp2 : base<T, T, 2, 1> {
  using base<T, T, 2, 1>::base;
  __device__ __forceinline__ T operator()(T x, T y) const {
    const T log2e = (T)1.442695040888963407359924681001892137;
    if (x == y) return x + (T)1;
    const T tmp = x - y;
    if (tmp > 0) return x + log2e * m_log1p(m_exp2(-tmp));
    if (tmp <= 0) return y + log2e * m_log1p(m_exp2(tmp));
    return tmp;
  }
};

__device__ __forceinline__ unsigned short hbits(__half h) { return __half_as_ushort(h); }
__device__ __forceinline__ __half hfrom(unsigned short b) { return __ushort_as_half(b); }

template <class T>
struct op_copysign : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (std::is_same<T, __half>::value)
      return hfrom((unsigned short)((hbits(x) & 0x7fffu) | (hbits(y) & 0x8000u)));
    else
      return m_copysign(x, y);
  }
};

template <class T>
struct op_nextafter : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (std::is_same<T, __half>::value) {
      const unsigned short a = hbits(x), b = hbits(y);
      const bool xnan = (a & 0x7c00u) == 0x7c00u && (a & 0x03ffu);
      const bool ynan = (b & 0x7c00u) == 0x7c00u && (b & 0x03ffu);
      if (xnan || ynan) return hfrom(0x7e00u);
      if (a == b || ((a | b) & 0x7fffu) == 0) return x; /* equal, including +0 == -0 */
      if ((a & 0x7fffu) == 0) return hfrom((unsigned short)((b & 0x8000u) + 1));
      if (!(a & 0x8000u)) /* x > 0 */
        return hfrom((unsigned short)((int16_t)a > (int16_t)b ? a - 1 : a + 1));
      return hfrom((unsigned short)((!(b & 0x8000u) || (a & 0x7fffu) > (b & 0x7fffu)) ? a - 1 : a + 1));
    } else {
      return m_nextafter(x, y);
    }
  }
};

}  // namespace

template <> struct native_half<op_copysign> { enum { v = 1 }; };
template <> struct native_half<op_nextafter> { enum { v = 1 }; };

void fill_math(table_t &t) {
  reg_floats<op_sqrt>(t, ND_UFUNC_SQRT);
  reg_floats<op_cbrt>(t, ND_UFUNC_CBRT);
  reg_floats<op_exp>(t, ND_UFUNC_EXP);
  reg_floats<op_exp2>(t, ND_UFUNC_EXP2);
  reg_floats<op_expm1>(t, ND_UFUNC_EXPM1);
  reg_floats<op_log>(t, ND_UFUNC_LOG);
  reg_floats<op_log2>(t, ND_UFUNC_LOG2);
  reg_floats<op_log10>(t, ND_UFUNC_LOG10);
  reg_floats<op_log1p>(t, ND_UFUNC_LOG1P);
  reg_floats<op_logaddexp>(t, ND_UFUNC_LOGADDEXP);
  reg_floats<op_logaddexp2>(t, ND_UFUNC_LOGADDEXP2);
  reg_floats<op_sin>(t, ND_UFUNC_SIN);
  reg_floats<op_cos>(t, ND_UFUNC_COS);
  reg_floats<op_tan>(t, ND_UFUNC_TAN);
  reg_floats<op_asin>(t, ND_UFUNC_ARCSIN);
  reg_floats<op_acos>(t, ND_UFUNC_ARCCOS);
  reg_floats<op_atan>(t, ND_UFUNC_ARCTAN);
  reg_floats<op_atan2>(t, ND_UFUNC_ARCTAN2);
  reg_floats<op_sinh>(t, ND_UFUNC_SINH);
  reg_floats<op_cosh>(t, ND_UFUNC_COSH);
  reg_floats<op_tanh>(t, ND_UFUNC_TANH);
  reg_floats<op_asinh>(t, ND_UFUNC_ARCSINH);
  reg_floats<op_acosh>(t, ND_UFUNC_ARCCOSH);
  reg_floats<op_atanh>(t, ND_UFUNC_ARCTANH);
  reg_floats<op_hypot>(t, ND_UFUNC_HYPOT);
  reg_floats<op_deg2rad>(t, ND_UFUNC_DEG2RAD);
  reg_floats<op_rad2deg>(t, ND_UFUNC_RAD2DEG);
  reg_floats<op_copysign>(t, ND_UFUNC_COPYSIGN);
  reg_floats<op_nextafter>(t, ND_UFUNC_NEXTAFTER);
}

}  // namespace ndk
