/* GPU suite for user kernels compiled at run time (include/ndcuda/jit.h).
 *
 * - Field report 1: a kernel with a grid-wide sync compiled in this process, then loaded by a
 *   fresh process (this binary re-executed with --child) from the disk cache with zero
 *   compiles, and launched cooperatively with the right result; the same after the entry is
 *   damaged so that only the driver can tell (recompiled, counted).
 * - Field report 2: 32 threads asking for one new kernel at once compile it once; 32 threads
 *   over 4 new kernels compile 4.
 * - Field report 4: tiled shared-memory matrix products (16 x 16 and 32 x 32 tiles) as user
 *   kernels against nd_matmul on sizes that are not multiples of the tile.
 * - Cross-stream ordering of user kernels against built-in ops (both directions): right in
 *   every trial, and wrong in some with the ordering switched off (so the test can see the race).
 * - Bad input: each error with its status and a message naming the kernel and the argument,
 *   and the output untouched.
 * - Generated elementwise and reduction kernels against built-ins over dtypes and layouts, and
 *   the reductions' split and vector paths against exact host sums.
 * The process runs with its own empty ND_CACHE_DIR (set in main before the first compile). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/nd_test.h"

#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "jit/compile.h"
#include "jit/sha256.h"
#include "streams/stream_internal.h"

extern char **environ;

static char g_self[1024];
static char g_nonce[64]; /* makes this run's sources new to any cache directory */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + 1e-6 * (double)t.tv_nsec;
}

static nd_jit_cache_stats stats(void) {
  nd_jit_cache_stats s;
  ND_ASSERT_OK(nd_jit_cache_get_stats(&s));
  return s;
}

static nd_array *upload_f32(int n, const float *h) {
  nd_array *a = NULL;
  int64_t shape[1] = {n};
  ND_ASSERT_OK(nd_array_from_host(h, (size_t)n * sizeof(float), 1, shape, ND_FLOAT32, &a));
  return a;
}

static int sm_count(void) {
  int n = 0;
  cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0);
  return n;
}

/* ---- field report 1: cooperative kernel from the disk cache in a fresh process ----------- */

/* Every thread writes its own slot, the grid syncs, then every thread reads a slot written by
 * a thread of another block: without a working grid-wide barrier the values are stale. */
static const char *coop_source =
    "#include <cooperative_groups.h>\n"
    "namespace cg = cooperative_groups;\n"
    "extern \"C\" __global__ void rotate_sum(int *x, int *out, int n) {\n"
    "  cg::grid_group g = cg::this_grid();\n"
    "  const int t = (int)g.thread_rank(), T = (int)g.size();\n"
    "  for (int round = 1; round <= 3; round++) {\n"
    "    for (int i = t; i < n; i += T) x[i] = i * round;\n"
    "    g.sync();\n"
    "    for (int i = t; i < n; i += T) out[i] += x[(i + blockDim.x) % n];\n"
    "    g.sync();\n"
    "  }\n"
    "}\n";

static void coop_source_with_nonce(char *buf, size_t cap) {
  snprintf(buf, cap, "// run %s\n%s", g_nonce, coop_source);
}

/* Creates, launches with the largest co-resident grid, checks. Returns the number of wrong
 * elements. */
static int run_coop(nd_module *m) {
  nd_kernel *k = NULL;
  ND_ASSERT_OK(nd_module_get_kernel(m, "rotate_sum", &k));
  nd_kernel_attributes at;
  ND_ASSERT_OK(nd_kernel_get_attributes(k, &at));
  ck_assert_int_eq(at.cooperative, 1);
  int per_sm = 0;
  ND_ASSERT_OK(nd_kernel_max_active_blocks(k, 256, 0, &per_sm));
  ck_assert_int_gt(per_sm, 0);
  const int blocks = per_sm * sm_count();
  int64_t most = 0;
  ND_ASSERT_OK(nd_kernel_max_cooperative_grid(k, 256, 0, &most));
  ck_assert_int_eq(most, blocks);
  ND_ASSERT_FAILS(nd_kernel_max_cooperative_grid(k, 0, 0, &most), ND_ERR_VALUE, "block_threads 0");
  const int n = blocks * 256 * 3 + 17;
  int64_t shape[1] = {n};
  nd_array *x = NULL, *out = NULL;
  ND_ASSERT_OK(nd_zeros(1, shape, ND_INT32, &x));
  ND_ASSERT_OK(nd_zeros(1, shape, ND_INT32, &out));
  nd_karg args[3] = {nd_karg_write(x), nd_karg_readwrite(out), nd_karg_scalar(ND_INT32, nd_scalar_int(n))};
  nd_launch_config cfg = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
  ND_ASSERT_OK(nd_kernel_launch(k, cfg, 3, args));
  int *h = malloc((size_t)n * sizeof(int));
  ND_ASSERT_OK(nd_array_to_host(out, h, (size_t)n * sizeof(int)));
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += h[i] != 6 * ((i + 256) % n); /* (1 + 2 + 3) * index */
  /* one block more than can be resident is refused, naming the limit */
  cfg.grid[0] = (unsigned)blocks + 1;
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 3, args), ND_ERR_VALUE, "resident at once");
  free(h);
  nd_array_release(x);
  nd_array_release(out);
  nd_kernel_release(k);
  return wrong;
}

static nd_module *create_coop(void) {
  char src[4096];
  coop_source_with_nonce(src, sizeof src);
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "rotate_sum";
  o.cooperative = 1;
  nd_module *m = NULL;
  ND_ASSERT_OK(nd_module_create(src, &o, &m));
  return m;
}

/* The child: a fresh process with the parent's ND_CACHE_DIR and nonce. mode "hit": must load
 * from disk with no compile; mode "recompile": must find the entry bad and compile once. */
static int child_main(const char *mode) {
  nd_module *m = NULL;
  char src[4096];
  coop_source_with_nonce(src, sizeof src);
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "rotate_sum";
  o.cooperative = 1;
  if (nd_module_create(src, &o, &m) != ND_OK) {
    fprintf(stderr, "child: nd_module_create: %s\n", nd_last_error());
    return 2;
  }
  nd_jit_cache_stats s;
  nd_jit_cache_get_stats(&s);
  const int hit = !strcmp(mode, "hit"), any = !strcmp(mode, "any");
  /* "any" (one of 8 processes started together): compiled here once, or loaded from disk */
  const int bad = any ? !((s.compiles == 1 && nd_module_compiled_here(m)) ||
                          (s.compiles == 0 && s.disk_hits == 1 && !nd_module_compiled_here(m)))
                      : hit ? (s.compiles != 0 || s.disk_hits != 1 || nd_module_compiled_here(m))
                            : (s.compiles != 1 || s.corrupt_entries != 1 || !nd_module_compiled_here(m));
  if (bad) {
    fprintf(stderr, "child %s: compiles %llu disk hits %llu corrupt %llu\n", mode, (unsigned long long)s.compiles,
            (unsigned long long)s.disk_hits, (unsigned long long)s.corrupt_entries);
    return 3;
  }
  nd_kernel *k = NULL;
  if (nd_module_get_kernel(m, "rotate_sum", &k) != ND_OK) return 4;
  int per_sm = 0;
  if (nd_kernel_max_active_blocks(k, 256, 0, &per_sm) != ND_OK) return 5;
  const int blocks = per_sm * sm_count(), n = blocks * 256 * 3 + 17;
  int64_t shape[1] = {n};
  nd_array *x = NULL, *out = NULL;
  if (nd_zeros(1, shape, ND_INT32, &x) || nd_zeros(1, shape, ND_INT32, &out)) return 6;
  nd_karg args[3] = {nd_karg_write(x), nd_karg_readwrite(out), nd_karg_scalar(ND_INT32, nd_scalar_int(n))};
  nd_launch_config cfg = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
  if (nd_kernel_launch(k, cfg, 3, args) != ND_OK) {
    fprintf(stderr, "child: launch: %s\n", nd_last_error());
    return 7;
  }
  int *h = malloc((size_t)n * sizeof(int));
  if (nd_array_to_host(out, h, (size_t)n * sizeof(int)) != ND_OK) return 8;
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += h[i] != 6 * ((i + 256) % n);
  fprintf(stderr, "child %s: %d blocks, %d wrong\n", mode, blocks, wrong);
  if (wrong != 0) return 9;
  return any && s.compiles == 1 ? 10 : 0;
}

