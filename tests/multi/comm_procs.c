/* Two processes, one GPU each, joined into one communicator without MPI: the test of
 * nd_comm_unique_id / nd_comm_init_rank.
 *
 *   comm_procs env  [nranks]   the driver makes the id and hands it to the ranks in the
 *                              environment variable ND_COMM_ID (hexadecimal)
 *   comm_procs file [nranks]   rank 0 makes the id and writes it to a file that the other
 *                              ranks wait for (written to a temporary name, then renamed, so
 *                              that no rank reads half an id)
 *
 * The driver starts nranks copies of itself (fork + exec, so no CUDA state crosses a fork),
 * each with ND_COMM_RANK set; each rank takes device rank % device count, runs an allreduce,
 * an allgather, a broadcast and a ring of send/recv, checks each against a host reference, and
 * exits 0. The driver waits at most 120 s (a rank that hangs is killed and the test fails) and
 * exits 0 when every rank did; 77 (skipped) with fewer than two GPUs or without NCCL. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ndcuda.h"

#define N 100000

static double val(int r, int64_t i) { return (double)((i * 3 + r * 5) % 7); }

static int fail(int rank, const char *what, nd_status st) {
  fprintf(stderr, "comm_procs rank %d: %s failed: %s: %s\n", rank, what, nd_status_name(st),
          nd_last_error());
  return 1;
}
#define TRY(what, call)                            \
  do {                                             \
    nd_status st_ = (call);                        \
    if (st_ != ND_OK) return fail(rank, what, st_); \
  } while (0)

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int get_id(int rank, const char *mode, const char *path, nd_comm_id *id) {
  if (strcmp(mode, "env") == 0) {
    const char *hex = getenv("ND_COMM_ID");
    if (hex == NULL) {
      fprintf(stderr, "comm_procs rank %d: ND_COMM_ID is not set\n", rank);
      return 1;
    }
    TRY("nd_comm_id_from_hex", nd_comm_id_from_hex(hex, id));
    return 0;
  }
  if (rank == 0) {
    TRY("nd_comm_unique_id", nd_comm_unique_id(id));
    char hex[ND_COMM_ID_HEX_CHARS + 1], tmp[4096];
    TRY("nd_comm_id_to_hex", nd_comm_id_to_hex(id, hex, sizeof hex));
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%s\n", hex) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "comm_procs rank 0: cannot write %s: %s\n", path, strerror(errno));
      return 1;
    }
    return 0;
  }
  for (int waited = 0; waited < 60000; waited += 10) {
    FILE *f = fopen(path, "r");
    if (f != NULL) {
      char hex[ND_COMM_ID_HEX_CHARS + 8] = {0};
      size_t n = fread(hex, 1, sizeof hex - 1, f);
      fclose(f);
      hex[n] = '\0';
      TRY("nd_comm_id_from_hex", nd_comm_id_from_hex(hex, id));
      return 0;
    }
    sleep_ms(10);
  }
  fprintf(stderr, "comm_procs rank %d: %s did not appear within 60 s\n", rank, path);
  return 1;
}

static int check(int rank, const char *what, const double *got, const double *want, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      fprintf(stderr, "comm_procs rank %d: %s [%lld] = %g, want %g\n", rank, what, (long long)i,
              got[i], want[i]);
      return 1;
    }
  return 0;
}

static int run_rank(int rank, int nranks, const char *mode, const char *path) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    fprintf(stderr, "comm_procs rank %d: no GPU\n", rank);
    return 1;
  }
  cudaSetDevice(rank % ndev);
  nd_comm_id id;
  if (get_id(rank, mode, path, &id) != 0) return 1;
  nd_comm *comm;
  TRY("nd_comm_init_rank", nd_comm_init_rank(nranks, &id, rank, &comm));
  double *h = malloc(sizeof(double) * N * (size_t)nranks), *want = malloc(sizeof(double) * N * (size_t)nranks);
  const int64_t n1[1] = {N}, n2[2] = {nranks, N};
  for (int64_t i = 0; i < N; i++) h[i] = val(rank, i);
  nd_array *x, *y, *g;
  TRY("nd_array_from_host", nd_array_from_host(h, sizeof(double) * N, 1, n1, ND_FLOAT64, &x));
  TRY("nd_zeros", nd_zeros(1, n1, ND_FLOAT64, &y));
  TRY("nd_zeros", nd_zeros(2, n2, ND_FLOAT64, &g));
  int bad = 0;
  /* allreduce (sum) */
  TRY("nd_comm_allreduce", nd_comm_allreduce(comm, x, y, ND_COMM_SUM));
  TRY("nd_array_to_host", nd_array_to_host(y, h, sizeof(double) * N));
  for (int64_t i = 0; i < N; i++) {
    want[i] = 0;
    for (int r = 0; r < nranks; r++) want[i] += val(r, i);
  }
  bad |= check(rank, "allreduce", h, want, N);
  /* allgather */
  TRY("nd_comm_allgather", nd_comm_allgather(comm, x, g));
  TRY("nd_array_to_host", nd_array_to_host(g, h, sizeof(double) * N * (size_t)nranks));
  for (int r = 0; r < nranks; r++)
    for (int64_t i = 0; i < N; i++) want[r * N + i] = val(r, i);
  bad |= check(rank, "allgather", h, want, N * (int64_t)nranks);
  /* broadcast from the last rank, in place on a copy of x */
  nd_array *b;
  TRY("nd_array_copy", nd_array_copy(x, ND_ORDER_C, &b));
  TRY("nd_comm_broadcast", nd_comm_broadcast(comm, b, nranks - 1));
  TRY("nd_array_to_host", nd_array_to_host(b, h, sizeof(double) * N));
  for (int64_t i = 0; i < N; i++) want[i] = val(nranks - 1, i);
  bad |= check(rank, "broadcast", h, want, N);
  /* a ring: send to the next rank, receive from the previous, in one group */
  TRY("nd_comm_group_start", nd_comm_group_start());
  TRY("nd_comm_send", nd_comm_send(comm, x, (rank + 1) % nranks));
  TRY("nd_comm_recv", nd_comm_recv(comm, y, (rank + nranks - 1) % nranks));
  TRY("nd_comm_group_end", nd_comm_group_end());
  TRY("nd_array_to_host", nd_array_to_host(y, h, sizeof(double) * N));
  for (int64_t i = 0; i < N; i++) want[i] = val((rank + nranks - 1) % nranks, i);
  bad |= check(rank, "send/recv ring", h, want, N);
  nd_array_release(b);
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(g);
  free(h);
  free(want);
  TRY("nd_comm_destroy", nd_comm_destroy(comm));
  if (!bad) printf("comm_procs rank %d of %d (%s bootstrap): allreduce, allgather, broadcast, ring ok\n",
                   rank, nranks, mode);
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "env") && strcmp(argv[1], "file"))) {
    fprintf(stderr, "usage: comm_procs env|file [nranks]\n");
    return 2;
  }
  const char *mode = argv[1];
  int nranks = argc > 2 ? atoi(argv[2]) : 2;
  const char *rank_env = getenv("ND_COMM_RANK");
  if (rank_env != NULL) return run_rank(atoi(rank_env), nranks, mode, getenv("ND_COMM_ID_FILE"));

  /* The driver. */
  if (!nd_comm_available()) {
    fprintf(stderr, "SKIPPED: this ndcuda was built without NCCL\n");
    return 77;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 2) {
    fprintf(stderr, "SKIPPED: comm_procs needs 2 GPUs (found %d)\n", ndev);
    return 77;
  }
  char dir[] = "/tmp/nd_comm_procs_XXXXXX", path[4096];
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(path, sizeof path, "%s/id", dir);
  setenv("ND_COMM_ID_FILE", path, 1);
  if (strcmp(mode, "env") == 0) {
    /* The driver's process hosts NCCL's bootstrap root for this id until the ranks are done. */
    nd_comm_id id;
    char hex[ND_COMM_ID_HEX_CHARS + 1];
    if (nd_comm_unique_id(&id) != ND_OK || nd_comm_id_to_hex(&id, hex, sizeof hex) != ND_OK) {
      fprintf(stderr, "comm_procs: %s\n", nd_last_error());
      return 1;
    }
    setenv("ND_COMM_ID", hex, 1);
  }
  pid_t pids[64];
  if (nranks < 1 || nranks > 64) return 2;
  for (int r = 0; r < nranks; r++) {
    char rs[16];
    snprintf(rs, sizeof rs, "%d", r);
    pids[r] = fork();
    if (pids[r] == 0) {
      setenv("ND_COMM_RANK", rs, 1);
      execv("/proc/self/exe", argv);
      _exit(127);
    }
  }
  int ok = 1, left = nranks;
  for (int waited = 0; left > 0 && waited < 120000; waited += 10) {
    for (int r = 0; r < nranks; r++) {
      int status;
      if (pids[r] > 0 && waitpid(pids[r], &status, WNOHANG) == pids[r]) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          fprintf(stderr, "comm_procs: rank %d exited with %d\n", r,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
          ok = 0;
        }
        pids[r] = 0;
        left--;
      }
    }
    if (left > 0) sleep_ms(10);
  }
  for (int r = 0; r < nranks; r++)
    if (pids[r] > 0) {
      fprintf(stderr, "comm_procs: rank %d did not finish within 120 s; killed\n", r);
      kill(pids[r], SIGKILL);
      waitpid(pids[r], NULL, 0);
      ok = 0;
    }
  unlink(path);
  rmdir(dir);
  printf("comm_procs (%s bootstrap, %d processes): %s\n", mode, nranks, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
