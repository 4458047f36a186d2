/* Device properties cached for launch geometry. */
#include "kernels/launch.cuh"

static int nd_k_sms[64];

int nd_k_sm_count(void) {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= 64) {
    (void)cudaGetLastError();
    return 132;
  }
  if (nd_k_sms[d] == 0) {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d) != cudaSuccess || n <= 0) {
      (void)cudaGetLastError();
      n = 132;
    }
    nd_k_sms[d] = n;
  }
  return nd_k_sms[d];
}
