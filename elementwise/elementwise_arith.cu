/* Arithmetic instances: add, subtract, multiply, divide, floor_divide, remainder, fmod,
 * power (real), negative, absolute, sign, reciprocal, square, conjugate.
 *
 * Integer arithmetic wraps (computed in an unsigned type of at least 32 bits, so there is no
 * undefined behaviour); integer division, floor_divide, remainder and fmod by zero give 0 and
 * MIN // -1 gives MIN, as NumPy. Floating floor_divide and remainder follow NumPy's
 * npy_divmod exactly (fmod, then the Python sign convention, then snapping the quotient). */
#include "kernels/convert.cuh"
#include "elementwise/elementwise.cuh"

namespace ndk {
namespace {

template <class T>
struct wide {
  typedef typename std::conditional<(sizeof(T) <= 4), uint32_t, uint64_t>::type type;
};
template <class T> __device__ __forceinline__ typename wide<T>::type w(T x) {
  return (typename wide<T>::type)x;
}

template <class T> constexpr bool is_bool() { return std::is_same<T, bool>::value; }
template <class T> constexpr bool is_signed_int() {
  return is_int<T>::v && std::is_signed<T>::value;
}
template <class T> __device__ __forceinline__ T tmin() {
  return (T)((typename uns<T>::type)1 << (sizeof(T) * 8 - 1));
}

template <class T>
struct op_add : base<T, T, 2, 0, 1> {
  using base<T, T, 2, 0, 1>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_bool<T>()) return a || b;
    else if constexpr (is_int<T>::v) return (T)(w(a) + w(b));
    else if constexpr (is_cplx<T>::v) return mk(a.re + b.re, a.im + b.im);
    else return a + b;
  }
};

template <class T>
struct op_sub : base<T, T, 2, 0, 1> {
  using base<T, T, 2, 0, 1>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_int<T>::v) return (T)(w(a) - w(b));
    else if constexpr (is_cplx<T>::v) return mk(a.re - b.re, a.im - b.im);
    else return a - b;
  }
};

template <class T>
struct op_mul : base<T, T, 2, 0, 1> {
  using base<T, T, 2, 0, 1>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_bool<T>()) return a && b;
    else if constexpr (is_int<T>::v) return (T)(w(a) * w(b));
    else if constexpr (is_cplx<T>::v) return cmul_fused(a, b);
    else return a * b;
  }
};

/* True division: bool and integers divide in double. */
template <class T> struct div_out { typedef typename std::conditional<(is_int<T>::v || std::is_same<T, bool>::value), double, T>::type type; };

template <class T>
struct op_div : base<typename div_out<T>::type, T, 2, 0, 1> {
  using base<typename div_out<T>::type, T, 2, 0, 1>::base;
  __device__ __forceinline__ typename div_out<T>::type operator()(T a, T b) const {
    if constexpr (is_cplx<T>::v) return cdiv(a, b);
    else if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) return a / b;
    else return (double)a / (double)b;
  }
};

/* NumPy's npy_divmod for floats: returns the floor quotient, writes the modulus. */
template <class F>
__device__ __forceinline__ F divmod(F a, F b, F *modulus) {
  F mod = m_fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return a / b;
  }
  F div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= (F)1;
    }
  } else {
    mod = m_copysign((F)0, b);
  }
  F floordiv;
  if (div != 0) {
    floordiv = m_floor(div);
    if (div - floordiv > (F)0.5) floordiv += (F)1;
  } else {
    floordiv = m_copysign((F)0, a / b);
  }
  *modulus = mod;
  return floordiv;
}

template <class T>
struct op_floor_divide : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_int<T>::v) {
      if (b == 0) return 0;
      if constexpr (is_signed_int<T>()) {
        if (b == -1) return (T)(0 - w(a));
        T q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
        return q;
      } else {
        return a / b;
      }
    } else {
      if (b == 0) return a / b;
      T mod;
      return divmod(a, b, &mod);
    }
  }
};

template <class T>
struct op_remainder : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_int<T>::v) {
      if (b == 0) return 0;
      if constexpr (is_signed_int<T>()) {
        if (b == -1) return 0;
        T r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      } else {
        return a % b;
      }
    } else {
      if (b == 0) return m_fmod(a, b);
      T mod;
      divmod(a, b, &mod);
      return mod;
    }
  }
};

