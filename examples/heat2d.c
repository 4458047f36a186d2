/* heat2d: the 2-D heat equation with an explicit stencil built from views and elementwise ops.
 *
 * u_t = u_xx + u_yy on the unit square, u = 0 on the boundary, u(0) = sin(pi x) sin(pi y).
 * The exact solution keeps its shape and decays: u(t) = exp(-2 pi^2 t) u(0).
 *
 * The grid has n x n interior points and a boundary ring, spacing h = 1 / (n + 1). One
 * forward-Euler step with r = dt / h^2 is
 *
 *   v[i, j] = (1 - 4r) u[i, j] + r (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1])
 *
 * on the interior. No kernel is written for it: the four neighbours are views of u shifted by
 * one row or column (u[:-2, 1:-1], u[2:, 1:-1], u[1:-1, :-2], u[1:-1, 2:]), created once, and
 * each step is six elementwise calls that write into preallocated arrays (out=), so the loop
 * allocates nothing. u and v swap roles after each step.
 *
 * Two checks. The sine mode is an exact eigenvector of the discrete operator, so after m steps
 * u must equal g^m u(0) with g = 1 - 8 r sin^2(pi h / 2) up to rounding. And g^m approaches
 * the analytic exp(-2 pi^2 t): the program runs to t = 1 / (2 pi^2), where the amplitude is
 * 1/e. There the time step makes the decay too fast by about 2.0 h^2 (relative) and the
 * five-point Laplacian too slow by about 0.8 h^2, so the amplitude is low by about 1.2 h^2;
 * it must be within 10 h^2.
 *
 * Run: build/examples/heat2d [n]   (interior points per side, 8..1023, default 255)
 * Exit status: 0 right, 1 wrong, 2 bad arguments, 77 no GPU. */
#define _POSIX_C_SOURCE 199309L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ndcuda.h>

#define TRY(call)                                                                              \
  do {                                                                                         \
    nd_status st_ = (call);                                                                    \
    if (st_ != ND_OK) {                                                                        \
      if (st_ != ND_ERR_NO_DEVICE) fprintf(stderr, "heat2d: %s\n  %s\n", #call, nd_last_error()); \
      return st_;                                                                              \
    }                                                                                          \
  } while (0)

static const double PI = 3.14159265358979323846;
static const double R = 0.2; /* dt / h^2; forward Euler in 2-D is stable up to 0.25 */

/* A full (n+2) x (n+2) grid and the views one step reads and writes. */
typedef struct grid {
  nd_array *full, *centre, *up, *down, *left, *right;
} grid;

/* full[r0:r1, c0:c1] as a view (Python slice bounds: -1 means one before the end). */
static nd_status window(nd_array *full, int64_t r0, int64_t r1, int64_t c0, int64_t c1, nd_array **out) {
  nd_slice sl[2] = {{r0, r1, 1}, {c0, c1, 1}};
  return nd_array_slice(full, 2, sl, out);
}

static nd_status grid_views(grid *g) {
  TRY(window(g->full, 1, -1, 1, -1, &g->centre));
  TRY(window(g->full, 0, -2, 1, -1, &g->up));
  TRY(window(g->full, 2, ND_NONE, 1, -1, &g->down));
  TRY(window(g->full, 1, -1, 0, -2, &g->left));
  TRY(window(g->full, 1, -1, 2, ND_NONE, &g->right));
  return ND_OK;
}

static void grid_release(grid *g) {
  nd_array_release(g->centre);
  nd_array_release(g->up);
  nd_array_release(g->down);
  nd_array_release(g->left);
  nd_array_release(g->right);
  nd_array_release(g->full);
}

/* u(0) = sin(pi x) sin(pi y) as an outer product by broadcasting: (m, 1) * (1, m). The sine
 * of pi is not exactly zero in floating point, so the boundary ring is then set to exactly 0
 * through four views. */
static nd_status initial(int64_t m, nd_array **u) {
  nd_array *x, *s, *col, *row;
  TRY(nd_linspace(0.0, 1.0, m, 1, ND_FLOAT64, &x));
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(x), nd_arg_scalar(nd_scalar_float(PI))}, x, NULL));
  TRY(nd_sin(x, NULL, &s));
  int64_t cshape[2] = {m, 1}, rshape[2] = {1, m};
  TRY(nd_array_reshape(s, 2, cshape, &col));
  TRY(nd_array_reshape(s, 2, rshape, &row));
  TRY(nd_multiply(col, row, NULL, u));
  nd_slice edges[4][2] = {{{0, 1, 1}, ND_SLICE_ALL}, {{-1, ND_NONE, 1}, ND_SLICE_ALL},
                          {ND_SLICE_ALL, {0, 1, 1}}, {ND_SLICE_ALL, {-1, ND_NONE, 1}}};
  for (int e = 0; e < 4; e++) {
    nd_array *edge;
    TRY(nd_array_slice(*u, 2, edges[e], &edge));
    TRY(nd_array_fill(edge, nd_scalar_float(0.0)));
    nd_array_release(edge);
  }
  nd_array *all[] = {x, s, col, row};
  for (int i = 0; i < 4; i++) nd_array_release(all[i]);
  return ND_OK;
}

