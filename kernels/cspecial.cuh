/* Complex functions at non-finite arguments: the values NumPy gives, which are those of the C
 * library's csinh, ccosh, ctanh, csin, ccos, ctan, casinh, casin, cacos, cacosh, catanh and
 * catan (glibc; C99 Annex G where it fixes them, glibc's choice where it leaves a sign or a
 * NaN open), and Annex G's complex product, which recovers infinities that the plain formula
 * turns into NaN (NumPy's complex power is exp(b log a) with that product).
 *
 * Each cs_<f>(x, y) takes z = x + iy with x or y infinite or NaN and returns f(z); the finite
 * case stays with the kernels' formulas (elementwise_cmath.cu). Host and device code alike,
 * so that tests/kernels/test_cspecial_host.c checks them against the host's C library. */
#ifndef ND_CSPECIAL_CUH
#define ND_CSPECIAL_CUH

#include <math.h>

#if defined(__CUDACC__)
#define ND_CS_FN __host__ __device__ inline
#else
#define ND_CS_FN static inline
#endif

namespace ndk {
namespace cs {

template <class F> struct val {
  F re, im;
};
template <class F> ND_CS_FN val<F> mk(F re, F im) {
  val<F> v;
  v.re = re;
  v.im = im;
  return v;
}
/* the classification the elementwise kernels use too (elementwise.cuh) */
template <class F> ND_CS_FN bool isnan_(F x) { return x != x; }
template <class F> ND_CS_FN bool isinf_(F x) { return x == (F)INFINITY || x == -(F)INFINITY; }
template <class F> ND_CS_FN bool finite_(F x) { return !isnan_(x) && !isinf_(x); }
/* copysign through the sign bit (NaN signs included), for float and double alike */
template <class F> ND_CS_FN F sgn(F mag, F s) {
  const F a = mag < 0 ? -mag : mag;
  return signbit(s) ? -a : a;
}
template <class F> ND_CS_FN F inf() { return (F)INFINITY; }
template <class F> ND_CS_FN F nan() { return (F)NAN; }
template <class F> ND_CS_FN F pi() { return (F)3.14159265358979323846; }
template <class F> ND_CS_FN F pi2() { return (F)1.57079632679489661923; }
template <class F> ND_CS_FN F pi4() { return (F)0.78539816339744830962; }
template <class F> ND_CS_FN F pi34() { return (F)2.35619449019234492885; }

template <class F> ND_CS_FN val<F> sinh(F x, F y) {
  if (isnan_(x)) return y == 0 ? mk(x, y) : mk(nan<F>(), nan<F>());
  if (isinf_(x)) {
    if (y == 0) return mk(x, y);
    if (!finite_(y)) return mk(inf<F>(), nan<F>());
    return mk(x * (F)::cos(y), inf<F>() * (F)::sin(y));
  }
  return x == 0 ? mk(x, nan<F>()) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> cosh(F x, F y) {
  if (isnan_(x)) return y == 0 ? mk(nan<F>(), y) : mk(nan<F>(), nan<F>());
  if (isinf_(x)) {
    if (y == 0) return mk(inf<F>(), signbit(x) ? -y : y);
    if (!finite_(y)) return mk(inf<F>(), nan<F>());
    return mk(inf<F>() * (F)::cos(y), x * (F)::sin(y));
  }
  return x == 0 ? mk(nan<F>(), (F)0) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> tanh(F x, F y) {
  if (isnan_(x)) return y == 0 ? mk(x, y) : mk(nan<F>(), nan<F>());
  if (isinf_(x)) {
    const F s = isinf_(y) || y == 0 ? y : isnan_(y) ? (F)1 : (F)::sin(2 * y);
    return mk(sgn((F)1, x), sgn((F)0, s));
  }
  return x == 0 ? mk(x, nan<F>()) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> sin(F x, F y) {
  if (!finite_(x)) {
    if (y == 0) return mk(nan<F>(), y);
    return isinf_(y) ? mk(nan<F>(), inf<F>()) : mk(nan<F>(), nan<F>());
  }
  if (isnan_(y)) return x == 0 ? mk(x, y) : mk(nan<F>(), nan<F>());
  if (x == 0) return mk(x, y);
  return mk(inf<F>() * (F)::sin(x), (F)::cos(x) * y);
}

/* cos z = cosh(iz), tan z = -i tanh(iz) */
template <class F> ND_CS_FN val<F> cos(F x, F y) { return cosh(-y, x); }
template <class F> ND_CS_FN val<F> tan(F x, F y) {
  const val<F> t = tanh(-y, x);
  return mk(t.im, -t.re);
}

template <class F> ND_CS_FN val<F> asinh(F x, F y) {
  if (isinf_(y)) {
    if (isnan_(x)) return mk(inf<F>(), nan<F>());
    if (isinf_(x)) return mk(x, sgn(pi4<F>(), y));
    return mk(sgn(inf<F>(), x), sgn(pi2<F>(), y));
  }
  if (isinf_(x)) return isnan_(y) ? mk(x, y) : mk(x, sgn((F)0, y));
  return isnan_(x) && y == 0 ? mk(x, y) : mk(nan<F>(), nan<F>());
}

/* asin z = swap(asinh(swap z)), swap(x + iy) = y + ix */
template <class F> ND_CS_FN val<F> asin(F x, F y) {
  const val<F> t = asinh(y, x);
  return mk(t.im, t.re);
}

template <class F> ND_CS_FN val<F> acos(F x, F y) {
  if (isinf_(y)) {
    if (isnan_(x)) return mk(x, -y);
    if (isinf_(x)) return mk(x > 0 ? pi4<F>() : pi34<F>(), -y);
    return mk(pi2<F>(), -y);
  }
  if (isinf_(x)) {
    if (isnan_(y)) return mk(y, -inf<F>());
    return mk(x > 0 ? (F)0 : pi<F>(), signbit(y) ? inf<F>() : -inf<F>());
  }
  return x == 0 ? mk(pi2<F>(), y) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> acosh(F x, F y) {
  if (isinf_(y)) {
    if (isnan_(x)) return mk(inf<F>(), x);
    if (isinf_(x)) return mk(inf<F>(), sgn(x > 0 ? pi4<F>() : pi34<F>(), y));
    return mk(inf<F>(), sgn(pi2<F>(), y));
  }
  if (isinf_(x)) return isnan_(y) ? mk(inf<F>(), y) : mk(inf<F>(), sgn(x > 0 ? (F)0 : pi<F>(), y));
  return x == 0 ? mk(nan<F>(), pi2<F>()) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> atanh(F x, F y) {
  if (isinf_(y)) return mk(sgn((F)0, x), sgn(pi2<F>(), y));
  if (isinf_(x)) return isnan_(y) ? mk(sgn((F)0, x), y) : mk(sgn((F)0, x), sgn(pi2<F>(), y));
  return x == 0 ? mk(x, nan<F>()) : mk(nan<F>(), nan<F>());
}

template <class F> ND_CS_FN val<F> atan(F x, F y) {
  const val<F> t = atanh(y, x);
  return mk(t.im, t.re);
}

/* a * b rounded once, never contracted with a neighbouring sum into a fused multiply-add: on
 * the device the products of NumPy's complex formulas (elementwise.cuh) and of the C
 * library's (here), whose host code has none. */
#if defined(__CUDA_ARCH__)
#define ND_CS_MUL_RN(f, a, b) f(a, b)
#else
#define ND_CS_MUL_RN(f, a, b) ((a) * (b))
#endif
ND_CS_FN float mul_rn(float a, float b) { return ND_CS_MUL_RN(__fmul_rn, a, b); }
ND_CS_FN double mul_rn(double a, double b) { return ND_CS_MUL_RN(__dmul_rn, a, b); }
#undef ND_CS_MUL_RN

/* Annex G's recovery step for one operand p + iq of a product: if it is infinite, its parts
 * become +-1 (infinite) and +-0 (finite), and NaN parts of the other operand r + is become
 * +-0. Returns whether it applied. */
template <class F> ND_CS_FN bool box(F &p, F &q, F &r, F &s) {
  if (!isinf_(p) && !isinf_(q)) return false;
  p = sgn(isinf_(p) ? (F)1 : (F)0, p);
  q = sgn(isinf_(q) ? (F)1 : (F)0, q);
  if (isnan_(r)) r = sgn((F)0, r);
  if (isnan_(s)) s = sgn((F)0, s);
  return true;
}

/* (a + ib)(c + id) as C99 Annex G's __muldc3: the plain products, and where both parts come
 * out NaN, infinite operands (or overflowed products) recovered as infinities. */
template <class F> ND_CS_FN val<F> mul(F a, F b, F c, F d) {
  const F ac = mul_rn(a, c), bd = mul_rn(b, d), ad = mul_rn(a, d), bc = mul_rn(b, c);
  F x = ac - bd, y = ad + bc;
  if (isnan_(x) && isnan_(y)) {
    bool recalc = box(a, b, c, d);
    recalc = box(c, d, a, b) || recalc;
    if (!recalc && (isinf_(ac) || isinf_(bd) || isinf_(ad) || isinf_(bc))) {
      if (isnan_(a)) a = sgn((F)0, a);
      if (isnan_(b)) b = sgn((F)0, b);
      if (isnan_(c)) c = sgn((F)0, c);
      if (isnan_(d)) d = sgn((F)0, d);
      recalc = true;
    }
    if (recalc) {
      x = inf<F>() * (mul_rn(a, c) - mul_rn(b, d));
      y = inf<F>() * (mul_rn(a, d) + mul_rn(b, c));
    }
  }
  return mk(x, y);
}

}  // namespace cs
}  // namespace ndk

#endif /* ND_CSPECIAL_CUH */
