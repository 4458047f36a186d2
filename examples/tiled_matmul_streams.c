/* tiled_matmul_streams: a user-written tiled shared-memory matrix product, compiled at run
 * time, fed through 4 streams with pinned host memory (field report 4).
 *
 * C = A B for a tall A (ROWS x K) that lives on the host: A goes to the device in CHUNKS row
 * blocks, each block's product runs as soon as its copy has landed, and its rows of C come
 * back while later blocks are still being copied in. Block i uses stream i % 4, so the
 * copies of one block overlap the product of another. Each stream has its own device buffers
 * (reused every fourth block); ndcuda orders their reuse: a buffer written by a block's copy
 * waits for the previous block's product and copy-back on the same stream.
 *
 * The kernel is the classic tiled product, compiled once per tile size (16 x 16 and 32 x 32,
 * the tile a -D define): each block stages a tile of A and a tile of B in shared memory
 * (padded by one column against bank conflicts) and every thread accumulates one element of
 * C. K and N (1000) are multiples of neither tile, so the edge tiles' guards are exercised.
 *
 * Each tile's result is checked against nd_matmul of the whole product and, on a few rows
 * (the first and last of the matrix and the two rows on each side of a chunk boundary),
 * against a float64 product computed on the host; its time on 4 streams is compared with the
 * same work on one stream.
 *
 * Run: build/examples/tiled_matmul_streams [tile]   (16 or 32; default: both)
 * Exit status: 0 results right, 1 wrong, 2 bad arguments, 77 no GPU. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ndcuda.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    nd_status st_ = (call);                                                                \
    if (st_ != ND_OK) {                                                                    \
      if (st_ == ND_ERR_NO_DEVICE) {                                                       \
        printf("tiled_matmul_streams: no CUDA device, skipped\n");                         \
        return 77;                                                                         \
      }                                                                                    \
      fprintf(stderr, "tiled_matmul_streams: %s failed: %s\n  %s\n", #call, nd_status_name(st_), \
              nd_last_error());                                                            \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

enum { ROWS = 16384, K = 1000, N = 1000, CHUNKS = 16, NSTREAMS = 4 };

static const char *source =
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

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The whole product through nstreams streams; returns 0 or a status. */
static int run(nd_kernel *k, int tile, int nstreams, nd_stream **streams, const nd_array *b, float *ha, float *hc,
               double *ms) {
  const int64_t rows = ROWS / CHUNKS;
  int64_t ashape[2] = {rows, K}, cshape[2] = {rows, N};
  nd_array *da[NSTREAMS], *dc[NSTREAMS];
  for (int s = 0; s < nstreams; s++) {
    CHECK(nd_stream_push(streams[s]));
    CHECK(nd_empty(2, ashape, ND_FLOAT32, &da[s]));
    CHECK(nd_empty(2, cshape, ND_FLOAT32, &dc[s]));
    CHECK(nd_stream_pop());
  }
  for (int s = 0; s < nstreams; s++) CHECK(nd_stream_synchronize(streams[s]));
  const double t0 = now_ms();
  for (int i = 0; i < CHUNKS; i++) {
    const int s = i % nstreams;
    CHECK(nd_stream_push(streams[s]));
    CHECK(nd_array_from_host_async(da[s], ha + (size_t)i * rows * K, sizeof(float) * (size_t)rows * K));
    nd_karg args[6] = {nd_karg_read(da[s]), nd_karg_read(b), nd_karg_write(dc[s]),
                       nd_karg_scalar(ND_INT32, nd_scalar_int(rows)), nd_karg_scalar(ND_INT32, nd_scalar_int(N)),
                       nd_karg_scalar(ND_INT32, nd_scalar_int(K))};
    nd_launch_config cfg = {{(unsigned)((N + tile - 1) / tile), (unsigned)((rows + tile - 1) / tile), 1},
                            {(unsigned)tile, (unsigned)tile, 1}, 0};
    CHECK(nd_kernel_launch(k, cfg, 6, args));
    CHECK(nd_array_to_host_async(dc[s], hc + (size_t)i * rows * N, sizeof(float) * (size_t)rows * N));
    CHECK(nd_stream_pop());
  }
  for (int s = 0; s < nstreams; s++) CHECK(nd_stream_synchronize(streams[s]));
  *ms = now_ms() - t0;
  for (int s = 0; s < nstreams; s++) {
    nd_array_release(da[s]);
    nd_array_release(dc[s]);
  }
  return 0;
}

/* Row r of A B in float64 on the host. */
static void host_row(const float *ha, const float *hb, int64_t r, double *out) {
  for (int j = 0; j < N; j++) out[j] = 0;
  for (int k = 0; k < K; k++) {
    const double a = ha[r * K + k];
    for (int j = 0; j < N; j++) out[j] += a * hb[(size_t)k * N + j];
  }
}

/* Elements of hc that differ from nd_matmul's hr, and from the host rows. */
static size_t count_wrong(const float *ha, const float *hb, const float *hc, const float *hr, size_t *host_wrong) {
  size_t wrong = 0;
  for (size_t i = 0; i < (size_t)ROWS * N; i++) wrong += !(fabsf(hc[i] - hr[i]) <= 1e-3f * (1.f + fabsf(hr[i])));
  const int64_t rows = ROWS / CHUNKS;
  const int64_t check[] = {0, rows - 2, rows - 1, rows, rows + 1, ROWS - 1};
  double want[N];
  *host_wrong = 0;
  for (size_t c = 0; c < sizeof check / sizeof check[0]; c++) {
    host_row(ha, hb, check[c], want);
    for (int j = 0; j < N; j++) {
      const double got = hc[check[c] * N + j];
      *host_wrong += !(fabs(got - want[j]) <= 1e-3 * (1.0 + fabs(want[j])));
    }
  }
  return wrong;
}

