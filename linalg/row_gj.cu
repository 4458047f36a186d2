/* Batched inverse of float32 matrices of order 25..32 (padded to 32 with the identity): one warp
 * per matrix, unblocked Gauss-Jordan on rows held in registers.
 *
 * Layout. Lanes l and l ^ 16 share the rows r = l & 15 and r + 16; lane l holds their columns
 * 16 h .. 16 h + 15, h = l >> 4 (w[i][c]: row r + 16 i). Every step rotates each half row by one
 * register (w[i][c] <- the updated w[i][c + 1]), so the column of step k is always w[i][0] of the
 * half that holds it (the current half: columns 0..15 for steps 0..15, 16..31 after), the step
 * loop stays rolled (no register index depends on k), and after n steps register c of half H
 * holds column 16 H + ((c + n) & 15).
 *
 * Step k, with implicit row pivoting as in small_gj.cu (rows never move; the pivot is the unused
 * row with the largest |a[r][k]|, ties to the lowest row, compared on the float's bits with the
 * low 5 replaced by 31 - r, so magnitudes within 2^-18 of each other count as ties; result row r
 * lands in output row s_r, column k in output column p_k):
 *   1. one redux.max over the current half's keys picks the pivot row;
 *   2. the two lanes holding it store its halves, unscaled, into a double-buffered row in shared
 *      memory; every lane reads back the half it needs, and the pivot;
 *   3. the current half's lanes take the multipliers f = a[r][k] / pivot and one shuffle hands
 *      them to the other half; every row but the pivot's subtracts f times the pivot row, and the
 *      column of step k becomes -f (the pivot row's entry 1), as in small_gj.cu;
 *   4. rows are scaled by their pivot's reciprocal once, when they are staged.
 * The reciprocal is the hardware estimate and one Newton step. A matrix any of whose pivots has
 * its reciprocal outside 2^-124..2^124 in magnitude (zero, inf and NaN pivots included) is
 * redone from its input with IEEE divisions; that run also sets info (the first exactly-zero
 * pivot's 1-based index). So the common case has no zero or range test in its steps.
 *
 * Why. Fewer instructions per matrix than medium_gj.cu's one-warp kernel (k_gjw, 4 x 8 register
 * tiles): about 3000 against 4155, both latency-bound at their occupancy (28 warps per SM here,
 * 72 registers). The timings, and the variants measured and not kept, are in linalg/TUNING.md.
 *
 * Memory. Dense aligned input (rows of 32, 16-byte aligned) is read with 16-byte loads straight
 * into the rows; other layouts element by element with their strides. Results are scattered into
 * a per-warp stage (row s_r, column p_k; rows 33 floats apart) and leave with coalesced 16-byte
 * stores when the output is dense and aligned. In batches of 1.5 waves or more the first wave's
 * warps start one after another over 7 us (ND_ROW_STAGGER_NS). */
#include <string.h>

#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

constexpr int ND_ROW_MINB = 28; /* blocks of one warp per SM: 72 registers */

/* Staggered start, as warp_gj.cu's (ND_GJT_STAGGER_NS): the first wave's warps (one per block
 * slot) wait stagger * b / resident before their loads, in batches of 1.5 waves or more; 7 us
 * measured best on the H100 (linalg/TUNING.md; not yet measured on the H200). */
constexpr int ND_ROW_STAGGER_NS = 7000;

/* Per-warp shared memory: two pivot-row buffers, the stage, the rotated p_k. */
struct nd_row_smem {
  static constexpr int PITCH = 33;                        /* floats */
  static constexpr int STAGE = 64 * 4;                    /* bytes */
  static constexpr int PROT = STAGE + 32 * PITCH * 4;     /* 32 ints */
  static constexpr int BYTES = (PROT + 32 * 4 + 15) / 16 * 16;
};

__device__ __forceinline__ float nd_row_rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return fmaf(r, fmaf(-x, r, 1.f), r);
}

/* The pivot's reciprocal of the fast run is trusted within this range. */
__device__ __forceinline__ bool nd_row_rcp_ok(float r) {
  const float a = fabsf(r);
  return a >= 0x1p-124f && a <= 0x1p124f;
}

/* Per-lane state of its two rows. */
struct nd_row_state {
  unsigned M[2]; /* all ones while the row may still be chosen in the current phase, else 0 */
  float rs[2];   /* 1 / its pivot, once it has been one */
  int ms[2];     /* the step at which it was the pivot; -1 before; padding rows: their index */
  int fail;      /* exact run: the first zero pivot's 1-based index */
};

