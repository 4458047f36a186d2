/* The solve mode of the one-warp inverse kernels (gj_panels.cu's k_gjw, gj_tensor.cu's k_gjt):
 * their inverse ends in a per-warp shared stage, and in solve mode x = inverse(a) @ b is formed
 * from the stage instead of storing the inverse, the result ND_LK_SOLVE asks of every kernel. */
#ifndef ND_LINALG_STAGE_SOLVE_CUH
#define ND_LINALG_STAGE_SOLVE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "linalg/kernels.h"

/* x[bi] (n x nrhs, p.x's strides) = S @ b[bi] (p.b's strides) for the warp's matrix bi, S the
 * inverse staged in shared memory (element (i, j) at s[i * pitch + j]), n <= 32, T float or
 * double. One right-hand side at a time: lane j holds b[j]; row i's products are summed across
 * the warp (lanes >= n add zero) and lane i keeps the sum; the warp stores the column at once.
 * The whole warp calls it, after the stage is complete (__syncwarp). */
template <typename T>
__device__ __forceinline__ void nd_stage_solve(const nd_lk_gj &p, int64_t bi, const T *s, int pitch, int lane) {
  const int n = p.n;
  const T *B = (const T *)p.b.data + bi * p.b.bs;
  T *X = (T *)p.x.data + bi * p.x.bs;
  for (int64_t c = 0; c < p.nrhs; c++) {
    const T bj = lane < n ? B[lane * p.b.rs + c * p.b.cs] : T(0);
    T mine = T(0);
    for (int i = 0; i < n; i++) {
      T v = lane < n ? s[i * pitch + lane] * bj : T(0);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
      mine = lane == i ? v : mine;
    }
    if (lane < n) X[lane * p.x.rs + c * p.x.cs] = mine;
  }
}

#endif
