/* Device properties cached for launch geometry, and the driver launch of launch.cuh. */
#include <cuda.h>

#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <mutex>

#include "kernels/launch.cuh"

static int nd_k_sms[64];
static int nd_k_ccs[64];

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

/* Attribute `attr` of the current device, cached per device in cache[64]; `fallback` when it
 * cannot be read (remembered when `keep`, else the next call asks again). */
static int nd_k_attr(int *cache, cudaDeviceAttr attr, int fallback, bool keep) {
  int d = 0;
  if (nd_k_device(&d) != 0 || d < 0 || d >= 64) {
    (void)cudaGetLastError();
    return fallback;
  }
  if (cache[d] == 0) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, attr, d) != cudaSuccess || v <= 0) {
      (void)cudaGetLastError();
      if (!keep) return fallback;
      v = fallback;
    }
    cache[d] = v;
  }
  return cache[d];
}

int nd_k_sm_count(void) { return nd_k_attr(nd_k_sms, cudaDevAttrMultiProcessorCount, 132, true); }

int nd_k_cc_major(void) { return nd_k_attr(nd_k_ccs, cudaDevAttrComputeCapabilityMajor, 0, false); }

/* ---- the driver launch ------------------------------------------------------------------- */

typedef CUresult (*nd_cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, CUstream, void **, void **);

static nd_cu_launch_fn nd_k_cu_launch;
static std::once_flag nd_k_cu_once;

static void nd_k_find_driver(void) {
  /* ND_DRIVER_LAUNCH=0 (a diagnostic, for comparisons) keeps every launch on the runtime. */
  const char *env = getenv("ND_DRIVER_LAUNCH");
  if (env != NULL && strcmp(env, "0") == 0) return;
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
      q == cudaDriverEntryPointSuccess)
    nd_k_cu_launch = (nd_cu_launch_fn)fn;
  (void)cudaGetLastError();
}

void *nd_k_kernel_handle(const void *stub) {
  std::call_once(nd_k_cu_once, nd_k_find_driver);
  cudaKernel_t k = NULL;
  if (nd_k_cu_launch == NULL || cudaGetKernel(&k, stub) != cudaSuccess) {
    (void)cudaGetLastError();
    return NULL;
  }
  return (void *)k;
}

cudaError_t nd_k_launch_argv(const void *stub, void *handle, dim3 g, dim3 b, size_t smem,
                             cudaStream_t st, void **argv) {
  if (handle != NULL) {
    /* A CUkernel passed as the CUfunction launches in the stream's context (the current one
     * for the legacy and per-thread streams). The driver's launch errors carry the runtime's
     * numbers. A thread that has made no runtime call yet has no current context: the
     * runtime launch below binds it. */
    CUresult r = nd_k_cu_launch((CUfunction)handle, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)smem,
                                (CUstream)st, argv, NULL);
    if (r != CUDA_ERROR_INVALID_CONTEXT) return (cudaError_t)r;
  }
  (void)cudaLaunchKernel(stub, g, b, argv, smem, st);
  return cudaGetLastError();
}