static int spawn_child(const char *mode) {
  char *argv[] = {g_self, (char *)"--child", (char *)mode, NULL};
  pid_t pid;
  if (posix_spawn(&pid, g_self, NULL, NULL, argv, environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Field report 2 across processes: 8 processes started together on an empty cache directory
 * each create and run the cooperative kernel; exactly one compiles (the others wait on its
 * per-key lock, then load its entry), none fails, every result is right. */
START_TEST(report2_eight_processes_on_an_empty_cache_directory) {
  char dir[600], env_dir[700], env_nonce[128];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/ndjit-8proc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(env_dir, sizeof env_dir, "ND_CACHE_DIR=%s", dir);
  snprintf(env_nonce, sizeof env_nonce, "ND_TEST_JIT_NONCE=%s.8proc", g_nonce);
  /* this process's environment with the two variables replaced */
  size_t ne = 0;
  while (environ[ne]) ne++;
  char **envp = calloc(ne + 3, sizeof(char *));
  size_t k = 0;
  for (size_t i = 0; i < ne; i++)
    if (strncmp(environ[i], "ND_CACHE_DIR=", 13) && strncmp(environ[i], "ND_TEST_JIT_NONCE=", 18)) envp[k++] = environ[i];
  envp[k++] = env_dir;
  envp[k++] = env_nonce;
  envp[k] = NULL;
  char *argv[] = {g_self, (char *)"--child", (char *)"any", NULL};
  pid_t pids[8];
  for (int p = 0; p < 8; p++) ck_assert_int_eq(posix_spawn(&pids[p], g_self, NULL, NULL, argv, envp), 0);
  int compiled = 0, errors = 0;
  for (int p = 0; p < 8; p++) {
    int status = 0;
    waitpid(pids[p], &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 10)
      compiled++;
    else if (code != 0)
      errors++;
  }
  free(envp);
  ck_assert_int_eq(errors, 0);
  ck_assert_int_eq(compiled, 1);
}
END_TEST

START_TEST(report1_cooperative_kernel_from_disk_in_a_fresh_process) {
  nd_jit_cache_stats s0 = stats();
  nd_module *m = create_coop();
  nd_jit_cache_stats s1 = stats();
  ck_assert_uint_eq(s1.compiles - s0.compiles, 1);
  ck_assert(nd_module_compiled_here(m));
  ck_assert_int_eq(run_coop(m), 0);
  ck_assert_int_eq(spawn_child("hit"), 0);
  /* Damage the payload but keep the checksum right: only the driver's load can tell, and the
   * cache must then remove the entry and recompile. */
  nd__jit_key k;
  nd__jit_key_init(&k);
  char path[2048];
  {
    char src[4096];
    coop_source_with_nonce(src, sizeof src);
    nd_module_options o = ND_MODULE_OPTIONS_INIT;
    o.name = "rotate_sum";
    o.cooperative = 1;
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    nd__jit_source js = {"nd_module_create", "rotate_sum", src, &o, major * 10 + minor};
    ND_ASSERT_OK(nd__jit_material(&js, &k));
    nd__jit_cache_entry_path(nd__jit_cache_global(), k.data, k.len, path, sizeof path);
  }
  nd__jit_key_free(&k);
  FILE *f = fopen(path, "r+b");
  ck_assert_msg(f != NULL, "no cache entry at %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char *b = malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  ck_assert_int_eq(fread(b, 1, (size_t)size, f), size);
  /* the payload ends 32 bytes before the end; its ELF header is far enough before that */
  const unsigned char *elf = memmem(b, (size_t)size, "\x7f" "ELF", 4);
  ck_assert_ptr_nonnull(elf);
  memset(b + (elf - b), 0x5a, 64);
  nd__sha256(b, (size_t)size - 32, b + size - 32);
  fseek(f, 0, SEEK_SET);
  fwrite(b, 1, (size_t)size, f);
  fclose(f);
  free(b);
  ck_assert_int_eq(spawn_child("recompile"), 0);
  ck_assert_int_eq(spawn_child("hit"), 0); /* and the rewritten entry is good */
  nd_module_release(m);
}
END_TEST

/* ---- field report 2: many threads, one compile per kernel -------------------------------- */

typedef struct th {
  const char *src;
  pthread_barrier_t *bar;
  nd_status st;
  int right;
} th;

static void *th_main(void *p) {
  th *t = (th *)p;
  pthread_barrier_wait(t->bar);
  nd_module *m = NULL;
  t->st = nd_module_create(t->src, NULL, &m);
  if (t->st != ND_OK) return NULL;
  nd_kernel *k = NULL;
  t->st = nd_module_get_kernel(m, "add_const", &k);
  if (t->st == ND_OK) {
    float h[100];
    for (int i = 0; i < 100; i++) h[i] = (float)i;
    nd_array *a = upload_f32(100, h);
    nd_karg args[3] = {nd_karg_readwrite(a), nd_karg_scalar(ND_FLOAT32, nd_scalar_float(0.5)),
                       nd_karg_scalar(ND_INT64, nd_scalar_int(100))};
    nd_launch_config cfg = {{1, 1, 1}, {128, 1, 1}, 0};
    t->st = nd_kernel_launch(k, cfg, 3, args);
    if (t->st == ND_OK) t->st = nd_array_to_host(a, h, sizeof h);
    t->right = 1;
    for (int i = 0; i < 100; i++) t->right &= h[i] == (float)i + 0.5f;
    nd_array_release(a);
    nd_kernel_release(k);
  }
  nd_module_release(m);
  return NULL;
}

static double run_threads(int nkeys, const char *tag) {
  char src[4][512];
  for (int k = 0; k < nkeys; k++)
    snprintf(src[k], sizeof src[k],
             "// %s %s kernel %d\nextern \"C\" __global__ void add_const(float *x, float c, long long n) {\n"
             "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] += c; }\n",
             g_nonce, tag, k);
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, 32);
  th t[32];
  pthread_t p[32];
  const double t0 = now_ms();
  for (int i = 0; i < 32; i++) {
    t[i] = (th){src[i % nkeys], &bar, ND_OK, 0};
    pthread_create(&p[i], NULL, th_main, &t[i]);
  }
  for (int i = 0; i < 32; i++) pthread_join(p[i], NULL);
  const double ms = now_ms() - t0;
  pthread_barrier_destroy(&bar);
  for (int i = 0; i < 32; i++) {
    ck_assert_msg(t[i].st == ND_OK, "thread %d: %s", i, nd_status_name(t[i].st));
    ck_assert_msg(t[i].right, "thread %d: wrong result", i);
  }
  return ms;
}

START_TEST(report2_threads_compile_each_kernel_once) {
  nd_jit_cache_stats s0 = stats();
  const double one = run_threads(1, "one");
  nd_jit_cache_stats s1 = stats();
  ck_assert_uint_eq(s1.compiles - s0.compiles, 1);
  const double four = run_threads(4, "four");
  nd_jit_cache_stats s2 = stats();
  ck_assert_uint_eq(s2.compiles - s1.compiles, 4);
  fprintf(stderr, "report 2: 32 threads x 1 kernel cold %.1f ms, 32 threads x 4 kernels cold %.1f ms\n", one, four);
}
END_TEST

/* ---- field report 4: tiled shared-memory matrix product ---------------------------------- */

static const char *tiled_source =
    "extern \"C\" __global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {\n"
    "  __shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];\n"
    "  const int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;\n"
    "  float acc = 0.f;\n"
    "  for (int t = 0; t < K; t += TILE) {\n"
    "    As[threadIdx.y][threadIdx.x] = (r < M && t + threadIdx.x < K) ? A[(long long)r * K + t + threadIdx.x] : 0.f;\n"
    "    Bs[threadIdx.y][threadIdx.x] = (c < N && t + threadIdx.y < K) ? B[(long long)(t + threadIdx.y) * N + c] : 0.f;\n"
    "    __syncthreads();\n"
    "    for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (r < M && c < N) C[(long long)r * N + c] = acc;\n"
    "}\n";

START_TEST(report4_tiled_matmul_matches_nd_matmul) {
  const int tile = _i ? 32 : 16;
  char def[32];
  snprintf(def, sizeof def, "TILE=%d", tile);
  const char *defs[] = {def};
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "matmul_tiled";
  o.ndefines = 1;
  o.defines = defs;
  nd_module *m = NULL;
  ND_ASSERT_OK(nd_module_create(tiled_source, &o, &m));
  nd_kernel *k = NULL;
  ND_ASSERT_OK(nd_module_get_kernel(m, "matmul_tiled", &k));
  nd_kernel_attributes at;
  ND_ASSERT_OK(nd_kernel_get_attributes(k, &at));
  ck_assert_uint_eq(at.static_shared_bytes, 2u * tile * (tile + 1) * sizeof(float));
  ck_assert_int_gt(at.registers, 0);
  ck_assert_int_ge(at.max_threads_per_block, tile * tile);
  const int M = 133, K = 77, N = 101; /* none a multiple of 16 or 32 */
  float *ha = malloc(sizeof(float) * M * K), *hb = malloc(sizeof(float) * K * N);
  float *hc = malloc(sizeof(float) * M * N), *hr = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; i++) ha[i] = (float)((i * 37) % 19) / 7.f - 1.f;
  for (int i = 0; i < K * N; i++) hb[i] = (float)((i * 11) % 23) / 9.f - 1.f;
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
  nd_array *a, *b, *c, *ref;
  ND_ASSERT_OK(nd_array_from_host(ha, sizeof(float) * M * K, 2, sa, ND_FLOAT32, &a));
  ND_ASSERT_OK(nd_array_from_host(hb, sizeof(float) * K * N, 2, sb, ND_FLOAT32, &b));
  ND_ASSERT_OK(nd_empty(2, sc, ND_FLOAT32, &c));
  nd_karg args[6] = {nd_karg_read(a), nd_karg_read(b), nd_karg_write(c), nd_karg_scalar(ND_INT32, nd_scalar_int(M)),
                     nd_karg_scalar(ND_INT32, nd_scalar_int(N)), nd_karg_scalar(ND_INT32, nd_scalar_int(K))};
  nd_launch_config cfg = {{(unsigned)((N + tile - 1) / tile), (unsigned)((M + tile - 1) / tile), 1},
                          {(unsigned)tile, (unsigned)tile, 1}, 0};
  ND_ASSERT_OK(nd_kernel_launch(k, cfg, 6, args));
  ND_ASSERT_OK(nd_matmul(a, b, &ref));
  ND_ASSERT_OK(nd_array_to_host(c, hc, sizeof(float) * M * N));
  ND_ASSERT_OK(nd_array_to_host(ref, hr, sizeof(float) * M * N));
  int wrong = 0;
  for (int i = 0; i < M * N; i++) wrong += fabsf(hc[i] - hr[i]) > 1e-4f * (1.f + fabsf(hr[i]));
  ck_assert_int_eq(wrong, 0);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(c);
  nd_array_release(ref);
  free(ha);
  free(hb);
  free(hc);
  free(hr);
  nd_kernel_release(k);
  nd_module_release(m);
}
END_TEST

/* ---- name expressions, headers, dynamic shared memory ------------------------------------ */

START_TEST(templates_headers_and_dynamic_shared_memory) {
  const char *src =
      "#include \"ndcuda_jit.h\"\n#include \"scale.h\"\n"
      "template <class T> __global__ void reverse_scale(const T *x, T *y, int n) {\n"
      "  extern __shared__ unsigned char raw[]; T *s = (T *)raw;\n"
      "  for (int j = threadIdx.x; j < n; j += blockDim.x) s[j] = x[j];\n"
      "  __syncthreads();\n"
      "  for (int j = threadIdx.x; j < n; j += blockDim.x) y[j] = T(SCALE) * s[n - 1 - j];\n"
      "}\n";
  const char *hn[] = {"scale.h"}, *hs[] = {"#define SCALE 3\n"};
  const char *names[] = {"reverse_scale<double>", "reverse_scale<nd_complex128>"};
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "reverse_scale";
  o.nheaders = 1;
  o.header_names = hn;
  o.header_sources = hs;
  o.nname_expressions = 2;
  o.name_expressions = names;
  nd_module *m = NULL;
  ND_ASSERT_OK(nd_module_create(src, &o, &m));
  nd_kernel *k = NULL;
  ND_ASSERT_OK(nd_module_get_kernel(m, "reverse_scale<double>", &k));
  /* 7000 doubles = 56000 bytes of dynamic shared memory: above 48 KiB, opted in by the launch */
  const int n = 7000;
  double *h = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) h[i] = i;
  int64_t shape[1] = {n};
  nd_array *x, *y;
  ND_ASSERT_OK(nd_array_from_host(h, sizeof(double) * n, 1, shape, ND_FLOAT64, &x));
  ND_ASSERT_OK(nd_zeros(1, shape, ND_FLOAT64, &y));
  nd_karg args[3] = {nd_karg_read(x), nd_karg_write(y), nd_karg_scalar(ND_INT32, nd_scalar_int(n))};
  nd_launch_config cfg = {{1, 1, 1}, {1024, 1, 1}, sizeof(double) * n};
  ND_ASSERT_OK(nd_kernel_launch(k, cfg, 3, args));
  ND_ASSERT_OK(nd_array_to_host(y, h, sizeof(double) * n));
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += h[i] != 3.0 * (n - 1 - i);
  ck_assert_int_eq(wrong, 0);
  /* more shared memory than a block can have is refused before anything runs */
  cfg.shared_bytes = (size_t)1 << 20;
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 3, args), ND_ERR_VALUE, "shared memory");
  nd_array_release(x);
  nd_array_release(y);
  free(h);
  nd_kernel_release(k);
  /* the complex instance resolves too; an instance never named does not */
  ND_ASSERT_OK(nd_module_get_kernel(m, "reverse_scale<nd_complex128>", &k));
  nd_kernel_release(k);
  ND_ASSERT_FAILS(nd_module_get_kernel(m, "reverse_scale<float>", &k), ND_ERR_VALUE, "reverse_scale<float>");
  nd_module_release(m);
}
END_TEST

