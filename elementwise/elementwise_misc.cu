/* Rounding, extrema, selection and classification instances: floor, ceil, trunc, rint,
 * round(decimals), maximum, minimum, fmax, fmin, clip, where, signbit, isnan, isinf,
 * isfinite, nan_to_num, real, imag, angle, isclose and the NaN-aware equality of
 * array_equal.
 *
 * maximum/minimum propagate NaN (the first NaN operand wins), fmax/fmin return the other
 * operand when one is NaN; on complex numbers both order lexicographically (NumPy's CGE/CLE).
 * Between -0.0 and +0.0, maximum returns b unless a > b (minimum: unless a < b), as NumPy's
 * float32/float64 loops do (its float16 loop happens to prefer a). round, angle(deg) and
 * isclose on float16 round every intermediate step to float16, as NumPy's sequence of
 * float16 ufunc calls does; complex round rounds each part as a real array (NumPy's
 * PyArray_Round). where moves bits: one instance per element size serves every dtype. */
#include "kernels/convert.cuh"
#include "elementwise/elementwise.cuh"

namespace ndk {
namespace {

/* floor, ceil, trunc and rint of real floats: one instance per dtype (params.op picks). */
template <class T>
struct op_rounding : base<T, T, 1> {
  int which;
  __device__ __forceinline__ explicit op_rounding(const nd_kparams &p)
      : base<T, T, 1>(p), which(p.op - ND_UFUNC_FLOOR) {}
  __device__ __forceinline__ T operator()(T x) const {
    return which == 0 ? m_floor(x) : which == 1 ? m_ceil(x) : which == 2 ? m_trunc(x) : m_rint(x);
  }
};

template <class T>
struct op_crint : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T x) const { return mk(m_rint(x.re), m_rint(x.im)); }
};

template <class T> __device__ __forceinline__ bool anynan(T x) {
  if constexpr (is_cplx<T>::v) return isnan_(x.re) || isnan_(x.im);
  else if constexpr (is_int<T>::v || std::is_same<T, bool>::value) return false;
  else return isnan_(x);
}
template <class T> __device__ __forceinline__ bool ge(T a, T b) {
  if constexpr (is_cplx<T>::v)
    return (a.re > b.re && !isnan_(a.im) && !isnan_(b.im)) || (a.re == b.re && a.im >= b.im);
  else return a >= b;
}
template <class T> __device__ __forceinline__ bool le(T a, T b) {
  if constexpr (is_cplx<T>::v)
    return (a.re < b.re && !isnan_(a.im) && !isnan_(b.im)) || (a.re == b.re && a.im <= b.im);
  else return a <= b;
}
template <class T> __device__ __forceinline__ bool gt(T a, T b) {
  if constexpr (is_cplx<T>::v) return ge(a, b) && !(a.re == b.re && a.im == b.im);
  else return a > b;
}
template <class T> __device__ __forceinline__ bool lt(T a, T b) {
  if constexpr (is_cplx<T>::v) return le(a, b) && !(a.re == b.re && a.im == b.im);
  else return a < b;
}

/* maximum: a if a is NaN or a > b (real) / a >= b (complex), else b. */
template <class T> __device__ __forceinline__ T vmax(T a, T b) {
  if constexpr (is_cplx<T>::v) return (anynan(a) || ge(a, b)) ? a : b;
  else return (anynan(a) || a > b) ? a : b;
}
template <class T> __device__ __forceinline__ T vmin(T a, T b) {
  if constexpr (is_cplx<T>::v) return (anynan(a) || le(a, b)) ? a : b;
  else return (anynan(a) || a < b) ? a : b;
}

/* maximum, minimum, fmax, fmin: one instance per dtype (0 maximum, 1 minimum, 2 fmax,
 * 3 fmin). fmax keeps a when b is NaN or a >= b, fmin when b is NaN or a <= b. */
template <class T>
struct op_extremum : base<T, T, 2, 0, 1> {
  int which;
  __device__ __forceinline__ explicit op_extremum(const nd_kparams &p)
      : base<T, T, 2, 0, 1>(p), which(p.op - ND_UFUNC_MAXIMUM) {}
  __device__ __forceinline__ T operator()(T a, T b) const {
    switch (which) {
      case 0: return vmax(a, b);
      case 1: return vmin(a, b);
      case 2: return (anynan(b) || ge(a, b)) ? a : b;
      default: return (anynan(b) || le(a, b)) ? a : b;
    }
  }
};

