/* Bare-launch baseline for the tracking-overhead case: the cheapest kernel that does what
 * nd_array_fill does on a tiny float32 array, launched straight on a CUDA stream with no
 * argument checks, dispatch or hazard tracking. Launch geometry: one block of up to 256
 * threads, grid-stride over n (n is 1 in the benchmark). */
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
