/* Launchers for integer-array indexing (indexing/indexing.cu): index checks, the offset arrays
 * that turn index arrays into byte offsets, and the gather/scatter that moves elements
 * through such an offset array. Host code in indexing/indexing.c builds the loops and operands;
 * these see only plain structs and a cudaStream_t. */
#ifndef ND_KERNELS_INDEXING_H
#define ND_KERNELS_INDEXING_H

#include <stdint.h>

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How an index value v is brought into [0, n) (n > 0 when any index is read):
 * CHECKED: v + n when v < 0 (the caller has checked -n <= v < n beforehand);
 * WRAP: v mod n (Python's modulo, so always in range); CLIP: v clamped to [0, n - 1]. */
enum nd_kindex_mode { ND_KIX_CHECKED = 0, ND_KIX_WRAP = 1, ND_KIX_CLIP = 2 };

/* Sets n uint64 slots to UINT64_MAX (no offending index found yet). */
nd_status nd_k_index_slots_init(uint64_t *slots, int n, void *stream);

/* For every element of idx (an integer or bool dtype) over loop: if its value v (converted to
 * int64 as a C cast, which is NumPy's same_kind cast for uint64) lies outside [-bound, bound),
 * *slot = min(*slot, its C-order position in the loop). The loop must not be collapsed
 * differently from idx's own C order (the caller passes idx alone), so that the position
 * found is the C-order position in idx. */
nd_status nd_k_index_check(const nd_kloop *loop, const nd_koperand *idx, int64_t bound,
                           uint64_t *slot, void *stream);

/* off (int64) and idx iterated together over loop: off = (accumulate ? off : 0) + o(v), where
 * v is idx's value brought into [0, bound) by mode and o(v) is v * mult, or, when flat_loop is
 * not NULL, the byte offset of the v-th element in C order of an array iterated by flat_loop
 * with byte strides flat_strides (NumPy's a.flat[v]). */
nd_status nd_k_index_offsets(const nd_kloop *loop, const nd_koperand *off, const nd_koperand *idx,
                             int64_t bound, int mode, int accumulate, int64_t mult,
                             const nd_kloop *flat_loop, const int64_t *flat_strides, void *stream);

/* Moves itemsize-byte elements over loop with the int64 offsets of off added on one side:
 * off_on_dst == 0 (gather): dst[i] = src[i + off[i]]; otherwise (scatter):
 * dst[i + off[i]] = src[i]. dst and src have the same dtype. Scatter with repeated offsets
 * stores one of the competing elements (which one is unspecified). */
nd_status nd_k_index_move(const nd_kloop *loop, const nd_koperand *dst, const nd_koperand *src,
                          const nd_koperand *off, int off_on_dst, int itemsize, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_INDEXING_H */