/* ---- bad input --------------------------------------------------------------------------- */

static const char *fill_source =
    "extern \"C\" __global__ void fill(float *x, float v, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = v; }\n";

START_TEST(bad_input_is_refused_before_launch) {
  nd_module *m = NULL;
  nd_kernel *k = NULL;
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "broken";
  ND_ASSERT_FAILS(nd_module_create("extern \"C\" __global__ void f(float *x) { x[0] = 1.0f }", &o, &m),
                  ND_ERR_COMPILE, "broken");
  ck_assert_msg(strstr(nd_jit_last_log(), "error") != NULL, "log: %s", nd_jit_last_log());
  o.name = "fill";
  ND_ASSERT_OK(nd_module_create(fill_source, &o, &m));
  ND_ASSERT_FAILS(nd_module_get_kernel(m, "no_such_kernel", &k), ND_ERR_VALUE, "no_such_kernel");
  ND_ASSERT_OK(nd_module_get_kernel(m, "fill", &k));
  ck_assert_str_eq(nd_kernel_name(k), "fill");
  float h[64];
  for (int i = 0; i < 64; i++) h[i] = -1.f;
  nd_array *x = upload_f32(64, h), *bview = NULL;
  int64_t bshape[2] = {4, 64};
  ND_ASSERT_OK(nd_array_broadcast_to(x, 2, bshape, &bview));
  nd_launch_config cfg = {{1, 1, 1}, {64, 1, 1}, 0};
  nd_karg good[3] = {nd_karg_write(x), nd_karg_scalar(ND_FLOAT32, nd_scalar_float(2.0)),
                     nd_karg_scalar(ND_INT32, nd_scalar_int(64))};
  nd_karg args[3];
  /* wrong count */
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 2, good), ND_ERR_VALUE, "takes 3 arguments");
  /* wrong type: a float64 scalar where a float goes */
  memcpy(args, good, sizeof args);
  args[1] = nd_karg_scalar(ND_FLOAT64, nd_scalar_float(2.0));
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 3, args), ND_ERR_VALUE, "argument 1");
  /* a NULL array, a read-only array written */
  memcpy(args, good, sizeof args);
  args[0] = nd_karg_write(NULL);
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 3, args), ND_ERR_NULL_POINTER, "argument 0");
  args[0] = nd_karg_write(bview);
  ND_ASSERT_FAILS(nd_kernel_launch(k, cfg, 3, args), ND_ERR_READ_ONLY, "argument 0");
  /* invalid configurations */
  nd_launch_config bad = cfg;
  bad.grid[0] = 0;
  ND_ASSERT_FAILS(nd_kernel_launch(k, bad, 3, good), ND_ERR_VALUE, "grid.x");
  bad = cfg;
  bad.block[0] = 2048;
  ND_ASSERT_FAILS(nd_kernel_launch(k, bad, 3, good), ND_ERR_VALUE, "block.x");
  bad = cfg;
  bad.block[0] = 64;
  bad.block[1] = 32;
  ND_ASSERT_FAILS(nd_kernel_launch(k, bad, 3, good), ND_ERR_VALUE, "threads");
  bad = cfg;
  bad.grid[1] = 70000;
  ND_ASSERT_FAILS(nd_kernel_launch(k, bad, 3, good), ND_ERR_VALUE, "grid.y");
  /* nothing ran: x still holds -1 */
  ND_ASSERT_OK(nd_array_to_host(x, h, sizeof h));
  for (int i = 0; i < 64; i++) ck_assert_float_eq(h[i], -1.f);
  /* and the good launch runs */
  ND_ASSERT_OK(nd_kernel_launch(k, cfg, 3, good));
  ND_ASSERT_OK(nd_array_to_host(x, h, sizeof h));
  for (int i = 0; i < 64; i++) ck_assert_float_eq(h[i], 2.f);
  nd_array_release(bview);
  nd_array_release(x);
  nd_kernel_release(k);
  nd_module_release(m);
}
END_TEST

