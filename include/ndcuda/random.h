/* Random numbers: generators and NumPy's Generator distributions, on the current stream.
 *
 * Generators. An nd_generator pairs a 64-bit seed with a bit generator:
 * - ND_BITGEN_PHILOX (the default): Philox4x32-10, counter based. The generator is only a
 *   seed and a 64-bit counter on the host; every fill computes its numbers from
 *   (seed, counter + element block) and advances the counter by the blocks it used. No device
 *   state exists, so fills from one generator may run on any streams, concurrently.
 * - ND_BITGEN_XORWOW and ND_BITGEN_MRG32K3A (cuRAND's): a fixed set of 131072 device states,
 *   one per subsequence, created on the device the generator was made on. Every fill runs
 *   exactly that many threads, whatever the GPU, and is a tracked write of the state buffer,
 *   so fills on different streams are ordered one after the other automatically.
 *
 * Reproducibility: the same seed, bit generator and sequence of calls (same functions, shapes,
 * dtypes and parameters) give bit-identical arrays, whatever stream each call runs on, whichever
 * thread makes it, and whatever layout `out` has. Numbers do not depend on the GPU model for
 * Philox; the other two need the same device code (they do not depend on the SM count).
 *
 * Thread safety: each generator has a mutex. Calls that use one generator from several threads
 * at once are serialised in an unspecified order (each call gets its own, disjoint numbers);
 * nothing is corrupted. Destroying a generator while another thread uses it is a caller bug.
 *
 * The per-thread default generator (nd_generator_default, or NULL as `gen` anywhere below) is
 * a Philox generator seeded from the environment variable ND_SEED (a decimal or 0x-prefixed
 * unsigned 64-bit integer) or, when ND_SEED is unset, from operating-system entropy. With
 * ND_SEED set every thread's default generator starts from that same seed.
 *
 * Distributions. Each comes in two forms:
 *   nd_random_X(gen, params..., ndim, shape, dtype, &result)   allocates a C-ordered array
 *   nd_random_X_into(gen, params..., out)                       fills the caller's array
 * The _into form takes the dtype from `out`, accepts any layout (offset, transposed, negative
 * strides; broadcast views are refused as read-only) and writes the same values, element by
 * element in C order, that the allocating form would return. Shapes may have any ndim up to
 * ND_MAXDIMS, odd sizes, zero-size (consumes no numbers) and 0-d.
 * ND_DTYPE_DEFAULT means float64 for real distributions, int64 for integer ones and bool for
 * nd_random_bernoulli. Parameters are scalars; arrays of parameters are not supported.
 *
 * Conventions for every function below:
 * - gen may be NULL (the calling thread's default generator). Arrays are borrowed; a result
 *   is a new reference; on failure nothing is written and the generator does not advance.
 * - Errors: ND_ERR_NULL_POINTER (result, out, shape with ndim > 0), ND_ERR_INVALID_ARGUMENT
 *   (ndim, negative dimension), ND_ERR_DTYPE (a dtype the distribution does not produce),
 *   ND_ERR_VALUE (a parameter outside its domain: the message names the parameter and value),
 *   ND_ERR_READ_ONLY (out), ND_ERR_DEVICE_MISMATCH (out or a state buffer on another device),
 *   ND_ERR_OUT_OF_MEMORY, ND_ERR_NO_DEVICE, ND_ERR_CUDA. Parameters are checked before any
 *   device work, so parameter errors need no GPU.
 * - Stream behaviour: the fill is enqueued on the calling thread's current stream and the call
 *   returns without waiting. It is an ordinary tracked write: later use on another stream waits
 *   for it, and it waits for earlier use of `out` on other streams. */
#ifndef NDCUDA_RANDOM_H
#define NDCUDA_RANDOM_H

#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/dtype.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A random generator: a seed and a bit generator (opaque; see above). */
typedef struct nd_generator nd_generator;

/* Bit generators. Values are explicit and append-only. */
typedef enum nd_bitgen {
  ND_BITGEN_PHILOX = 0,  /* Philox4x32-10 (Salmon et al. 2011), counter based */
  ND_BITGEN_XORWOW = 1,  /* cuRAND's XORWOW, one subsequence per state */
  ND_BITGEN_MRG32K3A = 2 /* L'Ecuyer's MRG32k3a as in cuRAND, one subsequence per state */
} nd_bitgen;

/* ---- generators --------------------------------------------------------------------------- */

/* Creates a generator from seed and bitgen. Philox needs no device and does no device work.
 * XORWOW and MRG32k3a allocate and initialise their states on the current device, enqueued on
 * the current stream (does not block). Returns a new handle in *out.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (unknown bitgen), ND_ERR_OUT_OF_MEMORY,
 * ND_ERR_NO_DEVICE, ND_ERR_CUDA. */
ND_API nd_status nd_generator_create(uint64_t seed, nd_bitgen bitgen, nd_generator **out);

