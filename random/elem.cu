/* The rejection samplers: gamma (and chisquare), beta, poisson, binomial.
 *
 * One element per block: element j starts at counter offset + j and draws as many words as its
 * rejection loop needs (random/philox.h), so its value does not depend on its neighbours.
 * Everything is computed in double precision and converted to the output dtype at the store.
 * The algorithms are NumPy's (numpy/random/src/distributions/distributions.c) except for
 * binomial, which uses Hormann's BTRS ("The generation of binomial random variates", 1993,
 * as in TensorFlow and PyTorch) instead of BTPE: it is exact, simpler, and needs no setup.
 * Per-call constants (parameters are scalars) are computed once per thread, outside the loop.
 * Launch geometry: grid-stride loops of 256 threads (engine.cuh decides the grid). */
#include <math.h>

#include "random/engine.cuh"

namespace {

template <class Eng>
__device__ __forceinline__ double std_exponential(Eng &e) {
  return -log(1.0 - nd_kr_unit(e));
}

template <class Eng>
__device__ __forceinline__ double std_normal(Eng &e) {
  const double r = sqrt(-2.0 * log(nd_kr_open(e)));
  uint32_t hi = e.next();
  uint32_t lo = e.next();
  return r * cospi(nd__sym_f64(hi, lo));
}

/* NumPy's random_standard_gamma: exponential for k = 1, Marsaglia-Tsang for k > 1, and for
 * k < 1 the rejection from a power of a uniform and a Weibull-like tail. */
template <class Eng>
__device__ double std_gamma(Eng &e, double k) {
  if (k == 1.0) return std_exponential(e);
  if (k == 0.0) return 0.0;
  if (k < 1.0) {
    for (;;) {
      const double u = nd_kr_unit(e);
      const double v = std_exponential(e);
      if (u <= 1.0 - k) {
        const double x = pow(u, 1.0 / k);
        if (x <= v) return x;
      } else {
        const double y = -log((1.0 - u) / k);
        const double x = pow(1.0 - k + k * y, 1.0 / k);
        if (x <= v + y) return x;
      }
    }
  }
  const double b = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * b);
  for (;;) {
    double x, v;
    do {
      x = std_normal(e);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = nd_kr_unit(e);
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
    if (log(u) < 0.5 * x * x + b * (1.0 - v + log(v))) return b * v;
  }
}

/* NumPy's random_beta: Johnk's algorithm when both parameters are <= 1 (with a log-space
 * fallback when both powers underflow), else the ratio of two gammas. */
template <class Eng>
__device__ double beta(Eng &e, double a, double b) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {
      const double u = nd_kr_unit(e);
      const double v = nd_kr_unit(e);
      const double x = pow(u, 1.0 / a), y = pow(v, 1.0 / b);
      const double xy = x + y;
      if (xy <= 1.0 && u + v > 0.0) {
        if (xy > 0.0) return x / xy;
        double lx = log(u) / a, ly = log(v) / b;
        const double lm = lx > ly ? lx : ly;
        lx -= lm;
        ly -= lm;
        return exp(lx - log(exp(lx) + exp(ly)));
      }
    }
  }
  const double ga = std_gamma(e, a), gb = std_gamma(e, b);
  return ga / (ga + gb);
}

/* Constants of Hormann's PTRS for lam >= 10 (NumPy's random_poisson_ptrs). */
struct PoissonPrep {
  double lam, enlam, loglam, a, b, invalpha_log, vr;
  __device__ explicit PoissonPrep(double l) : lam(l) {
    enlam = exp(-l);
    const double slam = sqrt(l);
    loglam = log(l);
    b = 0.931 + 2.53 * slam;
    a = -0.059 + 0.02483 * b;
    invalpha_log = log(1.1239 + 1.1328 / (b - 3.4));
    vr = 0.9277 - 3.6224 / (b - 2.0);
  }
};

template <class Eng>
__device__ int64_t poisson(Eng &e, const PoissonPrep &P) {
  if (P.lam == 0.0) return 0;
  if (P.lam < 10.0) {
    int64_t x = 0;
    double prod = 1.0;
    for (;;) {
      prod *= nd_kr_unit(e);
      if (prod > P.enlam)
        x++;
      else
        return x;
    }
  }
  for (;;) {
    const double u = nd_kr_unit(e) - 0.5;
    const double v = nd_kr_unit(e);
    const double us = 0.5 - fabs(u);
    const double kd = floor((2.0 * P.a / us + P.b) * u + P.lam + 0.43);
    if (us >= 0.07 && v <= P.vr) return (int64_t)kd;
    if (kd < 0.0 || (us < 0.013 && v > us)) continue;
    if (log(v) + P.invalpha_log - log(P.a / (us * us) + P.b) <= -P.lam + kd * P.loglam - lgamma(kd + 1.0))
      return (int64_t)kd;
  }
}

/* log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2], the Stirling remainder: exact
 * through lgamma for small k, the asymptotic series otherwise. */
__device__ __forceinline__ double stirling_tail(double k) {
  if (k <= 9.0)
    return lgamma(k + 1.0) - ((k + 0.5) * log(k + 1.0) - (k + 1.0) + 0.91893853320467274178);
  const double kp1sq = (k + 1.0) * (k + 1.0);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0);
}