/* NumPy's clip: minimum(maximum(a, lo), hi) with NaN propagating from any operand. */
template <class T>
struct op_clip : base<T, T, 3> {
  using base<T, T, 3>::base;
  __device__ __forceinline__ T operator()(T a, T lo, T hi) const {
    return vmin(vmax(a, lo), hi);
  }
};

/* where(cond, x, y) on element bits of N bytes. */
template <int N> struct bits { typedef c128 type; };
template <> struct bits<1> { typedef uint8_t type; };
template <> struct bits<2> { typedef uint16_t type; };
template <> struct bits<4> { typedef uint32_t type; };
template <> struct bits<8> { typedef uint64_t type; };

template <int N>
struct op_where {
  typedef typename bits<N>::type B;
  typedef B R;
  typedef bool A0;
  typedef B A1;
  typedef B A2;
  enum { nin = 3, heavy = 0, tile = 0 };
  __device__ __forceinline__ explicit op_where(const nd_kparams &) {}
  __device__ __forceinline__ B operator()(bool c, B x, B y) const { return c ? x : y; }
};

template <class T>
struct op_signbit : base<bool, T, 1> {
  using base<bool, T, 1>::base;
  __device__ __forceinline__ bool operator()(T x) const {
    if constexpr (std::is_same<T, __half>::value) return (__half_as_ushort(x) & 0x8000u) != 0;
    else if constexpr (std::is_same<T, float>::value) return (__float_as_uint(x) >> 31) != 0;
    else return __double_as_longlong(x) < 0;
  }
};

/* isnan, isinf, isfinite: one instance per dtype. */
template <class T>
struct op_classify : base<bool, T, 1> {
  int which;
  __device__ __forceinline__ explicit op_classify(const nd_kparams &p)
      : base<bool, T, 1>(p), which(p.op - ND_UFUNC_ISNAN) {}
  __device__ __forceinline__ bool operator()(T x) const {
    bool nan, inf;
    if constexpr (is_cplx<T>::v) {
      nan = isnan_(x.re) || isnan_(x.im);
      inf = isinf_(x.re) || isinf_(x.im);
    } else {
      nan = isnan_(x);
      inf = isinf_(x);
    }
    return which == 0 ? nan : which == 1 ? inf : !nan && !inf;
  }
};

/* ---- storage-precision helpers for the ops that handle float16 themselves ------------- */

/* The compute type of a storage type and the rounding of a computed value to storage
 * precision (identity except for float16). */
template <class S> struct comp { typedef S type; };
template <> struct comp<__half> { typedef float type; };
template <class S> __device__ __forceinline__ typename comp<S>::type up(S x) { return x; }
template <> __device__ __forceinline__ float up<__half>(__half x) { return __half2float(x); }
template <class S> __device__ __forceinline__ S down(typename comp<S>::type x) { return x; }
template <> __device__ __forceinline__ __half down<__half>(float x) { return __float2half_rn(x); }
template <class S> __device__ __forceinline__ typename comp<S>::type st(typename comp<S>::type x) {
  return up<S>(down<S>(x));
}
/* A double parameter converted to storage precision, in the compute type. */
template <class S> __device__ __forceinline__ typename comp<S>::type param(double d) {
  if constexpr (std::is_same<S, __half>::value) return __half2float(__double2half(d));
  else return (S)d;
}

template <class T>
struct op_nan_to_num : base<T, T, 1> {
  typedef typename comp<T>::type C;
  C vnan, vpos, vneg;
  __device__ __forceinline__ explicit op_nan_to_num(const nd_kparams &p)
      : base<T, T, 1>(p), vnan(param<T>(p.d[0])), vpos(param<T>(p.d[1])), vneg(param<T>(p.d[2])) {}
  __device__ __forceinline__ C fix(C x) const {
    return isnan_(x) ? vnan : x == (C)INFINITY ? vpos : x == -(C)INFINITY ? vneg : x;
  }
  __device__ __forceinline__ T operator()(T x) const { return down<T>(fix(up<T>(x))); }
};
template <class F>
struct op_nan_to_num<cplx<F> > : base<cplx<F>, cplx<F>, 1> {
  op_nan_to_num<F> r;
  __device__ __forceinline__ explicit op_nan_to_num(const nd_kparams &p)
      : base<cplx<F>, cplx<F>, 1>(p), r(p) {}
  __device__ __forceinline__ cplx<F> operator()(cplx<F> x) const { return mk(r.fix(x.re), r.fix(x.im)); }
};

