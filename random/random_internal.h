/* Host side of the random module: the generator object and the pure host logic (seed parsing,
 * integer ranges, probability vectors, counter bookkeeping) that the host test suite checks
 * without a GPU. Not installed. */
#ifndef ND_RANDOM_INTERNAL_H
#define ND_RANDOM_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "ndcuda/random.h"
#include "random/kernels.h"
#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nd_generator {
  pthread_mutex_t lock; /* serialises every use: offset updates and state-buffer launches */
  uint64_t seed;
  nd_bitgen bitgen;
  uint64_t offset;      /* element blocks handed out so far (the Philox counter) */
  nd__buffer *states;   /* ND_KR_STATES cuRAND states (XORWOW, MRG32k3a), else NULL */
  int is_default;       /* a thread's default generator: not destroyable by the user */
};

/* gen itself, or the calling thread's default generator when gen is NULL. */
ND_API nd_status nd__generator_resolve(const char *fn, nd_generator *gen, nd_generator **out);

/* Reserves nblocks element blocks: returns the counter of the first and advances the offset
 * (wrapping modulo 2^64). Takes the generator's lock. */
ND_API uint64_t nd__generator_take(nd_generator *gen, uint64_t nblocks);

/* The two halves of every fill. nd__generator_begin locks gen, checks that its state buffer (if
 * any) lives on the sync's device, adds that buffer to the sync as a write, runs
 * nd__sync_begin, and writes the launchers' view of the generator to *rng; on failure it
 * unlocks and returns the status. The caller has added its own buffers to the sync first.
 * nd__generator_end takes the launch's status: when the launch succeeded it advances the
 * generator by nblocks and runs nd__sync_end; it always unlocks, and returns the first
 * failure. */
ND_API nd_status nd__generator_begin(const char *fn, nd_generator *gen, nd__sync *sync,
                                     nd_krng *rng);
ND_API nd_status nd__generator_end(const char *fn, nd_generator *gen, nd__sync *sync,
                                   uint64_t nblocks, nd_status launched);

/* Parses ND_SEED's syntax: decimal digits or 0x followed by hex digits, optionally surrounded by
 * blanks, at most UINT64_MAX. Errors: ND_ERR_VALUE naming the text. */
ND_API nd_status nd__random_parse_seed(const char *fn, const char *text, uint64_t *out);

/* A seed from the operating system's entropy source (getrandom, /dev/urandom, then a mix of
 * clock, address and counter as a last resort). Never fails. */
ND_API uint64_t nd__random_entropy(void);

/* Validates integers' bounds against dtype (any integer dtype or bool) and writes the Lemire
 * parameters: low as 64-bit two's complement, the range (high - low, + 1 with endpoint) with
 * 0 standing for 2^64, whether it is wide (> 2^32) and the rejection threshold. count is the
 * number of values to draw: for none, as in NumPy, only the arguments' types are checked (the
 * bounds may be out of range or in the wrong order) and the parameters are a range of one. */
ND_API nd_status nd__random_int_params(const char *fn, nd_scalar low, nd_scalar high, int endpoint,
                                       nd_dtype dtype, int64_t count, nd_krparams *out);

/* Validates a probability vector of n entries as NumPy's choice does (no NaN, none negative,
 * sum within sqrt(eps) of 1) and writes the normalised cumulative sums to cdf (n entries, may be
 * NULL), the number of non-zero entries, and the index of the last non-zero entry; the cdf is
 * exactly 1 from that index on. Errors: ND_ERR_VALUE naming 'p' and the offending value. */
ND_API nd_status nd__random_check_p(const char *fn, const double *p, int64_t n, double *cdf,
                                    int64_t *nonzero, int64_t *last);

/* Fills a C-contiguous, 16-byte aligned array of the kernel dtype with the distribution, on the
 * current stream, under the generator's lock, and advances the generator on success. */
ND_API nd_status nd__random_run(const char *fn, nd_generator *gen, const nd_krparams *p,
                                nd_array *dst);

#ifdef __cplusplus
}
#endif

#endif /* ND_RANDOM_INTERNAL_H */
