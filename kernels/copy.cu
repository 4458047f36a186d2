/* The copy family: strided copy with dtype conversion, fill, triangle masks, sequences.
 *
 * Paths of nd_k_copy, chosen on the collapsed loop:
 * - same dtype, both sides contiguous: cudaMemcpyAsync (the copy engine's path, the
 *   reference for "copy bandwidth");
 * - same dtype, the last two dimensions transposed between the sides: a 64x64 (items of up
 *   to 4 bytes) or 32x32 shared-memory tile per block, so both the reads and the writes are
 *   coalesced (rows padded by one element to keep the column reads free of bank conflicts);
 * - same dtype otherwise: one thread per element, moved as an integer of the item size;
 * - different dtypes, both contiguous: a typed kernel for the common float conversions,
 *   else the tagged-value path of convert.cuh;
 * - different dtypes, strided: the tagged-value path.
 * Launch geometry: grid-stride loops of 256 threads (launch.cuh); tiles of 32x8 threads. */
#include <climits>
#include <cuda_fp16.h>

#include "kernels/convert.cuh"
#include "kernels/copy.h"
#include "kernels/launch.cuh"

namespace {

template <int N>
struct nd_bytes {
  typedef unsigned char type;
};
template <>
struct nd_bytes<2> {
  typedef uint16_t type;
};
template <>
struct nd_bytes<4> {
  typedef uint32_t type;
};
template <>
struct nd_bytes<8> {
  typedef uint64_t type;
};
template <>
struct nd_bytes<16> {
  typedef uint4 type;
};

const int nd_itemsize_of[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};

template <int N>
__global__ void k_copy_same(nd_kloop L, nd_koperand d, nd_koperand s) {
  typedef typename nd_bytes<N>::type T;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od, os;
    nd_k_offsets2(i, L, d.strides, s.strides, od, os);
    *(T *)(d.data + od) = *(const T *)(s.data + os);
  }
}

/* The last two loop dimensions (R, C): dst moves by item along C, src by item along R. Each
 * block moves one TILE x TILE tile of one batch (b0 + blockIdx.z) through shared memory with
 * 32 x 8 threads; the +1 column of padding keeps the transposed shared-memory accesses free
 * of bank conflicts. Whole tiles skip the bounds checks. TILE is 64 for items of up to 4
 * bytes (16 elements per thread each way: 96% of the copy rate on the H100, against 93% for
 * 32), 32 for wider items (a 64-wide tile of 8- or 16-byte items would not fit the static
 * shared memory). One batch per block and no loop over batches in the kernel: the same tile
 * code inside a grid-stride loop over batches ran at 78% (bench/RESULTS.md); the host
 * launches again for batches past the grid's z limit and for row tiles past its y limit
 * (b0 and y0: the first batch and row tile of the launch). */
template <int N>
struct transpose_tile {
  static constexpr int value = N <= 4 ? 64 : 32;
};

template <int N>
__global__ void __launch_bounds__(256) k_transpose(nd_kloop L, nd_koperand d, nd_koperand s, int64_t b0,
                                                  int64_t y0) {
  typedef typename nd_bytes<N>::type T;
  constexpr int TILE = transpose_tile<N>::value;
  __shared__ T tile[TILE][TILE + 1];
  const int nd = L.ndim;
  const int64_t R = L.shape[nd - 2], C = L.shape[nd - 1];
  const int64_t r0 = (y0 + blockIdx.y) * TILE, c0 = (int64_t)blockIdx.x * TILE;
  const int64_t ldS = s.strides[nd - 1] / N, ldD = d.strides[nd - 2] / N; /* in elements */
  const int tx = threadIdx.x, ty = threadIdx.y;
  int64_t od = 0, os = 0, rem = b0 + blockIdx.z;
  for (int k = nd - 3; k >= 0; --k) {
    const int64_t n = L.shape[k], q = rem / n, r = rem - q * n;
    od += r * d.strides[k];
    os += r * s.strides[k];
    rem = q;
  }
  const T *sp = (const T *)(s.data + os) + r0 + c0 * ldS;
  T *dp = (T *)(d.data + od) + r0 * ldD + c0;
  if (r0 + TILE <= R && c0 + TILE <= C) {
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
#pragma unroll
      for (int i = 0; i < TILE; i += 32) tile[tx + i][ty + j] = sp[tx + i + (ty + j) * ldS];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
#pragma unroll
      for (int i = 0; i < TILE; i += 32) dp[(ty + j) * ldD + tx + i] = tile[ty + j][tx + i];
  } else {
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
#pragma unroll
      for (int i = 0; i < TILE; i += 32)
        if (r0 + tx + i < R && c0 + ty + j < C) tile[tx + i][ty + j] = sp[tx + i + (ty + j) * ldS];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE; j += 8)
#pragma unroll
      for (int i = 0; i < TILE; i += 32)
        if (r0 + ty + j < R && c0 + tx + i < C) dp[(ty + j) * ldD + tx + i] = tile[ty + j][tx + i];
  }
}

