/* Complex functions at non-finite arguments: the values NumPy gives, which are those of the C
 * library's csinh, ccosh, ctanh, csin, ccos, ctan, casinh, casin, cacos, cacosh, catanh and
 * catan (glibc; C99 Annex G where it fixes them, glibc's choice where it leaves a sign or a
 * NaN open), and Annex G's complex product, which recovers infinities that the plain formula
 * turns into NaN (NumPy's complex power is exp(b log a) with that product).
 *
 * expm1 is exp - 1 with the C library's cexp values (the array API's table for expm1).
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

/* ---- finite arguments at the ends of the range ------------------------------------------ */

/* The formulas of the elementwise kernels that scale their arguments, as the C library's
 * csqrt, clog, csinh, ccosh, casinh, cacosh and catanh do (glibc's, which NumPy calls on
 * Linux: sysdeps/ieee754 s_csqrt, s_clog, s_csinh, s_ccosh, k_casinh, s_catanh): without the
 * scaling, sqrt(-0 + 5e-324j) is inf*j, log|z| overflows for |z| near the float maximum,
 * sin(1e-45 + 108.7j) in complex64 is inf + inf*j, and atan(max - 1.18j) has real part
 * 3pi/8. Finite arguments only; host and device, so that test_cspecial_host.c compares them
 * with the host's C library. */
template <class F> ND_CS_FN F fmax_();
template <> ND_CS_FN float fmax_<float>() { return 3.40282346638528859812e+38f; }
template <> ND_CS_FN double fmax_<double>() { return 1.79769313486231570815e+308; }
template <class F> ND_CS_FN F fmin_(); /* the smallest normal number */
template <> ND_CS_FN float fmin_<float>() { return 1.17549435082228750797e-38f; }
template <> ND_CS_FN double fmin_<double>() { return 2.22507385850720138309e-308; }
template <class F> ND_CS_FN F eps_();
template <> ND_CS_FN float eps_<float>() { return 1.19209289550781250000e-07f; }
template <> ND_CS_FN double eps_<double>() { return 2.22044604925031308085e-16; }
template <class F> ND_CS_FN F ln2_() { return (F)0.693147180559945309417232121458176568; }
template <class F> ND_CS_FN F fabs_(F x) { return x < 0 ? -x : x; }

/* log|x + iy|: near |z| = 1 through log1p so that the result keeps its digits; scaled by a
 * power of two where hypot would overflow or lose bits to underflow. */
template <class F> ND_CS_FN F log_abs(F x, F y) {
  const F ax = fabs_(x), ay = fabs_(y);
  const F hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
  if (hi > fmax_<F>() / 4) return (F)::log((F)::hypot(x * (F)0.25, y * (F)0.25)) + 2 * ln2_<F>();
  if (hi != 0 && hi < fmin_<F>() * (F)(1 << 20)) {
    /* 2^k with k = 600 (double) or 80 (float): the scaled parts are normal numbers. */
    const F up = sizeof(F) == 8 ? (F)4.149515568880993e180 : (F)1.2089258196146292e24f;
    const F k = sizeof(F) == 8 ? (F)600 : (F)80;
    return (F)::log((F)::hypot(x * up, y * up)) - k * ln2_<F>();
  }
  const F h = (F)::hypot(x, y);
  if (h > (F)0.5 && h < (F)2) return (F)0.5 * (F)::log1p(mul_rn(hi - 1, hi + 1) + mul_rn(lo, lo));
  return (F)::log(h);
}

/* log z for finite z. */
template <class F> ND_CS_FN val<F> log_fin(F x, F y) { return mk(log_abs(x, y), (F)::atan2(y, x)); }

/* sqrt z for finite z other than 0 (Algorithm 312, CACM 10, 1967, as FreeBSD's csqrt), with
 * huge parts scaled down by 4 and tiny ones up by 2^54 (float 2^24) so that neither a + |z|
 * overflows nor sqrt((a + |z|) / 2) underflows to 0. */
