/* Philox4x32-10 and the bit-to-value conversions, shared by the device kernels and the host.
 *
 * Everything here is a static inline function of plain integers, compiled both by nvcc (as
 * __host__ __device__) and by the C compiler, so that the host test suites can compute the very
 * numbers a fill must produce and compare them bit for bit.
 *
 * Counter layout. A fill of n values is cut into blocks of k values (k = nd__rk_per_block).
 * Block j of a fill that starts at generator offset o uses the Philox counter
 *   (c0, c1, c2, c3) = (lo32(o + j), hi32(o + j), s, 0),  key = (lo32(seed), hi32(seed)),
 * where s = 0 gives the block's first four words and s = 1, 2, ... give as many more as
 * rejection sampling needs. The generator's offset then advances by ceil(n / k), so no two
 * fills of one generator ever share a counter. */
#ifndef ND_RANDOM_PHILOX_H
#define ND_RANDOM_PHILOX_H

#include <stdint.h>

#if defined(__CUDACC__)
#define ND__RHD static inline __host__ __device__
#else
#define ND__RHD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ND__PHILOX_M0 0xD2511F53u
#define ND__PHILOX_M1 0xCD9E8D57u
#define ND__PHILOX_W0 0x9E3779B9u
#define ND__PHILOX_W1 0xBB67AE85u

/* One Philox round (Random123's philox4x32round): two 32x32->64 multiplies, whose high halves
 * are mixed with the other two words and the key. */
ND__RHD void nd__philox_round(uint32_t x[4], uint32_t k0, uint32_t k1) {
  uint64_t p0 = (uint64_t)ND__PHILOX_M0 * x[0];
  uint64_t p1 = (uint64_t)ND__PHILOX_M1 * x[2];
  uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
  uint32_t y1 = (uint32_t)p1;
  uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
  uint32_t y3 = (uint32_t)p0;
  x[0] = y0;
  x[1] = y1;
  x[2] = y2;
  x[3] = y3;
}

/* Philox4x32-10: the counter x (in place) under key (k0, k1). */
ND__RHD void nd__philox4x32_10(uint32_t x[4], uint32_t k0, uint32_t k1) {
  nd__philox_round(x, k0, k1);
  for (int r = 1; r < 10; r++) {
    k0 += ND__PHILOX_W0;
    k1 += ND__PHILOX_W1;
    nd__philox_round(x, k0, k1);
  }
}

/* The words of one element block: the block's first four (nd__philox_next4) and then one at a
 * time (nd__philox_next), drawing counters s = 0, 1, 2, ... */
typedef struct nd__philox_stream {
  uint32_t k0, k1;     /* key */
  uint32_t c0, c1;     /* the block's 64-bit counter */
  uint32_t s;          /* next value of the third counter word */
  uint32_t b0, b1, b2, b3; /* words of the last draw not handed out yet, b0 first */
  int left;            /* how many of b0..b3 are valid */
} nd__philox_stream;

ND__RHD void nd__philox_init(nd__philox_stream *ps, uint64_t seed) {
  ps->k0 = (uint32_t)seed;
  ps->k1 = (uint32_t)(seed >> 32);
  ps->c0 = ps->c1 = ps->s = 0;
  ps->b0 = ps->b1 = ps->b2 = ps->b3 = 0;
  ps->left = 0;
}

/* Starts the block whose counter is ctr (generator offset + block index). */
ND__RHD void nd__philox_begin(nd__philox_stream *ps, uint64_t ctr) {
  ps->c0 = (uint32_t)ctr;
  ps->c1 = (uint32_t)(ctr >> 32);
  ps->s = 0;
  ps->left = 0;
}

/* Four fresh words (the next counter s), dropping any left over from an earlier draw. */
ND__RHD void nd__philox_next4(nd__philox_stream *ps, uint32_t out[4]) {
  out[0] = ps->c0;
  out[1] = ps->c1;
  out[2] = ps->s;
  out[3] = 0;
  ps->s++;
  ps->left = 0;
  nd__philox4x32_10(out, ps->k0, ps->k1);
}

