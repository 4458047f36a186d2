/* The one elementwise mechanism: device types, the three kernel paths and the instance
 * launcher, shared by the op-family files elementwise/elementwise_*.cu.
 *
 * An operation is a functor type Op with
 *   typedef R, A0, A1, A2;      result and input element types (device storage types)
 *   enum { nin, heavy, tile };   number of inputs (1..3); heavy = costly math (no unrolling);
 *                                tile = has a tiled instance for transposed operands
 *   __device__ Op(const nd_kparams &);
 *   __device__ R operator()(A0 [, A1 [, A2]]) const;
 * Instances exist per (op, key) only: inputs arrive already converted to the instance's
 * input types (the host casts mixed dtypes first), so no per-pair templates are needed.
 * Functions of one family that cost the same (the six comparisons, logical and/bitwise
 * and/or/xor, the two shifts, floor_divide/remainder/fmod, maximum/minimum/fmax/fmin, the
 * classification and rounding functions) share one instance per dtype and branch on
 * params.op, which is uniform across the grid: this divides the instance count (and the
 * build time) by up to six at the price of a predictable branch per element in kernels that
 * are bound by memory bandwidth. The tiled path is compiled for the arithmetic, comparison
 * and extremum families only; other functions read a transposed operand on the strided path.
 *
 * Paths, chosen per call from the collapsed loop (the host has permuted the axes so that the
 * output's smallest stride is last):
 * - vec: one or two collapsed dimensions (rows x cols), every operand contiguous along cols
 *   or constant along cols (stride 0: a scalar, a broadcast row or column). Each thread moves
 *   V = 16 / (largest input size) elements per access (16-byte loads), U vectors per thread
 *   (vunroll: four for one input, two for two or three or for light float32 math, one
 *   for costly math), plain stores. The work is cut into units of U * 256 vectors of one
 *   row, one unit per 256-thread block, as many blocks as the work needs (see vec_grid;
 *   beyond the grid limit the units are dealt round-robin), for one long row and for many
 *   broadcast rows alike; a broadcast row operand is re-read from L2. With streaming-hint
 *   stores and 64-bit unit arithmetic, add reached 86% of the copy rate on the H200; with
 *   plain stores and 32-bit arithmetic 103% (bench/RESULTS.md). Requires each contiguous
 *   operand and row stride to be aligned to its access size; otherwise the strided path
 *   runs. Float32 operations of one or two float32 inputs that are not costly (exp, sin,
 *   sqrt, add, multiply, ...) over one contiguous row (no scalar or broadcast operand) take
 *   k_flat instead: one float4 of each input per thread, one block per 256 of them, no row or
 *   unit arithmetic (with one vector per thread, k_vec's set-up is as many instructions as the
 *   work: bench/RESULTS.md, 2026-11-27 13:12-13:42).
 * - tiled: two dimensions where the output is contiguous along cols but input 0 or 1 is
 *   contiguous along rows (a transposed operand). A 32x32 tile of such an input goes through
 *   shared memory (padded to 33 columns against bank conflicts), so that its reads are
 *   coalesced too, as kernels/copy.cu's transpose. Blocks of 32x8 threads, 4 elements per
 *   thread; the operands read directly are loaded into registers before the barrier, so that
 *   they are in flight together with the tile's loads.
 * - strided: anything else. One element per thread per step; byte offsets from the C-order
 *   linear index by peeling dimensions from the last, in 64-bit arithmetic.
 * All indices are 64-bit: arrays beyond 2^31 elements work on every path. */
#ifndef ND_ELEMENTWISE_CUH
#define ND_ELEMENTWISE_CUH

#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "kernels/cspecial.cuh"
#include "elementwise/elementwise.h"
#include "kernels/launch.cuh"

