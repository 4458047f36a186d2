/* The plan of the batched inverse, determinant and slogdet (linalg/plan.c): which on-chip
 * Gauss-Jordan kernel takes a mode, dtype and order, and the hook that sends a variant's orders
 * to its generic neighbour instead. Pure host code with no dependency but the public headers, so
 * that the host tests and nd_bench can include it. */
#ifndef ND_LINALG_GJ_PLAN_H
#define ND_LINALG_GJ_PLAN_H

#include "ndcuda/dtype.h"
#include "ndcuda/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel that runs a batched inverse, determinant or slogdet of order n (nd__gj_plan). */
typedef enum nd__gj_route {
  ND__GJ_VENDOR = 0, /* none of the on-chip kernels: cuBLAS batched getrf/getri, or cuSOLVER */
  ND__GJ_TINY,       /* nd_lk_inv_tiny: one thread per matrix */
  ND__GJ_TC,         /* nd_lk_inv_tc: one warp per matrix, float64 tensor cores */
  ND__GJ_WARP,       /* nd_lk_gj_medium's one-warp kernel (k_gjw) */
  ND__GJ_SMALL,      /* nd_lk_gj_small: several matrices per warp */
  ND__GJ_MEDIUM      /* nd_lk_gj_medium: one block per matrix */
} nd__gj_route;

/* One row of the plan: modes (a mask of 1 << ND_LK_*), dtype, orders n_min..n_max and the least
 * compute capability (major) that take the route. */
typedef struct nd__gj_plan_row {
  unsigned modes;
  nd_dtype dtype;
  int n_min, n_max;
  int cc_min;
  nd__gj_route route;
} nd__gj_plan_row;

/* The plan table, in the order it is read (the first matching row wins), and its length. */
extern const nd__gj_plan_row nd__gj_plan_rows[];
extern const int nd__gj_plan_count;

/* The route for mode (ND_LK_INV, ND_LK_DET, ND_LK_SLOGDET), dtype and order n on a device of
 * compute capability cc_major; ND__GJ_VENDOR where no row matches. Rows whose route is left out
 * by nd__gj_set_generic are skipped. Pure: tested on the host. */
nd__gj_route nd__gj_plan(int mode, nd_dtype dt, int n, int cc_major);

/* Bits of nd__gj_set_generic's mask. ND__GJ_SKIP(route) leaves that route's rows out of the
 * plan, so that their orders take the row below (the generic neighbour the variant is measured
 * against). ND__GJ_PLAIN asks for the plain form of the tricks kept inside a kernel:
 * nd_lk_inv_tc without its L2 prefetch of a later warp's matrix, and the lookahead kernel's
 * solve through its inverse's stage instead of b carried through the elimination. */
#define ND__GJ_SKIP(route) (1u << (unsigned)(route))
#define ND__GJ_PLAIN (1u << 16)

/* Bench and test hook, not an interface: from now on, for every thread, the plan and the
 * launchers behave as mask says (0: the normal plan). Returns the previous mask. Exported from
 * the shared library for nd_bench's comparison cases (bench/bench_linalg.c), which time each
 * variant and its generic neighbour on the same input. */
ND_API unsigned nd__gj_set_generic(unsigned mask);

/* The current mask of nd__gj_set_generic. */
unsigned nd__gj_generic(void);

#ifdef __cplusplus
}
#endif

#endif /* ND_LINALG_GJ_PLAN_H */