template <class T> struct real_t { typedef T type; };
template <class F> struct real_t<cplx<F> > { typedef F type; };

/* round with decimals != 0 (0 is rint). Complex rounds each part as a real array, as NumPy's
 * PyArray_Round does. */
template <class T>
struct op_round : base<T, T, 1> {
  typedef typename real_t<T>::type S;
  typedef typename comp<S>::type C;
  C f{};
  bool up_;
  double fd;
  __device__ __forceinline__ explicit op_round(const nd_kparams &p) : base<T, T, 1>(p) {
    const int64_t d = p.i < 0 ? -p.i : p.i;
    fd = 1;
    for (int64_t k = 0; k < d && fd < 1e308; k++) fd *= 10;
    if (d > 308) fd = (double)INFINITY;
    up_ = p.i > 0;
    if constexpr (!is_int<T>::v) f = param<S>(fd);
  }
  /* NumPy's multiply (or divide), rint, divide (or multiply), each rounded to S. */
  __device__ __forceinline__ C rr(C v) const {
    C y = st<S>(up_ ? v * f : v / f);
    y = m_rint(y);
    return st<S>(up_ ? y / f : y * f);
  }
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (is_int<T>::v) {
      /* NumPy: true_divide into float64, rint, multiply, cast back (unsafely; its cast to
       * uint32 goes through int64 here, so 2^32 + 4 gives 4). */
      const double y = rint((double)x / fd) * fd;
      if constexpr (sizeof(T) < 4) return (T)nd_cvt32(y);
      else if constexpr (sizeof(T) == 4) return std::is_signed<T>::value ? (T)nd_cvt32(y) : (T)(uint64_t)nd_cvt64(y);
      else return std::is_signed<T>::value ? (T)nd_cvt64(y) : (T)nd_cvtu64(y);
    } else if constexpr (is_cplx<T>::v) {
      return mk(rr(x.re), rr(x.im));
    } else {
      return down<T>(rr(up<T>(x)));
    }
  }
};

template <class T>
struct op_real : base<decltype(T().re), T, 1> {
  using base<decltype(T().re), T, 1>::base;
  __device__ __forceinline__ decltype(T().re) operator()(T x) const { return x.re; }
};
template <class T>
struct op_imag : base<decltype(T().re), T, 1> {
  using base<decltype(T().re), T, 1>::base;
  __device__ __forceinline__ decltype(T().re) operator()(T x) const { return x.im; }
};

/* atan2(imag, real) rounded to the type, then times (type)(180/pi) when params.i. */
template <class T>
struct op_angle : base<typename real_t<T>::type, T, 1, 1> {
  typedef typename real_t<T>::type S;
  typedef typename comp<S>::type C;
  C k;
  bool deg;
  __device__ __forceinline__ explicit op_angle(const nd_kparams &p)
      : base<S, T, 1, 1>(p), k(param<S>(180.0 / 3.141592653589793238462643383279502884)), deg(p.i != 0) {}
  __device__ __forceinline__ S operator()(T x) const {
    C a;
    if constexpr (is_cplx<T>::v) a = m_atan2(x.im, x.re);
    else a = m_atan2((C)0, up<S>(x));
    a = st<S>(a);
    return down<S>(deg ? a * k : a);
  }
};

/* NumPy's isclose in the operands' dtype: (|a-b| <= atol + rtol*|b| and b finite) or a == b,
 * or both NaN with equal_nan. Products are not fused into the sum (two roundings, as NumPy). */