int main(int argc, char **argv) {
  int tiles[2] = {16, 32}, ntiles = 2;
  if (argc > 2 || (argc == 2 && strcmp(argv[1], "16") && strcmp(argv[1], "32"))) {
    fprintf(stderr, "usage: tiled_matmul_streams [tile]  (tile 16 or 32, default both; got %d arguments, "
            "the first '%s')\n", argc - 1, argv[1]);
    return 2;
  }
  if (argc == 2) {
    tiles[0] = atoi(argv[1]);
    ntiles = 1;
  }
  float *ha = NULL, *hc = NULL;
  CHECK(nd_host_alloc_pinned(sizeof(float) * (size_t)ROWS * K, (void **)&ha));
  CHECK(nd_host_alloc_pinned(sizeof(float) * (size_t)ROWS * N, (void **)&hc));
  float *hb = malloc(sizeof(float) * (size_t)K * N), *hr = malloc(sizeof(float) * (size_t)ROWS * N);
  if (!hb || !hr) {
    fprintf(stderr, "tiled_matmul_streams: out of host memory\n");
    return 1;
  }
  for (size_t i = 0; i < (size_t)ROWS * K; i++) ha[i] = (float)((i * 37) % 101) / 50.f - 1.f;
  for (size_t i = 0; i < (size_t)K * N; i++) hb[i] = (float)((i * 11) % 97) / 48.f - 1.f;
  int64_t bshape[2] = {K, N}, ashape[2] = {ROWS, K};
  nd_array *b = NULL, *a = NULL, *ref = NULL;
  CHECK(nd_array_from_host(hb, sizeof(float) * (size_t)K * N, 2, bshape, ND_FLOAT32, &b));
  /* the reference: nd_matmul of the whole product */
  CHECK(nd_array_from_host(ha, sizeof(float) * (size_t)ROWS * K, 2, ashape, ND_FLOAT32, &a));
  CHECK(nd_matmul(a, b, &ref));
  CHECK(nd_array_to_host(ref, hr, sizeof(float) * (size_t)ROWS * N));
  nd_stream *streams[NSTREAMS];
  for (int s = 0; s < NSTREAMS; s++) CHECK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &streams[s]));
  int failed = 0;
  for (int t = 0; t < ntiles; t++) {
    const int tile = tiles[t];
    char def[32];
    snprintf(def, sizeof def, "TILE=%d", tile);
    const char *defs[] = {def};
    nd_module_options o = ND_MODULE_OPTIONS_INIT;
    o.name = "matmul_tiled";
    o.ndefines = 1;
    o.defines = defs;
    nd_module *m = NULL;
    nd_kernel *k = NULL;
    CHECK(nd_module_create(source, &o, &m));
    CHECK(nd_module_get_kernel(m, "matmul_tiled", &k));
    double ms1 = 0, ms4 = 0;
    memset(hc, 0, sizeof(float) * (size_t)ROWS * N);
    int rc = run(k, tile, 1, streams, b, ha, hc, &ms1); /* warm-up and the one-stream time */
    if (!rc) rc = run(k, tile, 1, streams, b, ha, hc, &ms1);
    size_t host_wrong1 = 0, host_wrong4 = 0, wrong1 = rc ? 0 : count_wrong(ha, hb, hc, hr, &host_wrong1);
    memset(hc, 0, sizeof(float) * (size_t)ROWS * N);
    if (!rc) rc = run(k, tile, NSTREAMS, streams, b, ha, hc, &ms4);
    if (rc) return rc;
    const size_t wrong4 = count_wrong(ha, hb, hc, hr, &host_wrong4);
    const double flop = 2.0 * ROWS * (double)K * N;
    const int ok = wrong1 == 0 && wrong4 == 0 && host_wrong1 == 0 && host_wrong4 == 0;
    printf("tiled_matmul_streams: tile %dx%d, %d x %d x %d float32, %d chunks: 1 stream %.2f ms, %d streams "
           "%.2f ms (%.2fx), %.1f TFLOP/s with copies; differ from nd_matmul: %zu (1 stream) %zu (%d streams) "
           "of %lld, from the host on 6 rows: %zu %zu of %d: %s\n",
           tile, tile, ROWS, K, N, CHUNKS, ms1, NSTREAMS, ms4, ms1 / ms4, flop / ms4 / 1e9, wrong1, wrong4, NSTREAMS,
           (long long)ROWS * N, host_wrong1, host_wrong4, 6 * N, ok ? "ok" : "WRONG");
    failed |= !ok;
    nd_kernel_release(k);
    nd_module_release(m);
  }
  for (int s = 0; s < NSTREAMS; s++) nd_stream_destroy(streams[s]);
  nd_array_release(a);
  nd_array_release(b);
  nd_array_release(ref);
  nd_host_free_pinned(ha);
  nd_host_free_pinned(hc);
  free(hb);
  free(hr);
  return failed ? 1 : 0;
}