/* ---- cross-stream ordering --------------------------------------------------------------- */

#define TRIALS 100
#define SPIN_US 1500.0

/* Direction 0: the user kernel writes x on stream A (after a spin), nd_add reads it on B.
 * Direction 1: nd_add writes x on A (after a spin), the user kernel reads it on B.
 * Returns the number of wrong trials. */
static int ordering_trials(int direction, int auto_on) {
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "fill";
  nd_module *m = NULL;
  nd_kernel *k = NULL, *kc = NULL;
  ND_ASSERT_OK(nd_module_create(fill_source, &o, &m));
  ND_ASSERT_OK(nd_module_get_kernel(m, "fill", &k));
  const char *copy_src =
      "extern \"C\" __global__ void copy(const float *x, float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }\n";
  nd_module *mc = NULL;
  o.name = "copy";
  ND_ASSERT_OK(nd_module_create(copy_src, &o, &mc));
  ND_ASSERT_OK(nd_module_get_kernel(mc, "copy", &kc));
  nd_stream *A, *B;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &A));
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &B));
  const int n = 1 << 16;
  int64_t shape[1] = {n};
  float *h = malloc(sizeof(float) * n);
  nd__set_auto_events(auto_on);
  int wrong_trials = 0;
  for (int t = 0; t < TRIALS; t++) {
    nd_array *x = NULL, *y = NULL, *z = NULL;
    ND_ASSERT_OK(nd_zeros(1, shape, ND_FLOAT32, &x));
    ND_ASSERT_OK(nd_zeros(1, shape, ND_FLOAT32, &z));
    ND_ASSERT_OK(nd_stream_synchronize(nd_stream_null()));
    const float v = (float)(t + 1);
    nd_launch_config cfg = {{(unsigned)(n / 256), 1, 1}, {256, 1, 1}, 0};
    ND_ASSERT_OK(nd_stream_push(A));
    ck_assert_int_eq(nd_test_spin(nd_stream_cuda(A), SPIN_US), 0);
    if (direction == 0) {
      nd_karg a[3] = {nd_karg_write(x), nd_karg_scalar(ND_FLOAT32, nd_scalar_float(v)),
                      nd_karg_scalar(ND_INT32, nd_scalar_int(n))};
      ND_ASSERT_OK(nd_kernel_launch(k, cfg, 3, a));
    } else {
      nd_array *one = NULL;
      ND_ASSERT_OK(nd_full(1, shape, nd_scalar_float(v), ND_FLOAT32, &one));
      /* full runs on A too (after the spin); x = one + x on A */
      ND_ASSERT_OK(nd_add(one, x, x, NULL));
      nd_array_release(one);
    }
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_push(B));
    if (direction == 0) {
      ND_ASSERT_OK(nd_add(x, z, z, NULL));
    } else {
      nd_karg a[3] = {nd_karg_read(x), nd_karg_write(z), nd_karg_scalar(ND_INT32, nd_scalar_int(n))};
      ND_ASSERT_OK(nd_kernel_launch(kc, cfg, 3, a));
    }
    ND_ASSERT_OK(nd_stream_pop());
    ND_ASSERT_OK(nd_stream_synchronize(A));
    ND_ASSERT_OK(nd_stream_synchronize(B));
    ND_ASSERT_OK(nd_array_to_host(z, h, sizeof(float) * n));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != v;
    wrong_trials += bad > 0;
    nd_array_release(x);
    nd_array_release(y);
    nd_array_release(z);
  }
  nd__set_auto_events(1);
  free(h);
  nd_stream_destroy(A);
  nd_stream_destroy(B);
  nd_kernel_release(k);
  nd_kernel_release(kc);
  nd_module_release(m);
  nd_module_release(mc);
  return wrong_trials;
}