/* One elimination step k. cur: this lane's half holds column k; src: the lane of the current
 * half with this lane's rows; bh: this half's part of the pivot-row buffer; pkp: the pivot's
 * place in it. */
template <bool EXACT>
__device__ __forceinline__ void nd_row_step(float (&w)[2][16], nd_row_state &s, const unsigned (&rb)[2], int k,
                                            bool cur, int src, float *bh, const float *pkp) {
  unsigned key = 0;
#pragma unroll
  for (int i = 0; i < 2; i++) {
    const unsigned kq = ((__float_as_uint(w[i][0]) & 0x7fffffe0u) | rb[i]) & s.M[i];
    key = kq > key ? kq : key;
  }
  /* a key of 0 only when no row but row 31 can be chosen: rb 0 is row 31 */
  const unsigned kk = nd_warp_max(key) & 31u;
  bool me[2];
#pragma unroll
  for (int i = 0; i < 2; i++) {
    me[i] = kk == rb[i];
    uint4 v[4];
    memcpy(v, w[i], sizeof v);
#pragma unroll
    for (int q = 0; q < 4; q++) nd_sts_if((uint4 *)bh + q, v[q], me[i]);
  }
  __syncwarp();
  float pr[16];
#pragma unroll
  for (int q = 0; q < 4; q++) {
    const uint4 u = ((const uint4 *)bh)[q];
    memcpy(&pr[4 * q], &u, 16);
  }
  const float pk = *pkp;
  float inv;
  if (EXACT) {
    inv = 1.f / pk;
    s.fail = (s.fail == 0 && pk == 0.f) ? k + 1 : s.fail;
  } else {
    inv = nd_row_rcp(pk);
  }
  /* the new last register: the current half's column k becomes -f (the pivot row's 1); the
   * other half's entry is updated like the rest */
  const float X = cur ? 1.f : pr[0];
#pragma unroll
  for (int i = 0; i < 2; i++) {
    const float f = __shfl_sync(0xffffffffu, me[i] ? 0.f : w[i][0] * inv, src);
    const float w0 = w[i][0];
#pragma unroll
    for (int c = 0; c < 15; c++) w[i][c] = fmaf(-f, pr[c + 1], w[i][c + 1]);
    w[i][15] = fmaf(-f, X, cur ? (me[i] ? 1.f : 0.f) : w0);
    s.rs[i] = me[i] ? inv : s.rs[i];
    s.ms[i] = me[i] ? k : s.ms[i];
    s.M[i] = me[i] ? 0u : s.M[i];
  }
}

/* The n steps: the phase of the first half's columns, then the second's. Buffers alternate by
 * the step's parity (both phases start at an even step). */
template <bool EXACT>
__device__ __forceinline__ void nd_row_run(float (&w)[2][16], nd_row_state &s, const unsigned (&rb)[2], int n, int h,
                                           int r0, float *pb) {
#pragma unroll 1
  for (int ph = 0; ph < 2; ph++) {
    const bool cur = h == ph;
#pragma unroll
    for (int i = 0; i < 2; i++) s.M[i] = (cur && s.ms[i] < 0) ? 0xffffffffu : 0u;
    const int k1 = n < 16 * ph + 16 ? n : 16 * ph + 16;
    int off = 0;
#pragma unroll 1
    for (int k = 16 * ph; k < k1; k++) {
      nd_row_step<EXACT>(w, s, rb, k, cur, r0 + 16 * ph, pb + 16 * h + off, pb + 16 * ph + off);
      off ^= 32;
    }
  }
}

/* Rows r0 and r0 + 16, columns 16 h .. 16 h + 15 of matrix b, padded with the identity. */
__device__ __forceinline__ void nd_row_load(float (&w)[2][16], nd_row_state &s, const nd_lk_gj &p, int64_t b, int h,
                                            int r0, bool vec) {
  const int n = p.n;
  const float *A = (const float *)p.a.data + b * p.a.bs;
  if (vec) {
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const uint4 u = __ldg((const uint4 *)(A + (r0 + 16 * i) * 32 + 16 * h) + q);
        memcpy(&w[i][4 * q], &u, 16);
      }
  } else {
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
      for (int c = 0; c < 16; c++) {
        const int row = r0 + 16 * i, col = 16 * h + c;
        w[i][c] = (row < n && col < n) ? A[row * p.a.rs + col * p.a.cs] : (row == col ? 1.f : 0.f);
      }
  }
#pragma unroll
  for (int i = 0; i < 2; i++) {
    s.rs[i] = 1.f;
    s.ms[i] = r0 + 16 * i < n ? -1 : r0 + 16 * i;
    s.M[i] = 0;
  }
  s.fail = 0;
}

