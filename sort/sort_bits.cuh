/* Bits of keys shared by the sort kernels: the -inf patterns of sort_util.cu's NaN fix-up after
 * CUB's sort and sort_block.cu's one-block sort, and the twiddled keys of sort_util.cu's
 * preparation kernel and sort_block.cu's argsort. */
#ifndef ND_SORT_BITS_CUH
#define ND_SORT_BITS_CUH

#include <cstdint>

#include "ndcuda/dtype.h"

/* The bits of -inf in float16, float32 and float64: a key's bits above these are a NaN with its
 * sign bit set, which the native radix order puts first. */
constexpr uint16_t nd_neg_inf_bits16 = 0xfc00u;
constexpr uint32_t nd_neg_inf_bits32 = 0xff800000u;
constexpr uint64_t nd_neg_inf_bits64 = 0xfff0000000000000ull;

/* NumPy's sort order as an unsigned integer: signed integers flip the sign bit; floats map
 * negatives to their complement and positives above them, with -0.0 as +0.0 and every NaN
 * all-ones (after +inf). */
__device__ __forceinline__ uint64_t nd_twiddle(int dt, const char *p) {
  switch (dt) {
    case ND_BOOL: return *(const uint8_t *)p != 0;
    case ND_INT8: return (uint8_t)(*(const uint8_t *)p ^ 0x80u);
    case ND_INT16: return (uint16_t)(*(const uint16_t *)p ^ 0x8000u);
    case ND_INT32: return *(const uint32_t *)p ^ 0x80000000u;
    case ND_INT64: return *(const uint64_t *)p ^ 0x8000000000000000ull;
    case ND_UINT8: return *(const uint8_t *)p;
    case ND_UINT16: return *(const uint16_t *)p;
    case ND_UINT32: return *(const uint32_t *)p;
    case ND_UINT64: return *(const uint64_t *)p;
    case ND_FLOAT16: {
      uint16_t h = *(const uint16_t *)p;
      if ((h & 0x7fffu) > 0x7c00u) return 0xffffu;
      if ((h & 0x7fffu) == 0) return 0x8000u;
      return (h & 0x8000u) ? (uint16_t)~h : (uint16_t)(h | 0x8000u);
    }
    case ND_FLOAT32: {
      uint32_t h = *(const uint32_t *)p;
      if ((h & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
      if ((h & 0x7fffffffu) == 0) return 0x80000000u;
      return (h & 0x80000000u) ? ~h : (h | 0x80000000u);
    }
    case ND_FLOAT64: {
      uint64_t h = *(const uint64_t *)p;
      if ((h & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ~0ull;
      if ((h & 0x7fffffffffffffffull) == 0) return 0x8000000000000000ull;
      return (h & 0x8000000000000000ull) ? ~h : (h | 0x8000000000000000ull);
    }
  }
  return 0;
}

#endif /* ND_SORT_BITS_CUH */
