/* Statistics for the random suites: moments, distribution functions, and the Kolmogorov-Smirnov
 * and chi-square goodness-of-fit tests. Plain host C, checked against known values by
 * test_random_host.c before test_random.c relies on it.
 *
 * Special functions follow Numerical Recipes (3rd ed.): the regularised incomplete gamma by its
 * series below a + 1 and its continued fraction above, the regularised incomplete beta by its
 * continued fraction (Lentz), and the Kolmogorov distribution by its alternating series with
 * Stephens' small-sample correction. Accuracy is about 1e-12 relative, far beyond what a test
 * at a p-value threshold of 1e-6 needs. */
#ifndef ND_RANDOM_STATS_H
#define ND_RANDOM_STATS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Sample mean, variance (n - 1 denominator) and fourth central moment. */
static inline void nd_st_moments(const double *x, int64_t n, double *mean, double *var, double *m4) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i];
  const double m = s / (double)n;
  double s2 = 0.0, s4 = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double d = x[i] - m, d2 = d * d;
    s2 += d2;
    s4 += d2 * d2;
  }
  *mean = m;
  *var = n > 1 ? s2 / (double)(n - 1) : 0.0;
  if (m4 != NULL) *m4 = s4 / (double)n;
}

/* Whether the sample mean and variance agree with mu and sigma2 within z standard errors (the
 * variance's standard error estimated from the sample's fourth moment). */
static inline int nd_st_moments_ok(const double *x, int64_t n, double mu, double sigma2, double z,
                                   char *why, size_t cap) {
  double m, v, m4;
  nd_st_moments(x, n, &m, &v, &m4);
  const double se_mean = sqrt(sigma2 / (double)n);
  double se_var = sqrt(fmax(m4 - v * v, 0.0) / (double)n);
  if (se_var == 0.0) se_var = 1e-300;
  const int ok = fabs(m - mu) <= z * se_mean + 1e-300 && fabs(v - sigma2) <= z * se_var + 1e-12 * sigma2;
  if (why != NULL) {
    snprintf(why, cap, "mean %.8g (want %.8g, se %.3g), variance %.8g (want %.8g, se %.3g)", m, mu,
             se_mean, v, sigma2, se_var);
  }
  return ok;
}

static inline double nd_st_normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Regularised lower incomplete gamma P(a, x), a > 0, x >= 0. */
static inline double nd_st_gamma_p(double a, double x) {
  if (x <= 0.0) return 0.0;
  const double lead = a * log(x) - x - lgamma(a);
  if (x < a + 1.0) {
    double ap = a, del = 1.0 / a, sum = del;
    for (int i = 0; i < 10000; i++) {
      ap += 1.0;
      del *= x / ap;
      sum += del;
      if (fabs(del) < fabs(sum) * 1e-16) break;
    }
    return sum * exp(lead);
  }
  double b = x + 1.0 - a, c = 1.0 / 1e-300, d = 1.0 / b, h = d;
  for (int i = 1; i < 10000; i++) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (fabs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (fabs(c) < 1e-300) c = 1e-300;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < 1e-16) break;
  }
  return 1.0 - exp(lead) * h;
}

/* Survival function of the chi-square distribution with df degrees of freedom. */
static inline double nd_st_chi2_sf(double x, double df) { return 1.0 - nd_st_gamma_p(df / 2.0, x / 2.0); }

static inline double nd_st_betacf(double a, double b, double x) {
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (fabs(d) < 1e-300) d = 1e-300;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 10000; m++) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (fabs(d) < 1e-300) d = 1e-300;
    c = 1.0 + aa / c;
    if (fabs(c) < 1e-300) c = 1e-300;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (fabs(d) < 1e-300) d = 1e-300;
    c = 1.0 + aa / c;
    if (fabs(c) < 1e-300) c = 1e-300;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < 1e-16) break;
  }
  return h;
}

/* Regularised incomplete beta I_x(a, b). */
static inline double nd_st_beta_cdf(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return exp(lbt) * nd_st_betacf(a, b, x) / a;
  return 1.0 - exp(lbt) * nd_st_betacf(b, a, 1.0 - x) / b;
}

/* Kolmogorov's survival function Q(lambda) = 2 sum (-1)^(k-1) exp(-2 k^2 lambda^2). */
static inline double nd_st_kolmogorov_q(double lambda) {
  if (lambda < 0.2) return 1.0;
  double sum = 0.0, sign = 1.0;
  for (int k = 1; k <= 200; k++) {
    const double term = exp(-2.0 * k * k * lambda * lambda);
    sum += sign * term;
    sign = -sign;
    if (term < 1e-18) break;
  }
  const double q = 2.0 * sum;
  return q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
}

static int nd_st_cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One-sample Kolmogorov-Smirnov test of x (sorted in place) against a continuous cdf(x, ctx).
 * Writes the statistic D and returns the p-value. */
static inline double nd_st_ks(double *x, int64_t n, double (*cdf)(double, const double *),
                              const double *ctx, double *d_out) {
  qsort(x, (size_t)n, sizeof *x, nd_st_cmp_double);
  double d = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double f = cdf(x[i], ctx);
    const double lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
    if (lo > d) d = lo;
    if (hi > d) d = hi;
  }
  if (d_out != NULL) *d_out = d;
  const double sn = sqrt((double)n);
  return nd_st_kolmogorov_q((sn + 0.12 + 0.11 / sn) * d);
}

/* Chi-square goodness of fit of observed counts against probabilities prob[0..k) (summing to at
 * most 1; the rest is a final "other" bin with observed count `other`). Adjacent bins are pooled
 * until each expected count is at least 5. Writes the statistic and degrees of freedom and
 * returns the p-value (1 when fewer than two bins remain). */
static inline double nd_st_chi2_counts(const int64_t *observed, const double *prob, int64_t k,
                                       int64_t other, int64_t total, double *stat_out, int *df_out) {
  double stat = 0.0, acc_e = 0.0, acc_o = 0.0, psum = 0.0;
  int bins = 0;
  for (int64_t i = 0; i < k; i++) {
    acc_e += prob[i] * (double)total;
    acc_o += (double)observed[i];
    psum += prob[i];
    if (acc_e >= 5.0) {
      stat += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
      bins++;
      acc_e = acc_o = 0.0;
    }
  }
  acc_e += (1.0 - psum) * (double)total;
  acc_o += (double)other;
  if (acc_e > 1e-9) {
    stat += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
    bins++;
  } else if (acc_o > 0.0) {
    stat = INFINITY; /* counts where the distribution has (essentially) no mass */
    bins++;
  }
  if (stat_out != NULL) *stat_out = stat;
  if (df_out != NULL) *df_out = bins - 1;
  if (bins < 2) return 1.0;
  return isinf(stat) ? 0.0 : nd_st_chi2_sf(stat, bins - 1);
}

/* Probability mass functions. */
static inline double nd_st_poisson_pmf(int64_t k, double lam) {
  if (lam == 0.0) return k == 0 ? 1.0 : 0.0;
  return exp((double)k * log(lam) - lam - lgamma((double)k + 1.0));
}

static inline double nd_st_binomial_pmf(int64_t k, int64_t n, double p) {
  if (p == 0.0) return k == 0 ? 1.0 : 0.0;
  if (p == 1.0) return k == n ? 1.0 : 0.0;
  return exp(lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0) +
             (double)k * log(p) + (double)(n - k) * log1p(-p));
}

#endif /* ND_RANDOM_STATS_H */
