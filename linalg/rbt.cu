/* Kernels of the randomised solve (linalg/inv.c, nd__solve_rbt): random butterfly transforms,
 * blocked triangular solves with few right-hand sides, and the acceptance check.
 *
 * The transform of an order-np matrix (np a multiple of 64, the order n padded with identity
 * rows and columns) is a depth-2 recursive butterfly W = diag(B1, B2) B with
 * B = [R0 R1; R0 -R1] / sqrt(2) and diagonal R's whose entries exp(u / 10), u uniform in
 * [-1/2, 1/2), come from a hash of the entry's index (transform set 0 or 1), so nothing is stored
 * and every call uses the same transforms. Element (i, j) of W^T M W' depends on the 4 x 4
 * elements of M at rows and columns {i, j} + multiples of np / 4: one thread per such group.
 *
 * The triangular solves split the order into 64-row blocks and the right-hand sides into chunks
 * of 16; block i of a chunk waits for the blocks before it (lower) or after it (upper) through
 * flags in global memory and subtracts their products as they arrive; the inverse of its
 * diagonal block (k_tri_inv) is applied to that sum before the last block it needs is done, and
 * that block enters through one precomputed tile, inv(T[i][i]) T[i][i-1] (k_tri_link), so that
 * the chain from one block to the next is one flag, one 64 x 16 load and one small product.
 * Blocks take their position from a ticket in the order they start, so a block only ever waits
 * for blocks that are already running. */
#include <math.h>

#include "kernels/launch.cuh"
#include "linalg/kernels.h"

