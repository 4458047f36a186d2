/* Device-side bit generators behind one interface, and the launch geometry that keeps their
 * numbers independent of the GPU.
 *
 * Every random kernel walks element blocks j = tid, tid + T, tid + 2T, ... and, for each,
 * calls begin(j), then next4() for the block's first four words and next() for any further
 * ones (rejection sampling). The engines:
 * - EngPhilox: counter based; begin(j) selects counter offset + j (random/philox.h), so the
 *   words of a block do not depend on which thread computes it and T may be anything. Grids
 *   are sized for the GPU (launch.cuh).
 * - EngCurand<State>: cuRAND's XORWOW or MRG32k3a with ND_KR_STATES device states; thread t
 *   loads state t, draws sequentially, and stores it back. T is exactly ND_KR_STATES, so the
 *   same blocks always meet the same states in the same order. Threads with no block return
 *   before touching their state. */
#ifndef ND_RANDOM_ENGINE_CUH
#define ND_RANDOM_ENGINE_CUH

#include <curand_kernel.h>
#include <stdint.h>

#include <type_traits>

#include "kernels/launch.cuh"
#include "ndcuda/random.h"
#include "random/kernels.h"
#include "random/philox.h"

struct EngPhilox {
  nd__philox_stream ps;
  uint64_t base;
  __device__ __forceinline__ EngPhilox(const nd_krng &r, int64_t) : base(r.offset) {
    nd__philox_init(&ps, r.seed);
  }
  __device__ __forceinline__ void begin(int64_t block) {
    nd__philox_begin(&ps, base + (uint64_t)block);
  }
  __device__ __forceinline__ uint4 next4() {
    uint32_t w[4];
    nd__philox_next4(&ps, w);
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
  __device__ __forceinline__ uint32_t next() { return nd__philox_next(&ps); }
  __device__ __forceinline__ void finish(const nd_krng &, int64_t) {}
};

template <class State>
struct EngCurand {
  State st;
  __device__ __forceinline__ EngCurand(const nd_krng &r, int64_t tid) {
    st = ((const State *)r.states)[tid];
  }
  __device__ __forceinline__ void begin(int64_t) {}
  __device__ __forceinline__ uint4 next4() {
    uint4 v;
    v.x = curand(&st);
    v.y = curand(&st);
    v.z = curand(&st);
    v.w = curand(&st);
    return v;
  }
  __device__ __forceinline__ uint32_t next() { return curand(&st); }
  __device__ __forceinline__ void finish(const nd_krng &r, int64_t tid) {
    ((State *)r.states)[tid] = st;
  }
};

typedef EngCurand<curandStateXORWOW> EngXorwow;
typedef EngCurand<curandStateMRG32k3a> EngMrg;

/* Grid for a kernel over nblocks element blocks. Philox: one thread per block up to as many
 * blocks of ND_K_THREADS as fit on the GPU at once (the kernel's occupancy, asked once per
 * kernel and device), so that a grid-stride loop runs in a single wave with no half-empty
 * second wave at its end. Stateful engines: exactly ND_KR_STATES threads. */
template <class Eng, auto Kernel>
unsigned nd_kr_grid(int64_t nblocks) {
  if constexpr (!std::is_same<Eng, EngPhilox>::value) {
    return ND_KR_STATES / ND_K_THREADS;
  } else {
    /* a failed query leaves one block per multiprocessor; the launch reports the device's error */
    int per_sm = 0;
    (void)nd_k_occupancy_once<Kernel>(ND_K_THREADS, 0, &per_sm);
    if (per_sm < 1) per_sm = 1;
    const int64_t want = (nblocks + ND_K_THREADS - 1) / ND_K_THREADS;
    const int64_t cap = (int64_t)per_sm * nd_k_sm_count();
    return (unsigned)(want < 1 ? 1 : (want < cap ? want : cap));
  }
}

/* Runs CALL with Eng set to the generator's engine type. */
#define ND_KR_DISPATCH(rng, CALL)                                      \
  switch ((rng)->bitgen) {                                             \
    case ND_BITGEN_XORWOW: { typedef EngXorwow Eng; CALL; break; }     \
    case ND_BITGEN_MRG32K3A: { typedef EngMrg Eng; CALL; break; }      \
    default: { typedef EngPhilox Eng; CALL; break; }                   \
  }

/* A double on [0, 1) and on (0, 1) from two words, drawn in a fixed order. */
template <class Eng>
__device__ __forceinline__ double nd_kr_unit(Eng &e) {
  uint32_t hi = e.next();
  uint32_t lo = e.next();
  return nd__unit_f64(hi, lo);
}
template <class Eng>
__device__ __forceinline__ double nd_kr_open(Eng &e) {
  uint32_t hi = e.next();
  uint32_t lo = e.next();
  return nd__open_f64(hi, lo);
}

#endif /* ND_RANDOM_ENGINE_CUH */
