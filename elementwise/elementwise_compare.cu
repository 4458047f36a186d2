/* Comparison, logical and bitwise instances.
 *
 * Comparisons of complex numbers are lexicographic with NumPy's NaN rules (its CGT/CGE/...
 * macros: the real parts decide unless equal, and a NaN imaginary part makes an ordering
 * by the real part false). The key ND_KEY_INT64_UINT64 compares an int64 input 0 with a
 * uint64 input 1 exactly (NumPy's qQ loops); the host swaps operands and mirrors the
 * comparison for the opposite order. Logical functions read any nonzero value (NaN
 * included) as true. Shifts by a negative count or by at least the width give 0, or -1 for
 * a right shift of a negative value (NumPy's npy_lshift/npy_rshift). */
#include "elementwise/elementwise.cuh"

namespace ndk {
namespace {

/* c: 0 equal, 1 not_equal, 2 less, 3 less_equal, 4 greater, 5 greater_equal (the order of
 * the ufunc enum). */
template <class X>
__device__ __forceinline__ bool cmp_real(int c, X a, X b) {
  switch (c) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

template <class F>
__device__ __forceinline__ bool cmp_cplx(int c, cplx<F> a, cplx<F> b) {
  const bool ordered = !isnan_(a.im) && !isnan_(b.im);
  switch (c) {
    case 0: return a.re == b.re && a.im == b.im;
    case 1: return a.re != b.re || a.im != b.im;
    case 2: return (a.re < b.re && ordered) || (a.re == b.re && a.im < b.im);
    case 3: return (a.re < b.re && ordered) || (a.re == b.re && a.im <= b.im);
    case 4: return (a.re > b.re && ordered) || (a.re == b.re && a.im > b.im);
    default: return (a.re > b.re && ordered) || (a.re == b.re && a.im >= b.im);
  }
}

/* The six comparisons: one instance per dtype. */
template <class T>
struct op_cmp : base<bool, T, 2, 0, 1> {
  int c;
  __device__ __forceinline__ explicit op_cmp(const nd_kparams &p)
      : base<bool, T, 2, 0, 1>(p), c(p.op - ND_UFUNC_EQUAL) {}
  __device__ __forceinline__ bool operator()(T a, T b) const {
    if constexpr (is_cplx<T>::v) return cmp_cplx(c, a, b);
    else return cmp_real(c, a, b);
  }
};

/* int64 a against uint64 b, exactly. */
struct cmp_iu : base<bool, int64_t, 2, 0, 1> {
  typedef uint64_t A1;
  int c;
  __device__ __forceinline__ explicit cmp_iu(const nd_kparams &p)
      : base<bool, int64_t, 2, 0, 1>(p), c(p.op - ND_UFUNC_EQUAL) {}
  __device__ __forceinline__ bool operator()(int64_t a, uint64_t b) const {
    if (a < 0) return c == 1 || c == 2 || c == 3;
    return cmp_real(c, (uint64_t)a, b);
  }
};

template <class T>
__device__ __forceinline__ bool truth(T x) {
  if constexpr (is_cplx<T>::v) return x.re != 0 || x.im != 0 || isnan_(x.re) || isnan_(x.im);
  else return x != 0 || x != x;
}

/* logical_and/or/xor: one instance per dtype (0 and, 1 or, 2 xor). */
template <class T>
struct op_logic : base<bool, T, 2> {
  int l;
  __device__ __forceinline__ explicit op_logic(const nd_kparams &p)
      : base<bool, T, 2>(p), l(p.op - ND_UFUNC_LOGICAL_AND) {}
  __device__ __forceinline__ bool operator()(T a, T b) const {
    const bool x = truth(a), y = truth(b);
    return l == 0 ? (x && y) : l == 1 ? (x || y) : (x != y);
  }
};

template <class T>
struct op_logical_not : base<bool, T, 1> {
  using base<bool, T, 1>::base;
  __device__ __forceinline__ bool operator()(T a) const { return !truth(a); }
};

/* bitwise_and/or/xor: one instance per dtype. */
template <class T>
struct op_bits : base<T, T, 2> {
  int l;
  __device__ __forceinline__ explicit op_bits(const nd_kparams &p)
      : base<T, T, 2>(p), l(p.op - ND_UFUNC_BITWISE_AND) {}
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return l == 0 ? (a && b) : l == 1 ? (a || b) : (a != b);
    else
      return (T)(l == 0 ? (a & b) : l == 1 ? (a | b) : (a ^ b));
  }
};

template <class T>
struct op_invert : base<T, T, 1> {
  using base<T, T, 1>::base;
  __device__ __forceinline__ T operator()(T a) const {
    if constexpr (std::is_same<T, bool>::value) return !a;
    else return (T)~a;
  }
};

/* left_shift and right_shift: one instance per dtype. */
template <class T>
struct op_shift : base<T, T, 2> {
  bool left;
  __device__ __forceinline__ explicit op_shift(const nd_kparams &p)
      : base<T, T, 2>(p), left(p.op == ND_UFUNC_LEFT_SHIFT) {}
  __device__ __forceinline__ T operator()(T a, T b) const {
    typedef typename std::conditional<(sizeof(T) <= 4), uint32_t, uint64_t>::type W;
    const bool in_range = (uint64_t)(typename uns<T>::type)b < sizeof(T) * 8;
    if (left) return in_range ? (T)((W)a << b) : (T)0;
    if (in_range) return (T)(a >> b);
    if constexpr (std::is_signed<T>::value) return a < 0 ? (T)-1 : (T)0;
    else return (T)0;
  }
};

template <template <class> class F>
void reg_all(table_t &t, int op) {
  reg_t<F, bool>(t, op);
  reg_ints<F>(t, op);
  reg_floats<F>(t, op);
  reg_complex<F>(t, op);
}

}  // namespace

void fill_compare(table_t &t) {
  for (int op = ND_UFUNC_EQUAL; op <= ND_UFUNC_GREATER_EQUAL; op++) {
    reg_all<op_cmp>(t, op);
    reg<cmp_iu>(t, op, ND_KEY_INT64_UINT64);
  }
  for (int op = ND_UFUNC_LOGICAL_AND; op <= ND_UFUNC_LOGICAL_XOR; op++) reg_all<op_logic>(t, op);
  reg_all<op_logical_not>(t, ND_UFUNC_LOGICAL_NOT);
  for (int op = ND_UFUNC_BITWISE_AND; op <= ND_UFUNC_BITWISE_XOR; op++) {
    reg_t<op_bits, bool>(t, op);
    reg_ints<op_bits>(t, op);
  }
  reg_t<op_invert, bool>(t, ND_UFUNC_INVERT);
  reg_ints<op_invert>(t, ND_UFUNC_INVERT);
  reg_ints<op_shift>(t, ND_UFUNC_LEFT_SHIFT);
  reg_ints<op_shift>(t, ND_UFUNC_RIGHT_SHIFT);
}

}  // namespace ndk