namespace ndk {

/* ---- device element types ------------------------------------------------------------- */

template <class F>
struct alignas(2 * sizeof(F)) cplx {
  F re, im;
};
typedef cplx<float> c64;
typedef cplx<double> c128;

template <class F>
__host__ __device__ __forceinline__ cplx<F> mk(F re, F im) {
  cplx<F> z;
  z.re = re;
  z.im = im;
  return z;
}

/* nd_dtype of a device type. */
template <class T> struct dt_of;
template <> struct dt_of<bool> { enum { v = 0 }; };
template <> struct dt_of<int8_t> { enum { v = 1 }; };
template <> struct dt_of<int16_t> { enum { v = 2 }; };
template <> struct dt_of<int32_t> { enum { v = 3 }; };
template <> struct dt_of<int64_t> { enum { v = 4 }; };
template <> struct dt_of<uint8_t> { enum { v = 5 }; };
template <> struct dt_of<uint16_t> { enum { v = 6 }; };
template <> struct dt_of<uint32_t> { enum { v = 7 }; };
template <> struct dt_of<uint64_t> { enum { v = 8 }; };
template <> struct dt_of<__half> { enum { v = 9 }; };
template <> struct dt_of<float> { enum { v = 10 }; };
template <> struct dt_of<double> { enum { v = 11 }; };
template <> struct dt_of<c64> { enum { v = 12 }; };
template <> struct dt_of<c128> { enum { v = 13 }; };

template <class T> struct is_cplx { enum { v = 0 }; };
template <class F> struct is_cplx<cplx<F> > { enum { v = 1 }; };

/* Integer types other than bool. */
template <class T>
struct is_int {
  enum { v = std::is_integral<T>::value && !std::is_same<T, bool>::value };
};

/* Unsigned twin of an integer type (for wrapping arithmetic without undefined behaviour). */
template <class T, bool I = is_int<T>::v> struct uns { typedef T type; };
template <class T> struct uns<T, true> { typedef typename std::make_unsigned<T>::type type; };

/* ---- operation helpers ---------------------------------------------------------------- */

/* Common base: R result, A the inputs, N inputs. */
template <class R_, class A_, int N, int HEAVY = 0, int TILE = 0>
struct base {
  typedef R_ R;
  typedef A_ A0;
  typedef A_ A1;
  typedef A_ A2;
  enum { nin = N, heavy = HEAVY, tile = TILE };
  __device__ __forceinline__ explicit base(const nd_kparams &) {}
};

/* float16 storage with float computation: F<float> does the math, inputs widen to float,
 * float results round once to half (NumPy's half loops). bool and other types pass through. */
template <class X> struct hstore { typedef X type; };
template <> struct hstore<float> { typedef __half type; };

__device__ __forceinline__ float hin(__half x) { return __half2float(x); }
template <class X> __device__ __forceinline__ X hin(X x) { return x; }
template <class R> __device__ __forceinline__ R hout(float x);
template <> __device__ __forceinline__ __half hout<__half>(float x) { return __float2half_rn(x); }
template <class R, class X> __device__ __forceinline__ R hout(X x) { return (R)x; }

template <template <class> class F>
struct via_half {
  typedef F<float> Fn;
  typedef typename hstore<typename Fn::R>::type R;
  typedef typename hstore<typename Fn::A0>::type A0;
  typedef typename hstore<typename Fn::A1>::type A1;
  typedef typename hstore<typename Fn::A2>::type A2;
  enum { nin = Fn::nin, heavy = Fn::heavy, tile = Fn::tile };
  Fn f;
  __device__ __forceinline__ explicit via_half(const nd_kparams &p) : f(p) {}
  __device__ __forceinline__ R operator()(A0 a) const { return hout<R>(f(hin(a))); }
  __device__ __forceinline__ R operator()(A0 a, A1 b) const { return hout<R>(f(hin(a), hin(b))); }
  __device__ __forceinline__ R operator()(A0 a, A1 b, A2 c) const {
    return hout<R>(f(hin(a), hin(b), hin(c)));
  }
};

/* Ops that handle __half themselves (intermediate roundings matter) say so here. */
template <template <class> class F> struct native_half { enum { v = 0 }; };

template <template <class> class F, class T, int N = native_half<F>::v>
struct pick { typedef F<T> type; };
template <template <class> class F>
struct pick<F, __half, 0> { typedef via_half<F> type; };

/* ---- vector packs --------------------------------------------------------------------- */

template <class T, int V>
struct alignas((sizeof(T) * V) < 16 ? (sizeof(T) * V) : 16) pack {
  T v[V];
};

template <class Op>
struct vwidth {
  enum {
    s0 = sizeof(typename Op::A0),
    s1 = Op::nin > 1 ? sizeof(typename Op::A1) : 1,
    s2 = Op::nin > 2 ? sizeof(typename Op::A2) : 1,
    m01 = s0 > s1 ? s0 : s1,
    m = m01 > s2 ? m01 : s2,
    v = 16 / m > 0 ? 16 / m : 1
  };
};

template <class T>
__device__ __forceinline__ T scalar_value(const nd_kscalar &s) {
  T x;
  memcpy(&x, s.bytes, sizeof(T));
  return x;
}

template <class Op>
__device__ __forceinline__ typename Op::R call(const Op &op, const typename Op::A0 &a,
                                               const typename Op::A1 &b,
                                               const typename Op::A2 &c) {
  if constexpr (Op::nin == 1)
    return op(a);
  else if constexpr (Op::nin == 2)
    return op(a, b);
  else
    return op(a, b, c);
}

/* ---- kernel arguments ----------------------------------------------------------------- */

/* The vec path's work units in a row of cols elements: units of `per` vectors of v elements
 * (the row's last cols % v elements are taken after them, by k_vec's tail loop). k_vec walks
 * them and vec_grid sizes the grid by them. */
__host__ __device__ __forceinline__ int64_t vec_units_per_row(int64_t cols, int v, int64_t per) {
  return (cols / v + per - 1) / per;
}

template <int N>
struct vec_args {
  int64_t rows, cols;
  char *out;
  int64_t out_rs;
  const char *in[N];
  int64_t in_rs[N];
  unsigned uni; /* input constant along a row (stride 0 along cols) */
  unsigned sca; /* input is the host value s[i] */
  nd_kscalar s[N];
};

template <int N>
struct str_args {
  nd_kloop L;
  char *out;
  int64_t os[ND_MAXDIMS];
  const char *in[N];
  int64_t is[N][ND_MAXDIMS];
  unsigned sca;
  nd_kscalar s[N];
};

template <int N>
struct tile_args {
  int64_t rows, cols;
  char *out;
  int64_t ors, ocs;
  const char *in[N];
  int64_t irs[N], ics[N];
  unsigned tmask; /* inputs read through a shared-memory tile (only inputs 0 and 1) */
  unsigned sca;
  nd_kscalar s[N];
};

/* One input of the vec path within one row. */
template <class A, int V>
struct vsrc {
  const char *p;
  A u;
  bool uniform;
  template <int N>
  __device__ __forceinline__ void init(const vec_args<N> &a, int i, int64_t r) {
    p = a.in[i] + r * a.in_rs[i];
    uniform = ((a.uni | a.sca) >> i) & 1;
    if ((a.sca >> i) & 1)
      u = scalar_value<A>(a.s[i]);
    else if (uniform)
      u = *(const A *)p;
  }
  __device__ __forceinline__ pack<A, V> vload(int64_t j) const {
    pack<A, V> x;
    if (uniform) {
#pragma unroll
      for (int k = 0; k < V; k++) x.v[k] = u;
    } else {
      x = *(const pack<A, V> *)(p + j * (int64_t)(V * sizeof(A)));
    }
    return x;
  }
  __device__ __forceinline__ A load(int64_t k) const {
    return uniform ? u : ((const A *)p)[k];
  }
};

template <class Op, int V>
struct vpacks {
  pack<typename Op::A0, V> x0;
  pack<typename Op::A1, V> x1;
  pack<typename Op::A2, V> x2;
};

template <class Op, int V>
struct vrow {
  vsrc<typename Op::A0, V> s0;
  vsrc<typename Op::A1, V> s1;
  vsrc<typename Op::A2, V> s2;
  char *o;
  __device__ __forceinline__ void init(const vec_args<Op::nin> &a, int64_t r) {
    s0.init(a, 0, r);
    if constexpr (Op::nin > 1) s1.init(a, 1, r);
    if constexpr (Op::nin > 2) s2.init(a, 2, r);
    o = a.out + r * a.out_rs;
  }
  __device__ __forceinline__ vpacks<Op, V> load(int64_t j) const {
    vpacks<Op, V> x;
    x.x0 = s0.vload(j);
    if constexpr (Op::nin > 1) x.x1 = s1.vload(j);
    if constexpr (Op::nin > 2) x.x2 = s2.vload(j);
    return x;
  }
  __device__ __forceinline__ void compute_store(const Op &op, const vpacks<Op, V> &x,
                                                int64_t j) const {
    typedef typename Op::R R;
    pack<R, V> y;
#pragma unroll
    for (int k = 0; k < V; k++) y.v[k] = call(op, x.x0.v[k], x.x1.v[k], x.x2.v[k]);
    *(pack<R, V> *)(o + j * (int64_t)(V * sizeof(R))) = y;
  }
  __device__ __forceinline__ void scalar(const Op &op, int64_t k) const {
    typedef typename Op::R R;
    typename Op::A0 a = s0.load(k);
    typename Op::A1 b = a1_(k);
    typename Op::A2 c = a2_(k);
    ((R *)o)[k] = call(op, a, b, c);
  }
  __device__ __forceinline__ typename Op::A1 a1_(int64_t k) const {
    if constexpr (Op::nin > 1) return s1.load(k);
    else return typename Op::A1();
  }
  __device__ __forceinline__ typename Op::A2 a2_(int64_t k) const {
    if constexpr (Op::nin > 2) return s2.load(k);
    else return typename Op::A2();
  }
};

/* ---- the kernels ---------------------------------------------------------------------- */

/* Light one-input math on float32 (exp, sin, sqrt, ...). */
template <class Op>
struct vlight32 {
  enum {
    v = Op::nin == 1 && !Op::heavy && std::is_same<typename Op::A0, float>::value &&
        std::is_same<typename Op::R, float>::value
  };
};

/* Operations k_flat takes over one contiguous row: float32 of one or two float32 inputs, not
 * costly (light math, add, multiply, ...). */
template <class Op>
struct vflat32 {
  enum {
    v = !Op::heavy && std::is_same<typename Op::R, float>::value && std::is_same<typename Op::A0, float>::value &&
        (Op::nin == 1 || (Op::nin == 2 && std::is_same<typename Op::A1, float>::value))
  };
};

/* Vectors per thread and work unit, so that each SM has enough bytes in flight at the
 * occupancy these kernels get (28-48 registers: five to eight blocks of 256 threads): four
 * for one input, two for each of two or three inputs, one for costly math, whose instruction
 * latency hides much of it, two for light float32 math. The H200 needs more in flight than
 * the H100 (2^28 float32, % of the copy rate, one vector per thread against these choices):
 * sin 79.7 against 95.5, a broadcast row add 86.5 against 96.8, add 104.1 against 103.0; on
 * the H100 they move by 1% or less. Light float32 math (exp, sin) with two vectors against
 * eight: 1.2-1.3% faster on the H200, 0.7-0.8% on the H100; with one vector exp gains 2.0% /
 * 1.3% but sin loses 8.3% on the H200 (bench/RESULTS.md, 2026-11-27 13:12-13:25 UTC). */
template <class Op>
struct vunroll {
  enum { v = Op::heavy ? 1 : vlight32<Op>::v ? 2 : Op::nin == 1 ? 4 : 2 };
};

template <class Op>
__global__ void __launch_bounds__(ND_K_THREADS) k_vec(vec_args<Op::nin> a, nd_kparams prm) {
  constexpr int V = vwidth<Op>::v;
  constexpr int U = vunroll<Op>::v;
  constexpr int64_t per = (int64_t)U * ND_K_THREADS;
  const Op op(prm);
  /* Work units: U * ND_K_THREADS vectors of one row. Block b takes unit b (beyond the grid
   * limit, units b + gridDim.x, ... too). The unit's (row, chunk) pair is advanced
   * incrementally; one row, or rows longer than the grid, need no division, shorter rows a
   * 32-bit one (paid by every block, which moves only a few KB: two divisions are as many
   * instructions as the unit's loads, math and stores when a thread takes one vector). */
  const int64_t nv = a.cols / V;
  const int64_t cpr = vec_units_per_row(a.cols, V, per);
  const int64_t units = a.rows * cpr;
  if ((int64_t)blockIdx.x < units) {
    int64_t r = 0, ch = blockIdx.x, dr = 0, dch = gridDim.x;
    if (a.rows > 1 && cpr <= (int64_t)gridDim.x) {
      const unsigned c = (unsigned)cpr, r32 = blockIdx.x / c, dr32 = gridDim.x / c;
      r = r32;
      ch = blockIdx.x - r32 * c;
      dr = dr32;
      dch = gridDim.x - dr32 * c;
    }
    for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
      vrow<Op, V> row;
      row.init(a, r);
      const int64_t j0 = ch * per + threadIdx.x;
      if (j0 + (int64_t)(U - 1) * ND_K_THREADS < nv) {
        /* Every vector is loaded before any is stored: the loads are in flight together,
         * and an in-place output (the same view as an input, element for element) cannot
         * reorder them. */
        vpacks<Op, V> x[U];
#pragma unroll
        for (int k = 0; k < U; k++) x[k] = row.load(j0 + (int64_t)k * ND_K_THREADS);
#pragma unroll
        for (int k = 0; k < U; k++) row.compute_store(op, x[k], j0 + (int64_t)k * ND_K_THREADS);
      } else {
        /* The last unit of a row, partly filled. */
#pragma unroll 1
        for (int64_t j = j0; j < nv; j += ND_K_THREADS) row.compute_store(op, row.load(j), j);
      }
      r += dr;
      ch += dch;
      if (ch >= cpr) {
        ch -= cpr;
        r++;
      }
    }
  }
  /* The cols % V elements at the end of each row, one thread each. */
  const int64_t tail = a.cols - nv * V;
  if (tail > 0) {
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < a.rows * tail;
         t += (int64_t)gridDim.x * blockDim.x) {
      const int64_t r = t / tail;
      vrow<Op, V> row;
      row.init(a, r);
      row.scalar(op, nv * V + (t - r * tail));
    }
  }
}

