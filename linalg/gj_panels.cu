/* Batched Gauss-Jordan for medium matrices (32 < n <= 128: inverse, solve, det, slogdet), and
 * the inverse and solve of float32 24 < n <= 32 and float64 16 < n <= 32 (nd_lk_inv_warp_ok)
 * with one warp per matrix at TN = 32 (k_gjw and its solve form k_gjws; float64 on devices
 * without float64 tensor cores, gj_tensor.cu's kernel otherwise). The solve carries b through
 * the elimination in k_gjws and k_gjb_la (see each); the other kernels form x = inverse @ b
 * from their stage (stage_solve.cuh).
 *
 * Algorithm. The in-place Gauss-Jordan of gj_group.cu (implicit row pivoting: rows never
 * move; the pivot of step k is the unused row with the largest |a[r][k]|, ties to the lowest
 * row; results land in row s_r / column p_k), blocked by panels of B columns. One warp, the
 * panel warp, runs the B steps of a panel on the TN x B panel alone (its pivot search is one
 * warp reduction, with no block barrier), which yields the pivot rows p_0..p_{B-1} and the
 * panel's final columns W. The rest of the matrix then takes the B steps at once: with P the
 * panel's pivot rows,
 *     a[r][j] <- (r in P ? 0 : a[r][j]) + sum_t W[r][t] * a[p_t][j]      (j outside the panel)
 * which is the product of the B elementary Gauss-Jordan transforms: a rank-B update done as a
 * register-tiled outer product (B fused multiply-adds per element per panel, no barrier per
 * step). The pivot choices and the panel columns are those of the unblocked algorithm applied
 * to the panel's current values; the other columns differ only in the order of rounding, as
 * in a blocked LU. Det and slogdet run the same elimination (the used rows' extra updates do
 * not touch the pivots).
 *
 * Geometry. The matrix is padded to TN = 64 or 128 with an identity block (steps past n pivot
 * on their own padding row, a no-op on the real part, so every panel is whole) and split into
 * RT x CT tiles, one per update thread, held in registers; threads are numbered
 * row-tile-major. Two kernels:
 *   k_gjb_sync: warp 0 is also the panel warp; three block barriers per panel (panel posted,
 *     W posted, pivot rows posted). B divides CT. With STASH the panel warp parks its tile in
 *     the idle output stage while it factors, so tile and panel need not share registers.
 *     k_gjw (TN = 32, one warp per matrix) runs the same panel pass (nd_gjb_pass) with warp
 *     barriers.
 *   k_gjb_la: B = RT = CT; one extra warp does only panels, with lookahead: while the update
 *     threads apply panel q, it applies panel q to the next panel's columns itself (W_q is
 *     still in shared memory, the pivot rows' entries are in the posted panel) and factors
 *     it. Producer/consumer named barriers (bar.arrive / bar.sync) over double-buffered panels
 *     and W; the update threads have one barrier of their own per panel (pivot rows posted).
 * Results go through a shared stage (the scatter to row s_r / column p_k then costs no global
 * traffic) and leave with coalesced, 16-byte where aligned, stores. One block per matrix.
 *
 * Failure. info is the first exactly-zero pivot's 1-based index; the run continues with
 * inf/NaN; every loop has a fixed trip count. Rows >= n are never searched for steps < n and
 * steps >= n pivot on their own row, so s_r and p_k stay a permutation of the real block even
 * for NaN input, and no write leaves the n x n slot. */
#include <string.h>

#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"
#include "linalg/stage_solve.cuh"

