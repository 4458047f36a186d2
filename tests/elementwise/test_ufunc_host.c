/* Host suite of the elementwise layer: type resolution (elementwise/ufunc.c) against NumPy for every
 * function and every pair of operand types, its agreement with the kernel instance table
 * (elementwise/elementwise.cu), the checks of weak scalars, and every argument error that is
 * detected before any device work (broadcasting, out shape, out casting, read-only out,
 * NULL, unknown op). No device is needed: arrays here are headers over a fake buffer, and
 * each call made with them fails before it would touch the device.
 *
 * The type table below was generated once with NumPy 2.4 (x86-64) by the script quoted
 * here and pasted as literals; nothing calls Python at run time. Each character is the
 * result dtype ('?bhilBHILefdFD' in ndcuda's dtype order: bool, int8..int64, uint8..uint64,
 * float16..float64, complex64, complex128) or 'E' where NumPy raises TypeError. Operands
 * 14, 15 and 16 are the Python scalars 1, 1.0 and 1j (ndcuda's weak kinds).
 *
 * import numpy as np, warnings
 * warnings.simplefilter("ignore")
 * codes = "?bhilBHILefdFD"  # ndcuda enum order: bool int8 int16 int32 int64 uint8 .. uint64 f16 f32 f64 c64 c128
 * dts = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
 *        np.float16, np.float32, np.float64, np.complex64, np.complex128]
 * def operand(k):
 *     if k < 14: return np.ones(1, dts[k])
 *     return [1, 1.0, 1j][k - 14]
 * def code(r):
 *     d = np.asarray(r).dtype
 *     return codes[dts.index(d.type)]
 * def res(f, *args):
 *     try: return code(f(*args))
 *     except (TypeError, ValueError, OverflowError): return 'E'
 * unary = "negative positive absolute sign reciprocal square sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad rad2deg floor ceil trunc rint logical_not invert signbit isnan isinf isfinite conjugate".split()
 * binary = "add subtract multiply divide floor_divide remainder fmod power logaddexp logaddexp2 arctan2 hypot equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor left_shift right_shift maximum minimum fmax fmin copysign nextafter".split()
 * print("    // unary: one char per operand type (14 dtypes, then int, float, complex)")
 * for o in unary:
 *     f = getattr(np, o)
 *     print('    {ND_UFUNC_%s, "%s"},' % (o.upper(), ''.join(res(f, operand(k)) for k in range(17))))
 * for o, f in (("angle", np.angle), ("real", np.real), ("imag", np.imag)):
 *     print('    {ND_UFUNC_%s, "%s"},' % (o.upper(), ''.join(res(f, operand(k)) for k in range(14))))
 * print("    // binary: 17 x 17, row = first operand")
 * for o in binary:
 *     f = getattr(np, o)
 *     print('    {ND_UFUNC_%s, "%s"},' % (o.upper(), ''.join(res(f, operand(a), operand(b)) for a in range(17) for b in range(17))))
 * print("    // where(True, x, y): 17 x 17")
 * print('    {ND_UFUNC_WHERE, "%s"},' % ''.join(res(np.where, np.ones(1, bool), operand(a), operand(b)) for a in range(17) for b in range(17)))
 * print("    // clip(a, lo, hi): a in 14 dtypes, (lo, hi) in 17 x 17")
 * print('    {ND_UFUNC_CLIP,\n' + '\n'.join('     "%s"' % ''.join(res(np.clip, operand(a), operand(b), operand(c)) for b in range(17) for c in range(17)) for a in range(14)) + '},')
 */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/array.h"
#include "elementwise/ufunc.h"

typedef struct type_row {
  int op;
  const char *codes;
} type_row;

