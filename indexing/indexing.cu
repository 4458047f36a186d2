/* Integer-array indexing on the device: index checks, offset arrays, gather and scatter.
 *
 * Every index operation is split the same way: the index arrays become one int64 array of
 * byte offsets (one kernel per index array, each adding its index times the indexed axis's
 * stride), and one move kernel then copies elements with those offsets added on the source
 * (gather) or destination (scatter) side, over a loop whose other dimensions are ordinary
 * strided dimensions. 'raise' checks run before any of this (nd_k_index_check), so an
 * offending index is found before anything is written.
 *
 * Index values are read through one switch on the dtype (uniform across a warp) rather than a
 * template instance per index dtype, and elements move as integers of their size, so the
 * whole family is a handful of instances. Launch geometry: grid-stride loops of ND_K_THREADS
 * threads (launch.cuh, through nd_k_launch), one element per iteration. */
#include <cuda_runtime.h>
#include <string.h>

#include "indexing/indexing.h"
#include "kernels/launch.cuh"
#include "ndcuda/dtype.h"

namespace {

/* An index element as int64: bool as 0/1, unsigned 64-bit values wrap as a C cast does. */
__device__ __forceinline__ int64_t ld_index(int dt, const char *p) {
  switch (dt) {
    case ND_BOOL: return *(const unsigned char *)p != 0;
    case ND_INT8: return *(const int8_t *)p;
    case ND_INT16: return *(const int16_t *)p;
    case ND_INT32: return *(const int32_t *)p;
    case ND_UINT8: return *(const uint8_t *)p;
    case ND_UINT16: return *(const uint16_t *)p;
    case ND_UINT32: return *(const uint32_t *)p;
    case ND_UINT64: return (int64_t) * (const uint64_t *)p;
    default: return *(const int64_t *)p;
  }
}

__global__ void k_slots_init(uint64_t *slots, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slots[i] = ~0ull;
}

__global__ void k_index_check(nd_kloop L, nd_koperand idx, int64_t bound, unsigned long long *slot) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t v = ld_index(idx.dtype, idx.data + nd_k_offset1(i, L, idx.strides));
    if (v < -bound || v >= bound) atomicMin(slot, (unsigned long long)i);
  }
}

__global__ void k_index_offsets(nd_kloop L, nd_koperand off, nd_koperand idx, int64_t bound, int mode,
                                int accumulate, int64_t mult, int flat, nd_kloop F, nd_koperand fs) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t oo, oi;
    nd_k_offsets2(i, L, off.strides, idx.strides, oo, oi);
    int64_t v = ld_index(idx.dtype, idx.data + oi);
    if (mode == ND_KIX_WRAP) {
      v %= bound;
      if (v < 0) v += bound;
    } else if (mode == ND_KIX_CLIP) {
      v = v < 0 ? 0 : (v >= bound ? bound - 1 : v);
    } else if (v < 0) {
      v += bound;
    }
    const int64_t o = flat ? nd_k_offset1(v, F, fs.strides) : v * mult;
    int64_t *p = (int64_t *)(off.data + oo);
    *p = accumulate ? *p + o : o;
  }
}

template <int N>
struct word {
  typedef unsigned char type;
};
template <>
struct word<2> {
  typedef uint16_t type;
};
template <>
struct word<4> {
  typedef uint32_t type;
};
template <>
struct word<8> {
  typedef uint64_t type;
};
template <>
struct word<16> {
  typedef uint4 type;
};

/* Three operands over one loop: dst, src and off (int64). */
template <int N, bool SCATTER>
__global__ void k_index_move(nd_kloop L, nd_koperand d, nd_koperand s, nd_koperand f) {
  typedef typename word<N>::type T;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od = 0, os = 0, of = 0, rem = i;
    for (int k = L.ndim - 1; k > 0; --k) {
      const int64_t n = L.shape[k], q = rem / n, r = rem - q * n;
      od += r * d.strides[k];
      os += r * s.strides[k];
      of += r * f.strides[k];
      rem = q;
    }
    if (L.ndim > 0) {
      od += rem * d.strides[0];
      os += rem * s.strides[0];
      of += rem * f.strides[0];
    }
    const int64_t extra = *(const int64_t *)(f.data + of);
    if (SCATTER)
      *(T *)(d.data + od + extra) = *(const T *)(s.data + os);
    else
      *(T *)(d.data + od) = *(const T *)(s.data + os + extra);
  }
}

template <int N>
void move_n(const nd_kloop &L, const nd_koperand &d, const nd_koperand &s, const nd_koperand &f, int scatter,
            cudaStream_t st) {
  const unsigned blocks = nd_k_blocks(L.count, ND_K_THREADS);
  if (scatter) nd_k_launch<k_index_move<N, true>>(blocks, ND_K_THREADS, 0, st, L, d, s, f);
  else nd_k_launch<k_index_move<N, false>>(blocks, ND_K_THREADS, 0, st, L, d, s, f);
}

} // namespace

extern "C" nd_status nd_k_index_slots_init(uint64_t *slots, int n, void *stream) {
  if (n <= 0) return ND_OK;
  nd_k_launch<k_slots_init>((unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream, slots, n);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_index_check(const nd_kloop *loop, const nd_koperand *idx, int64_t bound,
                                      uint64_t *slot, void *stream) {
  if (loop->count <= 0) return ND_OK;
  nd_k_launch<k_index_check>(nd_k_blocks(loop->count, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream,
                             *loop, *idx, bound, (unsigned long long *)slot);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_index_offsets(const nd_kloop *loop, const nd_koperand *off,
                                        const nd_koperand *idx, int64_t bound, int mode,
                                        int accumulate, int64_t mult, const nd_kloop *flat_loop,
                                        const int64_t *flat_strides, void *stream) {
  if (loop->count <= 0) return ND_OK;
  nd_kloop F;
  nd_koperand fs;
  memset(&F, 0, sizeof F);
  memset(&fs, 0, sizeof fs);
  if (flat_loop != NULL) {
    F = *flat_loop;
    memcpy(fs.strides, flat_strides, sizeof fs.strides);
  }
  nd_k_launch<k_index_offsets>(nd_k_blocks(loop->count, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream,
                               *loop, *off, *idx, bound, mode, accumulate, mult, (int)(flat_loop != NULL), F, fs);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_index_move(const nd_kloop *loop, const nd_koperand *dst,
                                     const nd_koperand *src, const nd_koperand *off, int off_on_dst,
                                     int itemsize, void *stream) {
  if (loop->count <= 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  switch (itemsize) {
    case 1: move_n<1>(*loop, *dst, *src, *off, off_on_dst, st); break;
    case 2: move_n<2>(*loop, *dst, *src, *off, off_on_dst, st); break;
    case 4: move_n<4>(*loop, *dst, *src, *off, off_on_dst, st); break;
    case 8: move_n<8>(*loop, *dst, *src, *off, off_on_dst, st); break;
    case 16: move_n<16>(*loop, *dst, *src, *off, off_on_dst, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_index_move: item size %d", itemsize);
  }
  return ND_K_LAUNCHED();
}
