/* batched_solve: a million small linear systems at once, in checked and unchecked modes.
 *
 * Programs that transform many small things (4x4 homogeneous transforms, 8x8 per-pixel
 * normal equations) need many tiny inverses and solves. ndcuda takes a whole stack
 * (batch, n, n) in one call. This program builds a million well-conditioned float64 matrices
 * (uniform entries in [-1, 1) plus 2n on the diagonal, so strictly diagonally dominant),
 * solves A x = b and inverts A, and measures the normwise backward error of each member,
 *
 *   eta = ||A X - B|| / (||A|| ||X|| + ||B||)   (infinity norms; B = I for the inverse),
 *
 * on the GPU (printed) and again on the host for every member (the check).
 *
 * Then one member is made singular, the way a projection collapses an axis: a column of it is
 * zeroed through a view. Checked mode (the default) waits once per call and fails with
 * ND_ERR_SINGULAR naming that member's batch index; unchecked mode never waits, leaves inf/NaN
 * in that member's slot, and reports it in the per-member info array. Both must name the
 * same index, and every other member must still be solved.
 *
 * Run: build/examples/batched_solve [batch [n]]   (default: 1000000 systems of orders 4 and 8)
 * Exit status: 0 right, 1 wrong, 2 bad arguments, 77 no GPU. */
#define _POSIX_C_SOURCE 199309L
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ndcuda.h>

