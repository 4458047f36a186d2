// Probe for the one-row sort paths (sort/sort_grid.cu and the one-block sort before it) on the
// device at hand, through the public API only: nd_sort and nd_argsort of one row against
// cub::DeviceRadixSort (SortKeys; SortPairs with uint32 positions) on the same keys, for
// float32, float64, int16, float16 and uint8 rows on each side of the library's bounds (the
// one-block sort up to 8192 keys, 12288 for values of 4 bytes, 3071 for argsort of 1-byte keys;
// the cooperative grid from there to 2^19 keys; CUB's device sort past it). Each line: us per
// call (median of 7 rounds of 20 calls between events on a non-blocking stream), and whether
// ndcuda's result equals CUB's (values bit for bit; positions, both sorts being stable).
// Arguments (optional): a comma list of the dtypes, then the lengths. On a GPU, after a build
// in build-gpu (tools/gpu-run --build-only):
//   nvcc -O3 -arch=sm_90 -std=c++17 -I include -I . -o /tmp/grid_probe tools/grid_probe.cu \
//     -L build-gpu -lndcuda -Xlinker -rpath=$PWD/build-gpu && /tmp/grid_probe
// Figures: bench/RESULTS.md, "the grid sort's lower bounds".
#include <cub/device/device_radix_sort.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "ndcuda/array.h"
#include "ndcuda/sort.h"
#include "ndcuda/status.h"
#include "ndcuda/stream.h"

#define CK(x)                                                           \
  do {                                                                  \
    cudaError_t e_ = (x);                                               \
    if (e_ != cudaSuccess) {                                            \
      printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__);      \
      exit(1);                                                          \
    }                                                                   \
  } while (0)
#define NK(x)                                                           \
  do {                                                                  \
    nd_status s_ = (x);                                                 \
    if (s_ != ND_OK) {                                                  \
      printf("ndcuda %d at %d: %s\n", (int)s_, __LINE__, nd_last_error()); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

static cudaStream_t cs;
static cudaEvent_t ev0, ev1;

template <class F>
static double time_us(F &&f) {
  for (int i = 0; i < 3; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 7; r++) {
    CK(cudaEventRecord(ev0, cs));
    for (int i = 0; i < 20; i++) f();
    CK(cudaEventRecord(ev1, cs));
    CK(cudaEventSynchronize(ev1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    t.push_back(ms * 1000.0f / 20);
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

template <class K>
static void fill(std::vector<K> &h, int64_t n, unsigned seed) {
  std::mt19937 g(seed);
  h.resize(n);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (int64_t i = 0; i < n; i++) {
    if constexpr (std::is_same<K, float>::value || std::is_same<K, double>::value) h[i] = (K)u(g);
    else if constexpr (std::is_same<K, __half>::value) h[i] = __float2half((float)u(g));
    else h[i] = (K)(g() & 0xffffffffu);
  }
  if constexpr (std::is_same<K, float>::value || std::is_same<K, double>::value)
    if (n > 10) { h[3] = (K)-0.0; h[5] = (K)0.0; h[7] = (K)-0.0; }
}

template <class K>
static void probe(const char *name, nd_dtype dt, const std::vector<int64_t> &lens) {
  for (int64_t n : lens) {
    std::vector<K> h;
    fill(h, n, (unsigned)n * 7u + 1u);
    nd_array *a = nullptr;
    NK(nd_array_from_host(h.data(), h.size() * sizeof(K), 1, &n, dt, &a));
    K *kin = (K *)nd_array_data(a), *kout;
    uint32_t *vin, *vout;
    CK(cudaMalloc(&kout, n * sizeof(K)));
    CK(cudaMalloc(&vin, n * 4));
    CK(cudaMalloc(&vout, n * 4));
    std::vector<uint32_t> iota(n);
    for (int64_t i = 0; i < n; i++) iota[i] = (uint32_t)i;
    CK(cudaMemcpy(vin, iota.data(), n * 4, cudaMemcpyHostToDevice));
    size_t tb1 = 0, tb2 = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, tb1, kin, kout, (int)n, 0, 8 * (int)sizeof(K), cs));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, tb2, kin, kout, vin, vout, (int)n, 0, 8 * (int)sizeof(K), cs));
    void *tmp;
    const size_t tb = std::max(tb1, tb2);
    CK(cudaMalloc(&tmp, tb));

    /* correctness: ndcuda against CUB */
    size_t t1 = tb;
    CK(cub::DeviceRadixSort::SortPairs(tmp, t1, kin, kout, vin, vout, (int)n, 0, 8 * (int)sizeof(K), cs));
    std::vector<K> ck(n), nk(n);
    std::vector<uint32_t> cv(n);
    std::vector<int64_t> nv(n);
    CK(cudaMemcpyAsync(ck.data(), kout, n * sizeof(K), cudaMemcpyDeviceToHost, cs));
    CK(cudaMemcpyAsync(cv.data(), vout, n * 4, cudaMemcpyDeviceToHost, cs));
    CK(cudaStreamSynchronize(cs));
    nd_array *r = nullptr;
    NK(nd_sort(a, 0, &r));
    NK(nd_array_to_host(r, nk.data(), n * sizeof(K)));
    nd_array_release(r);
    NK(nd_argsort(a, 0, &r));
    NK(nd_array_to_host(r, nv.data(), n * 8));
    nd_array_release(r);
    const bool keys_ok = memcmp(ck.data(), nk.data(), n * sizeof(K)) == 0;
    bool pos_ok = true;
    for (int64_t i = 0; i < n; i++) pos_ok = pos_ok && nv[i] == (int64_t)cv[i];

    const double nd_s = time_us([&] { nd_array *o; NK(nd_sort(a, 0, &o)); nd_array_release(o); });
    const double nd_a = time_us([&] { nd_array *o; NK(nd_argsort(a, 0, &o)); nd_array_release(o); });
    const double cub_s = time_us([&] {
      size_t t = tb;
      CK(cub::DeviceRadixSort::SortKeys(tmp, t, kin, kout, (int)n, 0, 8 * (int)sizeof(K), cs));
    });
    const double cub_a = time_us([&] {
      size_t t = tb;
      CK(cub::DeviceRadixSort::SortPairs(tmp, t, kin, kout, vin, vout, (int)n, 0, 8 * (int)sizeof(K), cs));
    });
    printf("%-8s %8lld  sort nd %7.1f cub %7.1f (%.2fx) %s   argsort nd %7.1f cub %7.1f (%.2fx) %s\n", name,
           (long long)n, nd_s, cub_s, cub_s / nd_s, keys_ok ? "same" : "DIFF", nd_a, cub_a, cub_a / nd_a,
           pos_ok ? "same" : "DIFF");
    fflush(stdout);
    CK(cudaFree(tmp));
    CK(cudaFree(kout));
    CK(cudaFree(vin));
    CK(cudaFree(vout));
    nd_array_release(a);
  }
}

static bool wanted(const char *list, const char *name) {
  if (list == nullptr) return true;
  const size_t k = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != nullptr; p += k)
    if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == 0)) return true;
  return false;
}

