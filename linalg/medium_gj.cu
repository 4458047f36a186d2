/* Batched Gauss-Jordan for medium matrices (32 < n <= 128): inverse, det, slogdet.
 *
 * Geometry. One block per matrix (blocks loop over the batch). The matrix is padded to TN = 64
 * or 128 and split into 4x4 tiles; thread (ry, cx) keeps tile (ry, cx) in registers, so a block
 * has (TN/4)^2 = 256 or 1024 threads and the whole matrix lives in the register file. Threads
 * are numbered row-tile-major, so a warp reads whole rows (coalesced loads).
 *
 * Step k (same in-place algorithm with implicit pivoting as small_gj.cu): the threads owning
 * column k post the best pivot key of their four rows; after a barrier every warp reduces the
 * TN/4 keys with shuffles (no second barrier); the pivot row and column k are posted to shared
 * memory; after a second barrier every thread updates its tile with 16 fused multiply-adds from
 * two broadcast reads. Shared buffers alternate between even and odd steps, so two barriers per
 * step suffice. Results land in row s_r / column p_k as in small_gj.cu.
 *
 * complex128 at TN = 128 would need 64 registers for the tile alone at 1024 threads per block,
 * so it is limited to n <= 64 here (larger sizes go to cuSOLVER).
 *
 * 8x8 tiles for float32 at TN = 128 (256 threads, a quarter of the per-step bookkeeping) were
 * measured slower on the H100: 2.6 ms against 1.9 ms for 1000 matrices of 128 x 128. */
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

template <int TN>
__device__ __forceinline__ unsigned nd_mkey(double mag, int row) {
  unsigned bits = __float_as_uint((float)mag) & 0x7fffffffu;
  return (bits & ~(unsigned)(TN - 1)) | (unsigned)(TN - 1 - row);
}

template <int NW>
__device__ __forceinline__ bool nd_bit(const uint32_t (&m)[NW], int row) {
  bool r = false;
#pragma unroll
  for (int w = 0; w < NW; w++)
    if (w == (row >> 5)) r = (m[w] >> (row & 31)) & 1u;
  return r;
}

