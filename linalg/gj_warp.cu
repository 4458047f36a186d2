/* The inverse and solve of float32 24 < n <= 32 and float64 16 < n <= 32 (nd_lk_inv_warp_ok)
 * with one warp per matrix at TN = 32: k_gjw (inverse; solve through its stage) and k_gjws
 * (solve with b carried), the blocked Gauss-Jordan of gj_panels.cu (algorithm there) run by
 * one warp on the panel machinery of gj_panel_pass.cuh. float64 takes these on devices without
 * float64 tensor cores, gj_tensor.cu's kernel otherwise. */
#include <type_traits>

#include "linalg/gj_panel_pass.cuh"
#include "linalg/stage_solve.cuh"

namespace {

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

/* Calls f(std::integral_constant<int, I>) for I = Q .. NQ - 1: a loop whose index is a
 * compile-time constant in each body. */
template <int Q, int NQ, typename F>
__device__ __forceinline__ void nd_static_for(F &&f) {
  if constexpr (Q < NQ) {
    f(std::integral_constant<int, Q>());
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

/* One matrix per warp, WPB warps per block: faster than a grid capped at 64 blocks per SM for
 * large batches (linalg/TUNING.md); the kernels' loop covers batches beyond the grid's limit. */
template <void (*K)(nd_lk_gj), typename T, int RT, int CT, int B, int WPB>
nd_status nd_gjw_run(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = WPB * nd_gjw_smem_warp<T, RT, CT, B>();
  ND_TRY((nd_k_smem_once<K>(smem, false)));
  nd_k_launch<K>(nd_k_grid_x((p->batch + WPB - 1) / WPB), 32 * WPB, smem, st, *p);
  return ND_K_LAUNCHED();
}

/* The solve carries b (k_gjws) for up to ND_GJWS_NRHS right-hand sides unless p->plain asks for
 * the inverse's stage (a comparison only). */
template <typename T, int RT, int CT, int B, int WPB, int MINB>
nd_status nd_gjw_launch(const nd_lk_gj *p, cudaStream_t st) {
  if (p->mode == ND_LK_SOLVE && p->nrhs <= ND_GJWS_NRHS && !p->plain)
    return nd_gjw_run<k_gjws<T, RT, CT, B, WPB, MINB>, T, RT, CT, B, WPB>(p, st);
  return p->mode == ND_LK_SOLVE ? nd_gjw_run<k_gjw<T, RT, CT, B, WPB, MINB, true>, T, RT, CT, B, WPB>(p, st)
                                : nd_gjw_run<k_gjw<T, RT, CT, B, WPB, MINB, false>, T, RT, CT, B, WPB>(p, st);
}

}  // namespace

extern "C" int nd_lk_inv_warp_ok(int dtype, int n) {
  return (dtype == 10 && n > 24 && n <= 32) || (dtype == 11 && n > 16 && n <= 32);
}

/* Instances (linalg/TUNING.md): float32 with 4 x 8 tiles, one warp per block and 28 blocks per
 * SM (72 registers); float64 with 8 x 4 tiles and four warps per block. */
extern "C" nd_status nd_lk_gj_warp(const nd_lk_gj *p, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (p->batch == 0) return ND_OK;
  if ((p->mode != ND_LK_INV && p->mode != ND_LK_SOLVE) || !nd_lk_inv_warp_ok(p->dtype, p->n))
    return nd__error(ND_ERR_INTERNAL, "nd_lk_gj_warp: unsupported n = %d, dtype %d, mode %d", p->n, p->dtype,
                     p->mode);
  return p->dtype == 10 ? nd_gjw_launch<float, 4, 8, 4, 1, 28>(p, st) : nd_gjw_launch<double, 8, 4, 4, 4, 4>(p, st);
}
