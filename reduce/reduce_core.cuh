/* Device templates shared by the reduction instance files (reduce_sum.cu, reduce_minmax.cu,
 * reduce_stats.cu). Each instance is a pair (Op, Load):
 * - Op is a small functor: Val (what a loaded element becomes), Acc (the running state),
 *   identity(), make(x, k, row) (one element at reduced index k), combine(a, b) (associative
 *   and commutative; argmin/argmax break ties by index, so they need no ordering), and
 *   result(acc, P) (the finished value as a tagged nd_kval of the result dtype's kind).
 *   Flags (sum vs product, NaN skipping, min vs max, ...) are runtime words: one branch that
 *   every thread takes the same way costs far less than a template instance per variant.
 * - Load reads one element: LoadTyped<T> for the hot dtypes (a plain typed load, which lets
 *   contiguous rows use 16-byte vector loads), LoadGeneric for every other dtype (the tagged
 *   loads of convert.cuh, optionally through the "via" dtype, see nd__reduce_via).
 *
 * Launch geometry (the host planner in reduce/reduce_plan.c picks the mode):
 * - ROWS: 256-thread blocks; groups of `lanes` threads (1..32, or the whole block) own one
 *   output and stride through its k range, then combine with xor-shuffles (and shared memory
 *   for whole-block groups). With `splits` > 1 (few long rows, e.g. a full reduction), the
 *   grid is M x splits blocks, each reduces one chunk and writes a partial; the last block to
 *   arrive at a row (an atomic ticket) combines the partials and writes the output, so one
 *   launch does the whole reduction.
 * - COLS: one thread per output, consecutive threads on consecutive outputs, so each step
 *   through k is one coalesced row of loads (reducing the leading axis of a C-contiguous
 *   array); grid.y splits the k range when there are too few outputs to fill the device,
 *   finished the same way by the last block of each column block.
 * Loads are unrolled (4 vectors per lane in ROWS, 16 rows per thread in COLS) so that every
 * thread has several independent loads in flight. Kernels are bounded to 64 registers
 * (__launch_bounds__(256, 4)) so that four blocks per SM are always resident; grids are
 * sized to that (reduce/reduce_plan.h ND__RED_BLOCKS_PER_SM) to run in one wave. */
#ifndef ND_REDUCE_CORE_CUH
#define ND_REDUCE_CORE_CUH

#include <type_traits>

#include "kernels/launch.cuh"
#include "reduce/reduce_ops.cuh"

