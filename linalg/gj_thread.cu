/* Batched inverse of tiny matrices (float32 up to 8 x 8, the other solver dtypes up to 4 x 4):
 * one thread per matrix, the whole matrix in registers, the batch moved through shared memory
 * in coalesced warp tiles. In solve mode (ND_LK_SOLVE) the same inverse is multiplied by the
 * matrix's right-hand sides in registers, x = inverse(a) @ b as the small kernel's solve, and
 * x is written per thread with its strides instead of the inverse.
 *
 * Why a separate kernel. For tiny matrices the inverse is a memory-bound copy with a few
 * hundred flops per matrix in between. The group kernel of gj_group.cu (a row per thread)
 * needs shuffles and shared-memory broadcasts at every step, which for n <= 8 cost more than
 * the arithmetic; here a thread inverts its own matrix without talking to any other thread.
 *
 * Geometry. A warp owns tiles of 32 consecutive matrices (tile t holds matrices 32 t ..
 * 32 t + 31; lane L inverts matrix 32 t + L). Warps loop over the tiles (grid-stride in units
 * of warps); the grid is a fixed number of blocks per multiprocessor (nd_tiny_cfg), so that
 * every warp stays resident and keeps its next tiles in flight while it computes.
 *
 * Memory. Thread-per-matrix loads straight from global memory (a 16-byte vector per thread,
 * each warp instruction touching 32 different cache lines) cost 32 L1 wavefronts per
 * instruction and left the previous version latency bound at 25% occupancy. Instead each warp
 * copies its tile, one contiguous stretch when the batch is C- or F-contiguous and 16-byte
 * aligned, with coalesced 16-byte cp.async (4 wavefronts per instruction) into a per-warp
 * shared buffer, and prefetches the next `depth` tiles into further buffers before it waits
 * for the current one. A matrix whose size is a whole number of 16-byte units sits in the
 * buffer at a pitch of an odd number of units (U + 1 for U even), so that the 8 lanes of each
 * quarter-warp read their matrices' unit q from 8 different bank groups; other sizes (an odd
 * number of 4- or 8-byte elements per matrix) are stored as they are and read element by
 * element, already conflict-free. The inverse goes back into the lane's own slot of the same
 * buffer and leaves with coalesced 16-byte stores. Other layouts are read and written per
 * thread with their strides (slow, but any strides work).
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
 * stays in registers. The selects of a swap are skipped when the pivot is already in place
 * (a branch, taken by the whole warp only if one of its lanes swaps), which for diagonally
 * dominant batches removes about half of the instructions. A zero pivot sets info to its
 * 1-based index and the run continues with inf/NaN, as in gj_group.cu; trip counts are fixed,
 * so NaN input finishes like any other. */
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

/* Launch shape: tiles prefetched ahead of the one being inverted, warps per block, resident
 * blocks per multiprocessor. Shared memory per block, warps * (depth + 1) buffers, stays
 * within the 48 KiB that needs no opt-in. */
struct nd_tiny_cfg {
  int depth;
  int warps;
  int blocks_per_sm;
};

/* Layout of one order in a warp's shared buffer. */
template <typename T, int NM>
struct nd_tiny_geom {
  static constexpr int kBytes = NM * NM * (int)sizeof(T);      /* one matrix */
  static constexpr bool kUnits = kBytes % 16 == 0;             /* whole 16-byte units */
  static constexpr int kU = kBytes / 16;                       /* units per matrix (kUnits) */
  static constexpr bool kPad = kUnits && kU % 2 == 0;          /* pitch kU + 1 */
  static constexpr int kPitch = kPad ? kU + 1 : kU;            /* units (kUnits) */
  static constexpr int kBufBytes = kUnits ? 32 * kPitch * 16 : 32 * kBytes; /* 32 * 4 | 16 */
  static constexpr int kTileUnits = 32 * kBytes / 16;          /* a full tile */
  /* Byte offset in the buffer of the tile's 16-byte unit u. */
  static __device__ __forceinline__ int unit_at(int u) { return 16 * (kPad ? u + u / kU : u); }
};

template <typename T>
__device__ __forceinline__ void nd_swap_if(bool c, T &x, T &y) {
  const T t = x;
  x = c ? y : x;
  y = c ? t : y;
}

