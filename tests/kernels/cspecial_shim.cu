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

template <class F>
void mul(F a, F b, F c, F d, F *re, F *im) {
  const ndk::cs::val<F> v = ndk::cs::mul(a, b, c, d);
  *re = v.re;
  *im = v.im;
}
}  // namespace

extern "C" void nd_cs_eval(int fn, double x, double y, double *re, double *im) { eval<double>(fn, x, y, re, im); }
extern "C" void nd_cs_evalf(int fn, float x, float y, float *re, float *im) { eval<float>(fn, x, y, re, im); }
extern "C" void nd_cs_mul(double a, double b, double c, double d, double *re, double *im) {
  mul<double>(a, b, c, d, re, im);
}
extern "C" void nd_cs_mulf(float a, float b, float c, float d, float *re, float *im) { mul<float>(a, b, c, d, re, im); }