/* Float32 operations of one or two float32 inputs over one contiguous row of n = 4 nv + tail
 * elements (every input contiguous, none a scalar): thread j takes float4 j of each input (a
 * grid-stride loop, run once unless the grid limit is reached), block 0's first tail threads
 * the last n % 4 elements. In place is fine: each vector is loaded before it is stored, by the
 * same thread. The inputs' pointers travel in one struct, flat_in<N>. */
template <int N>
struct flat_in {
  const float4 *p[N];
};

template <class Op, int N>
__device__ __forceinline__ float flat_op(const Op &op, const float (&v)[N]) {
  if constexpr (N == 1)
    return op(v[0]);
  else
    return op(v[0], v[1]);
}

template <class Op, int N>
__device__ __forceinline__ float4 flat_op4(const Op &op, const float4 (&x)[N]) {
  float a[N], b[N], c[N], d[N];
#pragma unroll
  for (int i = 0; i < N; i++) {
    a[i] = x[i].x;
    b[i] = x[i].y;
    c[i] = x[i].z;
    d[i] = x[i].w;
  }
  return make_float4(flat_op<Op, N>(op, a), flat_op<Op, N>(op, b), flat_op<Op, N>(op, c), flat_op<Op, N>(op, d));
}

template <class Op, int N>
__global__ void __launch_bounds__(ND_K_THREADS) k_flat(flat_in<N> in, float4 *out, int64_t nv, int tail,
                                                         nd_kparams prm) {
  const Op op(prm);
#pragma unroll 1
  for (int64_t j = (int64_t)blockIdx.x * ND_K_THREADS + threadIdx.x; j < nv;
       j += (int64_t)gridDim.x * ND_K_THREADS) {
    float4 x[N];
#pragma unroll
    for (int i = 0; i < N; i++) x[i] = in.p[i][j];
    out[j] = flat_op4<Op, N>(op, x);
  }
  if (blockIdx.x == 0 && (int)threadIdx.x < tail) {
    float v[N];
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = ((const float *)(in.p[i] + nv))[threadIdx.x];
    ((float *)(out + nv))[threadIdx.x] = flat_op<Op, N>(op, v);
  }
}