static const type_row type_table[] = {
    // unary: one char per operand type (14 dtypes, then int, float, complex)
    {ND_UFUNC_NEGATIVE, "EbhilBHILefdFDldD"},
    {ND_UFUNC_POSITIVE, "EbhilBHILefdFDldD"},
    {ND_UFUNC_ABSOLUTE, "?bhilBHILefdfdldd"},
    {ND_UFUNC_SIGN, "EbhilBHILefdFDldD"},
    {ND_UFUNC_RECIPROCAL, "bbhilBHILefdFDldD"},
    {ND_UFUNC_SQUARE, "bbhilBHILefdFDldD"},
    {ND_UFUNC_SQRT, "eefddefddefdFDddD"},
    {ND_UFUNC_CBRT, "eefddefddefdEEddE"},
    {ND_UFUNC_EXP, "eefddefddefdFDddD"},
    {ND_UFUNC_EXP2, "eefddefddefdFDddD"},
    {ND_UFUNC_EXPM1, "eefddefddefdFDddD"},
    {ND_UFUNC_LOG, "eefddefddefdFDddD"},
    {ND_UFUNC_LOG2, "eefddefddefdFDddD"},
    {ND_UFUNC_LOG10, "eefddefddefdFDddD"},
    {ND_UFUNC_LOG1P, "eefddefddefdFDddD"},
    {ND_UFUNC_SIN, "eefddefddefdFDddD"},
    {ND_UFUNC_COS, "eefddefddefdFDddD"},
    {ND_UFUNC_TAN, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCSIN, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCCOS, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCTAN, "eefddefddefdFDddD"},
    {ND_UFUNC_SINH, "eefddefddefdFDddD"},
    {ND_UFUNC_COSH, "eefddefddefdFDddD"},
    {ND_UFUNC_TANH, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCSINH, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCCOSH, "eefddefddefdFDddD"},
    {ND_UFUNC_ARCTANH, "eefddefddefdFDddD"},
    {ND_UFUNC_DEG2RAD, "eefddefddefdEEddE"},
    {ND_UFUNC_RAD2DEG, "eefddefddefdEEddE"},
    {ND_UFUNC_FLOOR, "?bhilBHILefdEEldE"},
    {ND_UFUNC_CEIL, "?bhilBHILefdEEldE"},
    {ND_UFUNC_TRUNC, "?bhilBHILefdEEldE"},
    {ND_UFUNC_RINT, "eefddefddefdFDddD"},
    {ND_UFUNC_LOGICAL_NOT, "?????????????????"},
    {ND_UFUNC_INVERT, "?bhilBHILEEEEElEE"},
    {ND_UFUNC_SIGNBIT, "????????????EE??E"},
    {ND_UFUNC_ISNAN, "?????????????????"},
    {ND_UFUNC_ISINF, "?????????????????"},
    {ND_UFUNC_ISFINITE, "?????????????????"},
    {ND_UFUNC_CONJUGATE, "bbhilBHILefdFDldD"},
    {ND_UFUNC_ANGLE, "defddefddefdfd"},
    {ND_UFUNC_REAL, "?bhilBHILefdfd"},
    {ND_UFUNC_IMAG, "?bhilBHILefdfd"},
    // binary: 17 x 17, row = first operand
    {ND_UFUNC_ADD, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_SUBTRACT, "EbhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_MULTIPLY, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_DIVIDE, "dddddddddefdFDddDdddddddddefdFDddDdddddddddffdFDddDddddddddddddDDddDddddddddddddDDddDdddddddddefdFDddDdddddddddffdFDddDddddddddddddDDddDddddddddddddDDddDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDdddddddddefdFDddDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_FLOOR_DIVIDE, "bbhilBHILefdEEldEbbhilhildefdEEbdEhhhilhildffdEEhdEiiiiliilddddEEidEllllllllddddEEldEBhhilBHILefdEEBdEHiiilHHILffdEEHdEIllllIIILdddEEIdELddddLLLLdddEELdEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILefdEEldEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_REMAINDER, "bbhilBHILefdEEldEbbhilhildefdEEbdEhhhilhildffdEEhdEiiiiliilddddEEidEllllllllddddEEldEBhhilBHILefdEEBdEHiiilHHILffdEEHdEIllllIIILdddEEIdELddddLLLLdddEELdEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILefdEEldEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_FMOD, "bbhilBHILefdEEldEbbhilhildefdEEbdEhhhilhildffdEEhdEiiiiliilddddEEidEllllllllddddEEldEBhhilBHILefdEEBdEHiiilHHILffdEEHdEIllllIIILdddEEIdELddddLLLLdddEELdEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILefdEEldEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_POWER, "bbhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_LOGADDEXP, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_LOGADDEXP2, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_ARCTAN2, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_HYPOT, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_EQUAL, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_NOT_EQUAL, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_LESS, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_LESS_EQUAL, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_GREATER, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_GREATER_EQUAL, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_LOGICAL_AND, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_LOGICAL_OR, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_LOGICAL_XOR, "?????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????????"},
    {ND_UFUNC_BITWISE_AND, "?bhilBHILEEEEElEEbbhilhilEEEEEEbEEhhhilhilEEEEEEhEEiiiiliilEEEEEEiEEllllllllEEEEEElEEBhhilBHILEEEEEBEEHiiilHHILEEEEEHEEIllllIIILEEEEEIEELEEEELLLLEEEEELEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILEEEEElEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_BITWISE_OR, "?bhilBHILEEEEElEEbbhilhilEEEEEEbEEhhhilhilEEEEEEhEEiiiiliilEEEEEEiEEllllllllEEEEEElEEBhhilBHILEEEEEBEEHiiilHHILEEEEEHEEIllllIIILEEEEEIEELEEEELLLLEEEEELEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILEEEEElEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_BITWISE_XOR, "?bhilBHILEEEEElEEbbhilhilEEEEEEbEEhhhilhilEEEEEEhEEiiiiliilEEEEEEiEEllllllllEEEEEElEEBhhilBHILEEEEEBEEHiiilHHILEEEEEHEEIllllIIILEEEEEIEELEEEELLLLEEEEELEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILEEEEElEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_LEFT_SHIFT, "bbhilBHILEEEEElEEbbhilhilEEEEEEbEEhhhilhilEEEEEEhEEiiiiliilEEEEEEiEEllllllllEEEEEElEEBhhilBHILEEEEEBEEHiiilHHILEEEEEHEEIllllIIILEEEEEIEELEEEELLLLEEEEELEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILEEEEElEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_RIGHT_SHIFT, "bbhilBHILEEEEElEEbbhilhilEEEEEEbEEhhhilhilEEEEEEhEEiiiiliilEEEEEEiEEllllllllEEEEEElEEBhhilBHILEEEEEBEEHiiilHHILEEEEEHEEIllllIIILEEEEEIEELEEEELLLLEEEEELEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEElbhilBHILEEEEElEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_MAXIMUM, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_MINIMUM, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_FMAX, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_FMIN, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    {ND_UFUNC_COPYSIGN, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    {ND_UFUNC_NEXTAFTER, "eefddefddefdEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEedEfffddffddffdEEfdEddddddddddddEEddEddddddddddddEEddEeefddefddefdEEeeEfffddffddffdEEffEddddddddddddEEddEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEdefddefddefdEEddEdddddddddefdEEddEEEEEEEEEEEEEEEEEE"},
    // where(True, x, y): 17 x 17
    {ND_UFUNC_WHERE, "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"},
    // clip(a, lo, hi): a in 14 dtypes, (lo, hi) in 17 x 17
    {ND_UFUNC_CLIP,
     "?bhilBHILefdFDldDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDlbhilBHILefdFDldDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"
     "bbhilhildefdFDbdDbbhilhildefdFDbdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDhhhilhildefdFDhdDiiiiliildffdFDidDllllllllddddDDldDddddddddddddDDddDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDbbhilhildefdFDbdDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"
     "hhhilhildffdFDhdDhhhilhildffdFDhdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDhhhilhildffdFDhdDiiiiliildffdFDidDllllllllddddDDldDddddddddddddDDddDfffddffddffdFDffFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDhhhilhildffdFDhdDdddddddddffdFDddDDDDDDDDDDFFDFDDDD"
     "iiiiliilddddDDidDiiiiliilddddDDidDiiiiliilddddDDidDiiiiliilddddDDidDllllllllddddDDldDiiiiliilddddDDidDiiiiliilddddDDidDllllllllddddDDldDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDiiiiliilddddDDidDddddddddddddDDddDDDDDDDDDDDDDDDDDD"
     "llllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDllllllllddddDDldDddddddddddddDDddDDDDDDDDDDDDDDDDDD"
     "BhhilBHILefdFDBdDhhhilhildefdFDhdDhhhilhildffdFDhdDiiiiliilddddDDidDllllllllddddDDldDBhhilBHILefdFDBdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDBhhilBHILefdFDBdDdddddddddefdFDddDDDDDDDDDDFFDFDDDD"
     "HiiilHHILffdFDHdDiiiiliildffdFDidDiiiiliildffdFDidDiiiiliilddddDDidDllllllllddddDDldDHiiilHHILffdFDHdDHiiilHHILffdFDHdDIllllIIILdddDDIdDLddddLLLLdddDDLdDfffddffddffdFDffFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDHiiilHHILffdFDHdDdddddddddffdFDddDDDDDDDDDDFFDFDDDD"
     "IllllIIILdddDDIdDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDllllllllddddDDldDIllllIIILdddDDIdDIllllIIILdddDDIdDIllllIIILdddDDIdDLddddLLLLdddDDLdDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDIllllIIILdddDDIdDddddddddddddDDddDDDDDDDDDDDDDDDDDD"
     "LddddLLLLdddDDLdDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDLddddLLLLdddDDLdDLddddLLLLdddDDLdDLddddLLLLdddDDLdDLddddLLLLdddDDLdDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDLddddLLLLdddDDLdDddddddddddddDDddDDDDDDDDDDDDDDDDDD"
     "eefddefddefdFDeeFeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDddddddddddddDDddDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDddddddddddddDDddDeefddefddefdFDeeFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDeefddefddefdFDeeFeefddefddefdFDeeFFFFDDFFDDFFDFDFFF"
     "fffddffddffdFDffFfffddffddffdFDffFfffddffddffdFDffFddddddddddddDDddDddddddddddddDDddDfffddffddffdFDffFfffddffddffdFDffFddddddddddddDDddDddddddddddddDDddDfffddffddffdFDffFfffddffddffdFDffFddddddddddddDDddDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDfffddffddffdFDffFfffddffddffdFDffFFFFDDFFDDFFDFDFFF"
     "ddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDddddddddddddDDddDddddddddddddDDddDDDDDDDDDDDDDDDDDD"
     "FFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDFFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDFFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDFFFDDFFDDFFDFDFFFDDDDDDDDDDDDDDDDDFFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFFFFFDDFFDDFFDFDFFF"
     "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD"},
};

#define FN "nd_test_fn"
static const char dtype_codes[] = "?bhilBHILefdFD";

static nd_dtype operand_dtype(int k) { return k < ND_NUM_DTYPES ? (nd_dtype)k : (nd_dtype)(ND_PYINT + k - ND_NUM_DTYPES); }

static char result_code(nd_status st, nd_dtype out) {
  if (st == ND_ERR_DTYPE) return 'E';
  if (st != ND_OK) return 'X'; /* any other failure is never expected */
  return dtype_codes[out];
}

static void expect_message(const char *want) {
  ck_assert_msg(strcmp(nd_last_error(), want) == 0, "message\n  '%s'\nwant\n  '%s'", nd_last_error(), want);
}

/* ---- resolution against NumPy ---------------------------------------------------------- */

START_TEST(resolution_matches_numpy) {
  int checked = 0, bad = 0;
  char report[2048] = "";
  size_t len = 0;
  for (size_t r = 0; r < sizeof type_table / sizeof type_table[0]; r++) {
    const int op = type_table[r].op;
    const char *codes = type_table[r].codes;
    const int n = (int)strlen(codes);
    const int nin = nd_ufunc_nin((nd_ufunc)op);
    for (int c = 0; c < n; c++) {
      nd_dtype dt[3] = {ND_BOOL, ND_BOOL, ND_BOOL};
      if (op == ND_UFUNC_WHERE) {
        dt[1] = operand_dtype(c / 17);
        dt[2] = operand_dtype(c % 17);
      } else if (op == ND_UFUNC_CLIP) {
        dt[0] = operand_dtype(c / 289);
        dt[1] = operand_dtype(c / 17 % 17);
        dt[2] = operand_dtype(c % 17);
      } else if (nin == 2) {
        dt[0] = operand_dtype(c / 17);
        dt[1] = operand_dtype(c % 17);
      } else {
        dt[0] = operand_dtype(c);
      }
      nd__ufunc_loop L;
      nd_clear_error();
      nd_status st = nd__ufunc_resolve(FN, op, nin, dt, &L);
      const char got = result_code(st, st == ND_OK ? L.out : ND_BOOL);
      nd_dtype pub = ND_BOOL;
      nd_status st2 = nd_ufunc_result_type((nd_ufunc)op, nin, dt, &pub);
      const char got2 = result_code(st2, pub);
      checked++;
      if (got != codes[c] || got2 != codes[c]) {
        if (bad++ < 12 && len < sizeof report)
          len += (size_t)snprintf(report + len, sizeof report - len, "\n  %s(%s, %s, %s): got %c/%c, NumPy %c (%s)",
                                  nd_ufunc_name((nd_ufunc)op), nd_dtype_name(dt[0]),
                                  nin > 1 ? nd_dtype_name(dt[1]) : "-", nin > 2 ? nd_dtype_name(dt[2]) : "-",
                                  got, got2, codes[c], nd_last_error());
      }
    }
  }
  ck_assert_msg(bad == 0, "%d of %d resolutions differ from NumPy:%s", bad, checked, report);
  ck_assert_int_gt(checked, 12000);
}
END_TEST

/* Every loop that resolves to a kernel launch has an instance writing the resolved dtype. */
START_TEST(kernel_instances_cover_every_loop) {
  int checked = 0;
  for (int op = 0; op < ND_UFUNC_COUNT_; op++) {
    const int nin = nd_ufunc_nin((nd_ufunc)op);
    const int total = nin == 1 ? 17 : nin == 2 ? 17 * 17 : 17 * 17 * 17;
    for (int c = 0; c < total; c++) {
      nd_dtype dt[3] = {operand_dtype(c % 17), operand_dtype(c / 17 % 17), operand_dtype(c / 289 % 17)};
      nd__ufunc_loop L;
      if (nd__ufunc_resolve(FN, op, nin, dt, &L) != ND_OK || L.action != ND__UF_RUN) continue;
      checked++;
      ck_assert_msg(nd_k_ufunc_supported(L.kop, L.key), "%s(%s, %s, %s): no instance for kop %d key %d",
                    nd_ufunc_name((nd_ufunc)op), nd_dtype_name(dt[0]), nd_dtype_name(dt[1]),
                    nd_dtype_name(dt[2]), L.kop, L.key);
      ck_assert_msg(nd_k_ufunc_out_dtype(L.kop, L.key) == (int)L.out, "%s(%s, ...): instance writes %d, resolved %s",
                    nd_ufunc_name((nd_ufunc)op), nd_dtype_name(dt[0]), nd_k_ufunc_out_dtype(L.kop, L.key),
                    nd_dtype_name(L.out));
      for (int j = 0; j < nin; j++)
        ck_assert_msg(nd_dtype_is_valid(L.in[j]), "%s: input %d converts to invalid dtype %d",
                      nd_ufunc_name((nd_ufunc)op), j, (int)L.in[j]);
    }
  }
  ck_assert_int_gt(checked, 5000);
  /* The operations the public API builds on top of the ufuncs. */
  for (int d = ND_INT8; d <= ND_COMPLEX128; d++) ck_assert(nd_k_ufunc_supported(ND_KOP_ROUND, d));
  for (int d = ND_FLOAT16; d <= ND_COMPLEX128; d++) {
    ck_assert(nd_k_ufunc_supported(ND_KOP_NAN_TO_NUM, d));
    ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_KOP_NAN_TO_NUM, d), d);
    ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_KOP_ISCLOSE, d), ND_BOOL);
    ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_KOP_EQUAL_NAN, d), ND_BOOL);
  }
  ck_assert(!nd_k_ufunc_supported(ND_KOP_NAN_TO_NUM, ND_INT8));
  ck_assert(!nd_k_ufunc_supported(ND_UFUNC_BITWISE_AND, ND_FLOAT32));
  ck_assert(!nd_k_ufunc_supported(-1, 0));
  ck_assert(!nd_k_ufunc_supported(0, ND_KEY_COUNT_));
  ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_UFUNC_BITWISE_AND, ND_FLOAT32), -1);
  for (int d = 0; d < ND_NUM_DTYPES; d++) ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_UFUNC_WHERE, d), d);
  ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_UFUNC_ABSOLUTE, ND_COMPLEX64), ND_FLOAT32);
  ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_UFUNC_DIVIDE, ND_INT8), ND_FLOAT64);
  ck_assert_int_eq(nd_k_ufunc_out_dtype(ND_UFUNC_LESS, ND_KEY_INT64_UINT64), ND_BOOL);
}
END_TEST