template <class F> ND_CS_FN val<F> sqrt_fin(F a, F b) {
  F scale = 1;
  if (fabs_(a) >= fmax_<F>() / 4 || fabs_(b) >= fmax_<F>() / 4) {
    a *= (F)0.25;
    b *= (F)0.25;
    scale = 2;
  } else if (fabs_(a) < fmin_<F>() * 4 && fabs_(b) < fmin_<F>() * 4) {
    const F up = sizeof(F) == 8 ? (F)18014398509481984.0 : (F)16777216.0f; /* 2^54, 2^24 */
    a *= up;
    b *= up;
    scale = sizeof(F) == 8 ? (F)7.450580596923828125e-09 : (F)2.44140625e-04f; /* 2^-27, 2^-12 */
  }
  if (a >= 0) {
    const F t = (F)::sqrt((a + (F)::hypot(a, b)) * (F)0.5);
    return mk(t * scale, b / (2 * t) * scale);
  }
  const F t = (F)::sqrt((-a + (F)::hypot(a, b)) * (F)0.5);
  return mk(fabs_(b) / (2 * t) * scale, sgn(t, b) * scale);
}

/* sinh and cosh of x + iy for finite arguments. Where exp|x| overflows but the result may
 * not (a tiny sin y or cos y), exp|x| is applied in pieces of exp(t), t = (max_exp - 1) ln 2,
 * as glibc's csinh and ccosh do. */
template <class F> ND_CS_FN val<F> sinhcosh_fin(F x, F y, bool is_cosh) {
  const F t = sizeof(F) == 8 ? (F)709.08956571282405153 : (F)88.029691931113054295f;
  F sinix, cosix;
  if (fabs_(y) > fmin_<F>()) {
    sinix = (F)::sin(y);
    cosix = (F)::cos(y);
  } else {
    sinix = y;
    cosix = 1;
  }
  if (fabs_(x) > t) {
    const F exp_t = (F)::exp(t);
    F rx = fabs_(x);
    /* sinh is odd: its real part (sinh x cos y) takes the sign of x; cosh's imaginary part
     * (sinh x sin y) too. */
    if (signbit(x)) {
      if (is_cosh) sinix = -sinix;
      else cosix = -cosix;
    }
    rx -= t;
    sinix *= exp_t / 2;
    cosix *= exp_t / 2;
    if (rx > t) {
      rx -= t;
      sinix *= exp_t;
      cosix *= exp_t;
    }
    if (rx > t) return mk(fmax_<F>() * cosix, fmax_<F>() * sinix); /* overflows, as it must */
    const F ev = (F)::exp(rx);
    return mk(ev * cosix, ev * sinix);
  }
  if (is_cosh) return mk(mul_rn((F)::cosh(x), cosix), mul_rn((F)::sinh(x), sinix));
  return mk(mul_rn((F)::sinh(x), cosix), mul_rn((F)::cosh(x), sinix));
}

/* x^2 + y^2 - 1 without cancellation (glibc's __x2y2m1): the exact products as pairs, summed
 * smallest first with error-free additions. Double; float computes it in double exactly. */
ND_CS_FN void two_sum_ordered(double &hi, double &lo, double a, double b) { /* |a| >= |b| */
  hi = a + b;
  lo = (a - hi) + b;
}
ND_CS_FN void sort_abs(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && fabs_(v[j - 1]) > fabs_(v[j]); j--) {
      const double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}
ND_CS_FN double x2y2m1(double x, double y) {
  double v[5];
  v[1] = mul_rn(x, x);
  v[0] = ::fma(x, x, -v[1]);
  v[3] = mul_rn(y, y);
  v[2] = ::fma(y, y, -v[3]);
  v[4] = -1.0;
  sort_abs(v, 5);
  for (int i = 0; i <= 3; i++) {
    two_sum_ordered(v[i + 1], v[i], v[i + 1], v[i]);
    sort_abs(v + i + 1, 4 - i);
  }
  return v[4] + v[3] + v[2] + v[1] + v[0];
}
ND_CS_FN float x2y2m1(float x, float y) {
  const double dx = x, dy = y;
  return (float)((dx - 1) * (dx + 1) + dy * dy);
}

/* atanh z for finite z: glibc's catanh (the real part from log of the ratio of |1 + z|^2 to
 * |1 - z|^2 or from log1p, the imaginary part's denominator 1 - |z|^2 without cancellation,
 * and the limits for huge |z|). */
