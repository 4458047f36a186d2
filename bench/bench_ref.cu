/* Reference kernels, timed beside the library's own cases (bench_elementwise.c, bench_reduce.c):
 *
 * - exp and sin of n float32 with U float4 per thread (one unit of U x 256 vectors per block, as
 *   many blocks as units, every vector loaded before any is stored), the library's vec path
 *   without its rows, strides, scalars or tails: how fast the math can go on the GPU at hand
 *   with 1, 2 or 8 vectors in flight per thread;
 * - a bare read of n float32 (16-byte loads, U of them in flight per thread, one unit of U x
 *   256 vectors per block, as many blocks as units, one partial sum per block written): the
 *   read rate a reduction can reach, which the copy ceiling (read + write) does not give;
 * - a fill of n float32 with U float4 stores per thread (one unit of U x T vectors per block of
 *   T threads, as many blocks as units), plain or streaming (st.global.cs) stores: the write
 *   rate a kernel reaches beside the driver's cuMemsetD32 that the library's fill calls;
 * - CUB's segmented sum over the rows of a matrix, one block per row (the call CuPy makes for
 *   a sum over a contiguous last axis);
 * - CUB's single-pass scan of float32 sums with 32-bit offsets (DeviceScan picks 64-bit ones
 *   for a 64-bit count, as the library passes) under CUB's sm_90 tuning and under other tile
 *   shapes: threads x items per thread, and no backoff delay in the look-back.
 *
 * None of this is library code: the cases time what a different choice would give on the GPU
 * at hand, so that a change to the library is made on figures from both GPUs. */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "bench.h"

namespace {

constexpr int kReadThreads = 256;

template <int U>
__global__ void __launch_bounds__(kReadThreads) read_kernel(const float4 *in, int64_t nv, const float *tail,
                                                             int tail_n, float *partials) {
  const int64_t j0 = (int64_t)blockIdx.x * (U * kReadThreads) + threadIdx.x;
  float acc = 0.f;
  if (j0 + (int64_t)(U - 1) * kReadThreads < nv) {
    float4 x[U];
#pragma unroll
    for (int k = 0; k < U; k++) x[k] = in[j0 + (int64_t)k * kReadThreads];
#pragma unroll
    for (int k = 0; k < U; k++) acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
  } else {
    for (int64_t j = j0; j < nv; j += kReadThreads) {
      const float4 x = in[j];
      acc += (x.x + x.y) + (x.z + x.w);
    }
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < tail_n) acc += tail[threadIdx.x];
  __shared__ float warp_sums[kReadThreads / 32];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = (int)threadIdx.x < kReadThreads / 32 ? warp_sums[threadIdx.x] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
  }
}

template <int F>
__device__ __forceinline__ float math_of(float x) {
  return F == 0 ? expf(x) : sinf(x);
}
template <int F>
__device__ __forceinline__ float4 math_of(float4 x) {
  return make_float4(math_of<F>(x.x), math_of<F>(x.y), math_of<F>(x.z), math_of<F>(x.w));
}

template <int F, int U>
__global__ void __launch_bounds__(kReadThreads) math_kernel(const float4 *in, float4 *out, int64_t nv,
                                                             const float *tail_in, float *tail_out, int tail_n) {
  const int64_t j0 = (int64_t)blockIdx.x * (U * kReadThreads) + threadIdx.x;
  if (j0 + (int64_t)(U - 1) * kReadThreads < nv) {
    float4 x[U];
#pragma unroll
    for (int k = 0; k < U; k++) x[k] = in[j0 + (int64_t)k * kReadThreads];
#pragma unroll
    for (int k = 0; k < U; k++) out[j0 + (int64_t)k * kReadThreads] = math_of<F>(x[k]);
  } else {
    for (int64_t j = j0; j < nv; j += kReadThreads) out[j] = math_of<F>(in[j]);
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < tail_n) tail_out[threadIdx.x] = math_of<F>(tail_in[threadIdx.x]);
}

/* Blocks of the read, math and fill kernels over n float32: one per unit of unroll x threads
 * float4, at least one. */
unsigned units_of(int64_t n, int unroll, int threads = kReadThreads) {
  const int64_t per = (int64_t)unroll * threads, units = (n / 4 + per - 1) / per;
  return units < 1 ? 1u : (unsigned)units;
}

template <int U, int T, bool CS>
__global__ void __launch_bounds__(T) fill_kernel(float4 *out, int64_t nv, float v, float *tail, int tail_n) {
  const float4 x = make_float4(v, v, v, v);
  const int64_t j0 = (int64_t)blockIdx.x * (U * T) + threadIdx.x;
  if (j0 + (int64_t)(U - 1) * T < nv) {
#pragma unroll
    for (int k = 0; k < U; k++) {
      if (CS)
        __stcs(out + j0 + (int64_t)k * T, x);
      else
        out[j0 + (int64_t)k * T] = x;
    }
  } else {
    for (int64_t j = j0; j < nv; j += T) out[j] = x;
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < tail_n) tail[threadIdx.x] = v;
}

template <int U, int T, bool CS>
cudaError_t fill_with(float *out, int64_t n, float v, cudaStream_t st) {
  const int64_t nv = n / 4;
  fill_kernel<U, T, CS><<<units_of(n, U, T), T, 0, st>>>((float4 *)out, nv, v, out + nv * 4, (int)(n - nv * 4));
  return cudaGetLastError();
}


