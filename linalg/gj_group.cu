/* Fused batched Gauss-Jordan for small matrices (n <= 32): inverse, solve, det, slogdet.
 *
 * Geometry. A group of G = NM / RPT threads owns one matrix (NM >= n: 4, 8, 16, 24 or 32; RPT
 * rows per thread, G a power of two); thread r of the group keeps rows r, r + G, ...,
 * r + (RPT - 1) G of the working matrix in registers (RPT x NM values, every loop unrolled so the
 * indices are compile-time). 32 / G matrices share a warp, 4 warps make a block, and warps loop
 * over the batch (grid-stride, in stretches of 32 / G matrices). Several rows per thread
 * amortise the per-step costs that do not scale with the row count (the pivot search, the
 * reciprocal, the reads of the broadcast pivot row) over RPT times more multiply-adds, and give
 * the scheduler RPT independent rows. The store of the pivot row does not amortise: its owner
 * may hold it in any of its RPT slots, so each slot's store is issued, predicated.
 *
 * Convergence. Every branch around the shuffles and ballots is warp-uniform, the per-step
 * bookkeeping is selects and predicated stores (PTX, see nd_sts_if in scalar.cuh), not branches, so the
 * compiler emits the shuffles without divergence checks (no BRA.DIV / WARPSYNC in the SASS).
 *
 * Memory. Each warp stages its matrices through shared memory: the input of 32 / G matrices is
 * one contiguous stretch when the batch is C- or F-contiguous, read in order by the whole warp
 * (16-byte loads when rows are whole vectors, several in flight per lane) into rows of odd pitch
 * P, with the matrices MP apart where MP = G P (mod 32): the 32 lanes then read their rows (or
 * for F order their columns) from 32 distinct banks. Inverses go back through the same stage,
 * transposed (column c of the result at stage row c), which keeps the scattered result stores
 * of a group in distinct banks and the coalesced read-out conflict-free. Other layouts are read
 * and written element by element with their strides. Where the grid loops over the batch, each
 * warp asks L2 for its next stretch while it computes, so that the next load does not wait on
 * DRAM.
 *
 * Algorithm. In-place Gauss-Jordan with implicit row pivoting: at step k the group picks the
 * unused row with the largest |a[r][k]| (a butterfly max over 32-bit keys, see nd_pivot_key,
 * after a max over the thread's own rows), the owner of that row stores it and its reciprocal
 * pivot (every thread computes the reciprocal of its own best candidate, so only the owner's
 * result is used and nobody waits for the pivot to compute it) into shared memory
 * (double-buffered, one __syncwarp per step), and every other row eliminates column k. Column
 * k then holds column p_k of the inverse's row-permuted form; the result row r lands in output
 * row s_r (the step at which r was the pivot) and its entry k in output column p_k, so no row is
 * ever moved. Solve multiplies the inverse rows with b in
 * the same kernel. Det and slogdet (a separate instance) take the product of the pivots' phases,
 * the sum of the logs of their magnitudes (det is sign * exp(logdet), as NumPy's) and the
 * permutation's sign from a ballot of the unused rows above each pivot; they update the used
 * rows too (the values are never read again), which keeps the step free of branches. The steps
 * stop at k = n: the identity padding would pick its own rows and change nothing.
 *
 * Failure. A pivot that is exactly zero (the whole remaining column is zero) sets info to its
 * 1-based index and the run continues with inf/NaN; every loop has a fixed trip count, so NaN
 * or inf input finishes like any other. */
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

constexpr int ND_GJ_WPB = 4; /* warps per block */


template <typename T>
struct nd_gj_is_cplx {
  static constexpr bool value = false;
};
template <typename R>
struct nd_gj_is_cplx<nd_cplx<R>> {
  static constexpr bool value = true;
};

/* The 16-byte vector type for V > 1 elements, T itself for V = 1. */
template <typename T, int V>
struct nd_gj_vt {
  typedef uint4 type;
};
template <typename T>
struct nd_gj_vt<T, 1> {
  typedef T type;
};

/* Elements of T in 16 bytes (1 for complex128). */
template <typename T>
__host__ __device__ constexpr int nd_gj_vec() {
  return 16 / (int)sizeof(T);
}