__device__ __forceinline__ void nd_cp16(void *s, const void *g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)),
               "l"(g)
               : "memory");
}
__device__ __forceinline__ void nd_cp4(void *s, const void *g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)),
               "l"(g)
               : "memory");
}
__device__ __forceinline__ void nd_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* Waits until at most `pending` of this thread's copy groups are still in flight (0..3). */
__device__ __forceinline__ void nd_cp_wait(int pending) {
  switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
  }
}

/* Starts the copy of `bytes` (a multiple of 4) from g (16-byte aligned) into the buffer; the
 * whole warp calls it. A tile that is not full (the batch's last) ends in 4-byte copies. */
template <typename T, int NM>
__device__ __forceinline__ void nd_tile_in(unsigned char *buf, const unsigned char *g, int64_t bytes,
                                           int lane) {
  typedef nd_tiny_geom<T, NM> G;
  if (bytes == (int64_t)G::kTileUnits * 16) {
#pragma unroll
    for (int u = lane; u < G::kTileUnits; u += 32) nd_cp16(buf + G::unit_at(u), g + 16 * u);
    return;
  }
  const int units = (int)(bytes >> 4);
  for (int u = lane; u < units; u += 32) nd_cp16(buf + G::unit_at(u), g + 16 * u);
  const int words = (int)(bytes & 15) >> 2; /* only when !kUnits: unit_at is the identity */
  if (lane < words) nd_cp4(buf + 16 * units + 4 * lane, g + 16 * units + 4 * lane);
}

/* Stores `bytes` of the buffer to g (16-byte aligned) with coalesced stores; the whole warp. */
template <typename T, int NM>
__device__ __forceinline__ void nd_tile_out(unsigned char *g, const unsigned char *buf, int64_t bytes,
                                            int lane) {
  typedef nd_tiny_geom<T, NM> G;
  if (bytes == (int64_t)G::kTileUnits * 16) {
#pragma unroll
    for (int u = lane; u < G::kTileUnits; u += 32)
      *(uint4 *)(g + 16 * u) = *(const uint4 *)(buf + G::unit_at(u));
    return;
  }
  const int units = (int)(bytes >> 4);
  for (int u = lane; u < units; u += 32) *(uint4 *)(g + 16 * u) = *(const uint4 *)(buf + G::unit_at(u));
  const int words = (int)(bytes & 15) >> 2;
  if (lane < words) *(unsigned *)(g + 16 * units + 4 * lane) = *(const unsigned *)(buf + 16 * units + 4 * lane);
}

/* The lane's matrix from its slot of the buffer, stored in C order (fo false) or F order. The
 * F read is element by element at transposed offsets (about 4-way bank conflicts), so that the
 * C read keeps its 16-byte loads straight into the registers of a[][] with no selects. */
template <typename T, int NM>
__device__ __forceinline__ void nd_slot_read(T (&a)[NM][NM], const unsigned char *buf, int lane, bool fo) {
  typedef nd_tiny_geom<T, NM> G;
  const unsigned char *slot = buf + (G::kUnits ? lane * G::kPitch * 16 : lane * G::kBytes);
  if (fo) {
    const T *s = (const T *)slot;
#pragma unroll
    for (int i = 0; i < NM; i++)
#pragma unroll
      for (int j = 0; j < NM; j++) a[i][j] = s[j * NM + i];
  } else if constexpr (G::kUnits) {
    const uint4 *s = (const uint4 *)slot;
    uint4 v[G::kU];
#pragma unroll
    for (int q = 0; q < G::kU; q++) v[q] = s[q];
    memcpy(&a[0][0], v, sizeof v);
  } else {
    const T *s = (const T *)slot;
#pragma unroll
    for (int i = 0; i < NM; i++)
#pragma unroll
      for (int j = 0; j < NM; j++) a[i][j] = s[i * NM + j];
  }
}

/* The lane's inverse into its slot, C order. */
template <typename T, int NM>
__device__ __forceinline__ void nd_slot_write(unsigned char *buf, const T (&a)[NM][NM], int lane) {
  typedef nd_tiny_geom<T, NM> G;
  if constexpr (G::kUnits) {
    uint4 v[G::kU];
    memcpy(v, &a[0][0], sizeof v);
    uint4 *s = (uint4 *)buf + lane * G::kPitch;
#pragma unroll
    for (int q = 0; q < G::kU; q++) s[q] = v[q];
  } else {
    T *s = (T *)buf + lane * NM * NM;
#pragma unroll
    for (int i = 0; i < NM; i++)
#pragma unroll
      for (int j = 0; j < NM; j++) s[i * NM + j] = a[i][j];
  }
}

