/* The distribution entry points: parameter and dtype checks, output allocation, and the write
 * of one fill through the hazard tracker.
 *
 * Every public function checks its parameters first (no device needed for that), fills an
 * nd_krparams and calls nd__rand_new or nd__rand_into. Both end in nd__rand_write, which runs
 * the kernel straight into the destination when it is C-contiguous, 16-byte aligned and of the
 * kernel's dtype, and otherwise into a C-ordered temporary that nd__assign then copies (and
 * converts) into place. The values are thus the same, element by element in C order, whatever
 * the destination's layout. */
#include <math.h>
#include <stdint.h>

#include "random/random_internal.h"

/* Output families: which dtypes a distribution produces and which dtype its kernel writes. */
enum nd__family {
  ND__FAM_REAL = 0,  /* float32, float64 (default) */
  ND__FAM_COUNT = 1, /* int32, int64 (default): poisson, binomial */
  ND__FAM_INT = 2,   /* bool and every integer dtype (default int64): integers */
  ND__FAM_BOOL = 3   /* bool (default), integers, float32, float64: bernoulli, via 0/1 bytes */
};

static const char *const nd__family_dtypes[] = {
    "float32 or float64", "int32 or int64", "bool or an integer dtype",
    "bool, an integer dtype, float32 or float64"};

/* Resolves ND_DTYPE_DEFAULT and checks the dtype; writes the dtype the kernel writes. */
static nd_status nd__rand_dtype(const char *fn, int family, nd_dtype *dtype, nd_dtype *kernel) {
  static const nd_dtype defaults[] = {ND_FLOAT64, ND_INT64, ND_INT64, ND_BOOL};
  if (*dtype == ND_DTYPE_DEFAULT) *dtype = defaults[family];
  const nd_dtype d = *dtype;
  const char k = nd_dtype_is_valid(d) ? nd_dtype_kind(d) : 0;
  int ok;
  switch (family) {
    case ND__FAM_REAL: ok = d == ND_FLOAT32 || d == ND_FLOAT64; break;
    case ND__FAM_COUNT: ok = d == ND_INT32 || d == ND_INT64; break;
    case ND__FAM_INT: ok = k == ND_KIND_BOOL || k == ND_KIND_INT || k == ND_KIND_UINT; break;
    default:
      ok = k == ND_KIND_BOOL || k == ND_KIND_INT || k == ND_KIND_UINT || d == ND_FLOAT32 ||
           d == ND_FLOAT64;
      break;
  }
  if (!ok)
    return nd__error(ND_ERR_DTYPE, "%s: unsupported dtype %s (this distribution produces %s)", fn,
                     nd_dtype_is_valid(d) ? nd_dtype_name(d) : "(invalid)", nd__family_dtypes[family]);
  /* Bernoulli's 0/1 bytes are valid bool, int8 and uint8 elements; wider dtypes convert. */
  *kernel = family == ND__FAM_BOOL ? (d == ND_INT8 || d == ND_UINT8 ? d : ND_BOOL) : d;
  return ND_OK;
}

nd_status nd__random_run(const char *fn, nd_generator *gen, const nd_krparams *p, nd_array *dst) {
  const int64_t n = dst->size;
  if (n == 0) return ND_OK;
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, dst, &s));
  const uint64_t nblocks =
      nd_kr_blocks(n, nd_kr_per_block(p, (int)nd_dtype_itemsize(dst->dtype)));
  nd__sync sync;
  nd__sync_init(&sync, s);
  ND_TRY(nd__sync_add(&sync, &dst->buf->hz, ND__WRITE));
  nd_krng rng;
  ND_TRY(nd__generator_begin(fn, gen, &sync, &rng));
  nd_status st = nd_kr_fill(&rng, p, (char *)dst->buf->ptr + dst->offset, (int)dst->dtype, n, s->cu);
  return nd__generator_end(fn, gen, &sync, nblocks, st);
}

