/* Host suite: the complex functions' values at infinite and NaN arguments
 * (kernels/cspecial.cuh, used by the device kernels) against the host C library, whose
 * csinh, ccosh, ctanh, csin, ccos, ctan, casinh, casin, cacos, cacosh, catanh and catan are
 * what NumPy calls on Linux, and against C's own complex product (Annex G's recovery of
 * infinities, as in NumPy's complex power). Every pair (x, y) from {+-0, 1, -1.5, 3, +-inf,
 * NaN} with x or y non-finite, in float and double: both parts must match, NaN matching
 * NaN and zeros matching in sign. */
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

static Suite *cspecial_suite(void) {
  Suite *s = suite_create("cspecial_host");
  TCase *tc = tcase_create("values");
  tcase_add_test(tc, test_functions_double);
  tcase_add_test(tc, test_functions_float);
  tcase_add_test(tc, test_product);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return nd_test_main(cspecial_suite()); }