template <class T>
struct op_isclose : base<bool, T, 2> {
  typedef typename real_t<T>::type S;
  typedef typename comp<S>::type C;
  C rtol, atol;
  bool eqnan;
  __device__ __forceinline__ explicit op_isclose(const nd_kparams &p)
      : base<bool, T, 2>(p), rtol(param<S>(p.d[0])), atol(param<S>(p.d[1])), eqnan(p.i != 0) {}
  __device__ __forceinline__ bool operator()(T a, T b) const {
    C ad, ab;
    bool fin, eq;
    if constexpr (is_cplx<T>::v) {
      ad = m_hypot(a.re - b.re, a.im - b.im);
      ab = m_hypot(b.re, b.im);
      fin = !isnan_(b.re) && !isinf_(b.re) && !isnan_(b.im) && !isinf_(b.im);
      eq = a.re == b.re && a.im == b.im;
    } else {
      const C x = up<S>(a), y = up<S>(b);
      ad = m_fabs(st<S>(x - y));
      ab = m_fabs(y);
      fin = !isnan_(y) && !isinf_(y);
      eq = x == y;
    }
    const C rhs = st<S>(atol + st<S>(mul_rn(rtol, ab)));
    bool r = (ad <= rhs && fin) || eq;
    if (eqnan) r = r || (anynan(a_c(a)) && anynan(a_c(b)));
    return r;
  }
  __device__ __forceinline__ static auto a_c(T x) {
    if constexpr (std::is_same<T, __half>::value) return __half2float(x);
    else return x;
  }
};

template <class T>
struct op_equal_nan : base<bool, T, 2> {
  using base<bool, T, 2>::base;
  __device__ __forceinline__ bool operator()(T a, T b) const {
    if constexpr (is_cplx<T>::v) return (a.re == b.re && a.im == b.im) || (anynan(a) && anynan(b));
    else return a == b || (anynan(a) && anynan(b));
  }
};

template <int N>
void reg_where(table_t &t, int key) {
  reg<op_where<N> >(t, ND_UFUNC_WHERE, key);
  t[ND_UFUNC_WHERE][key].out = key; /* the bits are the key's dtype, not the proxy type */
}

template <template <class> class F>
void reg_fc(table_t &t, int op) {
  reg_floats<F>(t, op);
  reg_complex<F>(t, op);
}

template <template <class> class F>
void reg_all(table_t &t, int op) {
  reg_t<F, bool>(t, op);
  reg_ints<F>(t, op);
  reg_floats<F>(t, op);
  reg_complex<F>(t, op);
}

}  // namespace

template <> struct native_half<op_signbit> { enum { v = 1 }; };
template <> struct native_half<op_nan_to_num> { enum { v = 1 }; };
template <> struct native_half<op_round> { enum { v = 1 }; };
template <> struct native_half<op_angle> { enum { v = 1 }; };
template <> struct native_half<op_isclose> { enum { v = 1 }; };

void fill_misc(table_t &t) {
  for (int op = ND_UFUNC_FLOOR; op <= ND_UFUNC_RINT; op++) reg_floats<op_rounding>(t, op);
  reg_complex<op_crint>(t, ND_UFUNC_RINT);
  for (int op = ND_UFUNC_MAXIMUM; op <= ND_UFUNC_FMIN; op++) reg_all<op_extremum>(t, op);
  reg_all<op_clip>(t, ND_UFUNC_CLIP);
  reg_floats<op_signbit>(t, ND_UFUNC_SIGNBIT);
  for (int op = ND_UFUNC_ISNAN; op <= ND_UFUNC_ISFINITE; op++) reg_fc<op_classify>(t, op);
  reg_complex<op_real>(t, ND_UFUNC_REAL);
  reg_complex<op_imag>(t, ND_UFUNC_IMAG);
  reg_fc<op_angle>(t, ND_UFUNC_ANGLE);
  reg_fc<op_nan_to_num>(t, ND_KOP_NAN_TO_NUM);
  reg_ints<op_round>(t, ND_KOP_ROUND);
  reg_fc<op_round>(t, ND_KOP_ROUND);
  reg_fc<op_isclose>(t, ND_KOP_ISCLOSE);
  reg_fc<op_equal_nan>(t, ND_KOP_EQUAL_NAN);
  static const int size_of[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};
  for (int k = 0; k < 14; k++) {
    switch (size_of[k]) {
      case 1: reg_where<1>(t, k); break;
      case 2: reg_where<2>(t, k); break;
      case 4: reg_where<4>(t, k); break;
      case 8: reg_where<8>(t, k); break;
      default: reg_where<16>(t, k); break;
    }
  }
}

}  // namespace ndk