/* Destroys a generator (NULL accepted). Fills already enqueued complete normally; device state
 * is freed in stream order. Errors: ND_ERR_INVALID_ARGUMENT for a thread's default generator,
 * which belongs to its thread and goes when the thread exits. Does not block. */
ND_API nd_status nd_generator_destroy(nd_generator *gen);

/* The calling thread's default generator (see above), created on first use. Borrowed: valid
 * until the thread exits; do not destroy it. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE
 * (ND_SEED is set but is not an unsigned 64-bit integer), ND_ERR_OUT_OF_MEMORY. Host only. */
ND_API nd_status nd_generator_default(nd_generator **out);

/* Restarts the calling thread's default generator from seed (NumPy's np.random.seed for this
 * thread): the next numbers it gives are those of a fresh Philox generator with that seed.
 * Errors: as nd_generator_default. Host only. */
ND_API nd_status nd_random_seed(uint64_t seed);

/* The generator's seed and bit generator (NULL: the default generator, 0 and PHILOX when it
 * cannot be created). */
ND_API uint64_t nd_generator_seed(nd_generator *gen);
ND_API nd_bitgen nd_generator_bitgen(nd_generator *gen);

/* How many counter blocks the generator has handed out since creation (or nd_random_seed):
 * each fill takes ceil(n / k) blocks, where k, the values per block, is 4 for 32-bit outputs
 * of uniform/normal/lognormal/exponential and for integers whose range fits in 32 bits, 2 for
 * float64 outputs of those, wider integer ranges, bernoulli, choice and permutation keys, and
 * 1 for gamma, beta, chisquare, poisson and binomial. For Philox this is the counter. */
ND_API uint64_t nd_generator_offset(nd_generator *gen);

/* ---- continuous distributions (dtype float32 or float64) ---------------------------------- */

