// Probe for sort/sort_block.cu's tile ladders: one block sorting a whole row with
// cub::BlockRadixSort (threads x items-per-thread x radix bits, temporary storage in dynamic
// shared memory) against cub::DeviceRadixSort on the same keys, 1024..16384 keys of float32,
// float64, int32, uint8 and int16 (SortKeys), and uint32 / uint64 keys with int64 values
// (SortPairs). Each line: the median of 7 rounds of 200 back-to-back launches, us per sort, and
// whether the result equals the host's stable sort. On a GPU:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/sort_probe tools/sort_probe.cu && /tmp/sort_probe
// Figures of the H100 and the H200: bench/RESULTS.md, "One-block sorts".
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <random>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)

template <class K> struct padbits;
template <> struct padbits<float> { static __device__ float v() { return __int_as_float(0x7fffffff); } };
template <> struct padbits<double> { static __device__ double v() { return __longlong_as_double(0x7fffffffffffffffLL); } };
template <> struct padbits<int> { static __device__ int v() { return 0x7fffffff; } };
template <> struct padbits<unsigned char> { static __device__ unsigned char v() { return 0xff; } };
template <> struct padbits<short> { static __device__ short v() { return 0x7fff; } };

template <class K, int T, int I, int B>
__global__ __launch_bounds__(T, 1) void k_bsort(const K *in, K *out, int n) {
  using BRS = cub::BlockRadixSort<K, T, I, cub::NullType, B>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &ts = *reinterpret_cast<typename BRS::TempStorage *>(smem);
  K keys[I];
  const int base = threadIdx.x * I;
#pragma unroll
  for (int i = 0; i < I; i++) keys[i] = base + i < n ? in[base + i] : padbits<K>::v();
  BRS(ts).SortBlockedToStriped(keys);
#pragma unroll
  for (int i = 0; i < I; i++) {
    const int j = i * T + threadIdx.x;
    if (j < n) out[j] = keys[i];
  }
}

template <class K> void fillrand(std::vector<K> &h, int n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(sizeof(K) == 1 ? 0 : -1e3, sizeof(K) == 1 ? 255 : 1e3);
  h.resize(n);
  for (int i = 0; i < n; i++) h[i] = (K)u(g);
  if (n > 10) { h[3] = (K)-0.0; h[5] = (K)0.0; h[7] = (K)-0.0; }
}

static float time_loop(cudaStream_t s, int reps, void (*fn)(void *), void *ctx) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 10; i++) fn(ctx);
  std::vector<float> t;
  for (int r = 0; r < 7; r++) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < reps; i++) fn(ctx);
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.f / reps);
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

template <class K> struct Ctx { const K *in; K *out; int n; void *temp; size_t bytes; cudaStream_t s; size_t smem; };

template <class K> void run_cub(void *p) {
  auto *c = (Ctx<K> *)p;
  cub::DeviceRadixSort::SortKeys(c->temp, c->bytes, c->in, c->out, c->n, 0, (int)sizeof(K) * 8, c->s);
}
template <class K, int T, int I, int B> void run_blk(void *p) {
  auto *c = (Ctx<K> *)p;
  k_bsort<K, T, I, B><<<1, T, c->smem, c->s>>>(c->in, c->out, c->n);
}

