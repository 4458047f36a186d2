/* Host suite: the complex functions' values at infinite and NaN arguments
 * (kernels/cspecial.cuh, used by the device kernels) against the host C library, whose
 * csinh, ccosh, ctanh, csin, ccos, ctan, casinh, casin, cacos, cacosh, catanh and catan are
 * what NumPy calls on Linux, and against C's own complex product (Annex G's recovery of
 * infinities, as in NumPy's complex power). Every pair (x, y) from {+-0, 1, -1.5, 3, +-inf,
 * NaN} with x or y non-finite, in float and double: both parts must match, NaN matching
 * NaN and zeros matching in sign. expm1 there is checked against cexp - 1 and against the
 * array API's table of special cases. */
#include <complex.h>
#include <math.h>
#include <stdio.h>

#include "tests/nd_test.h"

void nd_cs_eval(int fn, double x, double y, double *re, double *im);
void nd_cs_evalf(int fn, float x, float y, float *re, float *im);
void nd_cs_mul(double a, double b, double c, double d, double *re, double *im);
void nd_cs_mulf(float a, float b, float c, float d, float *re, float *im);

static const char *const names[] = {"csinh", "ccosh", "ctanh", "csin", "ccos", "ctan",
                                    "casinh", "casin", "cacos", "cacosh", "catanh", "catan"};

static double complex ref(int fn, double complex z) {
  switch (fn) {
    case 0: return csinh(z);
    case 1: return ccosh(z);
    case 2: return ctanh(z);
    case 3: return csin(z);
    case 4: return ccos(z);
    case 5: return ctan(z);
    case 6: return casinh(z);
    case 7: return casin(z);
    case 8: return cacos(z);
    case 9: return cacosh(z);
    case 10: return catanh(z);
    default: return catan(z);
  }
}
static float complex reff(int fn, float complex z) {
  switch (fn) {
    case 0: return csinhf(z);
    case 1: return ccoshf(z);
    case 2: return ctanhf(z);
    case 3: return csinf(z);
    case 4: return ccosf(z);
    case 5: return ctanf(z);
    case 6: return casinhf(z);
    case 7: return casinf(z);
    case 8: return cacosf(z);
    case 9: return cacoshf(z);
    case 10: return catanhf(z);
    default: return catanf(z);
  }
}

/* Equal as NumPy results compare: NaN with NaN, otherwise the same value and, for zeros,
 * the same sign; non-zero finite values (sin and cos of finite parts, the constants) to
 * within 2 ulp, as the host's and the kernels' sin and cos may round differently. */
static int same(double got, double want, double ulp) {
  if (isnan(want)) return isnan(got);
  if (want == 0) return got == 0 && signbit(got) == signbit(want);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= 2 * ulp * fabs(want);
}

static const double vals[] = {0.0, -0.0, 1.0, -1.5, 3.0, INFINITY, -INFINITY, NAN};
enum { NV = sizeof vals / sizeof vals[0] };

/* fn at (x, y) in float (is_float) or double: ndcuda's parts in got, the C library's in want. */
static void eval_both(int is_float, int fn, double x, double y, double got[2], double want[2]) {
  if (is_float) {
    float re, im;
    nd_cs_evalf(fn, (float)x, (float)y, &re, &im);
    const float complex w = reff(fn, CMPLXF((float)x, (float)y));
    got[0] = re, got[1] = im, want[0] = crealf(w), want[1] = cimagf(w);
  } else {
    double re, im;
    nd_cs_eval(fn, x, y, &re, &im);
    const double complex w = ref(fn, CMPLX(x, y));
    got[0] = re, got[1] = im, want[0] = creal(w), want[1] = cimag(w);
  }
}

static void check_functions(int is_float) {
  const double ulp = is_float ? 0x1p-23 : 0x1p-52;
  int bad = 0, n = 0;
  for (int fn = 0; fn < 12; fn++)
    for (int i = 0; i < NV; i++)
      for (int j = 0; j < NV; j++) {
        const double x = vals[i], y = vals[j]; /* each exact in float too */
        if (isfinite(x) && isfinite(y)) continue;
        double got[2], want[2];
        eval_both(is_float, fn, x, y, got, want);
        n++;
        if (!same(got[0], want[0], ulp) || !same(got[1], want[1], ulp)) {
          if (bad++ < 20)
            fprintf(stderr, "%s%s(%g%+gi): ndcuda %g%+gi, C library %g%+gi\n", names[fn], is_float ? "f" : "", x,
                    y, got[0], got[1], want[0], want[1]);
        }
      }
  ck_assert_msg(bad == 0, "%d of %d %s results differ from the C library", bad, n, is_float ? "float" : "double");
}