static nd__ufunc_loop resolve2(int op, nd_dtype a, nd_dtype b) {
  nd_dtype dt[2] = {a, b};
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve(FN, op, 2, dt, &L));
  return L;
}
static nd__ufunc_loop resolve1(int op, nd_dtype a) {
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve(FN, op, 1, &a, &L));
  return L;
}

START_TEST(resolution_details) {
  /* Mixed signed/unsigned comparisons keep exact integers (NumPy's qQ loops). */
  nd__ufunc_loop L = resolve2(ND_UFUNC_LESS, ND_INT8, ND_UINT64);
  ck_assert_int_eq(L.key, ND_KEY_INT64_UINT64);
  ck_assert_int_eq(L.in[0], ND_INT64);
  ck_assert_int_eq(L.in[1], ND_UINT64);
  ck_assert_int_eq(L.src[0], 0);
  ck_assert_int_eq(L.kop, ND_UFUNC_LESS);
  L = resolve2(ND_UFUNC_LESS, ND_UINT64, ND_INT32);
  ck_assert_int_eq(L.key, ND_KEY_INT64_UINT64);
  ck_assert_int_eq(L.src[0], 1);
  ck_assert_int_eq(L.src[1], 0);
  ck_assert_int_eq(L.kop, ND_UFUNC_GREATER);
  L = resolve2(ND_UFUNC_GREATER_EQUAL, ND_UINT64, ND_INT64);
  ck_assert_int_eq(L.kop, ND_UFUNC_LESS_EQUAL);
  L = resolve2(ND_UFUNC_EQUAL, ND_UINT32, ND_INT64);
  ck_assert_int_eq(L.key, ND_INT64); /* promotion stays integral: ordinary loop */
  L = resolve2(ND_UFUNC_EQUAL, ND_UINT64, ND_PYINT);
  ck_assert_int_eq(L.key, ND_UINT64);
  /* Integer division computes in the integer instance and writes float64. */
  L = resolve2(ND_UFUNC_DIVIDE, ND_UINT8, ND_INT8);
  ck_assert_int_eq(L.in[0], ND_INT16);
  ck_assert_int_eq(L.in[1], ND_INT16);
  ck_assert_int_eq(L.out, ND_FLOAT64);
  L = resolve2(ND_UFUNC_DIVIDE, ND_BOOL, ND_BOOL);
  ck_assert_int_eq(L.key, ND_BOOL);
  ck_assert_int_eq(L.out, ND_FLOAT64);
  /* Legacy linear search, with weak scalars counted as the promoted dtype. */
  ck_assert_int_eq(resolve1(ND_UFUNC_SQRT, ND_INT8).in[0], ND_FLOAT16);
  ck_assert_int_eq(resolve1(ND_UFUNC_SQRT, ND_UINT16).in[0], ND_FLOAT32);
  ck_assert_int_eq(resolve1(ND_UFUNC_SQRT, ND_INT64).in[0], ND_FLOAT64);
  ck_assert_int_eq(resolve2(ND_UFUNC_ARCTAN2, ND_INT16, ND_INT16).key, ND_FLOAT32);
  ck_assert_int_eq(resolve2(ND_UFUNC_ARCTAN2, ND_INT8, ND_UINT8).key, ND_FLOAT16);
  ck_assert_int_eq(resolve2(ND_UFUNC_HYPOT, ND_INT8, ND_PYINT).key, ND_FLOAT16);
  ck_assert_int_eq(resolve2(ND_UFUNC_HYPOT, ND_BOOL, ND_PYINT).key, ND_FLOAT64);
  ck_assert_int_eq(resolve2(ND_UFUNC_HYPOT, ND_INT8, ND_PYFLOAT).key, ND_FLOAT64);
  ck_assert_int_eq(resolve2(ND_UFUNC_POWER, ND_BOOL, ND_BOOL).key, ND_INT8);
  /* Host-side actions: identities, constants. */
  ck_assert_int_eq(resolve1(ND_UFUNC_FLOOR, ND_INT32).action, ND__UF_COPY);
  ck_assert_int_eq(resolve1(ND_UFUNC_FLOOR, ND_INT32).out, ND_INT32);
  ck_assert_int_eq(resolve1(ND_UFUNC_FLOOR, ND_FLOAT32).action, ND__UF_RUN);
  ck_assert_int_eq(resolve1(ND_UFUNC_POSITIVE, ND_FLOAT32).action, ND__UF_COPY);
  ck_assert_int_eq(resolve1(ND_UFUNC_ABSOLUTE, ND_UINT8).action, ND__UF_COPY);
  ck_assert_int_eq(resolve1(ND_UFUNC_ABSOLUTE, ND_INT8).action, ND__UF_RUN);
  L = resolve1(ND_UFUNC_ABSOLUTE, ND_COMPLEX64);
  ck_assert_int_eq(L.action, ND__UF_RUN);
  ck_assert_int_eq(L.out, ND_FLOAT32);
  L = resolve1(ND_UFUNC_ISNAN, ND_INT8);
  ck_assert_int_eq(L.action, ND__UF_FILL);
  ck_assert_int_eq(L.fill, 0);
  L = resolve1(ND_UFUNC_ISFINITE, ND_UINT64);
  ck_assert_int_eq(L.action, ND__UF_FILL);
  ck_assert_int_eq(L.fill, 1);
  L = resolve1(ND_UFUNC_IMAG, ND_FLOAT32);
  ck_assert_int_eq(L.action, ND__UF_FILL);
  ck_assert_int_eq(L.out, ND_FLOAT32);
  ck_assert_int_eq(resolve1(ND_UFUNC_REAL, ND_FLOAT32).action, ND__UF_COPY);
  L = resolve1(ND_UFUNC_CONJUGATE, ND_BOOL);
  ck_assert_int_eq(L.action, ND__UF_COPY);
  ck_assert_int_eq(L.out, ND_INT8);
  /* angle of a real array is arctan2(0, a): bool and uint64 give float64, int8 float16. */
  L = resolve1(ND_UFUNC_ANGLE, ND_BOOL);
  ck_assert_int_eq(L.in[0], ND_FLOAT64);
  ck_assert_int_eq(L.out, ND_FLOAT64);
  ck_assert_int_eq(resolve1(ND_UFUNC_ANGLE, ND_INT8).out, ND_FLOAT16);
  L = resolve1(ND_UFUNC_ANGLE, ND_COMPLEX64);
  ck_assert_int_eq(L.key, ND_COMPLEX64);
  ck_assert_int_eq(L.out, ND_FLOAT32);
  /* where: the condition becomes bool, x and y promote. */
  nd_dtype w[3] = {ND_FLOAT64, ND_UINT8, ND_INT8};
  ND_ASSERT_OK(nd__ufunc_resolve(FN, ND_UFUNC_WHERE, 3, w, &L));
  ck_assert_int_eq(L.in[0], ND_BOOL);
  ck_assert_int_eq(L.in[1], ND_INT16);
  ck_assert_int_eq(L.out, ND_INT16);
}
END_TEST

