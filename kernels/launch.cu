/* Device properties cached for launch geometry. */
#include <atomic>

#include "kernels/launch.cuh"

static int nd_k_sms[64];

/* The calling thread's device. With one visible device that is always device 0, so the count
 * is asked once and cudaGetDevice (some 50 ns, paid by every operation, often twice) is skipped.
 * A failed or empty count is not remembered: every call then asks the runtime, which reports
 * the error. */
static std::atomic<int> nd_k_ndev{-1};

extern "C" int nd_k_device(int *device) {
  int n = nd_k_ndev.load(std::memory_order_relaxed);
  if (n < 0) {
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
      (void)cudaGetLastError();
      n = -1;
    } else {
      nd_k_ndev.store(n, std::memory_order_relaxed);
    }
  }
  if (n == 1) {
    *device = 0;
    return 0;
  }
  return (int)cudaGetDevice(device);
}

int nd_k_sm_count(void) {
  int d = 0;
  if (nd_k_device(&d) != 0 || d < 0 || d >= 64) {
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
