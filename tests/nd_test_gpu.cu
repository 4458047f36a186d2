/* Device helpers for the GPU suites: a spin kernel that holds a stream busy, so that a
 * missing cross-stream wait shows up as a wrong result instead of hiding behind timing. */
#include <cuda_runtime.h>

__global__ void nd_test_spin_kernel(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

extern "C" int nd_test_spin(void *stream, double microseconds) {
  int dev = 0, khz = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
  if (khz <= 0) khz = 1800000;
  long long cycles = (long long)(microseconds * 1e-3 * khz);
  nd_test_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(cycles);
  return (int)cudaGetLastError();
}