template <class T>
struct op_fmod : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_int<T>::v) {
      if (b == 0) return 0;
      if constexpr (is_signed_int<T>()) {
        if (b == -1) return 0;
      }
      return a % b;
    } else {
      return m_fmod(a, b);
    }
  }
};

/* floor_divide, remainder and fmod share one instance per dtype (params.op picks). */
template <class T>
struct op_divfam : base<T, T, 2> {
  int which;
  op_floor_divide<T> f0;
  op_remainder<T> f1;
  op_fmod<T> f2;
  __device__ __forceinline__ explicit op_divfam(const nd_kparams &p)
      : base<T, T, 2>(p), which(p.op - ND_UFUNC_FLOOR_DIVIDE), f0(p), f1(p), f2(p) {}
  __device__ __forceinline__ T operator()(T a, T b) const {
    return which == 0 ? f0(a, b) : which == 1 ? f1(a, b) : f2(a, b);
  }
};

/* Integer power by squaring with wrapping products. A negative exponent (only reachable with
 * an array exponent; scalars are rejected on the host) gives the truncated true power. */
template <class T>
struct op_power : base<T, T, 2> {
  using base<T, T, 2>::base;
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (is_int<T>::v) {
      if constexpr (is_signed_int<T>()) {
        if (b < 0) {
          if (a == 1) return 1;
          if (a == -1) return (b & 1) ? (T)-1 : (T)1;
          return 0;
        }
      }
      if (b == 0 || a == 1) return 1;
      typename wide<T>::type base_ = w(a), r = (b & 1) ? w(a) : 1;
      b = (T)(b >> 1);
      while (b > 0) {
        base_ = base_ * base_;
        if (b & 1) r = r * base_;
        b = (T)(b >> 1);
      }
      return (T)r;
    } else {
      return m_pow(a, b);
    }
  }
};

template <class T>
struct op_negative : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const {
    if constexpr (is_int<T>::v) return (T)(0 - w(a));
    else if constexpr (is_cplx<T>::v) return mk(-a.re, -a.im);
    else return -a;
  }
};

template <class T> struct real_of { typedef T type; };
template <class F> struct real_of<cplx<F> > { typedef F type; };

template <class T>
struct op_absolute : base<typename real_of<T>::type, T, 1> {
  using base<typename real_of<T>::type, T, 1>::base;
  __device__ __forceinline__ typename real_of<T>::type operator()(T a) const {
    if constexpr (is_cplx<T>::v) return m_hypot(a.re, a.im);
    else if constexpr (is_int<T>::v) return a < 0 ? (T)(0 - w(a)) : a;
    else return m_fabs(a);
  }
};

template <class T>
struct op_sign : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const {
    if constexpr (is_int<T>::v && !std::is_signed<T>::value) {
      return (T)(a != 0);
    } else if constexpr (is_int<T>::v) {
      return (T)((a > 0) - (a < 0));
    } else if constexpr (is_cplx<T>::v) {
      typedef decltype(a.re) F;
      const F nan = (F)NAN;
      /* NumPy: z / |z|, where |z| = hypot is infinite for an infinite part even beside a NaN */
      if (isinf_(a.re)) return isinf_(a.im) ? mk(nan, nan) : mk<F>(a.re > 0 ? 1 : -1, 0);
      if (isinf_(a.im)) return mk<F>(0, a.im > 0 ? 1 : -1);
      if (isnan_(a.re) || isnan_(a.im)) return mk(nan, nan);
      if (a.re == 0 && a.im == 0) return mk<F>(0, 0);
      const F h = m_hypot(a.re, a.im);
      return mk(a.re / h, a.im / h);
    } else {
      return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;
    }
  }
};

/* NumPy computes integer reciprocal as 1.0 / x converted back with the usual (x86) cast, so
 * 1/0 is the "integer indefinite" value truncated to the width. */
