/* min, max, ptp, nanmin, nanmax (ND_KR_EXTREMA) and argmin, argmax (ND_KR_ARG).
 *
 * Comparisons run in int64 (signed inputs), uint64 (bool, unsigned), float (float16 and
 * float32: exact), double and complex double (lexicographic), so five instances per family
 * serve all fourteen dtypes; float32 and float64 also get typed vector loads. */
#include "reduce/reduce_core.cuh"

using namespace ndr;

template <class V>
using OpExtremaAny = OpExtrema<V, false>;
template <class V>
using OpExtremaFast = OpExtrema<V, true>;

/* OpT is the generic functor, FastT the one typed float loads use. */
template <template <class> class OpT, template <class> class FastT>
static nd_status nd_dispatch_cmp(const nd_kreduce *P, bool fast, void *ws, size_t *wsb,
                                 cudaStream_t st) {
  const int dt = P->in_dtype;
  const LoadGeneric gen = {dt, -1, false};
  switch (P->acc) {
    case ND_KA_I64: return launch(P, OpT<int64_t>{P->flags}, gen, ws, wsb, st);
    case ND_KA_U64: return launch(P, OpT<uint64_t>{P->flags}, gen, ws, wsb, st);
    case ND_KA_F32:
      if (fast && dt == ND_FLOAT32) return launch(P, FastT<float>{P->flags}, LoadTyped<float>(), ws, wsb, st);
      return launch(P, OpT<float>{P->flags}, gen, ws, wsb, st);
    case ND_KA_F64:
      if (fast && dt == ND_FLOAT64) return launch(P, FastT<double>{P->flags}, LoadTyped<double>(), ws, wsb, st);
      return launch(P, OpT<double>{P->flags}, gen, ws, wsb, st);
    case ND_KA_C128: return launch(P, OpT<cd>{P->flags}, gen, ws, wsb, st);
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "nd_k_reduce_extrema: no instance for comparison type %d", P->acc);
}

extern "C" nd_status nd_k_reduce_extrema(const nd_kreduce *P, void *ws, size_t *wsb, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (P->op == ND_KR_ARG) return nd_dispatch_cmp<OpArg, OpArg>(P, true, ws, wsb, st);
  return nd_dispatch_cmp<OpExtremaAny, OpExtremaFast>(P, !(P->flags & ND_KRF_NANSKIP), ws, wsb, st);
}