namespace {

constexpr int kTB = 64;   /* triangular block rows */
constexpr int kTC = 16;   /* right-hand sides per chunk */
constexpr int kTT = 256;  /* threads of a diagonal-block inverse */
constexpr int kTS = 1024; /* threads of a triangular-solve block: four groups of 256 split each
                             64-long sum, so that no thread's chain of multiply-adds is long */

__device__ __forceinline__ unsigned rbt_mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Diagonal entry idx (0 <= idx < 2 np) of transform `set`. */
template <typename T>
__device__ __forceinline__ T rbt_d(unsigned set, int idx) {
  const unsigned h = rbt_mix((unsigned)idx * 2u + set + 0x9e3779b9u);
  const double u = (double)(h >> 8) * (1.0 / 16777216.0) - 0.5;
  return (T)exp(u / 10.0);
}

/* The 8 diagonal entries that the lanes {p, p+q, p+h, p+h+q} of an order-np transform use. */
template <typename T>
struct rbt_diag {
  T b1, b2, c1, c2, r0a, r1a, r0b, r1b;
  __device__ __forceinline__ rbt_diag(unsigned set, int np, int p) {
    const int h = np / 2, q = np / 4;
    c1 = rbt_d<T>(set, np + p);         /* B1: R0, R1 */
    c2 = rbt_d<T>(set, np + q + p);
    b1 = rbt_d<T>(set, np + h + p);     /* B2: R0, R1 */
    b2 = rbt_d<T>(set, np + h + q + p);
    r0a = rbt_d<T>(set, p);             /* B: R0, R1 at p and at p + q */
    r1a = rbt_d<T>(set, h + p);
    r0b = rbt_d<T>(set, p + q);
    r1b = rbt_d<T>(set, h + p + q);
  }
  /* x <- W^T x on the four lanes */
  __device__ __forceinline__ void fwd(T x[4]) const {
    const T s = (T)0.70710678118654752440;
    const T y0 = c1 * s * (x[0] + x[1]), y1 = c2 * s * (x[0] - x[1]);
    const T y2 = b1 * s * (x[2] + x[3]), y3 = b2 * s * (x[2] - x[3]);
    x[0] = r0a * s * (y0 + y2);
    x[2] = r1a * s * (y0 - y2);
    x[1] = r0b * s * (y1 + y3);
    x[3] = r1b * s * (y1 - y3);
  }
  /* x <- W x on the four lanes */
  __device__ __forceinline__ void apply(T x[4]) const {
    const T s = (T)0.70710678118654752440;
    const T y0 = s * (r0a * x[0] + r1a * x[2]), y2 = s * (r0a * x[0] - r1a * x[2]);
    const T y1 = s * (r0b * x[1] + r1b * x[3]), y3 = s * (r0b * x[1] - r1b * x[3]);
    x[0] = s * (c1 * y0 + c2 * y1);
    x[1] = s * (c1 * y0 - c2 * y1);
    x[2] = s * (b1 * y2 + b2 * y3);
    x[3] = s * (b1 * y2 - b2 * y3);
  }
};

/* ar (column-major, order np) = W0^T Mpad W1, Mpad = [M 0; 0 I]; normsq += sum of M's squares. */
template <typename T>
__global__ void __launch_bounds__(128) k_rbt_matrix(const T *m, int64_t ms_r, int64_t ms_c, int n, int np, T *ar,
                                                    double *normsq) {
  const int q = np / 4;
  const int pr = blockIdx.x * blockDim.x + threadIdx.x;
  double ss = 0;
  if (pr < q) {
    const rbt_diag<T> dr(0, np, pr);
    for (int pc = blockIdx.y; pc < q; pc += gridDim.y) {
      const rbt_diag<T> dc(1, np, pc);
      T v[4][4]; /* v[column lane][row lane] */
#pragma unroll
      for (int c = 0; c < 4; c++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
          const int i = pr + r * q, j = pc + c * q;
          T e;
          if (i < n && j < n) {
            e = m[i * ms_r + j * ms_c];
            ss += (double)e * (double)e;
          } else {
            e = i == j ? T(1) : T(0);
          }
          v[c][r] = e;
        }
#pragma unroll
      for (int r = 0; r < 4; r++) {
        T x[4] = {v[0][r], v[1][r], v[2][r], v[3][r]};
        dc.fwd(x);
#pragma unroll
        for (int c = 0; c < 4; c++) v[c][r] = x[c];
      }
#pragma unroll
      for (int c = 0; c < 4; c++) dr.fwd(v[c]);
#pragma unroll
      for (int c = 0; c < 4; c++)
#pragma unroll
        for (int r = 0; r < 4; r++) ar[(int64_t)(pc + c * q) * np + pr + r * q] = v[c][r];
    }
  }
  __shared__ double s_part[4];
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) s_part[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(normsq, s_part[0] + s_part[1] + s_part[2] + s_part[3]);
}

/* out (np x k, column-major) = b (n x k, element strides) with zero rows below n. */
template <typename T>
__global__ void k_rbt_gather(const T *b, int64_t brs, int64_t bcs, int n, int np, int k, T *out) {
  const int64_t total = (int64_t)np * k;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
    const int c = (int)(e / np), i = (int)(e - (int64_t)c * np);
    out[e] = i < n ? b[i * brs + c * bcs] : T(0);
  }
}

/* out = W^T in (apply = 0) or W in (apply = 1), or out += W in (apply = 2), per column. */
template <typename T>
__global__ void k_rbt_vec(const T *in, T *out, int np, int k, unsigned set, int apply) {
  const int q = np / 4;
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= q) return;
  const rbt_diag<T> d(set, np, p);
  for (int c = blockIdx.y; c < k; c += gridDim.y) {
    T x[4];
#pragma unroll
    for (int r = 0; r < 4; r++) x[r] = in[(int64_t)c * np + p + r * q];
    if (apply) d.apply(x); else d.fwd(x);
#pragma unroll
    for (int r = 0; r < 4; r++) {
      T *o = &out[(int64_t)c * np + p + r * q];
      *o = apply == 2 ? *o + x[r] : x[r];
    }
  }
}