START_TEST(cross_stream_ordering_of_user_kernels) {
  const int direction = _i;
  const int with = ordering_trials(direction, 1);
  const int without = ordering_trials(direction, 0);
  fprintf(stderr, "ordering direction %d: %d/%d wrong with ordering, %d/%d without\n", direction, with, TRIALS,
          without, TRIALS);
  ck_assert_int_eq(with, 0);
  ck_assert_msg(without > 0, "with ND_AUTO_EVENTS off no trial went wrong: the test cannot see the race");
}
END_TEST

START_TEST(memory_hit_is_fast) {
  nd_module *m = NULL;
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "fill";
  ND_ASSERT_OK(nd_module_create(fill_source, &o, &m));
  nd_module_release(m);
  const int reps = 20000;
  const double t0 = now_ms();
  for (int i = 0; i < reps; i++) {
    ND_ASSERT_OK(nd_module_create(fill_source, &o, &m));
    nd_module_release(m);
  }
  const double us = (now_ms() - t0) * 1e3 / reps;
  fprintf(stderr, "memory hit: %.3f us per nd_module_create\n", us);
  ck_assert_msg(us < 5.0, "a memory hit took %.3f us", us);
}
END_TEST


/* ---- generated elementwise kernels --------------------------------------------------------
 * References: the built-in nd_add / nd_multiply (each checked against host references in
 * test_elementwise), compared after conversion to complex128 (exact for integers and bool,
 * within a few units in the last place for floating types). */

enum { LAY_CONTIG, LAY_OFFSET, LAY_TRANSPOSED, LAY_NEGATIVE, LAY_BROADCAST, LAY_ZERO, LAY_0D, LAY_COUNT };
static const char *lay_name[LAY_COUNT] = {"contiguous", "offset", "transposed", "negative strides", "broadcast",
                                          "zero-size", "0-d"};

/* Values -3, -2.75, ... of dtype dt in a (rows x cols) C-ordered array. */
static nd_array *values(nd_dtype dt, int ndim, const int64_t *shape, double start) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  nd_array *f = NULL, *c = NULL, *r = NULL;
  ND_ASSERT_OK(nd_arange(start, start + 0.25 * (double)n, 0.25, ND_FLOAT64, &f));
  ND_ASSERT_OK(nd_array_astype(f, dt, &c));
  ND_ASSERT_OK(nd_array_reshape(c, ndim, shape, &r));
  nd_array_release(f);
  nd_array_release(c);
  return r;
}

/* The operands x, y of a layout (views; the caller releases them). */
static void layout_operands(nd_dtype dt, int lay, nd_array **x, nd_array **y) {
  int64_t s2[2] = {37, 53}, s2t[2] = {53, 37};
  nd_array *base = NULL;
  switch (lay) {
    case LAY_CONTIG:
      *x = values(dt, 2, s2, -3.0);
      *y = values(dt, 2, s2, 1.5);
      break;
    case LAY_OFFSET: {
      int64_t sb[2] = {40, 60};
      nd_slice sl[2] = {{2, 39, 1}, {5, 58, 1}};
      base = values(dt, 2, sb, -3.0);
      ND_ASSERT_OK(nd_array_slice(base, 2, sl, x));
      nd_array_release(base);
      base = values(dt, 2, sb, 2.0);
      ND_ASSERT_OK(nd_array_slice(base, 2, sl, y));
      nd_array_release(base);
      break;
    }
    case LAY_TRANSPOSED:
      base = values(dt, 2, s2t, -3.0);
      ND_ASSERT_OK(nd_array_transpose(base, 0, NULL, x));
      nd_array_release(base);
      *y = values(dt, 2, s2, 0.5);
      break;
    case LAY_NEGATIVE: {
      int64_t axes[2] = {0, 1};
      base = values(dt, 2, s2, -3.0);
      ND_ASSERT_OK(nd_array_flip(base, 2, axes, x));
      nd_array_release(base);
      base = values(dt, 2, s2, 1.0);
      ND_ASSERT_OK(nd_array_flip(base, 1, axes + 1, y));
      nd_array_release(base);
      break;
    }
    case LAY_BROADCAST: {
      int64_t sc[2] = {37, 1}, sr[1] = {53};
      *x = values(dt, 2, sc, -3.0);
      *y = values(dt, 1, sr, 0.75);
      break;
    }
    case LAY_ZERO: {
      int64_t sz[2] = {0, 5};
      *x = values(dt, 2, sz, 0.0);
      *y = values(dt, 2, sz, 0.0);
      break;
    }
    default:
      *x = values(dt, 0, NULL, -2.5);
      *y = values(dt, 0, NULL, 1.25);
      break;
  }
}

static void expect_close(const char *what, nd_dtype dt, const nd_array *got, const nd_array *want) {
  ck_assert_int_eq(nd_array_ndim(got), nd_array_ndim(want));
  for (int d = 0; d < nd_array_ndim(got); d++) ck_assert_int_eq(nd_array_shape(got)[d], nd_array_shape(want)[d]);
  const int64_t n = nd_array_size(want);
  if (n == 0) return;
  nd_array *g = NULL, *w = NULL;
  ND_ASSERT_OK(nd_array_astype(got, ND_COMPLEX128, &g));
  ND_ASSERT_OK(nd_array_astype(want, ND_COMPLEX128, &w));
  double *hg = malloc((size_t)n * 16), *hw = malloc((size_t)n * 16);
  ND_ASSERT_OK(nd_array_to_host(g, hg, (size_t)n * 16));
  ND_ASSERT_OK(nd_array_to_host(w, hw, (size_t)n * 16));
  const double tol = dt == ND_FLOAT16 ? 1e-3 : (dt == ND_FLOAT32 || dt == ND_COMPLEX64) ? 1e-6 : dt == ND_FLOAT64 || dt == ND_COMPLEX128 ? 1e-14 : 0;
  int wrong = 0;
  for (int64_t i = 0; i < 2 * n; i++) {
    const double a = hg[i], b = hw[i];
    const int ok = (a == b) || (isnan(a) && isnan(b)) || fabs(a - b) <= tol * fabs(b);
    if (!ok && wrong++ < 3) fprintf(stderr, "%s: [%lld] got %.17g want %.17g\n", what, (long long)(i / 2), a, b);
  }
  ck_assert_msg(wrong == 0, "%s: %d values differ", what, wrong);
  free(hg);
  free(hw);
  nd_array_release(g);
  nd_array_release(w);
}

START_TEST(elementwise_matches_builtins_over_dtypes_and_layouts) {
  const nd_dtype dt = (nd_dtype)_i;
  nd_elementwise_kernel *k = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("T x, T y", "T z, T w", "z = x + y; w = x * y;", "add_mul", NULL, NULL, &k));
  for (int lay = 0; lay < LAY_COUNT; lay++) {
    nd_array *x = NULL, *y = NULL, *res[2] = {NULL, NULL}, *ra = NULL, *rm = NULL;
    layout_operands(dt, lay, &x, &y);
    nd_operand in[2] = {nd_arg(x), nd_arg(y)};
    ND_ASSERT_OK(nd_elementwise_kernel_call(k, 2, in, 2, NULL, res));
    ND_ASSERT_OK(nd_add(x, y, NULL, &ra));
    ND_ASSERT_OK(nd_multiply(x, y, NULL, &rm));
    char what[128];
    snprintf(what, sizeof what, "%s %s add", nd_dtype_name(dt), lay_name[lay]);
    expect_close(what, dt, res[0], ra);
    snprintf(what, sizeof what, "%s %s multiply", nd_dtype_name(dt), lay_name[lay]);
    expect_close(what, dt, res[1], rm);
    nd_array_release(x);
    nd_array_release(y);
    nd_array_release(res[0]);
    nd_array_release(res[1]);
    nd_array_release(ra);
    nd_array_release(rm);
  }
  nd_elementwise_kernel_release(k);
}
END_TEST

