/* Kernels of the large inverse without pivoting (linalg/inv_large.c): the row diagonal
 * dominance test, the padded copy, the factors taken apart with the pivot check, the diagonal tiles put
 * back, the probe vectors and the probe check. float64 throughout; matrices column-major. */
#include <math.h>

#include "kernels/launch.cuh"
#include "linalg/inv_large.h"

namespace {

constexpr int kTile = 64; /* the diagonal tiles of nd_lk_tri_inv (linalg/rbt.cu) */

__device__ __forceinline__ unsigned il_mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* One block per row i of the row-major a: bit 0 of *flags unless |a_ii| >= sum_{j != i} |a_ij|
 * (NaN fails); *anorm = max(*anorm, the row's sum of |a_ij|), the infinity norm over the rows
 * (a non-negative double's bits order as the double: atomicMax on them). */
__global__ void __launch_bounds__(256) k_il_rows(const double *a, int n, unsigned long long *flags, double *anorm) {
  const int i = blockIdx.x;
  const double *row = a + (long long)i * n;
  double s = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x) s += fabs(row[j]);
  __shared__ double s_s[8];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) s_s[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); w++) s += s_s[w];
    const double d = fabs(row[i]);
    if (!(d >= s - d)) atomicOr(flags, 1ull);
    atomicMax((unsigned long long *)anorm, (unsigned long long)__double_as_longlong(s));
  }
}

/* m (order np, ld np) = [a 0; 0 I] for a n x n with leading dimension n. */
__global__ void k_il_pad(const double *a, int n, int np, double *m) {
  const long long total = (long long)np * np;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int j = (int)(e / np), i = (int)(e - (long long)j * np);
    m[e] = i < n && j < n ? a[i + (long long)j * n] : (i == j ? 1.0 : 0.0);
  }
}

__global__ void k_il_split(const double *lu, int n, int np, double *lf, double *uf, const int *info,
                           const double *anorm, unsigned long long *first, long long index) {
  const long long total = (long long)np * np;
  const double floor = 1e-10 * *anorm;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const int j = (int)(e / np), i = (int)(e - (long long)j * np); /* row i, column j */
    const double v = lu[e];
    lf[e] = i > j ? v : (i == j ? 1.0 : 0.0);
    uf[e] = i <= j ? v : 0.0;
    /* the pivots of A's part (the padding's are ones, whatever the scale of A) */
    if (i == j && i < n && (!(fabs(v) > floor) || !isfinite(v))) atomicMin(first, (unsigned long long)index);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && *info != 0) atomicMin(first, (unsigned long long)index);
}

/* The 64 x 64 diagonal tile d of lf / uf = tile d of dl / du (row-major tiles). */
__global__ void k_il_tiles(const double *dl, const double *du, int np, double *lf, double *uf) {
  const long long total = (long long)np * kTile; /* np / 64 tiles of 64 * 64 */
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long d = e / (kTile * kTile);
    const int w = (int)(e - d * kTile * kTile), r = w / kTile, c = w - r * kTile;
    const long long at = (d * kTile + r) + (d * kTile + c) * (long long)np;
    lf[at] = dl[e];
    uf[at] = du[e];
  }
}

__global__ void k_il_probes(double *v, int n, int k) {
  const long long total = (long long)n * k;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x)
    v[e] = (il_mix((unsigned)e * 2654435761u + 0x51ed270bu) & 1u) ? 1.0 : -1.0;
}

/* One block per column: the maxima of |r| and |y| (NaN propagates as failure). */
__global__ void __launch_bounds__(256) k_il_check(const double *r, const double *y, int n, double tol,
                                                  const double *anorm, unsigned long long *first, long long index) {
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
    /* sqrt(n) ||A||_inf bounds ||A||_F from above (each row's 2-norm is at most its 1-norm) */
    if (s_bad || !(rmax <= tol * sqrt((double)n) * *anorm * ymax)) atomicMin(first, (unsigned long long)index);
  }
}

}  // namespace

extern "C" nd_status nd_lk_il_dominance(const double *a, int n, unsigned long long *flags, double *anorm,
                                        void *stream) {
  nd_k_launch<k_il_rows>(n, 256, 0, (cudaStream_t)stream, a, n, flags, anorm);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_pad(const double *a, int n, int np, double *m, void *stream) {
  nd_k_launch<k_il_pad>(nd_k_blocks((int64_t)np * np, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, a, n, np, m);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_split(const double *lu, int n, int np, double *lf, double *uf, const int *info,
                                    const double *anorm, unsigned long long *first, int64_t index, void *stream) {
  const int64_t total = (int64_t)np * np;
  nd_k_launch<k_il_split>(nd_k_blocks(total, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, lu, n, np, lf, uf, info, anorm,
                                                                                         first, (long long)index);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_tiles(const double *dl, const double *du, int np, double *lf, double *uf, void *stream) {
  nd_k_launch<k_il_tiles>(nd_k_blocks((int64_t)np * kTile, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, dl, du, np,
                                                                                                      lf, uf);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_probes(double *v, int n, int k, void *stream) {
  nd_k_launch<k_il_probes>(nd_k_blocks((int64_t)n * k, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, v, n, k);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_il_check(const double *r, const double *y, int n, int k, double tol, const double *anorm,
                                    unsigned long long *first, int64_t index, void *stream) {
  nd_k_launch<k_il_check>(k, 256, 0, (cudaStream_t)stream, r, y, n, tol, anorm, first, (long long)index);
  return ND_K_LAUNCHED();
}
