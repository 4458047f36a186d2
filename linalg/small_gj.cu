/* Fused batched Gauss-Jordan for small matrices (n <= 32): inverse, solve, det, slogdet.
 *
 * Geometry. A group of G = NM threads (NM the power of two >= n, at least 4) owns one matrix;
 * thread r of the group keeps row r of the working matrix in registers (NM values, every loop
 * unrolled so the indices are compile-time). 32 / G matrices share a warp; a block has 1, 2 or
 * 4 warps (fewer for the large types, so the staging memory stays below 48 KiB), and blocks
 * loop over the batch (grid-stride, in units of warps).
 *
 * Memory. Each warp stages its matrices through shared memory: the input of 32 / G matrices is
 * one contiguous stretch when the batch is C- or F-contiguous, read in order by the whole warp
 * (coalesced) into rows of odd pitch, so that each thread then reads its row (or, for F order,
 * its column) without bank conflicts; other layouts are read element by element with their
 * strides. Inverses are written back the same way, so global traffic is one coalesced read and
 * one write per matrix.
 *
 * Algorithm. In-place Gauss-Jordan with implicit row pivoting: at step k the group picks the
 * unused row with the largest |a[r][k]| (a butterfly max over 32-bit keys, see nd_pivot_key),
 * that row is scaled and broadcast through shared memory (double-buffered, one __syncwarp per
 * step), and every other row eliminates column k. Column k then holds column p_k of the
 * inverse's row-permuted form; the result row r lands in output row s_r (the step at which r was
 * the pivot) and its entry k in output column p_k, so no row is ever moved. Solve multiplies the
 * inverse rows with b in the same kernel. Det and slogdet skip the updates of used rows (they
 * are plain LU with partial pivoting) and take the permutation's sign from a ballot of the
 * unused rows above each pivot.
 *
 * Failure. A pivot that is exactly zero (the whole remaining column is zero) sets info to its
 * 1-based index and the run continues with inf/NaN; every loop has a fixed trip count, so NaN
 * or inf input finishes like any other. */
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

/* Moves `count` consecutive elements between global memory and a stage of rows of n elements
 * with an odd pitch P (so that a thread reading "its" row or column hits distinct banks). The
 * warp walks the elements in order (coalesced); each lane tracks its (row, column) position
 * incrementally instead of dividing. to_stage: global -> stage, else stage -> global. */
template <typename T>
__device__ __forceinline__ void nd_stage_copy(T *stage, T *g, int64_t count, int n, int P, int lane,
                                              bool to_stage) {
  int row = lane / n, col = lane - row * n;
  const int q = 32 / n, rr = 32 - q * n;
  for (int64_t e = lane; e < count; e += 32) {
    if (to_stage) stage[row * P + col] = g[e];
    else g[e] = stage[row * P + col];
    col += rr;
    row += q;
    if (col >= n) {
      col -= n;
      row++;
    }
  }
}

/* The pivot row w into the broadcast buffer pb (16-byte aligned) with 16-byte stores. */
template <typename T, int NM>
__device__ __forceinline__ void nd_row_put(T *pb, const T (&w)[NM]) {
  static_assert(NM * sizeof(T) % 16 == 0, "rows are whole 16-byte vectors");
  constexpr int V = NM * (int)sizeof(T) / 16;
  uint4 v[V];
  memcpy(v, w, sizeof v);
#pragma unroll
  for (int q = 0; q < V; q++) ((uint4 *)pb)[q] = v[q];
}

/* w[j] -= f * pb[j] for every j except k, reading pb (the broadcast pivot row, the same address
 * in every lane) 16 bytes at a time. */
template <typename T, int NM>
__device__ __forceinline__ void nd_row_axpy(T (&w)[NM], T f, const T *pb, int k) {
  constexpr int E = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
  constexpr int V = NM / E;
#pragma unroll
  for (int q = 0; q < V; q++) {
    const uint4 v = ((const uint4 *)pb)[q];
    T e[E];
    memcpy(e, &v, sizeof e);
#pragma unroll
    for (int t = 0; t < E; t++)
      if (q * E + t != k) w[q * E + t] = w[q * E + t] - f * e[t];
  }
}

/* Resident blocks of 128 threads asked of the register allocator. Occupancy, not arithmetic,
 * limits this kernel: every step waits on a shuffle butterfly and a shared-memory broadcast.
 * 6 blocks (at most 80 registers a thread) fit every float32 instance and rows of up to 64
 * bytes without spilling; wider rows get what their NM values need. */