namespace {

/* ---- small helpers ------------------------------------------------------------------- */

/* Pivot key over TN rows (see nd_pivot_key in scalar.cuh; here the low log2(TN) bits hold
 * TN - 1 - row). */
template <int TN, typename M>
__device__ __forceinline__ unsigned nd_bkey(M mag, int row) {
  const unsigned bits = __float_as_uint((float)mag) & 0x7fffffffu;
  return (bits & ~(unsigned)(TN - 1)) | (unsigned)(TN - 1 - row);
}

__device__ __forceinline__ float nd_shfl(float v, int src) { return __shfl_sync(0xffffffffu, v, src); }
__device__ __forceinline__ double nd_shfl(double v, int src) { return __shfl_sync(0xffffffffu, v, src); }
template <typename R>
__device__ __forceinline__ nd_cplx<R> nd_shfl(nd_cplx<R> v, int src) {
  return {nd_shfl(v.re, src), nd_shfl(v.im, src)};
}

/* N consecutive values between (16-byte aligned) shared memory and registers, 16 bytes at a
 * time. */
template <typename T, int N>
__device__ __forceinline__ void nd_ld(T (&v)[N], const T *p) {
  static_assert(N * sizeof(T) % 16 == 0, "whole 16-byte vectors");
  uint4 u[N * sizeof(T) / 16];
#pragma unroll
  for (int q = 0; q < (int)(N * sizeof(T) / 16); q++) u[q] = ((const uint4 *)p)[q];
  memcpy(v, u, sizeof v);
}
template <typename T>
__device__ __forceinline__ void nd_ld16(T *v, const T *p) {
  const uint4 u = *(const uint4 *)p;
  memcpy(v, &u, 16);
}
template <typename T>
__device__ __forceinline__ void nd_st16(T *p, const T *v) {
  uint4 u;
  memcpy(&u, v, 16);
  *(uint4 *)p = u;
}

__device__ __forceinline__ void nd_bar_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
/* bar.arrive synchronizes with the bar.sync that completes the barrier (PTX memory model);
 * the fence states the producer's intent and costs little next to a panel. */
__device__ __forceinline__ void nd_bar_arrive(int id, int count) {
  __threadfence_block();
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/* ---- the panel warp ------------------------------------------------------------------ */

/* Pivot bookkeeping of one matrix, kept by the panel warp (every lane holds the same values
 * except used, whose bit q says whether row lane + 32 q has been a pivot or is padding). */
template <typename T>
struct nd_gjb_piv {
  unsigned used;
  int fail, parity;
  T det;
  typename nd_real_of<T>::type logabs;
};

template <typename T, int TN>
__device__ __forceinline__ void nd_gjb_piv_init(nd_gjb_piv<T> &ps, int n, int lane) {
  ps.used = 0;
#pragma unroll
  for (int q = 0; q < TN / 32; q++)
    if (lane + 32 * q >= n) ps.used |= 1u << q;
  ps.fail = 0;
  ps.parity = 0;
  ps.det = nd_one<T>();
  ps.logabs = 0;
}

/* Runs steps k0 .. k0 + B - 1 on the panel pw (lane holds rows lane + 32 q), leaving the
 * panel's final columns W in pw and in s_wt (B x TN, transposed), the pivot rows in piv, the
 * bit q of pivm set when row lane + 32 q was one of them, and p_k / s_r in s_perm / s_step.
 * A pivot row is not scaled when chosen: its slot k becomes 1 and the scale 1/pivot is applied
 * once at the end (the later updates are homogeneous in the row, as in gj_group.cu). */
template <typename T, int TN, int B>
__device__ __forceinline__ void nd_gjb_factor(T (&pw)[TN / 32][B], nd_gjb_piv<T> &ps, int (&piv)[B],
                                              unsigned &pivm, int k0, int n, bool detmode, int lane,
                                              T *s_wt, int *s_perm, int *s_step) {
  constexpr int RP = TN / 32;
  T rs[RP];
#pragma unroll
  for (int q = 0; q < RP; q++) rs[q] = nd_one<T>();
  pivm = 0;
#pragma unroll
  for (int t = 0; t < B; t++) {
    const int k = k0 + t;
    unsigned key = 0;
#pragma unroll
    for (int q = 0; q < RP; q++) {
      const unsigned kq = nd_bkey<TN>(nd_abs1(pw[q][t]), lane + 32 * q);
      if (!((ps.used >> q) & 1u) && kq > key) key = kq;
    }
    key = nd_warp_max(key);
    int prow = TN - 1 - (int)(key & (unsigned)(TN - 1));
    if (k >= n) prow = k;
    const int src = prow & 31, qp = prow >> 5;
    T pr[B];
#pragma unroll
    for (int j = 0; j < B; j++) {
      T v = pw[0][j];
#pragma unroll
      for (int q = 1; q < RP; q++)
        if (qp == q) v = pw[q][j];
      pr[j] = nd_shfl(v, src);
    }
    const T pk = pr[t];
    if (k < n) {
      if (nd_is_zero(pk) && ps.fail == 0) ps.fail = k + 1;
      if (detmode) {
        int below = 0;
#pragma unroll
        for (int q = 0; q < RP; q++) {
          const unsigned m = __ballot_sync(0xffffffffu, (ps.used >> q) & 1u);
          if (q < qp) below += __popc(m);
          else if (q == qp) below += __popc(m & ((1u << src) - 1u));
        }
        ps.parity ^= (prow - below) & 1;
        /* The phase and the log of the magnitude, never the product itself: 128 complex64
         * pivots overflow float, and inf * inf in complex arithmetic is NaN (a NaN sign
         * where NumPy's is finite). */
        ps.det = ps.det * nd_phase(pk);
        ps.logabs += log(nd_abs(pk));
      }
    }
    if (lane == src) ps.used |= 1u << qp;
    piv[t] = prow;
    const T inv = nd_recip(pk);
#pragma unroll
    for (int q = 0; q < RP; q++) {
      const bool me = lane == src && q == qp;
      const T f = me ? nd_zero<T>() : pw[q][t] * inv;
#pragma unroll
      for (int j = 0; j < B; j++)
        if (j != t) pw[q][j] = pw[q][j] - f * pr[j];
      pw[q][t] = me ? nd_one<T>() : nd_zero<T>() - f;
      if (me) {
        rs[q] = inv;
        pivm |= 1u << q;
      }
    }
  }
  /* p_k and s_r of the panel's steps, lane t for step k0 + t */
  if (lane < B) {
    int pt = piv[0];
#pragma unroll
    for (int t = 1; t < B; t++) pt = lane == t ? piv[t] : pt;
    s_perm[k0 + lane] = pt;
    s_step[pt] = k0 + lane;
  }
#pragma unroll
  for (int q = 0; q < RP; q++)
#pragma unroll
    for (int j = 0; j < B; j++) pw[q][j] = pw[q][j] * rs[q];
#pragma unroll
  for (int t = 0; t < B; t++)
#pragma unroll
    for (int q = 0; q < RP; q++) s_wt[t * TN + lane + 32 * q] = pw[q][t];
}

/* det / slogdet / info of one matrix, by lane 0 of the panel warp. */
template <typename T>
__device__ __forceinline__ void nd_gjb_results(const nd_lk_gj &p, int64_t b, const nd_gjb_piv<T> &ps) {
  typedef typename nd_real_of<T>::type R;
  if (p.mode == ND_LK_DET) {
    /* NumPy's det is sign * exp(logdet) (umath_linalg's det_from_slogdet): an overflow is
     * +-inf, not NaN. */
    T sign = ps.parity ? nd_zero<T>() - ps.det : ps.det;
    ((T *)p.det)[b] = ps.fail ? nd_zero<T>() : sign * nd_from_real<T>(exp((double)ps.logabs));
  } else if (p.mode == ND_LK_SLOGDET) {
    T sign = ps.det; /* already a product of phases */
    if (ps.parity) sign = nd_zero<T>() - sign;
    ((T *)p.det)[b] = ps.fail ? nd_zero<T>() : sign;
    ((R *)p.logdet)[b] = ps.fail ? R(-INFINITY) : ps.logabs;
  }
  if (p.info != NULL) p.info[b] = ps.fail;
  if (ps.fail && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
}

/* ---- the update threads -------------------------------------------------------------- */

/* Position of column c in the pivot-row buffer: each thread's CT columns are CT / V vectors of
 * 16 bytes, and vector v of every thread is stored next to vector v of its neighbours, so a
 * warp reading its vectors hits consecutive addresses (no bank conflicts). */
template <typename T, int TN, int CT>
__device__ __forceinline__ int nd_prow_pos(int cx, int v) {
  constexpr int V = 16 / (int)sizeof(T);
  return v * (TN / CT) * V + cx * V;
}

/* Loads tile (ry, cx) of matrix b, padded with the identity. */
template <typename T, int TN, int RT, int CT>
__device__ __forceinline__ void nd_gjb_load(T (&w)[RT][CT], const nd_lk_gj &p, int64_t b, int ry, int cx) {
  constexpr int V = 16 / (int)sizeof(T);
  const int n = p.n;
  const T *A = (const T *)p.a.data;
  const bool vec = n == TN && p.a.cs == 1 && (p.a.rs * (int64_t)sizeof(T)) % 16 == 0 &&
                   (p.a.bs * (int64_t)sizeof(T)) % 16 == 0 && ((uintptr_t)A & 15) == 0;
  if (vec) {
#pragma unroll
    for (int i = 0; i < RT; i++) {
      const T *src = A + b * p.a.bs + (int64_t)(RT * ry + i) * p.a.rs + CT * cx;
#pragma unroll
      for (int v = 0; v < CT / V; v++) {
        const uint4 u = __ldg((const uint4 *)src + v);
        memcpy(&w[i][v * V], &u, 16);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < RT; i++)
#pragma unroll
      for (int j = 0; j < CT; j++) {
        const int row = RT * ry + i, col = CT * cx + j;
        w[i][j] = (row < n && col < n) ? A[b * p.a.bs + row * p.a.rs + col * p.a.cs]
                                       : (row == col ? nd_one<T>() : nd_zero<T>());
      }
  }
}

/* Posts this thread's parts of the panel's pivot rows (rows whose step lies in
 * [k0, k0 + B)); st[i] gets row i's step minus k0. */
template <typename T, int TN, int RT, int CT, int B, int J0 = 0>
__device__ __forceinline__ void nd_gjb_post(const T (&w)[RT][CT], int (&st)[RT], const int *s_step,
                                            T *s_prow, int k0, int ry, int cx) {
  constexpr int V = 16 / (int)sizeof(T);
  nd_ld(st, s_step + RT * ry);
#pragma unroll
  for (int i = 0; i < RT; i++) {
    st[i] -= k0;
    if ((unsigned)st[i] < (unsigned)B) {
#pragma unroll
      for (int v = J0 / V; v < CT / V; v++)
        nd_st16(s_prow + st[i] * TN + nd_prow_pos<T, TN, CT>(cx, v), &w[i][v * V]);
    }
  }
}

/* The rank-B update of the tile from W (s_wt, B x TN) and the pivot rows (s_prow); with J0, of
 * the tile's columns J0.. only (nd_gjb_post with the same J0 posts those). */
template <typename T, int TN, int RT, int CT, int B, int UNR = 1, int J0 = 0>
__device__ __forceinline__ void nd_gjb_update(T (&w)[RT][CT], const int (&st)[RT], const T *s_wt,
                                              const T *s_prow, int ry, int cx) {
  constexpr int V = 16 / (int)sizeof(T);
#pragma unroll
  for (int i = 0; i < RT; i++)
    if ((unsigned)st[i] < (unsigned)B) {
#pragma unroll
      for (int j = J0; j < CT; j++) w[i][j] = nd_zero<T>();
    }
  /* not unrolled (UNR 1) or by two: each step has RT x CT independent multiply-adds, and a full
   * unroll lets the compiler hoist every step's loads, which spills the tile; k_gjw's float32
   * tile (4 x 8) takes two steps at a time (linalg/TUNING.md) */
#pragma unroll UNR
  for (int t = 0; t < B; t++) {
    T a[RT], c[CT];
    nd_ld(a, s_wt + t * TN + RT * ry);
#pragma unroll
    for (int v = J0 / V; v < CT / V; v++) nd_ld16(&c[v * V], s_prow + t * TN + nd_prow_pos<T, TN, CT>(cx, v));
#pragma unroll
    for (int i = 0; i < RT; i++)
#pragma unroll
      for (int j = J0; j < CT; j++) w[i][j] = w[i][j] + a[i] * c[j];
  }
}

/* Columns c0 .. c0 + B - 1 of the tile (those of the panel) <- W. */
template <typename T, int TN, int RT, int CT, int B>
__device__ __forceinline__ void nd_gjb_take_w(T (&w)[RT][CT], const T *s_wt, int ry, int c0) {
#pragma unroll
  for (int t = 0; t < B; t++) {
    T a[RT];
    nd_ld(a, s_wt + t * TN + RT * ry);
#pragma unroll
    for (int i = 0; i < RT; i++) w[i][c0 + t] = a[i];
  }
}

/* Scatters the finished tile into the stage at its output place (row s_r, column p_k). With
 * s_step2, a row's step is in one of two maps (the other holds -1 there). */
template <typename T, int TN, int RT, int CT>
__device__ __forceinline__ void nd_gjb_stage(const T (&w)[RT][CT], T *s_stage, const int *s_perm,
                                             const int *s_step, int n, int ry, int cx,
                                             const int *s_step2 = nullptr) {
  int pc[CT], sr[RT];
  nd_ld(pc, s_perm + CT * cx);
  nd_ld(sr, s_step + RT * ry);
  if (s_step2 != nullptr) {
    int sr2[RT];
    nd_ld(sr2, s_step2 + RT * ry);
#pragma unroll
    for (int i = 0; i < RT; i++) sr[i] = sr[i] > sr2[i] ? sr[i] : sr2[i];
  }
#pragma unroll
  for (int i = 0; i < RT; i++)
#pragma unroll
    for (int j = 0; j < CT; j++)
      if (RT * ry + i < n && CT * cx + j < n) s_stage[sr[i] * TN + pc[j]] = w[i][j];
}

/* Stage -> x[b], coalesced, by nthreads threads. */
template <typename T, int TN>
__device__ __forceinline__ void nd_gjb_store(const nd_lk_gj &p, int64_t b, const T *s_stage, int tid,
                                             int nthreads) {
  const int n = p.n;
  T *X = (T *)p.x.data + b * p.x.bs;
  const int lane = tid & 31, warp = tid >> 5, nw = nthreads >> 5;
  const bool vec = p.x.cs == 1 && (n * (int)sizeof(T)) % 16 == 0 && (p.x.rs * (int64_t)sizeof(T)) % 16 == 0 &&
                   ((uintptr_t)X & 15) == 0;
  if (vec) {
    const int vr = n * (int)sizeof(T) / 16;
    /* rows back to back (rs = n): one flat run of n * vr vectors, so every lane has work even
     * when a row is fewer than 32 vectors (TN = 32) */
    if (p.x.rs == n) {
      if (n == TN) { /* vectors per row a compile-time power of two: no division */
        constexpr int VR = TN * (int)sizeof(T) / 16;
        for (int e = tid; e < TN * VR; e += nthreads)
          ((uint4 *)X)[e] = ((const uint4 *)(s_stage + (e / VR) * TN))[e % VR];
        return;
      }
      for (int e = tid; e < n * vr; e += nthreads) {
        const int i = e / vr;
        ((uint4 *)X)[e] = ((const uint4 *)(s_stage + i * TN))[e - i * vr];
      }
      return;
    }
    for (int i = warp; i < n; i += nw)
      for (int v = lane; v < vr; v += 32)
        ((uint4 *)(X + (int64_t)i * p.x.rs))[v] = ((const uint4 *)(s_stage + i * TN))[v];
  } else {
    for (int i = warp; i < n; i += nw)
      for (int j = lane; j < n; j += 32) X[(int64_t)i * p.x.rs + (int64_t)j * p.x.cs] = s_stage[i * TN + j];
  }
}

template <typename T, int TN, int B, int NB>
constexpr size_t nd_gjb_smem() {
  /* stage, NB panel buffers (TN x B), NB W buffers (B x TN), pivot rows (B x TN), p_k, s_r */
  return sizeof(T) * ((size_t)TN * TN + (size_t)NB * TN * B + (size_t)NB * B * TN + (size_t)B * TN) +
         2 * TN * sizeof(int);
}

/* One Gauss-Jordan pass over the matrix in panels of B columns: post the panel (the tile column
 * holding it), factor it in the panel warp, post the pivot rows, apply the rank-B update and
 * take W into the panel's tile column. Shared by k_gjb_sync (Bar = the block barrier, warp 0
 * the panel warp) and k_gjw (Bar = the warp barrier; its panel, W and pivot-row buffers share
 * the warp's stage, hence a last barrier after each step). STASH: the panel warp parks its
 * tile in the (idle) stage while it factors, so that the tile and the panel need not be in
 * registers at once. */
struct nd_bar_block {
  static constexpr bool kWarp = false;
  static __device__ __forceinline__ void sync() { __syncthreads(); }
};
struct nd_bar_warp {
  static constexpr bool kWarp = true;
  static __device__ __forceinline__ void sync() { __syncwarp(); }
};

template <typename T, int TN, int RT, int CT, int B, bool STASH, class Bar, int UNR = 1>
__device__ __forceinline__ void nd_gjb_pass(T (&w)[RT][CT], nd_gjb_piv<T> &ps, int n, bool detmode,
                                            bool panel_warp, int lane, int ry, int cx, T *s_stage,
                                            T *s_pan, T *s_wt, T *s_prow, int *s_perm, int *s_step) {
  constexpr int RP = TN / 32, V = 16 / (int)sizeof(T);
  for (int kc = 0; kc * CT < n; kc++) {
#pragma unroll
    for (int s = 0; s < CT / B; s++) {
      const int k0 = kc * CT + s * B;
      if (k0 < n) {
        if (cx == kc) {
#pragma unroll
          for (int i = 0; i < RT; i++)
#pragma unroll
            for (int v = 0; v < B / V; v++) nd_st16(s_pan + (RT * ry + i) * B + v * V, &w[i][s * B + v * V]);
        }
        Bar::sync();
        if (panel_warp) {
          if (STASH) {
#pragma unroll
            for (int i = 0; i < RT; i++)
#pragma unroll
              for (int v = 0; v < CT / V; v++) nd_st16(s_stage + ((i * (CT / V) + v) * 32 + lane) * V, &w[i][v * V]);
          }
          T pw[RP][B];
#pragma unroll
          for (int q = 0; q < RP; q++) nd_ld(pw[q], s_pan + (lane + 32 * q) * B);
          int piv[B];
          unsigned pivm;
          nd_gjb_factor<T, TN, B>(pw, ps, piv, pivm, k0, n, detmode, lane, s_wt, s_perm, s_step);
          if (STASH) {
#pragma unroll
            for (int i = 0; i < RT; i++)
#pragma unroll
              for (int v = 0; v < CT / V; v++) nd_ld16(&w[i][v * V], s_stage + ((i * (CT / V) + v) * 32 + lane) * V);
          }
        }
        Bar::sync();
        int st[RT];
        nd_gjb_post<T, TN, RT, CT, B>(w, st, s_step, s_prow, k0, ry, cx);
        Bar::sync();
        nd_gjb_update<T, TN, RT, CT, B, UNR>(w, st, s_wt, s_prow, ry, cx);
        if (cx == kc) nd_gjb_take_w<T, TN, RT, CT, B>(w, s_wt, ry, s * B);
        if (Bar::kWarp) Bar::sync();
      }
    }
  }
}

/* ---- kernel 1: warp 0 runs the panels, block barriers ------------------------------------ */

template <typename T, int TN, int RT, int CT, int B, int MINB, bool STASH, bool SOLVE>
__global__ void __launch_bounds__((TN / RT) * (TN / CT), MINB) k_gjb_sync(nd_lk_gj p) {
  constexpr int NC = TN / CT, NT = (TN / RT) * NC;
  static_assert(CT % B == 0 && NT >= 32, "panel inside a tile column; at least one warp");
  extern __shared__ __align__(16) unsigned char nd_smem[];
  T *s_stage = (T *)nd_smem;
  T *s_pan = s_stage + TN * TN;
  T *s_wt = s_pan + TN * B;
  T *s_prow = s_wt + B * TN;
  int *s_perm = (int *)(s_prow + B * TN);
  int *s_step = s_perm + TN;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int ry = tid / NC, cx = tid % NC;
  const int n = p.n;
  const bool detmode = p.mode == ND_LK_DET || p.mode == ND_LK_SLOGDET;

  for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
    /* s_step must not hold the previous matrix's steps: a row's step is read before the row has
     * been a pivot (the last barrier of the previous matrix orders this after its reads) */
    for (int r = tid; r < TN; r += NT) s_step[r] = -1;
    T w[RT][CT];
    nd_gjb_load<T, TN, RT, CT>(w, p, b, ry, cx);
    nd_gjb_piv<T> ps;
    nd_gjb_piv_init<T, TN>(ps, n, lane);

    nd_gjb_pass<T, TN, RT, CT, B, STASH, nd_bar_block>(w, ps, n, detmode, warp == 0, lane, ry, cx, s_stage,
                                                       s_pan, s_wt, s_prow, s_perm, s_step);

    if (SOLVE || p.mode == ND_LK_INV) nd_gjb_stage<T, TN, RT, CT>(w, s_stage, s_perm, s_step, n, ry, cx);
    if (tid == 0) nd_gjb_results<T>(p, b, ps);
    __syncthreads();
    if constexpr (SOLVE) nd_stage_solve<T>(p, b, s_stage, TN, tid, NT); /* x = inverse @ b */
    else if (p.mode == ND_LK_INV) nd_gjb_store<T, TN>(p, b, s_stage, tid, NT);
  }
}

/* ---- kernel 2: a dedicated panel warp with lookahead ------------------------------------- */

/* Named barriers: 1 + (q & 1): panel q posted (update threads arrive, panel warp waits);
 * 3 + (q & 1): W of panel q posted (panel warp arrives, update threads wait); 5: the update
 * threads' own barrier (pivot rows posted). Alternating ids keep a barrier from being
 * arrived at twice before it completes: the update threads post panel q + 2 only after
 * consuming W_q, which the panel warp posts after waiting for panel q.
 * The row -> step map is double-buffered like the panels: the panel warp factors panel q + 1
 * while the update threads read the map to post panel q's pivot rows, so panel q's steps go
 * to map q & 1, which panel q + 2 (the next writer of that map) only touches after update q. */
/* In solve mode with nrhs <= TN (carry), b is carried through the elimination instead of
 * forming the inverse: the panel warp applies each panel's transform to b (kept in the stage,
 * column c at s_b[c * TN + row]) after posting W, and x[k] = b[p_k] at the end. The columns of
 * panel q are then dead once it is factored, and a tile column is needed only until it is
 * posted as a panel (the panel warp brings panel q + 1 up to date itself): the update threads
 * are numbered column-tile-major in this instance, so that a warp holds two tile columns, and a
 * warp leaves the panel loop when none of its columns will be posted again (about half the
 * update work; the barriers count the warps still in it, nd_gjb_la_active). */
template <int TN, int RT>
__device__ __forceinline__ bool nd_gjb_la_needed(int w, int q, int np) {
  constexpr int NR = TN / RT;
  const int lo = max((32 * w) / NR, q + 2), hi = min((32 * w + 31) / NR, np - 1);
  return lo <= hi;
}
template <int TN, int RT>
__device__ __forceinline__ int nd_gjb_la_active(int q, int np) {
  constexpr int NW = (TN / RT) * (TN / RT) / 32;
  int c = 0;
#pragma unroll
  for (int w = 0; w < NW; w++) c += nd_gjb_la_needed<TN, RT>(w, q, np);
  return c;
}

template <typename T, int TN, int RT, int MINB, bool SOLVE>
__global__ void __launch_bounds__((TN / RT) * (TN / RT) + 32, MINB) k_gjb_la(nd_lk_gj p) {
  constexpr int B = RT, CT = RT, NC = TN / CT, NU = NC * NC, NT = NU + 32, RP = TN / 32;
  constexpr int V = 16 / (int)sizeof(T);
  static_assert(NU % 32 == 0, "whole update warps");
  extern __shared__ __align__(16) unsigned char nd_smem[];
  T *s_stage = (T *)nd_smem;
  T *s_pan = s_stage + TN * TN;  /* [2][TN][B] */
  T *s_wt = s_pan + 2 * TN * B;  /* [2][B][TN] */
  T *s_prow = s_wt + 2 * B * TN; /* [B][TN] */
  int *s_perm = (int *)(s_prow + B * TN);
  int *s_step = s_perm + TN; /* [2][TN] */
  const int tid = threadIdx.x, lane = tid & 31;
  const int n = p.n, np = (n + B - 1) / B;
  const bool detmode = p.mode == ND_LK_DET || p.mode == ND_LK_SLOGDET;
  const bool carry = SOLVE && p.nrhs <= TN && !p.plain;
  T *s_b = s_stage; /* carry: b, column c at s_b[c * TN + row] */

  for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
    if (tid < NU) {
      const int ry = SOLVE ? tid % NC : tid / NC, cx = SOLVE ? tid / NC : tid % NC;
      const int w_upd = tid >> 5;
      for (int r = tid; r < 2 * TN; r += NU) s_step[r] = -1;
      T w[RT][CT];
      nd_gjb_load<T, TN, RT, CT>(w, p, b, ry, cx);
      if (cx < 2 && cx < np) {
#pragma unroll
        for (int i = 0; i < RT; i++)
#pragma unroll
          for (int v = 0; v < CT / V; v++) nd_st16(s_pan + cx * TN * B + (RT * ry + i) * B + v * V, &w[i][v * V]);
      }
      nd_bar_arrive(1, NT);
      if (np > 1) nd_bar_arrive(2, NT);
      for (int q = 0; q < np; q++) {
        if (carry && !nd_gjb_la_needed<TN, RT>(w_upd, q, np)) break; /* warp-uniform */
        const int nu = carry ? 32 * nd_gjb_la_active<TN, RT>(q, np) : NU;
        const T *wt = s_wt + (q & 1) * B * TN;
        nd_bar_sync(3 + (q & 1), nu + 32);
        int st[RT];
        nd_gjb_post<T, TN, RT, CT, B>(w, st, s_step + (q & 1) * TN, s_prow, q * B, ry, cx);
        nd_bar_sync(5, nu);
        nd_gjb_update<T, TN, RT, CT, B>(w, st, wt, s_prow, ry, cx);
        if (!carry && cx == q) nd_gjb_take_w<T, TN, RT, CT, B>(w, wt, ry, 0);
        if (q + 2 < np) {
          if (cx == q + 2) {
#pragma unroll
            for (int i = 0; i < RT; i++)
#pragma unroll
              for (int v = 0; v < CT / V; v++)
                nd_st16(s_pan + (q & 1) * TN * B + (RT * ry + i) * B + v * V, &w[i][v * V]);
          }
          nd_bar_arrive(1 + (q & 1), nu + 32);
        }
      }
      if (!carry && (SOLVE || p.mode == ND_LK_INV))
        nd_gjb_stage<T, TN, RT, CT>(w, s_stage, s_perm, s_step, n, ry, cx, s_step + TN);
    } else {
      nd_gjb_piv<T> ps;
      nd_gjb_piv_init<T, TN>(ps, n, lane);
      int piv[B];
      unsigned pivm = 0;
      if (carry) {
        const T *Bm = (const T *)p.b.data + b * p.b.bs;
        for (int c = 0; c < (int)p.nrhs; c++)
#pragma unroll
          for (int r = 0; r < RP; r++) {
            const int row = lane + 32 * r;
            s_b[c * TN + row] = row < n ? Bm[row * p.b.rs + c * p.b.cs] : nd_zero<T>();
          }
      }
      for (int q = 0; q < np; q++) {
        const T *pan = s_pan + (q & 1) * TN * B;
        nd_bar_sync(1 + (q & 1), (q < 2 || !carry) ? NT : 32 * nd_gjb_la_active<TN, RT>(q - 2, np) + 32);
        /* panel q as of update q - 2 (posted by its owners), brought up to date with panel q - 1 */
        T pn[RP][B];
#pragma unroll
        for (int r = 0; r < RP; r++) nd_ld(pn[r], pan + (lane + 32 * r) * B);
        if (q > 0) {
#pragma unroll
          for (int r = 0; r < RP; r++)
            if ((pivm >> r) & 1u) {
#pragma unroll
              for (int j = 0; j < B; j++) pn[r][j] = nd_zero<T>();
            }
          /* W_{q-1} is still in its buffer: W_{q+1} overwrites it only after this panel */
          const T *wprev = s_wt + ((q - 1) & 1) * B * TN;
#pragma unroll
          for (int t = 0; t < B; t++) {
            T c[B];
            nd_ld(c, pan + piv[t] * B);
#pragma unroll
            for (int r = 0; r < RP; r++) {
              const T a = wprev[t * TN + lane + 32 * r];
#pragma unroll
              for (int j = 0; j < B; j++) pn[r][j] = pn[r][j] + a * c[j];
            }
          }
        }
        nd_gjb_factor<T, TN, B>(pn, ps, piv, pivm, q * B, n, detmode, lane, s_wt + (q & 1) * B * TN, s_perm,
                                s_step + (q & 1) * TN);
        if (!carry) {
          nd_bar_arrive(3 + (q & 1), NT);
        } else {
          const int nu = 32 * nd_gjb_la_active<TN, RT>(q, np);
          if (nu > 0) nd_bar_arrive(3 + (q & 1), nu + 32);
          /* b's rows <- the panel's transform, as the update threads' columns:
           * b[r] = (r a pivot row ? 0 : b[r]) + sum_t W[r][t] * b[p_t] */
          for (int c = 0; c < (int)p.nrhs; c++) {
            T bp[B], nb[RP];
#pragma unroll
            for (int t = 0; t < B; t++) bp[t] = s_b[c * TN + piv[t]];
#pragma unroll
            for (int r = 0; r < RP; r++) {
              T v = ((pivm >> r) & 1u) ? nd_zero<T>() : s_b[c * TN + lane + 32 * r];
#pragma unroll
              for (int t = 0; t < B; t++) v = v + pn[r][t] * bp[t];
              nb[r] = v;
            }
            __syncwarp();
#pragma unroll
            for (int r = 0; r < RP; r++) s_b[c * TN + lane + 32 * r] = nb[r];
            __syncwarp();
          }
        }
      }
      if (lane == 0) nd_gjb_results<T>(p, b, ps);
    }
    __syncthreads();
    if (carry) { /* x[k] = b[p_k] */
      T *X = (T *)p.x.data + b * p.x.bs;
      for (int64_t e = tid; e < (int64_t)n * p.nrhs; e += NT) {
        const int c = (int)(e / n), k = (int)(e - (int64_t)c * n);
        X[k * p.x.rs + c * p.x.cs] = s_b[c * TN + s_perm[k]];
      }
    } else if constexpr (SOLVE) {
      nd_stage_solve<T>(p, b, s_stage, TN, tid, NT); /* x = inverse @ b */
    } else if (p.mode == ND_LK_INV) {
      nd_gjb_store<T, TN>(p, b, s_stage, tid, NT);
    }
    if (carry) __syncthreads(); /* s_b and s_perm read before the panel warp's next matrix */
  }
}

/* ---- kernel 3 (TN = 32): one warp per matrix, WPB independent warps per block ---------- */

/* RT x CT = 4 x 8 or 8 x 4: the warp's 32 lanes own the whole 32 x 32 tile grid, so the update
 * threads are the panel warp and every barrier is a __syncwarp. The panel, W and pivot-row
 * buffers live inside the warp's stage (idle until the end; a __syncwarp separates the last
 * reads of W from the scatter), which keeps float64 at 8.4 KiB of shared memory per matrix. */
template <typename T, int RT, int CT, int B>
constexpr size_t nd_gjw_smem_warp() {
  constexpr size_t st = (size_t)32 * 32, bufs = (size_t)3 * B * 32;
  return sizeof(T) * (st > bufs ? st : bufs) + 2 * 32 * sizeof(int);
}

template <typename T, int RT, int CT, int B, int WPB, int MINB, bool SOLVE>
__global__ void __launch_bounds__(32 * WPB, MINB) k_gjw(nd_lk_gj p) {
  constexpr int TN = 32, NC = TN / CT;
  static_assert((TN / RT) * NC == 32 && CT % B == 0 && B * sizeof(T) % 16 == 0, "one warp, whole panels");
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T *s_stage = (T *)(nd_smem + warp * nd_gjw_smem_warp<T, RT, CT, B>());
  T *s_pan = s_stage;
  T *s_wt = s_pan + TN * B;
  T *s_prow = s_wt + B * TN;
  int *s_perm = (int *)(s_stage + (TN * TN > 3 * B * TN ? TN * TN : 3 * B * TN));
  int *s_step = s_perm + TN;
  const int ry = lane / NC, cx = lane % NC;
  const int n = p.n;
  constexpr bool detmode = false; /* inverse and solve only (nd_lk_inv_warp_ok) */
  constexpr int UNR = sizeof(T) == 4 ? 2 : 1;

  for (int64_t b = (int64_t)blockIdx.x * WPB + warp; b < p.batch; b += (int64_t)gridDim.x * WPB) {
    s_step[lane] = -1;
    T w[RT][CT];
    nd_gjb_load<T, TN, RT, CT>(w, p, b, ry, cx);
    nd_gjb_piv<T> ps;
    nd_gjb_piv_init<T, TN>(ps, n, lane);
    nd_gjb_pass<T, TN, RT, CT, B, false, nd_bar_warp, UNR>(w, ps, n, detmode, true, lane, ry, cx, s_stage, s_pan,
                                                           s_wt, s_prow, s_perm, s_step);
    nd_gjb_stage<T, TN, RT, CT>(w, s_stage, s_perm, s_step, n, ry, cx);
    if (lane == 0) nd_gjb_results<T>(p, b, ps);
    __syncwarp();
    if constexpr (SOLVE) nd_stage_solve<T>(p, b, s_stage, TN, lane, 32); /* x = inverse @ b */
    else nd_gjb_store<T, TN>(p, b, s_stage, lane, 32);
    __syncwarp();
  }
}

/* The solve of k_gjw's orders with b carried through the elimination (nrhs <= ND_GJWS_NRHS, b in
 * registers: lane r holds row r), the inverse never formed: after each panel every lane applies
 * the panel's transform to its row of b (b[r] = (r a pivot row ? 0 : b[r]) + sum_t W[r][t] b[p_t],
 * the pivot rows' entries by shuffle), and x[k] = b[p_k] at the end. A lane's tile holds the
 * interleaved columns j * NC + cx (j < CT) instead of CT adjacent ones, so that the columns dead
 * after panel q (those < (q + 1) B: eliminated, no inverse kept) are the same registers j <
 * ((q + 1) B) / NC in every lane: the panels are unrolled and each update skips them (28 of 64
 * register columns of updates for the float32 tile 4 x 8). */
constexpr int ND_GJWS_NRHS = 4;

template <int V>
struct nd_int_c {
  static constexpr int value = V;
};
template <int Q, int NQ, typename F>
__device__ __forceinline__ void nd_static_for(F &&f) {
  if constexpr (Q < NQ) {
    f(nd_int_c<Q>{});
    nd_static_for<Q + 1, NQ>(f);
  }
}

template <typename T, int RT, int CT, int B, int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB) k_gjws(nd_lk_gj p) {
  constexpr int TN = 32, NC = TN / CT, NP = TN / B, NR = ND_GJWS_NRHS;
  static_assert((TN / RT) * NC == 32 && NC % B == 0 && B * sizeof(T) % 16 == 0, "one warp, a panel in one register");
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T *s_pan = (T *)(nd_smem + warp * nd_gjw_smem_warp<T, RT, CT, B>());
  T *s_wt = s_pan + TN * B;
  T *s_prow = s_wt + B * TN;
  int *s_perm = (int *)(s_pan + (TN * TN > 3 * B * TN ? TN * TN : 3 * B * TN));
  int *s_step = s_perm + TN;
  const int ry = lane / NC, cx = lane % NC;
  const int n = p.n, np = (n + B - 1) / B, nrhs = (int)p.nrhs;
  constexpr int UNR = sizeof(T) == 4 ? 2 : 1;

  for (int64_t b = (int64_t)blockIdx.x * WPB + warp; b < p.batch; b += (int64_t)gridDim.x * WPB) {
    s_step[lane] = -1;
    T w[RT][CT];
    const T *A = (const T *)p.a.data + b * p.a.bs;
#pragma unroll
    for (int i = 0; i < RT; i++)
#pragma unroll
      for (int j = 0; j < CT; j++) {
        const int row = RT * ry + i, col = j * NC + cx;
        w[i][j] = (row < n && col < n) ? A[row * p.a.rs + col * p.a.cs] : (row == col ? nd_one<T>() : nd_zero<T>());
      }
    T bv[NR];
    const T *Bm = (const T *)p.b.data + b * p.b.bs;
#pragma unroll
    for (int c = 0; c < NR; c++) bv[c] = (c < nrhs && lane < n) ? Bm[lane * p.b.rs + c * p.b.cs] : nd_zero<T>();
    nd_gjb_piv<T> ps;
    nd_gjb_piv_init<T, TN>(ps, n, lane);
    nd_static_for<0, NP>([&](auto qc) {
      constexpr int q = decltype(qc)::value, JP = q * B / NC, J0 = (q + 1) * B / NC;
      if (q < np) {
        const int t = cx - q * B % NC; /* this lane's column of the panel, if any */
        if ((unsigned)t < (unsigned)B) {
#pragma unroll
          for (int i = 0; i < RT; i++) s_pan[(RT * ry + i) * B + t] = w[i][JP];
        }
        __syncwarp();
        T pw[1][B];
        nd_ld(pw[0], s_pan + lane * B);
        int piv[B];
        unsigned pivm;
        nd_gjb_factor<T, TN, B>(pw, ps, piv, pivm, q * B, n, false, lane, s_wt, s_perm, s_step);
#pragma unroll
        for (int c = 0; c < NR; c++)
          if (c < nrhs) {
            T bp[B];
#pragma unroll
            for (int u = 0; u < B; u++) bp[u] = nd_shfl(bv[c], piv[u]);
            T v = (pivm & 1u) ? nd_zero<T>() : bv[c];
#pragma unroll
            for (int u = 0; u < B; u++) v = v + pw[0][u] * bp[u];
            bv[c] = v;
          }
        __syncwarp();
        if constexpr (J0 < CT) {
          int st[RT];
          nd_gjb_post<T, TN, RT, CT, B, J0>(w, st, s_step, s_prow, q * B, ry, cx);
          __syncwarp();
          nd_gjb_update<T, TN, RT, CT, B, UNR, J0>(w, st, s_wt, s_prow, ry, cx);
        }
        __syncwarp(); /* the buffers are the next panel's */
      }
    });
    if (lane == 0) nd_gjb_results<T>(p, b, ps);
    const int pk = lane < n ? s_perm[lane] : 0; /* x[k] = b[p_k], lane k */
    T *X = (T *)p.x.data + b * p.x.bs;
#pragma unroll
    for (int c = 0; c < NR; c++) {
      const T xv = nd_shfl(bv[c], pk);
      if (c < nrhs && lane < n) X[lane * p.x.rs + c * p.x.cs] = xv;
    }
    __syncwarp();
  }
}

/* ---- launchers ----------------------------------------------------------------------------- */

/* One block per matrix up to a cap (blocks loop over larger batches); the hardware block
 * scheduler then balances the tail better than a fixed grid-stride split. */
static int64_t nd_gjb_grid(int64_t batch) {
  const int64_t cap = (int64_t)nd_k_sm_count() * 32;
  return batch < cap ? batch : cap;
}

/* The dynamic shared memory (stage + buffers) exceeds 48 KiB for TN = 128: the kernel's limit is
 * raised once (nd_k_smem_once). */
/* Each kernel in two instances: SOLVE (x = inverse @ b from the stage) and the others' modes,
 * whose code is then the same as without a solve mode. */
template <typename T, int TN, int RT, int CT, int B, int MINB, bool STASH, bool SOLVE>
nd_status nd_gjb_launch_sync_as(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = nd_gjb_smem<T, TN, B, 1>();
  ND_TRY((nd_k_smem_once<k_gjb_sync<T, TN, RT, CT, B, MINB, STASH, SOLVE>>(smem, false)));
  nd_k_launch<k_gjb_sync<T, TN, RT, CT, B, MINB, STASH, SOLVE>>((unsigned)nd_gjb_grid(p->batch), (TN / RT) * (TN / CT),
                                                                smem, st, *p);
  return ND_K_LAUNCHED();
}
template <typename T, int TN, int RT, int CT, int B, int MINB, bool STASH>
nd_status nd_gjb_launch_sync(const nd_lk_gj *p, cudaStream_t st) {
  return p->mode == ND_LK_SOLVE ? nd_gjb_launch_sync_as<T, TN, RT, CT, B, MINB, STASH, true>(p, st)
                                : nd_gjb_launch_sync_as<T, TN, RT, CT, B, MINB, STASH, false>(p, st);
}

template <typename T, int TN, int RT, int MINB, bool SOLVE>
nd_status nd_gjb_launch_la_as(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = nd_gjb_smem<T, TN, RT, 2>() + TN * sizeof(int); /* the second step map */
  ND_TRY((nd_k_smem_once<k_gjb_la<T, TN, RT, MINB, SOLVE>>(smem, false)));
  nd_k_launch<k_gjb_la<T, TN, RT, MINB, SOLVE>>((unsigned)nd_gjb_grid(p->batch), (TN / RT) * (TN / RT) + 32, smem, st,
                                                *p);
  return ND_K_LAUNCHED();
}
template <typename T, int TN, int RT, int MINB>
nd_status nd_gjb_launch_la(const nd_lk_gj *p, cudaStream_t st) {
  return p->mode == ND_LK_SOLVE ? nd_gjb_launch_la_as<T, TN, RT, MINB, true>(p, st)
                                : nd_gjb_launch_la_as<T, TN, RT, MINB, false>(p, st);
}

template <typename T, int RT, int CT, int B, int WPB, int MINB, bool SOLVE>
nd_status nd_gjw_launch_as(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = WPB * nd_gjw_smem_warp<T, RT, CT, B>();
  ND_TRY((nd_k_smem_once<k_gjw<T, RT, CT, B, WPB, MINB, SOLVE>>(smem, false)));
  /* one matrix per warp: faster than a grid capped at 64 blocks per SM for large batches
   * (linalg/TUNING.md); the kernel's loop covers batches beyond the grid's limit */
  nd_k_launch<k_gjw<T, RT, CT, B, WPB, MINB, SOLVE>>(nd_k_grid_x((p->batch + WPB - 1) / WPB), 32 * WPB, smem, st, *p);
  return ND_K_LAUNCHED();
}
template <typename T, int RT, int CT, int B, int WPB, int MINB>
nd_status nd_gjws_launch(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = WPB * nd_gjw_smem_warp<T, RT, CT, B>();
  ND_TRY((nd_k_smem_once<k_gjws<T, RT, CT, B, WPB, MINB>>(smem, false)));
  nd_k_launch<k_gjws<T, RT, CT, B, WPB, MINB>>(nd_k_grid_x((p->batch + WPB - 1) / WPB), 32 * WPB, smem, st, *p);
  return ND_K_LAUNCHED();
}

/* The solve carries b (k_gjws) for up to ND_GJWS_NRHS right-hand sides unless p->plain asks for
 * the inverse's stage (a comparison only). */
template <typename T, int RT, int CT, int B, int WPB, int MINB>
nd_status nd_gjw_launch(const nd_lk_gj *p, cudaStream_t st) {
  if (p->mode == ND_LK_SOLVE && p->nrhs <= ND_GJWS_NRHS && !p->plain)
    return nd_gjws_launch<T, RT, CT, B, WPB, MINB>(p, st);
  return p->mode == ND_LK_SOLVE ? nd_gjw_launch_as<T, RT, CT, B, WPB, MINB, true>(p, st)
                                : nd_gjw_launch_as<T, RT, CT, B, WPB, MINB, false>(p, st);
}

}  // namespace

