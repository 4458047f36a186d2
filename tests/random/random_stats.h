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
#include <string.h>

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

/* Whether the sample mean and spread agree with mu and sigma2 within z standard errors.
 *
 * The spread is checked as T = (1/n) sum (x_i - mu)^2, the mean square about the wanted mean,
 * not as the sample variance s^2. T is a plain average of the independent values
 * y_i = (x_i - mu)^2, whose mean is sigma2, so the normal approximation with the standard error
 * sd(y) / sqrt(n) (sd(y) estimated from the sample) applies to it directly. The sample variance
 * is s^2 = n/(n-1) (T - (m - mu)^2): besides the first-order fluctuation of T it carries the
 * second-order term (m - mu)^2, which is sigma2/n times a chi-square(1) variable and is not
 * covered by sd(y) / sqrt(n). Where sd(y) vanishes the difference is decisive: for Bernoulli(1/2)
 * every y_i is exactly 1/4, so T equals sigma2 exactly, while s^2 = n/(n-1) (1/4 - (m - 1/2)^2)
 * still moves by about sigma2/n = 5e-7 at n = 2^19; checking s^2 against a standard error of 0
 * rejected correct samples. Elsewhere T and s^2 differ by O(sigma2/n), far below
 * z sd(y)/sqrt(n), so the check has the same power as before. The 1e-12 relative floor absorbs
 * rounding in the sums. `why` reports the mean, T and, for reference, s^2. */
static inline int nd_st_moments_ok(const double *x, int64_t n, double mu, double sigma2, double z,
                                   char *why, size_t cap) {
  double m, v, t = 0.0, ss = 0.0;
  nd_st_moments(x, n, &m, &v, NULL);
  for (int64_t i = 0; i < n; i++) t += (x[i] - mu) * (x[i] - mu);
  t /= (double)n;
  for (int64_t i = 0; i < n; i++) {
    const double e = (x[i] - mu) * (x[i] - mu) - t;
    ss += e * e;
  }
  const double se_mean = sqrt(sigma2 / (double)n), se_t = sqrt(ss / (double)n / (double)n);
  const int ok = fabs(m - mu) <= z * se_mean + 1e-300 && fabs(t - sigma2) <= z * se_t + 1e-12 * sigma2;
  if (why != NULL) {
    snprintf(why, cap,
             "mean %.8g (want %.8g, se %.3g), mean square about %.8g %.8g (want %.8g, se %.3g), sample "
             "variance %.8g",
             m, mu, se_mean, mu, t, sigma2, se_t, v);
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

/* Sorts x ascending: an LSD radix sort (eight 8-bit digits) of the IEEE bit patterns mapped to
 * unsigned integers that order like the doubles (negative: all bits flipped; positive: sign bit
 * set). The suites sort millions of samples for their KS tests, where qsort through a comparison
 * function took most of the suite's run time. -0.0 sorts before +0.0; NaNs go to the ends. Falls
 * back to qsort if the scratch buffer cannot be allocated. */
static inline void nd_st_sort(double *x, int64_t n) {
  if (n < 2) return;
  uint64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  int64_t *count = calloc(8 * 256, sizeof *count);
  if (a == NULL || b == NULL || count == NULL) {
    free(a);
    free(b);
    free(count);
    qsort(x, (size_t)n, sizeof *x, nd_st_cmp_double);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[i], sizeof u);
    u = (u >> 63) ? ~u : (u | 0x8000000000000000ull);
    a[i] = u;
    for (int d = 0; d < 8; d++) count[d * 256 + ((u >> (8 * d)) & 0xff)]++;
  }
  for (int d = 0; d < 8; d++) {
    int64_t *c = count + d * 256, sum = 0;
    if (c[(a[0] >> (8 * d)) & 0xff] == n) continue; /* one value of this digit: order unchanged */
    for (int k = 0; k < 256; k++) {
      const int64_t t = c[k];
      c[k] = sum;
      sum += t;
    }
    for (int64_t i = 0; i < n; i++) b[c[(a[i] >> (8 * d)) & 0xff]++] = a[i];
    uint64_t *t = a;
    a = b;
    b = t;
  }
  for (int64_t i = 0; i < n; i++) {
    uint64_t u = a[i];
    u = (u >> 63) ? (u & 0x7fffffffffffffffull) : ~u;
    memcpy(&x[i], &u, sizeof u);
  }
  free(a);
  free(b);
  free(count);
}

/* The KS statistic D = max_i max(F(x_i) - i/n, (i+1)/n - F(x_i)) of sorted x, evaluating the cdf
 * at every point: the reference that nd_st_ks's shortcut is tested against. */
static inline double nd_st_ks_d_full(const double *x, int64_t n, double (*cdf)(double, const double *),
                                     const double *ctx) {
  double d = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double f = cdf(x[i], ctx);
    const double lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
    if (lo > d) d = lo;
    if (hi > d) d = hi;
  }
  return d;
}