START_TEST(elementwise_out_alias_scalars_and_errors) {
  nd_elementwise_kernel *k = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("T x, T y", "T z", "z = x + y", "user_add", NULL, NULL, &k));
  int64_t shape[2] = {64, 33};
  nd_array *x = values(ND_FLOAT32, 2, shape, -1.0), *y = values(ND_FLOAT32, 2, shape, 2.0), *ref = NULL, *r = NULL;
  ND_ASSERT_OK(nd_add(x, y, NULL, &ref));
  /* out is x itself: in place */
  nd_operand in[2] = {nd_arg(x), nd_arg(y)};
  nd_array *outs[1] = {x};
  ND_ASSERT_OK(nd_elementwise_kernel_call(k, 2, in, 1, outs, &r));
  ck_assert_ptr_eq(r, x);
  expect_close("in place", ND_FLOAT32, x, ref);
  nd_array_release(r);
  /* out overlapping an input shifted by one row: read from a copy, as NumPy */
  int64_t big[2] = {65, 33};
  nd_array *buf = values(ND_FLOAT32, 2, big, 0.0), *lo = NULL, *hi = NULL, *want = NULL;
  nd_slice sl0[1] = {{0, 64, 1}}, sl1[1] = {{1, 65, 1}};
  ND_ASSERT_OK(nd_array_slice(buf, 1, sl0, &lo));
  ND_ASSERT_OK(nd_array_slice(buf, 1, sl1, &hi));
  ND_ASSERT_OK(nd_add(lo, lo, NULL, &want));
  nd_operand in2[2] = {nd_arg(lo), nd_arg(lo)};
  nd_array *outs2[1] = {hi};
  ND_ASSERT_OK(nd_elementwise_kernel_call(k, 2, in2, 1, outs2, &r));
  expect_close("overlapping out", ND_FLOAT32, hi, want);
  nd_array_release(r);
  /* a weak scalar follows the array's dtype; alone it binds T as float64 */
  nd_operand ins[2] = {nd_arg(y), nd_arg_scalar(nd_scalar_float(0.5))};
  ND_ASSERT_OK(nd_elementwise_kernel_call(k, 2, ins, 1, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT32);
  nd_array_release(r);
  nd_operand both[2] = {nd_arg_scalar(nd_scalar_float(0.5)), nd_arg_scalar(nd_scalar_float(0.25))};
  ND_ASSERT_OK(nd_elementwise_kernel_call(k, 2, both, 1, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  ck_assert_int_eq(nd_array_ndim(r), 0);
  double v = 0;
  ND_ASSERT_OK(nd_array_to_host(r, &v, sizeof v));
  ck_assert(v == 0.75);
  nd_array_release(r);
  /* bad input: nothing runs, out untouched */
  nd_array *xi = values(ND_INT32, 2, shape, 0.0), *o = values(ND_FLOAT32, 2, shape, 7.0), *snap = NULL;
  ND_ASSERT_OK(nd_array_copy(o, ND_ORDER_C, &snap));
  nd_operand mixed[2] = {nd_arg(x), nd_arg(xi)};
  nd_array *oo[1] = {o};
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(k, 2, mixed, 1, oo, &r), ND_ERR_DTYPE, "placeholder T");
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(k, 1, mixed, 1, oo, &r), ND_ERR_VALUE, "takes 2 inputs");
  int64_t other[2] = {3, 3};
  nd_array *small = values(ND_FLOAT32, 2, other, 0.0);
  nd_operand bad_shape[2] = {nd_arg(x), nd_arg(small)};
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(k, 2, bad_shape, 1, oo, &r), ND_ERR_SHAPE, "'y'");
  nd_array *ob[1] = {small};
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(k, 2, in, 1, ob, &r), ND_ERR_SHAPE, "output 'z'");
  int64_t row[2] = {1, 33};
  nd_array *rowa = values(ND_FLOAT32, 2, row, 0.0), *ro = NULL;
  ND_ASSERT_OK(nd_array_broadcast_to(rowa, 2, shape, &ro));
  nd_array *orc[1] = {ro};
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(k, 2, in, 1, orc, &r), ND_ERR_READ_ONLY, "output 'z'");
  nd_array_release(ro);
  nd_array_release(rowa);
  expect_close("untouched out", ND_FLOAT32, o, snap);
  /* a fixed-type definition takes arrays that cast safely */
  nd_elementwise_kernel *kf = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("float64 a, float64 b", "float64 c", "c = a * 2 + b", "fixed", NULL, NULL, &kf));
  nd_operand fx[2] = {nd_arg(xi), nd_arg(x)};
  ND_ASSERT_OK(nd_elementwise_kernel_call(kf, 2, fx, 1, NULL, &r));
  ck_assert_int_eq(nd_array_dtype(r), ND_FLOAT64);
  nd_array_release(r);
  nd_array *c128 = values(ND_COMPLEX128, 2, shape, 0.0);
  nd_operand fbad[2] = {nd_arg(c128), nd_arg(x)};
  ND_ASSERT_FAILS(nd_elementwise_kernel_call(kf, 2, fbad, 1, NULL, &r), ND_ERR_DTYPE, "'a'");
  nd_elementwise_kernel_release(kf);
  nd_array_release(c128);
  nd_array_release(small);
  nd_array_release(xi);
  nd_array_release(o);
  nd_array_release(snap);
  nd_array_release(buf);
  nd_array_release(lo);
  nd_array_release(hi);
  nd_array_release(want);
  nd_array_release(x);
  nd_array_release(y);
  nd_array_release(ref);
  nd_elementwise_kernel_release(k);
}
END_TEST

START_TEST(elementwise_64bit_index) {
  /* 2^31 + 40 uint8 elements: i itself is beyond int range at the end. */
  nd_elementwise_kernel *k = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("", "uint8 z", "z = (nd_uint8)(i % 251)", "index_fill", NULL, NULL, &k));
  const int64_t n = ((int64_t)1 << 31) + 40;
  nd_array *z = NULL, *r = NULL, *tail = NULL;
  ND_ASSERT_OK(nd_empty(1, &n, ND_UINT8, &z));
  nd_array *outs[1] = {z};
  ND_ASSERT_OK(nd_elementwise_kernel_call(k, 0, NULL, 1, outs, &r));
  nd_slice sl[1] = {{n - 100, n, 1}};
  ND_ASSERT_OK(nd_array_slice(z, 1, sl, &tail));
  unsigned char h[100];
  ND_ASSERT_OK(nd_array_to_host(tail, h, sizeof h));
  for (int j = 0; j < 100; j++) ck_assert_int_eq(h[j], (int)((n - 100 + j) % 251));
  nd_array_release(tail);
  nd_array_release(r);
  nd_array_release(z);
  nd_elementwise_kernel_release(k);
}
END_TEST

/* ---- generated reductions against nd_sum / nd_max -------------------------------------------
 * Inputs are multiples of 0.25 of modest size, so float64 sums are exact in any order and the
 * comparison is exact. */

