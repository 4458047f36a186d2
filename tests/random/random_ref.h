/* Host reference of the Philox fills: the numbers a fill starting at generator offset `offset`
 * must produce, computed from the same shared code (random/philox.h) the kernels use.
 *
 * Integers, bernoulli, uniform float32/float64, permutation keys and choice by cumulative
 * probabilities involve no rounding that could differ between host and device, so the GPU suite
 * compares those bit for bit. Normal and exponential go through logf/sinf here (host libm)
 * and through CUDA's logf and __sincosf on the device (float32 normals: the hardware log2 and
 * square-root approximations, see random/fill.cu), so they agree to a tolerance instead. */
#ifndef ND_RANDOM_REF_H
#define ND_RANDOM_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "random/kernels.h"
#include "random/philox.h"

#define ND_REF_PI 3.14159265358979323846

/* The first four words of element block `block` of a fill at offset. */
static inline void nd_ref_block(uint64_t seed, uint64_t offset, int64_t block, nd__philox_stream *ps,
                                uint32_t w[4]) {
  nd__philox_init(ps, seed);
  nd__philox_begin(ps, offset + (uint64_t)block);
  nd__philox_next4(ps, w);
}

static inline void nd_ref_uniform_f32(uint64_t seed, uint64_t offset, int64_t n, float a, float b,
                                      float *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 4, &ps, w);
    out[i] = a + b * nd__unit_f32(w[i % 4]);
  }
}

static inline void nd_ref_uniform_f64(uint64_t seed, uint64_t offset, int64_t n, double a, double b,
                                      double *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const int k = (int)(i % 2);
    out[i] = a + b * nd__unit_f64(w[2 * k], w[2 * k + 1]);
  }
}

static inline void nd_ref_normal_f32(uint64_t seed, uint64_t offset, int64_t n, float a, float b,
                                     int lognormal, float *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 4, &ps, w);
    const int k = (int)(i % 4), pair = k / 2;
    const float r = sqrtf(-2.0f * logf(nd__open_f32(w[2 * pair])));
    const float ang = nd__sym_f32(w[2 * pair + 1]) * 3.14159265358979323846f;
    float z = r * (k % 2 == 0 ? sinf(ang) : cosf(ang));
    z = a + b * z;
    out[i] = lognormal ? expf(z) : z;
  }
}

static inline void nd_ref_normal_f64(uint64_t seed, uint64_t offset, int64_t n, double a, double b,
                                     int lognormal, double *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const double r = sqrt(-2.0 * log(nd__open_f64(w[0], w[1])));
    const double v = nd__sym_f64(w[2], w[3]);
    double z = r * (i % 2 == 0 ? sin(ND_REF_PI * v) : cos(ND_REF_PI * v));
    z = a + b * z;
    out[i] = lognormal ? exp(z) : z;
  }
}

static inline void nd_ref_exponential_f32(uint64_t seed, uint64_t offset, int64_t n, float scale,
                                          float *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 4, &ps, w);
    out[i] = scale * -logf(1.0f - nd__unit_f32(w[i % 4]));
  }
}

static inline void nd_ref_exponential_f64(uint64_t seed, uint64_t offset, int64_t n, double scale,
                                          double *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const int k = (int)(i % 2);
    out[i] = scale * -log(1.0 - nd__unit_f64(w[2 * k], w[2 * k + 1]));
  }
}

/* Integers as the kernel computes them, stored little-endian in itemsize bytes per element.
 * Rejected candidates are replaced, in element order within the block, by further words of the
 * block's stream (counters s = 1, 2, ...). */
static inline void nd_ref_integers(uint64_t seed, uint64_t offset, int64_t n, const nd_krparams *p,
                                   int itemsize, void *out) {
  const int per = p->wide ? 2 : 4;
  for (int64_t j = 0; j * per < n; j++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, j, &ps, w);
    for (int k = 0; k < per; k++) {
      uint64_t c;
      int ok;
      if (!p->wide) {
        c = nd__lemire32(w[k], (uint32_t)p->range, (uint32_t)p->threshold, &ok);
        while (!ok) c = nd__lemire32(nd__philox_next(&ps), (uint32_t)p->range, (uint32_t)p->threshold, &ok);
      } else {
        c = nd__lemire64(((uint64_t)w[2 * k] << 32) | w[2 * k + 1], p->range, p->threshold, &ok);
        while (!ok) {
          const uint64_t hi = nd__philox_next(&ps);
          const uint64_t lo = nd__philox_next(&ps);
          c = nd__lemire64((hi << 32) | lo, p->range, p->threshold, &ok);
        }
      }
      const int64_t i = j * per + k;
      if (i < n) {
        const uint64_t v = p->low + c;
        memcpy((char *)out + i * itemsize, &v, (size_t)itemsize); /* little-endian truncation */
      }
    }
  }
}

static inline void nd_ref_bernoulli(uint64_t seed, uint64_t offset, int64_t n, double p, uint8_t *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const int k = (int)(i % 2);
    out[i] = nd__unit_f64(w[2 * k], w[2 * k + 1]) < p;
  }
}

/* Unweighted permutation keys: 64 random bits per element, two per block. */
static inline void nd_ref_keys(uint64_t seed, uint64_t offset, int64_t n, uint64_t *keys) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const int k = (int)(i % 2);
    keys[i] = ((uint64_t)w[2 * k] << 32) | w[2 * k + 1];
  }
}

typedef struct nd_ref_kv {
  uint64_t key;
  int64_t idx;
} nd_ref_kv;

static int nd_ref_kv_cmp(const void *a, const void *b) {
  const nd_ref_kv *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx); /* stable: index order on ties */
}

/* The permutation a fill of n keys at offset produces: indices in ascending key order. */
static inline void nd_ref_permutation(uint64_t seed, uint64_t offset, int64_t n, int64_t *perm) {
  uint64_t *keys = malloc((size_t)n * sizeof *keys);
  nd_ref_kv *kv = malloc((size_t)n * sizeof *kv);
  nd_ref_keys(seed, offset, n, keys);
  for (int64_t i = 0; i < n; i++) {
    kv[i].key = keys[i];
    kv[i].idx = i;
  }
  qsort(kv, (size_t)n, sizeof *kv, nd_ref_kv_cmp);
  for (int64_t i = 0; i < n; i++) perm[i] = kv[i].idx;
  free(kv);
  free(keys);
}

/* choice with replacement and probabilities: the first index <= last with cdf > u. */
static inline void nd_ref_choice_cdf(uint64_t seed, uint64_t offset, int64_t n, const double *cdf,
                                     int64_t last, int64_t *out) {
  for (int64_t i = 0; i < n; i++) {
    nd__philox_stream ps;
    uint32_t w[4];
    nd_ref_block(seed, offset, i / 2, &ps, w);
    const int k = (int)(i % 2);
    const double u = nd__unit_f64(w[2 * k], w[2 * k + 1]);
    int64_t lo = 0, hi = last;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (cdf[mid] > u)
        hi = mid;
      else
        lo = mid + 1;
    }
    out[i] = lo;
  }
}

#endif /* ND_RANDOM_REF_H */
