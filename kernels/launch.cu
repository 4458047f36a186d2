/* The driver launch of launch.cuh. The driver's entry points and the device properties come
 * from the device module (src/device.h). */
#include <cuda.h>

#include <atomic>

#include "kernels/launch.cuh"

thread_local cudaError_t nd_k_failed = cudaSuccess;

/* Device d's primary context, once a launch has met it current (NULL until then). */
static std::atomic<CUcontext> nd_k_primary[ND_K_FN_DEVICES];

void nd_k_kernel_init(nd_k_kernel *k, const void *stub) {
  cudaKernel_t h = NULL;
  if (nd__driver()->launch_kernel == NULL || cudaGetKernel(&h, stub) != cudaSuccess) {
    (void)cudaGetLastError();
    h = NULL;
  }
  k->kernel = (void *)h;
}

/* The device whose primary context c is, learnt the first time c is current at a launch; -1
 * for another context (one the application made itself) or a device beyond the table. The
 * primary context is only looked at while active (the runtime holds it), so the retain and
 * release around the look neither create nor destroy it. */
static int nd_k_primary_device(CUcontext c) {
  /* the last other context this thread met, so that its launches skip the look */
  static thread_local CUcontext other = NULL;
  for (int d = 0; d < ND_K_FN_DEVICES; d++)
    if (nd_k_primary[d].load(std::memory_order_acquire) == c) return d;
  if (c == other) return -1;
  CUdevice dev = -1;
  unsigned flags = 0;
  int active = 0;
  CUcontext p = NULL;
  const nd__driver_api *drv = nd__driver();
  if (drv->ctx_get_device(&dev) != CUDA_SUCCESS || dev < 0 || dev >= ND_K_FN_DEVICES ||
      drv->primary_ctx_get_state(dev, &flags, &active) != CUDA_SUCCESS || !active ||
      drv->primary_ctx_retain(&p, dev) != CUDA_SUCCESS) {
    other = c;
    return -1;
  }
  (void)drv->primary_ctx_release(dev);
  if (p != c) {
    other = c;
    return -1;
  }
  nd_k_primary[dev].store(p, std::memory_order_release);
  return (int)dev;
}

/* Kernel k's function handle in the calling thread's context when that is a primary context
 * (fetched once per kernel and device; every thread that fetches it stores the same handle),
 * else NULL. */
static CUfunction nd_k_function(nd_k_kernel *k) {
  /* The per-context function handles need all of these; without one, every driver launch
   * takes the context-independent handle. */
  const nd__driver_api *drv = nd__driver();
  static const bool usable = drv->ctx_get_current && drv->ctx_get_device && drv->primary_ctx_get_state &&
                             drv->primary_ctx_retain && drv->primary_ctx_release && drv->kernel_get_function;
  if (!usable) return NULL;
  CUcontext c = NULL;
  if (drv->ctx_get_current(&c) != CUDA_SUCCESS || c == NULL) return NULL;
  const int d = nd_k_primary_device(c);
  if (d < 0) return NULL;
  void *f = k->fn[d].load(std::memory_order_acquire);
  if (f == NULL) {
    CUfunction x = NULL;
    if (drv->kernel_get_function(&x, (CUkernel)k->kernel) != CUDA_SUCCESS || x == NULL) return NULL;
    k->fn[d].store((void *)x, std::memory_order_release);
    f = (void *)x;
  }
  return (CUfunction)f;
}

/* ND__LAUNCH_*: how launches go; only tests change it, to reach the fallbacks. */
static int nd_k_launch_mode = ND__LAUNCH_DRIVER;

extern "C" int nd__launch_set_mode(int mode) {
  return __atomic_exchange_n(&nd_k_launch_mode, mode, __ATOMIC_RELAXED);
}

cudaError_t nd_k_launch_argv(const void *stub, nd_k_kernel *k, dim3 g, dim3 b, size_t smem,
                             cudaStream_t st, void **argv) {
  const int mode = __atomic_load_n(&nd_k_launch_mode, __ATOMIC_RELAXED);
  if (k != NULL && k->kernel != NULL && mode != ND__LAUNCH_RUNTIME) {
    /* The primary context's function first; should it fail (a stream of another context,
     * say), the launch is made again with the context-independent handle, and a failure of
     * that is the launch's error. */
    CUfunction f = mode == ND__LAUNCH_DRIVER ? nd_k_function(k) : NULL;
    if (f != NULL) {
      CUresult r = nd__driver()->launch_kernel(f, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)smem, (CUstream)st, argv, NULL);
      if (r == CUDA_SUCCESS) return cudaSuccess;
    }
    /* A CUkernel passed as the CUfunction launches in the stream's context (the current one
     * for the legacy and per-thread streams). The driver's launch errors carry the runtime's
     * numbers. A thread that has made no runtime call yet has no current context: the
     * runtime launch below binds it. */
    CUresult r = nd__driver()->launch_kernel((CUfunction)k->kernel, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)smem,
                                (CUstream)st, argv, NULL);
    if (r != CUDA_ERROR_INVALID_CONTEXT) return (cudaError_t)r;
  }
  (void)cudaLaunchKernel(stub, g, b, argv, smem, st);
  return cudaGetLastError();
}