START_TEST(resolution_errors) {
  nd_dtype dt[3] = {ND_FLOAT64, ND_FLOAT64, ND_FLOAT64};
  nd__ufunc_loop L;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_bitwise_and", ND_UFUNC_BITWISE_AND, 2, dt, &L), ND_ERR_DTYPE,
                  "nd_bitwise_and: ufunc 'bitwise_and' not supported for the input types (float64, float64)");
  dt[0] = dt[1] = ND_BOOL;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_subtract", ND_UFUNC_SUBTRACT, 2, dt, &L), ND_ERR_DTYPE,
                  "nd_subtract: numpy boolean subtract");
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_negative", ND_UFUNC_NEGATIVE, 1, dt, &L), ND_ERR_DTYPE,
                  "nd_negative: The numpy boolean negative");
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_sign", ND_UFUNC_SIGN, 1, dt, &L), ND_ERR_DTYPE,
                  "nd_sign: ufunc 'sign' did not contain a loop");
  dt[0] = ND_COMPLEX64;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_floor", ND_UFUNC_FLOOR, 1, dt, &L), ND_ERR_DTYPE,
                  "ufunc 'floor' not supported for the input types (complex64)");
  dt[0] = ND_UINT64;
  dt[1] = ND_INT64;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_left_shift", ND_UFUNC_LEFT_SHIFT, 2, dt, &L), ND_ERR_DTYPE,
                  "(uint64, int64)");
  dt[0] = ND_INT8;
  dt[1] = ND_PYCOMPLEX;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_arctan2", ND_UFUNC_ARCTAN2, 2, dt, &L), ND_ERR_DTYPE, "(int8, complex)");
  dt[1] = (nd_dtype)40;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_add", ND_UFUNC_ADD, 2, dt, &L), ND_ERR_DTYPE,
                  "nd_add: operand 1 has an invalid dtype (value 40)");
  dt[1] = ND_INT8;
  ND_ASSERT_FAILS(nd__ufunc_resolve("nd_add", ND_UFUNC_ADD, 3, dt, &L), ND_ERR_INVALID_ARGUMENT,
                  "nd_add: ufunc 'add' takes 2 inputs (got 3)");
  ND_ASSERT_FAILS(nd__ufunc_resolve("f", ND_UFUNC_COUNT_, 2, dt, &L), ND_ERR_INVALID_ARGUMENT, "unknown ufunc");
  ND_ASSERT_FAILS(nd__ufunc_resolve("f", -1, 2, dt, &L), ND_ERR_INVALID_ARGUMENT, "unknown ufunc");
  ND_ASSERT_FAILS(nd__ufunc_resolve("f", ND_UFUNC_ADD, 2, NULL, &L), ND_ERR_NULL_POINTER, "f: argument");
  nd_dtype out = ND_INT8;
  ND_ASSERT_FAILS(nd_ufunc_result_type(ND_UFUNC_ADD, 2, dt, NULL), ND_ERR_NULL_POINTER, "nd_ufunc_result_type");
  ND_ASSERT_FAILS(nd_ufunc_result_type(ND_UFUNC_INVERT, 1, (nd_dtype[]){ND_FLOAT16}, &out), ND_ERR_DTYPE,
                  "ufunc 'invert' not supported for the input types (float16)");
  ck_assert_int_eq(out, ND_INT8); /* untouched on failure */
}
END_TEST