template <int F, int U>
cudaError_t math_with(const float *in, float *out, int64_t n, cudaStream_t st) {
  const int64_t nv = n / 4;
  math_kernel<F, U><<<units_of(n, U), kReadThreads, 0, st>>>((const float4 *)in, (float4 *)out, nv, in + nv * 4,
                                                             out + nv * 4, (int)(n - nv * 4));
  return cudaGetLastError();
}

struct RowStart {
  int64_t cols;
  __host__ __device__ __forceinline__ int64_t operator()(int64_t r) const { return r * cols; }
};

/* A policy hub of one policy: the tile shape and look-back delay of the variant, used on
 * every architecture (the cases run on sm_90 devices). */
template <int Threads, int Items, class Delay>
struct ScanHub {
  struct Policy900 : cub::ChainedPolicy<900, Policy900, Policy900> {
    using ScanPolicyT =
        cub::AgentScanPolicy<Threads, Items, float, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
                             cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_WARP_SCANS,
                             cub::detail::MemBoundScaling<Threads, Items, float>, Delay>;
  };
  using MaxPolicy = Policy900;
};

/* CUB's sm_90 look-back delay for float32 sums (tuning_scan.cuh). */
using Sm90Delay = cub::detail::fixed_delay_constructor_t<688, 1140>;
using NoDelay = cub::detail::no_delay_constructor_t<1140>;

template <int Threads, int Items, class Delay>
cudaError_t scan_with(const float *in, float *out, uint32_t n, void *temp, size_t *bytes, cudaStream_t st) {
  using Dispatch = cub::DispatchScan<const float *, float *, cuda::std::plus<float>, cub::NullType, uint32_t,
                                     float, cub::ForceInclusive::No, ScanHub<Threads, Items, Delay>>;
  return Dispatch::Dispatch(temp, *bytes, in, out, cuda::std::plus<float>(), cub::NullType(), n, st);
}

}  // namespace

extern "C" unsigned bench_read_f32_blocks(int64_t n, int unroll) { return units_of(n, unroll); }

extern "C" cudaError_t bench_read_f32(const float *in, int64_t n, int unroll, float *partials,
                                      cudaStream_t st) {
  const int64_t nv = n / 4;
  const int tail_n = (int)(n - nv * 4);
  const unsigned grid = units_of(n, unroll);
  const float4 *v = (const float4 *)in;
  switch (unroll) {
    case 4: read_kernel<4><<<grid, kReadThreads, 0, st>>>(v, nv, in + nv * 4, tail_n, partials); break;
    case 8: read_kernel<8><<<grid, kReadThreads, 0, st>>>(v, nv, in + nv * 4, tail_n, partials); break;
    case 16: read_kernel<16><<<grid, kReadThreads, 0, st>>>(v, nv, in + nv * 4, tail_n, partials); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

extern "C" cudaError_t bench_ref_math_f32(int fn, int unroll, const float *in, float *out, int64_t n,
                                          cudaStream_t st) {
  if (n < 0 || n / 4 / kReadThreads > (int64_t)INT32_MAX) return cudaErrorInvalidValue;
  switch (fn * 100 + unroll) {
    case 1: return math_with<0, 1>(in, out, n, st);
    case 2: return math_with<0, 2>(in, out, n, st);
    case 8: return math_with<0, 8>(in, out, n, st);
    case 101: return math_with<1, 1>(in, out, n, st);
    case 102: return math_with<1, 2>(in, out, n, st);
    case 108: return math_with<1, 8>(in, out, n, st);
    default: return cudaErrorInvalidValue;
  }
}

extern "C" cudaError_t bench_ref_fill_f32(int unroll, int threads, int streaming, float *out, int64_t n, float v,
                                          cudaStream_t st) {
  if (n < 0 || n / 4 / 128 > (int64_t)INT32_MAX) return cudaErrorInvalidValue;
  switch (unroll * 10000 + threads * 10 + (streaming != 0)) {
    case 10000 + 2560: return fill_with<1, 256, false>(out, n, v, st);
    case 40000 + 2560: return fill_with<4, 256, false>(out, n, v, st);
    case 80000 + 2560: return fill_with<8, 256, false>(out, n, v, st);
    case 40000 + 1280: return fill_with<4, 128, false>(out, n, v, st);
    case 40000 + 2561: return fill_with<4, 256, true>(out, n, v, st);
    case 10000 + 2561: return fill_with<1, 256, true>(out, n, v, st);
    default: return cudaErrorInvalidValue;
  }
}

extern "C" cudaError_t bench_cub_row_sums_f32(const float *in, float *out, int64_t rows, int64_t cols,
                                              void *temp, size_t *temp_bytes, cudaStream_t st) {
  auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowStart{cols});
  return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, in, out, rows, begin, begin + 1, st);
}

extern "C" cudaError_t bench_cub_scan_f32(int variant, const float *in, float *out, int64_t n, void *temp,
                                          size_t *temp_bytes, cudaStream_t st) {
  if (n < 0 || n > (int64_t)UINT32_MAX) return cudaErrorInvalidValue;
  const uint32_t m = (uint32_t)n;
  switch (variant) {
    case BENCH_SCAN_CUB32: return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, in, out, m, st);
#define BENCH_SCAN_CASE(id, name, threads, items, delay) \
  case BENCH_SCAN_##id: return scan_with<threads, items, delay>(in, out, m, temp, temp_bytes, st);
      BENCH_SCAN_SHAPES(BENCH_SCAN_CASE)
#undef BENCH_SCAN_CASE
    default: return cudaErrorInvalidValue;
  }
}