__global__ void k_convert_strided(nd_kloop L, nd_koperand d, nd_koperand s) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od, os;
    nd_k_offsets2(i, L, d.strides, s.strides, od, os);
    nd_store(d.dtype, d.data + od, nd_load(s.dtype, s.data + os));
  }
}

__global__ void k_convert_contig(int64_t n, char *dst, int ddt, int dsz, const char *src, int sdt,
                                 int ssz) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    nd_store(ddt, dst + i * dsz, nd_load(sdt, src + i * ssz));
}

template <typename S, typename D>
__device__ __forceinline__ D nd_cvt(S x) {
  return (D)x;
}
template <>
__device__ __forceinline__ __half nd_cvt<float, __half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ float nd_cvt<__half, float>(__half x) {
  return __half2float(x);
}

/* V elements of T in one aligned access. */
template <typename T, int V>
struct alignas(V * sizeof(T)) nd_vec {
  T v[V];
};

/* Elements per thread and step: as many as make the wider of the two sides one 16-byte
 * access (float32 -> float64: 2, float32 -> float16: 4), so every load and store of a warp is
 * contiguous and fully coalesced. */
template <typename S, typename D>
struct nd_width {
  static const int value = 16 / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
};

/* Vector groups per thread in the one-shot kernels below (each loaded before any is stored, so
 * they are in flight together). */
#define ND_ONESHOT_U 4

/* Blocks for a one-shot kernel over `groups` vector groups: one block per ND_ONESHOT_U *
 * ND_K_THREADS groups, as many as the work needs (clamped to the grid's x limit, past which the
 * blocks loop). A grid of one resident wave that strides over the whole array ends with every
 * block draining at once, and each thread then has only one access in flight; many short
 * blocks keep the memory system busy to the end, whatever the device's bandwidth (the
 * elementwise kernels measured the same, elementwise/elementwise.cu's vec_grid). */
static inline unsigned nd_k_oneshot_blocks(int64_t groups) {
  const int64_t per = (int64_t)ND_ONESHOT_U * ND_K_THREADS;
  return nd_k_grid_x((groups + per - 1) / per);
}

/* Contiguous conversion of aligned arrays, ND_ONESHOT_U groups of V elements per thread;
 * requires group alignment of both pointers (checked by the launcher); the n % V elements
 * at the end are done one per thread. */
template <typename S, typename D>
__global__ void __launch_bounds__(ND_K_THREADS) k_convert_typed(int64_t n, D *__restrict__ dst,
                                                                const S *__restrict__ src) {
  constexpr int V = nd_width<S, D>::value, U = ND_ONESHOT_U;
  const int64_t groups = n / V;
  const int64_t per = (int64_t)U * blockDim.x;
  const nd_vec<S, V> *vs = reinterpret_cast<const nd_vec<S, V> *>(src);
  nd_vec<D, V> *vd = reinterpret_cast<nd_vec<D, V> *>(dst);
  for (int64_t base = blockIdx.x * per; base < groups; base += (int64_t)gridDim.x * per) {
    const int64_t g = base + threadIdx.x;
    if (base + per <= groups) {
      nd_vec<S, V> a[U];
#pragma unroll
      for (int u = 0; u < U; u++) a[u] = vs[g + (int64_t)u * blockDim.x];
#pragma unroll
      for (int u = 0; u < U; u++) {
        nd_vec<D, V> x;
#pragma unroll
        for (int k = 0; k < V; k++) x.v[k] = nd_cvt<S, D>(a[u].v[k]);
        vd[g + (int64_t)u * blockDim.x] = x;
      }
    } else {
      for (int64_t j = g; j < groups; j += blockDim.x) {
        nd_vec<S, V> a = vs[j];
        nd_vec<D, V> x;
#pragma unroll
        for (int k = 0; k < V; k++) x.v[k] = nd_cvt<S, D>(a.v[k]);
        vd[j] = x;
      }
    }
  }
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid < n - groups * V) dst[groups * V + tid] = nd_cvt<S, D>(src[groups * V + tid]);
}

