/* Kernels of the randomised large inverse (linalg/inv_large.c): the unit lower factor taken
 * out of an LU with the pivot check, the probe vectors and the probe check. */
#include <math.h>

#include "kernels/launch.cuh"
#include "linalg/inv_large.h"

namespace {

__device__ __forceinline__ unsigned il_mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__global__ void k_il_split(const double *lu, int np, double *lf, const int *info, const double *normsq,
                           unsigned long long *first, long long index) {
  const long long total = (long long)np * np;
  const double floor = 1e-10 * sqrt(*normsq);
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int j = (int)(e / np), i = (int)(e - (long long)j * np); /* row i, column j */
    double v = 0.0;
    if (i > j) {
      v = lu[e];
    } else if (i == j) {
      v = 1.0;
      const double d = lu[e];
      if (!(fabs(d) > floor) || !isfinite(d)) atomicMin(first, (unsigned long long)index);
    }
    lf[e] = v;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && *info != 0) atomicMin(first, (unsigned long long)index);
}

__global__ void k_il_probes(double *v, int n, int k) {
  const long long total = (long long)n * k;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x)
    v[e] = (il_mix((unsigned)e * 2654435761u + 0x51ed270bu) & 1u) ? 1.0 : -1.0;
}

/* One block per column: the maxima of |r| and |y| (NaN propagates as failure). */
__global__ void __launch_bounds__(256) k_il_check(const double *r, const double *y, int n, double tol,
                                                  const double *normsq, unsigned long long *first, long long index) {
  const int c = blockIdx.x;
  double rmax = 0.0, ymax = 0.0;
  int bad = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const double rv = r[(long long)c * n + i], yv = y[(long long)c * n + i];
    if (!isfinite(rv) || !isfinite(yv)) bad = 1;
    rmax = fmax(rmax, fabs(rv));
    ymax = fmax(ymax, fabs(yv));
  }
  __shared__ double s_r[8], s_y[8];
  __shared__ int s_bad;
  if (threadIdx.x == 0) s_bad = 0;
  for (int o = 16; o > 0; o >>= 1) {
    rmax = fmax(rmax, __shfl_down_sync(0xffffffffu, rmax, o));
    ymax = fmax(ymax, __shfl_down_sync(0xffffffffu, ymax, o));
  }
  __syncthreads();
  if (bad) s_bad = 1;
  if ((threadIdx.x & 31) == 0) {
    s_r[threadIdx.x >> 5] = rmax;
    s_y[threadIdx.x >> 5] = ymax;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
      rmax = fmax(rmax, s_r[w]);
      ymax = fmax(ymax, s_y[w]);
    }
    if (s_bad || !(rmax <= tol * sqrt(*normsq) * ymax)) atomicMin(first, (unsigned long long)index);
  }
}

}  // namespace

extern "C" nd_status nd_lk_il_split(const double *lu, int np, double *lf, const int *info, const double *normsq,
                                    unsigned long long *first, int64_t index, void *stream) {
  const int64_t total = (int64_t)np * np;
  nd_k_launch<k_il_split>(nd_k_blocks(total, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, lu, np, lf, info, normsq,
                                                                                         first, (long long)index);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_probes(double *v, int n, int k, void *stream) {
  nd_k_launch<k_il_probes>(nd_k_blocks((int64_t)n * k, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, v, n, k);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_check(const double *r, const double *y, int n, int k, double tol, const double *normsq,
                                    unsigned long long *first, int64_t index, void *stream) {
  nd_k_launch<k_il_check>(k, 256, 0, (cudaStream_t)stream, r, y, n, tol, normsq, first, (long long)index);
  return ND_K_LAUNCHED();
}