/* words rounded up to the next value that is 4 (mod 32): per-group buffers at such a pitch
 * put the 16-byte reads of up to 8 groups in distinct banks. */
__host__ __device__ constexpr int nd_gj_pitch4(int words) { return words + ((4 - words) % 32 + 32) % 32; }

/* Per group, in 4-byte words: two pivot rows (T, double-buffered), the reciprocal pivot of
 * each step (T), the pivot row of each step (perm, int) and the step of each row (steps, int).
 * Keeping the per-row scales and steps here rather than in registers leaves the registers to
 * the rows. */
template <typename T, int NM>
struct nd_gj_layout {
  static constexpr int INV = 2 * NM;                       /* elements of T */
  static constexpr int PERM = 3 * NM * (int)sizeof(T) / 4; /* words */
  static constexpr int STEPS = PERM + NM;                  /* words */
  static constexpr int WORDS = nd_gj_pitch4(STEPS + NM);
};

/* Stage pitches for an n x n matrix owned by G threads: rows P = n | 1 apart, matrices MP apart
 * with MP = G P (mod 32), so that lane (g, r) reading row (or column) r + G q of matrix g hits
 * bank (g G + r) P + const: 32 distinct banks. */
__host__ __device__ inline int nd_gj_mpitch(int n, int G) {
  const int P = n | 1;
  return n * P + ((G * P - n * P) % 32 + 32) % 32;
}

template <typename T, int NM, int RPT>
size_t nd_gj_smem(int n) {
  constexpr int G = NM / RPT, M = 32 / G;
  typedef nd_gj_layout<T, NM> L;
  const size_t stage = ((size_t)M * nd_gj_mpitch(n, G) * sizeof(T) + 15) / 16 * 16;
  return (size_t)ND_GJ_WPB * (M * (size_t)L::WORDS * 4 + stage);
}

/* a / d for 0 <= a < 2^16 and d <= 1024 (rd = 1.0f / d): exact, since the float error is far
 * below the margin 0.5 / d; three instructions instead of an integer division. */
__device__ __forceinline__ int nd_gj_div(int a, float rd) { return (int)(((float)a + 0.5f) * rd); }

/* Position (matrix m, row i, column j) of element e of a stretch of n x n matrices, and the
 * advance of one warp-wide step of 32 * V elements. */
struct nd_gj_walk {
  int m, i, j, dm, di, dj;
};
__device__ __forceinline__ nd_gj_walk nd_gj_walk_init(int e, int stepel, int n) {
  const int nn = n * n;
  const float rn = 1.0f / (float)n, rnn = 1.0f / (float)nn;
  nd_gj_walk w;
  w.m = nd_gj_div(e, rnn);
  int rem = e - w.m * nn;
  w.i = nd_gj_div(rem, rn);
  w.j = rem - w.i * n;
  w.dm = nd_gj_div(stepel, rnn);
  rem = stepel - w.dm * nn;
  w.di = nd_gj_div(rem, rn);
  w.dj = rem - w.di * n;
  return w;
}
__device__ __forceinline__ void nd_gj_walk_step(nd_gj_walk &w, int n) {
  w.j += w.dj;
  const int cj = w.j >= n;
  w.j -= cj ? n : 0;
  w.i += w.di + cj;
  const int ci = w.i >= n;
  w.i -= ci ? n : 0;
  w.m += w.dm + ci;
}

/* count consecutive elements (count % V == 0, g 16-byte aligned when V > 1) from global memory
 * into the stage, element (m, i, j) of the stretch at m MP + i P + j. The warp walks the stretch
 * in order (coalesced), U vectors in flight per lane. */
template <typename T, int V>
__device__ __forceinline__ void nd_gj_stage_in(T *st, const T *g, int count, int n, int P, int MP, int lane) {
  typedef typename nd_gj_vt<T, V>::type VT;
  constexpr int U = 8;
  const int nv = count / V;
  nd_gj_walk w = nd_gj_walk_init(lane * V, 32 * V, n);
  const VT *gv = (const VT *)g;
  for (int v0 = 0; v0 < nv; v0 += 32 * U) {
    VT buf[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int v = v0 + 32 * u + lane;
      if (v < nv) buf[u] = gv[v];
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int v = v0 + 32 * u + lane;
      if (v < nv) {
        T e[V];
        memcpy(e, &buf[u], sizeof e);
        T *d = st + w.m * MP + w.i * P + w.j;
#pragma unroll
        for (int t = 0; t < V; t++) d[t] = e[t];
      }
      nd_gj_walk_step(w, n);
    }
  }
}

