/* Batched inverse of float64 matrices of order 17..32 (padded to 32 with the identity): one warp
 * per matrix, the trailing updates on the float64 tensor cores (mma.sync m16n8k4 on sm_90, m8n8k4
 * on sm_80). In solve mode x = inverse @ b is formed from the staged inverse instead of storing
 * it (linalg/stage_solve.cuh).
 *
 * Why. The one-warp register-tile kernel (gj_warp.cu's k_gjw, a 4 x 8 or 8 x 4 tile per lane)
 * spends five to six instructions per useful multiply-add in float64: every rank-4 update reads
 * 12 operands per step from shared memory and issues 128 fused multiply-adds per lane, and its
 * profile (H100, 10000 matrices) shows the issue slots and the shared-memory pipe as the limits,
 * not the FLOPs or DRAM. Here the same rank-4 update is 8 DMMA instructions (16 before sm_90)
 * and 8 shared loads per lane: about 3460 instructions per matrix instead of 6200 (the timings
 * against k_gjw, and of float32 variants of this layout that were not kept, are in
 * linalg/TUNING.md).
 *
 * Layout. The matrix is a 4 x 4 grid of 8 x 8 blocks held as DMMA accumulators: lane l = 4 g + c
 * holds, in block (I, J), the elements (8 I + g, 8 J + 2 c + h), h = 0, 1 (acc[I][J][h]): rows
 * g, g + 8, g + 16, g + 24 and columns 2c, 2c + 1 of each 8-column block.
 *
 * Algorithm. In-place Gauss-Jordan with implicit row pivoting as in gj_group.cu (rows never
 * move; the pivot of step k is the unused row with the largest |a[r][k]|; result row r lands in
 * output row s_r, column k in output column p_k), blocked by panels of 4 columns, with pivot
 * rows left unscaled until the end (each output row is multiplied by its pivot's reciprocal
 * when staged). Per panel:
 *   1. the lanes holding the panel's columns post them to shared memory (32 x 4);
 *   2. the warp factors the panel, lane r owning row r: 4 steps of pivot search (one redux),
 *      pivot-row shuffle and elimination, giving the pivot rows p_t and the panel's final
 *      columns W (the in-place identity columns: W = M E_P for the panel's transform M);
 *   3. the lanes owning the pivot rows post those rows as of the panel's start (P = E_P^T A);
 *   4. every column takes the transform at once: M = I + (W - E_P) E_P^T, so
 *      A <- A + (W - E_P) P, eight m16n8k4 DMMAs (sixteen m8n8k4) with A fragments from W - E_P
 *      and B fragments from P; the panel's own columns are then overwritten with W.
 * W - E_P subtracts 1 at the pivot slots (p_t, t), whose values stay near 1 under partial
 * pivoting (1 + f f' + ... over the panel's later steps, every |f| <= 1), so the subtraction
 * is exact where they lie in [0.5, 2]; the rest is the rounding-order change of any blocked
 * elimination. The pivot search
 * compares the high words of |a[r][k]| (exponent and 15 mantissa bits, ties to the lowest row).
 *
 * Memory. Inputs go straight from global memory into the accumulators (16-byte loads of a
 * row's column pair when the matrix is dense and aligned). The grid gives each warp one matrix
 * (nd_gjt_launch); past the grid's limit a warp loops, and then the next matrix's loads are
 * issued as soon as the current one is staged, so they are in flight while its result is stored.
 * Each warp also asks L2 for the matrix of a warp that starts about a third of a matrix's time
 * later (ND_GJT_AHEAD, a fraction of the warps the device holds at once), so that only the first
 * wave waits for DRAM on its loads.
 * Results are scattered into a per-warp stage (rows 34 doubles apart) and leave with coalesced
 * 16-byte stores. The panel buffers share the stage's space (idle until the end).
 *
 * Failure. info is the first exactly-zero pivot's 1-based index; the run continues with
 * inf/NaN; every loop has a fixed trip count. Rows >= n are marked used and steps >= n pivot on
 * their own row, so s_r and p_k stay a permutation of the real block even for NaN input and no
 * write leaves the n x n slot. */