template <typename T, int TN>
__global__ void __launch_bounds__(TN *TN / 16) k_gj_medium(nd_lk_gj p) {
  typedef typename nd_real_of<T>::type R;
  constexpr int TT = TN / 4;
  constexpr int NW = TN / 32;
  __shared__ unsigned s_key[2][TT];
  __shared__ T s_prow[2][TN];
  __shared__ T s_col[2][TN];
  __shared__ int s_perm[TN];
  __shared__ int s_step[TN];
  const int tid = threadIdx.x, lane = tid & 31;
  const int cx = tid % TT, ry = tid / TT;
  const int n = p.n;
  const bool detmode = p.mode == ND_LK_DET || p.mode == ND_LK_SLOGDET;
  const T *A = (const T *)p.a.data;

  for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
    T w[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const int row = 4 * ry + i, col = 4 * cx + j;
        w[i][j] = (row < n && col < n) ? A[b * p.a.bs + row * p.a.rs + col * p.a.cs] : nd_zero<T>();
      }
    uint32_t used[NW];
#pragma unroll
    for (int q = 0; q < NW; q++) {
      /* rows >= n count as used, so they never pivot */
      const int lo = q * 32;
      used[q] = n <= lo ? 0xffffffffu : (n >= lo + 32 ? 0u : ~((1u << (n - lo)) - 1u));
    }
    int fail = 0, parity = 0;
    T det = nd_one<T>();
    R logabs = R(0);

    for (int kb = 0; kb < TT && 4 * kb < n; kb++) {
#pragma unroll
      for (int kk = 0; kk < 4; kk++) {
        const int k = 4 * kb + kk;
        if (k < n) {
          const int buf = k & 1;
          if (cx == kb) {
            unsigned best = 0;
#pragma unroll
            for (int i = 0; i < 4; i++) {
              const int row = 4 * ry + i;
              if (!nd_bit<NW>(used, row)) {
                unsigned key = nd_mkey<TN>((double)nd_abs1(w[i][kk]), row);
                best = key > best ? key : best;
              }
            }
            s_key[buf][ry] = best;
          }
          __syncthreads();
          unsigned key = lane < TT ? s_key[buf][lane] : 0u;
#pragma unroll
          for (int off = 16; off > 0; off >>= 1) {
            unsigned o = __shfl_xor_sync(0xffffffffu, key, off);
            key = o > key ? o : key;
          }
          const int prow = TN - 1 - (int)(key & (unsigned)(TN - 1));
          if (ry == (prow >> 2)) {
            const int pi = prow & 3;
#pragma unroll
            for (int j = 0; j < 4; j++) {
              T v = w[0][j];
#pragma unroll
              for (int i = 1; i < 4; i++)
                if (i == pi) v = w[i][j];
              s_prow[buf][4 * cx + j] = v;
            }
          }
          if (cx == kb) {
#pragma unroll
            for (int i = 0; i < 4; i++) s_col[buf][4 * ry + i] = w[i][kk];
          }
          if (tid == 0) {
            s_perm[k] = prow;
            s_step[prow] = k;
          }
          __syncthreads();
          const T pk = s_prow[buf][k];
          if (nd_is_zero(pk) && fail == 0) fail = k + 1;
          if (detmode) {
            int below = 0;
#pragma unroll
            for (int q = 0; q < NW; q++) {
              if (q < (prow >> 5)) below += __popc(used[q]);
              else if (q == (prow >> 5)) below += __popc(used[q] & ((1u << (prow & 31)) - 1u));
            }
            parity ^= (prow - below) & 1;
            det = det * pk;
            logabs += log(nd_abs(pk));
          }
#pragma unroll
          for (int q = 0; q < NW; q++)
            if (q == (prow >> 5)) used[q] |= 1u << (prow & 31);
          const T inv = nd_recip(pk);
#pragma unroll
          for (int i = 0; i < 4; i++) {
            const int row = 4 * ry + i;
            if (row >= n) continue;
            if (row == prow) {
              if (!detmode) {
#pragma unroll
                for (int j = 0; j < 4; j++) w[i][j] = (4 * cx + j == k) ? inv : w[i][j] * inv;
              }
            } else if (!(detmode && nd_bit<NW>(used, row))) {
              const T f = s_col[buf][row] * inv;
#pragma unroll
              for (int j = 0; j < 4; j++)
                w[i][j] = (4 * cx + j == k) ? nd_zero<T>() - f : w[i][j] - f * s_prow[buf][4 * cx + j];
            }
          }
        }
      }
    }

    __syncthreads();
    if (p.mode == ND_LK_INV) {
      T *X = (T *)p.x.data + b * p.x.bs;
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
          const int row = 4 * ry + i, col = 4 * cx + j;
          if (row < n && col < n) X[(int64_t)s_step[row] * p.x.rs + (int64_t)s_perm[col] * p.x.cs] = w[i][j];
        }
    } else if (tid == 0) {
      if (p.mode == ND_LK_DET) {
        ((T *)p.det)[b] = fail ? nd_zero<T>() : (parity ? nd_zero<T>() - det : det);
      } else {
        T sign = nd_phase(det);
        if (parity) sign = nd_zero<T>() - sign;
        ((T *)p.det)[b] = fail ? nd_zero<T>() : sign;
        ((R *)p.logdet)[b] = fail ? R(-INFINITY) : logabs;
      }
    }
    if (tid == 0) {
      if (p.info != NULL) p.info[b] = fail;
      if (fail && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
    }
    __syncthreads();
  }
}

template <typename T, int TN>
nd_status nd_gjm_launch(const nd_lk_gj *p, cudaStream_t st) {
  int64_t blocks = p->batch;
  const int64_t cap = (int64_t)nd_k_sm_count() * (TN == 128 ? 2 : 8);
  if (blocks > cap) blocks = cap;
  k_gj_medium<T, TN><<<(unsigned)blocks, TN * TN / 16, 0, st>>>(*p);
  return ND_K_LAUNCHED();
}

template <typename T>
nd_status nd_gjm_dispatch(const nd_lk_gj *p, cudaStream_t st) {
  if (p->n <= 64) return nd_gjm_launch<T, 64>(p, st);
  return nd_gjm_launch<T, 128>(p, st);
}

}  // namespace

extern "C" int nd_lk_gj_medium_ok(int dtype, int n) {
  if (n <= 32) return 0;
  if (dtype == 13) return n <= 64;
  return (dtype == 10 || dtype == 11 || dtype == 12) && n <= 128;
}

extern "C" nd_status nd_lk_gj_medium(const nd_lk_gj *p, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (p->batch == 0) return ND_OK;
  if (!nd_lk_gj_medium_ok(p->dtype, p->n) || p->mode == ND_LK_SOLVE)
    return nd__error(ND_ERR_INTERNAL, "nd_lk_gj_medium: unsupported n = %d, dtype %d, mode %d", p->n,
                     p->dtype, p->mode);
  switch (p->dtype) {
    case 10: return nd_gjm_dispatch<float>(p, st);
    case 11: return nd_gjm_dispatch<double>(p, st);
    case 12: return nd_gjm_dispatch<nd_c64>(p, st);
    default: return nd_gjm_launch<nd_c128, 64>(p, st);
  }
}