/* The transposed stage (element (m, i, j) at m MP + j P + i) to count consecutive elements of
 * global memory (C order), in order by the whole warp. */
template <typename T, int V>
__device__ __forceinline__ void nd_gj_stage_out(const T *st, T *g, int count, int n, int P, int MP, int lane) {
  typedef typename nd_gj_vt<T, V>::type VT;
  const int nv = count / V;
  nd_gj_walk w = nd_gj_walk_init(lane * V, 32 * V, n);
  VT *gv = (VT *)g;
  for (int v = lane; v < nv; v += 32) {
    const T *s = st + w.m * MP + w.j * P + w.i;
    T e[V];
#pragma unroll
    for (int t = 0; t < V; t++) e[t] = s[t * P];
    VT o;
    memcpy(&o, e, sizeof o);
    gv[v] = o;
    nd_gj_walk_step(w, n);
  }
}

/* A scalar of T (4, 8 or 16 bytes) stored where pred holds. */
template <typename T>
__device__ __forceinline__ void nd_sts_scalar_if(T *p, T v, bool pred) {
  if constexpr (sizeof(T) == 4) {
    unsigned u;
    memcpy(&u, &v, 4);
    nd_sts_if(p, u, pred);
  } else if constexpr (sizeof(T) == 8) {
    uint2 u;
    memcpy(&u, &v, 8);
    nd_sts_if(p, u, pred);
  } else {
    uint4 u;
    memcpy(&u, &v, 16);
    nd_sts_if(p, u, pred);
  }
}

/* A pivot row into the broadcast buffer pb (16-byte aligned) with 8-byte stores, where pred
 * holds. 16-byte stores would need the row in aligned register quads, which costs moves when the
 * register allocator has not kept them so. */
template <typename T, int NM>
__device__ __forceinline__ void nd_row_put_if(T *pb, const T (&w)[NM], bool pred) {
  static_assert(NM * sizeof(T) % 16 == 0, "rows are whole 16-byte vectors");
  constexpr int V = NM * (int)sizeof(T) / 8;
  uint2 v[V];
  memcpy(v, w, sizeof v);
#pragma unroll
  for (int q = 0; q < V; q++) nd_sts_if((uint2 *)pb + q, v[q], pred);
}

/* w[q][j] -= f[q] * pb[j] for every row q and every j except k, reading pb (the broadcast
 * pivot row) 16 bytes at a time, each vector once for all rows; returns pb[k]. */
template <typename T, int NM, int RPT>
__device__ __forceinline__ T nd_rows_axpy(T (&w)[RPT][NM], const T (&f)[RPT], const T *pb, int k) {
  constexpr int E = nd_gj_vec<T>();
  constexpr int V = NM / E;
  T pk = nd_zero<T>();
#pragma unroll
  for (int c = 0; c < V; c++) {
    const uint4 v = ((const uint4 *)pb)[c];
    T e[E];
    memcpy(e, &v, sizeof e);
#pragma unroll
    for (int t = 0; t < E; t++) {
      if (c * E + t == k) {
        pk = e[t];
      } else {
#pragma unroll
        for (int q = 0; q < RPT; q++) w[q][c * E + t] = w[q][c * E + t] - f[q] * e[t];
      }
    }
  }
  return pk;
}

/* Resident blocks asked of the register allocator: the RPT x NM values of a thread plus about
 * 96 registers (128 for complex, 32 more for det and its log), which is what the compiler
 * takes for addresses, keys, the pivot row in flight and the loads it hoists; with less it
 * spills inside the step loop (ptxas -v, sm_90); within that, as many blocks as the register
 * file holds. */
template <typename T, int NM, int RPT, bool DETM>
constexpr int nd_gj_min_blocks() {
  constexpr int want = RPT * NM * (int)sizeof(T) / 4 + (nd_gj_is_cplx<T>::value ? 128 : 96) + (DETM ? 32 : 0);
  constexpr int regs = want > 255 ? 256 : (want + 7) / 8 * 8;
  constexpr int b = 65536 / (ND_GJ_WPB * 32 * regs);
  return b < 1 ? 1 : b > 8 ? 8 : b;
}