/* Contiguous fill of 16-byte-aligned memory with 16-byte stores: `pat` is the element's bytes
 * repeated over 16 (every item size divides 16), so the store at byte offset b writes the
 * pattern's bytes from b % 16. ND_ONESHOT_U stores per thread; the nbytes % 16 bytes at the
 * end (whole elements) byte by byte. */
__global__ void __launch_bounds__(ND_K_THREADS) k_fill_vec(char *p, int64_t nbytes, nd_kscalar pat) {
  uint4 x;
  memcpy(&x, pat.bytes, 16);
  const int64_t groups = nbytes / 16;
  const int64_t per = (int64_t)ND_ONESHOT_U * blockDim.x;
  uint4 *q = (uint4 *)p;
  for (int64_t base = blockIdx.x * per; base < groups; base += (int64_t)gridDim.x * per) {
    const int64_t g = base + threadIdx.x;
    if (base + per <= groups) {
#pragma unroll
      for (int u = 0; u < ND_ONESHOT_U; u++) q[g + (int64_t)u * blockDim.x] = x;
    } else {
      for (int64_t j = g; j < groups; j += blockDim.x) q[j] = x;
    }
  }
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid < nbytes - groups * 16) p[groups * 16 + tid] = (char)pat.bytes[tid];
}

/* Fills larger than the L2 cache: one 16-byte store per thread and as many blocks as vectors
 * (the grid loops only past the grid's limit). Writes that reach memory go faster in many
 * short blocks than through the driver's fill or a few looping ones: of a plain or streaming
 * store of 1, 4 or 8 vectors per thread, one vector was fastest on the H100 and the H200 and
 * beat cuMemsetD32 by 1-2% there (bench rows ref.fill_f32_*, bench/RESULTS.md). */
__global__ void __launch_bounds__(ND_K_THREADS) k_fill_wide(char *p, int64_t nbytes, uint4 x) {
  const int64_t groups = nbytes / 16;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  /* Not unrolled: the unrolled loop's trip count costs a 64-bit division per thread, more than
   * the one store each thread has (the kernel then ran at half the rate). */
#pragma unroll 1
  for (int64_t j = tid; j < groups; j += step) ((uint4 *)p)[j] = x;
  if (tid < nbytes - groups * 16) {
    const unsigned w = tid < 4 ? x.x : tid < 8 ? x.y : tid < 12 ? x.z : x.w;
    p[groups * 16 + tid] = (char)(w >> (8 * (tid & 3)));
  }
}

/* Contiguous fill with a small parameter block: launch cost grows with the bytes of kernel
 * parameters, and tiny fills are dominated by it. */
template <int N>
__global__ void k_fill_contig(char *p, int64_t n, nd_kscalar v) {
  typedef typename nd_bytes<N>::type T;
  T x;
  memcpy(&x, v.bytes, N);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    ((T *)p)[i] = x;
}

template <int N>
__global__ void k_fill(nd_kloop L, nd_koperand d, nd_kscalar v) {
  typedef typename nd_bytes<N>::type T;
  T x;
  memcpy(&x, v.bytes, N);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x)
    *(T *)(d.data + nd_k_offset1(i, L, d.strides)) = x;
}

template <int N>
__global__ void k_tri_mask(nd_kloop L, nd_koperand d, int lower, int64_t k) {
  typedef typename nd_bytes<N>::type T;
  T zero;
  memset(&zero, 0, sizeof zero);
  const int64_t C = L.shape[L.ndim - 1], R = L.shape[L.ndim - 2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t col = i % C, row = (i / C) % R;
    bool kill = lower ? (col - row > k) : (col - row < k);
    if (kill) *(T *)(d.data + nd_k_offset1(i, L, d.strides)) = zero;
  }
}

