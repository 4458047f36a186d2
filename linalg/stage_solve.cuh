/* The solve mode of the Gauss-Jordan kernels that end in a shared stage (gj_panels.cu's k_gjw,
 * k_gjb_sync and k_gjb_la, gj_tensor.cu's k_gjt): their inverse is scattered into the stage,
 * and in solve mode x = inverse(a) @ b is formed from the stage instead of storing the inverse,
 * the result ND_LK_SOLVE asks of every kernel. */
#ifndef ND_LINALG_STAGE_SOLVE_CUH
#define ND_LINALG_STAGE_SOLVE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

__device__ __forceinline__ float nd_shfl_xor(float v, int off) { return __shfl_xor_sync(0xffffffffu, v, off); }
__device__ __forceinline__ double nd_shfl_xor(double v, int off) { return __shfl_xor_sync(0xffffffffu, v, off); }
template <typename R>
__device__ __forceinline__ nd_cplx<R> nd_shfl_xor(nd_cplx<R> v, int off) {
  return {nd_shfl_xor(v.re, off), nd_shfl_xor(v.im, off)};
}

/* x[bi] (n x nrhs, p.x's strides) = S @ b[bi] (p.b's strides) for matrix bi, S the inverse
 * staged in shared memory (element (i, j) at s[i * pitch + j]). The nthreads threads (whole
 * warps, tid their index) call it together after the stage is complete: warp w takes rows w,
 * w + warps, ...; its lanes take the row's columns j = lane, lane + 32, ... and the sum goes
 * across the warp; lane 0 stores it. */
template <typename T>
__device__ __forceinline__ void nd_stage_solve(const nd_lk_gj &p, int64_t bi, const T *s, int pitch, int tid,
                                               int nthreads) {
  const int n = p.n, lane = tid & 31, warp = tid >> 5, nw = nthreads >> 5;
  const T *B = (const T *)p.b.data + bi * p.b.bs;
  T *X = (T *)p.x.data + bi * p.x.bs;
  for (int64_t c = 0; c < p.nrhs; c++)
    for (int i = warp; i < n; i += nw) {
      T acc = nd_zero<T>();
      for (int j = lane; j < n; j += 32) acc = acc + s[i * pitch + j] * B[j * p.b.rs + c * p.b.cs];
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) acc = acc + nd_shfl_xor(acc, off);
      if (lane == 0) X[i * p.x.rs + c * p.x.cs] = acc;
    }
}

#endif
