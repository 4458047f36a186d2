/* Launcher for every elementwise operation (elementwise/elementwise*.cu).
 *
 * The host (elementwise/ufunc*.c) has already resolved the loop: every array input has been converted
 * to the dtype the kernel instance expects, shapes broadcast (stride 0), dimensions permuted so
 * that the output's smallest stride is last and collapsed (nd__collapse_dims). The launcher
 * picks a path from the collapsed geometry (see elementwise.cuh) and launches one kernel on
 * the given stream. Instances exist per (op, key) only, never per input-dtype pair. */
#ifndef ND_KERNELS_ELEMENTWISE_H
#define ND_KERNELS_ELEMENTWISE_H

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"
#include "ndcuda/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel operations: the public nd_ufunc values, then operations the public API builds from
 * them. */
enum nd_kop {
  ND_KOP_ROUND = ND_UFUNC_COUNT_, /* params.i = decimals (non-zero); float, complex, int keys */
  ND_KOP_NAN_TO_NUM,              /* params.d = {nan, posinf, neginf} */
  ND_KOP_ISCLOSE,                 /* params.d = {rtol, atol}, params.i = equal_nan */
  ND_KOP_EQUAL_NAN,               /* a == b, or both NaN (array_equal with equal_nan) */
  ND_KOP_COUNT_
};

/* The dispatch key of an instance: the nd_dtype of its inputs (for WHERE: of x and y, the
 * condition being bool), or ND_KEY_INT64_UINT64 for comparisons of an int64 input 0 with a
 * uint64 input 1 (exact, as NumPy's qQ loops). */
#define ND_KEY_INT64_UINT64 14
#define ND_KEY_COUNT_ 15

/* Operation parameters (unused fields ignored). op is filled in by the launcher (the
 * call's op) for instances that serve several functions of one family. */
typedef struct nd_kparams {
  double d[3];
  int64_t i;
  int op;
} nd_kparams;

/* One elementwise call. out and in[0..nin) are iterated together over loop (collapsed); an
 * input whose bit is set in scalar_mask is the host value scalars[i] (bytes of one element
 * of the instance's input dtype) and its operand is ignored. */
typedef struct nd_kufunc {
  int op;  /* nd_ufunc or nd_kop */
  int key; /* see ND_KEY_* */
  int nin;
  unsigned scalar_mask;
  nd_kloop loop;
  nd_koperand out;
  nd_koperand in[3];
  nd_kscalar scalars[3];
  nd_kparams params;
} nd_kufunc;

/* 1 when an instance exists for (op, key), else 0. Pure host; needs no device. */
int nd_k_ufunc_supported(int op, int key);

/* The dtype an instance for (op, key) writes (nd_dtype), or -1 without an instance. Pure
 * host. */
int nd_k_ufunc_out_dtype(int op, int key);

/* Launches the call on stream (a cudaStream_t). Returns ND_ERR_INTERNAL when no instance
 * exists, ND_ERR_CUDA when the launch fails. A zero count launches nothing. */
nd_status nd_k_ufunc(const nd_kufunc *call, void *stream);

/* For a contiguous bool array of n elements: writes 0 to *flag (device int32) if any element
 * is false; leaves it otherwise. */
nd_status nd_k_all_true(const char *data, int64_t n, int *flag, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_ELEMENTWISE_H */
