/* Preparation and finishing kernels around the radix sorts (see sort.h): NaN
 * canonicalisation and the NaN fix-up after a native-key sort, twiddled and composite keys,
 * emitting sorted results through any strides, and the group bookkeeping of unique. All are one-thread-per-element grid-stride loops of
 * 256 threads (launch.cuh); they move each element once and run at copy speed. */
#include <cuda_fp16.h>
#include <string.h>

#include "kernels/launch.cuh"
#include "sort/sort.h"
#include "sort/sort_bits.cuh"
#include "ndcuda/dtype.h"

namespace {

const int nd_isz[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};

__device__ __forceinline__ int isz_of(int dt) {
  return dt == ND_BOOL || dt == ND_INT8 || dt == ND_UINT8 ? 1
         : dt == ND_INT16 || dt == ND_UINT16 || dt == ND_FLOAT16 ? 2
         : dt == ND_INT32 || dt == ND_UINT32 || dt == ND_FLOAT32 ? 4
         : dt == ND_COMPLEX128 ? 16 : 8;
}

__device__ __forceinline__ void put_bytes(char *d, const char *s, int n) {
  switch (n) {
    case 1: *(uint8_t *)d = *(const uint8_t *)s; break;
    case 2: *(uint16_t *)d = *(const uint16_t *)s; break;
    case 4: *(uint32_t *)d = *(const uint32_t *)s; break;
    case 8: *(uint64_t *)d = *(const uint64_t *)s; break;
    /* complex128 as two 8-byte moves: a view's elements are only 8-byte aligned for sure */
    default:
      ((uint64_t *)d)[0] = ((const uint64_t *)s)[0];
      ((uint64_t *)d)[1] = ((const uint64_t *)s)[1];
      break;
  }
}

__device__ __forceinline__ void put_uint(void *base, int64_t i, int kbytes, uint64_t k) {
  switch (kbytes) {
    case 1: ((uint8_t *)base)[i] = (uint8_t)k; break;
    case 2: ((uint16_t *)base)[i] = (uint16_t)k; break;
    case 4: ((uint32_t *)base)[i] = (uint32_t)k; break;
    default: ((uint64_t *)base)[i] = k; break;
  }
}

__device__ __forceinline__ uint64_t get_uint(const void *base, int64_t i, int kbytes) {
  switch (kbytes) {
    case 1: return ((const uint8_t *)base)[i];
    case 2: return ((const uint16_t *)base)[i];
    case 4: return ((const uint32_t *)base)[i];
    default: return ((const uint64_t *)base)[i];
  }
}

__global__ void k_canon(int dt, const char *src, char *dst, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    switch (dt) {
      case ND_BOOL: ((uint8_t *)dst)[i] = ((const uint8_t *)src)[i] != 0; break;
      case ND_FLOAT16: {
        uint16_t h = ((const uint16_t *)src)[i];
        ((uint16_t *)dst)[i] = (h & 0x7fffu) > 0x7c00u ? (uint16_t)0x7e00u : h;
        break;
      }
      case ND_FLOAT32: {
        uint32_t h = ((const uint32_t *)src)[i];
        ((uint32_t *)dst)[i] = (h & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : h;
        break;
      }
      case ND_FLOAT64: {
        uint64_t h = ((const uint64_t *)src)[i];
        ((uint64_t *)dst)[i] =
            (h & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? 0x7ff8000000000000ull : h;
        break;
      }
      default: {
        const int s = isz_of(dt);
        put_bytes(dst + i * s, src + i * s, s);
        break;
      }
    }
  }
}

/* Sign-bit-set NaN of a float dtype (raw bits). */
__device__ __forceinline__ bool neg_nan(int dt, const char *base, int64_t i) {
  switch (dt) {
    case ND_FLOAT16: return ((const uint16_t *)base)[i] > nd_neg_inf_bits16;
    case ND_FLOAT32: return ((const uint32_t *)base)[i] > nd_neg_inf_bits32;
    default: return ((const uint64_t *)base)[i] > nd_neg_inf_bits64;
  }
}

/* The number of sign-bit-set NaNs that CUB's radix sort put first: they form a prefix of the
 * sorted keys (their twiddled keys lie below that of -inf), so a binary search finds its end.
 * Every thread computes it; the probes hit the same few lines, which stay cached. */
__device__ int64_t neg_nan_prefix(int dt, const char *keys, int64_t n) {
  if (n == 0 || !neg_nan(dt, keys, 0)) return 0;
  int64_t lo = 1, hi = n; /* the first index that is not such a NaN lies in [lo, hi] */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (neg_nan(dt, keys, mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* First pass of the NaN fix-up: with c > 0 leading negative NaNs, scratch = keys rotated left
 * by c (the NaNs move behind the positive ones, bits unchanged), and *flag = c. */
__global__ void k_nanfix_rotate(int dt, const char *keys, char *scratch, int64_t n, int64_t *flag) {
  const int64_t c = neg_nan_prefix(dt, keys, n);
  if (blockIdx.x == 0 && threadIdx.x == 0) *flag = c;
  if (c == 0 || c == n) return;
  const int w = isz_of(dt);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t j = i + c < n ? i + c : i + c - n;
    put_bytes(scratch + i * w, keys + j * w, w);
  }
}

/* Second pass: copies scratch back when the first pass rotated (reads the flag, not the keys,
 * which this pass overwrites). */
__global__ void k_nanfix_copy(int dt, char *keys, const char *scratch, int64_t n, const int64_t *flag) {
  const int64_t c = *flag;
  if (c == 0 || c == n) return;
  const int w = isz_of(dt);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    put_bytes(keys + i * w, scratch + i * w, w);
}

__global__ void k_prep(nd_kloop L, nd_koperand s, int64_t n, int composite, void *keys, int kbytes,
                       void *idx, int idx_bytes, int idx_in_row, char *vals, int w) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const char *p = s.data + nd_k_offset1(i, L, s.strides);
    const int64_t row = i / n, j = i - row * n;
    uint64_t k = nd_twiddle(s.dtype, p);
    if (composite) k |= (uint64_t)row << (8 * w);
    put_uint(keys, i, kbytes, k);
    if (idx) put_uint(idx, i, idx_bytes, (uint64_t)(idx_in_row ? j : i));
    if (vals) put_bytes(vals + i * w, p, w);
  }
}

__global__ void k_row_keys(const int64_t *idx, uint64_t *keys, int64_t total, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x)
    keys[i] = (uint64_t)(idx[i] / n);
}

__global__ void k_emit(int mode, nd_kloop Ld, nd_koperand d, const char *bits, int vbytes,
                       const int64_t *idx, int64_t n, nd_kloop Ls, nd_koperand s, int isz) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < Ld.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    char *o = d.data + nd_k_offset1(i, Ld, d.strides);
    if (mode == ND_KS_EMIT_BITS) put_bytes(o, bits + i * vbytes, vbytes);
    else if (mode == ND_KS_EMIT_IDX_MOD) *(int64_t *)o = idx[i] % n;
    else if (mode == ND_KS_EMIT_IDX32) *(int64_t *)o = ((const uint32_t *)bits)[i];
    else put_bytes(o, s.data + nd_k_offset1(idx[i], Ls, s.strides), isz);
  }
}

