/* monte_carlo: price European options by simulation and check against Black-Scholes.
 *
 * Under the Black-Scholes model the stock price at expiry is
 *
 *   S_T = S_0 exp((r - sigma^2 / 2) T + sigma sqrt(T) Z),   Z ~ N(0, 1),
 *
 * and the option is worth exp(-r T) E[max(S_T - K, 0)] (a call) or E[max(K - S_T, 0)] (a
 * put). The simulation draws 10^8 normals, turns them into discounted payoffs with a few
 * elementwise kernels written in place (out = the same array, so no extra memory), and
 * reduces them to a mean and a variance. The standard error sqrt(var / paths) says how far
 * the estimate may honestly be from the closed form; the program fails if it is more than
 * four standard errors away.
 *
 * A second pass prices two different contracts at once, each on its own stream. Both use the
 * same Philox generator: it is only a seed and a counter on the host, so fills from it may run
 * on any streams concurrently and each call gets its own numbers.
 *
 * Run: build/examples/monte_carlo [paths]   (default 100000000, at least 1000)
 * Exit status: 0 within four standard errors, 1 not, 2 bad arguments, 77 no GPU. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ndcuda.h>

#define TRY(call)                                                                              \
  do {                                                                                         \
    nd_status st_ = (call);                                                                    \
    if (st_ != ND_OK) {                                                                        \
      if (st_ != ND_ERR_NO_DEVICE) fprintf(stderr, "monte_carlo: %s\n  %s\n", #call, nd_last_error()); \
      return st_;                                                                              \
    }                                                                                          \
  } while (0)

typedef struct contract {
  const char *name;
  int call; /* 1 call, 0 put */
  double s0, strike, rate, sigma, years;
} contract;

/* The simulation's answer: price and standard error, read back from two 0-d arrays. */
typedef struct estimate {
  nd_array *mean, *var; /* 0-d float64 results, still on the device until read */
  double price, stderr_;
} estimate;

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* The closed form. */
static double black_scholes(const contract *c) {
  double sd = c->sigma * sqrt(c->years);
  double d1 = (log(c->s0 / c->strike) + (c->rate + 0.5 * c->sigma * c->sigma) * c->years) / sd;
  double d2 = d1 - sd;
  double df = exp(-c->rate * c->years);
  return c->call ? c->s0 * norm_cdf(d1) - c->strike * df * norm_cdf(d2)
                 : c->strike * df * norm_cdf(-d2) - c->s0 * norm_cdf(-d1);
}

static nd_operand num(double v) { return nd_arg_scalar(nd_scalar_float(v)); }

/* Enqueues the whole simulation of one contract on the current stream and returns without
 * waiting: e->mean and e->var are 0-d arrays that later host reads wait for. */
static nd_status simulate(nd_generator *gen, const contract *c, int64_t paths, estimate *e) {
  nd_array *z;
  /* float32 paths: the payoffs' rounding (about 1e-7 relative) is far below the standard
   * error; the mean and variance are accumulated in float64 (dtype= below). */
  TRY(nd_random_standard_normal(gen, 1, &paths, ND_FLOAT32, &z));
  nd_operand zin = nd_arg(z);
  double drift = (c->rate - 0.5 * c->sigma * c->sigma) * c->years;
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){zin, num(c->sigma * sqrt(c->years))}, z, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){zin, num(drift)}, z, NULL));
  TRY(nd_exp(z, z, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){zin, num(c->s0)}, z, NULL)); /* S_T */
  if (c->call) /* S_T - K */
    TRY(nd_ufunc_call(ND_UFUNC_SUBTRACT, 2, (nd_operand[]){zin, num(c->strike)}, z, NULL));
  else /* K - S_T */
    TRY(nd_ufunc_call(ND_UFUNC_SUBTRACT, 2, (nd_operand[]){num(c->strike), zin}, z, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_MAXIMUM, 2, (nd_operand[]){zin, num(0.0)}, z, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){zin, num(exp(-c->rate * c->years))}, z, NULL));
  /* naxes 0 with axes NULL: over every axis; the result is a 0-d array. */
  TRY(nd_mean(z, 0, NULL, 0, ND_FLOAT64, NULL, &e->mean));
  TRY(nd_var(z, 0, NULL, 0, ND_FLOAT64, 1.0, NULL, &e->var));
  nd_array_release(z); /* the device memory goes back to the pool in stream order */
  return ND_OK;
}