template <class Op>
__global__ void __launch_bounds__(ND_K_THREADS) k_strided(str_args<Op::nin> a, nd_kparams prm) {
  typedef typename Op::A0 A0;
  typedef typename Op::A1 A1;
  typedef typename Op::A2 A2;
  const Op op(prm);
  A0 u0 = A0();
  A1 u1 = A1();
  A2 u2 = A2();
  if (a.sca & 1) u0 = scalar_value<A0>(a.s[0]);
  if constexpr (Op::nin > 1) if (a.sca & 2) u1 = scalar_value<A1>(a.s[1]);
  if constexpr (Op::nin > 2) if (a.sca & 4) u2 = scalar_value<A2>(a.s[2]);
  const int nd = a.L.ndim;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t rem = i, oo = 0, o0 = 0, o1 = 0, o2 = 0;
    for (int d = nd - 1; d > 0; --d) {
      const int64_t n = a.L.shape[d], q = rem / n, r = rem - q * n;
      oo += r * a.os[d];
      o0 += r * a.is[0][d];
      if constexpr (Op::nin > 1) o1 += r * a.is[1][d];
      if constexpr (Op::nin > 2) o2 += r * a.is[2][d];
      rem = q;
    }
    if (nd > 0) {
      oo += rem * a.os[0];
      o0 += rem * a.is[0][0];
      if constexpr (Op::nin > 1) o1 += rem * a.is[1][0];
      if constexpr (Op::nin > 2) o2 += rem * a.is[2][0];
    }
    A0 x0 = (a.sca & 1) ? u0 : *(const A0 *)(a.in[0] + o0);
    A1 x1 = u1;
    A2 x2 = u2;
    if constexpr (Op::nin > 1) if (!(a.sca & 2)) x1 = *(const A1 *)(a.in[1] + o1);
    if constexpr (Op::nin > 2) if (!(a.sca & 4)) x2 = *(const A2 *)(a.in[2] + o2);
    *(typename Op::R *)(a.out + oo) = call(op, x0, x1, x2);
  }
}