__global__ void k_sequence(char *dst, int dt, int sz, int64_t n, double start, double step,
                           int floor_int, int set_last, double last) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    nd_kval v;
    v.kind = ND_K_FLOAT;
    v.i = 0;
    v.u = 0;
    v.im = 0;
    /* Two roundings, as NumPy computes start + i * step: the _rn intrinsics keep nvcc from
     * contracting them into one fma, whose single rounding gives different last bits. */
    v.re = (set_last && i == n - 1) ? last : __dadd_rn(start, __dmul_rn((double)i, step));
    if (floor_int) v.re = floor(v.re);
    nd_store(dt, dst + i * sz, v);
  }
}

__global__ void k_sequence_int(char *dst, int dt, int sz, int64_t n, int64_t start, int64_t step) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    nd_kval v;
    v.kind = ND_K_SINT;
    v.i = (int64_t)((uint64_t)start + (uint64_t)i * (uint64_t)step);
    v.u = 0;
    v.re = 0;
    v.im = 0;
    nd_store(dt, dst + i * sz, v);
  }
}

bool nd_is_contig(const nd_kloop *L, const nd_koperand *o, int itemsize) {
  return L->ndim <= 1 && (L->ndim == 0 || o->strides[0] == itemsize);
}

template <typename S, typename D>
nd_status nd_launch_typed(int64_t n, char *d, const char *s, cudaStream_t st, bool *done) {
  constexpr int V = nd_width<S, D>::value;
  if ((uintptr_t)s % alignof(nd_vec<S, V>) != 0 || (uintptr_t)d % alignof(nd_vec<D, V>) != 0) {
    *done = false; /* misaligned views take the general path */
    return ND_OK;
  }
  *done = true;
  const cudaError_t typed_launch = nd_k_go<k_convert_typed<S, D>>(
      nd_k_oneshot_blocks(n / V + 1), ND_K_THREADS, 0, st, n, (D *)d, (const S *)s);
  return ND_CUDA(typed_launch);
}

/* Typed contiguous conversions for the pairs that dominate real use; every other pair takes
 * the tagged path. Returns 0 when the pair has no typed kernel. */
int nd_try_typed(int sdt, int ddt, int64_t n, char *d, const char *s, cudaStream_t st,
                 nd_status *out) {
#define ND__PAIR(a, b, S, D)                              \
  if (sdt == a && ddt == b) {                             \
    bool done = false;                                    \
    *out = nd_launch_typed<S, D>(n, d, s, st, &done);     \
    return done;                                          \
  }
  ND__PAIR(10, 11, float, double)
  ND__PAIR(11, 10, double, float)
  ND__PAIR(10, 9, float, __half)
  ND__PAIR(9, 10, __half, float)
  ND__PAIR(3, 10, int32_t, float)
  ND__PAIR(4, 11, int64_t, double)
  ND__PAIR(3, 11, int32_t, double)
#undef ND__PAIR
  return 0;
}


}  // namespace

/* Calls f with std::integral_constant<int, B> for an item size of B bytes (1, 2, 4, 8 or 16):
 * one launch site for the kernels instantiated per item size. */
template <class F>
cudaError_t nd_by_itemsize(int size, F &&f) {
  switch (size) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 4: return f(std::integral_constant<int, 4>());
    case 8: return f(std::integral_constant<int, 8>());
    default: return f(std::integral_constant<int, 16>());
  }
}