template <class K, int T, int I, int B>
void try_cfg(const char *tn, int n, const K *din, K *dout, const std::vector<K> &ref, cudaStream_t s) {
  if (n > T * I) return;
  using BRS = cub::BlockRadixSort<K, T, I, cub::NullType, B>;
  size_t smem = sizeof(typename BRS::TempStorage);
  if (smem > 227 * 1024) { printf("%s n=%d T=%d I=%d B=%d smem %zu too big\n", tn, n, T, I, B, smem); return; }
  CK(cudaFuncSetAttribute(k_bsort<K, T, I, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k_bsort<K, T, I, B>));
  Ctx<K> c{din, dout, n, nullptr, 0, s, smem};
  CK(cudaMemsetAsync(dout, 0, n * sizeof(K), s));
  run_blk<K, T, I, B>(&c);
  CK(cudaGetLastError());
  std::vector<K> h(n);
  CK(cudaMemcpyAsync(h.data(), dout, n * sizeof(K), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  bool ok = memcmp(h.data(), ref.data(), n * sizeof(K)) == 0;
  float us = time_loop(s, 200, run_blk<K, T, I, B>, &c);
  printf("%-6s n=%6d blk T=%4d I=%2d B=%d smem=%6zu regs=%3d spill=%zu  %8.2f us %s\n", tn, n, T, I, B, smem,
         fa.numRegs, (size_t)fa.localSizeBytes, us, ok ? "ok" : "WRONG");
}

template <class K> void probe(const char *tn) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int n : {1024, 2048, 4096, 4864, 6000, 8192, 12000, 16384}) {
    std::vector<K> h;
    fillrand(h, n, 1234 + n);
    K *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(K))); CK(cudaMalloc(&dout, n * sizeof(K)));
    CK(cudaMemcpy(din, h.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    // reference: CUB's own sort (stable, -0/+0 equal)
    Ctx<K> c{din, dout, n, nullptr, 0, s, 0};
    run_cub<K>(&c);
    CK(cudaMalloc(&c.temp, c.bytes));
    run_cub<K>(&c);
    CK(cudaStreamSynchronize(s));
    std::vector<K> ref(n);
    CK(cudaMemcpy(ref.data(), dout, n * sizeof(K), cudaMemcpyDeviceToHost));
    std::vector<K> hs = h;
    std::stable_sort(hs.begin(), hs.end());
    bool cubok = memcmp(hs.data(), ref.data(), n * sizeof(K)) == 0;
    if (!cubok) printf("CUB differs from the host's stable sort\n");
    ref = hs;
    float us = time_loop(s, 200, run_cub<K>, &c);
    printf("%-6s n=%6d cub DeviceRadixSort                           %8.2f us %s\n", tn, n, us, cubok ? "ok" : "differs-from-host");
    try_cfg<K, 128, 16, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 8, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 16, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 16, 6>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 19, 6>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 32, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 256, 32, 6>(tn, n, din, dout, ref, s);
    try_cfg<K, 512, 16, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 512, 16, 6>(tn, n, din, dout, ref, s);
    try_cfg<K, 512, 32, 4>(tn, n, din, dout, ref, s);
    try_cfg<K, 512, 32, 5>(tn, n, din, dout, ref, s);
    try_cfg<K, 512, 24, 4>(tn, n, din, dout, ref, s);
    CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(c.temp));
  }
}