/* Uniform on [0, 1): 24 random bits for float32, 53 for float64 (NumPy's random). */
ND_API nd_status nd_random_random(nd_generator *gen, int ndim, const int64_t *shape,
                                  nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_random_into(nd_generator *gen, nd_array *out);

/* Uniform on [low, high): low + (high - low) * random(). Requires finite low < high with a
 * finite difference (ND_ERR_VALUE otherwise; NumPy leaves high < low undefined). As in NumPy,
 * rounding may give exactly high in rare cases. */
ND_API nd_status nd_random_uniform(nd_generator *gen, double low, double high, int ndim,
                                   const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_uniform_into(nd_generator *gen, double low, double high, nd_array *out);

/* Normal with mean loc and standard deviation scale >= 0 (Box-Muller, both outputs used). */
ND_API nd_status nd_random_standard_normal(nd_generator *gen, int ndim, const int64_t *shape,
                                           nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_standard_normal_into(nd_generator *gen, nd_array *out);
ND_API nd_status nd_random_normal(nd_generator *gen, double loc, double scale, int ndim,
                                  const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_normal_into(nd_generator *gen, double loc, double scale, nd_array *out);

/* exp(normal(mean, sigma)), sigma >= 0. */
ND_API nd_status nd_random_lognormal(nd_generator *gen, double mean, double sigma, int ndim,
                                     const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_lognormal_into(nd_generator *gen, double mean, double sigma, nd_array *out);

/* Exponential with the given scale >= 0 (1 / rate): -scale * log(1 - random()). */
ND_API nd_status nd_random_standard_exponential(nd_generator *gen, int ndim, const int64_t *shape,
                                                nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_standard_exponential_into(nd_generator *gen, nd_array *out);
ND_API nd_status nd_random_exponential(nd_generator *gen, double scale, int ndim,
                                       const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_exponential_into(nd_generator *gen, double scale, nd_array *out);

/* Gamma with shape k >= 0 and scale >= 0 (Marsaglia-Tsang for k > 1, NumPy's rejection
 * scheme for k < 1; k = 0 gives 0). Computed in double precision for both dtypes. */
ND_API nd_status nd_random_standard_gamma(nd_generator *gen, double k, int ndim,
                                          const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_standard_gamma_into(nd_generator *gen, double k, nd_array *out);
ND_API nd_status nd_random_gamma(nd_generator *gen, double k, double scale, int ndim,
                                 const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_gamma_into(nd_generator *gen, double k, double scale, nd_array *out);

/* Beta(a, b), a > 0, b > 0 (Johnk's algorithm when both are <= 1, else two gammas). */
ND_API nd_status nd_random_beta(nd_generator *gen, double a, double b, int ndim,
                                const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_beta_into(nd_generator *gen, double a, double b, nd_array *out);

/* Chi-square with df > 0 degrees of freedom: 2 * standard_gamma(df / 2). */
ND_API nd_status nd_random_chisquare(nd_generator *gen, double df, int ndim, const int64_t *shape,
                                     nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_chisquare_into(nd_generator *gen, double df, nd_array *out);

/* ---- discrete distributions --------------------------------------------------------------- */

/* Poisson(lam), lam >= 0 (multiplication method below 10, Hormann's PTRS transformed
 * rejection from 10). dtype int64 (default) or int32; lam must be at most about 9.2e18 for
 * int64 (NumPy's limit) and about 2.147e9 for int32. */
ND_API nd_status nd_random_poisson(nd_generator *gen, double lam, int ndim, const int64_t *shape,
                                   nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_poisson_into(nd_generator *gen, double lam, nd_array *out);

/* Binomial(n, p), n >= 0, 0 <= p <= 1 (inversion when min(p, 1-p) * n < 10, Hormann's BTRS
 * transformed rejection otherwise). dtype int64 (default) or int32 (n must fit). */
ND_API nd_status nd_random_binomial(nd_generator *gen, int64_t n, double p, int ndim,
                                    const int64_t *shape, nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_binomial_into(nd_generator *gen, int64_t n, double p, nd_array *out);

/* Uniform integers on [low, high) (endpoint 0) or [low, high] (endpoint 1), without bias
 * (Lemire's multiply-and-reject). low and high are integer or bool scalars (nd_scalar_int, or
 * a ND_UINT64 scalar for bounds above INT64_MAX) and must lie in dtype's range; dtype is any
 * integer dtype or bool (default int64). Errors: ND_ERR_VALUE for low >= high (endpoint 0),
 * low > high (endpoint 1), or a bound outside the dtype ("high is out of bounds for int8"),
 * ND_ERR_DTYPE for a non-integer dtype or a float/complex bound. A shape with no elements
 * draws nothing and, as in NumPy, checks only the types: its bounds' values are not looked at. */
ND_API nd_status nd_random_integers(nd_generator *gen, nd_scalar low, nd_scalar high, int endpoint,
                                    int ndim, const int64_t *shape, nd_dtype dtype,
                                    nd_array **result);
ND_API nd_status nd_random_integers_into(nd_generator *gen, nd_scalar low, nd_scalar high,
                                         int endpoint, nd_array *out);

/* 1 with probability p, else 0 (0 <= p <= 1), drawn as random() < p with 53-bit uniforms.
 * dtype bool (default), any integer dtype, float32 or float64. */
ND_API nd_status nd_random_bernoulli(nd_generator *gen, double p, int ndim, const int64_t *shape,
                                     nd_dtype dtype, nd_array **result);
ND_API nd_status nd_random_bernoulli_into(nd_generator *gen, double p, nd_array *out);

/* ---- sampling and permutations ------------------------------------------------------------ */

/* NumPy's choice(n, size, replace, p): int64 indices into a population 0..n-1, shaped
 * (ndim, shape). p, if not NULL, is a host array of n probabilities: non-negative, no NaN, summing
 * to 1 within sqrt(float64 eps) (NumPy's tolerance); it is read before the call returns.
 * With replacement: uniform (Lemire) or, with p, inversion of p's cumulative sums by binary
 * search. Without replacement: the first entries of a random permutation, or, with p,
 * Efraimidis-Spirakis keys (exponential / p) sorted ascending, which selects in the same order
 * and with the same probabilities as NumPy's sequential draws. Sorting uses CUB's radix sort
 * with scratch memory from the pool on the current stream.
 * Errors: ND_ERR_VALUE for n < 0, n == 0 with samples requested, more samples than the
 * population (or than non-zero entries of p) without replacement, bad p. */
ND_API nd_status nd_random_choice(nd_generator *gen, int64_t n, int ndim, const int64_t *shape,
                                  int replace, const double *p, nd_array **result);

/* choice over the rows of a (along axis 0): the result has shape shape + a.shape[1:], a's
 * dtype, C order. p as above with a.shape[0] entries. Errors: those of nd_random_choice and
 * ND_ERR_SHAPE for a 0-d a. */
ND_API nd_status nd_random_choice_array(nd_generator *gen, const nd_array *a, int ndim,
                                        const int64_t *shape, int replace, const double *p,
                                        nd_array **result);

/* A random permutation of 0..n-1 (int64), n >= 0: random 64-bit keys sorted with CUB. */
ND_API nd_status nd_random_permutation(nd_generator *gen, int64_t n, nd_array **result);

/* A copy of a with its slices along axis permuted (NumPy's permutation(x, axis)); the result
 * has a's shape and dtype. Errors: ND_ERR_AXIS, ND_ERR_SHAPE for a 0-d a. */
ND_API nd_status nd_random_permutation_array(nd_generator *gen, const nd_array *a, int64_t axis,
                                             nd_array **result);

/* Permutes a's slices along axis in place (NumPy's shuffle(x, axis)): the multiset of slices is
 * kept. The slices are gathered into scratch memory and written back. Errors: ND_ERR_AXIS,
 * ND_ERR_SHAPE for a 0-d a, ND_ERR_READ_ONLY. */
ND_API nd_status nd_random_shuffle(nd_generator *gen, nd_array *a, int64_t axis);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_RANDOM_H */