extern "C" nd_status nd_k_copy(const nd_kloop *L, const nd_koperand *d, const nd_koperand *s,
                               void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (L->count == 0) return ND_OK;
  const int dsz = nd_itemsize_of[d->dtype], ssz = nd_itemsize_of[s->dtype];
  const bool dc = nd_is_contig(L, d, dsz), sc = nd_is_contig(L, s, ssz);
  if (d->dtype == s->dtype) {
    if (dc && sc)
      return ND_CUDA(cudaMemcpyAsync(d->data, s->data, (size_t)(L->count * dsz),
                                     cudaMemcpyDeviceToDevice, st));
    const int nd = L->ndim;
    if (nd >= 2 && d->strides[nd - 1] == dsz && s->strides[nd - 2] == dsz &&
        s->strides[nd - 1] % dsz == 0 && d->strides[nd - 2] % dsz == 0 &&
        s->strides[nd - 1] != dsz && L->shape[nd - 2] >= 8 && L->shape[nd - 1] >= 8 &&
        (L->shape[nd - 1] + 31) / 32 <= INT_MAX && (dsz == 4 || dsz == 8 || dsz == 2 || dsz == 1 || dsz == 16)) {
      const int64_t batches = L->count / (L->shape[nd - 2] * L->shape[nd - 1]);
      return ND_CUDA(nd_by_itemsize(dsz, [&](auto B) {
        constexpr int N = decltype(B)::value, TILE = transpose_tile<N>::value;
        const int64_t ytiles = (L->shape[nd - 2] + TILE - 1) / TILE;
        cudaError_t e = cudaSuccess;
        for (int64_t b0 = 0; b0 < batches && e == cudaSuccess; b0 += 65535) {
          const int64_t nb = batches - b0 < 65535 ? batches - b0 : 65535;
          for (int64_t y0 = 0; y0 < ytiles && e == cudaSuccess; y0 += 65535) {
            const int64_t ny = ytiles - y0 < 65535 ? ytiles - y0 : 65535;
            const dim3 grid((unsigned)((L->shape[nd - 1] + TILE - 1) / TILE), (unsigned)ny, (unsigned)nb);
            e = nd_k_go<k_transpose<N>>(grid, dim3(32, 8), 0, st, *L, *d, *s, b0, y0);
          }
        }
        return e;
      }));
    }
    unsigned blocks = nd_k_blocks(L->count, ND_K_THREADS);
    return ND_CUDA(nd_by_itemsize(dsz, [&](auto B) {
      return nd_k_go<k_copy_same<decltype(B)::value>>(blocks, ND_K_THREADS, 0, st, *L, *d, *s);
    }));
  }
  if (dc && sc) {
    nd_status out;
    if (nd_try_typed(s->dtype, d->dtype, L->count, d->data, s->data, st, &out)) return out;
    return ND_CUDA(nd_k_go<k_convert_contig>(nd_k_blocks(L->count, ND_K_THREADS), ND_K_THREADS, 0, st,
                                             L->count, d->data, d->dtype, dsz, s->data, s->dtype, ssz));
  }
  return ND_CUDA(nd_k_go<k_convert_strided>(nd_k_blocks(L->count, ND_K_THREADS), ND_K_THREADS, 0, st,
                                            *L, *d, *s));
}

/* The value of sz bytes repeated over 16 (sz divides 16): what the 16-byte stores write. */
static nd_kscalar nd_fill_pattern(const nd_kscalar *v, int sz) {
  nd_kscalar pat;
  for (int b = 0; b < 16; b++) pat.bytes[b] = v->bytes[b % sz];
  return pat;
}

