/* multi_gpu_sum: data-parallel work over the local GPUs with NCCL collectives, checked against
 * one GPU.
 *
 *   multi_gpu_sum [ngpus]        (default: every GPU the process sees)
 *
 * 1. A distributed sum: the rows of a matrix are split over the GPUs, each GPU sums its rows,
 *    and one allreduce adds the partial sums; the result must match the sum on one GPU.
 * 2. A data-parallel least-squares fit y ~ X w: each GPU forms the normal equations of its own
 *    rows (one matmul for X_i^T X_i and one for X_i^T y_i), an allreduce adds them over the
 *    GPUs (both in one group), and every GPU solves (X^T X) w = X^T y; w must match the fit on
 *    one GPU and the known coefficients.
 * The time of the one-GPU and the multi-GPU forms is printed (the scaling of this example).
 *
 * One thread drives every GPU: it makes each device current in turn (cudaSetDevice, which is
 * what ndcuda reads as the calling thread's device) and wraps the collective calls of the
 * different GPUs in nd_comm_group_start / nd_comm_group_end. No event is needed anywhere: the
 * library orders each collective after the matmul that produced its input, and the solve
 * after the collective.
 *
 * Exit status: 0 right, 1 wrong or an error, 77 without a GPU or without NCCL, 2 usage. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ndcuda.h>

#define MAXG 16
#define M (1 << 21) /* rows */
#define K 64        /* columns */