extern "C" int nd_lk_gj_medium_ok(int dtype, int n) {
  if (n <= 32) return 0;
  if (dtype == 13) return n <= 64;
  return (dtype == 10 || dtype == 11 || dtype == 12) && n <= 128;
}

extern "C" int nd_lk_inv_warp_ok(int dtype, int n) {
  return (dtype == 10 && n > 24 && n <= 32) || (dtype == 11 && n > 16 && n <= 32);
}

/* Instances, each the fastest of those measured for its dtype and size (linalg/TUNING.md):
 * float32 TN = 128 and float64 TN = 128 the lookahead kernel with 8 x 8 tiles; float32 TN = 64
 * the barrier kernel with 8 x 8 tiles; the other eight- and sixteen-byte instances the barrier
 * kernel with 8 x 4 tiles (512 threads) and panels of 4. TN = 32, inverse and solve
 * (nd_lk_inv_warp_ok): k_gjw, one warp per matrix; float32 with 4 x 8 tiles, one warp per block
 * and 28 blocks per SM (72 registers), float64 with 8 x 4 tiles and four warps per block.
 * The lookahead kernel beat its generic neighbour, the barrier kernel with 8 x 4 tiles at
 * TN = 128, by 1.43-1.79x on the H100 and the H200 (linalg/TUNING.md); that comparison's two
 * instances are no longer compiled. */