/* Blocks until this estimate's reductions are done (nothing else is waited for). */
static nd_status read_back(estimate *e, int64_t paths) {
  nd_scalar m, v;
  TRY(nd_array_item(e->mean, &m));
  TRY(nd_array_item(e->var, &v));
  e->price = m.v.f;
  e->stderr_ = sqrt(v.v.f / (double)paths);
  nd_array_release(e->mean);
  nd_array_release(e->var);
  e->mean = e->var = NULL;
  return ND_OK;
}

/* Prints one line and returns 1 when the estimate is more than four standard errors off. */
static int report(const contract *c, const estimate *e, int64_t paths, double ms) {
  double exact = black_scholes(c);
  double z = fabs(e->price - exact) / e->stderr_;
  int bad = !(z <= 4.0);
  printf("monte_carlo: %-28s %lld paths %7.1f ms: %.5f +- %.5f (1 s.e.), Black-Scholes %.5f, "
         "off by %.2f s.e.: %s\n",
         c->name, (long long)paths, ms, e->price, e->stderr_, exact, z, bad ? "WRONG" : "ok");
  return bad;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static nd_status price_all(int64_t paths, int *bad) {
  const contract one = {"call S=100 K=110 T=1", 1, 100, 110, 0.05, 0.20, 1.0};
  const contract two[2] = {{"call S=100 K=95 T=0.5", 1, 100, 95, 0.03, 0.25, 0.5},
                           {"put S=100 K=105 T=2", 0, 100, 105, 0.03, 0.35, 2.0}};
  nd_generator *gen;
  TRY(nd_generator_create(20261127, ND_BITGEN_PHILOX, &gen));

  /* Pass 1: one contract on the current stream (the legacy null stream by default). A
   * warm-up of 1000 paths first pays for first-use costs outside the timing. */
  estimate e = {0};
  TRY(simulate(gen, &one, 1000, &e));
  TRY(read_back(&e, 1000));
  double t0 = now_ms();
  TRY(simulate(gen, &one, paths, &e));
  TRY(read_back(&e, paths));
  *bad += report(&one, &e, paths, now_ms() - t0);

  /* Pass 2: two contracts, each on its own non-blocking stream. Both simulations are enqueued
   * before either result is read, so the GPU may run them side by side. */
  nd_stream *s[2];
  estimate two_e[2] = {{0}};
  for (int k = 0; k < 2; k++) TRY(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s[k]));
  t0 = now_ms();
  for (int k = 0; k < 2; k++) {
    TRY(nd_stream_push(s[k]));
    TRY(simulate(gen, &two[k], paths, &two_e[k]));
    TRY(nd_stream_pop());
  }
  /* A host read waits only for the stream that produced the value. */
  for (int k = 0; k < 2; k++) TRY(read_back(&two_e[k], paths));
  double ms = now_ms() - t0; /* both contracts together: each line shows this time */
  for (int k = 0; k < 2; k++) *bad += report(&two[k], &two_e[k], paths, ms);
  for (int k = 0; k < 2; k++) TRY(nd_stream_destroy(s[k]));
  TRY(nd_generator_destroy(gen));
  return ND_OK;
}

int main(int argc, char **argv) {
  double v = 1e8;
  char *end = NULL;
  if (argc > 2 || (argc == 2 && ((v = strtod(argv[1], &end)), end == argv[1] || *end != '\0' ||
                                 !(v >= 1000 && v <= 1e9) || v != floor(v)))) {
    fprintf(stderr, "usage: monte_carlo [paths (an integer from 1000 to 1e9; default 1e8)]\n");
    return 2;
  }
  int bad = 0;
  nd_status st = price_all((int64_t)v, &bad);
  if (st == ND_ERR_NO_DEVICE) {
    printf("monte_carlo: no CUDA device, skipped\n");
    return 77;
  }
  return st != ND_OK || bad ? 1 : 0;
}