/* Side of the tiled path's square tiles, and the bytes of one tile of T padded by one
 * column (bank conflicts), rounded up to 16 so that a second tile stays aligned. */
constexpr int TILE = 32;
template <class T>
struct tile_bytes {
  enum { v = (TILE * (TILE + 1) * (int)sizeof(T) + 15) / 16 * 16 };
};

/* The tiles of the inputs in tmask, one after the other (dynamic shared memory: a call with
 * one transposed operand reserves one tile per block, which keeps more blocks resident). */
extern __shared__ __align__(16) unsigned char k_tiled_smem[];

template <class Op>
__global__ void __launch_bounds__(256) k_tiled(tile_args<Op::nin> a, nd_kparams prm) {
  typedef typename Op::A0 A0;
  typedef typename Op::A1 A1;
  typedef typename Op::A2 A2;
  typedef typename Op::R R;
  constexpr int E = TILE / 8; /* elements per thread and operand */
  A0(*t0)[TILE + 1] = (A0(*)[TILE + 1])k_tiled_smem;
  A1(*t1)[TILE + 1] = (A1(*)[TILE + 1])(k_tiled_smem + ((a.tmask & 1) ? tile_bytes<A0>::v : 0));
  const Op op(prm);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const bool d0 = !((a.tmask | a.sca) & 1), d1 = !((a.tmask | a.sca) & 2); /* read directly */
  A0 u0 = A0();
  A1 u1 = A1();
  A2 u2 = A2();
  if (a.sca & 1) u0 = scalar_value<A0>(a.s[0]);
  if (a.sca & 2) u1 = scalar_value<A1>(a.s[1]);
  if constexpr (Op::nin > 2) if (a.sca & 4) u2 = scalar_value<A2>(a.s[2]);
  for (int64_t by = blockIdx.y; by * TILE < a.rows; by += gridDim.y) {
    for (int64_t bx = blockIdx.x; bx * TILE < a.cols; bx += gridDim.x) {
      const int64_t r0 = by * TILE, c0 = bx * TILE;
      const int64_t nr = a.rows - r0, nc = a.cols - c0;
      const bool full = nr >= TILE && nc >= TILE;
      const char *p0 = a.in[0] + r0 * a.irs[0] + c0 * a.ics[0];
      const char *p1 = a.in[1] + r0 * a.irs[1] + c0 * a.ics[1];
      /* Phase 1: every load of the tile is issued before the barrier, the operands read
       * directly (into registers) as well as the tiles, so that all of them are in flight
       * together. Tile loads: consecutive threads take consecutive rows, along which the
       * transposed input is contiguous; direct loads: consecutive columns. */
      A0 x0[E];
      A1 x1[E];
      A2 x2[E];
#pragma unroll
      for (int k = 0; k < E; k++) {
        const int i = tx, j = ty + 8 * k; /* tile element (row i, column j) */
        const bool tin = full || (i < nr && j < nc);
        const int di = ty + 8 * k, dj = tx; /* this thread's output element */
        const bool din = full || (di < nr && dj < nc);
        if ((a.tmask & 1) && tin) t0[i][j] = *(const A0 *)(p0 + i * a.irs[0] + j * a.ics[0]);
        if ((a.tmask & 2) && tin) t1[i][j] = *(const A1 *)(p1 + i * a.irs[1] + j * a.ics[1]);
        x0[k] = u0;
        x1[k] = u1;
        x2[k] = u2;
        if (d0 && din) x0[k] = *(const A0 *)(p0 + di * a.irs[0] + dj * a.ics[0]);
        if (d1 && din) x1[k] = *(const A1 *)(p1 + di * a.irs[1] + dj * a.ics[1]);
        if constexpr (Op::nin > 2)
          if (!(a.sca & 4) && din)
            x2[k] = *(const A2 *)(a.in[2] + (r0 + di) * a.irs[2] + (c0 + dj) * a.ics[2]);
      }
      __syncthreads();
      /* Phase 2: compute and store along the output's rows. */
      char *po = a.out + r0 * a.ors + c0 * a.ocs;
#pragma unroll
      for (int k = 0; k < E; k++) {
        const int i = ty + 8 * k, j = tx;
        if (full || (i < nr && j < nc)) {
          if (a.tmask & 1) x0[k] = t0[i][j];
          if (a.tmask & 2) x1[k] = t1[i][j];
          *(R *)(po + i * a.ors + j * a.ocs) = call(op, x0[k], x1[k], x2[k]);
        }
      }
      __syncthreads();
    }
  }
}