START_TEST(names_and_counts) {
  ck_assert_str_eq(nd_ufunc_name(ND_UFUNC_ADD), "add");
  ck_assert_str_eq(nd_ufunc_name(ND_UFUNC_GREATER_EQUAL), "greater_equal");
  ck_assert_str_eq(nd_ufunc_name(ND_UFUNC_WHERE), "where");
  ck_assert_str_eq(nd_ufunc_name(ND_UFUNC_COUNT_), "invalid");
  ck_assert_str_eq(nd_ufunc_name((nd_ufunc)-3), "invalid");
  ck_assert_int_eq(nd_ufunc_nin(ND_UFUNC_EXP), 1);
  ck_assert_int_eq(nd_ufunc_nin(ND_UFUNC_ARCTAN2), 2);
  ck_assert_int_eq(nd_ufunc_nin(ND_UFUNC_CLIP), 3);
  ck_assert_int_eq(nd_ufunc_nin(ND_UFUNC_COUNT_), 0);
  ck_assert_str_eq(nd__ufunc_fn(ND_UFUNC_LOGADDEXP2), "nd_logaddexp2");
  for (int i = 0; i < ND_UFUNC_COUNT_; i++) {
    ck_assert_int_ge(nd_ufunc_nin((nd_ufunc)i), 1);
    ck_assert_str_eq(nd__ufunc_fn(i) + 3, nd_ufunc_name((nd_ufunc)i));
    for (int j = 0; j < i; j++)
      ck_assert_msg(strcmp(nd_ufunc_name((nd_ufunc)i), nd_ufunc_name((nd_ufunc)j)) != 0, "duplicate name %s",
                    nd_ufunc_name((nd_ufunc)i));
  }
}
END_TEST

/* ---- scalar checks ----------------------------------------------------------------------- */

static nd_status scalars2(int op, nd_dtype arr, nd_scalar s, int scalar_first, nd__ufunc_scalars *sc,
                          const char *fn) {
  nd_dtype dt[2] = {scalar_first ? s.dtype : arr, scalar_first ? arr : s.dtype};
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve(fn, op, 2, dt, &L));
  nd_operand in[2];
  in[scalar_first ? 0 : 1] = nd_arg_scalar(s);
  in[scalar_first ? 1 : 0] = nd_arg(NULL);
  return nd__ufunc_check_scalars(fn, &L, in, sc);
}

/* logical_and/or/xor take a Python float's or complex's own truth (NumPy), not that of its
 * value in the loop's dtype: 1e-310 underflows to 0 in float32 but is true. */
START_TEST(logical_weak_float_truth) {
  static const int ops[3] = {ND_UFUNC_LOGICAL_AND, ND_UFUNC_LOGICAL_OR, ND_UFUNC_LOGICAL_XOR};
  for (int i = 0; i < 3; i++)
    for (int first = 0; first < 2; first++) {
      nd__ufunc_scalars sc;
      float f;
      ND_ASSERT_OK(scalars2(ops[i], ND_FLOAT32, nd_scalar_float(1e-310), first, &sc, "nd_logical"));
      memcpy(&f, sc.bytes[first ? 0 : 1].bytes, sizeof f);
      ck_assert_msg(f != 0, "op %d: 1e-310 became %g", ops[i], (double)f);
      ND_ASSERT_OK(scalars2(ops[i], ND_FLOAT16, nd_scalar_float(1e-8), first, &sc, "nd_logical"));
      ck_assert(sc.bytes[first ? 0 : 1].bytes[0] != 0 || sc.bytes[first ? 0 : 1].bytes[1] != 0);
      ND_ASSERT_OK(scalars2(ops[i], ND_FLOAT32, nd_scalar_float(-0.0), first, &sc, "nd_logical"));
      memcpy(&f, sc.bytes[first ? 0 : 1].bytes, sizeof f);
      ck_assert(f == 0);
      ND_ASSERT_OK(scalars2(ops[i], ND_FLOAT32, nd_scalar_float(NAN), first, &sc, "nd_logical"));
      memcpy(&f, sc.bytes[first ? 0 : 1].bytes, sizeof f);
      ck_assert(f != 0);
      ND_ASSERT_OK(scalars2(ops[i], ND_COMPLEX64, nd_scalar_complex(0, 1e-310), first, &sc, "nd_logical"));
      float c[2];
      memcpy(c, sc.bytes[first ? 0 : 1].bytes, sizeof c);
      ck_assert(c[0] != 0 || c[1] != 0);
    }
}
END_TEST

static int constant_of(int op, nd_dtype arr, int64_t v, int scalar_first) {
  nd__ufunc_scalars sc;
  ND_ASSERT_OK(scalars2(op, arr, nd_scalar_int(v), scalar_first, &sc, "nd_cmp"));
  return sc.constant;
}

START_TEST(weak_integer_bounds) {
  nd__ufunc_scalars sc;
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_ADD, ND_UINT8, nd_scalar_int(300), 0, &sc, "nd_add"), ND_ERR_VALUE, "");
  expect_message("nd_add: Python integer 300 out of bounds for uint8");
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_ADD, ND_UINT8, nd_scalar_int(-1), 1, &sc, "nd_add"), ND_ERR_VALUE,
                  "nd_add: Python integer -1 out of bounds for uint8");
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_MAXIMUM, ND_INT8, nd_scalar_int(128), 0, &sc, "nd_maximum"), ND_ERR_VALUE,
                  "128 out of bounds for int8");
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_LEFT_SHIFT, ND_UINT16, nd_scalar_int(65536), 0, &sc, "nd_left_shift"),
                  ND_ERR_VALUE, "65536 out of bounds for uint16");
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_ADD, ND_UINT64, nd_scalar_int(-5), 0, &sc, "nd_add"), ND_ERR_VALUE,
                  "-5 out of bounds for uint64");
  ND_ASSERT_OK(scalars2(ND_UFUNC_ADD, ND_UINT8, nd_scalar_int(255), 0, &sc, "nd_add"));
  ck_assert_uint_eq(sc.mask, 2);
  ck_assert_int_eq(sc.constant, -1);
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 255);
  ND_ASSERT_OK(scalars2(ND_UFUNC_ADD, ND_INT8, nd_scalar_int(-128), 1, &sc, "nd_add"));
  ck_assert_uint_eq(sc.mask, 1);
  ck_assert_uint_eq(sc.bytes[0].bytes[0], 0x80);
  ND_ASSERT_OK(scalars2(ND_UFUNC_ADD, ND_INT64, nd_scalar_int(INT64_MIN), 0, &sc, "nd_add"));
  ND_ASSERT_OK(scalars2(ND_UFUNC_ADD, ND_UINT64, nd_scalar_int(INT64_MAX), 0, &sc, "nd_add"));
  /* Float loops take any Python int or float, rounding (to inf for float16). */
  ND_ASSERT_OK(scalars2(ND_UFUNC_ADD, ND_FLOAT16, nd_scalar_float(1e10), 0, &sc, "nd_add"));
  ck_assert_uint_eq(sc.bytes[1].bytes[0] | sc.bytes[1].bytes[1] << 8, 0x7c00);
  ND_ASSERT_OK(scalars2(ND_UFUNC_HYPOT, ND_UINT8, nd_scalar_int(300), 0, &sc, "nd_hypot"));
  ck_assert_uint_eq(sc.bytes[1].bytes[0] | sc.bytes[1].bytes[1] << 8, 0x5cb0); /* 300 in float16 */
  /* uint8 / 300 divides in float64, as NumPy always divides integers. */
  nd_dtype dd[2] = {ND_UINT8, ND_PYINT};
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve("nd_divide", ND_UFUNC_DIVIDE, 2, dd, &L));
  ck_assert_int_eq(L.key, ND_UINT8);
  const nd_operand din[2] = {nd_arg(NULL), nd_arg_scalar(nd_scalar_int(300))};
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_divide", &L, din, &sc));
  ck_assert_int_eq(L.key, ND_FLOAT64);
  ck_assert_int_eq(L.in[0], ND_FLOAT64);
  ck_assert_int_eq(L.in[1], ND_FLOAT64);
  ck_assert_int_eq(L.out, ND_FLOAT64);
  double three_hundred;
  memcpy(&three_hundred, sc.bytes[1].bytes, 8);
  ck_assert(three_hundred == 300.0);
  ND_ASSERT_OK(nd__ufunc_resolve("nd_divide", ND_UFUNC_DIVIDE, 2, dd, &L));
  const nd_operand din3[2] = {nd_arg(NULL), nd_arg_scalar(nd_scalar_int(3))};
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_divide", &L, din3, &sc));
  ck_assert_int_eq(L.key, ND_UINT8); /* in range: the integer instance divides */
}
END_TEST