/* T, NM, RPT: see the top of the file; DETM: det/slogdet. With several rows per thread, the
 * stores of a row slot that holds no pivot anywhere in the warp are skipped (a vote and a
 * uniform branch per slot). */
template <typename T, int NM, int RPT, bool DETM>
__global__ void __launch_bounds__(ND_GJ_WPB * 32, nd_gj_min_blocks<T, NM, RPT, DETM>())
    k_gj_small(nd_lk_gj p) {
  typedef typename nd_real_of<T>::type R;
  typedef nd_gj_layout<T, NM> L;
  constexpr int G = NM / RPT;
  constexpr int M = 32 / G;
  static_assert(G * RPT == NM && (G & (G - 1)) == 0 && G >= 2 && G <= 32, "G = NM / RPT is a power of two");
  constexpr int VEC = nd_gj_vec<T>();
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane / G, r = lane % G;
  const int n = p.n;
  const int nn = n * n;
  const int P = n | 1, MP = nd_gj_mpitch(n, G);
  const int SE = (int)(((size_t)M * MP * sizeof(T) + 15) / 16 * 16 / sizeof(T));
  /* Shared memory: the groups' buffers (nd_gj_layout), then per warp the stage. Every part is a
   * multiple of 16 bytes. */
  unsigned *gbuf = (unsigned *)nd_smem + (warp * M + g) * L::WORDS;
  T *pivbuf = (T *)gbuf;
  T *invs = pivbuf + L::INV;
  int *perm = (int *)gbuf + L::PERM;
  int *steps = (int *)gbuf + L::STEPS;
  T *wstage = (T *)((unsigned *)nd_smem + ND_GJ_WPB * M * L::WORDS) + warp * SE;
  T *stage = wstage + g * MP;
  const T *A = (const T *)p.a.data;
  /* dense batches are staged as stored: rows (C order) or columns (F order) of the matrices */
  const bool a_c = p.a.bs == nn && p.a.rs == n && p.a.cs == 1;
  const bool a_f = !a_c && p.a.bs == nn && p.a.rs == 1 && p.a.cs == n;
  const bool a_vec = n % VEC == 0 && ((uintptr_t)A & 15) == 0;
  const unsigned gmask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (g * G));
  const int64_t per_block = (int64_t)ND_GJ_WPB * M;

  /* Pass t takes the stretch of M matrices number t * (warps in the grid) + warp * gridDim.x +
   * blockIdx.x: the warps of a partial last pass are spread over all blocks (and so over all
   * multiprocessors) instead of filling the first blocks. */
  const int64_t per_pass = (int64_t)gridDim.x * per_block;
  for (int64_t b0 = ((int64_t)warp * gridDim.x + blockIdx.x) * M; b0 < p.batch; b0 += per_pass) {
    const int64_t bi = b0 + g;
    const bool valid = bi < p.batch;
    const int mc = p.batch - b0 <= 0 ? 0 : p.batch - b0 < M ? (int)(p.batch - b0) : M;
    /* ---- load ---- */
    if (a_c || a_f) {
      if (a_vec) nd_gj_stage_in<T, VEC>(wstage, A + b0 * nn, mc * nn, n, P, MP, lane);
      else nd_gj_stage_in<T, 1>(wstage, A + b0 * nn, mc * nn, n, P, MP, lane);
    } else if (valid) {
      const float rn = 1.0f / (float)n;
      for (int e = r; e < nn; e += G) {
        const int i = nd_gj_div(e, rn), j = e - i * n;
        stage[i * P + j] = A[bi * p.a.bs + i * p.a.rs + j * p.a.cs];
      }
    }
    __syncwarp();
    /* Rows and columns past n (and whole matrices past the batch) are an identity block: the
     * inverse of diag(A, I) is diag(inv(A), I), so every loop below runs its compile-time trip
     * count with no bounds checks. The full case reads at compile-time offsets. */
    T w[RPT][NM];
    if (n == NM && mc == M) {
      if (a_f) {
#pragma unroll
        for (int q = 0; q < RPT; q++)
#pragma unroll
          for (int j = 0; j < NM; j++) w[q][j] = stage[j * (NM + 1) + r + G * q];
      } else {
#pragma unroll
        for (int q = 0; q < RPT; q++)
#pragma unroll
          for (int j = 0; j < NM; j++) w[q][j] = stage[(r + G * q) * (NM + 1) + j];
      }
    } else {
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        const int row = r + G * q;
#pragma unroll
        for (int j = 0; j < NM; j++)
          w[q][j] = (valid && row < n && j < n) ? stage[a_f ? j * P + row : row * P + j]
                                                : (row == j ? nd_one<T>() : nd_zero<T>());
      }
    }
    /* The next stretch of this warp into L2 while this one computes. */
    if (a_c || a_f) {
      const int64_t nb0 = b0 + per_pass;
      if (nb0 < p.batch) {
        const int64_t cnt = p.batch - nb0 < M ? p.batch - nb0 : M;
        const uintptr_t s = (uintptr_t)(A + nb0 * nn), e = (uintptr_t)(A + (nb0 + cnt) * nn);
        for (uintptr_t a = (s & ~(uintptr_t)127) + (uintptr_t)lane * 128; a < e; a += 32 * 128)
          nd_prefetch_l2((const void *)a);
      }
    }

    bool used[RPT];