#define TRY(call)                                                                              \
  do {                                                                                         \
    nd_status st_ = (call);                                                                    \
    if (st_ != ND_OK) {                                                                        \
      if (st_ != ND_ERR_NO_DEVICE) fprintf(stderr, "batched_solve: %s\n  %s\n", #call, nd_last_error()); \
      return st_;                                                                              \
    }                                                                                          \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The largest eta over the batch, computed on the GPU with batched products, matrix norms
 * over the last two axes and one reduction. B may be a single (n, n) identity: it broadcasts. */
static nd_status device_eta(const nd_array *a, const nd_array *x, const nd_array *b, double *eta) {
  const int64_t last2[2] = {-2, -1};
  nd_array *ax, *r, *rn, *an, *xn, *bn, *den, *q, *m;
  TRY(nd_matmul(a, x, &ax));
  TRY(nd_subtract(ax, b, NULL, &r));
  TRY(nd_linalg_norm(r, INFINITY, 2, last2, 0, &rn)); /* shape (batch,) */
  TRY(nd_linalg_norm(a, INFINITY, 2, last2, 0, &an));
  TRY(nd_linalg_norm(x, INFINITY, 2, last2, 0, &xn));
  TRY(nd_linalg_norm(b, INFINITY, 2, last2, 0, &bn));
  TRY(nd_multiply(an, xn, NULL, &den));
  TRY(nd_add(den, bn, den, NULL));
  TRY(nd_divide(rn, den, NULL, &q));
  TRY(nd_amax(q, 0, NULL, 0, NULL, &m));
  nd_scalar s;
  TRY(nd_array_item(m, &s)); /* the one host wait: for this value only */
  *eta = s.v.f;
  nd_array *all[] = {ax, r, rn, an, xn, bn, den, q, m};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_array_release(all[i]);
  return ND_OK;
}

/* The same eta for member k on the host, in double precision, from C-ordered copies.
 * x holds n x k columns (k = nrhs); b NULL means the identity. */
static double host_eta(const double *a, const double *x, const double *b, int n, int nrhs) {
  double rn = 0, an = 0, xn = 0, bn = b ? 0 : 1;
  for (int i = 0; i < n; i++) {
    double rrow = 0, arow = 0, xrow = 0, brow = 0;
    for (int j = 0; j < n; j++) arow += fabs(a[i * n + j]);
    for (int c = 0; c < nrhs; c++) {
      double s = -(b ? b[i * nrhs + c] : (double)(i == c));
      for (int j = 0; j < n; j++) s += a[i * n + j] * x[j * nrhs + c];
      rrow += fabs(s);
      xrow += fabs(x[i * nrhs + c]);
      if (b) brow += fabs(b[i * nrhs + c]);
    }
    rn = fmax(rn, rrow), an = fmax(an, arow), xn = fmax(xn, xrow), bn = b ? fmax(bn, brow) : 1;
  }
  return rn / (an * xn + bn); /* NaN when x is not finite: fails every "<=" check */
}

/* Max of host_eta over the batch, skipping member `skip` (-1: none). */
static double host_eta_max(const double *a, const double *x, const double *b, int64_t batch, int n,
                           int nrhs, int64_t skip) {
  double worst = 0;
  for (int64_t k = 0; k < batch; k++) {
    if (k == skip) continue;
    double e = host_eta(a + k * n * n, x + k * n * nrhs, b ? b + k * n * nrhs : NULL, n, nrhs);
    if (!(e <= worst)) worst = e; /* keeps a NaN */
  }
  return worst;
}

static nd_status to_host(const nd_array *a, double **host) {
  size_t bytes = (size_t)nd_array_nbytes(a);
  *host = malloc(bytes);
  if (*host == NULL) return ND_ERR_OUT_OF_MEMORY;
  return nd_array_to_host(a, *host, bytes);
}

/* The batch index in a checked-mode message "... matrix at batch index k is singular" (a
 * batch of several dimensions would read "(i, j)"; this one has one). */
static int64_t index_in_message(const char *msg) {
  const char *p = strstr(msg, "batch index ");
  if (p == NULL) return -1;
  p += strlen("batch index ");
  if (*p == '(') p++;
  return strtoll(p, NULL, 10);
}

static nd_status one_order(nd_generator *gen, int64_t batch, int n, int *bad) {
  const double tol = 64.0 * n * DBL_EPSILON; /* backward stable: a small multiple of eps */
  int64_t ashape[3] = {batch, n, n}, bshape[3] = {batch, n, 1};
  nd_array *a, *b, *eye, *x, *inv;
  TRY(nd_random_uniform(gen, -1.0, 1.0, 3, ashape, ND_FLOAT64, &a));
  TRY(nd_random_uniform(gen, -1.0, 1.0, 3, bshape, ND_FLOAT64, &b));
  TRY(nd_identity(n, ND_FLOAT64, &eye));
  /* a += 2n I: the (n, n) identity broadcasts over the batch. */
  nd_array *shift;
  TRY(nd_ufunc_call(ND_UFUNC_MULTIPLY, 2, (nd_operand[]){nd_arg(eye), nd_arg_scalar(nd_scalar_float(2.0 * n))}, NULL, &shift));
  TRY(nd_add(a, shift, a, NULL));
  nd_array_release(shift);

  /* Checked mode, the default: each call waits once for a few bytes that say whether some
   * member is singular. A warm-up call first, so first-use costs stay out of the timing. */
  TRY(nd_linalg_solve(a, b, &x));
  nd_array_release(x);
  double t0 = now_ms();
  TRY(nd_linalg_solve(a, b, &x));
  double t_solve = now_ms() - t0;
  TRY(nd_linalg_inv(a, &inv));
  nd_array_release(inv);
  t0 = now_ms();
  TRY(nd_linalg_inv(a, &inv));
  TRY(nd_stream_synchronize(nd_stream_current())); /* the checked wait is only for the flag */
  double t_inv = now_ms() - t0;

  double eta_solve, eta_inv;
  TRY(device_eta(a, x, b, &eta_solve));
  TRY(device_eta(a, inv, eye, &eta_inv));
  double *ha, *hb, *hx, *hinv;
  TRY(to_host(a, &ha));
  TRY(to_host(b, &hb));
  TRY(to_host(x, &hx));
  TRY(to_host(inv, &hinv));
  double host_solve = host_eta_max(ha, hx, hb, batch, n, 1, -1);
  double host_inv = host_eta_max(ha, hinv, NULL, batch, n, n, -1);
  int ok = eta_solve <= tol && eta_inv <= tol && host_solve <= tol && host_inv <= tol;
  printf("batched_solve: %lld systems %dx%d float64: solve %.2f ms, inv %.2f ms (checked); "
         "max backward error solve %.2g (host %.2g), inv %.2g (host %.2g), tolerance %.2g: %s\n",
         (long long)batch, n, n, t_solve, t_inv, eta_solve, host_solve, eta_inv, host_inv, tol,
         ok ? "ok" : "WRONG");
  *bad += !ok;
  nd_array_release(x);
  nd_array_release(inv);
  free(hx);
  free(hinv);

  /* Member k becomes singular: column min(2, n-1) of a[k] is zeroed through a strided view.
   * A zero column stays exactly zero under elimination, so some pivot is exactly zero. */
  int64_t k = batch * 2 / 3;
  int col = n > 2 ? 2 : n - 1;
  nd_array *ak, *column;
  TRY(nd_array_index(a, 0, k, &ak));          /* a[k], an (n, n) view */
  TRY(nd_array_index(ak, 1, col, &column));   /* a[k][:, col], strided by n elements */
  TRY(nd_array_fill(column, nd_scalar_float(0.0)));
  nd_array_release(column);
  nd_array_release(ak);

  /* Checked: an error naming k, and no result. */
  nd_array *none = NULL;
  nd_status st_solve = nd_linalg_solve(a, b, &none);
  int64_t k_solve = st_solve == ND_ERR_SINGULAR ? index_in_message(nd_last_error()) : -1;
  printf("  checked solve: %s: %s\n", nd_status_name(st_solve), nd_last_error());
  nd_status st_inv = nd_linalg_inv(a, &none);
  int64_t k_inv = st_inv == ND_ERR_SINGULAR ? index_in_message(nd_last_error()) : -1;
  printf("  checked inv:   %s: %s\n", nd_status_name(st_inv), nd_last_error());

  /* Unchecked: no wait and no error; the info array (int32, one per member, 0 = solved)
   * says which members failed. nd_argwhere reads their count back (it blocks for that). */
  nd_array *info, *where;
  t0 = now_ms();
  TRY(nd_linalg_solve_ex(a, b, ND_LINALG_UNCHECKED, &x, &info));
  double t_enqueue = now_ms() - t0;
  TRY(nd_argwhere(info, &where)); /* shape (count, 1) */
  int64_t count = nd_array_dim(where, 0), first = -1;
  if (count > 0) {
    nd_array *w0, *pivot;
    nd_scalar s, p;
    TRY(nd_array_index(where, 0, 0, &w0));
    TRY(nd_array_item(w0, &s));
    first = s.v.i;
    TRY(nd_array_index(info, 0, first, &pivot));
    TRY(nd_array_item(pivot, &p));
    printf("  unchecked solve: enqueued in %.3f ms; info nonzero for %lld member(s), the first "
           "%lld (zero pivot %lld)\n", t_enqueue, (long long)count, (long long)first, (long long)p.v.i);
    nd_array_release(pivot);
    nd_array_release(w0);
  }
  free(ha);
  TRY(to_host(x, &hx));
  TRY(to_host(a, &ha)); /* again: a[k] changed */
  double host_rest = host_eta_max(ha, hx, hb, batch, n, 1, k);
  int finite_k = 1;
  for (int i = 0; i < n; i++) finite_k &= isfinite(hx[k * n + i]);
  int ok2 = st_solve == ND_ERR_SINGULAR && k_solve == k && st_inv == ND_ERR_SINGULAR && k_inv == k &&
            none == NULL && count == 1 && first == k && !finite_k && host_rest <= tol;
  printf("batched_solve: %dx%d singular member %lld: checked solve says %lld, checked inv %lld, "
         "unchecked info %lld; member not finite: %s; others' backward error %.2g: %s\n",
         n, n, (long long)k, (long long)k_solve, (long long)k_inv, (long long)first,
         finite_k ? "no" : "yes", host_rest, ok2 ? "ok" : "WRONG");
  *bad += !ok2;
  free(ha);
  free(hb);
  free(hx);
  nd_array *all[] = {a, b, eye, x, info, where};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_array_release(all[i]);
  return ND_OK;
}

static int parse(const char *s, long lo, long hi, long *v) {
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return errno == 0 && end != s && *end == '\0' && *v >= lo && *v <= hi;
}

int main(int argc, char **argv) {
  long batch = 1000000, n = 0;
  if (argc > 3 || (argc > 1 && !parse(argv[1], 1, 10000000, &batch)) ||
      (argc > 2 && !parse(argv[2], 1, 32, &n))) {
    fprintf(stderr, "usage: batched_solve [batch (1..10000000) [n (1..32)]]\n");
    return 2;
  }
  int orders[2] = {4, 8}, norders = 2;
  if (n > 0) orders[0] = (int)n, norders = 1;
  nd_generator *gen;
  nd_status st = nd_generator_create(7, ND_BITGEN_PHILOX, &gen);
  int bad = 0;
  for (int i = 0; i < norders && st == ND_OK; i++) st = one_order(gen, batch, orders[i], &bad);
  nd_generator_destroy(gen);
  if (st == ND_ERR_NO_DEVICE) {
    printf("batched_solve: no CUDA device, skipped\n");
    return 77;
  }
  return st != ND_OK || bad ? 1 : 0;
}