extern "C" nd_status nd_k_fill(const nd_kloop *L, const nd_koperand *d, const nd_kscalar *v,
                               void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (L->count == 0) return ND_OK;
  const int sz = nd_itemsize_of[d->dtype];
  const bool contig = nd_is_contig(L, d, sz);
  /* contiguous and 16-byte aligned (every item size divides 16): the 16-byte store kernels */
  const bool vec16 = contig && 16 % sz == 0 && (uintptr_t)d->data % 16 == 0;
  const int64_t nbytes = L->count * sz;
  /* Past the L2 cache (the device's property), where the stores go to memory, the wide kernel
   * writes fastest, whatever the value. Below it the stores stay in L2 and the driver's fills,
   * which cost a third of a kernel's host time to launch, are used as before. */
  const nd__device_props *dp = vec16 ? nd__device_props_current() : NULL;
  if (dp != NULL && nbytes > dp->l2_bytes) {
    const nd_kscalar pat = nd_fill_pattern(v, sz);
    uint4 x;
    memcpy(&x, pat.bytes, 16);
    return ND_CUDA(nd_k_go<k_fill_wide>(nd_k_grid_x((nbytes / 16 + ND_K_THREADS - 1) / ND_K_THREADS), ND_K_THREADS,
                                        0, st, d->data, nbytes, x));
  }
  /* A value of identical bytes (zero, or all 0xff) is a memset when contiguous. */
  bool uniform = true;
  for (int b = 1; b < sz; b++) uniform = uniform && v->bytes[b] == v->bytes[0];
  if (uniform && contig) return ND_CUDA(cudaMemsetAsync(d->data, v->bytes[0], (size_t)nbytes, st));
  /* Two- and four-byte values go to the driver's own fills, whose launch costs the host about a
   * third of a kernel's (stream.tiny_fill's bare rows). */
  if ((sz == 2 || sz == 4) && contig && (uintptr_t)d->data % sz == 0) {
    const nd__driver_api *drv = nd__driver();
    CUresult r = CUDA_ERROR_NOT_SUPPORTED;
    if (sz == 4 && drv->memset_d32_async != NULL) {
      unsigned int x;
      memcpy(&x, v->bytes, 4);
      r = drv->memset_d32_async((CUdeviceptr)d->data, x, (size_t)L->count, (CUstream)st);
    } else if (sz == 2 && drv->memset_d16_async != NULL) {
      unsigned short x;
      memcpy(&x, v->bytes, 2);
      r = drv->memset_d16_async((CUdeviceptr)d->data, x, (size_t)L->count, (CUstream)st);
    }
    /* Otherwise the kernel below: a thread with no current context yet (no runtime call
     * made) gets one bound by its runtime launch, and any other refusal of the driver's fill
     * (its errors are not sticky) is the kernel's to report or not. */
    if (r == CUDA_SUCCESS) return ND_OK;
  }
  if (vec16)
    return ND_CUDA(nd_k_go<k_fill_vec>(nd_k_oneshot_blocks(nbytes / 16 + 1), ND_K_THREADS, 0, st, d->data, nbytes,
                                       nd_fill_pattern(v, sz)));
  unsigned blocks = nd_k_blocks(L->count, ND_K_THREADS);
  if (contig && (uintptr_t)d->data % sz == 0) {
    return ND_CUDA(nd_by_itemsize(sz, [&](auto B) {
      return nd_k_go<k_fill_contig<decltype(B)::value>>(blocks, ND_K_THREADS, 0, st, d->data, L->count, *v);
    }));
  }
  return ND_CUDA(nd_by_itemsize(sz, [&](auto B) {
    return nd_k_go<k_fill<decltype(B)::value>>(blocks, ND_K_THREADS, 0, st, *L, *d, *v);
  }));
}

extern "C" nd_status nd_k_tri_mask(const nd_kloop *L, const nd_koperand *d, int lower, int64_t k,
                                   void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (L->count == 0) return ND_OK;
  unsigned blocks = nd_k_blocks(L->count, ND_K_THREADS);
  return ND_CUDA(nd_by_itemsize(nd_itemsize_of[d->dtype], [&](auto B) {
    return nd_k_go<k_tri_mask<decltype(B)::value>>(blocks, ND_K_THREADS, 0, st, *L, *d, lower, k);
  }));
}

extern "C" nd_status nd_k_sequence(char *dst, int dtype, int64_t n, double start, double step,
                                   int floor_int, int set_last, double last, void *stream) {
  if (n == 0) return ND_OK;
  return ND_CUDA(nd_k_go<k_sequence>(dim3(nd_k_blocks(n, ND_K_THREADS)), dim3(ND_K_THREADS), 0, (cudaStream_t)stream,
                                     dst, dtype, nd_itemsize_of[dtype], n, start, step, floor_int, set_last, last));
}

extern "C" nd_status nd_k_sequence_int(char *dst, int dtype, int64_t n, int64_t start, int64_t step,
                                       void *stream) {
  if (n == 0) return ND_OK;
  return ND_CUDA(nd_k_go<k_sequence_int>(dim3(nd_k_blocks(n, ND_K_THREADS)), dim3(ND_K_THREADS), 0,
                                         (cudaStream_t)stream, dst, dtype, nd_itemsize_of[dtype], n, start, step));
}