template <class F> ND_CS_FN val<F> atanh_fin(F x, F y) {
  const F eps = eps_<F>();
  F re, im;
  if (fabs_(x) >= 16 / eps || fabs_(y) >= 16 / eps) {
    im = sgn(pi2<F>(), y);
    if (fabs_(y) <= 1) {
      re = 1 / x;
    } else if (fabs_(x) <= 1) {
      re = x / y / y;
    } else {
      const F h = (F)::hypot(x / 2, y / 2);
      re = x / h / h / 4;
    }
    return mk(re, im);
  }
  if (fabs_(x) == 1 && fabs_(y) < eps * eps) {
    re = sgn((F)0.5, x) * (ln2_<F>() - (F)::log(fabs_(y)));
  } else {
    const F i2 = fabs_(y) >= eps * eps ? mul_rn(y, y) : (F)0;
    F num = 1 + x;
    num = i2 + mul_rn(num, num);
    F den = 1 - x;
    den = i2 + mul_rn(den, den);
    const F f = num / den;
    if (f < (F)0.5) re = (F)0.25 * (F)::log(f);
    else re = (F)0.25 * (F)::log1p(4 * x / den);
  }
  F absx = fabs_(x), absy = fabs_(y), den;
  if (absx < absy) {
    const F t = absx;
    absx = absy;
    absy = t;
  }
  if (absy < eps / 2) {
    den = mul_rn(1 - absx, 1 + absx);
    if (den == 0) den = 0;
  } else if (absx >= 1) {
    den = mul_rn(1 - absx, 1 + absx) - mul_rn(absy, absy);
  } else if (absx >= (F)0.75 || absy >= (F)0.5) {
    den = -x2y2m1(absx, absy);
  } else {
    den = mul_rn(1 - absx, 1 + absx) - mul_rn(absy, absy);
  }
  im = (F)0.5 * (F)::atan2(2 * y, den);
  return mk(re, im);
}

/* asinh and acosh for |x| or |y| >= 1 / eps, where z + sqrt(z^2 +- 1) is 2z to working
 * precision and the squares would overflow: log(2z) (glibc's k_casinh), by quadrant. */
template <class F> ND_CS_FN bool big_arg(F x, F y) { return fabs_(x) >= 1 / eps_<F>() || fabs_(y) >= 1 / eps_<F>(); }
template <class F> ND_CS_FN val<F> asinh_big(F x, F y) {
  return mk(sgn(log_abs(x, y) + ln2_<F>(), x), sgn((F)::atan2(fabs_(y), fabs_(x)), y));
}
template <class F> ND_CS_FN val<F> acosh_big(F x, F y) { return mk(log_abs(x, y) + ln2_<F>(), (F)::atan2(y, x)); }

/* expm1 z = exp z - 1 at an infinite or NaN argument: the C library's cexp values (C99 Annex
 * G.6.3.1; glibc's signs where it leaves them open) less one in the real part. These are the
 * array API's special cases for expm1 (inf + 0j -> inf + 0j, -inf + inf j -> -1 + 0j, NaN + 0j
 * -> NaN + 0j); NumPy's finite formula, expm1(x) cos y - 2 sin^2(y/2) + i exp(x) sin y, gives
 * NaN parts there instead (inf * sin 0). */
template <class F> ND_CS_FN val<F> expm1(F x, F y) {
  val<F> e;
  if (y == 0) {
    /* exp(x) + 0j with y's zero: x is +-inf or NaN here. */
    e = mk(isnan_(x) ? x : x > 0 ? x : (F)0, y);
  } else if (isinf_(x)) {
    if (finite_(y))
      e = x > 0 ? mk(x * (F)::cos(y), x * (F)::sin(y)) : mk((F)0 * (F)::cos(y), (F)0 * (F)::sin(y));
    else
      e = x > 0 ? mk(x, nan<F>()) : mk((F)0, sgn((F)0, y));
  } else {
    /* x finite with y infinite or NaN, or x NaN with y not zero */
    e = mk(nan<F>(), nan<F>());
  }
  return mk(e.re - 1, e.im);
}

}  // namespace cs
}  // namespace ndk

#endif /* ND_CSPECIAL_CUH */
