/* Value types, tagged conversions, loaders and the operation functors of the reduction
 * kernels (see reduce_core.cuh for how they are used and launched). */
#ifndef ND_REDUCE_OPS_CUH
#define ND_REDUCE_OPS_CUH

#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/convert.cuh"
#include "reduce/reduce.h"
#include "ndcuda/dtype.h"

namespace ndr {


struct cf {
  float re, im;
};
struct cd {
  double re, im;
};
struct NoRow {};

/* ---- tagged values ----------------------------------------------------------------------- */

__device__ __forceinline__ nd_kval kv_make(int kind) {
  nd_kval v;
  v.kind = kind;
  v.i = 0;
  v.u = 0;
  v.re = 0;
  v.im = 0;
  return v;
}
__device__ __forceinline__ nd_kval kv_sint(int64_t i) {
  nd_kval v = kv_make(ND_K_SINT);
  v.i = i;
  return v;
}
__device__ __forceinline__ nd_kval kv_uint(uint64_t u) {
  nd_kval v = kv_make(ND_K_UINT);
  v.u = u;
  return v;
}
__device__ __forceinline__ nd_kval kv_float(double x) {
  nd_kval v = kv_make(ND_K_FLOAT);
  v.re = x;
  return v;
}
__device__ __forceinline__ nd_kval kv_complex(double re, double im) {
  nd_kval v = kv_make(ND_K_COMPLEX);
  v.re = re;
  v.im = im;
  return v;
}

__device__ __forceinline__ bool dtype_unsigned(int dt) { return dt >= ND_UINT8 && dt <= ND_UINT64; }

/* An integer accumulator (two's complement bits) as a value of the result dtype's kind. */
__device__ __forceinline__ nd_kval kv_int_bits(uint64_t bits, int res_dtype) {
  return dtype_unsigned(res_dtype) ? kv_uint(bits) : kv_sint((int64_t)bits);
}

__device__ __forceinline__ nd_kval to_kval(int64_t x, int) { return kv_sint(x); }
__device__ __forceinline__ nd_kval to_kval(uint64_t x, int res) { return kv_int_bits(x, res); }
__device__ __forceinline__ nd_kval to_kval(float x, int) { return kv_float((double)x); }
__device__ __forceinline__ nd_kval to_kval(double x, int) { return kv_float(x); }
__device__ __forceinline__ nd_kval to_kval(cf x, int) { return kv_complex(x.re, x.im); }
__device__ __forceinline__ nd_kval to_kval(cd x, int) { return kv_complex(x.re, x.im); }

template <class V>
__device__ V from_kval(const nd_kval &v);
template <>
__device__ __forceinline__ int64_t from_kval<int64_t>(const nd_kval &v) {
  return v.kind == ND_K_SINT ? v.i : v.kind == ND_K_UINT ? (int64_t)v.u : nd_cvt64(v.re);
}
template <>
__device__ __forceinline__ uint64_t from_kval<uint64_t>(const nd_kval &v) {
  return v.kind == ND_K_SINT ? (uint64_t)v.i : v.kind == ND_K_UINT ? v.u : (uint64_t)nd_cvt64(v.re);
}
template <>
__device__ __forceinline__ float from_kval<float>(const nd_kval &v) {
  return nd_to_float(v);
}
template <>
__device__ __forceinline__ double from_kval<double>(const nd_kval &v) {
  return nd_to_double(v);
}
template <>
__device__ __forceinline__ cf from_kval<cf>(const nd_kval &v) {
  cf c;
  c.re = nd_to_float(v);
  c.im = (float)v.im;
  return c;
}
template <>
__device__ __forceinline__ cd from_kval<cd>(const nd_kval &v) {
  cd c;
  c.re = nd_to_double(v);
  c.im = v.im;
  return c;
}
/* Truth value, as NumPy's bool(): nonzero, NaN included. */
template <>
__device__ __forceinline__ bool from_kval<bool>(const nd_kval &v) {
  switch (v.kind) {
    case ND_K_SINT: return v.i != 0;
    case ND_K_UINT: return v.u != 0;
    case ND_K_COMPLEX: return v.re != 0 || v.im != 0;
    default: return v.re != 0;
  }
}

/* ---- arithmetic and ordering per value type ------------------------------------------------ */

__device__ __forceinline__ bool isnan_(int64_t) { return false; }
__device__ __forceinline__ bool isnan_(uint64_t) { return false; }
__device__ __forceinline__ bool isnan_(bool) { return false; }
__device__ __forceinline__ bool isnan_(float x) { return x != x; }
__device__ __forceinline__ bool isnan_(double x) { return x != x; }
__device__ __forceinline__ bool isnan_(cf x) { return x.re != x.re || x.im != x.im; }
__device__ __forceinline__ bool isnan_(cd x) { return x.re != x.re || x.im != x.im; }

/* Integer arithmetic goes through uint64 so that overflow wraps instead of being undefined. */
__device__ __forceinline__ int64_t add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
__device__ __forceinline__ uint64_t add(uint64_t a, uint64_t b) { return a + b; }
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ cf add(cf a, cf b) { return cf{a.re + b.re, a.im + b.im}; }
__device__ __forceinline__ cd add(cd a, cd b) { return cd{a.re + b.re, a.im + b.im}; }

__device__ __forceinline__ int64_t sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
__device__ __forceinline__ uint64_t sub(uint64_t a, uint64_t b) { return a - b; }
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ cf sub(cf a, cf b) { return cf{a.re - b.re, a.im - b.im}; }
__device__ __forceinline__ cd sub(cd a, cd b) { return cd{a.re - b.re, a.im - b.im}; }

__device__ __forceinline__ uint64_t mul(uint64_t a, uint64_t b) { return a * b; }
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ cf mul(cf a, cf b) {
  return cf{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__device__ __forceinline__ cd mul(cd a, cd b) {
  return cd{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

template <class V>
__device__ __forceinline__ V zero_() {
  V v;
  memset(&v, 0, sizeof v);
  return v;
}
__device__ __forceinline__ void set_one(uint64_t &v) { v = 1; }
__device__ __forceinline__ void set_one(float &v) { v = 1.0f; }
__device__ __forceinline__ void set_one(double &v) { v = 1.0; }
__device__ __forceinline__ void set_one(cf &v) { v = cf{1.0f, 0.0f}; }
__device__ __forceinline__ void set_one(cd &v) { v = cd{1.0, 0.0}; }

/* Strict order (lexicographic for complex, as NumPy's maximum/minimum). NaN never orders. */
__device__ __forceinline__ bool lt(int64_t a, int64_t b) { return a < b; }
__device__ __forceinline__ bool lt(uint64_t a, uint64_t b) { return a < b; }
__device__ __forceinline__ bool lt(float a, float b) { return a < b; }
__device__ __forceinline__ bool lt(double a, double b) { return a < b; }
__device__ __forceinline__ bool lt(cd a, cd b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }

/* The least and greatest values of a comparison type (identities of max and min). */
__device__ __forceinline__ void set_lowest(int64_t &v) { v = INT64_MIN; }
__device__ __forceinline__ void set_lowest(uint64_t &v) { v = 0; }
__device__ __forceinline__ void set_lowest(float &v) { v = -INFINITY; }
__device__ __forceinline__ void set_lowest(double &v) { v = -(double)INFINITY; }
__device__ __forceinline__ void set_lowest(cd &v) { v = cd{-(double)INFINITY, -(double)INFINITY}; }
__device__ __forceinline__ void set_highest(int64_t &v) { v = INT64_MAX; }
__device__ __forceinline__ void set_highest(uint64_t &v) { v = UINT64_MAX; }
__device__ __forceinline__ void set_highest(float &v) { v = INFINITY; }
__device__ __forceinline__ void set_highest(double &v) { v = (double)INFINITY; }
__device__ __forceinline__ void set_highest(cd &v) { v = cd{(double)INFINITY, (double)INFINITY}; }
__device__ __forceinline__ void set_nan(int64_t &v) { v = 0; }
__device__ __forceinline__ void set_nan(uint64_t &v) { v = 0; }
__device__ __forceinline__ void set_nan(float &v) { v = NAN; }
__device__ __forceinline__ void set_nan(double &v) { v = (double)NAN; }
__device__ __forceinline__ void set_nan(cd &v) { v = cd{(double)NAN, (double)NAN}; }
template <class V>
struct has_nan {
  static const bool value = true;
};
template <>
struct has_nan<int64_t> {
  static const bool value = false;
};
template <>
struct has_nan<uint64_t> {
  static const bool value = false;
};

/* ---- loaders ------------------------------------------------------------------------------ */

/* The tagged load, out of line: the generic path is the cold one, and one copy of the
 * dtype switches per file keeps every instance small (inlining them into each unrolled
 * loop multiplied the build time). */
static __device__ __noinline__ nd_kval load_tagged(int dt, int via, bool nanzero, const char *p) {
  nd_kval v = nd_load(dt, p);
  /* nansum replaces NaN by 0 in the input's own dtype before any cast to the requested one
   * (NumPy's _replace_nan): a NaN cast to int first would become INT_MIN and be summed. */
  if (nanzero && (v.re != v.re || v.im != v.im)) v.re = v.im = 0;
  if (via >= 0) {
    /* NumPy casts each element to the result dtype before reducing: do the same. */
    uint4 tmp;
    nd_store(via, (char *)&tmp, v);
    v = nd_load(via, (const char *)&tmp);
  }
  return v;
}

struct LoadGeneric {
  static const bool typed = false;
  typedef unsigned char type; /* unused */
  int dt, via;
  bool nanzero; /* NaN becomes 0 before the via cast (nansum with an integer dtype) */
  template <class V>
  __device__ __forceinline__ V get(const char *p) const {
    return from_kval<V>(load_tagged(dt, via, nanzero, p));
  }
};

template <class V, class T>
__device__ __forceinline__ V cvt_(T x) {
  return (V)x;
}
template <>
__device__ __forceinline__ float cvt_<float, __half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ uint64_t cvt_<uint64_t, int32_t>(int32_t x) {
  return (uint64_t)(int64_t)x;
}

template <class T>
struct LoadTyped {
  static const bool typed = true;
  typedef T type;
  template <class V>
  __device__ __forceinline__ V get(const char *p) const {
    return cvt_<V, T>(*(const T *)p);
  }
};

/* ---- operations ----------------------------------------------------------------------------- */

/* SIMPLE instances (the typed fast paths) are plain sums: no product or NaN-skip branch in
 * their loops. MEAN only changes result(), so they serve mean too. */
template <class V, bool SIMPLE = false>
struct OpSum {
  typedef V Val;
  typedef V Acc;
  typedef NoRow Row;
  int flags;
  __device__ __forceinline__ Row row(int64_t) const { return Row(); }
  __device__ __forceinline__ Acc identity() const {
    V v = zero_<V>();
    if (!SIMPLE && (flags & ND_KRF_PROD)) set_one(v);
    return v;
  }
  __device__ __forceinline__ Acc make(V x, int64_t, const Row &) const {
    return (!SIMPLE && (flags & ND_KRF_NANSKIP) && isnan_(x)) ? identity() : x;
  }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const {
    return (!SIMPLE && (flags & ND_KRF_PROD)) ? mul(a, b) : add(a, b);
  }
  __device__ nd_kval result(Acc a, const nd_kreduce &P) const { return finish(a, P); }
  __device__ nd_kval finish(uint64_t a, const nd_kreduce &P) const {
    if (!(flags & ND_KRF_MEAN)) return kv_int_bits(a, P.res_dtype);
    /* mean with an integer dtype accumulates in that dtype (NumPy's add.reduce with dtype=),
     * so a narrow one wraps: the 64-bit sum modulo the dtype's width is that sum. */
    double s;
    switch (P.res_dtype) {
      case 0: s = a != 0; break;
      case 1: s = (double)(int8_t)a; break;
      case 2: s = (double)(int16_t)a; break;
      case 3: s = (double)(int32_t)a; break;
      case 5: s = (double)(uint8_t)a; break;
      case 6: s = (double)(uint16_t)a; break;
      case 7: s = (double)(uint32_t)a; break;
      default: s = dtype_unsigned(P.res_dtype) ? (double)a : (double)(int64_t)a; break;
    }
    return kv_float(s / (double)P.K);
  }
  __device__ nd_kval finish(float a, const nd_kreduce &P) const {
    return kv_float((double)((flags & ND_KRF_MEAN) ? a / (float)P.K : a));
  }
  __device__ nd_kval finish(double a, const nd_kreduce &P) const {
    return kv_float((flags & ND_KRF_MEAN) ? a / (double)P.K : a);
  }
  __device__ nd_kval finish(cf a, const nd_kreduce &P) const {
    if (flags & ND_KRF_MEAN) return kv_complex(a.re / (float)P.K, a.im / (float)P.K);
    return kv_complex(a.re, a.im);
  }
  __device__ nd_kval finish(cd a, const nd_kreduce &P) const {
    if (flags & ND_KRF_MEAN) return kv_complex(a.re / (double)P.K, a.im / (double)P.K);
    return kv_complex(a.re, a.im);
  }
};

template <class V>
struct Pair {
  V lo, hi;
};

/* min, max and ptp at once: the extra compare is free next to the memory traffic, and one
 * instance serves five NumPy functions. NaN propagates (first NaN seen wins) unless NANSKIP,
 * where NaN is the identity and loses every comparison (fmin/fmax). PROPAGATE instances (the
 * typed fast paths) leave the NaN-skipping branch out. */
template <class V, bool PROPAGATE = false>
struct OpExtrema {
  static constexpr int kLoads = 4; /* see row_loads in reduce_core.cuh */
  typedef V Val;
  typedef Pair<V> Acc;
  typedef NoRow Row;
  int flags;
  __device__ __forceinline__ Row row(int64_t) const { return Row(); }
  __device__ __forceinline__ Acc identity() const {
    Acc a;
    if (has_nan<V>::value && !PROPAGATE && (flags & ND_KRF_NANSKIP)) {
      set_nan(a.lo);
      set_nan(a.hi);
    } else {
      set_highest(a.lo);
      set_lowest(a.hi);
    }
    return a;
  }
  __device__ __forceinline__ Acc make(V x, int64_t, const Row &) const { return Acc{x, x}; }
  __device__ __forceinline__ V pick(V a, V b, bool want_b) const {
    if (has_nan<V>::value) {
      bool an = isnan_(a), bn = isnan_(b);
      if (!PROPAGATE && (flags & ND_KRF_NANSKIP)) {
        if (an) return b;
        if (bn) return a;
      } else {
        if (an) return a;
        if (bn) return b;
      }
    }
    return want_b ? b : a;
  }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const {
    Acc r;
    r.lo = pick(a.lo, b.lo, lt(b.lo, a.lo));
    r.hi = pick(a.hi, b.hi, lt(a.hi, b.hi));
    return r;
  }
  __device__ nd_kval result(Acc a, const nd_kreduce &P) const {
    V v = (flags & ND_KRF_PTP) ? sub(a.hi, a.lo) : (flags & ND_KRF_MAX) ? a.hi : a.lo;
    return to_kval(v, P.res_dtype);
  }
};

template <class V>
struct ArgAcc {
  V v;
  int64_t i;
};

/* The order reversed: strictly decreasing and defined for every value (-x for floats and
 * complex, ~x for integers), NaN stays NaN and -0 stays equal to +0. */
__device__ __forceinline__ int64_t reversed(int64_t x) { return ~x; }
__device__ __forceinline__ uint64_t reversed(uint64_t x) { return ~x; }
__device__ __forceinline__ float reversed(float x) { return -x; }
__device__ __forceinline__ double reversed(double x) { return -x; }
__device__ __forceinline__ cd reversed(cd x) { return cd{-x.re, -x.im}; }

/* argmin/argmax: argmin runs as argmax of the reversed values, so the comparison in the hot
 * loop has one direction and the runtime flag only picks how an element is loaded, off the
 * accumulator's dependency chain. The identity carries index INT64_MAX, so it loses every tie
 * and needs no "empty" flag in the hot loop. A NaN beats every number; between NaNs the first
 * wins. The accumulator's value is the oriented one; only its index leaves the kernel. */
template <class V>
struct OpArg {
  typedef V Val;
  typedef ArgAcc<V> Acc;
  typedef NoRow Row;
  int flags;
  __device__ __forceinline__ Row row(int64_t) const { return Row(); }
  __device__ __forceinline__ V oriented(V x) const { return (flags & ND_KRF_MAX) ? x : reversed(x); }
  __device__ __forceinline__ Acc identity() const {
    Acc a;
    set_lowest(a.v);
    a.i = INT64_MAX;
    return a;
  }
  __device__ __forceinline__ Acc make(V x, int64_t k, const Row &) const { return Acc{oriented(x), k}; }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const {
    if (has_nan<V>::value) {
      bool an = isnan_(a.v), bn = isnan_(b.v);
      if (an || bn) {
        if (an && bn) return a.i <= b.i ? a : b;
        return an ? a : b;
      }
    }
    if (lt(b.v, a.v)) return a;
    if (lt(a.v, b.v)) return b;
    return a.i <= b.i ? a : b;
  }
  __device__ nd_kval result(Acc a, const nd_kreduce &) const { return kv_sint(a.i); }
};

/* Adds one element, at reduced index k, to a thread's running state. The kernels walk each
 * thread's k range in increasing order, so k is later than every index already in a. */
template <class Op>
__device__ __forceinline__ typename Op::Acc push(const Op &op, const typename Op::Acc &a,
                                                 const typename Op::Val &x, int64_t k,
                                                 const typename Op::Row &r) {
  return op.combine(a, op.make(x, k, r));
}

/* argmin/argmax: since k comes after everything in a, a tie keeps a, and only three things
 * make x win: a is still the identity (index INT64_MAX, which a range of only the lowest
 * value must replace), x is NaN while a is not (the first NaN wins and then stays), or x is
 * strictly greater (after orientation). That is a few instructions per element instead of
 * the general combine's NaN tests on both sides, two orderings and the index tie-break. */
template <class V>
__device__ __forceinline__ ArgAcc<V> push(const OpArg<V> &op, const typename OpArg<V>::Acc &a,
                                          const typename OpArg<V>::Val &x, int64_t k,
                                          const NoRow &) {
  const V y = op.oriented(x);
  const bool beats = isnan_(y) || lt(a.v, y);
  const bool take = !isnan_(a.v) && (a.i == INT64_MAX || beats);
  return take ? ArgAcc<V>{y, k} : a;
}

/* Count of nonzero elements; all (count == K) and any (count != 0) read it. */
struct OpCount {
  typedef bool Val;
  typedef uint64_t Acc;
  typedef NoRow Row;
  int flags;
  __device__ __forceinline__ Row row(int64_t) const { return Row(); }
  __device__ __forceinline__ Acc identity() const { return 0; }
  __device__ __forceinline__ Acc make(bool x, int64_t, const Row &) const { return x ? 1u : 0u; }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ nd_kval result(Acc a, const nd_kreduce &P) const {
    if (flags & ND_KRF_ALL) return kv_sint(a == (uint64_t)P.K);
    if (flags & ND_KRF_ANY) return kv_sint(a != 0);
    return kv_sint((int64_t)a);
  }
};

template <class V>
struct SumCount {
  V s;
  int64_t n;
};

template <class V>
struct OpNanMean {
  typedef V Val;
  typedef SumCount<V> Acc;
  typedef NoRow Row;
  int flags;
  __device__ __forceinline__ Row row(int64_t) const { return Row(); }
  __device__ __forceinline__ Acc identity() const { return Acc{zero_<V>(), 0}; }
  __device__ __forceinline__ Acc make(V x, int64_t, const Row &) const {
    return isnan_(x) ? identity() : Acc{x, 1};
  }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const { return Acc{add(a.s, b.s), a.n + b.n}; }
  __device__ nd_kval result(Acc a, const nd_kreduce &) const { return div(a.s, a.n); }
  __device__ nd_kval div(float s, int64_t n) const { return kv_float(s / (float)n); }
  __device__ nd_kval div(double s, int64_t n) const { return kv_float(s / (double)n); }
  __device__ nd_kval div(cf s, int64_t n) const { return kv_complex(s.re / (float)n, s.im / (float)n); }
  __device__ nd_kval div(cd s, int64_t n) const { return kv_complex(s.re / (double)n, s.im / (double)n); }
};

__device__ __forceinline__ float sq(float x) { return x * x; }
__device__ __forceinline__ double sq(double x) { return x * x; }
__device__ __forceinline__ float sq(cf x) { return x.re * x.re + x.im * x.im; }
__device__ __forceinline__ double sq(cd x) { return x.re * x.re + x.im * x.im; }

/* Second pass of var/std: sum of |x - mean|^2 with the mean of output m from the first pass,
 * divided by max(K - ddof, 0) as NumPy (0 gives inf or NaN), square-rooted for std. */
template <class V, class R>
struct OpSqDev {
  typedef V Val;
  typedef R Acc;
  typedef V Row;
  int flags;
  const V *center;
  double ddof;
  __device__ __forceinline__ Row row(int64_t m) const { return center[m]; }
  __device__ __forceinline__ Acc identity() const { return (R)0; }
  __device__ __forceinline__ Acc make(V x, int64_t, const Row &c) const { return sq(sub(x, c)); }
  __device__ __forceinline__ Acc combine(Acc a, Acc b) const { return a + b; }
  __device__ nd_kval result(Acc a, const nd_kreduce &P) const {
    double rc = (double)P.K - ddof;
    if (rc < 0) rc = 0;
    R v = a / (R)rc;
    if (flags & ND_KRF_SQRT) v = sqrt(v);
    return kv_float((double)v);
  }
};

}  // namespace ndr

#endif /* ND_REDUCE_OPS_CUH */
