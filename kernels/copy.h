/* Launchers for the copy family: strided-to-strided copy with conversion, fill, the
 * triangle mask, and the arange/linspace sequence kernels. */
#ifndef ND_KERNELS_COPY_H
#define ND_KERNELS_COPY_H

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = convert(src[i]) over the loop. dst and src must not overlap partially (the
 * caller copies through a temporary when they do). */
nd_status nd_k_copy(const nd_kloop *loop, const nd_koperand *dst, const nd_koperand *src,
                    void *stream);

/* dst[i] = value, where value holds one element of dst's dtype. */
nd_status nd_k_fill(const nd_kloop *loop, const nd_koperand *dst, const nd_kscalar *value,
                    void *stream);

/* For a stack of matrices dst (loop dims: ..., rows, cols; ndim >= 2): zero the elements with
 * col - row > k (lower = 1, tril) or col - row < k (lower = 0, triu). */
nd_status nd_k_tri_mask(const nd_kloop *loop, const nd_koperand *dst, int lower, int64_t k,
                        void *stream);

/* dst is contiguous with `count` elements: dst[i] = start + i * step, computed in double
 * (integer dtypes take the floor when floor_int is set, else truncate as a cast), with
 * dst[count-1] = last when set_last is set (linspace's endpoint). */
nd_status nd_k_sequence(char *dst, int dtype, int64_t count, double start, double step,
                        int floor_int, int set_last, double last, void *stream);

/* Exact integer sequence: dst[i] = start + i * step computed in int64 then converted. */
nd_status nd_k_sequence_int(char *dst, int dtype, int64_t count, int64_t start, int64_t step,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_COPY_H */