#include <string.h>

#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"
#include "linalg/stage_solve.cuh"

namespace {

constexpr int ND_GJT_WPB = 4; /* warps per block */

/* d += a * b and e += a' * b for the 8 x 8 blocks (I, J) and (I + 1, J): A fragments (row g, k c)
 * of blocks I and I + 1, B fragment (k c, column g), accumulators (row g, columns 2c, 2c + 1).
 * One m16n8k4 on sm_90 (bit for bit the same results as two m8n8k4, and faster:
 * linalg/TUNING.md), two m8n8k4 before it. */
__device__ __forceinline__ void nd_dmma2(double (&d)[2], double (&e)[2], double a, double a1, double b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(e[0]), "+d"(e[1])
               : "d"(a), "d"(a1), "d"(b));
#else
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(e[0]), "+d"(e[1])
               : "d"(a1), "d"(b));
#endif
}

/* 1 / x: the hardware estimate and two Newton steps (within an ulp, no call) for the usual
 * range; zero, tiny, huge and non-finite pivots (the same on every lane, so the branch is
 * uniform) take the division instead. The estimate does not wait for the range test (faster
 * than testing first: linalg/TUNING.md). */
__device__ __forceinline__ double nd_gjt_recip(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  r = fma(r, fma(-x, r, 1.0), r);
  r = fma(r, fma(-x, r, 1.0), r);
  const unsigned e = ((unsigned)__double2hiint(x) >> 20) & 0x7ffu; /* biased exponent */
  if (e - 24u > 2000u) r = 1.0 / x;                              /* outside 2^-999 .. 2^977 */
  return r;
}

/* Pivot key of |x| on row `row` (0..31): the high word of |x| (monotone in |x|: exponent and
 * the top 20 bits of the mantissa) with its low 5 bits replaced by 31 - row, so that the largest
 * key is the largest magnitude (to 2^-15 relative) and ties go to the lowest row. */
__device__ __forceinline__ unsigned nd_gjt_key(double x, int row) {
  return (((unsigned)__double2hiint(x) & 0x7fffffe0u) | (unsigned)(31 - row));
}

/* Per-warp shared memory, in bytes: the stage (32 rows, 16-byte aligned pitch) whose space the
 * panel buffers share, then the row scales and p_k, s_r. */
struct nd_gjt_smem {
  static constexpr int PITCH = 34; /* doubles */
  static constexpr int STAGE = 32 * PITCH * 8;
  static constexpr int FP = 36; /* fragment rows: lanes (g, c) reading (c, g + 8 I) hit distinct banks */
  static constexpr int BUFS = (4 * 32 + 2 * 4 * FP) * 8;
  static constexpr int AREA = STAGE > BUFS ? STAGE : BUFS;
  static constexpr int RS = AREA;            /* 32 doubles */
  static constexpr int PERM = RS + 32 * 8;   /* 32 ints */
  static constexpr int STEP = PERM + 32 * 4; /* 32 ints */
  static constexpr int BYTES = STEP + 32 * 4;
};

/* Element pair (row, col), (row, col + 1) of matrix A, padded with the identity. */
__device__ __forceinline__ void nd_gjt_load_pair(double (&v)[2], const nd_lk_gj &p, const double *A, int row, int col,
                                                 bool vec) {
  if (vec) {
    const double2 u = __ldg((const double2 *)(A + row * 32 + col));
    v[0] = u.x;
    v[1] = u.y;
    return;
  }
  const int n = p.n;
#pragma unroll
  for (int h = 0; h < 2; h++)
    v[h] = (row < n && col + h < n) ? A[row * p.a.rs + (col + h) * p.a.cs] : (row == col + h ? 1.0 : 0.0);
}