__global__ void __launch_bounds__(32, ND_ROW_MINB) k_inv_rows(nd_lk_gj p, int resident, int stagger_ns) {
  typedef nd_row_smem S;
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int lane = threadIdx.x & 31;
  const int h = lane >> 4, r0 = lane & 15;
  float *pb = (float *)nd_smem;
  float *stage = (float *)(nd_smem + S::STAGE);
  int *prot = (int *)(nd_smem + S::PROT);
  const int n = p.n;
  const float *A0 = (const float *)p.a.data;
  float *X0 = (float *)p.x.data;
  const bool vec = n == 32 && p.a.cs == 1 && p.a.rs == 32 && p.a.bs % 4 == 0 && ((uintptr_t)A0 & 15) == 0;
  const unsigned rb[2] = {31u - (unsigned)r0, 15u - (unsigned)r0};
  nd_stagger_start(blockIdx.x, resident, stagger_ns); /* the first wave only (ND_ROW_STAGGER_NS) */
  for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
    float w[2][16];
    nd_row_state s;
    nd_row_load(w, s, p, b, h, r0, vec);
    nd_row_run<false>(w, s, rb, n, h, r0, pb);
    bool bad = false;
#pragma unroll
    for (int i = 0; i < 2; i++) bad = bad || (r0 + 16 * i < n && !nd_row_rcp_ok(s.rs[i]));
    if (__any_sync(0xffffffffu, bad)) {
      __syncwarp(); /* the last step's reads of a buffer before the redo's first write to it */
      nd_row_load(w, s, p, b, h, r0, vec);
      nd_row_run<true>(w, s, rb, n, h, r0, pb);
    }
    /* p_k in rotated order: prot[16 H + c] is p_k of the column in register c of half H */
    if (h == 0) {
#pragma unroll
      for (int i = 0; i < 2; i++)
        if (r0 + 16 * i < n) prot[16 * (s.ms[i] >> 4) + ((s.ms[i] - n) & 15)] = r0 + 16 * i;
    }
    if (p.info != NULL && lane == 0) p.info[b] = s.fail;
    if (s.fail && lane == 0 && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
    __syncwarp();
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const int4 u = ((const int4 *)(prot + 16 * h))[q];
      const int pc[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
      for (int t = 0; t < 4; t++) {
        const int col = 16 * h + ((4 * q + t + n) & 15);
#pragma unroll
        for (int i = 0; i < 2; i++)
          if (r0 + 16 * i < n && col < n) stage[s.ms[i] * S::PITCH + pc[t]] = w[i][4 * q + t] * s.rs[i];
      }
    }
    __syncwarp();
    float *X = X0 + b * p.x.bs;
    if (n == 32 && p.x.cs == 1 && p.x.rs == 32 && ((uintptr_t)X & 15) == 0) {
      /* lane e % 8 of row e / 8: banks (row + 4 (e % 8) + t) % 32, distinct across the warp */
#pragma unroll
      for (int j = 0; j < 8; j++) {
        const int e = lane + 32 * j, row = e >> 3, cv = e & 7;
        const float *src = stage + row * S::PITCH + 4 * cv;
        ((float4 *)X)[e] = make_float4(src[0], src[1], src[2], src[3]);
      }
    } else {
      for (int e = lane; e < n * n; e += 32) {
        const int i = e / n, j = e - i * n;
        X[i * p.x.rs + j * p.x.cs] = stage[i * S::PITCH + j];
      }
    }
    __syncwarp(); /* the stage and buffers are reused by the next matrix */
  }
}

}  // namespace

extern "C" int nd_lk_inv_rows_ok(int dtype, int n) { return dtype == 10 && n > 24 && n <= 32; }

extern "C" nd_status nd_lk_inv_rows(const nd_lk_gj *p, void *stream) {
  if (p->batch == 0) return ND_OK;
  if (p->mode != ND_LK_INV || !nd_lk_inv_rows_ok(p->dtype, p->n))
    return nd__error(ND_ERR_INTERNAL, "nd_lk_inv_rows: mode %d, dtype %d, n = %d not handled", p->mode, p->dtype,
                     p->n);
  const size_t smem = nd_row_smem::BYTES;
  ND_TRY((nd_k_smem_once<k_inv_rows>(smem, true)));
  const int resident = nd_k_sm_count() * ND_ROW_MINB;
  const int stagger = nd_stagger_for(p->batch, resident, ND_ROW_STAGGER_NS);
  nd_k_launch<k_inv_rows>(nd_k_grid_x(p->batch), 32, smem, (cudaStream_t)stream, *p, resident, stagger);
  return ND_K_LAUNCHED();
}
