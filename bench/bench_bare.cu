/* Bare-launch baseline for the tracking-overhead case: the cheapest kernel that does what
 * nd_array_fill does on a tiny float32 array, launched straight on a CUDA stream with no
 * argument checks, dispatch or hazard tracking. Launch geometry: one block of up to 256
 * threads, grid-stride over n (n is 1 in the benchmark). */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "bench.h"

static __global__ void bench_bare_fill_kernel(float *p, int64_t n, float value) {
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) p[i] = value;
}

extern "C" cudaError_t bench_bare_fill_f32(float *p, int64_t n, float value, cudaStream_t stream) {
  unsigned threads = n < 256 ? (unsigned)(n > 0 ? n : 1) : 256u;
  bench_bare_fill_kernel<<<1, threads, 0, stream>>>(p, n, value);
  return cudaGetLastError();
}

/* The same kernel launched the cheapest way CUDA offers: the driver's cuLaunchKernel with the
 * kernel's handle taken once (what the library does for its elementwise, fill and copy
 * kernels). Returns cudaErrorNotSupported where the driver entry point is not available. */
typedef CUresult (*bench_cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                       unsigned, unsigned, CUstream, void **, void **);

/* The driver's entry point `name` (CUDA 12.0's version of it), or cudaErrorNotSupported. */
static cudaError_t bench_driver_entry(const char *name, void **fn) {
  enum cudaDriverEntryPointQueryResult q;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) return e != cudaSuccess ? e : cudaErrorNotSupported;
  return cudaSuccess;
}

extern "C" cudaError_t bench_bare_fill_f32_driver(float *p, int64_t n, float value, cudaStream_t stream) {
  static bench_cu_launch_fn launch = NULL;
  static cudaKernel_t kernel = NULL;
  if (launch == NULL) {
    void *fn = NULL;
    cudaError_t e = bench_driver_entry("cuLaunchKernel", &fn);
    if (e != cudaSuccess) return e;
    if ((e = cudaGetKernel(&kernel, (const void *)bench_bare_fill_kernel)) != cudaSuccess) return e;
    launch = (bench_cu_launch_fn)fn;
  }
  unsigned threads = n < 256 ? (unsigned)(n > 0 ? n : 1) : 256u;
  void *args[] = {&p, &n, &value};
  return (cudaError_t)launch((CUfunction)kernel, 1, 1, 1, threads, 1, 1, 0, (CUstream)stream, args, NULL);
}

/* A bare cuMemsetD32Async of n 32-bit words (the driver call nd_array_fill makes for a
 * four-byte value), entry point found once. Returns cudaErrorNotSupported without it. */
typedef CUresult (*bench_cu_memset32_fn)(CUdeviceptr, unsigned, size_t, CUstream);

extern "C" cudaError_t bench_bare_memset_d32(void *p, size_t n, unsigned value, cudaStream_t stream) {
  static bench_cu_memset32_fn memset32 = NULL;
  if (memset32 == NULL) {
    void *fn = NULL;
    cudaError_t e = bench_driver_entry("cuMemsetD32Async", &fn);
    if (e != cudaSuccess) return e;
    memset32 = (bench_cu_memset32_fn)fn;
  }
  return (cudaError_t)memset32((CUdeviceptr)p, value, n, (CUstream)stream);
}