template <int MINB, bool SOLVE>
__global__ void __launch_bounds__(32 * ND_GJT_WPB, MINB) k_gjt(nd_lk_gj p, int64_t ahead) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  typedef nd_gjt_smem S;
  constexpr int FP = S::FP;
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, c = lane & 3;
  unsigned char *base = nd_smem + warp * S::BYTES;
  double *s_stage = (double *)base;
  double *s_pan = (double *)base; /* [32][4]: the panel, then W */
  double *s_wt = s_pan + 128;     /* [4][FP]: W - E_P, transposed */
  double *s_prow = s_wt + 4 * FP; /* [4][FP]: the pivot rows */
  double *s_rs = (double *)(base + S::RS);
  int *s_perm = (int *)(base + S::PERM);
  int *s_step = (int *)(base + S::STEP);
  const int n = p.n;
  const double *A0 = (const double *)p.a.data;
  double *X0 = (double *)p.x.data;
  const bool vec = n == 32 && p.a.cs == 1 && p.a.rs == 32 && p.a.bs % 2 == 0 && ((uintptr_t)A0 & 15) == 0;

  const int64_t stride = (int64_t)gridDim.x * ND_GJT_WPB;
  /* the accumulators hold the next matrix as soon as the current one is staged: its loads are in
   * flight while the current one's result is stored */
  double acc[4][4][2];
  auto load = [&](int64_t bb) {
#pragma unroll
    for (int I = 0; I < 4; I++)
#pragma unroll
      for (int J = 0; J < 4; J++) nd_gjt_load_pair(acc[I][J], p, A0 + bb * p.a.bs, 8 * I + g, 8 * J + 2 * c, vec);
  };
  int64_t b = (int64_t)blockIdx.x * ND_GJT_WPB + warp;
  if (b < p.batch) load(b);
  for (; b < p.batch; b += stride) {
    if (vec && ahead > 0 && b + ahead < p.batch) { /* the matrix `ahead` places on, into L2 (nd_gjt_launch) */
      const double *q = A0 + (b + ahead) * p.a.bs;
      nd_prefetch_l2(q + 16 * lane);
      nd_prefetch_l2(q + 512 + 16 * lane);
    }
    s_step[lane] = -1; /* rows not yet pivots (read before they are) */
    bool used = lane >= n; /* lane r's row (in the panel steps) */
    double rs = 1.0;       /* 1 / its pivot, once it has been one */
    int fail = 0;

#pragma unroll
    for (int J0 = 0; J0 < 4; J0++) {
#pragma unroll 1
      for (int half = 0; half < 2; half++) {
        const int k0 = 8 * J0 + 4 * half;
        if (k0 >= n) break;
        const bool mine = (c >> 1) == half; /* this lane holds panel columns 2(c - 2 half) + h */
        /* 1. post the panel */
        if (mine) {
#pragma unroll
          for (int I = 0; I < 4; I++)
            *(double2 *)(s_pan + (8 * I + g) * 4 + 2 * (c - 2 * half)) = make_double2(acc[I][J0][0], acc[I][J0][1]);
        }
        __syncwarp();
        /* 2. factor it: lane r owns row r */
        double pw[4];
        {
          const double2 u0 = *(const double2 *)(s_pan + lane * 4), u1 = *(const double2 *)(s_pan + lane * 4 + 2);
          pw[0] = u0.x;
          pw[1] = u0.y;
          pw[2] = u1.x;
          pw[3] = u1.y;
        }
        int piv[4];
#pragma unroll
        for (int t = 0; t < 4; t++) {
          const int k = k0 + t;
          const unsigned key = nd_warp_max(used ? 0u : nd_gjt_key(pw[t], lane));
          const int prow = k >= n ? k : 31 - (int)(key & 31u);
          double pr[4];
#pragma unroll
          for (int j = 0; j < 4; j++) pr[j] = __shfl_sync(0xffffffffu, pw[j], prow);
          const double pk = pr[t];
          if (k < n && pk == 0.0 && fail == 0) fail = k + 1;
          const bool me = lane == prow;
          used = used || me;
          if (lane == 0) {
            s_perm[k] = prow;
            s_step[prow] = k;
          }
          piv[t] = prow;
          const double inv = nd_gjt_recip(pk);
          const double f = me ? 0.0 : pw[t] * inv;
#pragma unroll
          for (int j = 0; j < 4; j++)
            if (j != t) pw[j] = fma(-f, pr[j], pw[j]);
          pw[t] = me ? 1.0 : -f;
          rs = me ? inv : rs;
        }
        /* W for the panel's columns, W - E_P (transposed) for the update */
        *(double2 *)(s_pan + lane * 4) = make_double2(pw[0], pw[1]);
        *(double2 *)(s_pan + lane * 4 + 2) = make_double2(pw[2], pw[3]);
#pragma unroll
        for (int t = 0; t < 4; t++) s_wt[t * FP + lane] = piv[t] == lane ? pw[t] - 1.0 : pw[t];
        __syncwarp();
        /* 3. post the pivot rows as of the panel's start */
        {
          /* bit r of any: row r is one of the panel's pivots; of lo / hi: bits 0 / 1 of its step
           * (no branches: a chain of compares per row was slower, linalg/TUNING.md) */
          const unsigned b1 = 1u << piv[1], b2 = 1u << piv[2], b3 = 1u << piv[3];
          const unsigned any = (1u << piv[0]) | b1 | b2 | b3, lo = b1 | b3, hi = b2 | b3;
#pragma unroll
          for (int I = 0; I < 4; I++) {
            const unsigned m = 1u << (8 * I + g);
            const int t = ((lo & m) ? 1 : 0) + ((hi & m) ? 2 : 0);
            if (any & m) {
#pragma unroll
              for (int J = 0; J < 4; J++)
                *(double2 *)(s_prow + t * FP + 8 * J + 2 * c) = make_double2(acc[I][J][0], acc[I][J][1]);
            }
          }
        }
        __syncwarp();
        /* 4. A <- A + (W - E_P) P; the panel's columns <- W */
        double fa[4], fb[4];
#pragma unroll
        for (int I = 0; I < 4; I++) fa[I] = s_wt[c * FP + 8 * I + g];
#pragma unroll
        for (int J = 0; J < 4; J++) fb[J] = s_prow[c * FP + 8 * J + g];
#pragma unroll
        for (int I = 0; I < 4; I += 2)
#pragma unroll
          for (int J = 0; J < 4; J++) nd_dmma2(acc[I][J], acc[I + 1][J], fa[I], fa[I + 1], fb[J]);
        if (mine) {
#pragma unroll
          for (int I = 0; I < 4; I++) {
            const double2 u = *(const double2 *)(s_pan + (8 * I + g) * 4 + 2 * (c - 2 * half));
            acc[I][J0][0] = u.x;
            acc[I][J0][1] = u.y;
          }
        }
        __syncwarp();
      }
    }

    /* results: element (r, k) of the in-place form is (s_r, p_k) of the inverse, times 1 / the
     * pivot of row r */
    s_rs[lane] = rs;
    __syncwarp();
    if (p.info != NULL && lane == 0) p.info[b] = fail;
    if (fail && lane == 0 && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
    {
      int sr[4], pc[4][2];
      double sc[4];
#pragma unroll
      for (int I = 0; I < 4; I++) {
        sr[I] = s_step[8 * I + g];
        sc[I] = s_rs[8 * I + g];
      }
#pragma unroll
      for (int J = 0; J < 4; J++) {
        const int2 u = *(const int2 *)(s_perm + 8 * J + 2 * c);
        pc[J][0] = u.x;
        pc[J][1] = u.y;
      }
#pragma unroll
      for (int I = 0; I < 4; I++)
#pragma unroll
        for (int J = 0; J < 4; J++)
#pragma unroll
          for (int h = 0; h < 2; h++)
            if (8 * I + g < n && 8 * J + 2 * c + h < n) s_stage[sr[I] * S::PITCH + pc[J][h]] = acc[I][J][h] * sc[I];
    }
    __syncwarp();
    if (b + stride < p.batch) load(b + stride);
    double *X = X0 + b * p.x.bs;
    constexpr int V = 2; /* doubles per 16 bytes */
    if constexpr (SOLVE) {
      nd_stage_solve<double>(p, b, s_stage, S::PITCH, lane, 32); /* x = inverse @ b */
    } else if (n == 32 && p.x.cs == 1 && p.x.rs == 32 && ((uintptr_t)X & 15) == 0) {
#pragma unroll
      for (int e = lane; e < 32 * 32 / V; e += 32) {
        const int i = e / (32 / V), v = e % (32 / V);
        ((uint4 *)X)[e] = *(const uint4 *)(s_stage + i * S::PITCH + v * V);
      }
    } else {
      for (int e = lane; e < n * n; e += 32) {
        const int i = e / n, j = e - i * n;
        X[i * p.x.rs + j * p.x.cs] = s_stage[i * S::PITCH + j];
      }
    }
    __syncwarp(); /* the stage and buffers are reused by the next matrix */
  }
#else
  __trap(); /* not launched below sm_80 (nd_lk_inv_tc_ok) */
#endif
}

