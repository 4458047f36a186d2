/* Bits of raw float keys shared by the sort kernels (sort_util.cu's NaN fix-up after CUB's sort
 * and sort_block.cu's one-block sort). */
#ifndef ND_SORT_BITS_CUH
#define ND_SORT_BITS_CUH

#include <cstdint>

/* The bits of -inf in float16, float32 and float64: a key's bits above these are a NaN with its
 * sign bit set, which the native radix order puts first. */
constexpr uint16_t nd_neg_inf_bits16 = 0xfc00u;
constexpr uint32_t nd_neg_inf_bits32 = 0xff800000u;
constexpr uint64_t nd_neg_inf_bits64 = 0xfff0000000000000ull;

#endif /* ND_SORT_BITS_CUH */