/* ---- path selection and the instance launcher ----------------------------------------- */

enum { PATH_VEC = 0, PATH_TILED = 1, PATH_STRIDED = 2 };

/* Sizes of one instance's element types, and its vector width. */
struct sizes {
  int nin, r, a[3], v, unroll, tile;
  int occupancy; /* resident blocks per SM of the kernel being launched */
};

/* Chooses the path for a call (host code shared by every instance; elementwise.cu). */
int choose_path(const nd_kufunc *c, const sizes &z, unsigned *tmask);
/* Launch geometry of the vec and strided paths: as many blocks as fit on the device at once
 * (z.occupancy per SM), fewer when there is less work. */
unsigned vec_grid(const nd_kufunc *c, const sizes &z);
unsigned strided_grid(const nd_kufunc *c, const sizes &z);

/* Resident blocks per SM of a kernel at ND_K_THREADS threads (1 if the query fails). */
int occupancy_of(const void *kernel);

template <int N>
vec_args<N> make_vec(const nd_kufunc *c) {
  vec_args<N> a;
  const nd_kloop &L = c->loop;
  const int nd = L.ndim;
  a.rows = nd == 2 ? L.shape[0] : 1;
  a.cols = nd >= 1 ? L.shape[nd - 1] : 1;
  a.out = c->out.data;
  a.out_rs = nd == 2 ? c->out.strides[0] : 0;
  a.uni = 0;
  a.sca = c->scalar_mask;
  for (int i = 0; i < N; i++) {
    a.in[i] = c->in[i].data;
    a.in_rs[i] = nd == 2 ? c->in[i].strides[0] : 0;
    if (nd == 0 || c->in[i].strides[nd - 1] == 0) a.uni |= 1u << i;
    a.s[i] = c->scalars[i];
  }
  return a;
}

template <int N>
str_args<N> make_str(const nd_kufunc *c) {
  str_args<N> a;
  a.L = c->loop;
  a.out = c->out.data;
  memcpy(a.os, c->out.strides, sizeof a.os);
  a.sca = c->scalar_mask;
  for (int i = 0; i < N; i++) {
    a.in[i] = c->in[i].data;
    memcpy(a.is[i], c->in[i].strides, sizeof a.is[i]);
    a.s[i] = c->scalars[i];
  }
  return a;
}

template <int N>
tile_args<N> make_tile(const nd_kufunc *c, unsigned tmask) {
  tile_args<N> a;
  a.rows = c->loop.shape[0];
  a.cols = c->loop.shape[1];
  a.out = c->out.data;
  a.ors = c->out.strides[0];
  a.ocs = c->out.strides[1];
  a.tmask = tmask;
  a.sca = c->scalar_mask;
  for (int i = 0; i < N; i++) {
    a.in[i] = c->in[i].data;
    a.irs[i] = c->in[i].strides[0];
    a.ics[i] = c->in[i].strides[1];
    a.s[i] = c->scalars[i];
  }
  return a;
}