START_TEST(comparisons_with_out_of_range_integers) {
  /* NumPy 2 answers these by value: uint8 == 300 is False, uint8 < 300 is True. */
  ck_assert_int_eq(constant_of(ND_UFUNC_EQUAL, ND_UINT8, 300, 0), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_NOT_EQUAL, ND_UINT8, 300, 0), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_UINT8, 300, 0), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS_EQUAL, ND_UINT8, 300, 0), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_GREATER, ND_UINT8, 300, 0), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_GREATER_EQUAL, ND_UINT8, 300, 0), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_UINT8, -1, 0), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_GREATER_EQUAL, ND_UINT8, -1, 0), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_UINT64, -1, 0), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_GREATER, ND_INT8, -1000, 0), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_EQUAL, ND_INT16, 40000, 0), 0);
  /* Scalar first: 300 < x is False, 300 > x is True, -1 <= x is True. */
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_UINT8, 300, 1), 0);
  ck_assert_int_eq(constant_of(ND_UFUNC_GREATER, ND_UINT8, 300, 1), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS_EQUAL, ND_UINT8, -1, 1), 1);
  ck_assert_int_eq(constant_of(ND_UFUNC_NOT_EQUAL, ND_UINT8, -1, 1), 1);
  /* In range: no constant. */
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_UINT8, 255, 0), -1);
  ck_assert_int_eq(constant_of(ND_UFUNC_LESS, ND_INT8, -128, 1), -1);
}
END_TEST

START_TEST(clip_where_and_power_scalars) {
  nd_dtype dt[3] = {ND_UINT8, ND_PYINT, ND_PYINT};
  nd__ufunc_loop L;
  ND_ASSERT_OK(nd__ufunc_resolve("nd_clip", ND_UFUNC_CLIP, 3, dt, &L));
  nd_operand in[3] = {nd_arg(NULL), nd_arg_scalar(nd_scalar_int(-1)), nd_arg_scalar(nd_scalar_int(300))};
  nd__ufunc_scalars sc;
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_clip", &L, in, &sc));
  ck_assert_uint_eq(sc.mask, 6);
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 0);
  ck_assert_uint_eq(sc.bytes[2].bytes[0], 255);
  dt[0] = ND_INT8;
  ND_ASSERT_OK(nd__ufunc_resolve("nd_clip", ND_UFUNC_CLIP, 3, dt, &L));
  in[1] = nd_arg_scalar(nd_scalar_int(-1000));
  in[2] = nd_arg_scalar(nd_scalar_int(7));
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_clip", &L, in, &sc));
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 0x80);
  ck_assert_uint_eq(sc.bytes[2].bytes[0], 7);
  /* np.clip drops a bound beyond the near end of the range; one beyond the far end raises:
   * clip(int8, 1000, x) and clip(int8, x, -1000), with two bounds and with one. */
  in[1] = nd_arg_scalar(nd_scalar_int(1000));
  ND_ASSERT_FAILS(nd__ufunc_check_scalars("nd_clip", &L, in, &sc), ND_ERR_VALUE,
                  "nd_clip: Python integer 1000 out of bounds for int8");
  in[1] = nd_arg_scalar(nd_scalar_int(0));
  in[2] = nd_arg_scalar(nd_scalar_int(-1000));
  ND_ASSERT_FAILS(nd__ufunc_check_scalars("nd_clip", &L, in, &sc), ND_ERR_VALUE, "-1000 out of bounds for int8");
  nd_dtype d2[2] = {ND_INT8, ND_PYINT};
  ND_ASSERT_OK(nd__ufunc_resolve("nd_clip", ND_UFUNC_MINIMUM, 2, d2, &L)); /* clip(a, None, hi) */
  L.op = ND_UFUNC_CLIP;
  nd_operand in2[2] = {nd_arg(NULL), nd_arg_scalar(nd_scalar_int(1000))};
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_clip", &L, in2, &sc));
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 127);
  in2[1] = nd_arg_scalar(nd_scalar_int(-1000));
  ND_ASSERT_FAILS(nd__ufunc_check_scalars("nd_clip", &L, in2, &sc), ND_ERR_VALUE, "-1000 out of bounds for int8");
  ND_ASSERT_OK(nd__ufunc_resolve("nd_clip", ND_UFUNC_MAXIMUM, 2, d2, &L)); /* clip(a, lo, None) */
  L.op = ND_UFUNC_CLIP;
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_clip", &L, in2, &sc));
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 0x80);
  in2[1] = nd_arg_scalar(nd_scalar_int(1000));
  ND_ASSERT_FAILS(nd__ufunc_check_scalars("nd_clip", &L, in2, &sc), ND_ERR_VALUE, "1000 out of bounds for int8");
  /* logical_and/or/xor take a weak integer's truth, in range or not (NumPy answers by value) */
  ND_ASSERT_OK(scalars2(ND_UFUNC_LOGICAL_AND, ND_INT8, nd_scalar_int(300), 0, &sc, "nd_logical_and"));
  ck_assert_uint_eq(sc.bytes[1].bytes[0], 1);
  ND_ASSERT_OK(scalars2(ND_UFUNC_LOGICAL_XOR, ND_UINT8, nd_scalar_int(-1), 1, &sc, "nd_logical_xor"));
  ck_assert_uint_eq(sc.bytes[0].bytes[0], 1);
  /* where checks a weak integer against result_type(x, y) as NumPy 2.5 does (2.4 wrapped 300
   * to 44 in uint8). */
  dt[0] = ND_BOOL;
  dt[1] = ND_UINT8;
  dt[2] = ND_PYINT;
  ND_ASSERT_OK(nd__ufunc_resolve("nd_where", ND_UFUNC_WHERE, 3, dt, &L));
  in[0] = nd_arg(NULL);
  in[1] = nd_arg(NULL);
  in[2] = nd_arg_scalar(nd_scalar_int(300));
  ND_ASSERT_FAILS(nd__ufunc_check_scalars("nd_where", &L, in, &sc), ND_ERR_VALUE,
                  "nd_where: Python integer 300 out of bounds for uint8");
  in[2] = nd_arg_scalar(nd_scalar_int(255));
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_where", &L, in, &sc));
  ck_assert_uint_eq(sc.bytes[2].bytes[0], 255);
  in[0] = nd_arg_scalar(nd_scalar_float(0.5)); /* a scalar condition: nonzero is true */
  dt[0] = ND_PYFLOAT;
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_where", &L, in, &sc));
  ck_assert_uint_eq(sc.mask, 5);
  ck_assert_uint_eq(sc.bytes[0].bytes[0], 1);
  /* Integer power: a negative scalar exponent is refused; overflow is reported first. */
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_POWER, ND_INT8, nd_scalar_int(-1), 0, &sc, "nd_power"), ND_ERR_VALUE,
                  "nd_power: Integers to negative integer powers are not allowed.");
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_POWER, ND_UINT8, nd_scalar_int(-1), 0, &sc, "nd_power"), ND_ERR_VALUE,
                  "nd_power: Python integer -1 out of bounds for uint8");
  nd_scalar s8 = {.dtype = ND_INT8, .v.i = -2};
  ND_ASSERT_FAILS(scalars2(ND_UFUNC_POWER, ND_INT16, s8, 0, &sc, "nd_power"), ND_ERR_VALUE, "negative integer powers");
  ND_ASSERT_OK(scalars2(ND_UFUNC_POWER, ND_INT8, nd_scalar_int(3), 0, &sc, "nd_power"));
  ND_ASSERT_OK(scalars2(ND_UFUNC_POWER, ND_FLOAT32, nd_scalar_int(-1), 0, &sc, "nd_power"));
  ND_ASSERT_OK(scalars2(ND_UFUNC_POWER, ND_INT8, nd_scalar_int(-1), 1, &sc, "nd_power")); /* base */
  /* float ** 0.5 with a scalar exponent is sqrt (NumPy 2.1+); other exponents, a scalar base,
   * and float16 (NumPy's half loop has no such path) stay with power */
  const nd_dtype pw[2] = {ND_FLOAT64, ND_PYFLOAT};
  ND_ASSERT_OK(nd__ufunc_resolve("nd_power", ND_UFUNC_POWER, 2, pw, &L));
  const nd_operand half[2] = {nd_arg(NULL), nd_arg_scalar(nd_scalar_float(0.5))};
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_power", &L, half, &sc));
  ck_assert_int_eq(L.kop, ND_UFUNC_SQRT);
  ck_assert_int_eq(L.nin, 1);
  ck_assert_uint_eq(sc.mask, 0);
  const nd_dtype pw32[2] = {ND_FLOAT32, ND_PYFLOAT};
  ND_ASSERT_OK(nd__ufunc_resolve("nd_power", ND_UFUNC_POWER, 2, pw32, &L));
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_power", &L, half, &sc));
  ck_assert_int_eq(L.kop, ND_UFUNC_SQRT);
  ND_ASSERT_OK(scalars2(ND_UFUNC_POWER, ND_FLOAT32, nd_scalar_float(0.25), 0, &sc, "nd_power"));
  ck_assert_uint_eq(sc.mask, 2);
  ND_ASSERT_OK(scalars2(ND_UFUNC_POWER, ND_FLOAT64, nd_scalar_float(0.5), 1, &sc, "nd_power"));
  ck_assert_uint_eq(sc.mask, 1);
  ND_ASSERT_OK(nd__ufunc_resolve("nd_power", ND_UFUNC_POWER, 2, (nd_dtype[2]){ND_FLOAT16, ND_PYFLOAT}, &L));
  ND_ASSERT_OK(nd__ufunc_check_scalars("nd_power", &L, half, &sc));
  ck_assert_int_eq(L.kop, ND_UFUNC_POWER);
}
END_TEST

