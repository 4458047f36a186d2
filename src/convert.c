/* Host-side conversion of one scalar to the bytes of an element, with the same NumPy results
 * as the device path in kernels/convert.cuh, and IEEE half-precision helpers. */
#include <math.h>
#include <string.h>

#include "src/array.h"
#include "src/convert.h"

uint16_t nd__double_to_half(double x) {
  /* Round-to-nearest-even straight from double, as NumPy's npy_double_to_half. */
  uint64_t b;
  memcpy(&b, &x, 8);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
  uint64_t exp = (b >> 52) & 0x7ffu;
  uint64_t man = b & 0xfffffffffffffull;
  if (exp == 0x7ff) return man ? (uint16_t)(sign | 0x7e00u) : (uint16_t)(sign | 0x7c00u);
  int e = (int)exp - 1023 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign; /* below half the smallest subnormal: rounds to zero */
    uint64_t m = man | 0x10000000000000ull;
    int shift = 42 + 1 - e; /* 52 - 10 + (1 - e) */
    uint64_t h = m >> shift, rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint64_t h = man >> 42, rem = man & ((1ull << 42) - 1), half = 1ull << 41;
  uint32_t r = (uint32_t)(((uint64_t)e << 10) | h);
  if (rem > half || (rem == half && (h & 1))) r++; /* may carry into the exponent: correct */
  return (uint16_t)(sign | r);
}

double nd__half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) v = ldexp((double)man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexp((double)(man | 0x400), exp - 25);
  return sign ? -v : v;
}

static int32_t nd__cvt32(double x) {
  return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}
static int64_t nd__cvt64(double x) {
  return (x > -9223372036854777856.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
static uint32_t nd__cvtu32(double x) {
  return x >= 2147483648.0 ? ((uint32_t)nd__cvt32(x - 2147483648.0) ^ 0x80000000u)
                           : (uint32_t)nd__cvt32(x);
}
static uint64_t nd__cvtu64(double x) {
  return x >= 9223372036854775808.0
             ? ((uint64_t)nd__cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull)
             : (uint64_t)nd__cvt64(x);
}

void nd__scalar_to_bytes(nd_scalar v, nd_dtype dtype, nd_kscalar *out) {
  memset(out->bytes, 0, sizeof out->bytes);
  /* The value as one of: signed, unsigned, real (with half origin), complex. */
  int kind; /* 0 signed, 1 unsigned, 2 real, 3 half real, 4 complex */
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0, im = 0;
  switch (nd_dtype_kind(v.dtype)) {
    case 'b': kind = 0; i = v.v.b != 0; break;
    case 'i': kind = 0; i = v.v.i; break;
    case 'u': kind = 1; u = v.v.u; break;
    case 'f': kind = v.dtype == ND_FLOAT16 ? 3 : 2; re = v.v.f; break;
    default: kind = 4; re = v.v.c[0]; im = v.v.c[1]; break;
  }
  unsigned char *p = out->bytes;
  double d = kind == 0 ? (double)i : kind == 1 ? (double)u : re;
  float f = kind == 0 ? (float)i : kind == 1 ? (float)u : (float)re;
#define ND__INT(T, expr)  \
  do {                    \
    T t_ = (T)(expr);     \
    memcpy(p, &t_, sizeof t_); \
  } while (0)
#define ND__ANYINT(T, fromfloat) ND__INT(T, kind == 0 ? (T)i : kind == 1 ? (T)u : (T)(fromfloat))
  switch (dtype) {
    case ND_BOOL:
      p[0] = kind == 0 ? i != 0 : kind == 1 ? u != 0 : (re != 0 || im != 0 || isnan(re) || isnan(im));
      break;
    case ND_INT8: ND__ANYINT(int8_t, nd__cvt32(re)); break;
    case ND_INT16: ND__ANYINT(int16_t, nd__cvt32(re)); break;
    case ND_INT32: ND__ANYINT(int32_t, nd__cvt32(re)); break;
    case ND_INT64: ND__ANYINT(int64_t, nd__cvt64(re)); break;
    case ND_UINT8: ND__ANYINT(uint8_t, nd__cvt32(re)); break;
    case ND_UINT16: ND__ANYINT(uint16_t, nd__cvt32(re)); break;
    case ND_UINT32: ND__ANYINT(uint32_t, kind == 3 ? (uint32_t)(uint64_t)nd__cvt64(re) : nd__cvtu32(re)); break;
    case ND_UINT64: ND__ANYINT(uint64_t, nd__cvtu64(re)); break;
    case ND_FLOAT16: {
      uint16_t h = (kind <= 1) ? nd__double_to_half((double)f) : nd__double_to_half(re);
      memcpy(p, &h, 2);
      break;
    }
    case ND_FLOAT32: memcpy(p, &f, 4); break;
    case ND_FLOAT64: memcpy(p, &d, 8); break;
    case ND_COMPLEX64: {
      float c[2] = {f, (float)im};
      memcpy(p, c, 8);
      break;
    }
    case ND_COMPLEX128: {
      double c[2] = {d, im};
      memcpy(p, c, 16);
      break;
    }
    default: break;
  }
#undef ND__ANYINT
#undef ND__INT
}