START_TEST(test_functions_double) { check_functions(0); }
END_TEST

START_TEST(test_functions_float) { check_functions(1); }
END_TEST

/* Every pair of operands from the same set (finite ones too), against C's complex product. */
START_TEST(test_product) {
  int bad = 0, n = 0;
  for (int a = 0; a < NV; a++)
    for (int b = 0; b < NV; b++)
      for (int c = 0; c < NV; c++)
        for (int d = 0; d < NV; d++) {
          const double complex u = CMPLX(vals[a], vals[b]), v = CMPLX(vals[c], vals[d]);
          volatile double complex w = u * v; /* __muldc3 */
          const float complex uf = CMPLXF((float)vals[a], (float)vals[b]), vf = CMPLXF((float)vals[c], (float)vals[d]);
          volatile float complex wf = uf * vf;
          double re, im;
          float ref_, imf;
          nd_cs_mul(vals[a], vals[b], vals[c], vals[d], &re, &im);
          nd_cs_mulf((float)vals[a], (float)vals[b], (float)vals[c], (float)vals[d], &ref_, &imf);
          n++;
          if (!same(re, creal(w), 0) || !same(im, cimag(w), 0) || !same(ref_, crealf(wf), 0) ||
              !same(imf, cimagf(wf), 0)) {
            if (bad++ < 20)
              fprintf(stderr, "(%g%+gi)(%g%+gi): ndcuda %g%+gi, C %g%+gi\n", vals[a], vals[b], vals[c], vals[d], re,
                      im, creal(w), cimag(w));
          }
        }
  ck_assert_msg(bad == 0, "%d of %d products differ from C's", bad, n);
}
END_TEST

/* ---- finite arguments at every magnitude ---------------------------------------------------- */

void nd_cs_fin(int fn, double x, double y, double *re, double *im);
void nd_cs_finf(int fn, float x, float y, float *re, float *im);
int nd_cs_big(double x, double y);
int nd_cs_bigf(float x, float y);

static const char *const fin_names[] = {"csqrt", "clog", "csinh", "ccosh", "csin", "ccos",
                                        "catanh", "catan", "casinh", "cacosh", "casin"};
enum { NFIN = 11 };

static double complex fin_ref(int fn, double complex z) {
  switch (fn) {
    case 0: return csqrt(z);
    case 1: return clog(z);
    case 2: return csinh(z);
    case 3: return ccosh(z);
    case 4: return csin(z);
    case 5: return ccos(z);
    case 6: return catanh(z);
    case 7: return catan(z);
    case 8: return casinh(z);
    case 9: return cacosh(z);
    default: return casin(z);
  }
}
static float complex fin_reff(int fn, float complex z) {
  switch (fn) {
    case 0: return csqrtf(z);
    case 1: return clogf(z);
    case 2: return csinhf(z);
    case 3: return ccoshf(z);
    case 4: return csinf(z);
    case 5: return ccosf(z);
    case 6: return catanhf(z);
    case 7: return catanf(z);
    case 8: return casinhf(z);
    case 9: return cacoshf(z);
    default: return casinf(z);
  }
}

/* Magnitudes from the smallest subnormal to the largest finite number, through the places
 * where the formulas change (|z| near 1, exp's overflow threshold, 1/eps), with both signs. */
static const double mags[] = {4.9406564584124654e-324, 1e-310, 2.5e-308, 1e-300, 1e-160, 1e-20, 1e-8,
                              0.3, 0.6, 0.8, 0.999, 1.0, 1.0000001, 1.7, 3.0, 20.0, 108.7, 700.0,
                              710.0, 1000.0, 5e15, 1e20, 1e154, 1e300, 1.7976931348623157e308};
static const float magsf[] = {1.4e-45f, 1e-40f, 1.2e-38f, 1e-30f, 1e-20f, 1e-8f, 0.3f, 0.6f, 0.8f,
                              0.999f, 1.0f, 1.0000001f, 1.7f, 3.0f, 20.0f, 88.5f, 90.0f, 108.7f,
                              200.0f, 1e7f, 1e10f, 1e20f, 1e36f, 3.4028235e38f};

/* Agreement with the C library: the same infinity, or within k ulp of each part plus 4 eps of
 * the result's larger part (a part that cancels to near zero is only as good as that). */