/* ---- argument errors through the public functions (no device reached) ------------------ */

static nd__buffer fake_buffer; /* device 0; never touched: every call below fails first */

static nd_array fake(nd_dtype dt, int ndim, const int64_t *shape) {
  nd_array a;
  memset(&a, 0, sizeof a);
  atomic_init(&a.refs, 1);
  a.dtype = dt;
  a.ndim = ndim;
  a.writeable = 1;
  a.size = 1;
  for (int i = 0; i < ndim; i++) {
    a.shape[i] = shape[i];
    a.size *= shape[i];
  }
  nd__strides_c(ndim, shape, (int64_t)nd_dtype_itemsize(dt), a.strides);
  a.buf = &fake_buffer;
  return a;
}

#define SENTINEL ((nd_array *)0x1234)

START_TEST(broadcast_and_out_errors) {
  nd_array a = fake(ND_FLOAT64, 2, (int64_t[]){3, 4}), b = fake(ND_FLOAT64, 1, (int64_t[]){5});
  nd_array *r = SENTINEL;
  ND_ASSERT_FAILS(nd_add(&a, &b, NULL, &r), ND_ERR_SHAPE, "");
  expect_message("nd_add: operands could not be broadcast together with shapes (3,4) (5,)");
  ck_assert_ptr_eq(r, SENTINEL);
  nd_array c = fake(ND_INT8, 0, NULL), z = fake(ND_FLOAT32, 2, (int64_t[]){0, 3});
  ND_ASSERT_FAILS(nd_multiply(&z, &b, NULL, &r), ND_ERR_SHAPE,
                  "nd_multiply: operands could not be broadcast together with shapes (0,3) (5,)");
  nd_array w1 = fake(ND_BOOL, 1, (int64_t[]){2}), w2 = fake(ND_INT32, 1, (int64_t[]){3});
  ND_ASSERT_FAILS(nd_where(nd_arg(&w1), nd_arg(&w2), nd_arg(&c), NULL, &r), ND_ERR_SHAPE,
                  "nd_where: operands could not be broadcast together with shapes (2,) (3,) ()");
  /* out: wrong shape, not broadcastable to, read-only, unsafe cast. */
  nd_array x = fake(ND_FLOAT64, 2, (int64_t[]){2, 3}), y = fake(ND_FLOAT64, 1, (int64_t[]){3});
  nd_array o1 = fake(ND_FLOAT64, 1, (int64_t[]){3}), o2 = fake(ND_FLOAT64, 2, (int64_t[]){1, 3});
  ND_ASSERT_FAILS(nd_add(&x, &y, &o1, &r), ND_ERR_SHAPE, "");
  expect_message("nd_add: non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (2,3)");
  ND_ASSERT_FAILS(nd_add(&x, &y, &o2, &r), ND_ERR_SHAPE,
                  "nd_add: non-broadcastable output operand with shape (1,3) doesn't match the broadcast shape (2,3)");
  nd_array oi = fake(ND_INT32, 2, (int64_t[]){2, 3});
  ND_ASSERT_FAILS(nd_add(&x, &y, &oi, &r), ND_ERR_CASTING, "");
  expect_message("nd_add: Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
  nd_array f32 = fake(ND_FLOAT32, 2, (int64_t[]){2, 3});
  ND_ASSERT_FAILS(nd_sqrt(&f32, &oi, &r), ND_ERR_CASTING, "nd_sqrt: Cannot cast ufunc 'sqrt' output from dtype('float32') to dtype('int32')");
  nd_array i8 = fake(ND_INT8, 2, (int64_t[]){2, 3}), u8o = fake(ND_UINT8, 2, (int64_t[]){2, 3});
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, (nd_operand[]){nd_arg(&i8), nd_arg_scalar(nd_scalar_int(1))}, &u8o, &r),
                  ND_ERR_CASTING, "from dtype('int8') to dtype('uint8')");
  nd_array ro = fake(ND_FLOAT64, 2, (int64_t[]){2, 3});
  ro.writeable = 0;
  ND_ASSERT_FAILS(nd_add(&x, &y, &ro, &r), ND_ERR_READ_ONLY, "nd_add: output array (shape (2,3), dtype float64) is read-only");
  ND_ASSERT_FAILS(nd_divide(&i8, &i8, &u8o, &r), ND_ERR_CASTING, "nd_divide: Cannot cast ufunc 'divide' output from dtype('float64')");
  ck_assert_ptr_eq(r, SENTINEL);
}
END_TEST

