/* Scalar arithmetic shared by the linalg kernels: float, double and two complex types with the
 * few operations a factorisation needs. Complex values are plain structs of two reals with the
 * layout of complex64 / complex128 (and of cuComplex), so device memory is read directly. */
#ifndef ND_LINALG_SCALAR_CUH
#define ND_LINALG_SCALAR_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

template <typename R>
struct __align__(2 * sizeof(R)) nd_cplx {
  R re, im;
};

typedef nd_cplx<float> nd_c64;
typedef nd_cplx<double> nd_c128;

template <typename T>
struct nd_real_of {
  typedef T type;
};
template <typename R>
struct nd_real_of<nd_cplx<R>> {
  typedef R type;
};

template <typename R>
__device__ __forceinline__ nd_cplx<R> operator+(nd_cplx<R> a, nd_cplx<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename R>
__device__ __forceinline__ nd_cplx<R> operator-(nd_cplx<R> a, nd_cplx<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename R>
__device__ __forceinline__ nd_cplx<R> operator-(nd_cplx<R> a) {
  return {-a.re, -a.im};
}
template <typename R>
__device__ __forceinline__ nd_cplx<R> operator*(nd_cplx<R> a, nd_cplx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* Zero and one. */
template <typename T>
__device__ __forceinline__ T nd_zero() {
  return T(0);
}
template <>
__device__ __forceinline__ nd_c64 nd_zero<nd_c64>() {
  return {0.f, 0.f};
}
template <>
__device__ __forceinline__ nd_c128 nd_zero<nd_c128>() {
  return {0.0, 0.0};
}
template <typename T>
__device__ __forceinline__ T nd_one() {
  return T(1);
}
template <>
__device__ __forceinline__ nd_c64 nd_one<nd_c64>() {
  return {1.f, 0.f};
}
template <>
__device__ __forceinline__ nd_c128 nd_one<nd_c128>() {
  return {1.0, 0.0};
}

/* |re| + |im|: LAPACK's cabs1, the pivot measure of the complex getrf. */
__device__ __forceinline__ float nd_abs1(float x) { return fabsf(x); }
__device__ __forceinline__ double nd_abs1(double x) { return fabs(x); }
__device__ __forceinline__ float nd_abs1(nd_c64 x) { return fabsf(x.re) + fabsf(x.im); }
__device__ __forceinline__ double nd_abs1(nd_c128 x) { return fabs(x.re) + fabs(x.im); }

/* The modulus. */
__device__ __forceinline__ float nd_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double nd_abs(double x) { return fabs(x); }
__device__ __forceinline__ float nd_abs(nd_c64 x) { return hypotf(x.re, x.im); }
__device__ __forceinline__ double nd_abs(nd_c128 x) { return hypot(x.re, x.im); }

__device__ __forceinline__ bool nd_is_zero(float x) { return x == 0.f; }
__device__ __forceinline__ bool nd_is_zero(double x) { return x == 0.0; }
__device__ __forceinline__ bool nd_is_zero(nd_c64 x) { return x.re == 0.f && x.im == 0.f; }
__device__ __forceinline__ bool nd_is_zero(nd_c128 x) { return x.re == 0.0 && x.im == 0.0; }

/* 1 / x; the complex form scales by the larger part first (Smith) so that neither |x|^2
 * overflows nor underflows for representable inputs. */
__device__ __forceinline__ float nd_recip(float x) { return 1.0f / x; }
__device__ __forceinline__ double nd_recip(double x) { return 1.0 / x; }
template <typename R>
__device__ __forceinline__ nd_cplx<R> nd_recip_c(nd_cplx<R> x) {
  if (fabs((double)x.re) >= fabs((double)x.im)) {
    R r = x.im / x.re, d = x.re + x.im * r;
    return {R(1) / d, -r / d};
  }
  R r = x.re / x.im, d = x.re * r + x.im;
  return {r / d, R(-1) / d};
}
__device__ __forceinline__ nd_c64 nd_recip(nd_c64 x) { return nd_recip_c(x); }
__device__ __forceinline__ nd_c128 nd_recip(nd_c128 x) { return nd_recip_c(x); }

__device__ __forceinline__ float nd_conj(float x) { return x; }
__device__ __forceinline__ double nd_conj(double x) { return x; }
__device__ __forceinline__ nd_c64 nd_conj(nd_c64 x) { return {x.re, -x.im}; }
__device__ __forceinline__ nd_c128 nd_conj(nd_c128 x) { return {x.re, -x.im}; }

/* The unit-modulus phase x / |x| (the sign of a real), for slogdet. */
__device__ __forceinline__ float nd_phase(float x) { return x < 0.f ? -1.f : 1.f; }
__device__ __forceinline__ double nd_phase(double x) { return x < 0.0 ? -1.0 : 1.0; }
__device__ __forceinline__ nd_c64 nd_phase(nd_c64 x) {
  float a = hypotf(x.re, x.im);
  return {x.re / a, x.im / a};
}
__device__ __forceinline__ nd_c128 nd_phase(nd_c128 x) {
  double a = hypot(x.re, x.im);
  return {x.re / a, x.im / a};
}

/* A real scalar as T. */
template <typename T>
__device__ __forceinline__ T nd_from_real(double v) {
  return T(v);
}
template <>
__device__ __forceinline__ nd_c64 nd_from_real<nd_c64>(double v) {
  return {(float)v, 0.f};
}
template <>
__device__ __forceinline__ nd_c128 nd_from_real<nd_c128>(double v) {
  return {v, 0.0};
}

/* Pivot key: the float32 bits of a non-negative magnitude order like the magnitudes (NaN sorts
 * above everything, so a NaN column is chosen and poisons only its own matrix). The low 5 bits
 * are replaced by 31 - row, so the maximum key is the largest magnitude and, among (nearly)
 * equal magnitudes, the lowest row, as LAPACK's i?amax picks the first maximum. */
__device__ __forceinline__ unsigned nd_pivot_key(double mag, int row) {
  float f = (float)mag;
  unsigned bits = __float_as_uint(f) & 0x7fffffffu;
  return (bits & ~31u) | (unsigned)(31 - row);
}
__device__ __forceinline__ unsigned nd_pivot_key(float mag, int row) {
  unsigned bits = __float_as_uint(mag) & 0x7fffffffu;
  return (bits & ~31u) | (unsigned)(31 - row);
}

/* Warp maximum: one redux.sync instruction on sm_80 and later. */
__device__ __forceinline__ unsigned nd_warp_max(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned o = __shfl_xor_sync(0xffffffffu, v, off);
    v = o > v ? o : v;
  }
  return v;
#endif
}

/* Warp shuffles of the scalar types (complex: both parts), every lane taking part: nd_shfl
 * returns lane src's value, nd_shfl_xor lane (this lane ^ mask)'s. */
template <bool XOR>
__device__ __forceinline__ float nd_shfl_as(float v, int l) {
  return XOR ? __shfl_xor_sync(0xffffffffu, v, l) : __shfl_sync(0xffffffffu, v, l);
}
template <bool XOR>
__device__ __forceinline__ double nd_shfl_as(double v, int l) {
  return XOR ? __shfl_xor_sync(0xffffffffu, v, l) : __shfl_sync(0xffffffffu, v, l);
}
template <bool XOR, typename R>
__device__ __forceinline__ nd_cplx<R> nd_shfl_as(nd_cplx<R> v, int l) {
  return {nd_shfl_as<XOR>(v.re, l), nd_shfl_as<XOR>(v.im, l)};
}
template <typename T>
__device__ __forceinline__ T nd_shfl(T v, int src) {
  return nd_shfl_as<false>(v, src);
}
template <typename T>
__device__ __forceinline__ T nd_shfl_xor(T v, int mask) {
  return nd_shfl_as<true>(v, mask);
}

/* Predicated shared-memory stores written as PTX: a plain `if (pred) *p = v` for several rows
 * would be merged by the compiler into one store of a phi (copies of a whole row, spills), and
 * the value stored would be computed after the branch; here there is no branch at all. */
__device__ __forceinline__ void nd_sts_if(void *p, uint4 v, bool pred) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %5, 0; @q st.shared.v4.b32 [%0], {%1, %2, %3, %4}; }" ::"r"(
                   (unsigned)__cvta_generic_to_shared(p)),
               "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"((int)pred)
               : "memory");
}
__device__ __forceinline__ void nd_sts_if(void *p, uint2 v, bool pred) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %3, 0; @q st.shared.v2.b32 [%0], {%1, %2}; }" ::"r"(
                   (unsigned)__cvta_generic_to_shared(p)),
               "r"(v.x), "r"(v.y), "r"((int)pred)
               : "memory");
}
__device__ __forceinline__ void nd_sts_if(void *p, unsigned v, bool pred) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q st.shared.b32 [%0], %1; }" ::"r"(
                   (unsigned)__cvta_generic_to_shared(p)),
               "r"(v), "r"((int)pred)
               : "memory");
}

/* Asks L2 for the 128-byte line holding p (global memory; no register result). */
__device__ __forceinline__ void nd_prefetch_l2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(__cvta_generic_to_global(p)));
}

#endif /* ND_LINALG_SCALAR_CUH */