static nd_status nd__rand_write(const char *fn, nd_generator *gen, const nd_krparams *p,
                                nd_dtype kernel, nd_array *dst) {
  if (dst->size == 0) return ND_OK;
  const uintptr_t addr = (uintptr_t)dst->buf->ptr + (uintptr_t)dst->offset;
  if (dst->dtype == kernel && nd_array_is_c_contiguous(dst) && addr % 16 == 0)
    return nd__random_run(fn, gen, p, dst);
  nd_array *tmp;
  ND_TRY(nd__array_alloc(fn, dst->ndim, dst->shape, kernel, 'C', &tmp));
  nd_status st = nd__random_run(fn, gen, p, tmp);
  if (st == ND_OK) st = nd__assign(fn, dst, tmp);
  nd_array_release(tmp);
  return st;
}

static nd_status nd__rand_new(const char *fn, nd_generator *gen, const nd_krparams *p, int family,
                              int ndim, const int64_t *shape, nd_dtype dtype, nd_array **result) {
  ND_CHECK_NULL(fn, result);
  nd_dtype kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, family, &dtype, &kernel));
  int64_t count;
  ND_TRY(nd__shape_count(fn, ndim, shape, &count));
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  nd_array *r = NULL;
  ND_TRY(nd__array_alloc(fn, ndim, shape, dtype, 'C', &r));
  nd_status st = nd__rand_write(fn, g, p, kernel, r);
  if (st != ND_OK) {
    nd_array_release(r);
    return st;
  }
  *result = r;
  return ND_OK;
}

static nd_status nd__rand_into(const char *fn, nd_generator *gen, const nd_krparams *p, int family,
                               nd_array *out) {
  ND_CHECK_NULL(fn, out);
  nd_dtype dtype = out->dtype, kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, family, &dtype, &kernel));
  if (!out->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: argument 'out' is read-only (a broadcast or diagonal "
                     "view, or marked so)", fn);
  nd_generator *g = NULL;
  ND_TRY(nd__generator_resolve(fn, gen, &g));
  return nd__rand_write(fn, g, p, kernel, out);
}

/* ---- parameter checks --------------------------------------------------------------------------- */

static nd_krparams nd__params(int dist, double a, double b) {
  nd_krparams p = {0};
  p.dist = dist;
  p.a = a;
  p.b = b;
  return p;
}

/* x >= 0 (NaN fails). */
static nd_status nd__nonneg(const char *fn, const char *name, double x) {
  if (!(x >= 0.0))
    return nd__error(ND_ERR_VALUE, "%s: argument '%s' must be >= 0 (got %g)", fn, name, x);
  return ND_OK;
}

/* x > 0 (NaN fails). */
static nd_status nd__positive(const char *fn, const char *name, double x) {
  if (!(x > 0.0))
    return nd__error(ND_ERR_VALUE, "%s: argument '%s' must be > 0 (got %g)", fn, name, x);
  return ND_OK;
}

static nd_status nd__probability(const char *fn, const char *name, double x) {
  if (!(x >= 0.0 && x <= 1.0))
    return nd__error(ND_ERR_VALUE, "%s: argument '%s' must be in [0, 1] (got %g)", fn, name, x);
  return ND_OK;
}

static nd_status nd__uniform_params(const char *fn, double low, double high, nd_krparams *p) {
  if (!isfinite(low) || !isfinite(high))
    return nd__error(ND_ERR_VALUE, "%s: arguments 'low' and 'high' must be finite (low = %g, high "
                     "= %g)", fn, low, high);
  if (!(low < high))
    return nd__error(ND_ERR_VALUE, "%s: low >= high (low = %g, high = %g)", fn, low, high);
  if (!isfinite(high - low))
    return nd__error(ND_ERR_VALUE, "%s: high - low overflows (low = %g, high = %g)", fn, low, high);
  *p = nd__params(ND_KR_UNIFORM, low, high - low);
  return ND_OK;
}

/* ---- continuous distributions ------------------------------------------------------------------- */

/* NULL result or shape is reported before any parameter: a NULL is a programming error the
 * caller must see whatever else is wrong. */