START_TEST(reduction_matches_builtins_over_axes_and_layouts) {
  nd_reduction_kernel *sum = NULL, *mx = NULL;
  ND_ASSERT_OK(nd_reduction_kernel_create("T x", "float64 y", "x", "a + b", "y = a", "0", "float64", "user_sum", NULL,
                                          NULL, &sum));
  ND_ASSERT_OK(nd_reduction_kernel_create("T x", "T y", "x", "(a > b ? a : b)", NULL, NULL, NULL, "user_max", NULL, NULL,
                                          &mx));
  static const nd_dtype dts[] = {ND_FLOAT32, ND_INT32, ND_FLOAT64};
  int64_t ax0[1] = {0}, ax1[1] = {1}, axm1[1] = {-1}, ax01[2] = {1, 0};
  const int64_t *axs[5] = {NULL, ax0, ax1, axm1, ax01};
  const int nax[5] = {0, 1, 1, 1, 2};
  for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
    for (int lay = 0; lay < LAY_ZERO; lay++) {
      nd_array *x = NULL, *y = NULL;
      layout_operands(dts[t], lay, &x, &y);
      nd_array *in_arr = x;
      nd_array *bx = NULL;
      if (lay == LAY_BROADCAST) { /* a broadcast view of the (37, 1) column */
        int64_t sh[2] = {37, 53};
        ND_ASSERT_OK(nd_array_broadcast_to(x, 2, sh, &bx));
        in_arr = bx;
      }
      for (int a = 0; a < 5; a++)
        for (int keep = 0; keep < 2; keep++) {
          nd_operand in[1] = {nd_arg(in_arr)};
          nd_array *got = NULL, *want = NULL, *gm = NULL, *wm = NULL;
          ND_ASSERT_OK(nd_reduction_kernel_call(sum, 1, in, nax[a], axs[a], keep, NULL, &got));
          ND_ASSERT_OK(nd_sum(in_arr, nax[a], axs[a], keep, ND_FLOAT64, NULL, &want));
          char what[160];
          snprintf(what, sizeof what, "sum %s %s axes #%d keepdims %d", nd_dtype_name(dts[t]), lay_name[lay], a, keep);
          expect_close(what, ND_FLOAT64, got, want);
          ND_ASSERT_OK(nd_reduction_kernel_call(mx, 1, in, nax[a], axs[a], keep, NULL, &gm));
          ND_ASSERT_OK(nd_max(in_arr, nax[a], axs[a], keep, NULL, &wm));
          snprintf(what, sizeof what, "max %s %s axes #%d keepdims %d", nd_dtype_name(dts[t]), lay_name[lay], a, keep);
          expect_close(what, dts[t], gm, wm);
          nd_array_release(got);
          nd_array_release(want);
          nd_array_release(gm);
          nd_array_release(wm);
        }
      nd_array_release(bx);
      nd_array_release(x);
      nd_array_release(y);
    }
  /* a large single output takes the split path: 2^22 + 3 elements */
  int64_t n = ((int64_t)1 << 22) + 3;
  nd_array *big = values(ND_FLOAT32, 1, &n, -1000.0), *got = NULL, *want = NULL;
  nd_operand in[1] = {nd_arg(big)};
  ND_ASSERT_OK(nd_reduction_kernel_call(sum, 1, in, 0, NULL, 0, NULL, &got));
  ND_ASSERT_OK(nd_sum(big, 0, NULL, 0, ND_FLOAT64, NULL, &want));
  expect_close("split sum", ND_FLOAT64, got, want);
  nd_array_release(got);
  nd_array_release(want);
  ND_ASSERT_OK(nd_reduction_kernel_call(mx, 1, in, 0, NULL, 0, NULL, &got));
  ND_ASSERT_OK(nd_max(big, 0, NULL, 0, NULL, &want));
  expect_close("split max", ND_FLOAT32, got, want);
  nd_array_release(got);
  nd_array_release(want);
  /* zero-size: the identity, or an error without one; bad axes; out given */
  int64_t z[2] = {0, 4};
  nd_array *e = values(ND_FLOAT32, 2, z, 0.0);
  nd_operand ine[1] = {nd_arg(e)};
  int64_t a0[1] = {0};
  ND_ASSERT_OK(nd_reduction_kernel_call(sum, 1, ine, 1, a0, 0, NULL, &got));
  ND_ASSERT_OK(nd_sum(e, 1, a0, 0, ND_FLOAT64, NULL, &want));
  expect_close("empty sum", ND_FLOAT64, got, want);
  nd_array_release(got);
  nd_array_release(want);
  ND_ASSERT_FAILS(nd_reduction_kernel_call(mx, 1, ine, 1, a0, 0, NULL, &got), ND_ERR_VALUE, "no identity");
  int64_t bad[1] = {2}, rep[2] = {0, -2};
  ND_ASSERT_FAILS(nd_reduction_kernel_call(sum, 1, in, 1, bad, 0, NULL, &got), ND_ERR_AXIS, "axis 2");
  int64_t s2[2] = {8, 8};
  nd_array *m8 = values(ND_FLOAT32, 2, s2, 0.0), *o8 = NULL, *r8 = NULL;
  nd_operand in8[1] = {nd_arg(m8)};
  ND_ASSERT_FAILS(nd_reduction_kernel_call(sum, 1, in8, 2, rep, 0, NULL, &got), ND_ERR_AXIS, "repeated");
  int64_t s8[1] = {8};
  ND_ASSERT_OK(nd_zeros(1, s8, ND_FLOAT64, &o8));
  ND_ASSERT_OK(nd_reduction_kernel_call(sum, 1, in8, 1, a0, 0, o8, &r8));
  ck_assert_ptr_eq(r8, o8);
  ND_ASSERT_OK(nd_sum(m8, 1, a0, 0, ND_FLOAT64, NULL, &want));
  expect_close("sum into out", ND_FLOAT64, o8, want);
  nd_array_release(want);
  nd_array_release(r8);
  nd_array_release(o8);
  nd_array_release(m8);
  nd_array_release(e);
  nd_array_release(big);
  nd_reduction_kernel_release(sum);
  nd_reduction_kernel_release(mx);
}
END_TEST

/* ---- generated reductions: the split and vector paths against exact host sums -----------
 * Small integers in float32 / float64, so every sum is exact in float64 in any order. The
 * shapes reach: one output over 2^20 + 7 elements (thousands of splits, four 16-byte vectors
 * per lane in flight, a scalar tail); two inputs (two vectors of each in flight); rows whose
 * starts are not 16-byte aligned (the scalar path inside a split); a view one element in
 * (no row aligned); a thousand outputs of a few splits each (the final kernel's block per
 * output mostly idle); float64 (two elements per vector); a maximum without identity, whose
 * empty splits must not enter the combine. */

static double rd_x(int64_t i) { return (double)(i % 17) - 8.0; }
static double rd_w(int64_t i) { return (double)(i % 13) - 6.0; }

static nd_array *rd_upload(nd_dtype dt, int ndim, const int64_t *shape, double (*f)(int64_t)) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  const size_t isz = dt == ND_FLOAT64 ? 8 : 4;
  void *h = malloc((size_t)n * isz);
  for (int64_t i = 0; i < n; i++) {
    if (dt == ND_FLOAT64)
      ((double *)h)[i] = f(i);
    else
      ((float *)h)[i] = (float)f(i);
  }
  nd_array *a = NULL;
  ND_ASSERT_OK(nd_array_from_host(h, (size_t)n * isz, ndim, shape, dt, &a));
  free(h);
  return a;
}