template <class Op>
nd_status launch(const nd_kufunc *c, cudaStream_t st) {
  constexpr int N = Op::nin;
  sizes z;
  z.nin = N;
  z.r = (int)sizeof(typename Op::R);
  z.a[0] = (int)sizeof(typename Op::A0);
  z.a[1] = (int)sizeof(typename Op::A1);
  z.a[2] = (int)sizeof(typename Op::A2);
  z.v = vwidth<Op>::v;
  z.unroll = vunroll<Op>::v;
  z.tile = N >= 2 && Op::tile;
  z.occupancy = 1;
  nd_kparams prm = c->params;
  prm.op = c->op;
  unsigned tmask = 0;
  const int path = choose_path(c, z, &tmask);
  if (path == PATH_VEC) {
    if constexpr (vflat32<Op>::v) {
      /* one contiguous row, no scalar (choose_path has checked the 16-byte alignment) */
      bool flat = c->loop.ndim == 1 && !(c->scalar_mask & ((1u << N) - 1));
      flat_in<N> in;
      for (int i = 0; i < N; i++) {
        flat = flat && c->in[i].strides[0] == (int64_t)sizeof(float);
        in.p[i] = (const float4 *)c->in[i].data;
      }
      if (flat) {
        const int64_t n = c->loop.shape[0], nv = n / 4;
        /* (in parentheses: the template argument list's comma would split the macro argument) */
        return ND_CUDA((nd_k_go<k_flat<Op, N>>(nd_k_grid_x((nv + ND_K_THREADS - 1) / ND_K_THREADS), ND_K_THREADS, 0,
                                               st, in, (float4 *)c->out.data, nv, (int)(n - nv * 4), prm)));
      }
    }
    return ND_CUDA(nd_k_go<k_vec<Op>>(vec_grid(c, z), ND_K_THREADS, 0, st, make_vec<N>(c), prm));
  }
  if (path == PATH_TILED) {
    if constexpr (N >= 2 && Op::tile) {
      const int64_t gx = (c->loop.shape[1] + TILE - 1) / TILE, gy = (c->loop.shape[0] + TILE - 1) / TILE;
      const dim3 grid((unsigned)(gx < 1048576 ? gx : 1048576), (unsigned)(gy < 65535 ? gy : 65535));
      const size_t smem = ((tmask & 1) ? (size_t)tile_bytes<typename Op::A0>::v : 0) +
                          ((tmask & 2) ? (size_t)tile_bytes<typename Op::A1>::v : 0);
      return ND_CUDA(nd_k_go<k_tiled<Op>>(grid, dim3(32, 8), smem, st, make_tile<N>(c, tmask), prm));
    }
  }
  /* Queried once per instance (thread-safe static initialisation), never per call. */
  static const int occ = occupancy_of((const void *)k_strided<Op>);
  z.occupancy = occ;
  return ND_CUDA(nd_k_go<k_strided<Op>>(strided_grid(c, z), ND_K_THREADS, 0, st, make_str<N>(c), prm));
}

/* ---- the dispatch table --------------------------------------------------------------- */

typedef nd_status (*launch_fn)(const nd_kufunc *, cudaStream_t);

struct entry {
  launch_fn fn;
  int out; /* nd_dtype written */
};

typedef entry table_t[ND_KOP_COUNT_][ND_KEY_COUNT_];

template <class Op>
void reg(table_t &t, int op, int key) {
  t[op][key].fn = &launch<Op>;
  t[op][key].out = dt_of<typename Op::R>::v;
}

/* Registers F<T> (or its float16 form) for op under T's dtype. */
template <template <class> class F, class T>
void reg_t(table_t &t, int op) {
  reg<typename pick<F, T>::type>(t, op, dt_of<T>::v);
}

/* Type lists for registration. */
template <template <class> class F>
void reg_ints(table_t &t, int op) {
  reg_t<F, int8_t>(t, op);
  reg_t<F, int16_t>(t, op);
  reg_t<F, int32_t>(t, op);
  reg_t<F, int64_t>(t, op);
  reg_t<F, uint8_t>(t, op);
  reg_t<F, uint16_t>(t, op);
  reg_t<F, uint32_t>(t, op);
  reg_t<F, uint64_t>(t, op);
}
template <template <class> class F>
void reg_floats(table_t &t, int op) {
  reg_t<F, __half>(t, op);
  reg_t<F, float>(t, op);
  reg_t<F, double>(t, op);
}
template <template <class> class F>
void reg_complex(table_t &t, int op) {
  reg_t<F, c64>(t, op);
  reg_t<F, c128>(t, op);
}

/* Each op-family file fills its part of the table. */
void fill_arith(table_t &t);
void fill_math(table_t &t);
void fill_cmath(table_t &t);
void fill_compare(table_t &t);
void fill_misc(table_t &t);

/* ---- math overloads (float and double share a name) ----------------------------------- */

#define ND_K_M1(name, fname, dname)                                                  \
  __device__ __forceinline__ float name(float x) { return fname(x); }                \
  __device__ __forceinline__ double name(double x) { return dname(x); }
#define ND_K_M2(name, fname, dname)                                                  \
  __device__ __forceinline__ float name(float x, float y) { return fname(x, y); }    \
  __device__ __forceinline__ double name(double x, double y) { return dname(x, y); }