__device__ __forceinline__ int ld_acquire(const int *p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(int *p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* A 64 x 64 tile of the triangle held in registers on its way to shared memory: thread t
 * holds elements t, t + 256, ..., read along the triangle's unit stride (tr == 1: down the
 * columns, else along the rows), all 16 loads in flight at once. */
template <typename T, int NT>
struct tri_tile {
  T v[kTB * kTB / NT];
  __device__ __forceinline__ void load(const T *tri, int64_t tr, int64_t tc, int i0, int j0) {
#pragma unroll
    for (int u = 0; u < kTB * kTB / NT; u++) {
      const int e = threadIdx.x + u * NT, f = e % kTB, s = e / kTB;
      const int r = tr == 1 ? f : s, c = tr == 1 ? s : f;
      v[u] = __ldg(&tri[(int64_t)(i0 + r) * tr + (int64_t)(j0 + c) * tc]);
    }
  }
  __device__ __forceinline__ void store(int64_t tr, T (*ts)[kTB + 1]) const {
#pragma unroll
    for (int u = 0; u < kTB * kTB / NT; u++) {
      const int e = threadIdx.x + u * NT, f = e % kTB, s = e / kTB;
      const int r = tr == 1 ? f : s, c = tr == 1 ? s : f;
      ts[r][c] = v[u];
    }
  }
};

/* dinv + d*64*64 (row-major) = the inverse of diagonal block d of the triangle T(i, j) =
 * tri[i*tr + j*tc] (lower or upper, unit diagonal or not): one block per diagonal block,
 * substitution on the identity in shared memory. */
template <typename T>
__global__ void __launch_bounds__(kTT) k_tri_inv(const T *tri, int64_t tr, int64_t tc, int lower, int unit, T *dinv,
                                                 int64_t dinv_len) {
  /* blockIdx.y 1: the other triangle of the same factors (the other diagonal kind) */
  if (blockIdx.y) {
    lower = !lower;
    unit = !unit;
    dinv += dinv_len;
  }
  extern __shared__ __align__(16) unsigned char nd_smem_raw[];
  T(*ts)[kTB + 1] = reinterpret_cast<T(*)[kTB + 1]>(nd_smem_raw);
  T(*xs)[kTB + 1] = ts + kTB;
  const int d = blockIdx.x, tid = threadIdx.x;
  tri_tile<T, kTT> tile;
  tile.load(tri, tr, tc, d * kTB, d * kTB);
  tile.store(tr, ts);
  for (int e = tid; e < kTB * kTB; e += kTT) xs[e / kTB][e % kTB] = e / kTB == e % kTB ? T(1) : T(0);
  __syncthreads();
  for (int s = 0; s < kTB; s++) {
    const int jj = lower ? s : kTB - 1 - s;
    if (!unit) {
      if (tid < kTB) xs[jj][tid] = xs[jj][tid] / ts[jj][jj];
      __syncthreads();
    }
    for (int e = tid; e < kTB * kTB; e += kTT) {
      const int rr = e / kTB, c = e % kTB;
      if (lower ? rr > jj : rr < jj) xs[rr][c] -= ts[rr][jj] * xs[jj][c];
    }
    __syncthreads();
  }
  for (int e = tid; e < kTB * kTB; e += kTT) dinv[(int64_t)d * kTB * kTB + e] = xs[e / kTB][e % kTB];
}

/* mout + i*64*64 (row-major) = inv(T[i][i]) T[i][i-1] (lower) or inv(T[i][i]) T[i][i+1] (upper)
 * for every 64-row block i that has such a neighbour, from dinv (k_tri_inv); blockIdx.y 1 does
 * the other triangle (dinv + len, mout + len). The triangular solve applies it to the block it
 * waits for last, so that one product follows that block's flag. */
template <typename T>
__global__ void __launch_bounds__(kTT) k_tri_link(const T *tri, int64_t tr, int64_t tc, int lower, const T *dinv,
                                                  T *mout, int64_t len) {
  extern __shared__ __align__(16) unsigned char nd_smem_raw[];
  T(*as)[kTB + 1] = reinterpret_cast<T(*)[kTB + 1]>(nd_smem_raw);
  T(*bs)[kTB + 1] = as + kTB;
  if (blockIdx.y) {
    lower = !lower;
    dinv += len;
    mout += len;
  }
  const int nblk = gridDim.x, i = blockIdx.x, tid = threadIdx.x;
  if (lower ? i == 0 : i == nblk - 1) return;
  const int jl = lower ? i - 1 : i + 1;
  tri_tile<T, kTT> tile;
  tile.load(dinv + (int64_t)i * kTB * kTB, kTB, 1, 0, 0);
  tile.store(kTB, as);
  tile.load(tri, tr, tc, i * kTB, jl * kTB);
  tile.store(tr, bs);
  __syncthreads();
  /* thread: row tid % 64, columns 16 ((tid / 64) .. + 15) strided by 4 */
  const int r = tid % kTB, c0 = tid / kTB;
  T out[kTB / 4];
#pragma unroll
  for (int u = 0; u < kTB / 4; u++) out[u] = T(0);
  for (int jj = 0; jj < kTB; jj++) {
    const T a = as[r][jj];
#pragma unroll
    for (int u = 0; u < kTB / 4; u++) out[u] += a * bs[jj][c0 + 4 * u];
  }
#pragma unroll
  for (int u = 0; u < kTB / 4; u++) mout[(int64_t)i * kTB * kTB + r * kTB + c0 + 4 * u] = out[u];
}

/* Solves T y = y in place for one 16-column chunk (blockIdx.y) of y (np x k, column-major, ldy).
 * T(i, j) = tri[i*tr + j*tc]; lower or upper; dinv the inverses of its diagonal blocks
 * (k_tri_inv), mlink the products inv(T[i][i]) T[i][i -+ 1] (k_tri_link). sync: gridDim.y
 * tickets, then gridDim.y x (np/64) flags, all zero before the launch.
 * Block i subtracts the products of the blocks before it (lower; after it: upper) as their flags
 * come, except the last one it needs; applies inv(T[i][i]) to that sum while the last one is
 * still being solved; then y_i = that - mlink_i y_last, one product after the last flag.
 * Thread t: group q = t / 256 sums over jj in [16q, 16q + 16), row t % 64, columns
 * 4 ((t % 256) / 64) .. + 3; the groups' sums meet in shared memory. */
constexpr int kTP = kTC + 1; /* padded row of the 64 x 16 stages (no bank conflicts down a column) */
template <typename T>
constexpr size_t trsm_smem() {
  return sizeof(T) * ((size_t)kTB * (kTB + 1) + (size_t)kTB * kTP + (size_t)4 * kTB * kTP);
}

template <typename T>
__global__ void __launch_bounds__(kTS) k_trsm_blocks(const T *tri, int64_t tr, int64_t tc, int np, int lower,
                                                     const T *dinv, const T *mlink, T *y, int64_t ldy, int k,
                                                     int *sync) {
  extern __shared__ __align__(16) unsigned char nd_smem_raw[];
  T(*ts)[kTB + 1] = reinterpret_cast<T(*)[kTB + 1]>(nd_smem_raw);
  T(*ys)[kTP] = reinterpret_cast<T(*)[kTP]>(ts + kTB);
  T(*part)[kTB][kTP] = reinterpret_cast<T(*)[kTB][kTP]>(ys + kTB);
  __shared__ int s_ticket;
  const int nblk = np / kTB, chunk = blockIdx.y, tid = threadIdx.x;
  int *flags = sync + gridDim.y + (int64_t)chunk * nblk;
  if (tid == 0) s_ticket = atomicAdd(sync + chunk, 1);
  __syncthreads();
  const int t = s_ticket;
  const int ib = lower ? t : nblk - 1 - t;
  const int q = tid / 256, r = tid % kTB, g = (tid % 256) / kTB, c0 = chunk * kTC;
  const int er = tid % kTB, ec = tid / kTB; /* this thread's element of a 64 x 16 stage */
  const bool col_in = c0 + ec < k;
  T acc[4];
#pragma unroll
  for (int u = 0; u < 4; u++) {
    const int c = c0 + g * 4 + u;
    acc[u] = q == 0 && c < k ? y[(int64_t)c * ldy + ib * kTB + r] : T(0);
  }
  /* the block's tiles: T(ib, jb) for the first t - 1 blocks to finish, inv(T[ib][ib]), then
   * mlink_ib; the next one is loaded while the current one is used */
  const T *dtile = dinv + (int64_t)ib * kTB * kTB, *mtile = mlink + (int64_t)ib * kTB * kTB;
  tri_tile<T, kTS> next;
  if (t > 1) next.load(tri, tr, tc, ib * kTB, (lower ? 0 : nblk - 1) * kTB);
  else next.load(dtile, kTB, 1, 0, 0);
  /* thread 0's acquire, then the barrier, orders everyone's reads of block jb after its flag */
  auto wait_load = [&](int jb) {
    if (tid == 0)
      while (ld_acquire(&flags[jb]) == 0) {
      }
    __syncthreads();
    ys[er][ec] = col_in ? __ldcg(&y[(int64_t)(c0 + ec) * ldy + jb * kTB + er]) : T(0);
    __syncthreads();
  };
  /* o += sign * (this thread's 16-long slice of ts[r][.] times ys[.][4 g .. 4 g + 3]) */
  auto mac = [&](T(&o)[4], T sign) {
#pragma unroll
    for (int jq = 0; jq < 16; jq++) {
      const int jj = q * 16 + jq;
      const T a = sign * ts[r][jj];
#pragma unroll
      for (int u = 0; u < 4; u++) o[u] += a * ys[jj][g * 4 + u];
    }
  };
  /* element (er, ec) of the sum of the four groups' o (the barrier inside orders the writes) */
  auto group_sum = [&](const T(&o)[4]) {
#pragma unroll
    for (int u = 0; u < 4; u++) part[q][r][g * 4 + u] = o[u];
    __syncthreads();
    return part[0][er][ec] + part[1][er][ec] + part[2][er][ec] + part[3][er][ec];
  };
  for (int s = 0; s + 1 < t; s++) {
    next.store(tr, ts);
    if (s + 2 < t) next.load(tri, tr, tc, ib * kTB, (lower ? s + 1 : nblk - 2 - s) * kTB);
    else next.load(dtile, kTB, 1, 0, 0);
    wait_load(lower ? s : nblk - 1 - s);
    mac(acc, T(-1));
    __syncthreads();
  }
  /* z = inv(T[ib][ib]) (y_ib - the products so far) */
  next.store(kTB, ts);
  if (t > 0) next.load(mtile, kTB, 1, 0, 0);
  ys[er][ec] = group_sum(acc);
  __syncthreads();
  T out[4] = {T(0), T(0), T(0), T(0)};
  mac(out, T(1));
  T v = group_sum(out);
  if (t > 0) {
    /* y_ib = z - mlink_ib y_last, after the last block's flag */
    __syncthreads();
    next.store(kTB, ts);
    wait_load(lower ? ib - 1 : ib + 1);
#pragma unroll
    for (int u = 0; u < 4; u++) out[u] = T(0);
    mac(out, T(1));
    v -= group_sum(out);
  }
  if (col_in) y[(int64_t)(c0 + ec) * ldy + ib * kTB + er] = v;
  /* the barrier, then thread 0's release (cumulative over what the barrier ordered before it),
   * publishes every thread's part of block ib */
  __syncthreads();
  if (tid == 0) st_release(&flags[ib], 1);
}

/* Acceptance of one solution: block c < k checks column c, block k the factor's diagonal.
 * Fails (atomicMin(first, index)) on a nonzero info, a non-finite pivot or one at or below
 * piv_tol * ||M||_F (singular input leaves a last pivot of the size of the rounding errors, about
 * eps times the growth of the factors times ||M||, 1e-11 ||M|| and below even with the growth
 * of 1e4 seen on random matrices; a matrix whose condition number is well below 1e10 has no pivot
 * that small), or a column with ||r||_inf > tol * ||M||_F * ||x||_inf (rows below n) or a
 * non-finite one. */
template <typename T>
__global__ void k_rbt_check(const T *lu, int np, int n, const int *info, const T *r, const T *x, int k,
                            const double *normsq, double tol, double piv_tol, unsigned long long *first,
                            int64_t index) {
  __shared__ double s_a[256], s_b[256];
  double a = 0, b = blockIdx.x == k ? INFINITY : 0;
  bool bad = false;
  if (blockIdx.x < k) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const double rv = fabs((double)r[(int64_t)blockIdx.x * np + i]);
      const double xv = fabs((double)x[(int64_t)blockIdx.x * np + i]);
      bad |= !(rv < INFINITY) || !(xv < INFINITY);
      a = fmax(a, rv);
      b = fmax(b, xv);
    }
  } else {
    for (int i = threadIdx.x; i < np; i += blockDim.x) {
      const double d = fabs((double)lu[(int64_t)i * np + i]);
      bad |= !(d < INFINITY);
      a = fmax(a, d);
      b = fmin(b, d);
    }
  }
  s_a[threadIdx.x] = a;
  s_b[threadIdx.x] = b;
  bad = __syncthreads_or(bad);
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) {
      s_a[threadIdx.x] = fmax(s_a[threadIdx.x], s_a[threadIdx.x + h]);
      s_b[threadIdx.x] = blockIdx.x == k ? fmin(s_b[threadIdx.x], s_b[threadIdx.x + h])
                                         : fmax(s_b[threadIdx.x], s_b[threadIdx.x + h]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    if (blockIdx.x < k) {
      const double nrm = sqrt(*normsq);
      bad |= !(nrm < INFINITY) || !(s_a[0] <= tol * nrm * s_b[0]);
    } else {
      bad |= *info != 0 || !(s_b[0] > piv_tol * sqrt(*normsq));
    }
    if (bad) atomicMin(first, (unsigned long long)index);
  }
}

}  // namespace

