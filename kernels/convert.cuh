/* Device-side loads and stores of every dtype through one tagged value, with NumPy's
 * conversion results. Used by the copy kernel's casting path and later by elementwise
 * casting paths, so a conversion between any two of the 14 dtypes needs no template
 * instance of its own.
 *
 * Float to integer follows NumPy on x86-64, which inherits the SSE conversion instructions:
 * cvttsd2si yields the "integer indefinite" value (INT32_MIN / INT64_MIN) for NaN and out of
 * range input; narrower targets take the low bits of the int32 result; unsigned 32- and
 * 64-bit targets use the compiler's split at 2^31 / 2^63. float16 sources convert through
 * float, and their uint32 target goes through int64 (as NumPy's half loops do). */
#ifndef ND_CONVERT_CUH
#define ND_CONVERT_CUH

#include <cuda_fp16.h>
#include <stdint.h>

enum nd_kkind { ND_K_SINT = 0, ND_K_UINT = 1, ND_K_FLOAT = 2, ND_K_HALF = 3, ND_K_COMPLEX = 4 };

struct nd_kval {
  int kind;
  int64_t i;
  uint64_t u;
  double re, im;
};

__device__ __forceinline__ int32_t nd_cvt32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}
__device__ __forceinline__ int64_t nd_cvt64(double x) {
  return (x > -9223372036854777856.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
__device__ __forceinline__ uint32_t nd_cvtu32(double x) {
  return x >= 2147483648.0 ? ((uint32_t)nd_cvt32(x - 2147483648.0) ^ 0x80000000u)
                           : (uint32_t)nd_cvt32(x);
}
__device__ __forceinline__ uint64_t nd_cvtu64(double x) {
  return x >= 9223372036854775808.0
             ? ((uint64_t)nd_cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull)
             : (uint64_t)nd_cvt64(x);
}

__device__ __forceinline__ nd_kval nd_load(int dtype, const char *p) {
  nd_kval v;
  v.kind = ND_K_SINT;
  v.i = 0;
  v.u = 0;
  v.re = 0;
  v.im = 0;
  switch (dtype) {
    case 0: v.i = *(const unsigned char *)p != 0; break;
    case 1: v.i = *(const int8_t *)p; break;
    case 2: v.i = *(const int16_t *)p; break;
    case 3: v.i = *(const int32_t *)p; break;
    case 4: v.i = *(const int64_t *)p; break;
    case 5: v.kind = ND_K_UINT; v.u = *(const uint8_t *)p; break;
    case 6: v.kind = ND_K_UINT; v.u = *(const uint16_t *)p; break;
    case 7: v.kind = ND_K_UINT; v.u = *(const uint32_t *)p; break;
    case 8: v.kind = ND_K_UINT; v.u = *(const uint64_t *)p; break;
    case 9: v.kind = ND_K_HALF; v.re = (double)__half2float(*(const __half *)p); break;
    case 10: v.kind = ND_K_FLOAT; v.re = (double)*(const float *)p; break;
    case 11: v.kind = ND_K_FLOAT; v.re = *(const double *)p; break;
    case 12: v.kind = ND_K_COMPLEX; v.re = ((const float *)p)[0]; v.im = ((const float *)p)[1]; break;
    case 13: v.kind = ND_K_COMPLEX; v.re = ((const double *)p)[0]; v.im = ((const double *)p)[1]; break;
  }
  return v;
}

/* Integer targets: T is the target type, W its width in bits, U whether unsigned. */
template <typename T, int W, bool U>
__device__ __forceinline__ T nd_to_int(const nd_kval &v) {
  switch (v.kind) {
    case ND_K_SINT: return (T)v.i;
    case ND_K_UINT: return (T)v.u;
    default: break;
  }
  double x = v.re;
  if (W < 32) return (T)nd_cvt32(x);
  if (W == 32) {
    if (!U) return (T)nd_cvt32(x);
    return v.kind == ND_K_HALF ? (T)(uint64_t)nd_cvt64(x) : (T)nd_cvtu32(x);
  }
  return U ? (T)nd_cvtu64(x) : (T)nd_cvt64(x);
}

__device__ __forceinline__ double nd_to_double(const nd_kval &v) {
  return v.kind == ND_K_SINT ? (double)v.i : v.kind == ND_K_UINT ? (double)v.u : v.re;
}
__device__ __forceinline__ float nd_to_float(const nd_kval &v) {
  /* Integers round once, directly to float, as a C cast does. */
  return v.kind == ND_K_SINT ? (float)v.i : v.kind == ND_K_UINT ? (float)v.u : (float)v.re;
}

__device__ __forceinline__ void nd_store(int dtype, char *p, const nd_kval &v) {
  switch (dtype) {
    case 0: {
      bool b = v.kind == ND_K_SINT ? v.i != 0
               : v.kind == ND_K_UINT ? v.u != 0
               : (v.re != 0 || v.im != 0 || v.re != v.re || v.im != v.im);
      *(unsigned char *)p = b;
      break;
    }
    case 1: *(int8_t *)p = nd_to_int<int8_t, 8, false>(v); break;
    case 2: *(int16_t *)p = nd_to_int<int16_t, 16, false>(v); break;
    case 3: *(int32_t *)p = nd_to_int<int32_t, 32, false>(v); break;
    case 4: *(int64_t *)p = nd_to_int<int64_t, 64, false>(v); break;
    case 5: *(uint8_t *)p = nd_to_int<uint8_t, 8, true>(v); break;
    case 6: *(uint16_t *)p = nd_to_int<uint16_t, 16, true>(v); break;
    case 7: *(uint32_t *)p = nd_to_int<uint32_t, 32, true>(v); break;
    case 8: *(uint64_t *)p = nd_to_int<uint64_t, 64, true>(v); break;
    case 9:
      /* Integers go through float, doubles round directly (NumPy's npy_double_to_half). */
      *(__half *)p = (v.kind == ND_K_SINT || v.kind == ND_K_UINT) ? __float2half_rn(nd_to_float(v))
                                                                  : __double2half(v.re);
      break;
    case 10: *(float *)p = nd_to_float(v); break;
    case 11: *(double *)p = nd_to_double(v); break;
    case 12:
      ((float *)p)[0] = nd_to_float(v);
      ((float *)p)[1] = (float)v.im;
      break;
    case 13:
      ((double *)p)[0] = nd_to_double(v);
      ((double *)p)[1] = v.im;
      break;
  }
}

#endif /* ND_CONVERT_CUH */
