/* grid_sync: a kernel with a grid-wide barrier, compiled at run time in one process and
 * loaded from the kernel cache on disk by a fresh process, which launches it cooperatively
 * (field report 1: a kernel loaded from the cache must behave exactly as a freshly compiled
 * one, cooperative launch included).
 *
 * The kernel computes y = x / sum(x) in one launch: each block sums its share of x, the grid
 * waits at cooperative_groups' this_grid().sync() until every block has written its sum, then
 * every block adds up the block sums and scales its share. Without a working grid-wide
 * barrier some blocks would read block sums not yet written, and y would be wrong.
 *
 * The program points ND_CACHE_DIR at a new empty directory, compiles the kernel (one compile,
 * per the cache statistics), runs it on the largest grid that can be resident at once
 * (nd_kernel_max_cooperative_grid), shows that one block more is refused rather than shrunk
 * or left to hang, then starts itself again as a new process. That process must find the
 * kernel on disk (no compile, one disk hit) and get the same right result. The directory is
 * removed at the end.
 *
 * Run: build/examples/grid_sync
 * Exit status: 0 results right, 1 wrong, 2 bad arguments, 77 no GPU. */
#define _GNU_SOURCE
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ndcuda.h>

extern char **environ;

#define CHECK(call)                                                                           \
  do {                                                                                        \
    nd_status st_ = (call);                                                                   \
    if (st_ != ND_OK) {                                                                       \
      if (st_ == ND_ERR_NO_DEVICE) return 77;                                                 \
      fprintf(stderr, "grid_sync: %s failed: %s\n  %s\n", #call, nd_status_name(st_), nd_last_error()); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

enum { THREADS = 256 };
static const int64_t N = (int64_t)1 << 24;

static const char *source =
    "#include <cooperative_groups.h>\n"
    "namespace cg = cooperative_groups;\n"
    "/* The sum of v over the block (blockDim.x a power of two, at most 256), in every thread. */\n"
    "__device__ float block_sum(float v, float *sh) {\n"
    "  sh[threadIdx.x] = v;\n"
    "  __syncthreads();\n"
    "  for (int off = blockDim.x / 2; off > 0; off >>= 1) {\n"
    "    if (threadIdx.x < off) sh[threadIdx.x] += sh[threadIdx.x + off];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  const float r = sh[0];\n"
    "  __syncthreads();\n"
    "  return r;\n"
    "}\n"
    "extern \"C\" __global__ void normalise(const float *x, float *y, float *partial, long long n) {\n"
    "  __shared__ float sh[256];\n"
    "  cg::grid_group grid = cg::this_grid();\n"
    "  float s = 0.f;\n"
    "  for (long long i = grid.thread_rank(); i < n; i += grid.size()) s += x[i];\n"
    "  s = block_sum(s, sh);\n"
    "  if (threadIdx.x == 0) partial[blockIdx.x] = s;\n"
    "  grid.sync(); /* every block's sum is written and visible past this point */\n"
    "  float t = 0.f;\n"
    "  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += partial[b];\n"
    "  const float total = block_sum(t, sh);\n"
    "  for (long long i = grid.thread_rank(); i < n; i += grid.size()) y[i] = x[i] / total;\n"
    "}\n";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double x_value(int64_t i) { return 1.0 + (double)(i % 7) * 0.125; }

/* Creates the module (timing it), and checks what the cache says happened: compiled here
 * (expect_compile) or loaded from disk. */
static int create(int expect_compile, const char *who, nd_module **m, nd_kernel **k) {
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "normalise";
  o.cooperative = 1;
  const double t0 = now_ms();
  CHECK(nd_module_create(source, &o, m));
  const double ms = now_ms() - t0;
  CHECK(nd_module_get_kernel(*m, "normalise", k));
  nd_jit_cache_stats s;
  CHECK(nd_jit_cache_get_stats(&s));
  const int compiled = nd_module_compiled_here(*m);
  printf("grid_sync: %s: module %s in %.1f ms (cache statistics: %llu compiles, %llu disk hits)\n", who,
         compiled ? "compiled" : "loaded from the disk cache", ms, (unsigned long long)s.compiles,
         (unsigned long long)s.disk_hits);
  const int ok = expect_compile ? compiled && s.compiles == 1
                                : !compiled && s.compiles == 0 && s.disk_hits == 1;
  if (!ok) {
    fprintf(stderr, "grid_sync: %s: expected %s\n", who,
            expect_compile ? "one compile in this process" : "no compile and one disk hit in this process");
    return 1;
  }
  return 0;
}

/* Runs the kernel cooperatively on the largest resident grid and checks y on the host. */
static int run(nd_kernel *k, const char *who, int show_refusal) {
  int64_t most = 0;
  CHECK(nd_kernel_max_cooperative_grid(k, THREADS, 0, &most));
  if (most < 1) {
    fprintf(stderr, "grid_sync: %s: no block of %d threads fits on a multiprocessor\n", who, THREADS);
    return 1;
  }
  float *hx = malloc(sizeof(float) * (size_t)N), *hy = malloc(sizeof(float) * (size_t)N);
  if (!hx || !hy) {
    fprintf(stderr, "grid_sync: out of host memory\n");
    return 1;
  }
  double total = 0;
  for (int64_t i = 0; i < N; i++) {
    hx[i] = (float)x_value(i);
    total += hx[i];
  }
  nd_array *x = NULL, *y = NULL, *partial = NULL;
  const int64_t pshape[1] = {most + 1}; /* room for the refused grid, were it ever launched */
  CHECK(nd_array_from_host(hx, sizeof(float) * (size_t)N, 1, &N, ND_FLOAT32, &x));
  CHECK(nd_empty(1, &N, ND_FLOAT32, &y));
  CHECK(nd_zeros(1, pshape, ND_FLOAT32, &partial));
  nd_karg args[4] = {nd_karg_read(x), nd_karg_write(y), nd_karg_readwrite(partial),
                     nd_karg_scalar(ND_INT64, nd_scalar_int(N))};
  nd_launch_config cfg = {{(unsigned)most, 1, 1}, {THREADS, 1, 1}, 0};
  CHECK(nd_kernel_launch(k, cfg, 4, args));
  CHECK(nd_array_to_host(y, hy, sizeof(float) * (size_t)N));
  int64_t wrong = 0;
  double ysum = 0;
  for (int64_t i = 0; i < N; i++) {
    const double want = hx[i] / total;
    wrong += !(fabs(hy[i] - want) <= 1e-5 * want);
    ysum += hy[i];
  }
  printf("grid_sync: %s: y = x / sum(x) over %lld float32 on a cooperative grid of %lld blocks x %d threads: "
         "%lld of %lld wrong, sum(y) = %.7f: %s\n",
         who, (long long)N, (long long)most, THREADS, (long long)wrong, (long long)N, ysum, wrong ? "WRONG" : "ok");
  if (show_refusal) {
    /* One block more than can be resident at once: refused before anything is enqueued. */
    cfg.grid[0] = (unsigned)most + 1;
    const nd_status st = nd_kernel_launch(k, cfg, 4, args);
    printf("grid_sync: %s: a grid of %lld blocks: %s (%s)\n", who, (long long)most + 1, nd_status_name(st),
           st == ND_OK ? "launched" : nd_last_error());
    if (st != ND_ERR_VALUE) wrong++;
  }
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(partial);
  free(hx);
  free(hy);
  return wrong ? 1 : 0;
}

/* One process's part: the first compiles (and shows the refusal), the second must load from
 * disk. */
static int process_part(int first) {
  const char *who = first ? "first process" : "new process";
  nd_module *m = NULL;
  nd_kernel *k = NULL;
  int rc = create(first, who, &m, &k);
  if (!rc) rc = run(k, who, first);
  nd_kernel_release(k);
  nd_module_release(m);
  return rc;
}

static int first_process(const char *self) {
  const int rc = process_part(1);
  if (rc) return rc;
  char *argv[] = {(char *)self, (char *)"--from-cache", NULL};
  pid_t pid;
  fflush(stdout); /* this process's lines first */
  if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0) {
    perror("grid_sync: posix_spawn");
    return 1;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--from-cache")) {
    const int rc = process_part(0);
    if (rc == 77) printf("grid_sync: no CUDA device, skipped\n");
    return rc;
  }
  if (argc > 1) {
    fprintf(stderr, "usage: grid_sync (no arguments; got '%s')\n", argv[1]);
    return 2;
  }
  /* A new cache directory, set before the first ndcuda call reads the environment. */
  const char *tmp = getenv("TMPDIR");
  char dir[512], self[4096];
  snprintf(dir, sizeof dir, "%s/grid_sync-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0 || mkdtemp(dir) == NULL) {
    perror("grid_sync: cache directory");
    return 1;
  }
  self[len] = '\0';
  setenv("ND_CACHE_DIR", dir, 1);
  setenv("ND_CACHE", "disk", 1);
  printf("grid_sync: kernel cache directory %s\n", dir);
  const int rc = first_process(self);
  if (rc == 77) printf("grid_sync: no CUDA device, skipped\n");
  /* the entries and their locks, then the directory */
  if (rc != 77) nd_jit_cache_clear();
  if (rmdir(dir) != 0) fprintf(stderr, "grid_sync: could not remove %s\n", dir);
  return rc;
}