static int close_to(double got, double want, double norm, double eps, double k) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  if (!isfinite(got)) return 0;
  return fabs(got - want) <= k * eps * fabs(want) + 4 * eps * norm;
}

static void check_finite(int is_float) {
  const double eps = is_float ? 0x1p-23 : 0x1p-52;
  const int nm = is_float ? (int)(sizeof magsf / sizeof magsf[0]) : (int)(sizeof mags / sizeof mags[0]);
  int bad = 0, n = 0;
  for (int fn = 0; fn < NFIN; fn++)
    for (int i = -nm; i < nm; i++)
      for (int j = -nm; j < nm; j++) {
        const double x = i < 0 ? -(is_float ? magsf[-i - 1] : mags[-i - 1]) : (is_float ? magsf[i] : mags[i]);
        const double y = j < 0 ? -(is_float ? magsf[-j - 1] : mags[-j - 1]) : (is_float ? magsf[j] : mags[j]);
        const int big = is_float ? nd_cs_bigf((float)x, (float)y) : nd_cs_big(x, y);
        if (fn >= 8 && !big) continue; /* the log(2z) forms are for huge arguments only */
        double got[2], want[2];
        if (is_float) {
          float re, im;
          nd_cs_finf(fn, (float)x, (float)y, &re, &im);
          const float complex w = fin_reff(fn, CMPLXF((float)x, (float)y));
          got[0] = re, got[1] = im, want[0] = crealf(w), want[1] = cimagf(w);
        } else {
          nd_cs_fin(fn, x, y, &got[0], &got[1]);
          const double complex w = fin_ref(fn, CMPLX(x, y));
          want[0] = creal(w), want[1] = cimag(w);
        }
        const double norm = fmax(fabs(want[0]), fabs(want[1]));
        n++;
        if (!close_to(got[0], want[0], norm, eps, 8) || !close_to(got[1], want[1], norm, eps, 8)) {
          if (bad++ < 25)
            fprintf(stderr, "%s%s(%.17g%+.17gi): ndcuda %.17g%+.17gi, C library %.17g%+.17gi\n", fin_names[fn],
                    is_float ? "f" : "", x, y, got[0], got[1], want[0], want[1]);
        }
      }
  ck_assert_msg(bad == 0, "%d of %d finite %s results differ from the C library", bad, n,
                is_float ? "float" : "double");
}

START_TEST(test_finite_double) { check_finite(0); }
END_TEST

START_TEST(test_finite_float) { check_finite(1); }
END_TEST

/* The cases of the report that found the unscaled formulas. */
START_TEST(test_finite_reported_cases) {
  double re, im;
  nd_cs_fin(0, -0.0, 4.9406564584124654e-324, &re, &im); /* sqrt(-0 + 5e-324j) */
  ck_assert_msg(isfinite(re) && isfinite(im) && re > 1e-162 && im > 1e-162, "sqrt: %g%+gi", re, im);
  nd_cs_fin(1, 1.7976931348623157e308, 1.7976931348623157e308, &re, &im); /* log near the max */
  ck_assert_msg(isfinite(re) && fabs(re - 710.12928648366392) < 1e-12, "log: %.17g", re);
  nd_cs_fin(7, 1.7976931348623157e308, -1.18, &re, &im); /* atan(max - 1.18j) */
  ck_assert_msg(fabs(re - 1.5707963267948966) < 1e-15, "atan real part %.17g, not pi/2", re);
  float rf, imf;
  nd_cs_finf(4, 1e-45f, 108.7f, &rf, &imf); /* complex64 sin(1e-45 + 108.7j) */
  ck_assert_msg(isfinite(rf) && isinf(imf), "sinf: %g%+gi", rf, imf);
}
END_TEST

void nd_cs_expm1(double x, double y, double *re, double *im);
void nd_cs_expm1f(float x, float y, float *re, float *im);

/* expm1 at every non-finite pair: the C library's cexp less one in the real part. */
START_TEST(test_expm1_against_cexp) {
  int bad = 0, n = 0;
  for (int is_float = 0; is_float < 2; is_float++) {
    const double ulp = is_float ? 0x1p-23 : 0x1p-52;
    for (int i = 0; i < NV; i++)
      for (int j = 0; j < NV; j++) {
        const double x = vals[i], y = vals[j];
        if (isfinite(x) && isfinite(y)) continue;
        double got[2], want[2];
        if (is_float) {
          float re, im;
          nd_cs_expm1f((float)x, (float)y, &re, &im);
          const float complex e = cexpf(CMPLXF((float)x, (float)y));
          got[0] = re, got[1] = im, want[0] = crealf(e) - 1, want[1] = cimagf(e);
        } else {
          nd_cs_expm1(x, y, &got[0], &got[1]);
          const double complex e = cexp(CMPLX(x, y));
          want[0] = creal(e) - 1, want[1] = cimag(e);
        }
        n++;
        if (!same(got[0], want[0], ulp) || !same(got[1], want[1], ulp)) {
          if (bad++ < 20)
            fprintf(stderr, "expm1%s(%g%+gi): ndcuda %g%+gi, cexp - 1 %g%+gi\n", is_float ? "f" : "", x, y, got[0],
                    got[1], want[0], want[1]);
        }
      }
  }
  ck_assert_msg(bad == 0, "%d of %d expm1 results differ from cexp - 1", bad, n);
}
END_TEST

