/* Plain structs that host code hands to the launchers in kernels/. Launchers never see an
 * nd_array: they get a loop shape (already collapsed, see nd__collapse_dims) and one
 * (pointer, dtype, byte strides) triple per operand, all iterated together in C order. */
#ifndef ND_KERNEL_TYPES_H
#define ND_KERNEL_TYPES_H

#include <stdint.h>

#include "ndcuda/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_kloop {
  int ndim;                  /* 0 means one element (a 0-d loop) */
  int64_t count;             /* product of shape */
  int64_t shape[ND_MAXDIMS];
} nd_kloop;

typedef struct nd_koperand {
  char *data;                  /* address of element (0, ..., 0) */
  int dtype;                   /* nd_dtype */
  int64_t strides[ND_MAXDIMS]; /* bytes, for the loop's dimensions */
} nd_koperand;

/* A scalar converted on the host to the bytes of one element of some dtype. */
typedef struct nd_kscalar {
  unsigned char bytes[16];
} nd_kscalar;

#ifdef __cplusplus
}
#endif

#endif /* ND_KERNEL_TYPES_H */