/* The randomised solve works in float64 only (float32 systems are solved in float64 and the
 * answer rounded), so each kernel has one instance and each launcher checks the dtype. */
#define ND_RBT_F64_ONLY(p) \
  if ((p)->dtype != ND_FLOAT64) return ND_ERR_DTYPE

extern "C" nd_status nd_lk_rbt_matrix(const nd_lk_rbt *p, const void *m, int64_t ms_r, int64_t ms_c, void *ar,
                                      double *normsq, void *stream) {
  ND_RBT_F64_ONLY(p);
  const int q = p->np / 4;
  dim3 grid((unsigned)((q + 127) / 128), (unsigned)(q < 65535 ? q : 65535));
  nd_k_launch<k_rbt_matrix<double>>(grid, 128, 0, (cudaStream_t)stream, (const double *)m, ms_r, ms_c, p->n, p->np,
                                                               (double *)ar, normsq);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_rbt_gather(const nd_lk_rbt *p, const void *b, int64_t brs, int64_t bcs, void *out,
                                      void *stream) {
  ND_RBT_F64_ONLY(p);
  const int64_t total = (int64_t)p->np * p->k;
  const unsigned blocks = (unsigned)((total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096);
  nd_k_launch<k_rbt_gather<double>>(blocks, 256, 0, (cudaStream_t)stream, (const double *)b, brs, bcs, p->n, p->np, p->k,
                                                                 (double *)out);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_rbt_vec(const nd_lk_rbt *p, const void *in, void *out, int set, int apply, void *stream) {
  ND_RBT_F64_ONLY(p);
  const int q = p->np / 4;
  dim3 grid((unsigned)((q + 127) / 128), (unsigned)(p->k < 65535 ? p->k : 65535));
  nd_k_launch<k_rbt_vec<double>>(grid, 128, 0, (cudaStream_t)stream, (const double *)in, (double *)out, p->np, p->k,
                                                            (unsigned)set, apply);
  return ND_K_LAUNCHED();
}

extern "C" int64_t nd_lk_trsm_sync_ints(int np, int k) {
  const int64_t chunks = (k + kTC - 1) / kTC;
  return chunks * (1 + np / kTB);
}

extern "C" nd_status nd_lk_tri_inv(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower, int unit,
                                   void *dinv, void *stream) {
  ND_RBT_F64_ONLY(p);
  const size_t smem = 2 * kTB * (kTB + 1) * sizeof(double);
  ND_TRY(nd_k_smem_once<k_tri_inv<double>>(smem, false));
  dim3 grid((unsigned)(p->np / kTB), 2);
  nd_k_launch<k_tri_inv<double>>(grid, kTT, smem, (cudaStream_t)stream, (const double *)tri, tr, tc, lower, unit,
                                                               (double *)dinv, (int64_t)p->np * kTB);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_tri_link(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower,
                                    const void *dinv, void *mlink, void *stream) {
  ND_RBT_F64_ONLY(p);
  const size_t smem = 2 * kTB * (kTB + 1) * sizeof(double);
  ND_TRY(nd_k_smem_once<k_tri_link<double>>(smem, false));
  dim3 grid((unsigned)(p->np / kTB), 2);
  nd_k_launch<k_tri_link<double>>(grid, kTT, smem, (cudaStream_t)stream, (const double *)tri, tr, tc, lower,
                                                                (const double *)dinv, (double *)mlink,
                                                                (int64_t)p->np * kTB);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_trsm_blocks(const nd_lk_rbt *p, const void *tri, int64_t tr, int64_t tc, int lower,
                                       const void *dinv, const void *mlink, void *y, int *sync, void *stream) {
  ND_RBT_F64_ONLY(p);
  const size_t smem = trsm_smem<double>();
  ND_TRY(nd_k_smem_once<k_trsm_blocks<double>>(smem, false));
  dim3 grid((unsigned)(p->np / kTB), (unsigned)((p->k + kTC - 1) / kTC));
  nd_k_launch<k_trsm_blocks<double>>(grid, kTS, smem, (cudaStream_t)stream, (const double *)tri, tr, tc, p->np, lower,
                                                                   (const double *)dinv, (const double *)mlink,
                                                                   (double *)y, (int64_t)p->np, p->k, sync);
  return ND_K_LAUNCHED();
}

/* The acceptance rule of the randomised solve, the one place it is decided (linalg/inv.c acts on
 * its verdict, include/ndcuda/linalg.h documents it): a pivot at or below ND_RBT_PIVOT_TOL
 * ||M||_F refuses the answer (see k_rbt_check for why 1e-10), and so does a column whose
 * refined residual exceeds max(ND_RBT_RESIDUAL_MIN, sqrt(n)) float64 epsilons times
 * ||M||_F ||x||_inf. */
#define ND_RBT_PIVOT_TOL 1e-10
#define ND_RBT_RESIDUAL_MIN 16.0

extern "C" nd_status nd_lk_rbt_check(const nd_lk_rbt *p, const void *lu, const int *info, const void *r,
                                     const void *x, const double *normsq, unsigned long long *first, int64_t index,
                                     void *stream) {
  ND_RBT_F64_ONLY(p);
  const double eps = 2.220446049250313e-16;
  const double tol = fmax(ND_RBT_RESIDUAL_MIN, sqrt((double)p->n)) * eps, piv_tol = ND_RBT_PIVOT_TOL;
  nd_k_launch<k_rbt_check<double>>(p->k + 1, 256, 0, (cudaStream_t)stream, (const double *)lu, p->np, p->n, info,
                                                                  (const double *)r, (const double *)x, p->k,
                                                                  normsq, tol, piv_tol, first, index);
  return ND_K_LAUNCHED();
}
