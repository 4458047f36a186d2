/* Launchers of the random kernels (random/fill.cu, elem.cu, perm.cu, state.cu).
 *
 * Host code hands them plain structs: the generator as an nd_krng (bit generator, seed,
 * counter offset, device states) and the distribution as an nd_krparams. Outputs are
 * contiguous, 16-byte aligned device arrays of n elements; the host routes any other layout
 * through a temporary. Launchers return a status and never see an nd_array. */
#ifndef ND_RANDOM_KERNELS_H
#define ND_RANDOM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device states of the XORWOW and MRG32k3a generators: one cuRAND subsequence per state. Every
 * fill with these runs exactly this many threads (thread t takes element blocks t, t + G,
 * t + 2G, ...), so the numbers do not depend on the GPU or the stream. */
#define ND_KR_STATES 131072

typedef struct nd_krng {
  int bitgen;      /* nd_bitgen */
  uint64_t seed;   /* Philox key */
  uint64_t offset; /* Philox counter of block 0 */
  void *states;    /* ND_KR_STATES cuRAND states (XORWOW, MRG32k3a), else NULL */
} nd_krng;

enum nd_krdist {
  ND_KR_UNIFORM = 0,     /* a + b * u, u uniform on [0, 1) */
  ND_KR_NORMAL = 1,      /* a + b * z */
  ND_KR_LOGNORMAL = 2,   /* exp(a + b * z) */
  ND_KR_EXPONENTIAL = 3, /* b * e, e standard exponential */
  ND_KR_INTEGERS = 4,    /* low + lemire(range), wrapping, stored in the dtype's width */
  ND_KR_BERNOULLI = 5,   /* u < a, stored as 0/1 bytes */
  ND_KR_GAMMA = 6,       /* b * standard_gamma(a) */
  ND_KR_BETA = 7,        /* beta(a, b) */
  ND_KR_POISSON = 8,     /* poisson(a) */
  ND_KR_BINOMIAL = 9     /* binomial(n, a) */
};

typedef struct nd_krparams {
  int dist; /* nd_krdist */
  double a, b;
  int64_t n;          /* binomial trials */
  uint64_t low;       /* integers: the lower bound as 64-bit two's complement */
  uint64_t range;     /* integers: high - low (+1): narrow in [1, 2^32], wide > 2^32, 0 = 2^64 */
  uint64_t threshold; /* integers: nd__lemire_threshold(range, wide) */
  int wide;           /* integers: range above 2^32 (64-bit words per value) */
} nd_krparams;

/* Values per element block (see random/philox.h): 4 for 32-bit outputs of the transform
 * distributions and for narrow integers, 2 for 64-bit outputs, wide integers and bernoulli,
 * 1 for the rejection samplers. itemsize is the output's (1..8 bytes). */
static inline int nd_kr_per_block(const nd_krparams *p, int itemsize) {
  switch (p->dist) {
    case ND_KR_UNIFORM:
    case ND_KR_NORMAL:
    case ND_KR_LOGNORMAL:
    case ND_KR_EXPONENTIAL: return itemsize == 4 ? 4 : 2;
    case ND_KR_INTEGERS: return p->wide ? 2 : 4;
    case ND_KR_BERNOULLI: return 2;
    default: return 1;
  }
}

/* Element blocks of a fill of n values: ceil(n / per_block). */
static inline uint64_t nd_kr_blocks(int64_t n, int per_block) {
  return n <= 0 ? 0 : (uint64_t)((n - 1) / per_block) + 1;
}

/* Fills out[0..n) with the distribution. dtype: float32/float64 for the real ones, int32/int64
 * for poisson and binomial, any integer dtype or bool for integers (stored by width), bool
 * (bytes) for bernoulli. */
nd_status nd_kr_fill(const nd_krng *rng, const nd_krparams *p, void *out, int dtype, int64_t n,
                     void *stream);

/* The rejection samplers (gamma, beta, poisson, binomial), called by nd_kr_fill. */
nd_status nd_kr_fill_elem(const nd_krng *rng, const nd_krparams *p, void *out, int dtype,
                          int64_t n, void *stream);

/* Bytes of ND_KR_STATES states for a stateful bit generator (0 for Philox). */
size_t nd_kr_states_bytes(int bitgen);

/* Initialises the states: state t = curand_init(seed, subsequence t, offset 0). */
nd_status nd_kr_states_init(int bitgen, uint64_t seed, void *states, void *stream);

/* Sort keys for permutations and choice, 2 per element block: keys[i] = 64 random bits, or,
 * with weights, log(E) - log(weights[i]) with E = -log(u) (+inf for a zero weight) mapped to
 * an unsigned integer of the same order; vals[i] = i. */
nd_status nd_kr_keys(const nd_krng *rng, uint64_t *keys, int64_t *vals, int64_t n,
                     const double *weights, void *stream);

/* CUB radix sort of (key, value) pairs by key, stable. With temp NULL it only writes the
 * scratch size to *temp_bytes. */
nd_status nd_kr_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in,
                           uint64_t *keys_out, const int64_t *vals_in, int64_t *vals_out,
                           int64_t n, void *stream);

/* Sampling with replacement by inverting a cumulative distribution, 2 per element block:
 * out[i] = the first index k <= last with cdf[k] > u, u uniform on [0, 1). */
nd_status nd_kr_choice_cdf(const nd_krng *rng, const double *cdf, int64_t last, int64_t *out,
                           int64_t n, void *stream);

/* dst row r = src row idx[r] for nrows rows of rowbytes bytes each (both contiguous). */
nd_status nd_kr_gather_rows(char *dst, const char *src, const int64_t *idx, int64_t nrows,
                            int64_t rowbytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_RANDOM_KERNELS_H */
