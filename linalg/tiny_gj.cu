/* Batched inverse of tiny matrices (float32 up to 8 x 8, the other solver dtypes up to 4 x 4):
 * one thread per matrix, the whole matrix in registers.
 *
 * Why a separate kernel. For tiny matrices the inverse is a memory-bound copy with a few
 * hundred flops per matrix in between; what decides the speed is how many bytes each thread has
 * in flight. Here a thread issues all the loads of its matrix at once (16-byte vector loads
 * when the batch is dense and aligned), inverts without talking to any other thread, and
 * stores with vector stores. The group kernel of small_gj.cu (a row per thread) needs shuffles
 * and shared-memory broadcasts at every step, which for n <= 8 cost more than the arithmetic.
 *
 * Sizes. One instance per order n (float32 1..8, the other dtypes 1..4), so every index is a
 * compile-time constant and the result is exactly that of the unpadded elimination (a padded
 * one would turn 0 * inf into NaN for a singular matrix, where this one gives inf as a plain
 * Gauss-Jordan does).
 *
 * Algorithm. Gauss-Jordan in place with partial (row) pivoting, Numerical Recipes' gaussj
 * bookkeeping: at step k the row with the largest |a[r][k]| (r >= k; the 1-norm of complex
 * values, as the group kernel) is swapped into row k, row k is scaled by the reciprocal of the
 * pivot (whose slot receives the reciprocal), and every other row eliminates column k (its slot
 * receives -f / pivot). At the end the row swaps are undone as column swaps in reverse order.
 * Every index is a compile-time constant after unrolling (swaps are selects), so the matrix
 * stays in registers. A zero pivot sets info to its 1-based index and the run continues with
 * inf/NaN, as in small_gj.cu; trip counts are fixed, so NaN input finishes like any other. */
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

template <typename T>
__device__ __forceinline__ void nd_swap_if(bool c, T &x, T &y) {
  const T t = x;
  x = c ? y : x;
  y = c ? t : y;
}

template <typename T, int NM>
__global__ void __launch_bounds__(128) k_inv_tiny(nd_lk_gj p) {
  typedef typename nd_real_of<T>::type R;
  const int64_t nn = (int64_t)NM * NM;
  const T *A = (const T *)p.a.data;
  T *X = (T *)p.x.data;
  /* 16-byte vector access when every matrix is one aligned, dense stretch of whole vectors. */
  constexpr bool kVec = (NM * NM * sizeof(T)) % 16 == 0;
  constexpr int NV = (int)((NM * NM * sizeof(T) + 15) / 16); /* covers a[][] whole */
  const bool a_vec = p.a.bs == nn && p.a.rs == NM && p.a.cs == 1 &&
                     ((uintptr_t)A & 15) == 0;
  const bool x_vec = p.x.bs == nn && p.x.rs == NM && p.x.cs == 1 &&
                     ((uintptr_t)X & 15) == 0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < p.batch; b += stride) {
    T a[NM][NM];
    if (kVec && a_vec) {
      const uint4 *src = (const uint4 *)(A + b * nn);
      uint4 v[NV];
#pragma unroll
      for (int q = 0; q < NV; q++) v[q] = __ldg(src + q);
      memcpy(&a[0][0], v, sizeof a);
    } else {
      const T *src = A + b * p.a.bs;
#pragma unroll
      for (int i = 0; i < NM; i++)
#pragma unroll
        for (int j = 0; j < NM; j++)
          a[i][j] = src[i * p.a.rs + j * p.a.cs];
    }

    int piv[NM];
    int fail = 0;
#pragma unroll
    for (int k = 0; k < NM; k++) {
      /* pivot: the first row r >= k with the largest |a[r][k]| */
      int pr = k;
      R best = nd_abs1(a[k][k]);
#pragma unroll
      for (int r = k + 1; r < NM; r++) {
        const R v = nd_abs1(a[r][k]);
        const bool better = v > best;
        best = better ? v : best;
        pr = better ? r : pr;
      }
      piv[k] = pr;
#pragma unroll
      for (int r = k + 1; r < NM; r++)
#pragma unroll
        for (int j = 0; j < NM; j++) nd_swap_if(pr == r, a[k][j], a[r][j]);
      if (nd_is_zero(a[k][k]) && fail == 0) fail = k + 1;
      const T inv = nd_recip(a[k][k]);
      a[k][k] = nd_one<T>();
#pragma unroll
      for (int j = 0; j < NM; j++) a[k][j] = a[k][j] * inv;
#pragma unroll
      for (int i = 0; i < NM; i++) {
        if (i == k) continue;
        const T f = a[i][k];
        a[i][k] = nd_zero<T>();
#pragma unroll
        for (int j = 0; j < NM; j++) a[i][j] = a[i][j] - f * a[k][j];
      }
    }
    /* undo the row swaps as column swaps, last first */
#pragma unroll
    for (int k = NM - 1; k >= 0; k--)
#pragma unroll
      for (int c = k + 1; c < NM; c++)
#pragma unroll
        for (int i = 0; i < NM; i++) nd_swap_if(piv[k] == c, a[i][k], a[i][c]);

    if (kVec && x_vec) {
      uint4 v[NV];
      memcpy(v, &a[0][0], sizeof a);
      uint4 *dst = (uint4 *)(X + b * nn);
#pragma unroll
      for (int q = 0; q < NV; q++) dst[q] = v[q];
    } else {
      T *dst = X + b * p.x.bs;
#pragma unroll
      for (int i = 0; i < NM; i++)
#pragma unroll
        for (int j = 0; j < NM; j++)
          dst[i * p.x.rs + j * p.x.cs] = a[i][j];
    }
    if (p.info != NULL) p.info[b] = fail;
    if (fail && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
  }
}