/* Binomial constants for p' = min(p, 1 - p). */
struct BinomialPrep {
  double n, p, q, qn, np, bound;                     /* inversion */
  double b, a, c, vr, r, alpha, m, h;                /* BTRS */
  int flip, btrs;
  __device__ BinomialPrep(int64_t count, double prob) {
    flip = prob > 0.5;
    p = flip ? 1.0 - prob : prob;
    n = (double)count;
    q = 1.0 - p;
    np = n * p;
    btrs = np >= 10.0;
    if (!btrs) {
      qn = exp(n * log1p(-p));
      bound = fmin(n, np + 10.0 * sqrt(np * q + 1.0));
    } else {
      const double sd = sqrt(np * q);
      b = 1.15 + 2.53 * sd;
      a = -0.0873 + 0.0248 * b + 0.01 * p;
      c = np + 0.5;
      vr = 0.92 - 4.2 / b;
      r = p / q;
      alpha = (2.83 + 5.1 / b) * sd;
      m = floor((n + 1.0) * p);
      h = (m + 0.5) * log((m + 1.0) / (r * (n - m + 1.0))) + stirling_tail(m) + stirling_tail(n - m);
    }
  }
};

template <class Eng>
__device__ int64_t binomial_small(Eng &e, const BinomialPrep &B) {
  /* NumPy's random_binomial_inversion: walk the cumulative probabilities, restarting past a
   * bound that the walk essentially never reaches. */
  double x = 0.0, px = B.qn, u = nd_kr_unit(e);
  while (u > px) {
    x += 1.0;
    if (x > B.bound) {
      x = 0.0;
      px = B.qn;
      u = nd_kr_unit(e);
    } else {
      u -= px;
      px = ((B.n - x + 1.0) * B.p * px) / (x * B.q);
    }
  }
  return (int64_t)x;
}

template <class Eng>
__device__ int64_t binomial_btrs(Eng &e, const BinomialPrep &B) {
  for (;;) {
    const double u = nd_kr_unit(e) - 0.5;
    double v = nd_kr_unit(e);
    const double us = 0.5 - fabs(u);
    const double k = floor((2.0 * B.a / us + B.b) * u + B.c);
    if (us >= 0.07 && v <= B.vr) return (int64_t)k;
    if (k < 0.0 || k > B.n) continue;
    v = log(v * B.alpha / (B.a / (us * us) + B.b));
    const double bound = B.h + (B.n + 1.0) * log((B.n - B.m + 1.0) / (B.n - k + 1.0)) +
                         (k + 0.5) * log(B.r * (B.n - k + 1.0) / (k + 1.0)) - stirling_tail(k) -
                         stirling_tail(B.n - k);
    if (v <= bound) return (int64_t)k;
  }
}

template <class Eng>
__device__ __forceinline__ int64_t binomial(Eng &e, const BinomialPrep &B, int64_t n) {
  if (B.p == 0.0 || n == 0) return B.flip ? n : 0;
  const int64_t k = B.btrs ? binomial_btrs(e, B) : binomial_small(e, B);
  return B.flip ? n - k : k;
}

template <class Eng, class T>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_real(nd_krng rng, T *__restrict__ out, int64_t n, nd_krparams p) {
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= n) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < n; j += step) {
    eng.begin(j);
    const double v = p.dist == ND_KR_BETA ? beta(eng, p.a, p.b) : p.b * std_gamma(eng, p.a);
    out[j] = (T)v;
  }
  eng.finish(rng, tid);
}

template <class Eng, class T>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_count(nd_krng rng, T *__restrict__ out, int64_t n, nd_krparams p) {
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= n) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  if (p.dist == ND_KR_POISSON) {
    const PoissonPrep P(p.a);
    for (int64_t j = tid; j < n; j += step) {
      eng.begin(j);
      out[j] = (T)poisson(eng, P);
    }
  } else {
    const BinomialPrep B(p.n, p.a);
    for (int64_t j = tid; j < n; j += step) {
      eng.begin(j);
      out[j] = (T)binomial(eng, B, p.n);
    }
  }
  eng.finish(rng, tid);
}

template <class Eng>
void launch(const nd_krng *rng, const nd_krparams *p, void *out, int dtype, int64_t n,
            cudaStream_t st) {
  switch (dtype) {
    case ND_FLOAT32:
      nd_k_launch<k_real<Eng, float>>(nd_kr_grid<Eng, k_real<Eng, float> >(n), ND_K_THREADS, 0, st, *rng, (float *)out, n, *p);
      break;
    case ND_FLOAT64:
      nd_k_launch<k_real<Eng, double>>(nd_kr_grid<Eng, k_real<Eng, double> >(n), ND_K_THREADS, 0, st, *rng, (double *)out, n, *p);
      break;
    case ND_INT32:
      nd_k_launch<k_count<Eng, int32_t>>(nd_kr_grid<Eng, k_count<Eng, int32_t> >(n), ND_K_THREADS, 0, st, *rng, (int32_t *)out, n, *p);
      break;
    default:
      nd_k_launch<k_count<Eng, int64_t>>(nd_kr_grid<Eng, k_count<Eng, int64_t> >(n), ND_K_THREADS, 0, st, *rng, (int64_t *)out, n, *p);
      break;
  }
}

}  // namespace

extern "C" nd_status nd_kr_fill_elem(const nd_krng *rng, const nd_krparams *p, void *out, int dtype,
                                     int64_t n, void *stream) {
  if (n <= 0) return ND_OK;
  const bool real = p->dist == ND_KR_GAMMA || p->dist == ND_KR_BETA;
  const bool count = p->dist == ND_KR_POISSON || p->dist == ND_KR_BINOMIAL;
  if (!((real && (dtype == ND_FLOAT32 || dtype == ND_FLOAT64)) ||
        (count && (dtype == ND_INT32 || dtype == ND_INT64))))
    return nd__error(ND_ERR_INTERNAL, "nd_kr_fill_elem: distribution %d with dtype %d", p->dist, dtype);
  ND_KR_DISPATCH(rng, (launch<Eng>(rng, p, out, dtype, n, (cudaStream_t)stream)));
  return ND_K_LAUNCHED();
}