/* got (float64 or float32, nout values) against want[] exactly. */
static void rd_expect(const char *what, nd_array *got, int64_t nout, const double *want) {
  ck_assert_int_eq(nd_array_size(got), nout);
  nd_array *g = NULL;
  ND_ASSERT_OK(nd_array_astype(got, ND_FLOAT64, &g));
  double *h = malloc((size_t)nout * sizeof(double));
  ND_ASSERT_OK(nd_array_to_host(g, h, (size_t)nout * sizeof(double)));
  int64_t wrong = 0;
  for (int64_t o = 0; o < nout; o++)
    if (h[o] != want[o] && wrong++ < 3) fprintf(stderr, "%s: [%lld] got %.17g want %.17g\n", what, (long long)o, h[o], want[o]);
  ck_assert_msg(wrong == 0, "%s: %lld of %lld outputs differ", what, (long long)wrong, (long long)nout);
  free(h);
  nd_array_release(g);
}

/* Calls k (no keepdims, a new output) and compares with want. */
static void rd_call_expect(nd_reduction_kernel *k, int nin, const nd_operand *in, int naxes, const int64_t *axes,
                           const char *what, int64_t nout, const double *want) {
  nd_array *got = NULL;
  ND_ASSERT_OK(nd_reduction_kernel_call(k, nin, in, naxes, axes, 0, NULL, &got));
  rd_expect(what, got, nout, want);
  nd_array_release(got);
}

START_TEST(reduction_split_and_vector_paths) {
  nd_reduction_kernel *sum = NULL, *dot = NULL, *mx = NULL;
  ND_ASSERT_OK(nd_reduction_kernel_create("T x", "float64 y", "x", "a + b", "y = a", "0", "float64", "rd_sum", NULL,
                                          NULL, &sum));
  ND_ASSERT_OK(nd_reduction_kernel_create("T x, T w", "float64 y", "x * w", "a + b", "y = a", "0", "float64", "rd_dot",
                                          NULL, NULL, &dot));
  ND_ASSERT_OK(nd_reduction_kernel_create("T x", "T y", "x", "(a > b ? a : b)", NULL, NULL, NULL, "rd_max", NULL, NULL,
                                          &mx));
  /* one output, single and two inputs */
  {
    const int64_t n = ((int64_t)1 << 20) + 7;
    nd_array *x = rd_upload(ND_FLOAT32, 1, &n, rd_x), *w = rd_upload(ND_FLOAT32, 1, &n, rd_w), *v = NULL;
    double ws = 0, wd = 0, wv = 0;
    for (int64_t i = 0; i < n; i++) {
      ws += rd_x(i);
      wd += rd_x(i) * rd_w(i);
      if (i >= 1) wv += rd_x(i);
    }
    nd_operand in1[1] = {nd_arg(x)}, in2[2] = {nd_arg(x), nd_arg(w)};
    rd_call_expect(sum, 1, in1, 0, NULL, "full sum float32", 1, &ws);
    rd_call_expect(dot, 2, in2, 0, NULL, "full dot float32", 1, &wd);
    /* a view one element in: no 16-byte aligned base */
    nd_slice sl[1] = {{1, n, 1}};
    ND_ASSERT_OK(nd_array_slice(x, 1, sl, &v));
    nd_operand inv[1] = {nd_arg(v)};
    rd_call_expect(sum, 1, inv, 0, NULL, "full sum of x[1:]", 1, &wv);
    nd_array_release(v);
    nd_array_release(w);
    nd_array_release(x);
  }
  /* three rows of 200003 (rows 1 and 2 start off a 16-byte boundary), and 1000 rows of 5000 */
  {
    const int64_t shapes[2][2] = {{3, 200003}, {1000, 5000}};
    for (int c = 0; c < 2; c++) {
      const int64_t rows = shapes[c][0], cols = shapes[c][1];
      nd_array *x = rd_upload(ND_FLOAT32, 2, shapes[c], rd_x), *w = rd_upload(ND_FLOAT32, 2, shapes[c], rd_w);
      double *ws = calloc((size_t)rows, sizeof(double)), *wd = calloc((size_t)rows, sizeof(double));
      for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < cols; j++) {
          ws[r] += rd_x(r * cols + j);
          wd[r] += rd_x(r * cols + j) * rd_w(r * cols + j);
        }
      int64_t ax[1] = {1};
      nd_operand in1[1] = {nd_arg(x)}, in2[2] = {nd_arg(x), nd_arg(w)};
      char what[96];
      snprintf(what, sizeof what, "row sums of (%lld, %lld)", (long long)rows, (long long)cols);
      rd_call_expect(sum, 1, in1, 1, ax, what, rows, ws);
      snprintf(what, sizeof what, "row dots of (%lld, %lld)", (long long)rows, (long long)cols);
      rd_call_expect(dot, 2, in2, 1, ax, what, rows, wd);
      free(ws);
      free(wd);
      nd_array_release(w);
      nd_array_release(x);
    }
  }
  /* float64, sum and a maximum without identity (the last splits are empty) */
  {
    const int64_t n = ((int64_t)1 << 21) + 5;
    nd_array *x = rd_upload(ND_FLOAT64, 1, &n, rd_x);
    double ws = 0, wm = -1e300;
    for (int64_t i = 0; i < n; i++) {
      ws += rd_x(i);
      wm = rd_x(i) > wm ? rd_x(i) : wm;
    }
    nd_operand in1[1] = {nd_arg(x)};
    rd_call_expect(sum, 1, in1, 0, NULL, "full sum float64", 1, &ws);
    rd_call_expect(mx, 1, in1, 0, NULL, "full max float64", 1, &wm);
    nd_array_release(x);
  }
  nd_reduction_kernel_release(sum);
  nd_reduction_kernel_release(dot);
  nd_reduction_kernel_release(mx);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("jit");
  TCase *t = tcase_create("raw");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, report1_cooperative_kernel_from_disk_in_a_fresh_process);
  tcase_add_test(t, report2_threads_compile_each_kernel_once);
  tcase_add_test(t, report2_eight_processes_on_an_empty_cache_directory);
  tcase_add_loop_test(t, report4_tiled_matmul_matches_nd_matmul, 0, 2);
  tcase_add_test(t, templates_headers_and_dynamic_shared_memory);
  tcase_add_test(t, bad_input_is_refused_before_launch);
  tcase_add_loop_test(t, cross_stream_ordering_of_user_kernels, 0, 2);
  tcase_add_test(t, memory_hit_is_fast);
  tcase_add_loop_test(t, elementwise_matches_builtins_over_dtypes_and_layouts, 0, ND_NUM_DTYPES);
  tcase_add_test(t, elementwise_out_alias_scalars_and_errors);
  tcase_add_test(t, elementwise_64bit_index);
  tcase_add_test(t, reduction_matches_builtins_over_axes_and_layouts);
  tcase_add_test(t, reduction_split_and_vector_paths);
  suite_add_tcase(s, t);
  return s;
}

int main(int argc, char **argv) {
  ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
  if (n > 0) g_self[n] = '\0';
  if (argc == 3 && !strcmp(argv[1], "--child")) {
    const char *nonce = getenv("ND_TEST_JIT_NONCE");
    snprintf(g_nonce, sizeof g_nonce, "%s", nonce ? nonce : "");
    return child_main(argv[2]);
  }
  if (!nd_test_have_gpu()) return nd_test_main_gpu(suite());
  /* A fresh cache directory for this run (inherited by the children), unless one is given. */
  static char dir[512];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/ndjit-gpu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (getenv("ND_CACHE_DIR") == NULL && mkdtemp(dir) != NULL) setenv("ND_CACHE_DIR", dir, 1);
  snprintf(g_nonce, sizeof g_nonce, "%ld.%ld", (long)getpid(), (long)time(NULL));
  setenv("ND_TEST_JIT_NONCE", g_nonce, 1);
  return nd_test_main_gpu(suite());
}
