/* Launchers for reductions (reduce/reduce*.cu).
 *
 * A reduction is described to the kernels by one plain struct, nd_kreduce: the input pointer
 * and dtype, the kept ("outer") dimensions with their input and output byte strides, the
 * reduced dimensions with their input strides, the operation, and the launch geometry that
 * the host planner (reduce/reduce_plan.c) chose. Output element m is the C-order linear index
 * over the kept dimensions; reduced index k is the C-order linear index over the reduced
 * dimensions (argmin/argmax rely on that: the planner keeps reduced dimensions in C order
 * for them, and reorders them by stride otherwise). */
#ifndef ND_KERNELS_REDUCE_H
#define ND_KERNELS_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_types.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operation families; each is one device functor with a runtime flag word. */
enum nd_kred_op {
  ND_KR_SUM = 0,     /* sum or product (flag PROD), NaN skipping (NANSKIP), mean (MEAN) */
  ND_KR_EXTREMA = 1, /* min (default), max (MAX) or ptp (PTP); NANSKIP for nanmin/nanmax */
  ND_KR_ARG = 2,     /* argmin (default) or argmax (MAX); first index wins, NaN first */
  ND_KR_COUNT = 3,   /* count of nonzero elements; ALL / ANY turn it into a bool */
  ND_KR_NANMEAN = 4, /* sum and count of the non-NaN elements, their quotient */
  ND_KR_SQDEV = 5    /* sum of |x - center[m]|^2 / max(K - ddof, 0); SQRT for std */
};

/* Accumulator (or, for EXTREMA/ARG, comparison) types. */
enum nd_kred_acc {
  ND_KA_I64 = 0,
  ND_KA_U64 = 1, /* also every integer sum/product: two's complement wraps the same */
  ND_KA_F32 = 2,
  ND_KA_F64 = 3,
  ND_KA_C64 = 4,
  ND_KA_C128 = 5
};

enum nd_kred_flag {
  ND_KRF_PROD = 1,
  ND_KRF_NANSKIP = 2,
  ND_KRF_MEAN = 4,
  ND_KRF_MAX = 8,
  ND_KRF_PTP = 16,
  ND_KRF_SQRT = 32,
  ND_KRF_ALL = 64,
  ND_KRF_ANY = 128
};

/* Launch geometry (see reduce/reduce_plan.c for how it is chosen). */
enum nd_kred_mode {
  ND_KRM_ROWS = 0, /* groups of `lanes` threads own one output each and walk k; optionally
                      `splits` blocks share one output (lanes == 256) */
  ND_KRM_COLS = 1  /* one thread owns one output; consecutive threads take consecutive m;
                      `splits` blocks along grid.y share the k range */
};

typedef struct nd_kreduce {
  /* operands */
  const char *in;   /* address of input element (0, ..., 0) after stride flips */
  int in_dtype;
  int via_dtype;    /* -1, or a dtype each input element is converted through first */
  char *out;        /* address of output element 0 */
  int out_dtype;
  int res_dtype;    /* NumPy's result dtype: the value is formed in it, then cast to out */
  /* operation */
  int op, acc, flags;
  double ddof;          /* SQDEV */
  const void *center;   /* SQDEV: M values of the center type, indexed by m */
  /* geometry */
  int nk, nr;
  int64_t M, K;
  int64_t kshape[ND_MAXDIMS], kin[ND_MAXDIMS], kout[ND_MAXDIMS];
  int64_t rshape[ND_MAXDIMS], rin[ND_MAXDIMS];
  int mode;
  int lanes;       /* ROWS: threads per output: 1, 2, 4, 8, 16, 32 or 256 */
  int rcontig;     /* nr == 1 and rin[0] == itemsize of in_dtype: vector loads allowed */
  int64_t splits;  /* chunks of the k range processed by different blocks (>= 1) */
  int64_t chunk;   /* k elements per chunk (a multiple of 64 when splits > 1) */
  int64_t l2_bytes; /* the device's L2 cache (0: unknown) */
} nd_kreduce;

/* Two-phase call: with ws_bytes non-NULL, writes the workspace bytes the reduction needs
 * (partials and arrival counters for split reductions, else 0) to *ws_bytes and returns
 * without launching. With ws_bytes NULL, zeroes the counters in workspace (which may be
 * NULL when 0 bytes were asked for) and launches on stream. Errors: ND_ERR_CUDA,
 * ND_ERR_INTERNAL for an op/acc pair without an instance. */
nd_status nd_k_reduce(const nd_kreduce *p, void *workspace, size_t *ws_bytes, void *stream);

/* The family entry points behind nd_k_reduce (one per .cu file, so they compile in
 * parallel). Same contract. */
nd_status nd_k_reduce_sum(const nd_kreduce *p, void *workspace, size_t *ws_bytes, void *stream);
nd_status nd_k_reduce_extrema(const nd_kreduce *p, void *workspace, size_t *ws_bytes, void *stream);
nd_status nd_k_reduce_stats(const nd_kreduce *p, void *workspace, size_t *ws_bytes, void *stream);

/* Elementwise helpers used by diff and average: dst = a OP b over the loop, computed in the
 * kind of dst's dtype (64-bit wrapping integers, double, complex double; bool: NE is "!=",
 * MUL is "and"). */
enum nd_kbin_op { ND_KB_SUB = 0, ND_KB_MUL = 1, ND_KB_DIV = 2, ND_KB_NE = 3 };
nd_status nd_k_binary(int op, const nd_kloop *loop, const nd_koperand *dst, const nd_koperand *a,
                      const nd_koperand *b, void *stream);

/* Quantiles of sorted rows. `sorted` holds rows x n elements of dtype (C order, NaN last).
 * For each q (nq of them, device array of double) and row m, writes to
 * out + qi * qstride + offset(m) where offset walks the kept dims (nk, kshape, kout):
 * median (median != 0: NumPy's mean of the middle one or two) or the linear quantile.
 * A row whose last element is NaN gives NaN; n == 0 gives NaN. Computed in float when
 * res_dtype is float16/float32, else double, then converted to out_dtype. */
typedef struct nd_kquantile {
  const char *sorted;
  int dtype;
  int64_t rows, n;
  const double *q;
  int64_t nq;
  int median;
  char *out;
  int out_dtype, res_dtype;
  int64_t qstride;
  int nk;
  int64_t kshape[ND_MAXDIMS], kout[ND_MAXDIMS];
} nd_kquantile;
nd_status nd_k_quantile(const nd_kquantile *p, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNELS_REDUCE_H */