#define CHECK(call)                                                                           \
  do {                                                                                        \
    nd_status st_ = (call);                                                                   \
    if (st_ != ND_OK) {                                                                       \
      fprintf(stderr, "%s failed: %s\n  %s\n", #call, nd_status_name(st_), nd_last_error()); \
      return st_ == ND_ERR_NO_DEVICE ? 77 : 1;                                                \
    }                                                                                         \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Deterministic data: X[i][j] in [-1, 1), w_true[j] = 1 + j / K, y = X w_true + small noise. */
static double xval(int64_t i, int j) {
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)j * 0xBF58476D1CE4E5B9ull;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  return (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static int sync_all(int ngpus) {
  for (int g = 0; g < ngpus; g++)
    if (cudaSetDevice(g) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return 1;
  return 0;
}

/* X_i^T X_i and X_i^T y_i of one block of rows on the current device. */
static nd_status normal_equations(const nd_array *x, const nd_array *y, nd_array **xtx, nd_array **xty) {
  nd_array *xt;
  nd_status st = nd_array_transpose(x, 0, NULL, &xt);
  if (st == ND_OK) st = nd_matmul(xt, x, xtx);
  if (st == ND_OK) st = nd_matmul(xt, y, xty);
  nd_array_release(xt);
  return st;
}

int main(int argc, char **argv) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    fprintf(stderr, "multi_gpu_sum: no GPU\n");
    return 77;
  }
  int ngpus = n < MAXG ? n : MAXG;
  if (argc > 2 || (argc == 2 && (atoi(argv[1]) < 1 || atoi(argv[1]) > n))) {
    fprintf(stderr, "usage: multi_gpu_sum [ngpus]   (1..%d on this machine)\n", n);
    return 2;
  }
  if (argc == 2) ngpus = atoi(argv[1]);
  if (!nd_comm_available()) {
    fprintf(stderr, "multi_gpu_sum: this ndcuda was built without NCCL\n");
    return 77;
  }
  printf("multi_gpu_sum: %d GPU%s, X is %d x %d float64\n", ngpus, ngpus > 1 ? "s" : "", M, K);

  /* The data on the host, then the whole matrix on GPU 0 and one block of rows per GPU. */
  double *hx = malloc(sizeof(double) * (size_t)M * K), *hy = malloc(sizeof(double) * M);
  if (hx == NULL || hy == NULL) return 1;
  for (int64_t i = 0; i < M; i++) {
    double s = 0;
    for (int j = 0; j < K; j++) {
      hx[i * K + j] = xval(i, j);
      s += hx[i * K + j] * (1.0 + (double)j / K);
    }
    hy[i] = s + 1e-3 * xval(i, K);
  }
  nd_comm *comms[MAXG];
  CHECK(nd_comm_init_all(ngpus, NULL, comms));
  nd_array *X[MAXG], *Y[MAXG], *X1, *Y1;
  int64_t rows = M / ngpus;
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    int64_t r0 = g * rows, nr = g == ngpus - 1 ? M - r0 : rows;
    const int64_t sx[2] = {nr, K}, sy[2] = {nr, 1};
    CHECK(nd_array_from_host(hx + r0 * K, sizeof(double) * (size_t)(nr * K), 2, sx, ND_FLOAT64, &X[g]));
    CHECK(nd_array_from_host(hy + r0, sizeof(double) * (size_t)nr, 2, sy, ND_FLOAT64, &Y[g]));
  }
  cudaSetDevice(0);
  const int64_t sx[2] = {M, K}, sy[2] = {M, 1};
  CHECK(nd_array_from_host(hx, sizeof(double) * (size_t)M * K, 2, sx, ND_FLOAT64, &X1));
  CHECK(nd_array_from_host(hy, sizeof(double) * M, 2, sy, ND_FLOAT64, &Y1));
  if (sync_all(ngpus)) return 1;

  /* 1. the distributed sum of X (twice: the first call also connects the GPUs; the second is
   * timed) */
  double one_sum = 0, multi_sum = 0, t_multi_sum = 0, sums[MAXG], t0 = 0;
  nd_array *part[MAXG];
  for (int rep = 0; rep < 2; rep++) {
  if (sync_all(ngpus)) return 1;
  t0 = now_ms();
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    CHECK(nd_sum(X[g], 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &part[g]));
  }
  CHECK(nd_comm_group_start());
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    CHECK(nd_comm_allreduce(comms[g], part[g], part[g], ND_COMM_SUM));
  }
  CHECK(nd_comm_group_end());
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    CHECK(nd_array_to_host(part[g], &sums[g], sizeof(double)));
    nd_array_release(part[g]);
  }
  t_multi_sum = now_ms() - t0;
  }
  multi_sum = sums[0];
  cudaSetDevice(0);
  t0 = now_ms();
  nd_array *whole;
  CHECK(nd_sum(X1, 0, NULL, 0, ND_DTYPE_DEFAULT, NULL, &whole));
  CHECK(nd_array_to_host(whole, &one_sum, sizeof(double)));
  double t_one_sum = now_ms() - t0;
  nd_array_release(whole);
  int ok = 1;
  for (int g = 0; g < ngpus; g++)
    if (fabs(sums[g] - one_sum) > 1e-9 * (1 + fabs(one_sum))) ok = 0;
  printf("multi_gpu_sum: sum over %d GPUs %.12g, on one GPU %.12g (%.2f ms vs %.2f ms) %s\n",
         ngpus, multi_sum, one_sum, t_multi_sum, t_one_sum, ok ? "ok" : "WRONG");

  /* 2. least squares: warm up once (cuBLAS and cuSOLVER handles), then time each form. */
  nd_array *w_multi[MAXG], *w_one = NULL;
  double t_multi = 0, t_one = 0;
  for (int rep = 0; rep < 2; rep++) {
    if (sync_all(ngpus)) return 1;
    t0 = now_ms();
    nd_array *xtx[MAXG], *xty[MAXG];
    for (int g = 0; g < ngpus; g++) {
      cudaSetDevice(g);
      CHECK(normal_equations(X[g], Y[g], &xtx[g], &xty[g]));
    }
    CHECK(nd_comm_group_start());
    for (int g = 0; g < ngpus; g++) {
      cudaSetDevice(g);
      CHECK(nd_comm_allreduce(comms[g], xtx[g], xtx[g], ND_COMM_SUM));
      CHECK(nd_comm_allreduce(comms[g], xty[g], xty[g], ND_COMM_SUM));
    }
    CHECK(nd_comm_group_end());
    for (int g = 0; g < ngpus; g++) {
      cudaSetDevice(g);
      if (rep) nd_array_release(w_multi[g]);
      CHECK(nd_linalg_solve(xtx[g], xty[g], &w_multi[g]));
      nd_array_release(xtx[g]);
      nd_array_release(xty[g]);
    }
    if (sync_all(ngpus)) return 1;
    t_multi = now_ms() - t0;

    cudaSetDevice(0);
    t0 = now_ms();
    nd_array *a, *b;
    CHECK(normal_equations(X1, Y1, &a, &b));
    if (rep) nd_array_release(w_one);
    CHECK(nd_linalg_solve(a, b, &w_one));
    nd_array_release(a);
    nd_array_release(b);
    if (sync_all(1)) return 1;
    t_one = now_ms() - t0;
  }
  double w1[K], wm[K], maxdiff = 0, maxerr = 0;
  cudaSetDevice(0);
  CHECK(nd_array_to_host(w_one, w1, sizeof w1));
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    CHECK(nd_array_to_host(w_multi[g], wm, sizeof wm));
    for (int j = 0; j < K; j++) {
      maxdiff = fmax(maxdiff, fabs(wm[j] - w1[j]));
      maxerr = fmax(maxerr, fabs(wm[j] - (1.0 + (double)j / K)));
    }
    nd_array_release(w_multi[g]);
  }
  int ok2 = maxdiff < 1e-9 && maxerr < 1e-4;
  printf("multi_gpu_sum: least squares on %d GPUs vs one: max |w - w_one| = %.2e, max |w - w_true| = "
         "%.2e; %.2f ms vs %.2f ms (%.2fx) %s\n", ngpus, maxdiff, maxerr, t_multi, t_one,
         t_one / t_multi, ok2 ? "ok" : "WRONG");
  nd_array_release(w_one);
  for (int g = 0; g < ngpus; g++) {
    cudaSetDevice(g);
    nd_array_release(X[g]);
    nd_array_release(Y[g]);
    CHECK(nd_comm_destroy(comms[g]));
  }
  nd_array_release(X1);
  nd_array_release(Y1);
  free(hx);
  free(hy);
  return ok && ok2 ? 0 : 1;
}