START_TEST(null_and_invalid_arguments) {
  nd_array a = fake(ND_FLOAT32, 1, (int64_t[]){4});
  nd_array *r = SENTINEL;
  int answer = 7;
  ND_ASSERT_FAILS(nd_add(NULL, &a, NULL, &r), ND_ERR_NULL_POINTER, "nd_add: operand 0 is NULL");
  ND_ASSERT_FAILS(nd_add(&a, NULL, NULL, &r), ND_ERR_NULL_POINTER, "nd_add: operand 1 is NULL");
  ND_ASSERT_FAILS(nd_add(&a, &a, NULL, NULL), ND_ERR_NULL_POINTER, "nd_add: argument 'result' is NULL");
  ND_ASSERT_FAILS(nd_exp(NULL, NULL, &r), ND_ERR_NULL_POINTER, "nd_exp: operand 0 is NULL");
  ND_ASSERT_FAILS(nd_logical_not(NULL, NULL, &r), ND_ERR_NULL_POINTER, "nd_logical_not");
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_COUNT_, 2, NULL, NULL, &r), ND_ERR_INVALID_ARGUMENT, "unknown ufunc");
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, NULL, NULL, &r), ND_ERR_NULL_POINTER, "nd_add: argument 'in'");
  const nd_operand three[3] = {nd_arg(&a), nd_arg(&a), nd_arg(&a)};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 3, three, NULL, &r), ND_ERR_INVALID_ARGUMENT,
                  "nd_add: ufunc 'add' takes 2 inputs (got 3)");
  const nd_operand none[2] = {nd_arg(&a), nd_arg_none()};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, none, NULL, &r), ND_ERR_VALUE, "nd_add: operand 1 has no value");
  nd_operand bad = nd_arg(&a);
  bad.kind = (nd_operand_kind)9;
  const nd_operand badin[2] = {nd_arg(&a), bad};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, badin, NULL, &r), ND_ERR_INVALID_ARGUMENT, "invalid kind");
  const nd_operand bitf[2] = {nd_arg(&a), nd_arg_scalar(nd_scalar_int(1))};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_BITWISE_OR, 2, bitf, NULL, &r), ND_ERR_DTYPE,
                  "nd_bitwise_or: ufunc 'bitwise_or' not supported for the input types (float32, int)");
  nd_array u8 = fake(ND_UINT8, 1, (int64_t[]){4});
  const nd_operand big[2] = {nd_arg(&u8), nd_arg_scalar(nd_scalar_int(300))};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_ADD, 2, big, NULL, &r), ND_ERR_VALUE,
                  "nd_add: Python integer 300 out of bounds for uint8");
  nd_array i32 = fake(ND_INT32, 1, (int64_t[]){4});
  const nd_operand negpow[2] = {nd_arg(&i32), nd_arg_scalar(nd_scalar_int(-2))};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_POWER, 2, negpow, NULL, &r), ND_ERR_VALUE, "Integers to negative integer powers");
  ND_ASSERT_FAILS(nd_clip(&a, nd_arg_none(), nd_arg_none(), NULL, &r), ND_ERR_VALUE, "nd_clip: One of max or min must be given");
  ND_ASSERT_FAILS(nd_clip(NULL, nd_arg_none(), nd_arg_none(), NULL, &r), ND_ERR_NULL_POINTER, "nd_clip");
  const nd_operand clip3[3] = {nd_arg(&a), nd_arg_none(), nd_arg_none()};
  ND_ASSERT_FAILS(nd_ufunc_call(ND_UFUNC_CLIP, 3, clip3, NULL, &r), ND_ERR_VALUE, "nd_clip: One of max or min");
  ND_ASSERT_FAILS(nd_where(nd_arg(NULL), nd_arg(&a), nd_arg(&a), NULL, &r), ND_ERR_NULL_POINTER, "nd_where: operand 0 is NULL");
  nd_array bl = fake(ND_BOOL, 1, (int64_t[]){4});
  ND_ASSERT_FAILS(nd_round(&bl, 2, NULL, &r), ND_ERR_DTYPE, "nd_round: cannot round a bool array");
  ND_ASSERT_FAILS(nd_round(NULL, 2, NULL, &r), ND_ERR_NULL_POINTER, "nd_round");
  ND_ASSERT_FAILS(nd_nan_to_num(NULL, 0, NAN, NAN, NULL, &r), ND_ERR_NULL_POINTER, "nd_nan_to_num");
  ND_ASSERT_FAILS(nd_isclose(&a, NULL, 1e-5, 1e-8, 0, &r), ND_ERR_NULL_POINTER, "nd_isclose");
  ND_ASSERT_FAILS(nd_allclose(&a, &a, 1e-5, 1e-8, 0, NULL), ND_ERR_NULL_POINTER, "nd_allclose");
  ND_ASSERT_FAILS(nd_array_equal(NULL, &a, 0, &answer), ND_ERR_NULL_POINTER, "nd_array_equal");
  ND_ASSERT_FAILS(nd_angle(NULL, 1, NULL, &r), ND_ERR_NULL_POINTER, "nd_angle");
  nd_array c8 = fake(ND_COMPLEX64, 1, (int64_t[]){4});
  ND_ASSERT_FAILS(nd_floor(&c8, NULL, &r), ND_ERR_DTYPE, "nd_floor: ufunc 'floor' not supported for the input types (complex64)");
  ND_ASSERT_FAILS(nd_left_shift(&a, &a, NULL, &r), ND_ERR_DTYPE, "nd_left_shift");
  ND_ASSERT_FAILS(nd_subtract(&bl, &bl, NULL, &r), ND_ERR_DTYPE, "nd_subtract: numpy boolean subtract");
  ck_assert_ptr_eq(r, SENTINEL);
  ck_assert_int_eq(answer, 7);
  /* Shapes that differ are an answer, not an error, for array_equal (it does not broadcast);
   * it returns before touching the device. */
  nd_array s3 = fake(ND_FLOAT32, 1, (int64_t[]){3});
  ND_ASSERT_OK(nd_array_equal(&a, &s3, 0, &answer));
  ck_assert_int_eq(answer, 0);
  nd_array s14 = fake(ND_FLOAT32, 2, (int64_t[]){1, 4});
  answer = 7;
  ND_ASSERT_OK(nd_array_equal(&a, &s14, 1, &answer));
  ck_assert_int_eq(answer, 0);
}
END_TEST

static Suite *ufunc_host_suite(void) {
  Suite *s = suite_create("ufunc_host");
  TCase *t = tcase_create("resolution");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, resolution_matches_numpy);
  tcase_add_test(t, kernel_instances_cover_every_loop);
  tcase_add_test(t, resolution_details);
  tcase_add_test(t, resolution_errors);
  tcase_add_test(t, names_and_counts);
  suite_add_tcase(s, t);
  t = tcase_create("scalars");
  tcase_add_test(t, weak_integer_bounds);
  tcase_add_test(t, logical_weak_float_truth);
  tcase_add_test(t, comparisons_with_out_of_range_integers);
  tcase_add_test(t, clip_where_and_power_scalars);
  suite_add_tcase(s, t);
  t = tcase_create("arguments");
  tcase_add_test(t, broadcast_and_out_errors);
  tcase_add_test(t, null_and_invalid_arguments);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(ufunc_host_suite()); }
