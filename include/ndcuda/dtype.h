/* Data types, type promotion (NumPy 2 / NEP 50) and casting rules.
 *
 * All functions here are pure host code and need no device. */
#ifndef NDCUDA_DTYPE_H
#define NDCUDA_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Array dtypes. Values are explicit and append-only. ND_PYINT, ND_PYFLOAT and ND_PYCOMPLEX
 * are not array dtypes: they stand for "weak" Python-style scalars in promotion (NEP 50), so
 * that uint8 array + 1 stays uint8 while int8 array + int64 array becomes int64. */
typedef enum nd_dtype {
  ND_BOOL = 0,
  ND_INT8 = 1,
  ND_INT16 = 2,
  ND_INT32 = 3,
  ND_INT64 = 4,
  ND_UINT8 = 5,
  ND_UINT16 = 6,
  ND_UINT32 = 7,
  ND_UINT64 = 8,
  ND_FLOAT16 = 9,
  ND_FLOAT32 = 10,
  ND_FLOAT64 = 11,
  ND_COMPLEX64 = 12,
  ND_COMPLEX128 = 13,
  ND_PYINT = 64,
  ND_PYFLOAT = 65,
  ND_PYCOMPLEX = 66
} nd_dtype;

/* Number of array dtypes (ND_BOOL .. ND_COMPLEX128). */
#define ND_NUM_DTYPES 14

/* NumPy's kind characters. */
enum nd_dtype_kind {
  ND_KIND_BOOL = 'b',
  ND_KIND_INT = 'i',
  ND_KIND_UINT = 'u',
  ND_KIND_FLOAT = 'f',
  ND_KIND_COMPLEX = 'c'
};

/* NumPy's casting rules, from strictest to loosest. */
typedef enum nd_casting {
  ND_CASTING_NO = 0,
  ND_CASTING_EQUIV = 1,
  ND_CASTING_SAFE = 2,
  ND_CASTING_SAME_KIND = 3,
  ND_CASTING_UNSAFE = 4
} nd_casting;

/* 1 for the fourteen array dtypes, 0 otherwise (weak scalar kinds included). */
ND_API int nd_dtype_is_valid(nd_dtype dtype);

/* 1 for the three weak scalar kinds ND_PYINT, ND_PYFLOAT, ND_PYCOMPLEX. */
ND_API int nd_dtype_is_weak(nd_dtype dtype);

/* Bytes per element (1 for bool, 2 for float16, 16 for complex128), 0 for a value that is not
 * an array dtype. */
ND_API size_t nd_dtype_itemsize(nd_dtype dtype);

/* NumPy's name ("bool", "int8", ..., "complex128"; "int", "float", "complex" for the weak
 * kinds), or "invalid". Static storage. */
ND_API const char *nd_dtype_name(nd_dtype dtype);

/* NumPy's kind character (see nd_dtype_kind) for array dtypes and weak kinds, 0 otherwise. */
ND_API char nd_dtype_kind(nd_dtype dtype);

/* Parses a dtype name as numpy.dtype(name) does for ndcuda's dtypes: canonical names
 * ("float32"), word aliases ("float" and "double" are float64, "int", "long" and "intp" int64,
 * "complex" complex128, "intc" int32, ...), type codes ("f", "d", "?", "l", ...) and kind+size
 * codes ("f4", "c16"), the codes optionally after a byte-order mark '<', '=' or '|' ('>' only
 * for one-byte types). Borrows name. Errors: ND_ERR_NULL_POINTER, ND_ERR_DTYPE for an unknown
 * name or a dtype ndcuda does not hold (float128, big-endian, strings). */
ND_API nd_status nd_dtype_from_name(const char *name, nd_dtype *out);

/* NumPy's promote_types for two dtypes, weak kinds allowed (NEP 50): the smallest dtype both
 * can be safely cast to, except that a weak kind defers to the other operand's dtype when it
 * is of the same or a higher kind (uint8 + PYINT -> uint8, float16 + PYFLOAT -> float16,
 * int8 + PYFLOAT -> float64, float32 + PYCOMPLEX -> complex64).
 * Errors: ND_ERR_DTYPE for a value that is neither an array dtype nor a weak kind. */
ND_API nd_status nd_promote_types(nd_dtype a, nd_dtype b, nd_dtype *out);

/* NumPy 2's result_type over n operands (n >= 1), each an array dtype or a weak kind.
 * All-weak input gives the default dtype of the highest kind (int64, float64, complex128).
 * Borrows dtypes. Errors: ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT for n < 1,
 * ND_ERR_DTYPE for an invalid value. */
ND_API nd_status nd_result_type(int n, const nd_dtype *dtypes, nd_dtype *out);

/* NumPy's can_cast(from, to, casting) for array dtypes: 1 if allowed, 0 if not or if either
 * value is not an array dtype. */
ND_API int nd_can_cast(nd_dtype from, nd_dtype to, nd_casting casting);

/* "no", "equiv", "safe", "same_kind", "unsafe", or "invalid". */
ND_API const char *nd_casting_name(nd_casting casting);

/* A scalar value with its dtype: used for fill values, weak operands and results read back to
 * the host. dtype is an array dtype (a "strong" NumPy scalar such as np.float32(2)) or one of
 * the weak kinds (a Python int/float/complex). Exactly one member of the union is meaningful:
 * b for bool, i for signed and ND_PYINT, u for unsigned, f for float kinds, c for complex. */
typedef struct nd_scalar {
  nd_dtype dtype;
  union {
    int b;
    int64_t i;
    uint64_t u;
    double f;
    double c[2];
  } v;
} nd_scalar;

/* Scalar constructors: weak Python-style int, float and complex values, and a bool. */
static inline nd_scalar nd_scalar_int(int64_t value) {
  nd_scalar s;
  s.dtype = ND_PYINT;
  s.v.i = value;
  return s;
}
static inline nd_scalar nd_scalar_float(double value) {
  nd_scalar s;
  s.dtype = ND_PYFLOAT;
  s.v.f = value;
  return s;
}
static inline nd_scalar nd_scalar_complex(double re, double im) {
  nd_scalar s;
  s.dtype = ND_PYCOMPLEX;
  s.v.c[0] = re;
  s.v.c[1] = im;
  return s;
}
static inline nd_scalar nd_scalar_bool(int value) {
  nd_scalar s;
  s.dtype = ND_BOOL;
  s.v.b = value != 0;
  return s;
}

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_DTYPE_H */