/* The array API's special cases for complex expm1 (2025.12), as written there; a part whose
 * sign the standard leaves open is compared by magnitude. */
START_TEST(test_expm1_array_api_cases) {
  static const struct {
    double x, y, re, im;
    int any_sign_re, any_sign_im;
  } cs[] = {
      {INFINITY, 0.0, INFINITY, 0.0, 0, 0},       /* +inf + 0j -> +inf + 0j */
      {-INFINITY, 1.0, -1.0, 0.0, 0, 0},          /* -inf + bj -> +0 cis(b) - 1 */
      {-INFINITY, 3.0, -1.0, 0.0, 0, 0},
      {-INFINITY, -1.5, -1.0, -0.0, 0, 0},
      {INFINITY, 1.0, INFINITY, INFINITY, 0, 0},  /* +inf + bj -> +inf cis(b) - 1 */
      {INFINITY, 3.0, -INFINITY, INFINITY, 0, 0},
      {INFINITY, -1.5, INFINITY, -INFINITY, 0, 0},
      {-INFINITY, INFINITY, -1.0, 0.0, 0, 1},     /* -> -1 + 0j */
      {INFINITY, INFINITY, INFINITY, NAN, 1, 0},  /* -> inf + NaN j */
      {-INFINITY, NAN, -1.0, 0.0, 0, 1},          /* -> -1 + 0j */
      {INFINITY, NAN, INFINITY, NAN, 1, 0},       /* -> inf + NaN j */
      {NAN, 0.0, NAN, 0.0, 0, 0},                 /* -> NaN + 0j */
      {NAN, 1.0, NAN, NAN, 0, 0},                 /* b != 0 -> NaN + NaN j */
      {NAN, INFINITY, NAN, NAN, 0, 0},
      {NAN, NAN, NAN, NAN, 0, 0},
      {1.0, INFINITY, NAN, NAN, 0, 0},            /* finite a, b = +inf -> NaN + NaN j */
      {-0.0, INFINITY, NAN, NAN, 0, 0},
      {3.0, NAN, NAN, NAN, 0, 0},                 /* finite a, b = NaN -> NaN + NaN j */
  };
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
    for (int is_float = 0; is_float < 2; is_float++) {
      double g[2];
      if (is_float) {
        float re, im;
        nd_cs_expm1f((float)cs[k].x, (float)cs[k].y, &re, &im);
        g[0] = re, g[1] = im;
      } else {
        nd_cs_expm1(cs[k].x, cs[k].y, &g[0], &g[1]);
      }
      const double w[2] = {cs[k].re, cs[k].im};
      const int any[2] = {cs[k].any_sign_re, cs[k].any_sign_im};
      for (int p = 0; p < 2; p++) {
        const double gp = any[p] ? fabs(g[p]) : g[p], wp = any[p] ? fabs(w[p]) : w[p];
        ck_assert_msg(same(gp, wp, is_float ? 0x1p-23 : 0x1p-52), "expm1%s(%g%+gj): %s part %g, want %g",
                      is_float ? "f" : "", cs[k].x, cs[k].y, p ? "imaginary" : "real", g[p], w[p]);
      }
    }
}
END_TEST

static Suite *cspecial_suite(void) {
  Suite *s = suite_create("cspecial_host");
  TCase *tc = tcase_create("values");
  tcase_add_test(tc, test_functions_double);
  tcase_add_test(tc, test_functions_float);
  tcase_add_test(tc, test_product);
  tcase_add_test(tc, test_finite_double);
  tcase_add_test(tc, test_finite_float);
  tcase_add_test(tc, test_finite_reported_cases);
  tcase_add_test(tc, test_expm1_against_cexp);
  tcase_add_test(tc, test_expm1_array_api_cases);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(cspecial_suite()); }