static nd_status nd__rand_out_args(const char *fn, int ndim, const int64_t *shape, nd_array **result) {
  ND_CHECK_NULL(fn, result);
  if (ndim > 0) ND_CHECK_NULL(fn, shape);
  return ND_OK;
}

nd_status nd_random_random(nd_generator *gen, int ndim, const int64_t *shape, nd_dtype dtype,
                           nd_array **result) {
  const nd_krparams p = nd__params(ND_KR_UNIFORM, 0.0, 1.0);
  return nd__rand_new("nd_random_random", gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_random_into(nd_generator *gen, nd_array *out) {
  const nd_krparams p = nd__params(ND_KR_UNIFORM, 0.0, 1.0);
  return nd__rand_into("nd_random_random_into", gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_uniform(nd_generator *gen, double low, double high, int ndim,
                            const int64_t *shape, nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_uniform";
  nd_krparams p;
  ND_TRY(nd__uniform_params(fn, low, high, &p));
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_uniform_into(nd_generator *gen, double low, double high, nd_array *out) {
  const char *fn = "nd_random_uniform_into";
  nd_krparams p;
  ND_TRY(nd__uniform_params(fn, low, high, &p));
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_standard_normal(nd_generator *gen, int ndim, const int64_t *shape,
                                    nd_dtype dtype, nd_array **result) {
  const nd_krparams p = nd__params(ND_KR_NORMAL, 0.0, 1.0);
  return nd__rand_new("nd_random_standard_normal", gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_standard_normal_into(nd_generator *gen, nd_array *out) {
  const nd_krparams p = nd__params(ND_KR_NORMAL, 0.0, 1.0);
  return nd__rand_into("nd_random_standard_normal_into", gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_normal(nd_generator *gen, double loc, double scale, int ndim,
                           const int64_t *shape, nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_normal";
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_NORMAL, loc, scale);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_normal_into(nd_generator *gen, double loc, double scale, nd_array *out) {
  const char *fn = "nd_random_normal_into";
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_NORMAL, loc, scale);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_lognormal(nd_generator *gen, double mean, double sigma, int ndim,
                              const int64_t *shape, nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_lognormal";
  ND_TRY(nd__nonneg(fn, "sigma", sigma));
  const nd_krparams p = nd__params(ND_KR_LOGNORMAL, mean, sigma);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_lognormal_into(nd_generator *gen, double mean, double sigma, nd_array *out) {
  const char *fn = "nd_random_lognormal_into";
  ND_TRY(nd__nonneg(fn, "sigma", sigma));
  const nd_krparams p = nd__params(ND_KR_LOGNORMAL, mean, sigma);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_standard_exponential(nd_generator *gen, int ndim, const int64_t *shape,
                                         nd_dtype dtype, nd_array **result) {
  const nd_krparams p = nd__params(ND_KR_EXPONENTIAL, 0.0, 1.0);
  return nd__rand_new("nd_random_standard_exponential", gen, &p, ND__FAM_REAL, ndim, shape, dtype,
                      result);
}

nd_status nd_random_standard_exponential_into(nd_generator *gen, nd_array *out) {
  const nd_krparams p = nd__params(ND_KR_EXPONENTIAL, 0.0, 1.0);
  return nd__rand_into("nd_random_standard_exponential_into", gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_exponential(nd_generator *gen, double scale, int ndim, const int64_t *shape,
                                nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_exponential";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_EXPONENTIAL, 0.0, scale);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_exponential_into(nd_generator *gen, double scale, nd_array *out) {
  const char *fn = "nd_random_exponential_into";
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_EXPONENTIAL, 0.0, scale);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_standard_gamma(nd_generator *gen, double k, int ndim, const int64_t *shape,
                                   nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_standard_gamma";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  ND_TRY(nd__nonneg(fn, "k", k));
  const nd_krparams p = nd__params(ND_KR_GAMMA, k, 1.0);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_standard_gamma_into(nd_generator *gen, double k, nd_array *out) {
  const char *fn = "nd_random_standard_gamma_into";
  ND_TRY(nd__nonneg(fn, "k", k));
  const nd_krparams p = nd__params(ND_KR_GAMMA, k, 1.0);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_gamma(nd_generator *gen, double k, double scale, int ndim,
                          const int64_t *shape, nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_gamma";
  ND_TRY(nd__nonneg(fn, "k", k));
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_GAMMA, k, scale);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_gamma_into(nd_generator *gen, double k, double scale, nd_array *out) {
  const char *fn = "nd_random_gamma_into";
  ND_TRY(nd__nonneg(fn, "k", k));
  ND_TRY(nd__nonneg(fn, "scale", scale));
  const nd_krparams p = nd__params(ND_KR_GAMMA, k, scale);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_beta(nd_generator *gen, double a, double b, int ndim, const int64_t *shape,
                         nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_beta";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  ND_TRY(nd__positive(fn, "a", a));
  ND_TRY(nd__positive(fn, "b", b));
  const nd_krparams p = nd__params(ND_KR_BETA, a, b);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_beta_into(nd_generator *gen, double a, double b, nd_array *out) {
  const char *fn = "nd_random_beta_into";
  ND_TRY(nd__positive(fn, "a", a));
  ND_TRY(nd__positive(fn, "b", b));
  const nd_krparams p = nd__params(ND_KR_BETA, a, b);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

nd_status nd_random_chisquare(nd_generator *gen, double df, int ndim, const int64_t *shape,
                              nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_chisquare";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  ND_TRY(nd__positive(fn, "df", df));
  const nd_krparams p = nd__params(ND_KR_GAMMA, df / 2.0, 2.0);
  return nd__rand_new(fn, gen, &p, ND__FAM_REAL, ndim, shape, dtype, result);
}

nd_status nd_random_chisquare_into(nd_generator *gen, double df, nd_array *out) {
  const char *fn = "nd_random_chisquare_into";
  ND_TRY(nd__positive(fn, "df", df));
  const nd_krparams p = nd__params(ND_KR_GAMMA, df / 2.0, 2.0);
  return nd__rand_into(fn, gen, &p, ND__FAM_REAL, out);
}

/* ---- discrete distributions --------------------------------------------------------------------- */

/* NumPy's POISSON_LAM_MAX: INT64_MAX - 10 sqrt(INT64_MAX), so that lam + 10 sigma fits; the
 * same rule for int32. */
static nd_status nd__poisson_params(const char *fn, double lam, nd_dtype dtype, nd_krparams *p) {
  ND_TRY(nd__nonneg(fn, "lam", lam));
  const double top = dtype == ND_INT32 ? 2147483647.0 : 9223372036854775807.0;
  const double max = top - 10.0 * sqrt(top);
  if (lam > max)
    return nd__error(ND_ERR_VALUE, "%s: argument 'lam' is too large for %s (got %g, the largest "
                     "is %g)", fn, nd_dtype_name(dtype), lam, max);
  *p = nd__params(ND_KR_POISSON, lam, 0.0);
  return ND_OK;
}

nd_status nd_random_poisson(nd_generator *gen, double lam, int ndim, const int64_t *shape,
                            nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_poisson";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  nd_dtype kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_COUNT, &dtype, &kernel));
  nd_krparams p;
  ND_TRY(nd__poisson_params(fn, lam, dtype, &p));
  return nd__rand_new(fn, gen, &p, ND__FAM_COUNT, ndim, shape, dtype, result);
}

nd_status nd_random_poisson_into(nd_generator *gen, double lam, nd_array *out) {
  const char *fn = "nd_random_poisson_into";
  ND_CHECK_NULL(fn, out);
  nd_dtype dtype = out->dtype, kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_COUNT, &dtype, &kernel));
  nd_krparams p;
  ND_TRY(nd__poisson_params(fn, lam, dtype, &p));
  return nd__rand_into(fn, gen, &p, ND__FAM_COUNT, out);
}

static nd_status nd__binomial_params(const char *fn, int64_t n, double prob, nd_dtype dtype,
                                     nd_krparams *p) {
  if (n < 0)
    return nd__error(ND_ERR_VALUE, "%s: argument 'n' must be >= 0 (got %lld)", fn, (long long)n);
  ND_TRY(nd__probability(fn, "p", prob));
  if (dtype == ND_INT32 && n > INT32_MAX)
    return nd__error(ND_ERR_VALUE, "%s: argument 'n' = %lld does not fit dtype int32", fn,
                     (long long)n);
  *p = nd__params(ND_KR_BINOMIAL, prob, 0.0);
  p->n = n;
  return ND_OK;
}

nd_status nd_random_binomial(nd_generator *gen, int64_t n, double p, int ndim, const int64_t *shape,
                             nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_binomial";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  nd_dtype kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_COUNT, &dtype, &kernel));
  nd_krparams kp;
  ND_TRY(nd__binomial_params(fn, n, p, dtype, &kp));
  return nd__rand_new(fn, gen, &kp, ND__FAM_COUNT, ndim, shape, dtype, result);
}

nd_status nd_random_binomial_into(nd_generator *gen, int64_t n, double p, nd_array *out) {
  const char *fn = "nd_random_binomial_into";
  ND_CHECK_NULL(fn, out);
  nd_dtype dtype = out->dtype, kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_COUNT, &dtype, &kernel));
  nd_krparams kp;
  ND_TRY(nd__binomial_params(fn, n, p, dtype, &kp));
  return nd__rand_into(fn, gen, &kp, ND__FAM_COUNT, out);
}

nd_status nd_random_integers(nd_generator *gen, nd_scalar low, nd_scalar high, int endpoint,
                             int ndim, const int64_t *shape, nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_integers";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  nd_dtype kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_INT, &dtype, &kernel));
  /* Whether there is anything to draw; a bad ndim or shape is reported by nd__rand_new, after
   * the bounds, in NumPy's order, so it is only kept from being read here. */
  int64_t count = 1;
  for (int i = 0; ndim <= ND_MAXDIMS && i < ndim; i++) count = shape[i] == 0 ? 0 : count;
  nd_krparams p;
  ND_TRY(nd__random_int_params(fn, low, high, endpoint, dtype, count, &p));
  return nd__rand_new(fn, gen, &p, ND__FAM_INT, ndim, shape, dtype, result);
}

nd_status nd_random_integers_into(nd_generator *gen, nd_scalar low, nd_scalar high, int endpoint,
                                  nd_array *out) {
  const char *fn = "nd_random_integers_into";
  ND_CHECK_NULL(fn, out);
  nd_dtype dtype = out->dtype, kernel = ND_BOOL;
  ND_TRY(nd__rand_dtype(fn, ND__FAM_INT, &dtype, &kernel));
  nd_krparams p;
  ND_TRY(nd__random_int_params(fn, low, high, endpoint, dtype, out->size, &p));
  return nd__rand_into(fn, gen, &p, ND__FAM_INT, out);
}

nd_status nd_random_bernoulli(nd_generator *gen, double p, int ndim, const int64_t *shape,
                              nd_dtype dtype, nd_array **result) {
  const char *fn = "nd_random_bernoulli";
  ND_TRY(nd__rand_out_args(fn, ndim, shape, result));
  ND_TRY(nd__probability(fn, "p", p));
  const nd_krparams kp = nd__params(ND_KR_BERNOULLI, p, 0.0);
  return nd__rand_new(fn, gen, &kp, ND__FAM_BOOL, ndim, shape, dtype, result);
}

nd_status nd_random_bernoulli_into(nd_generator *gen, double p, nd_array *out) {
  const char *fn = "nd_random_bernoulli_into";
  ND_TRY(nd__probability(fn, "p", p));
  const nd_krparams kp = nd__params(ND_KR_BERNOULLI, p, 0.0);
  return nd__rand_into(fn, gen, &kp, ND__FAM_BOOL, out);
}