/* grid_probe [DTYPES [N...]]: DTYPES a comma list (float32,float64,float16,int16,uint8; default
 * all), N the lengths (default: each side of each bound of the dtype's width). */
int main(int argc, char **argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  nd_stream *s = nullptr;
  NK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s));
  NK(nd_stream_push(s));
  cs = (cudaStream_t)nd_stream_cuda(s);
  CK(cudaEventCreate(&ev0));
  CK(cudaEventCreate(&ev1));
  const char *dts = argc > 1 ? argv[1] : nullptr;
  std::vector<int64_t> given;
  for (int i = 2; i < argc; i++) given.push_back(atoll(argv[i]));
  std::vector<int64_t> w4 = {8192, 8193, 12288, 12289, 16384, 16385, 65536, 262144, 524288, 524289, 1048576};
  std::vector<int64_t> w8 = {8192, 8193, 12288, 16384, 16385, 65536, 262144, 524288, 524289, 1048576};
  std::vector<int64_t> w12 = {8192, 8193, 12288, 16384, 16385, 32768, 65536, 262144, 524288, 524289};
  std::vector<int64_t> w1 = {3071, 3072, 8192, 8193, 12288, 16384, 16385, 32768, 65536, 262144, 524288, 524289};
  if (!given.empty()) w4 = w8 = w12 = w1 = given;
  if (wanted(dts, "float32")) probe<float>("float32", ND_FLOAT32, w4);
  if (wanted(dts, "float64")) probe<double>("float64", ND_FLOAT64, w8);
  if (wanted(dts, "float16")) probe<__half>("float16", ND_FLOAT16, w12);
  if (wanted(dts, "int16")) probe<int16_t>("int16", ND_INT16, w12);
  if (wanted(dts, "uint8")) probe<uint8_t>("uint8", ND_UINT8, w1);
  NK(nd_stream_pop());
  NK(nd_stream_destroy(s));
  return 0;
}