#pragma unroll
    for (int q = 0; q < RPT; q++) used[q] = false;
    int fail = 0, parity = 0;
    T det = nd_one<T>();
    R logabs = R(0);

    /* ---- elimination ----
     * The pivot row is not scaled when it is chosen: it keeps its values, its slot k becomes 1,
     * and its scale 1/pivot (invs[step]) is applied once at the end. Later eliminations treat the
     * unscaled row exactly as the scaled one (the update w -= (w[k] / pivot) * pivot_row is
     * homogeneous in w), so this saves NM multiplies per step. The pivot row itself is
     * "updated" with f = 0, which leaves it unchanged (for finite values) without a branch. */
#pragma unroll
    for (int k = 0; k < NM; k++) {
      if (k >= n) break;
      unsigned key = 0u;
      T cand = w[0][k];
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        const unsigned kq = used[q] ? 0u : nd_pivot_key(nd_abs1(w[q][k]), r + G * q);
        /* >=: a used row (key 0) never hides the unused row 31 of key 0 (the last slot) */
        if (q == 0 || kq >= key) {
          key = kq;
          cand = w[q][k];
        }
      }
      const T cinv = nd_recip(cand);
#pragma unroll
      for (int off = G / 2; off > 0; off >>= 1) {
        const unsigned o = __shfl_xor_sync(0xffffffffu, key, off);
        key = o > key ? o : key;
      }
      const int prow = 31 - (int)(key & 31u);
      T *pb = pivbuf + (k & 1) * NM;
      const bool owner = (prow & (G - 1)) == r;
      nd_sts_scalar_if<T>(invs + k, cinv, owner);
      nd_sts_if(perm + k, (unsigned)prow, owner);
      nd_sts_if(steps + prow, (unsigned)k, owner);
      bool piv[RPT];
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        piv[q] = prow == r + G * q;
        if (RPT > 1) {
          if (__any_sync(0xffffffffu, piv[q])) nd_row_put_if<T, NM>(pb, w[q], piv[q]);
        } else {
          nd_row_put_if<T, NM>(pb, w[q], piv[q]);
        }
      }
      if (DETM) {
        int cnt = 0;
#pragma unroll
        for (int q = 0; q < RPT; q++)
          cnt += __popc(__ballot_sync(0xffffffffu, !used[q] && r + G * q < prow) & gmask);
        parity ^= cnt & 1;
      }
      __syncwarp();
      const T inv = invs[k];
      T f[RPT];
