/* Host reference of every elementwise operation, for the GPU suite test_elementwise.
 *
 * One element at a time, in C with libm and C99 <complex.h>, following NumPy's own loops
 * (numpy/_core/src/umath: loops*.c.src, npy_math_internal.h.src, funcs.inc.src): integer
 * wrapping and division by zero, npy_divmod, float16 through float32 with one rounding,
 * NumPy's complex product/quotient/power and its formulas for exp2, expm1, log1p, log2 and
 * log10 of complex numbers (expm1 at infinite and NaN arguments is cexp - 1, the array API's
 * special cases); glibc's functions everywhere else. */
#ifndef ND_TEST_ELEMENTWISE_REF_H
#define ND_TEST_ELEMENTWISE_REF_H

#include "elementwise/ufunc.h"
#include "tests/src/nd_ref.h"

/* op of the resolved loop L applied to x[0..L->nin), each a scalar of dtype L->in[j].
 * Returns a scalar of dtype L->out. params as the kernel gets them (may be NULL). */
nd_scalar ew_ref(const nd__ufunc_loop *L, const nd_scalar *x, const nd_kparams *params);

/* The accuracy the suite demands of kernel op kop on loop key (an nd_dtype): 0 means the
 * exact value (same bits; any NaN matches any NaN), n > 0 means within n units in the last
 * place for real results and, for complex results, each component within n * eps * |want|
 * (plus the smallest normal number, for results near zero). */
int ew_ref_ulps(int kop, int key);

/* 1 when got matches want (same dtype) within ulps (see ew_ref_ulps); else 0 with a reason
 * in why. */
int ew_ref_close(nd_scalar got, nd_scalar want, int ulps, char *why, size_t cap);

#endif /* ND_TEST_ELEMENTWISE_REF_H */