template <class T>
struct op_reciprocal : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const {
    if constexpr (is_int<T>::v) {
      const double x = 1.0 / (double)a;
      if constexpr (sizeof(T) < 4) return (T)nd_cvt32(x);
      else if constexpr (sizeof(T) == 4) return std::is_signed<T>::value ? (T)nd_cvt32(x) : (T)nd_cvtu32(x);
      else return std::is_signed<T>::value ? (T)nd_cvt64(x) : (T)nd_cvtu64(x);
    } else if constexpr (is_cplx<T>::v) {
      typedef decltype(a.re) F;
      if (m_fabs(a.im) <= m_fabs(a.re)) {
        const F r = a.im / a.re, d = a.re + mul_rn(a.im, r);
        return mk<F>((F)1 / d, -r / d);
      }
      const F r = a.re / a.im, d = mul_rn(a.re, r) + a.im;
      return mk<F>(r / d, (F)-1 / d);
    } else {
      return (T)1 / a;
    }
  }
};

template <class T>
struct op_square : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const {
    if constexpr (is_int<T>::v) return (T)(w(a) * w(a));
    else if constexpr (is_cplx<T>::v) return cmul_fused(a, a);
    else return a * a;
  }
};

template <class T>
struct op_conj : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const { return mk(a.re, -a.im); }
};

}  // namespace

void fill_arith(table_t &t) {
  reg_t<op_add, bool>(t, ND_UFUNC_ADD);
  reg_ints<op_add>(t, ND_UFUNC_ADD);
  reg_floats<op_add>(t, ND_UFUNC_ADD);
  reg_complex<op_add>(t, ND_UFUNC_ADD);
  reg_ints<op_sub>(t, ND_UFUNC_SUBTRACT);
  reg_floats<op_sub>(t, ND_UFUNC_SUBTRACT);
  reg_complex<op_sub>(t, ND_UFUNC_SUBTRACT);
  reg_t<op_mul, bool>(t, ND_UFUNC_MULTIPLY);
  reg_ints<op_mul>(t, ND_UFUNC_MULTIPLY);
  reg_floats<op_mul>(t, ND_UFUNC_MULTIPLY);
  reg_complex<op_mul>(t, ND_UFUNC_MULTIPLY);
  reg_t<op_div, bool>(t, ND_UFUNC_DIVIDE);
  reg_ints<op_div>(t, ND_UFUNC_DIVIDE);
  reg_floats<op_div>(t, ND_UFUNC_DIVIDE);
  reg_complex<op_div>(t, ND_UFUNC_DIVIDE);
  for (int op = ND_UFUNC_FLOOR_DIVIDE; op <= ND_UFUNC_FMOD; op++) {
    reg_ints<op_divfam>(t, op);
    reg_floats<op_divfam>(t, op);
  }
  reg_ints<op_power>(t, ND_UFUNC_POWER);
  reg_floats<op_power>(t, ND_UFUNC_POWER);
  reg_ints<op_negative>(t, ND_UFUNC_NEGATIVE);
  reg_floats<op_negative>(t, ND_UFUNC_NEGATIVE);
  reg_complex<op_negative>(t, ND_UFUNC_NEGATIVE);
  /* absolute of bool and unsigned integers is the identity: the host copies. */
  reg_t<op_absolute, int8_t>(t, ND_UFUNC_ABSOLUTE);
  reg_t<op_absolute, int16_t>(t, ND_UFUNC_ABSOLUTE);
  reg_t<op_absolute, int32_t>(t, ND_UFUNC_ABSOLUTE);
  reg_t<op_absolute, int64_t>(t, ND_UFUNC_ABSOLUTE);
  reg_floats<op_absolute>(t, ND_UFUNC_ABSOLUTE);
  reg_complex<op_absolute>(t, ND_UFUNC_ABSOLUTE);
  reg_ints<op_sign>(t, ND_UFUNC_SIGN);
  reg_floats<op_sign>(t, ND_UFUNC_SIGN);
  reg_complex<op_sign>(t, ND_UFUNC_SIGN);
  reg_ints<op_reciprocal>(t, ND_UFUNC_RECIPROCAL);
  reg_floats<op_reciprocal>(t, ND_UFUNC_RECIPROCAL);
  reg_complex<op_reciprocal>(t, ND_UFUNC_RECIPROCAL);
  reg_ints<op_square>(t, ND_UFUNC_SQUARE);
  reg_floats<op_square>(t, ND_UFUNC_SQUARE);
  reg_complex<op_square>(t, ND_UFUNC_SQUARE);
  reg_complex<op_conj>(t, ND_UFUNC_CONJUGATE);
}

}  // namespace ndk
