/* Permutations and sampling: random sort keys, CUB's radix sort, choice by inverting a
 * cumulative distribution, and the row gather that applies a permutation or a choice.
 *
 * A permutation is the order of n random 64-bit keys (ties, with probability about
 * n^2 / 2^65, keep index order: the sort is stable). Weighted sampling without replacement uses
 * Efraimidis-Spirakis keys E / w (E standard exponential), whose ascending order is the order
 * in which successive draws proportional to w, without replacement, pick the items; they are
 * computed as log(E) - log(w) and mapped to unsigned integers of the same order, so one sort
 * instance (uint64 keys, int64 values, 64-bit item count) serves both, which keeps the build
 * small.
 * Launch geometry: grid-stride loops of 256 threads; the gather moves the widest unit (16, 8,
 * 4, 2 or 1 bytes) that divides the row size and both base addresses. */
#include <cub/device/device_radix_sort.cuh>

#include "random/engine.cuh"

namespace {

/* The bits of a double, transformed so that unsigned integer order is numeric order: negative
 * values have all bits flipped, others only the sign bit (the usual radix-sort key). */
__device__ __forceinline__ uint64_t order_key(double x) {
  const uint64_t b = (uint64_t)__double_as_longlong(x);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

template <class Eng>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_keys(nd_krng rng, uint64_t *__restrict__ keys, int64_t *__restrict__ vals, int64_t n,
           const double *__restrict__ w) {
  const int64_t nblk = (n + 1) / 2;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= nblk) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < nblk; j += step) {
    eng.begin(j);
    const uint4 x = eng.next4();
    const uint32_t hw[2] = {x.x, x.z}, lw[2] = {x.y, x.w};
#pragma unroll
    for (int k = 0; k < 2; k++) {
      const int64_t i = 2 * j + k;
      if (i >= n) break;
      uint64_t key;
      if (w == nullptr) {
        key = ((uint64_t)hw[k] << 32) | lw[k];
      } else {
        /* log(E / w) in log space, so that tiny weights do not overflow to +inf and tie with
         * zero weights (which get +inf); E = -log(u) lies in [1.1e-16, 36.8]. */
        const double e = -log(nd__open_f64(hw[k], lw[k]));
        const double wi = w[i];
        const double kd = wi > 0.0 ? log(e) - log(wi) : __longlong_as_double(0x7ff0000000000000LL);
        key = order_key(kd);
      }
      keys[i] = key;
      vals[i] = i;
    }
  }
  eng.finish(rng, tid);
}

template <class Eng>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_choice_cdf(nd_krng rng, const double *__restrict__ cdf, int64_t last,
                 int64_t *__restrict__ out, int64_t n) {
  const int64_t nblk = (n + 1) / 2;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= nblk) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < nblk; j += step) {
    eng.begin(j);
    const uint4 x = eng.next4();
    const double u[2] = {nd__unit_f64(x.x, x.y), nd__unit_f64(x.z, x.w)};
#pragma unroll
    for (int k = 0; k < 2; k++) {
      const int64_t i = 2 * j + k;
      if (i >= n) break;
      /* The first index in [0, last] whose cumulative probability exceeds u; cdf[last] is 1. */
      int64_t lo = 0, hi = last;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u[k])
          hi = mid;
        else
          lo = mid + 1;
      }
      out[i] = lo;
    }
  }
  eng.finish(rng, tid);
}

template <class Eng>
void launch_keys(const nd_krng *rng, uint64_t *keys, int64_t *vals, int64_t n, const double *w,
                 cudaStream_t st) {
  nd_k_launch<k_keys<Eng>>(nd_kr_grid<Eng, k_keys<Eng> >((int64_t)nd_kr_blocks(n, 2)), ND_K_THREADS, 0, st, *rng, keys, vals, n, w);
}

template <class Eng>
void launch_cdf(const nd_krng *rng, const double *cdf, int64_t last, int64_t *out, int64_t n,
                cudaStream_t st) {
  nd_k_launch<k_choice_cdf<Eng>>(nd_kr_grid<Eng, k_choice_cdf<Eng> >((int64_t)nd_kr_blocks(n, 2)), ND_K_THREADS, 0, st, *rng, cdf, last, out, n);
}

template <class U>
__global__ void k_gather(U *__restrict__ dst, const U *__restrict__ src,
                         const int64_t *__restrict__ idx, int64_t nrows, int64_t units) {
  const int64_t total = nrows * units;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = t / units, c = t - r * units;
    dst[t] = src[idx[r] * units + c];
  }
}

template <class U>
void launch_gather(char *dst, const char *src, const int64_t *idx, int64_t nrows, int64_t rowbytes,
                   cudaStream_t st) {
  const int64_t units = rowbytes / (int64_t)sizeof(U);
  nd_k_launch<k_gather<U>>(nd_k_blocks(nrows * units, ND_K_THREADS), ND_K_THREADS, 0, st, (U *)dst, (const U *)src, idx, nrows, units);
}

}  // namespace

extern "C" nd_status nd_kr_keys(const nd_krng *rng, uint64_t *keys, int64_t *vals, int64_t n,
                                const double *weights, void *stream) {
  if (n <= 0) return ND_OK;
  ND_KR_DISPATCH(rng, (launch_keys<Eng>(rng, keys, vals, n, weights, (cudaStream_t)stream)));
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_kr_sort_pairs(void *temp, size_t *temp_bytes, const uint64_t *keys_in,
                                      uint64_t *keys_out, const int64_t *vals_in, int64_t *vals_out,
                                      int64_t n, void *stream) {
  cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys_in, keys_out, vals_in,
                                                  vals_out, n, 0, 64, (cudaStream_t)stream);
  return ND_CUDA(e);
}

extern "C" nd_status nd_kr_choice_cdf(const nd_krng *rng, const double *cdf, int64_t last,
                                      int64_t *out, int64_t n, void *stream) {
  if (n <= 0) return ND_OK;
  ND_KR_DISPATCH(rng, (launch_cdf<Eng>(rng, cdf, last, out, n, (cudaStream_t)stream)));
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_kr_gather_rows(char *dst, const char *src, const int64_t *idx, int64_t nrows,
                                       int64_t rowbytes, void *stream) {
  if (nrows <= 0 || rowbytes <= 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const uintptr_t mis = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)rowbytes;
  if (mis % 16 == 0)
    launch_gather<uint4>(dst, src, idx, nrows, rowbytes, st);
  else if (mis % 8 == 0)
    launch_gather<uint64_t>(dst, src, idx, nrows, rowbytes, st);
  else if (mis % 4 == 0)
    launch_gather<uint32_t>(dst, src, idx, nrows, rowbytes, st);
  else if (mis % 2 == 0)
    launch_gather<uint16_t>(dst, src, idx, nrows, rowbytes, st);
  else
    launch_gather<uint8_t>(dst, src, idx, nrows, rowbytes, st);
  return ND_K_LAUNCHED();
}