template <class K, int T, int I, int B>
__global__ __launch_bounds__(T, 1) void k_bsort_pairs(const K *in, K *out, long long *vout, int n) {
  using BRS = cub::BlockRadixSort<K, T, I, long long, B>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &ts = *reinterpret_cast<typename BRS::TempStorage *>(smem);
  K keys[I];
  long long v[I];
  const int base = threadIdx.x * I;
#pragma unroll
  for (int i = 0; i < I; i++) { keys[i] = base + i < n ? in[base + i] : K(~K(0)); v[i] = base + i; }
  BRS(ts).SortBlockedToStriped(keys, v);
#pragma unroll
  for (int i = 0; i < I; i++) {
    const int j = i * T + threadIdx.x;
    if (j < n) { out[j] = keys[i]; vout[j] = v[i]; }
  }
}
template <class K> struct PCtx { const K *in; K *out; const long long *vin; long long *vout; int n; void *temp; size_t bytes; cudaStream_t s; size_t smem; };
template <class K> void prun_cub(void *p) {
  auto *c = (PCtx<K> *)p;
  cub::DeviceRadixSort::SortPairs(c->temp, c->bytes, c->in, c->out, c->vin, c->vout, c->n, 0, (int)sizeof(K) * 8, c->s);
}
template <class K, int T, int I, int B> void prun_blk(void *p) {
  auto *c = (PCtx<K> *)p;
  k_bsort_pairs<K, T, I, B><<<1, T, c->smem, c->s>>>(c->in, c->out, c->vout, c->n);
}
template <class K, int T, int I, int B>
void ptry(const char *tn, int n, PCtx<K> c, const std::vector<long long> &ref, cudaStream_t s) {
  if (n > T * I) return;
  using BRS = cub::BlockRadixSort<K, T, I, long long, B>;
  size_t smem = sizeof(typename BRS::TempStorage);
  if (smem > 227 * 1024) { printf("%s n=%d T=%d I=%d B=%d smem %zu too big\n", tn, n, T, I, B, smem); return; }
  CK(cudaFuncSetAttribute(k_bsort_pairs<K, T, I, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k_bsort_pairs<K, T, I, B>));
  c.smem = smem;
  CK(cudaMemsetAsync(c.vout, 0, n * 8, s));
  prun_blk<K, T, I, B>(&c);
  CK(cudaGetLastError());
  std::vector<long long> h(n);
  CK(cudaMemcpyAsync(h.data(), c.vout, n * 8, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  bool ok = h == ref;
  float us = time_loop(s, 200, prun_blk<K, T, I, B>, &c);
  printf("%-6s n=%6d blk T=%4d I=%2d B=%d smem=%6zu regs=%3d spill=%zu  %8.2f us %s\n", tn, n, T, I, B, smem,
         fa.numRegs, (size_t)fa.localSizeBytes, us, ok ? "ok" : "WRONG");
}
template <class K> void pprobe(const char *tn) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int n : {1024, 4096, 6000, 8192, 12000, 16384}) {
    std::mt19937_64 g(n);
    std::vector<K> h(n);
    for (auto &x : h) x = (K)(g() % 1000);
    std::vector<long long> iota(n);
    for (int i = 0; i < n; i++) iota[i] = i;
    std::vector<long long> ref = iota;
    std::stable_sort(ref.begin(), ref.end(), [&](long long a, long long b) { return h[a] < h[b]; });
    PCtx<K> c{};
    c.n = n; c.s = s;
    K *din, *dout; long long *vin, *vout;
    CK(cudaMalloc(&din, n * sizeof(K))); CK(cudaMalloc(&dout, n * sizeof(K)));
    CK(cudaMalloc(&vin, n * 8)); CK(cudaMalloc(&vout, n * 8));
    CK(cudaMemcpy(din, h.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(vin, iota.data(), n * 8, cudaMemcpyHostToDevice));
    c.in = din; c.out = dout; c.vin = vin; c.vout = vout;
    prun_cub<K>(&c);
    CK(cudaMalloc(&c.temp, c.bytes));
    prun_cub<K>(&c);
    std::vector<long long> hv(n);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(hv.data(), vout, n * 8, cudaMemcpyDeviceToHost));
    float us = time_loop(s, 200, prun_cub<K>, &c);
    printf("%-6s n=%6d cub SortPairs                                 %8.2f us %s\n", tn, n, us, hv == ref ? "ok" : "WRONG");
    ptry<K, 256, 16, 4>(tn, n, c, ref, s);
    ptry<K, 256, 19, 6>(tn, n, c, ref, s);
    ptry<K, 256, 32, 4>(tn, n, c, ref, s);
    ptry<K, 512, 16, 4>(tn, n, c, ref, s);
    ptry<K, 512, 16, 6>(tn, n, c, ref, s);
    ptry<K, 512, 32, 4>(tn, n, c, ref, s);
    CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(vin)); CK(cudaFree(vout)); CK(cudaFree(c.temp));
  }
}
int main() {
  probe<float>("f32");
  probe<double>("f64");
  probe<int>("i32");
  probe<unsigned char>("u8");
  probe<short>("i16");
  pprobe<unsigned>("p-u32");
  pprobe<unsigned long long>("p-u64");
  return 0;
}
