/* The blocked Gauss-Jordan's panel machinery, shared by the block-per-matrix kernels
 * (gj_panels.cu) and the one-warp kernels (gj_warp.cu): the panel warp's factorisation, the
 * update threads' post, rank-B update and stage, and the pass that strings them together. The
 * algorithm, the geometry and the failure rules are described in gj_panels.cu. Device code in
 * an anonymous namespace: each including file gets its own instances. */
#ifndef ND_LINALG_GJ_PANEL_PASS_CUH
#define ND_LINALG_GJ_PANEL_PASS_CUH

#include <string.h>

#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

/* ---- small helpers ------------------------------------------------------------------- */

/* Pivot key over TN rows (see nd_pivot_key in scalar.cuh; here the low log2(TN) bits hold
 * TN - 1 - row). */
template <int TN, typename M>
__device__ __forceinline__ unsigned nd_bkey(M mag, int row) {
  const unsigned bits = __float_as_uint((float)mag) & 0x7fffffffu;
  return (bits & ~(unsigned)(TN - 1)) | (unsigned)(TN - 1 - row);
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

}  // namespace

#endif
