/* The solve mode of the Gauss-Jordan kernels that end in a shared stage (gj_warp.cu's k_gjw,
 * gj_panels.cu's k_gjb_sync and k_gjb_la, gj_tensor.cu's k_gjt): their inverse is scattered
 * into the stage, and in solve mode x = inverse(a) @ b is formed from the stage instead of
 * storing the inverse, the result ND_LK_SOLVE asks of every kernel. */
#ifndef ND_LINALG_STAGE_SOLVE_CUH
#define ND_LINALG_STAGE_SOLVE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

/* Reduce-scatter across the warp: lane l holds v[r], its part of row r's sum (r < R); after it,
 * the return value of lane l is the whole sum of row l & (R - 1). Halving exchanges (each lane
 * keeps the half of the rows its bit h selects and adds the partner's part of it): R - 1
 * shuffles for R rows, then the 32 / R lanes of a row add theirs. */
template <typename T, int R>
__device__ __forceinline__ T nd_warp_reduce_scatter(T (&v)[R], int lane) {
  static_assert(R >= 1 && R <= 32 && (R & (R - 1)) == 0, "R a power of two up to 32");
#pragma unroll
  for (int h = 16; h >= 1; h /= 2) {
    if (h < R) {
      const bool up = (lane & h) != 0;
#pragma unroll
      for (int r = 0; r < 16; r++)
        if (r < h) {
          const T send = up ? v[r] : v[r + h], keep = up ? v[r + h] : v[r];
          v[r] = keep + nd_shfl_xor(send, h);
        }
    }
  }
  T acc = v[0];
#pragma unroll
  for (int off = R; off < 32; off <<= 1) acc = acc + nd_shfl_xor(acc, off);
  return acc;
}

/* x[bi] (n x nrhs, p.x's strides) = S @ b[bi] (p.b's strides) for matrix bi, S the inverse
 * staged in shared memory (element (i, j) at s[i * pitch + j]; columns >= n are not read, rows
 * >= n up to a multiple of R are read but their sums not stored). The nthreads threads (whole
 * warps, tid their index) call it together after the stage is complete. A warp takes R rows of
 * one column of x at a time: lane j reads b's entry j once and forms s[i][j] * b[j] for the R
 * rows (consecutive words of the stage: no bank conflicts), then the warp's reduce-scatter
 * leaves row i's sum in one lane (R - 1 + log2(32 / R) shuffles for R rows, against five per row
 * for a warp sum per row). R keeps the partial sums at 32 words per lane. */
template <typename T>
__device__ __forceinline__ void nd_stage_solve(const nd_lk_gj &p, int64_t bi, const T *s, int pitch, int tid,
                                               int nthreads) {
  constexpr int R = sizeof(T) <= 4 ? 32 : sizeof(T) == 8 ? 16 : 8;
  const int n = p.n, lane = tid & 31, warp = tid >> 5, nw = nthreads >> 5, groups = (n + R - 1) / R;
  const T *B = (const T *)p.b.data + bi * p.b.bs;
  T *X = (T *)p.x.data + bi * p.x.bs;
  for (int64_t u = warp; u < p.nrhs * groups; u += nw) {
    const int64_t c = u / groups;
    const int i0 = (int)(u - c * groups) * R;
    T v[R];
#pragma unroll
    for (int r = 0; r < R; r++) v[r] = nd_zero<T>();
    for (int j = lane; j - lane < n; j += 32) /* every lane runs each round: the shuffles need all */
      if (j < n) {
        const T bj = B[j * p.b.rs + c * p.b.cs];
#pragma unroll
        for (int r = 0; r < R; r++) v[r] = v[r] + s[(i0 + r) * pitch + j] * bj;
      }
    const T acc = nd_warp_reduce_scatter<T, R>(v, lane);
    const int i = i0 + (lane & (R - 1));
    if (lane < R && i < n) X[i * p.x.rs + c * p.x.cs] = acc;
  }
}

#endif