ND_K_M1(m_sqrt, sqrtf, sqrt)
ND_K_M1(m_cbrt, cbrtf, cbrt)
ND_K_M1(m_exp, expf, exp)
ND_K_M1(m_exp2, exp2f, exp2)
ND_K_M1(m_expm1, expm1f, expm1)
ND_K_M1(m_log, logf, log)
ND_K_M1(m_log2, log2f, log2)
ND_K_M1(m_log10, log10f, log10)
ND_K_M1(m_log1p, log1pf, log1p)
ND_K_M1(m_sin, sinf, sin)
ND_K_M1(m_cos, cosf, cos)
ND_K_M1(m_tan, tanf, tan)
ND_K_M1(m_asin, asinf, asin)
ND_K_M1(m_acos, acosf, acos)
ND_K_M1(m_atan, atanf, atan)
ND_K_M1(m_sinh, sinhf, sinh)
ND_K_M1(m_cosh, coshf, cosh)
ND_K_M1(m_tanh, tanhf, tanh)
ND_K_M1(m_asinh, asinhf, asinh)
ND_K_M1(m_acosh, acoshf, acosh)
ND_K_M1(m_atanh, atanhf, atanh)
ND_K_M1(m_fabs, fabsf, fabs)
ND_K_M1(m_floor, floorf, floor)
ND_K_M1(m_ceil, ceilf, ceil)
ND_K_M1(m_trunc, truncf, trunc)
ND_K_M1(m_rint, rintf, rint)
ND_K_M2(m_atan2, atan2f, atan2)
ND_K_M2(m_hypot_lib, hypotf, hypot) /* m_hypot below */
ND_K_M2(m_fmod, fmodf, fmod)
ND_K_M2(m_pow, powf, pow)
ND_K_M2(m_copysign, copysignf, copysign)
ND_K_M2(m_nextafter, nextafterf, nextafter)
#undef ND_K_M1
#undef ND_K_M2

/* Products that must not be contracted into a fused multiply-add, where NumPy's result (two
 * roundings) is the reference: complex products and quotients; and the float classification.
 * One definition with the complex special values (cspecial.cuh, host and device). */
using cs::finite_;
using cs::isinf_;
using cs::isnan_;
using cs::mul_rn;

/* hypot. The device's overflows for operands near the top of the range though the result
 * does not (hypot(DBL_MAX, 1) is DBL_MAX): such results are taken again as
 * max * sqrt(1 + (min / max)^2), which overflows only when the result does. */
template <class F>
__device__ __forceinline__ F hypot_big(F x, F y) {
  F a = x < 0 ? -x : x, b = y < 0 ? -y : y;
  if (a < b) {
    const F t = a;
    a = b;
    b = t;
  }
  const F r = b / a;
  return a * m_sqrt(1 + r * r);
}
template <class F>
__device__ __forceinline__ F m_hypot(F x, F y) {
  const F h = m_hypot_lib(x, y);
  return isinf_(h) && finite_(x) && finite_(y) ? hypot_big(x, y) : h;
}

/* NumPy's complex product and quotient (Smith's method, as numpy/_core/src/umath/loops). */
template <class F>
__device__ __forceinline__ cplx<F> cmul(cplx<F> a, cplx<F> b) {
  return mk<F>(mul_rn(a.re, b.re) - mul_rn(a.im, b.im), mul_rn(a.re, b.im) + mul_rn(a.im, b.re));
}
/* The product as NumPy's multiply and square loops compute it on x86 with FMA (simd_cmul in
 * loops_arithm_fp.dispatch.c.src): a.re * b.re fused with the rounded -a.im * b.im, a.re * b.im
 * fused with the rounded a.im * b.re. Near overflow the two forms differ: (1e200 + 1e200j)^2
 * is -inf + infj fused, nan + infj unfused (power's integer path, scalar C in NumPy, keeps
 * cmul). */
template <class F>
__device__ __forceinline__ cplx<F> cmul_fused(cplx<F> a, cplx<F> b) {
  return mk<F>(::fma(a.re, b.re, -mul_rn(a.im, b.im)), ::fma(a.re, b.im, mul_rn(a.im, b.re)));
}
template <class F>
__device__ __forceinline__ cplx<F> cdiv(cplx<F> a, cplx<F> b) {
  const F br = m_fabs(b.re), bi = m_fabs(b.im);
  if (br >= bi) {
    if (br == 0 && bi == 0) return mk<F>(a.re / br, a.im / br);
    const F rat = b.im / b.re;
    const F scl = (F)1 / (b.re + mul_rn(b.im, rat));
    return mk<F>(mul_rn(a.re + mul_rn(a.im, rat), scl), mul_rn(a.im - mul_rn(a.re, rat), scl));
  }
  const F rat = b.re / b.im;
  const F scl = (F)1 / (b.im + mul_rn(b.re, rat));
  return mk<F>(mul_rn(mul_rn(a.re, rat) + a.im, scl), mul_rn(mul_rn(a.im, rat) - a.re, scl));
}

}  // namespace ndk

#endif /* ND_ELEMENTWISE_CUH */