template <typename T, int NM>
nd_status nd_tiny_launch(const nd_lk_gj *p, cudaStream_t st) {
  const int threads = 128;
  int64_t want = (p->batch + threads - 1) / threads;
  const int64_t cap = (int64_t)nd_k_sm_count() * 32;
  if (want > cap) want = cap;
  if (want < 1) want = 1;
  k_inv_tiny<T, NM><<<(unsigned)want, threads, 0, st>>>(*p);
  return ND_K_LAUNCHED();
}

template <typename T>
nd_status nd_tiny_dispatch(const nd_lk_gj *p, cudaStream_t st) {
  switch (p->n) {
    case 1: return nd_tiny_launch<T, 1>(p, st);
    case 2: return nd_tiny_launch<T, 2>(p, st);
    case 3: return nd_tiny_launch<T, 3>(p, st);
    case 4: return nd_tiny_launch<T, 4>(p, st);
    default: break;
  }
  if constexpr (sizeof(T) <= 4) {
    switch (p->n) {
      case 5: return nd_tiny_launch<T, 5>(p, st);
      case 6: return nd_tiny_launch<T, 6>(p, st);
      case 7: return nd_tiny_launch<T, 7>(p, st);
      case 8: return nd_tiny_launch<T, 8>(p, st);
      default: break;
    }
  }
  return nd__error(ND_ERR_INTERNAL, "nd_lk_inv_tiny: n = %d has no instance", p->n);
}

}  // namespace

extern "C" int nd_lk_inv_tiny_ok(int dtype, int n) {
  switch (dtype) {
    case 10: return n >= 1 && n <= 8;
    case 11:
    case 12:
    case 13: return n >= 1 && n <= 4;
    default: return 0;
  }
}

extern "C" nd_status nd_lk_inv_tiny(const nd_lk_gj *p, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (p->batch == 0 || p->n == 0) return ND_OK;
  if (p->mode != ND_LK_INV || !nd_lk_inv_tiny_ok(p->dtype, p->n))
    return nd__error(ND_ERR_INTERNAL, "nd_lk_inv_tiny: mode %d, dtype %d, n = %d not handled", p->mode,
                     p->dtype, p->n);
  switch (p->dtype) {
    case 10: return nd_tiny_dispatch<float>(p, st);
    case 11: return nd_tiny_dispatch<double>(p, st);
    case 12: return nd_tiny_dispatch<nd_c64>(p, st);
    case 13: return nd_tiny_dispatch<nd_c128>(p, st);
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "nd_lk_inv_tiny: dtype %d is not a solver dtype", p->dtype);
}
