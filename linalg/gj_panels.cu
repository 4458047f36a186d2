/* Batched Gauss-Jordan for medium matrices (32 < n <= 128: inverse, solve, det, slogdet), and
 * the inverse and solve of float32 24 < n <= 32 and float64 16 < n <= 32 (nd_lk_inv_warp_ok)
 * with one warp per matrix at TN = 32 (gj_warp.cu's k_gjw and its solve form k_gjws; float64
 * on devices without float64 tensor cores, gj_tensor.cu's kernel otherwise), the panel
 * machinery of both in gj_panel_pass.cuh. The solve carries b through the elimination in
 * k_gjws and k_gjb_la (see each); the other kernels form x = inverse @ b from their stage
 * (stage_solve.cuh).
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
 *     gj_warp.cu's k_gjw (TN = 32, one warp per matrix) runs the same panel pass (nd_gjb_pass,
 *     gj_panel_pass.cuh) with warp barriers.
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
#include "linalg/gj_panel_pass.cuh"
#include "linalg/stage_solve.cuh"

namespace {

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

}  // namespace

extern "C" int nd_lk_gj_medium_ok(int dtype, int n) {
  if (n <= 32) return 0;
  if (dtype == 13) return n <= 64;
  return (dtype == 10 || dtype == 11 || dtype == 12) && n <= 128;
}

/* Instances, each the fastest of those measured for its dtype and size (linalg/TUNING.md):
 * float32 TN = 128 and float64 TN = 128 the lookahead kernel with 8 x 8 tiles; float32 TN = 64
 * the barrier kernel with 8 x 8 tiles; the other eight- and sixteen-byte instances the barrier
 * kernel with 8 x 4 tiles (512 threads) and panels of 4. TN = 32, inverse and solve
 * (nd_lk_inv_warp_ok): gj_warp.cu's one-warp kernels (nd_lk_gj_warp).
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
  if (warp) return nd_lk_gj_warp(p, stream);
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