#pragma unroll
      for (int q = 0; q < RPT; q++) f[q] = piv[q] ? nd_zero<T>() : w[q][k] * inv;
      const T pk = nd_rows_axpy<T, NM, RPT>(w, f, pb, k);
      fail = (fail == 0 && nd_is_zero(pk)) ? k + 1 : fail;
      if (DETM) {
        det = det * nd_phase(pk); /* phases only: the product itself can overflow (gj_panels.cu) */
        logabs += log(nd_abs(pk));
      }
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        w[q][k] = piv[q] ? nd_one<T>() : nd_zero<T>() - f[q];
        used[q] = used[q] || piv[q];
      }
    }

    /* ---- results ----
     * A singular matrix may have had a padding row as a pivot (all its candidates were zero):
     * its result is garbage either way (info says so), but no write may leave its n x n slot. */
    int mystep[RPT];
    T rscale[RPT];
    if (!DETM) {
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        mystep[q] = used[q] ? steps[r + G * q] : NM; /* NM: never a pivot, not placed */
        rscale[q] = used[q] ? invs[mystep[q]] : nd_one<T>();
      }
    }
    if (!DETM && p.mode == ND_LK_INV) {
      bool put[RPT];
#pragma unroll
      for (int q = 0; q < RPT; q++) put[q] = valid && r + G * q < n && mystep[q] < n;
#pragma unroll
      for (int c = 0; c < NM / 4; c++) {
        if (4 * c >= n) break;
        const int4 pv = ((const int4 *)perm)[c];
        const int pc[4] = {pv.x, pv.y, pv.z, pv.w};
#pragma unroll
        for (int t = 0; t < 4; t++) {
          const int k = 4 * c + t;
          if (k < n && pc[t] < n) {
            T *col = stage + pc[t] * P;
#pragma unroll
            for (int q = 0; q < RPT; q++)
              if (put[q]) col[mystep[q]] = w[q][k] * rscale[q];
          }
        }
      }
      __syncwarp();
      T *X = (T *)p.x.data;
      const bool x_dense = p.x.bs == nn && p.x.rs == n && p.x.cs == 1;
      if (x_dense) {
        if (n % VEC == 0 && ((uintptr_t)X & 15) == 0)
          nd_gj_stage_out<T, VEC>(wstage, X + b0 * nn, mc * nn, n, P, MP, lane);
        else nd_gj_stage_out<T, 1>(wstage, X + b0 * nn, mc * nn, n, P, MP, lane);
      } else if (valid) {
        const float rn = 1.0f / (float)n;
        for (int e = r; e < nn; e += G) {
          const int i = nd_gj_div(e, rn), j = e - i * n;
          X[bi * p.x.bs + i * p.x.rs + j * p.x.cs] = stage[j * P + i];
        }
      }
    } else if (!DETM) { /* ND_LK_SOLVE */
#pragma unroll
      for (int q = 0; q < RPT; q++) {
        if (valid && r + G * q < n && mystep[q] < n) {
          const T *B = (const T *)p.b.data + bi * p.b.bs;
          T *X = (T *)p.x.data + bi * p.x.bs + mystep[q] * p.x.rs;
          for (int64_t c = 0; c < p.nrhs; c++) {
            T acc = nd_zero<T>();
#pragma unroll
            for (int k = 0; k < NM; k++)
              if (k < n && perm[k] < n) acc = acc + w[q][k] * rscale[q] * B[perm[k] * p.b.rs + c * p.b.cs];
            X[c * p.x.cs] = acc;
          }
        }
      }
    } else if (valid && r == 0) {
      if (p.mode == ND_LK_DET) {
        /* NumPy's det is sign * exp(logdet) (umath_linalg's det_from_slogdet) */
        const T sign = parity ? nd_zero<T>() - det : det;
        ((T *)p.det)[bi] = fail ? nd_zero<T>() : sign * nd_from_real<T>(exp((double)logabs));
      } else {
        T sign = det;
        if (parity) sign = nd_zero<T>() - sign;
        ((T *)p.det)[bi] = fail ? nd_zero<T>() : sign;
        ((R *)p.logdet)[bi] = fail ? R(-INFINITY) : logabs;
      }
    }
    if (valid && r == 0) {
      if (p.info != NULL) p.info[bi] = fail;
      if (fail && p.first != NULL) atomicMin(p.first, (unsigned long long)bi);
    }
    __syncwarp();
  }
}

/* Blocks for a launch: one per WPB * M matrices (one_pass), or the resident blocks, which loop
 * over the batch. */