namespace ndr {

/* ---- building blocks ------------------------------------------------------------------------ */

/* Shuffles any accumulator (a trivially copyable struct whose size is a multiple of 4). */
template <class T>
__device__ __forceinline__ T shfl_xor(const T &v, int off) {
  static_assert(sizeof(T) % 4 == 0, "accumulators are made of 4- and 8-byte fields");
  unsigned w[sizeof(T) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = __shfl_xor_sync(0xffffffffu, w[i], off);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

/* Reads a partial written by another block, bypassing L1. */
template <class T>
__device__ __forceinline__ T ldcg(const T *p) {
  unsigned w[sizeof(T) / 4];
  const unsigned *q = (const unsigned *)p;
#pragma unroll
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = __ldcg(q + i);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

/* Whole-block combine; the result is valid in thread 0. Safe to call repeatedly. */
template <class Op>
__device__ __noinline__ typename Op::Acc block_reduce(const Op &op, typename Op::Acc v,
                                                         typename Op::Acc *sh) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  /* Not unrolled: this runs once per output, and unrolled copies of a branchy combine
   * (argmin/argmax) were most of each kernel's code. */
#pragma unroll 1
  for (int off = 16; off > 0; off >>= 1) v = op.combine(v, shfl_xor(v, off));
  __syncthreads();
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : op.identity();
#pragma unroll 1
    for (int off = 16; off > 0; off >>= 1) v = op.combine(v, shfl_xor(v, off));
  }
  return v;
}

__device__ __forceinline__ int64_t roff(const nd_kreduce &P, int64_t k) {
  int64_t o = 0;
  for (int d = P.nr - 1; d > 0; --d) {
    int64_t n = P.rshape[d], q = k / n;
    o += (k - q * n) * P.rin[d];
    k = q;
  }
  if (P.nr > 0) o += k * P.rin[0];
  return o;
}

__device__ __forceinline__ void koff(const nd_kreduce &P, int64_t m, int64_t &oi, int64_t &oo) {
  oi = 0;
  oo = 0;
  for (int d = P.nk - 1; d > 0; --d) {
    int64_t n = P.kshape[d], q = m / n, r = m - q * n;
    oi += r * P.kin[d];
    oo += r * P.kout[d];
    m = q;
  }
  if (P.nk > 0) {
    oi += m * P.kin[0];
    oo += m * P.kout[0];
  }
}

/* Stores a finished value, out of line for the same reason as load_tagged: it runs once per
 * output. The value is formed in NumPy's result dtype first (integer wrap, float16
 * rounding), then cast to the caller's out dtype. */
static __device__ __noinline__ void store_tagged(int res_dtype, int out_dtype, char *o, nd_kval v) {
  if (res_dtype == out_dtype) {
    nd_store(out_dtype, o, v);
  } else {
    uint4 tmp;
    nd_store(res_dtype, (char *)&tmp, v);
    nd_store(out_dtype, o, nd_load(res_dtype, (const char *)&tmp));
  }
}

template <class Op>
__device__ __forceinline__ void store_result(const nd_kreduce &P, const Op &op,
                                             const typename Op::Acc &a, int64_t oo) {
  store_tagged(P.res_dtype, P.out_dtype, P.out + oo, op.result(a, P));
}

/* Reduces elements [k0, k1) of one output, this thread taking k0 + lane, k0 + lane + lanes, ... */
template <class Op, class Ld>
__device__ __forceinline__ typename Op::Acc row_scalar(const nd_kreduce &P, const Op &op,
                                                       const Ld &ld, const char *base,
                                                       const typename Op::Row &r, int64_t k0,
                                                       int64_t k1, int lane, int lanes) {
  typedef typename Op::Val V;
  typename Op::Acc acc = op.identity();
  const int64_t s = lanes;
  int64_t k = k0 + lane;
  if (P.nr <= 1) {
    const int64_t st = P.nr == 1 ? P.rin[0] : 0;
    for (; Ld::typed && k + 3 * s < k1; k += 4 * s) {
      V x0 = ld.template get<V>(base + k * st);
      V x1 = ld.template get<V>(base + (k + s) * st);
      V x2 = ld.template get<V>(base + (k + 2 * s) * st);
      V x3 = ld.template get<V>(base + (k + 3 * s) * st);
      acc = push(op, acc, x0, k, r);
      acc = push(op, acc, x1, k + s, r);
      acc = push(op, acc, x2, k + 2 * s, r);
      acc = push(op, acc, x3, k + 3 * s, r);
    }
    for (; k < k1; k += s) acc = push(op, acc, ld.template get<V>(base + k * st), k, r);
  } else {
    for (; k < k1; k += s) acc = push(op, acc, ld.template get<V>(base + roff(P, k)), k, r);
  }
  return acc;
}

template <class Op, class T>
__device__ __forceinline__ typename Op::Acc consume16(const Op &op, typename Op::Acc acc, uint4 q,
                                                      int64_t k, const typename Op::Row &r) {
  typedef typename Op::Val V;
  const int n = 16 / (int)sizeof(T);
  T e[16 / sizeof(T)];
  memcpy(e, &q, 16);
#pragma unroll
  for (int j = 0; j < n; j++) acc = push(op, acc, cvt_<V, T>(e[j]), k + j, r);
  return acc;
}

/* How many 16-byte loads a lane of row_vector keeps in flight for Op: 8 unless Op says
 * otherwise (Op::kLoads: 4 for the ops whose state, eight loads and the loop did not fit the
 * registers of four blocks of 256 threads without spilling). */
template <class Op, class = void>
struct row_loads {
  static constexpr int value = 8;
};
template <class Op>
struct row_loads<Op, std::void_t<decltype(Op::kLoads)>> {
  static constexpr int value = Op::kLoads;
};

/* Contiguous rows of a typed input: aligned 16-byte loads, eight per lane in flight (128
 * bytes a lane, 128 KB an SM at four blocks of 256: a streaming read needs tens of KB in
 * flight per SM to cover the memory latency, and a batch of loads drains to nothing before
 * the next is issued; see row_loads), then four, with a scalar head up to the first 16-byte
 * boundary and a scalar tail. */
template <class Op, class Ld>
__device__ __forceinline__ typename Op::Acc row_vector(const Op &op, const char *base,
                                                       const typename Op::Row &r, int64_t k0,
                                                       int64_t k1, int lane, int lanes) {
  typedef typename Ld::type T;
  typedef typename Op::Val V;
  const int VE = 16 / (int)sizeof(T);
  const T *p = (const T *)base;
  const uintptr_t a0 = (uintptr_t)(p + k0);
  typename Op::Acc acc = op.identity();
  int64_t kv = k0 + (int64_t)(((16 - (a0 & 15)) & 15) / sizeof(T));
  if (kv > k1) kv = k1;
  for (int64_t k = k0 + lane; k < kv; k += lanes) acc = push(op, acc, cvt_<V, T>(p[k]), k, r);
  const int64_t nv = (k1 - kv) / VE;
  const uint4 *vp = (const uint4 *)(p + kv);
  int64_t v = lane;
  if constexpr (row_loads<Op>::value == 8) {
    for (; v + 7 * lanes < nv; v += 8 * lanes) {
      uint4 q[8];
#pragma unroll
      for (int j = 0; j < 8; j++) q[j] = __ldg(vp + v + j * lanes);
#pragma unroll
      for (int j = 0; j < 8; j++) acc = consume16<Op, T>(op, acc, q[j], kv + (v + j * lanes) * VE, r);
    }
  }
  for (; v + 3 * lanes < nv; v += 4 * lanes) {
    uint4 q0 = __ldg(vp + v), q1 = __ldg(vp + v + lanes), q2 = __ldg(vp + v + 2 * lanes),
          q3 = __ldg(vp + v + 3 * lanes);
    acc = consume16<Op, T>(op, acc, q0, kv + v * VE, r);
    acc = consume16<Op, T>(op, acc, q1, kv + (v + lanes) * VE, r);
    acc = consume16<Op, T>(op, acc, q2, kv + (v + 2 * lanes) * VE, r);
    acc = consume16<Op, T>(op, acc, q3, kv + (v + 3 * lanes) * VE, r);
  }
  for (; v < nv; v += lanes) acc = consume16<Op, T>(op, acc, __ldg(vp + v), kv + v * VE, r);
  for (int64_t k = kv + nv * VE + lane; k < k1; k += lanes)
    acc = push(op, acc, cvt_<V, T>(p[k]), k, r);
  return acc;
}

/* One output's partial over [k0, k1). Kept out of line (one copy per instance: the kernels
 * call it from one place each, and inlining the loops into every caller multiplied ptxas
 * time). */
template <class Op, class Ld>
__device__ __noinline__ typename Op::Acc row_acc(const nd_kreduce &P, const Op op, const Ld ld,
                                                 const char *base, int64_t m, int64_t k0,
                                                 int64_t k1, int lane, int lanes) {
  typename Op::Row r = op.row(m);
  if constexpr (Ld::typed) {
    typedef typename Ld::type T;
    if (P.rcontig && (uintptr_t)(base + k0 * (int64_t)sizeof(T)) % sizeof(T) == 0)
      return row_vector<Op, Ld>(op, base, r, k0, k1, lane, lanes);
  }
  return row_scalar(P, op, ld, base, r, k0, k1, lane, lanes);
}

template <class Op, class Ld>
__global__ void __launch_bounds__(256, 4)
    k_rows(const __grid_constant__ nd_kreduce P, const Op op, const Ld ld, typename Op::Acc *part,
           unsigned *ctr) {
  typedef typename Op::Acc A;
  __shared__ A sh[8];
  __shared__ int last;
  const int tid = threadIdx.x;
  /* Without splits, groups of `lanes` threads take rows mb + g in a grid-stride loop; with
   * splits (lanes == 256), block b takes chunk b % splits of row b / splits, once. */
  const bool split = P.splits > 1;
  const int lanes = P.lanes, rpb = 256 / lanes;
  const int g = tid / lanes, lane = tid % lanes;
  const int64_t step = split ? INT64_MAX : (int64_t)gridDim.x * rpb;
  for (int64_t mb = split ? (int64_t)blockIdx.x / P.splits : (int64_t)blockIdx.x * rpb; mb < P.M;
       mb = step > P.M - mb ? P.M : mb + step) {
    const int64_t m = mb + g;
    const bool valid = m < P.M;
    const int64_t s = split ? (int64_t)blockIdx.x % P.splits : 0;
    const int64_t k0 = s * P.chunk, k1 = split && k0 + P.chunk < P.K ? k0 + P.chunk : P.K;
    A acc = op.identity();
    int64_t oi = 0, oo = 0;
    if (valid) {
      koff(P, m, oi, oo);
      acc = row_acc(P, op, ld, P.in + oi, m, k0, k1, lane, lanes);
    }
    if (lanes < 256) {
      /* Groups of `lanes` are aligned within the warp, so xor offsets below `lanes` stay in
       * the group; every lane of the warp runs the same number of steps. */
#pragma unroll 1
      for (int off = lanes / 2; off > 0; off >>= 1) acc = op.combine(acc, shfl_xor(acc, off));
      if (valid && lane == 0) store_result(P, op, acc, oo);
      continue;
    }
    acc = block_reduce(op, acc, sh);
    if (split) {
      /* The last block of this row to arrive combines the partials. */
      if (tid == 0) {
        part[m * P.splits + s] = acc;
        __threadfence();
        unsigned t = atomicAdd(&ctr[m], 1u);
        last = t == (unsigned)(P.splits - 1);
      }
      __syncthreads();
      if (!last) continue;
      __threadfence();
      acc = op.identity();
#pragma unroll 1
      for (int64_t j = tid; j < P.splits; j += 256) acc = op.combine(acc, ldcg(&part[m * P.splits + j]));
      acc = block_reduce(op, acc, sh);
    }
    if (tid == 0) store_result(P, op, acc, oo);
  }
}

/* Walks k sequentially for one output, ND__COL_UNROLL loads in flight. Each load is one element
 * per thread (a warp reads 32 neighbours of one row), so it takes this many in flight per
 * thread to keep the ~20-30 KB per SM in flight that covers the memory latency at full
 * bandwidth: 16 x 4 bytes x 1024 resident threads is 64 KB per SM for float32; 8 gave 32 KB,
 * little margin once the saw-tooth between batches (all in flight, then none) is counted. */
#define ND__COL_UNROLL 16
template <class Op, class Ld>
__device__ __noinline__ typename Op::Acc col_acc(const nd_kreduce &P, const Op op, const Ld ld,
                                                    const char *base, int64_t m, int64_t k0,
                                                    int64_t k1) {
  typedef typename Op::Val V;
  typename Op::Row r = op.row(m);
  typename Op::Acc acc = op.identity();
  int64_t k = k0;
  if (P.nr <= 1) {
    const int64_t st = P.nr == 1 ? P.rin[0] : 0;
    const char *p = base + k0 * st;
    for (; Ld::typed && k + (ND__COL_UNROLL - 1) < k1; k += ND__COL_UNROLL, p += ND__COL_UNROLL * st) {
      V x[ND__COL_UNROLL];
#pragma unroll
      for (int j = 0; j < ND__COL_UNROLL; j++) x[j] = ld.template get<V>(p + j * st);
#pragma unroll
      for (int j = 0; j < ND__COL_UNROLL; j++) acc = push(op, acc, x[j], k + j, r);
    }
    for (; k < k1; k++, p += st) acc = push(op, acc, ld.template get<V>(p), k, r);
  } else {
    for (; k < k1; k++) acc = push(op, acc, ld.template get<V>(base + roff(P, k)), k, r);
  }
  return acc;
}

template <class Op, class Ld>
__global__ void __launch_bounds__(256, 4)
    k_cols(const __grid_constant__ nd_kreduce P, const Op op, const Ld ld, typename Op::Acc *part,
           unsigned *ctr) {
  typedef typename Op::Acc A;
  __shared__ int last;
  const int64_t colblocks = (P.M + 255) / 256;
  const int64_t s = blockIdx.y;
  const int64_t k0 = s * P.chunk, k1 = k0 + P.chunk < P.K ? k0 + P.chunk : P.K;
  for (int64_t cb = blockIdx.x; cb < colblocks; cb += gridDim.x) {
    const int64_t m = cb * 256 + threadIdx.x;
    const bool valid = m < P.M;
    A acc = op.identity();
    int64_t oi = 0, oo = 0;
    if (valid) {
      koff(P, m, oi, oo);
      acc = col_acc(P, op, ld, P.in + oi, m, k0, k1);
    }
    if (P.splits == 1) {
      if (valid) store_result(P, op, acc, oo);
      continue;
    }
    if (valid) part[s * P.M + m] = acc;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned t = atomicAdd(&ctr[cb], 1u);
      last = t == (unsigned)(P.splits - 1);
    }
    __syncthreads();
    if (last) {
      __threadfence();
      if (valid) {
        A a = op.identity();
#pragma unroll 1
        for (int64_t j = 0; j < P.splits; j++) a = op.combine(a, ldcg(&part[j * P.M + m]));
        store_result(P, op, a, oo);
      }
    }
    __syncthreads();
  }
}

/* Workspace: partials then one arrival counter per output (ROWS) or column block (COLS). */
template <class Op>
__host__ inline void workspace_layout(const nd_kreduce *P, size_t *part_bytes, size_t *nctr) {
  *part_bytes = 0;
  *nctr = 0;
  if (P->splits <= 1 || P->M == 0) return;
  *part_bytes = ((size_t)(P->M * P->splits) * sizeof(typename Op::Acc) + 255) / 256 * 256;
  *nctr = P->mode == ND_KRM_ROWS ? (size_t)P->M : (size_t)((P->M + 255) / 256);
}

template <class Op, class Ld>
nd_status launch(const nd_kreduce *P, const Op &op, const Ld &ld, void *ws, size_t *ws_bytes,
                 cudaStream_t st) {
  typedef typename Op::Acc A;
  size_t part_bytes, nctr;
  workspace_layout<Op>(P, &part_bytes, &nctr);
  if (ws_bytes != NULL) {
    *ws_bytes = part_bytes + nctr * sizeof(unsigned);
    return ND_OK;
  }
  if (P->M == 0) return ND_OK;
  A *part = (A *)ws;
  unsigned *ctr = (unsigned *)((char *)ws + part_bytes);
  if (nctr > 0) {
    nd_status s = ND_CUDA(cudaMemsetAsync(ctr, 0, nctr * sizeof(unsigned), st));
    if (s != ND_OK) return s;
  }
  if (P->mode == ND_KRM_ROWS) {
    int64_t grid;
    if (P->splits > 1) {
      grid = P->M * P->splits;
    } else {
      int64_t rpb = 256 / P->lanes;
      grid = (P->M + rpb - 1) / rpb;
      /* At most as many blocks as are resident (see __launch_bounds__), sized so that every
       * block walks the same number of row groups: with 16384 rows and 528 slots, 512 blocks
       * of 32 rows each rather than 528 blocks of which 16 take a 32nd row while the rest of
       * the device idles. */
      const int64_t cap = (int64_t)nd_k_sm_count() * 4;
      if (grid > cap) {
        const int64_t rounds = (grid + cap - 1) / cap;
        grid = (grid + rounds - 1) / rounds;
      }
    }
    return ND_CUDA((nd_k_go<k_rows<Op, Ld>>(dim3((unsigned)grid), dim3(256), 0, st, *P, op, ld, part, ctr)));
  }
  const dim3 grid(nd_k_grid_x((P->M + 255) / 256), (unsigned)P->splits);
  return ND_CUDA((nd_k_go<k_cols<Op, Ld>>(grid, dim3(256), 0, st, *P, op, ld, part, ctr)));
}

}  // namespace ndr

#endif /* ND_REDUCE_CORE_CUH */