extern "C" nd_status nd_lk_gj_medium(const nd_lk_gj *p, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (p->batch == 0) return ND_OK;
  const bool warp = (p->mode == ND_LK_INV || p->mode == ND_LK_SOLVE) && nd_lk_inv_warp_ok(p->dtype, p->n);
  if (!warp && !nd_lk_gj_medium_ok(p->dtype, p->n))
    return nd__error(ND_ERR_INTERNAL, "nd_lk_gj_medium: unsupported n = %d, dtype %d, mode %d", p->n,
                     p->dtype, p->mode);
  if (warp)
    return p->dtype == 10 ? nd_gjw_launch<float, 4, 8, 4, 1, 28>(p, st) : nd_gjw_launch<double, 8, 4, 4, 4, 4>(p, st);
  const bool small = p->n <= 64;
  switch (p->dtype) {
    case 10:
      if (small) return nd_gjb_launch_sync<float, 64, 8, 8, 8, 8, false>(p, st);
      return nd_gjb_launch_la<float, 128, 8, 2>(p, st);
    case 11:
      if (small) return nd_gjb_launch_sync<double, 64, 4, 4, 4, 2, false>(p, st);
      return nd_gjb_launch_la<double, 128, 8, 1>(p, st);
    case 12:
      return small ? nd_gjb_launch_sync<nd_c64, 64, 4, 4, 4, 2, false>(p, st)
                   : nd_gjb_launch_sync<nd_c64, 128, 8, 4, 4, 1, true>(p, st);
    default: return nd_gjb_launch_sync<nd_c128, 64, 4, 4, 4, 1, false>(p, st);
  }
}