/* 16 warps per multiprocessor (120 registers; 20 spill). One matrix per warp, the hardware
 * handing each freed block slot the next block: faster than a resident grid whose warps loop
 * over the batch (its warps finish unevenly, and the last of them run nearly alone;
 * linalg/TUNING.md). The loop and its early load remain for batches beyond the grid's limit. */
constexpr int ND_GJT_MINB = 4;

/* Prefetch distance, from the device's properties only: each warp asks L2 for the matrix
 * resident / ND_GJT_AHEAD places ahead of its own, `resident` being the warps the device holds
 * at once (multiprocessors x the blocks of this kernel one of them holds, as the occupancy
 * calculator gives them for this device, x warps per block). Blocks start in index
 * order as earlier ones finish, so that matrix belongs to a warp starting a fraction of a
 * matrix's time later, and its loads hit L2 (a whole wave ahead, the lines are evicted before
 * use). A third of the resident warps measured best of the fractions tried (linalg/TUNING.md).
 * p->plain (a comparison only) turns the prefetch off. */
constexpr int ND_GJT_AHEAD = 3;

/* Two instances: SOLVE (x = inverse @ b from the stage) and the inverse, whose code is then the
 * same as without a solve mode. */
template <int MINB, bool SOLVE>
nd_status nd_gjt_launch(const nd_lk_gj *p, cudaStream_t st) {
  const size_t smem = (size_t)ND_GJT_WPB * nd_gjt_smem::BYTES;
  ND_TRY((nd_k_smem_once<k_gjt<MINB, SOLVE>>(smem, true)));
  int per_sm = 0;
  ND_TRY((nd_k_occupancy_once<k_gjt<MINB, SOLVE>>(32 * ND_GJT_WPB, smem, &per_sm)));
  if (per_sm < 1) per_sm = 1;
  const int resident = nd_k_sm_count() * per_sm * ND_GJT_WPB;
  const int64_t ahead = p->plain ? 0 : resident / ND_GJT_AHEAD;
  nd_k_launch<k_gjt<MINB, SOLVE>>(nd_k_grid_x((p->batch + ND_GJT_WPB - 1) / ND_GJT_WPB), 32 * ND_GJT_WPB, smem, st,
                                  *p, ahead);
  return ND_K_LAUNCHED();
}

}  // namespace

extern "C" int nd_lk_inv_tc_ok(int dtype, int n) {
  if (dtype != 11 || n <= 16 || n > 32) return 0;
  return nd_k_cc_major() >= 8;
}

extern "C" nd_status nd_lk_inv_tc(const nd_lk_gj *p, void *stream) {
  if (p->batch == 0) return ND_OK;
  if ((p->mode != ND_LK_INV && p->mode != ND_LK_SOLVE) || !nd_lk_inv_tc_ok(p->dtype, p->n))
    return nd__error(ND_ERR_INTERNAL, "nd_lk_inv_tc: mode %d, dtype %d, n = %d not handled", p->mode, p->dtype, p->n);
  if (p->mode == ND_LK_SOLVE) return nd_gjt_launch<ND_GJT_MINB, true>(p, (cudaStream_t)stream);
  return nd_gjt_launch<ND_GJT_MINB, false>(p, (cudaStream_t)stream);
}