/* In-place inverse of a; returns info (0 or the 1-based index of the first zero pivot). SKIP:
 * branch around the selects of a swap that moves nothing. */
template <typename T, int NM, bool SKIP>
__device__ __forceinline__ int nd_tiny_gj(T (&a)[NM][NM]) {
  typedef typename nd_real_of<T>::type R;
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
    if (!SKIP || pr != k) {
#pragma unroll
      for (int r = k + 1; r < NM; r++)
#pragma unroll
        for (int j = 0; j < NM; j++) nd_swap_if(pr == r, a[k][j], a[r][j]);
    }
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
  for (int k = NM - 1; k >= 0; k--) {
    if (!SKIP || piv[k] != k) {
#pragma unroll
      for (int c = k + 1; c < NM; c++)
#pragma unroll
        for (int i = 0; i < NM; i++) nd_swap_if(piv[k] == c, a[i][k], a[i][c]);
    }
  }
  return fail;
}

/* Resident 128-thread blocks asked of the register allocator, which otherwise spends up to the
 * cap on hoisted addresses: the most that compiles without spilling. 8 (64 registers) for
 * matrices of up to 64 bytes, 6 (80) up to 144 bytes of 4- and 8-byte elements, 3 (168) for
 * 4 x 4 complex128, else 4 (128; an 8 x 8 float matrix alone is 64). */
template <typename T, int NM>
constexpr int nd_tiny_min_blocks() {
  return NM * NM * sizeof(T) <= 64                        ? 8
         : NM * NM * sizeof(T) <= 144 && sizeof(T) <= 8 ? 6
         : sizeof(T) == 16 && NM == 4                    ? 3
                                                         : 4;
}

