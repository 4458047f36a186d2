/* Sums, products and means (ND_KR_SUM), and the nd_k_reduce dispatcher.
 *
 * Instances: one generic-load instance per accumulator (uint64 for every integer result,
 * float32, float64, complex64, complex128) plus typed loads for the inputs that dominate
 * real use and the bandwidth targets: float32, float16 and float64 into their float
 * accumulators, int64/uint64 and int32 into the integer one. See reduce_core.cuh for the
 * geometry. Plain float32/float64 sums over long contiguous rows go to CUB's segmented sum
 * (rows_by_cub), and whole contiguous arrays larger than the L2 cache to CUB's sum
 * (whole_by_cub). */
#include <climits>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "reduce/reduce_core.cuh"

using namespace ndr;

namespace {

/* Element offset of row m's first (add = 0) or one-past-last (add = K) element. */
struct RowOffset {
  int64_t stride, add;
  __host__ __device__ __forceinline__ int64_t operator()(int64_t m) const { return m * stride + add; }
};

/* Plain float32/float64 sums over long contiguous rows, enough rows to fill the device (the
 * plan's block-per-row case without splits), into a contiguous output of the input's dtype:
 * CUB's segmented sum, one block per row (what CuPy calls). */
/* The item size (4 or 8) of a plain float32/float64 sum over contiguous rows into the input's
 * dtype, the CUB calls' common condition; 0 for any other reduction. */
int64_t plain_float_sum_size(const nd_kreduce *P, bool plain) {
  const int dt = P->in_dtype;
  const bool ok = plain && (dt == ND_FLOAT32 || dt == ND_FLOAT64) && !(P->flags & ND_KRF_MEAN) &&
                  P->acc == (dt == ND_FLOAT32 ? ND_KA_F32 : ND_KA_F64) && P->out_dtype == dt && P->res_dtype == dt &&
                  P->mode == ND_KRM_ROWS && P->lanes == 256 && P->rcontig;
  return ok ? (dt == ND_FLOAT32 ? 4 : 8) : 0;
}

bool rows_by_cub(const nd_kreduce *P, bool plain) {
  const int64_t isz = plain_float_sum_size(P, plain);
  return isz > 0 && P->splits == 1 && P->nk == 1 && P->kin[0] > 0 && P->kin[0] % isz == 0 && P->kout[0] == isz;
}

/* One contiguous row (a whole array, or all of its axes) of a plain float32/float64 sum, larger
 * than the L2 cache and with a 32-bit count: CUB's sum (what CuPy calls), two launches. Against
 * the library's one-launch split kernel it was 1.7-18% faster on 2^24-2^28 float32 on both the
 * H100 and the H200 (bench/RESULTS.md, 2026-11-27 14:59-15:08); smaller rows keep the split
 * kernel, which the size sweep has ahead of CuPy's call of CUB up to 2^22 elements. */
bool whole_by_cub(const nd_kreduce *P, bool plain) {
  const int64_t isz = plain_float_sum_size(P, plain);
  return isz > 0 && P->M == 1 && P->l2_bytes > 0 && P->K <= INT_MAX && P->K * isz > P->l2_bytes;
}

/* The workspace protocol of nd_k_reduce over a CUB call f(temp, bytes): with wsb, the bytes f
 * needs (at least one, so that the caller allocates and the second call launches); else f's
 * launch into ws. */
template <class F>
nd_status cub_call(F f, void *ws, size_t *wsb) {
  size_t bytes = 0;
  cudaError_t e = f(nullptr, bytes);
  if (e != cudaSuccess) return ND_CUDA(e);
  if (bytes == 0) bytes = 1;
  if (wsb != NULL) {
    *wsb = bytes;
    return ND_OK;
  }
  return ND_CUDA(f(ws, bytes));
}

template <class T>
nd_status sum_whole_cub(const nd_kreduce *P, void *ws, size_t *wsb, cudaStream_t st) {
  const T *in = (const T *)P->in;
  T *out = (T *)P->out;
  const int n = (int)P->K;
  return cub_call([=](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, in, out, n, st); }, ws, wsb);
}

