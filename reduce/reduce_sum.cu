/* Sums, products and means (ND_KR_SUM), and the nd_k_reduce dispatcher.
 *
 * Instances: one generic-load instance per accumulator (uint64 for every integer result,
 * float32, float64, complex64, complex128) plus typed loads for the inputs that dominate
 * real use and the bandwidth targets: float32, float16 and float64 into their float
 * accumulators, int64/uint64 and int32 into the integer one. See reduce_core.cuh for the
 * geometry. */
#include "reduce/reduce_core.cuh"

using namespace ndr;

extern "C" nd_status nd_k_reduce_sum(const nd_kreduce *P, void *ws, size_t *wsb, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  /* Typed loads only for plain sums and means (no via dtype, no product, no NaN skipping). */
  const bool plain = P->via_dtype < 0 && !(P->flags & (ND_KRF_PROD | ND_KRF_NANSKIP));
  const int dt = P->in_dtype;
  const LoadGeneric gen = {dt, P->via_dtype, (P->flags & ND_KRF_NANSKIP) != 0 && P->via_dtype >= 0};
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
