/* Device states of the stateful bit generators (XORWOW, MRG32k3a).
 *
 * State t is cuRAND's curand_init(seed, t, 0): subsequence t of the generator, 2^67 (XORWOW)
 * or 2^127 (MRG32k3a) draws away from its neighbours, which is cuRAND's recommended way to give
 * parallel threads independent numbers. The skip-ahead costs a few thousand operations per
 * state, paid once when the generator is created. Launch geometry: one thread per state,
 * ND_KR_STATES / 256 blocks of 256. */
#include "random/engine.cuh"

namespace {

template <class State>
__global__ void __launch_bounds__(ND_K_THREADS) k_init(uint64_t seed, State *states) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ND_KR_STATES) return;
  State s;
  curand_init((unsigned long long)seed, (unsigned long long)t, 0ull, &s);
  states[t] = s;
}

}  // namespace

extern "C" size_t nd_kr_states_bytes(int bitgen) {
  switch (bitgen) {
    case ND_BITGEN_XORWOW: return (size_t)ND_KR_STATES * sizeof(curandStateXORWOW);
    case ND_BITGEN_MRG32K3A: return (size_t)ND_KR_STATES * sizeof(curandStateMRG32k3a);
    default: return 0;
  }
}

extern "C" nd_status nd_kr_states_init(int bitgen, uint64_t seed, void *states, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned g = ND_KR_STATES / ND_K_THREADS;
  switch (bitgen) {
    case ND_BITGEN_XORWOW:
      nd_k_launch<k_init<curandStateXORWOW>>(g, ND_K_THREADS, 0, st, seed, (curandStateXORWOW *)states);
      break;
    case ND_BITGEN_MRG32K3A:
      nd_k_launch<k_init<curandStateMRG32k3a>>(g, ND_K_THREADS, 0, st, seed, (curandStateMRG32k3a *)states);
      break;
    default: return ND_OK;
  }
  return ND_K_LAUNCHED();
}