template <class T>
nd_status sum_rows_cub(const nd_kreduce *P, void *ws, size_t *wsb, cudaStream_t st) {
  const int64_t stride = P->kin[0] / (int64_t)sizeof(T);
  const auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowOffset{stride, 0});
  const auto end = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowOffset{stride, P->K});
  const T *in = (const T *)P->in;
  T *out = (T *)P->out;
  const int64_t m = P->M;
  return cub_call([=](void *t, size_t &b) { return cub::DeviceSegmentedReduce::Sum(t, b, in, out, m, begin, end, st); },
                  ws, wsb);
}

}  // namespace

extern "C" nd_status nd_k_reduce_sum(const nd_kreduce *P, void *ws, size_t *wsb, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  /* Typed loads only for plain sums and means (no via dtype, no product, no NaN skipping). */
  const bool plain = P->via_dtype < 0 && !(P->flags & (ND_KRF_PROD | ND_KRF_NANSKIP));
  const int dt = P->in_dtype;
  const LoadGeneric gen = {dt, P->via_dtype, (P->flags & ND_KRF_NANSKIP) != 0 && P->via_dtype >= 0};
  if (P->M > 0 && rows_by_cub(P, plain))
    return dt == ND_FLOAT32 ? sum_rows_cub<float>(P, ws, wsb, st) : sum_rows_cub<double>(P, ws, wsb, st);
  if (P->M > 0 && whole_by_cub(P, plain))
    return dt == ND_FLOAT32 ? sum_whole_cub<float>(P, ws, wsb, st) : sum_whole_cub<double>(P, ws, wsb, st);
  switch (P->acc) {
    case ND_KA_U64: {
      const OpSum<uint64_t, true> fast = {P->flags};
      if (plain && (dt == ND_INT64 || dt == ND_UINT64)) return launch(P, fast, LoadTyped<uint64_t>(), ws, wsb, st);
      if (plain && dt == ND_INT32) return launch(P, fast, LoadTyped<int32_t>(), ws, wsb, st);
      return launch(P, OpSum<uint64_t>{P->flags}, gen, ws, wsb, st);
    }
    case ND_KA_F32: {
      const OpSum<float, true> fast = {P->flags};
      if (plain && dt == ND_FLOAT32) return launch(P, fast, LoadTyped<float>(), ws, wsb, st);
      if (plain && dt == ND_FLOAT16) return launch(P, fast, LoadTyped<__half>(), ws, wsb, st);
      return launch(P, OpSum<float>{P->flags}, gen, ws, wsb, st);
    }
    case ND_KA_F64: {
      if (plain && dt == ND_FLOAT64) return launch(P, OpSum<double, true>{P->flags}, LoadTyped<double>(), ws, wsb, st);
      return launch(P, OpSum<double>{P->flags}, gen, ws, wsb, st);
    }
    case ND_KA_C64: return launch(P, OpSum<cf>{P->flags}, gen, ws, wsb, st);
    case ND_KA_C128: return launch(P, OpSum<cd>{P->flags}, gen, ws, wsb, st);
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "nd_k_reduce_sum: no instance for accumulator %d", P->acc);
}

extern "C" nd_status nd_k_reduce(const nd_kreduce *P, void *ws, size_t *wsb, void *stream) {
  switch (P->op) {
    case ND_KR_SUM: return nd_k_reduce_sum(P, ws, wsb, stream);
    case ND_KR_EXTREMA:
    case ND_KR_ARG: return nd_k_reduce_extrema(P, ws, wsb, stream);
    case ND_KR_COUNT:
    case ND_KR_NANMEAN:
    case ND_KR_SQDEV: return nd_k_reduce_stats(P, ws, wsb, stream);
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "nd_k_reduce: unknown operation %d", P->op);
}
