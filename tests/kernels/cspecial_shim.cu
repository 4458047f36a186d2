/* Host entry points to kernels/cspecial.cuh for test_cspecial_host.c (C). */
#include "kernels/cspecial.cuh"

namespace {
template <class F>
void eval(int fn, F x, F y, F *re, F *im) {
  using namespace ndk::cs;
  val<F> v;
  switch (fn) {
    case 0: v = sinh(x, y); break;
    case 1: v = cosh(x, y); break;
    case 2: v = tanh(x, y); break;
    case 3: v = ndk::cs::sin(x, y); break;
    case 4: v = ndk::cs::cos(x, y); break;
    case 5: v = ndk::cs::tan(x, y); break;
    case 6: v = asinh(x, y); break;
    case 7: v = ndk::cs::asin(x, y); break;
    case 8: v = ndk::cs::acos(x, y); break;
    case 9: v = acosh(x, y); break;
    case 10: v = atanh(x, y); break;
    default: v = ndk::cs::atan(x, y); break;
  }
  *re = v.re;
  *im = v.im;
}

/* The finite-argument formulas, composed as the kernels compose them (elementwise_cmath.cu):
 * sin z = -i sinh(iz), cos z = cosh(iz), atan z = -i atanh(iz), asin z = swap(asinh(swap z)). */
template <class F>
void eval_fin(int fn, F x, F y, F *re, F *im) {
  using namespace ndk::cs;
  val<F> v, t;
  switch (fn) {
    case 0: v = sqrt_fin(x, y); break;
    case 1: v = log_fin(x, y); break;
    case 2: v = sinhcosh_fin(x, y, false); break;
    case 3: v = sinhcosh_fin(x, y, true); break;
    case 4: t = sinhcosh_fin(-y, x, false); v = mk(t.im, -t.re); break;
    case 5: v = sinhcosh_fin(-y, x, true); break;
    case 6: v = atanh_fin(x, y); break;
    case 7: t = atanh_fin(-y, x); v = mk(t.im, -t.re); break;
    case 8: v = asinh_big(x, y); break;
    case 9: v = acosh_big(x, y); break;
    default: t = asinh_big(y, x); v = mk(t.im, t.re); break;
  }
  *re = v.re;
  *im = v.im;
}

template <class F>
void mul(F a, F b, F c, F d, F *re, F *im) {
  const ndk::cs::val<F> v = ndk::cs::mul(a, b, c, d);
  *re = v.re;
  *im = v.im;
}
}  // namespace

extern "C" void nd_cs_eval(int fn, double x, double y, double *re, double *im) { eval<double>(fn, x, y, re, im); }
extern "C" void nd_cs_evalf(int fn, float x, float y, float *re, float *im) { eval<float>(fn, x, y, re, im); }
extern "C" void nd_cs_fin(int fn, double x, double y, double *re, double *im) { eval_fin<double>(fn, x, y, re, im); }
extern "C" void nd_cs_finf(int fn, float x, float y, float *re, float *im) { eval_fin<float>(fn, x, y, re, im); }
extern "C" int nd_cs_big(double x, double y) { return ndk::cs::big_arg(x, y); }
extern "C" int nd_cs_bigf(float x, float y) { return ndk::cs::big_arg(x, y); }
extern "C" void nd_cs_mul(double a, double b, double c, double d, double *re, double *im) {
  mul<double>(a, b, c, d, re, im);
}
extern "C" void nd_cs_mulf(float a, float b, float c, float d, float *re, float *im) { mul<float>(a, b, c, d, re, im); }
extern "C" void nd_cs_expm1(double x, double y, double *re, double *im) {
  const ndk::cs::val<double> v = ndk::cs::expm1(x, y);
  *re = v.re;
  *im = v.im;
}
extern "C" void nd_cs_expm1f(float x, float y, float *re, float *im) {
  const ndk::cs::val<float> v = ndk::cs::expm1(x, y);
  *re = v.re;
  *im = v.im;
}
