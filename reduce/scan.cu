/* Prefix scans through CUB. DeviceScan's single-pass decoupled look-back reads and writes each
 * element once, which is what the cumsum bandwidth target needs; a scan along rows uses the
 * by-key variant with the row number as key, so every row count and length is one launch.
 * Instances: five storage types (64-bit integers, float32, float64, complex64, complex128),
 * each with one functor whose sum/product choice is a runtime flag, times the two variants;
 * plus the sums of the three real types with cuda::std::plus, with 64-bit and (one row) 32-bit
 * offsets. CUB applies its tuned policies (threads, items per thread, look-back delay) only to
 * scans whose operator it recognises as a primitive one on a primitive type; any other functor
 * gets the generic policy (128 threads x 15 items, default look-back delays) instead of the
 * one tuned for sm_90. */
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <type_traits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "reduce/scan.h"
#include "ndcuda/dtype.h"
#include "src/internal.h"

namespace {

struct c64 {
  float re, im;
};
struct c128 {
  double re, im;
};

template <class T>
struct ScanOp {
  int prod;
  __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const {
    return prod ? a * b : a + b;
  }
};
template <>
struct ScanOp<c64> {
  int prod;
  __host__ __device__ __forceinline__ c64 operator()(const c64 &a, const c64 &b) const {
    if (prod) return c64{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return c64{a.re + b.re, a.im + b.im};
  }
};
template <>
struct ScanOp<c128> {
  int prod;
  __host__ __device__ __forceinline__ c128 operator()(const c128 &a, const c128 &b) const {
    if (prod) return c128{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return c128{a.re + b.re, a.im + b.im};
  }
};

/* CUB's scan policies, with one change for one-row float32 sums on sm_90: tiles of 128
 * threads x 64 items instead of CUB's 128 x 24 (the look-back delay, loads and stores as
 * CUB's). Of thirteen tile shapes timed on 2^28 float32 (bench/bench_ref.cu, ref.cumsum_f32_*),
 * 128 x 64 is the fastest on the H200; against the 256 x 32 tiles used before it, the scan is
 * 4.1% faster on the H200 and 3.4% on the H100, at 79.5% and 86.7% of copy (bench/RESULTS.md,
 * 2026-11-27 16:00-16:38); other architectures keep CUB's policies. */
struct F32SumScanHub {
  using Cub = cub::detail::scan::policy_hub<float, float, float, uint32_t, cuda::std::plus<float>>;
  struct Policy900 : cub::ChainedPolicy<900, Policy900, typename Cub::Policy860> {
    using ScanPolicyT =
        cub::AgentScanPolicy<128, 64, float, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
                             cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_WARP_SCANS,
                             cub::detail::MemBoundScaling<128, 64, float>,
                             typename Cub::Policy900::ScanPolicyT::detail::delay_constructor_t>;
  };
  struct Policy1000 : cub::ChainedPolicy<1000, Policy1000, Policy900> {
    using ScanPolicyT = typename Cub::Policy1000::ScanPolicyT;
  };
  using MaxPolicy = Policy1000;
};

/* A one-row sum of n < 2^32 elements with 32-bit offsets: float32 under F32SumScanHub, the
 * other types under CUB's own policies. */
template <class T>
cudaError_t scan_row32(const T *in, T *out, uint32_t n, void *temp, size_t *bytes, cudaStream_t st) {
  if constexpr (std::is_same<T, float>::value) {
    using Dispatch = cub::DispatchScan<const float *, float *, cuda::std::plus<float>, cub::NullType, uint32_t, float,
                                       cub::ForceInclusive::No, F32SumScanHub>;
    return Dispatch::Dispatch(temp, *bytes, in, out, cuda::std::plus<float>(), cub::NullType(), n, st);
  } else {
    return cub::DeviceScan::InclusiveScan(temp, *bytes, in, out, cuda::std::plus<T>(), n, st);
  }
}

struct RowOf {
  int64_t n;
  __host__ __device__ __forceinline__ int64_t operator()(int64_t i) const { return i / n; }
};

template <class T, class Op>
cudaError_t run_op(const void *in, void *out, Op op, int64_t rows, int64_t n, void *temp,
                   size_t *bytes, cudaStream_t st) {
  const T *i = (const T *)in;
  T *o = (T *)out;
  const int64_t total = rows * n;
  if (rows == 1) return cub::DeviceScan::InclusiveScan(temp, *bytes, i, o, op, total, st);
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowOf{n});
  return cub::DeviceScan::InclusiveScanByKey(temp, *bytes, keys, i, o, op, total,
                                             cuda::std::equal_to<>(), st);
}

/* Complex types: one functor for sums and products. */
template <class T>
cudaError_t run(const void *in, void *out, int prod, int64_t rows, int64_t n, void *temp,
                size_t *bytes, cudaStream_t st) {
  return run_op<T>(in, out, ScanOp<T>{prod}, rows, n, temp, bytes, st);
}

/* Real types: sums through cuda::std::plus (CUB's tuned path), products through ScanOp. A
 * one-row sum of fewer than 2^32 elements takes 32-bit offsets (DeviceScan picks 64-bit ones
 * for a 64-bit count: wider index arithmetic in every tile). The size query and the launch take
 * the same branch, so the temporary size always matches. */
template <class T>
cudaError_t run_real(const void *in, void *out, int prod, int64_t rows, int64_t n, void *temp,
                     size_t *bytes, cudaStream_t st) {
  if (prod) return run_op<T>(in, out, ScanOp<T>{prod}, rows, n, temp, bytes, st);
  if (rows == 1 && n <= (int64_t)UINT32_MAX)
    return scan_row32<T>((const T *)in, (T *)out, (uint32_t)n, temp, bytes, st);
  return run_op<T>(in, out, cuda::std::plus<T>(), rows, n, temp, bytes, st);
}

}  // namespace

extern "C" nd_status nd_k_scan(const void *in, void *out, int dtype, int prod, int64_t rows,
                               int64_t n, void *temp, size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (rows * n == 0) {
    if (temp == NULL) *temp_bytes = 0;
    return ND_OK;
  }
  cudaError_t e;
  switch (dtype) {
    case ND_INT64:
    case ND_UINT64: e = run_real<unsigned long long>(in, out, prod, rows, n, temp, temp_bytes, st); break;
    case ND_FLOAT32: e = run_real<float>(in, out, prod, rows, n, temp, temp_bytes, st); break;
    case ND_FLOAT64: e = run_real<double>(in, out, prod, rows, n, temp, temp_bytes, st); break;
    case ND_COMPLEX64: e = run<c64>(in, out, prod, rows, n, temp, temp_bytes, st); break;
    case ND_COMPLEX128: e = run<c128>(in, out, prod, rows, n, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_scan: no scan for dtype %d", dtype);
  }
  return ND_CUDA(e);
}