template <typename T, int NM, bool SKIP, bool SOLVE>
__global__ void __launch_bounds__(128, (nd_tiny_min_blocks<T, NM>())) k_inv_tiny(nd_lk_gj p, int depth) {
  typedef nd_tiny_geom<T, NM> G;
  extern __shared__ __align__(16) unsigned char nd_smem[];
  const int64_t nn = (int64_t)NM * NM;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
  const int nbuf = depth + 1;
  unsigned char *wbuf = nd_smem + (size_t)warp * nbuf * G::kBufBytes;
  const T *A = (const T *)p.a.data;
  T *X = (T *)p.x.data;
  const bool a_c = p.a.bs == nn && p.a.rs == NM && p.a.cs == 1;
  const bool a_f = !a_c && p.a.bs == nn && p.a.rs == 1 && p.a.cs == NM;
  const bool a_st = (a_c || a_f) && ((uintptr_t)A & 15) == 0;
  const bool x_st = !SOLVE && p.x.bs == nn && p.x.rs == NM && p.x.cs == 1 && ((uintptr_t)X & 15) == 0;
  const int64_t ntiles = (p.batch + 31) / 32;
  const int64_t W = (int64_t)gridDim.x * wpb;
  const int64_t w0 = (int64_t)blockIdx.x * wpb + warp;

  /* Tile t into buffer i; one commit group per call, empty past the batch, so that "tile k
   * has arrived" is always "at most depth groups pending". */
  auto fetch = [&](int64_t t, int i) {
    if (t < ntiles) {
      const int64_t m = p.batch - t * 32 < 32 ? p.batch - t * 32 : 32;
      nd_tile_in<T, NM>(wbuf + (size_t)i * G::kBufBytes, (const unsigned char *)(A + t * 32 * nn),
                        m * G::kBytes, lane);
    }
    nd_cp_commit();
  };
  if (a_st)
    for (int d = 0; d < depth; d++) fetch(w0 + d * W, d);

  int bi = 0; /* buffer of the current tile; the previous tile's is bi - 1 (mod nbuf) */
  for (int64_t t = w0; t < ntiles; t += W) {
    unsigned char *buf = wbuf + (size_t)bi * G::kBufBytes;
    if (a_st) {
      /* the buffer of tile t + depth was the previous tile's, released at its end */
      fetch(t + (int64_t)depth * W, bi == 0 ? nbuf - 1 : bi - 1);
      nd_cp_wait(depth);
      __syncwarp();
    }
    const int64_t b = t * 32 + lane;
    if (b < p.batch) {
      T a[NM][NM];
      if (a_st) {
        nd_slot_read<T, NM>(a, buf, lane, a_f);
      } else {
        const T *src = A + b * p.a.bs;
#pragma unroll
        for (int i = 0; i < NM; i++)
#pragma unroll
          for (int j = 0; j < NM; j++) a[i][j] = src[i * p.a.rs + j * p.a.cs];
      }
      const int fail = nd_tiny_gj<T, NM, SKIP>(a);
      if constexpr (SOLVE) {
        /* x = inverse(a) @ b, one right-hand side at a time */
        const T *B = (const T *)p.b.data + b * p.b.bs;
        T *xb = X + b * p.x.bs;
#pragma unroll 1
        for (int64_t c = 0; c < p.nrhs; c++) {
          T v[NM];
#pragma unroll
          for (int j = 0; j < NM; j++) v[j] = B[j * p.b.rs + c * p.b.cs];
#pragma unroll
          for (int i = 0; i < NM; i++) {
            T acc = nd_zero<T>();
#pragma unroll
            for (int j = 0; j < NM; j++) acc = acc + a[i][j] * v[j];
            xb[i * p.x.rs + c * p.x.cs] = acc;
          }
        }
      } else if (x_st) {
        nd_slot_write<T, NM>(buf, a, lane); /* the lane's own slot: no other lane reads it yet */
      } else {
        T *dst = X + b * p.x.bs;
#pragma unroll
        for (int i = 0; i < NM; i++)
#pragma unroll
          for (int j = 0; j < NM; j++) dst[i * p.x.rs + j * p.x.cs] = a[i][j];
      }
      if (p.info != NULL) p.info[b] = fail;
      if (fail && p.first != NULL) atomicMin(p.first, (unsigned long long)b);
    }
    if (x_st) {
      __syncwarp();
      const int64_t m = p.batch - t * 32 < 32 ? p.batch - t * 32 : 32;
      nd_tile_out<T, NM>((unsigned char *)(X + t * 32 * nn), buf, m * G::kBytes, lane);
    }
    __syncwarp(); /* every lane is done with buf before a later fetch refills it */
    bi = bi + 1 == nbuf ? 0 : bi + 1;
  }
  if (a_st) nd_cp_wait(0); /* the empty groups committed past the last tile */
}

/* Default launch shapes. Big tiles (n = 6..8 float, 3 x 3 complex128, 4 x 4 of the others): a
 * prefetched tile per warp and 12 warps per multiprocessor, so that a warp's next tile is on its
 * way while it computes. Small tiles: no prefetch, as many 4-warp blocks as the registers allow
 * (nd_tiny_min_blocks: up to 32 warps). */
template <typename T, int NM>
nd_tiny_cfg nd_tiny_default() {
  if (nd_tiny_geom<T, NM>::kBufBytes >= 4096) return {1, 2, 6};
  return {0, 4, nd_tiny_min_blocks<T, NM>()};
}

template <typename T, int NM>
nd_status nd_tiny_launch(const nd_lk_gj *p, cudaStream_t st) {
  typedef nd_tiny_geom<T, NM> G;
  nd_tiny_cfg c = nd_tiny_default<T, NM>();
  const int64_t tiles = (p->batch + 31) / 32;
  int64_t want = (tiles + c.warps - 1) / c.warps;
  const int64_t cap = (int64_t)nd_k_sm_count() * c.blocks_per_sm;
  if (want > cap) want = cap;
  if (want < 1) want = 1;
  const size_t smem = (size_t)c.warps * (c.depth + 1) * G::kBufBytes;
  if (p->mode == ND_LK_SOLVE)
    nd_k_launch<k_inv_tiny<T, NM, true, true>>((unsigned)want, 32 * c.warps, smem, st, *p, c.depth);
  else
    nd_k_launch<k_inv_tiny<T, NM, true, false>>((unsigned)want, 32 * c.warps, smem, st, *p, c.depth);
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
  if ((p->mode != ND_LK_INV && p->mode != ND_LK_SOLVE) || !nd_lk_inv_tiny_ok(p->dtype, p->n))
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