__global__ void k_unique_flags(const void *keys, int kbytes, int64_t n, uint64_t *flags) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    flags[i] = i == 0 || get_uint(keys, i, kbytes) != get_uint(keys, i - 1, kbytes);
}

__global__ void k_unique_scatter(const uint64_t *scan, const int64_t *perm, int64_t n, nd_kloop Ls,
                                 nd_koperand s, int isz, char *values, int64_t *first,
                                 int64_t *inverse, int64_t *start) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = (int64_t)scan[i] - 1, f = perm[i];
    if (i == 0 || scan[i] != scan[i - 1]) {
      if (values) put_bytes(values + g * isz, s.data + nd_k_offset1(f, Ls, s.strides), isz);
      if (first) first[g] = f;
      if (start) start[g] = i;
    }
    if (inverse) inverse[f] = g;
  }
}

__global__ void k_unique_counts(const int64_t *start, int64_t groups, int64_t n, int64_t *counts) {
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; g < groups;
       g += (int64_t)gridDim.x * blockDim.x)
    counts[g] = (g + 1 < groups ? start[g + 1] : n) - start[g];
}

unsigned blocks_for(int64_t n) { return nd_k_blocks(n, ND_K_THREADS); }

}  // namespace

extern "C" nd_status nd_k_sort_canon(int dtype, const void *src, void *dst, int64_t n, void *stream) {
  if (n == 0) return ND_OK;
  nd_k_launch<k_canon>(blocks_for(n), ND_K_THREADS, 0, (cudaStream_t)stream, dtype, (const char *)src, (char *)dst, n);
  return ND_K_LAUNCHED();
}