template <typename T, int NM>
constexpr int nd_gj_min_blocks() {
  return (sizeof(T) == 4 || NM * sizeof(T) <= 64) ? 6 : NM * sizeof(T) <= 256 ? 4 : 2;
}

template <typename T, int NM>
__global__ void __launch_bounds__(128, nd_gj_min_blocks<T, NM>()) k_gj_small(nd_lk_gj p) {
  typedef typename nd_real_of<T>::type R;
  constexpr int G = NM;
  constexpr int M = 32 / G;
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int wpb = blockDim.x >> 5;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane / G, r = lane % G;
  const int n = p.n;
  const int64_t nn = (int64_t)n * n;
  /* Shared memory: per warp a stage of M * NM rows of pitch NM + 1 (the matrices' rows packed,
   * n rows of pitch P = n rounded up to odd), then per group two pivot-row buffers of NM, then per
   * group NM pivot rows (int). */
  constexpr int SROWS = M * NM, SPITCH = NM + 1;
  const int P = n | 1;
  T *wstage = (T *)nd_smem + (size_t)warp * SROWS * SPITCH;
  T *pivbuf = (T *)nd_smem + (size_t)wpb * SROWS * SPITCH + (size_t)(warp * M + g) * 2 * NM;
  int *perm = (int *)((T *)nd_smem + (size_t)wpb * SROWS * SPITCH + (size_t)wpb * M * 2 * NM) +
              (warp * M + g) * NM;
  T *stage = wstage + (int64_t)g * n * P;
  T *A = (T *)p.a.data;
  /* dense batches are staged as stored: rows (C order) or columns (F order) of the matrices */
  const bool a_c = p.a.bs == nn && p.a.rs == n && p.a.cs == 1;
  const bool a_f = !a_c && p.a.bs == nn && p.a.rs == 1 && p.a.cs == n;
  const unsigned gmask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (g * G));
  const int64_t step_warps = (int64_t)gridDim.x * wpb;

  for (int64_t b0 = ((int64_t)blockIdx.x * wpb + warp) * M; b0 < p.batch; b0 += step_warps * M) {
    const int64_t bi = b0 + g;
    const bool valid = bi < p.batch;
    const int64_t mcount = p.batch - b0 < M ? p.batch - b0 : M;
    /* ---- load ---- */
    if (a_c || a_f) {
      nd_stage_copy<T>(wstage, A + b0 * nn, mcount * nn, n, P, lane, true);
    } else if (valid) {
      for (int64_t e = r; e < nn; e += G) {
        int64_t i = e / n, j = e - i * n;
        stage[i * P + j] = A[bi * p.a.bs + i * p.a.rs + j * p.a.cs];
      }
    }
    __syncwarp();
    /* Rows and columns past n (and whole matrices past the batch) are an identity block: the
     * inverse of diag(A, I) is diag(inv(A), I), so every loop below runs its full, compile-time
     * trip count with no bounds checks. */
    T w[NM];
#pragma unroll
    for (int j = 0; j < NM; j++)
      w[j] = (valid && r < n && j < n) ? (a_f ? stage[j * P + r] : stage[r * P + j])
                                       : (r == j ? nd_one<T>() : nd_zero<T>());
    bool used = false;
    int mystep = 0, fail = 0, parity = 0;
    T det = nd_one<T>(), rscale = nd_one<T>();
    R logabs = R(0);
    const bool detmode = p.mode == ND_LK_DET || p.mode == ND_LK_SLOGDET;

    /* ---- elimination ----
     * The pivot row is not scaled when it is chosen: it keeps its values, its slot k becomes 1,
     * and its scale 1/pivot is applied once at the end (rscale). Later eliminations treat the
     * unscaled row exactly as the scaled one (the update w -= (w[k] / pivot) * pivot_row is
     * homogeneous in w), so this saves NM multiplies per step. */
#pragma unroll
    for (int k = 0; k < NM; k++) {
      unsigned key = used ? 0u : nd_pivot_key(nd_abs1(w[k]), r);
#pragma unroll
      for (int off = G / 2; off > 0; off >>= 1) {
        unsigned o = __shfl_xor_sync(0xffffffffu, key, off, G);
        key = o > key ? o : key;
      }
      const int prow = 31 - (int)(key & 31u);
      const bool is_piv = r == prow;
      T *pb = pivbuf + (k & 1) * NM;
      if (is_piv) {
        nd_row_put<T, NM>(pb, w);
        perm[k] = r;
      }
      if (detmode) {
        unsigned bal = __ballot_sync(0xffffffffu, !used && r < prow) & gmask;
        parity ^= __popc(bal) & 1;
      }
      __syncwarp();
      const T pk = pb[k];
      if (k < n && nd_is_zero(pk) && fail == 0) fail = k + 1;
      if (detmode) {
        det = det * pk;
        logabs += log(nd_abs(pk));
      }
      const T inv = nd_recip(pk);
      if (is_piv) {
        if (!detmode) {
          rscale = inv;
          w[k] = nd_one<T>();
        }
        used = true;
        mystep = k;
      } else if (!(detmode && used)) {
        const T f = w[k] * inv;
        nd_row_axpy<T, NM>(w, f, pb, k);
        w[k] = nd_zero<T>() - f;
      }
    }
    if (!detmode) {
#pragma unroll
      for (int j = 0; j < NM; j++) w[j] = w[j] * rscale;
    }

    /* ---- results ----
     * A singular matrix may have had a padding row as a pivot (all its candidates were zero):
     * its result is garbage either way (info says so), but no write may leave its n x n slot. */
    const bool placed = mystep < n;
    if (p.mode == ND_LK_INV) {
      if (valid && r < n && placed) {
#pragma unroll
        for (int k = 0; k < NM; k++)
          if (k < n && perm[k] < n) stage[mystep * P + perm[k]] = w[k];
      }
      __syncwarp();
      T *X = (T *)p.x.data;
      const bool x_dense = p.x.bs == nn && p.x.rs == n && p.x.cs == 1;
      if (x_dense) {
        nd_stage_copy<T>(wstage, X + b0 * nn, mcount * nn, n, P, lane, false);
      } else if (valid) {
        for (int64_t e = r; e < nn; e += G) {
          int64_t i = e / n, j = e - i * n;
          X[bi * p.x.bs + i * p.x.rs + j * p.x.cs] = stage[i * P + j];
        }
      }
    } else if (p.mode == ND_LK_SOLVE) {
      if (valid && r < n && placed) {
        const T *B = (const T *)p.b.data + bi * p.b.bs;
        T *X = (T *)p.x.data + bi * p.x.bs + mystep * p.x.rs;
        for (int64_t c = 0; c < p.nrhs; c++) {
          T acc = nd_zero<T>();
#pragma unroll
          for (int k = 0; k < NM; k++)
            if (k < n && perm[k] < n) acc = acc + w[k] * B[perm[k] * p.b.rs + c * p.b.cs];
          X[c * p.x.cs] = acc;
        }
      }
    } else if (valid && r == 0) {
      if (p.mode == ND_LK_DET) {
        ((T *)p.det)[bi] = fail ? nd_zero<T>() : (parity ? nd_zero<T>() - det : det);
      } else {
        T sign = nd_phase(det);
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

template <typename T, int NM>
size_t nd_gj_smem(int wpb) {
  constexpr int M = 32 / NM;
  return (size_t)wpb * M * ((size_t)NM * (NM + 1) * sizeof(T) + 2 * NM * sizeof(T) + NM * sizeof(int));
}

template <typename T, int NM>
nd_status nd_gj_launch(const nd_lk_gj *p, cudaStream_t st) {
  int wpb = 4;
  while (wpb > 1 && nd_gj_smem<T, NM>(wpb) > 48 * 1024) wpb >>= 1;
  const size_t smem = nd_gj_smem<T, NM>(wpb);
  const int64_t per_block = (int64_t)wpb * (32 / NM);
  int64_t want = (p->batch + per_block - 1) / per_block;
  const int64_t cap = (int64_t)nd_k_sm_count() * 64;
  if (want > cap) want = cap;
  if (want < 1) want = 1;
  k_gj_small<T, NM><<<(unsigned)want, wpb * 32, smem, st>>>(*p);
  return ND_K_LAUNCHED();
}

template <typename T>
nd_status nd_gj_dispatch_n(const nd_lk_gj *p, cudaStream_t st) {
  if (p->n <= 4) return nd_gj_launch<T, 4>(p, st);
  if (p->n <= 8) return nd_gj_launch<T, 8>(p, st);
  if (p->n <= 16) return nd_gj_launch<T, 16>(p, st);
  return nd_gj_launch<T, 32>(p, st);
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
