/* The host half of the elementwise layer: type resolution (pure host, tested without a
 * device in tests/elementwise/test_ufunc_host.c), scalar checks, and the executor that broadcasts,
 * allocates, casts and launches (elementwise/ufunc.c); the public named functions are in
 * elementwise/ufunc_ops.c. */
#ifndef ND_UFUNC_INTERNAL_H
#define ND_UFUNC_INTERNAL_H

#include "elementwise/elementwise.h"
#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a resolved call does. */
enum nd__ufunc_action {
  ND__UF_RUN = 0,  /* launch the kernel instance (kop, key) */
  ND__UF_COPY = 1, /* the identity on this dtype: input 0 converted into the result */
  ND__UF_FILL = 2  /* a constant result (isnan of an integer, imag of a real, ...) */
};

/* A resolved loop. Kernel input j reads user operand src[j], converted to in[j]. */
typedef struct nd__ufunc_loop {
  int op;        /* the public nd_ufunc that was resolved */
  int kop;       /* kernel op (nd_ufunc or nd_kop) */
  int key;       /* kernel dispatch key */
  int nin;
  int src[3];
  nd_dtype in[3];
  nd_dtype out;  /* result dtype */
  int action;
  int fill;      /* ND__UF_FILL: the value (0 or 1) */
} nd__ufunc_loop;

/* NumPy 2 type resolution for op over nin operand dtypes (array dtypes or weak kinds; for
 * where the condition's dtype is ignored, for clip all three count). Pure host: no device,
 * no arrays. Errors (fn names the caller): ND_ERR_INVALID_ARGUMENT (op, nin), ND_ERR_DTYPE
 * ("ufunc 'bitwise_and' not supported for the input types (float64, float64)", boolean
 * subtract/negative, an invalid dtype). */
ND_API nd_status nd__ufunc_resolve(const char *fn, int op, int nin, const nd_dtype *dtypes,
                                   nd__ufunc_loop *loop);

/* Result of checking the scalar operands against a resolved loop. */
typedef struct nd__ufunc_scalars {
  unsigned mask;          /* kernel inputs that are scalars */
  nd_kscalar bytes[3];    /* their values as elements of loop->in[j] */
  int constant;           /* -1, or 0/1: the whole (bool) result is this value */
} nd__ufunc_scalars;

/* Converts the scalar operands (in[i].kind == ND_OPERAND_SCALAR) to the loop's input dtypes
 * with NumPy's rules for weak Python integers: out of an integer loop dtype's range is
 * ND_ERR_VALUE ("Python integer 300 out of bounds for uint8"), except that comparisons
 * answer by value (sc->constant), logical_and/or/xor take its truth and clip drops a bound
 * beyond the near end of the range (saturating it). An integer power with a negative scalar
 * exponent is ND_ERR_VALUE. The loop may change: true division of integers by a Python int
 * outside their range runs in float64 (NumPy divides integers in float64), and float power
 * with a scalar exponent 0.5 becomes sqrt (NumPy 2.1+). Pure host. */
ND_API nd_status nd__ufunc_check_scalars(const char *fn, nd__ufunc_loop *loop,
                                         const nd_operand *in, nd__ufunc_scalars *sc);

/* Runs a resolved loop over the operands (see ufunc.h for the rules on broadcasting, out,
 * overlap and errors). params may be NULL. */
ND_API nd_status nd__ufunc_run(const char *fn, const nd__ufunc_loop *loop, const nd_operand *in,
                               nd_array *out, nd_array **result, const nd_kparams *params);

/* Resolves and runs. */
ND_API nd_status nd__ufunc_exec(const char *fn, int op, int nin, const nd_operand *in,
                                nd_array *out, nd_array **result, const nd_kparams *params);

/* "nd_add" for ND_UFUNC_ADD: the function name used in messages. */
ND_API const char *nd__ufunc_fn(int op);

#ifdef __cplusplus
}
#endif

#endif /* ND_UFUNC_INTERNAL_H */