extern "C" size_t nd_k_sort_nanfix_bytes(int dtype, int64_t n) {
  const size_t keys = (size_t)n * (size_t)nd_isz[dtype];
  return (keys + 15) / 16 * 16 + 16;
}

extern "C" nd_status nd_k_sort_nanfix(int dtype, void *keys, void *scratch, int64_t n, void *stream) {
  if (n == 0) return ND_OK;
  if (dtype != ND_FLOAT16 && dtype != ND_FLOAT32 && dtype != ND_FLOAT64)
    return nd__error(ND_ERR_INTERNAL, "nd_k_sort_nanfix: dtype %d is not a float dtype", dtype);
  const size_t keybytes = (size_t)n * (size_t)nd_isz[dtype];
  int64_t *flag = (int64_t *)((char *)scratch + (keybytes + 15) / 16 * 16);
  cudaStream_t st = (cudaStream_t)stream;
  nd_k_launch<k_nanfix_rotate>(blocks_for(n), ND_K_THREADS, 0, st, dtype, (const char *)keys, (char *)scratch, n, flag);
  nd_status s = ND_K_LAUNCHED();
  if (s != ND_OK) return s;
  nd_k_launch<k_nanfix_copy>(blocks_for(n), ND_K_THREADS, 0, st, dtype, (char *)keys, (const char *)scratch, n, flag);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_sort_prep(const nd_kloop *L, const nd_koperand *src, int64_t n, int composite,
                                    void *keys, int kbytes, void *idx, int idx_bytes, int idx_in_row,
                                    void *vals, void *stream) {
  if (L->count == 0) return ND_OK;
  nd_k_launch<k_prep>(blocks_for(L->count), ND_K_THREADS, 0, (cudaStream_t)stream, *L, *src, n, composite, keys, kbytes, idx, idx_bytes, idx_in_row, (char *)vals, nd_isz[src->dtype]);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_sort_row_keys(const int64_t *idx, uint64_t *keys, int64_t total, int64_t n,
                                        void *stream) {
  if (total == 0) return ND_OK;
  nd_k_launch<k_row_keys>(blocks_for(total), ND_K_THREADS, 0, (cudaStream_t)stream, idx, keys, total, n);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_sort_emit(int mode, const nd_kloop *dloop, const nd_koperand *dst,
                                    const void *bits, int vbytes, const int64_t *idx, int64_t n,
                                    const nd_kloop *sloop, const nd_koperand *src, void *stream) {
  if (dloop->count == 0) return ND_OK;
  nd_kloop ls;
  nd_koperand so;
  memset(&ls, 0, sizeof ls);
  memset(&so, 0, sizeof so);
  if (sloop) ls = *sloop;
  if (src) so = *src;
  nd_k_launch<k_emit>(blocks_for(dloop->count), ND_K_THREADS, 0, (cudaStream_t)stream, mode, *dloop, *dst, (const char *)bits, vbytes, idx, n, ls, so, src ? nd_isz[src->dtype] : 1);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_unique_flags(const void *keys, int kbytes, int64_t n, uint64_t *flags,
                                       void *stream) {
  if (n == 0) return ND_OK;
  nd_k_launch<k_unique_flags>(blocks_for(n), ND_K_THREADS, 0, (cudaStream_t)stream, keys, kbytes, n, flags);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_unique_scatter(const uint64_t *scan, const int64_t *perm, int64_t n,
                                         const nd_kloop *sloop, const nd_koperand *src, char *values,
                                         int64_t *first, int64_t *inverse, int64_t *start,
                                         void *stream) {
  if (n == 0) return ND_OK;
  nd_k_launch<k_unique_scatter>(blocks_for(n), ND_K_THREADS, 0, (cudaStream_t)stream, scan, perm, n, *sloop, *src, nd_isz[src->dtype], values, first, inverse, start);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_unique_counts(const int64_t *start, int64_t groups, int64_t n,
                                        int64_t *counts, void *stream) {
  if (groups == 0) return ND_OK;
  nd_k_launch<k_unique_counts>(blocks_for(groups), ND_K_THREADS, 0, (cudaStream_t)stream, start, groups, n, counts);
  return ND_K_LAUNCHED();
}