/* One step from a into b (b's boundary stays zero), with tmp an n x n scratch array. */
static nd_status step(const grid *a, grid *b, nd_array *tmp) {
  TRY(nd_add(a->up, a->down, tmp, NULL));
  TRY(nd_add(tmp, a->left, tmp, NULL));
  TRY(nd_add(tmp, a->right, tmp, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(tmp), nd_arg_scalar(nd_scalar_float(R))}, tmp, NULL));
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(a->centre), nd_arg_scalar(nd_scalar_float(1 - 4 * R))},
                    b->centre, NULL));
  TRY(nd_add(b->centre, tmp, b->centre, NULL));
  return ND_OK;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static nd_status heat(int64_t n, int *bad) {
  const int64_t m = n + 2;
  const double h = 1.0 / (double)(n + 1);
  const double t_end = 1.0 / (2 * PI * PI);
  const int64_t steps = (int64_t)ceil(t_end / (R * h * h));
  const double t = (double)steps * R * h * h;

  grid g[2] = {{0}};
  TRY(initial(m, &g[0].full));
  int64_t shape[2] = {m, m}, inner[2] = {n, n};
  TRY(nd_zeros(2, shape, ND_FLOAT64, &g[1].full)); /* its boundary ring stays zero */
  TRY(grid_views(&g[0]));
  TRY(grid_views(&g[1]));
  nd_array *tmp;
  TRY(nd_empty(2, inner, ND_FLOAT64, &tmp));

  /* All of it runs on one stream: each step's kernels follow the last step's in order, and
   * the host only enqueues. It waits once, when the result is copied back. */
  double t0 = now_ms();
  for (int64_t k = 0; k < steps; k++) TRY(step(&g[k % 2], &g[(k + 1) % 2], tmp));
  double *u = malloc((size_t)(m * m) * sizeof(double));
  if (u == NULL) return ND_ERR_OUT_OF_MEMORY;
  TRY(nd_array_to_host(g[steps % 2].full, u, (size_t)(m * m) * sizeof(double)));
  double ms = now_ms() - t0;

  /* Host reference: the discrete mode g^m u0 and the analytic amplitude. The amplitude of u is
   * its projection on u0, <u, u0> / <u0, u0>. */
  const double gfac = 1 - 8 * R * pow(sin(PI * h / 2), 2);
  const double discrete = pow(gfac, (double)steps), analytic = exp(-2 * PI * PI * t);
  double dot = 0, norm2 = 0, dev = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < m; j++) {
      double u0 = (i == 0 || j == 0 || i == m - 1 || j == m - 1) ? 0.0 : sin(PI * i * h) * sin(PI * j * h);
      double v = u[i * m + j];
      dot += v * u0, norm2 += u0 * u0;
      double d = fabs(v - discrete * u0);
      if (!(d <= dev)) dev = d; /* keeps a NaN */
    }
  free(u);
  double amp = dot / norm2, rel_mode = dev / discrete, rel_analytic = fabs(amp - analytic) / analytic;
  int ok = rel_mode <= 1e-9 && rel_analytic <= 10 * h * h;
  printf("heat2d: %lldx%lld grid, %lld steps to t=%.5f in %.1f ms (%.1f us/step): amplitude %.7f, "
         "analytic exp(-2 pi^2 t) %.7f (rel. error %.2g, limit %.2g), off the discrete mode by %.2g: %s\n",
         (long long)n, (long long)n, (long long)steps, t, ms, 1e3 * ms / (double)steps, amp, analytic,
         rel_analytic, 10 * h * h, rel_mode, ok ? "ok" : "WRONG");
  *bad += !ok;
  nd_array_release(tmp);
  grid_release(&g[0]);
  grid_release(&g[1]);
  return ND_OK;
}

int main(int argc, char **argv) {
  long n = 255;
  char *end = NULL;
  if (argc > 2 || (argc == 2 && ((errno = 0), (n = strtol(argv[1], &end, 10)), errno != 0 || end == argv[1] ||
                                 *end != '\0' || n < 8 || n > 1023))) {
    fprintf(stderr, "usage: heat2d [n (interior grid points per side, 8..1023; default 255)]\n");
    return 2;
  }
  int bad = 0;
  nd_status st = heat(n, &bad);
  if (st == ND_ERR_NO_DEVICE) {
    printf("heat2d: no CUDA device, skipped\n");
    return 77;
  }
  return st != ND_OK || bad ? 1 : 0;
}