/* The next word, drawing four at a time. */
ND__RHD uint32_t nd__philox_next(nd__philox_stream *ps) {
  if (ps->left == 0) {
    uint32_t w[4];
    nd__philox_next4(ps, w);
    ps->b0 = w[0];
    ps->b1 = w[1];
    ps->b2 = w[2];
    ps->b3 = w[3];
    ps->left = 4;
  }
  uint32_t r = ps->b0;
  ps->b0 = ps->b1;
  ps->b1 = ps->b2;
  ps->b2 = ps->b3;
  ps->left--;
  return r;
}

/* ---- words to values -------------------------------------------------------------------- */

/* [0, 1) from the top 24 bits: every float32 result is a multiple of 2^-24. */
ND__RHD float nd__unit_f32(uint32_t x) { return (float)(x >> 8) * 0x1p-24f; }

/* [0, 1) from the top 53 bits of hi:lo. */
ND__RHD double nd__unit_f64(uint32_t hi, uint32_t lo) {
  return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
}

/* (0, 1] for Box-Muller's radius, as cuRAND computes it: x * 2^-32 + 2^-33 rounded to float,
 * so that log() never sees 0 and the tail reaches sqrt(-2 log 2^-33) = 6.66 sigma. */
ND__RHD float nd__open_f32(uint32_t x) { return (float)x * 0x1p-32f + 0x1p-33f; }

/* (0, 1) from the top 52 bits m: (m + 1/2) * 2^-52, in [2^-53, 1 - 2^-53]. (With 53 bits,
 * m + 1/2 would need 54 and the top value would round to 1.) */
ND__RHD double nd__open_f64(uint32_t hi, uint32_t lo) {
  return ((double)((((uint64_t)hi << 32) | lo) >> 12) + 0.5) * 0x1p-52;
}

/* [-1, 1) for Box-Muller's angle (as a multiple of pi), from the top 24 and 53 bits (all that
 * a float32 and a float64 can hold, so that the top value stays below 1). */
ND__RHD float nd__sym_f32(uint32_t x) { return (float)((int32_t)x >> 8) * 0x1p-23f; }
ND__RHD double nd__sym_f64(uint32_t hi, uint32_t lo) {
  return (double)((int64_t)(((uint64_t)hi << 32) | lo) >> 11) * 0x1p-52;
}

/* ---- unbiased integers (Lemire 2019, "Fast random integer generation in an interval") ------ */

/* The rejection threshold (2^32 - r) mod r for a range r in [1, 2^32) (narrow) or
 * (2^64 - r) mod r for r in [1, 2^64) (wide). A range of 2^32 (narrow) or 2^64 (wide, encoded
 * as 0) needs no rejection: threshold 0. */
ND__RHD uint64_t nd__lemire_threshold(uint64_t range, int wide) {
  if (!wide) {
    if (range >= (UINT64_C(1) << 32) || range == 0) return 0;
    uint32_t r = (uint32_t)range;
    return (uint32_t)(0u - r) % r;
  }
  if (range == 0) return 0;
  return (0 - range) % range;
}

/* One narrow attempt: the candidate (x * r) >> 32 and whether it is accepted (low half >=
 * threshold). r == 0 stands for the full range 2^32 and returns x. */
ND__RHD uint32_t nd__lemire32(uint32_t x, uint32_t r, uint32_t thr, int *ok) {
  if (r == 0) {
    *ok = 1;
    return x;
  }
  uint64_t m = (uint64_t)x * r;
  *ok = (uint32_t)m >= thr;
  return (uint32_t)(m >> 32);
}

ND__RHD uint64_t nd__mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* One wide attempt on the 64-bit word x; r == 0 stands for 2^64. */
ND__RHD uint64_t nd__lemire64(uint64_t x, uint64_t r, uint64_t thr, int *ok) {
  if (r == 0) {
    *ok = 1;
    return x;
  }
  *ok = x * r >= thr;
  return nd__mulhi64(x, r);
}

#ifdef __cplusplus
}
#endif

#endif /* ND_RANDOM_PHILOX_H */
