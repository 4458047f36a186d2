/* Pieces shared by the kernel generators (elementwise.c, reduction.c): the parameter lists
 * ("T x, raw float32 y"), the device type names of the dtypes, and a growable string. */
#ifndef ND_JIT_GEN_H
#define ND_JIT_GEN_H

#include "jit/module.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd__ew_param {
  char name[64];
  char type[64];  /* a dtype name or a placeholder */
  nd_dtype fixed; /* the dtype when not a placeholder, else -1 */
  int raw;
} nd__ew_param;

/* The helper header's type of each dtype ("nd_float32", ...). */
extern const char *const nd__ew_ctype[ND_NUM_DTYPES];

/* Parses a comma-separated list "[raw] type name, ..." into params[base..], at most maxp in
 * all; *count gets the number parsed. Names must be identifiers, unique across params, and not
 * reserved (i, nd_*, p_*, and with reserve_ab a and b, the reduction's operands).
 * Errors: ND_ERR_VALUE naming kname and the parameter. */
nd_status nd__ew_parse(const char *fn, const char *kname, nd__ew_param *params, int base, int maxp,
                       const char *list, int out, int reserve_ab, int *count);

char *nd__sdup(const char *s); /* NULL for NULL or out of memory */

typedef struct nd__sbuf {
  char *p;
  size_t len, cap;
  int failed;
} nd__sbuf;

/* Appends printf-formatted text; a failed allocation sets failed. */
void nd__sp(nd__sbuf *b, const char *fmt, ...) ND__PRINTF(2, 3);

/* The generated source of a reduction definition for one binding (tests). malloc'd. */
char *nd__rd_source_for(const nd_reduction_kernel *k, const nd_dtype *ptype, const nd_dtype *atype,
                        const int *scalar, nd_dtype rtype);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_GEN_H */
