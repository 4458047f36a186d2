/* The elementwise entry point: the (op, key) dispatch table, path selection and the launch
 * geometry shared by every instance (the kernels themselves are in elementwise.cuh; the
 * instances in the op-family files elementwise_arith.cu, _math.cu, _cmath.cu, _compare.cu
 * and _misc.cu, which compile in parallel). */
#include <mutex>

#include "elementwise/elementwise.cuh"

namespace ndk {

namespace {

table_t g_table;
std::once_flag g_once;

const table_t &table() {
  std::call_once(g_once, [] {
    memset(&g_table, 0, sizeof g_table);
    fill_arith(g_table);
    fill_math(g_table);
    fill_cmath(g_table);
    fill_compare(g_table);
    fill_misc(g_table);
  });
  return g_table;
}

bool aligned(const void *p, int64_t bytes) { return ((uintptr_t)p % (uint64_t)bytes) == 0; }

int access_bytes(int size, int v) {
  const int b = size * v;
  return b < 16 ? b : 16;
}

}  // namespace

int choose_path(const nd_kufunc *c, const sizes &z, unsigned *tmask) {
  const nd_kloop &L = c->loop;
  const int nd = L.ndim;
  *tmask = 0;
  if (nd <= 2) {
    const int64_t rows = nd == 2 ? L.shape[0] : 1, cols = nd >= 1 ? L.shape[nd - 1] : 1;
    /* Rows shorter than one block of vectors leave most of each work unit idle on the vec
     * path; the strided path spreads every element over the grid instead. */
    bool ok = rows == 1 || cols / z.v >= ND_K_THREADS;
    const int ob = access_bytes(z.r, z.v);
    if (nd >= 1 && c->out.strides[nd - 1] != z.r) ok = false;
    if (!aligned(c->out.data, ob) || (rows > 1 && c->out.strides[0] % ob != 0)) ok = false;
    for (int i = 0; ok && i < z.nin; i++) {
      if ((c->scalar_mask >> i) & 1) continue;
      const int64_t inner = nd >= 1 ? c->in[i].strides[nd - 1] : 0;
      if (inner == 0) continue; /* one value per row */
      const int ib = access_bytes(z.a[i], z.v);
      if (inner != z.a[i] || !aligned(c->in[i].data, ib) ||
          (rows > 1 && c->in[i].strides[0] % ib != 0))
        ok = false;
    }
    if (ok) return PATH_VEC;
  }
  if (nd == 2 && z.tile && c->out.strides[1] == z.r && L.shape[0] >= 16 &&
      L.shape[1] >= 16) {
    for (int i = 0; i < 2; i++) {
      if ((c->scalar_mask >> i) & 1) continue;
      const int64_t rs = c->in[i].strides[0], cs = c->in[i].strides[1];
      if ((rs == z.a[i] || rs == -z.a[i]) && cs != z.a[i] && cs != 0) *tmask |= 1u << i;
    }
    if (*tmask) return PATH_TILED;
  }
  return PATH_STRIDED;
}

unsigned vec_grid(const nd_kufunc *c, const sizes &z) {
  const nd_kloop &L = c->loop;
  const int nd = L.ndim;
  const int64_t rows = nd == 2 ? L.shape[0] : 1, cols = nd >= 1 ? L.shape[nd - 1] : 1;
  const int64_t units = rows * vec_units_per_row(cols, z.v, (int64_t)ND_K_THREADS * z.unroll);
  /* the rows' last cols % V elements, one thread each, after the units */
  const int64_t tail_blocks = (rows * (cols % z.v) + ND_K_THREADS - 1) / ND_K_THREADS;
  const int64_t want = units > tail_blocks ? units : tail_blocks;
  /* One block per unit, as many as the work needs (up to the grid limit, past which blocks
   * take several units): the hardware scheduler hands each unit to whichever resident slot
   * frees first. With a grid of resident blocks striding over the whole array, every block
   * drains at once at the end and the blocks' streams drift apart in DRAM; the fewer units a
   * block takes, the less of that (bench/RESULTS.md, issue 26, has the measurements). */
  return nd_k_grid_x(want);
}

unsigned strided_grid(const nd_kufunc *c, const sizes &z) {
  int64_t want = (c->loop.count + ND_K_THREADS - 1) / ND_K_THREADS;
  const int64_t cap = (int64_t)nd_k_sm_count() * z.occupancy;
  if (want > cap) want = cap;
  return want < 1 ? 1u : (unsigned)want;
}

int occupancy_of(const void *kernel) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, ND_K_THREADS, 0) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    n = 1;
  }
  return n;
}

/* Any element false -> *flag = 0. Each block reduces with a vote before touching memory. */
__global__ void k_all_true(const unsigned char *d, int64_t n, int *flag) {
  bool all = true;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    all = all && d[i] != 0;
  if (!__all_sync(0xffffffffu, all) && (threadIdx.x & 31) == 0) *flag = 0;
}

}  // namespace ndk

extern "C" int nd_k_ufunc_supported(int op, int key) {
  if (op < 0 || op >= ND_KOP_COUNT_ || key < 0 || key >= ND_KEY_COUNT_) return 0;
  return ndk::table()[op][key].fn != nullptr;
}

extern "C" int nd_k_ufunc_out_dtype(int op, int key) {
  if (!nd_k_ufunc_supported(op, key)) return -1;
  return ndk::table()[op][key].out;
}

extern "C" nd_status nd_k_ufunc(const nd_kufunc *c, void *stream) {
  if (c->loop.count == 0) return ND_OK;
  if (!nd_k_ufunc_supported(c->op, c->key))
    return nd__error(ND_ERR_INTERNAL, "nd_k_ufunc: no kernel instance for op %d, dtype key %d",
                     c->op, c->key);
  return ndk::table()[c->op][c->key].fn(c, (cudaStream_t)stream);
}

extern "C" nd_status nd_k_all_true(const char *data, int64_t n, int *flag, void *stream) {
  if (n == 0) return ND_OK;
  return ND_CUDA(nd_k_go<ndk::k_all_true>(dim3(nd_k_blocks(n, ND_K_THREADS)), dim3(ND_K_THREADS), 0,
                                          (cudaStream_t)stream, (const unsigned char *)data, n, flag));
}