template <typename T, int NM, int RPT, bool DETM>
nd_status nd_gj_launch(const nd_lk_gj *p, cudaStream_t st, bool one_pass) {
  constexpr int M = 32 / (NM / RPT);
  const size_t smem = nd_gj_smem<T, NM, RPT>(p->n);
  /* the opt-in for blocks above 48 KiB (at most the n = NM size) and the largest carveout */
  ND_TRY((nd_k_smem_once<k_gj_small<T, NM, RPT, DETM>>(nd_gj_smem<T, NM, RPT>(NM), true)));
  const int64_t per_block = (int64_t)ND_GJ_WPB * M;
  int64_t want = (p->batch + per_block - 1) / per_block;
  int64_t cap = (int64_t)nd_k_sm_count() * 64;
  if (!one_pass) {
    /* resident blocks per multiprocessor, cached per instance, device and n (the shared
     * memory grows with n) */
    int per_sm = 0;
    ND_TRY((nd_k_occupancy_once<k_gj_small<T, NM, RPT, DETM>, NM + 1>(ND_GJ_WPB * 32, smem, &per_sm, p->n)));
    if (per_sm < 1) per_sm = 1;
    cap = (int64_t)nd_k_sm_count() * per_sm;
  }
  if (want > cap) want = cap;
  if (want < 1) want = 1;
  nd_k_launch<k_gj_small<T, NM, RPT, DETM>>((unsigned)want, ND_GJ_WPB * 32, smem, st, *p);
  return ND_K_LAUNCHED();
}

/* The grid of an instance's inverse and solve launches: one pass for float32 NM = 24, where it
 * measured faster, the resident grid elsewhere (a tie or faster; linalg/TUNING.md), as for det
 * and slogdet. */
template <typename T, int NM>
constexpr bool nd_gj_one_pass() {
  return sizeof(T) == 4 && NM == 24;
}

/* Rows per thread of the inverse and solve instances, so that the per-step overhead is shared
 * by several rows' multiply-adds, up to the register count at which too few warps remain to hide
 * the step latency (four rows at n = 32; linalg/TUNING.md). Complex rows are already 2
 * (complex64) or 4 (complex128) registers an element. Det and slogdet use one
 * row per thread: they are not the batched-inverse hot path, and the smaller instance halves
 * their compile time. */
template <typename T, int NM>
constexpr int nd_gj_rpt() {
  if (nd_gj_is_cplx<T>::value) return 1;
  if (sizeof(T) == 4) return NM == 24 ? 3 : NM == 32 ? 2 : NM == 16 ? 4 : 1;
  return NM >= 16 ? 2 : 1;
}

template <typename T, int NM>
nd_status nd_gj_run(const nd_lk_gj *p, cudaStream_t st) {
  constexpr int RPT = nd_gj_rpt<T, NM>();
  if (p->mode == ND_LK_DET || p->mode == ND_LK_SLOGDET)
    return nd_gj_launch<T, NM == 24 ? 32 : NM, 1, true>(p, st, false);
  return nd_gj_launch<T, NM, RPT, false>(p, st, nd_gj_one_pass<T, NM>());
}

/* NM, the padded size: the power of two >= n, at least 4, or 24 for float32 n in 17..24 (three
 * rows of eight threads), where 32 would do 1.8 times the work. */
template <typename T>
nd_status nd_gj_dispatch_n(const nd_lk_gj *p, cudaStream_t st) {
  if (p->n <= 4) return nd_gj_run<T, 4>(p, st);
  if (p->n <= 8) return nd_gj_run<T, 8>(p, st);
  if (p->n <= 16) return nd_gj_run<T, 16>(p, st);
  if constexpr (sizeof(T) == 4) {
    if (p->n <= 24) return nd_gj_run<T, 24>(p, st);
  }
  return nd_gj_run<T, 32>(p, st);
}

}  // namespace

extern "C" nd_status nd_lk_gj_small(const nd_lk_gj *p, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (p->batch == 0 || p->n == 0) return ND_OK;
  if (p->n < 0 || p->n > 32) return nd__error(ND_ERR_INTERNAL, "nd_lk_gj_small: n = %d outside 1..32", p->n);
  switch (p->dtype) {
    case 10: return nd_gj_dispatch_n<float>(p, st);
    case 11: return nd_gj_dispatch_n<double>(p, st);
    case 12: return nd_gj_dispatch_n<nd_c64>(p, st);
    case 13: return nd_gj_dispatch_n<nd_c128>(p, st);
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "nd_lk_gj_small: dtype %d is not a solver dtype", p->dtype);
}