typedef struct nd_st_ks_block {
  double bound;
  int64_t first;
} nd_st_ks_block;

static int nd_st_cmp_block_desc(const void *a, const void *b) {
  const double x = ((const nd_st_ks_block *)a)->bound, y = ((const nd_st_ks_block *)b)->bound;
  return (x < y) - (x > y);
}

/* One-sample Kolmogorov-Smirnov test of x (sorted in place) against a continuous cdf(x, ctx).
 * Writes the statistic D and returns the p-value.
 *
 * D is the same as nd_st_ks_d_full's (to 1e-9), with far fewer cdf evaluations, which cost about
 * a microsecond each for the incomplete gamma and beta functions. The sorted sample is cut into
 * blocks of 64 and F is evaluated at each block's first point and at the last point. Because F
 * is non-decreasing, within a block [a, b] (next block starting at c, or c = b = n - 1 at the
 * end) F(x_i) - i/n <= F(x_c) - a/n and (i+1)/n - F(x_i) <= (b+1)/n - F(x_a). Blocks are visited
 * by decreasing bound and evaluated point by point only while the bound exceeds the D found so
 * far (plus 1e-9 for cdfs that are monotone only to rounding); the rest cannot hold the maximum.
 * Typically a few percent of the points get evaluated. */
static inline double nd_st_ks(double *x, int64_t n, double (*cdf)(double, const double *),
                              const double *ctx, double *d_out) {
  enum { BLOCK = 64 };
  if (n <= 0) {
    if (d_out != NULL) *d_out = 0.0;
    return 1.0;
  }
  nd_st_sort(x, n);
  const int64_t nb = (n + BLOCK - 1) / BLOCK;
  double *fa = malloc((size_t)(nb + 1) * sizeof *fa);
  nd_st_ks_block *blk = malloc((size_t)nb * sizeof *blk);
  double d = 0.0;
  if (fa == NULL || blk == NULL) {
    d = nd_st_ks_d_full(x, n, cdf, ctx);
  } else {
    const double dn = (double)n;
    for (int64_t j = 0; j < nb; j++) fa[j] = cdf(x[j * BLOCK], ctx);
    fa[nb] = cdf(x[n - 1], ctx);
    for (int64_t j = 0; j <= nb; j++) { /* the exact terms at the evaluated points */
      const int64_t i = j < nb ? j * BLOCK : n - 1;
      const double lo = fa[j] - (double)i / dn, hi = (double)(i + 1) / dn - fa[j];
      if (lo > d) d = lo;
      if (hi > d) d = hi;
    }
    for (int64_t j = 0; j < nb; j++) {
      const int64_t a = j * BLOCK, b = a + BLOCK < n ? a + BLOCK - 1 : n - 1;
      const double up = fa[j + 1] - (double)a / dn, down = (double)(b + 1) / dn - fa[j];
      blk[j].bound = up > down ? up : down;
      blk[j].first = a;
    }
    qsort(blk, (size_t)nb, sizeof *blk, nd_st_cmp_block_desc);
    for (int64_t j = 0; j < nb && blk[j].bound > d + 1e-9; j++) {
      const int64_t a = blk[j].first, b = a + BLOCK < n ? a + BLOCK : n;
      for (int64_t i = a + 1; i < b; i++) {
        const double f = cdf(x[i], ctx);
        const double lo = f - (double)i / dn, hi = (double)(i + 1) / dn - f;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
      }
    }
  }
  free(fa);
  free(blk);
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
