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
static CUresult (*nd_k_cu_ctx_current)(CUcontext *);
static CUresult (*nd_k_cu_ctx_device)(CUdevice *);
static CUresult (*nd_k_cu_primary_state)(CUdevice, unsigned *, int *);
static CUresult (*nd_k_cu_primary_retain)(CUcontext *, CUdevice);
static CUresult (*nd_k_cu_primary_release)(CUdevice);
static CUresult (*nd_k_cu_kernel_function)(CUfunction *, CUkernel);
static CUresult (*nd_k_cu_stream_capturing)(CUstream, CUstreamCaptureStatus *);
static std::once_flag nd_k_cu_once;
/* Device d's primary context, once a launch has met it current (NULL until then). */
static std::atomic<CUcontext> nd_k_primary[ND_K_FN_DEVICES];

static void *nd_k_entry(const char *name) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    fn = NULL;
  (void)cudaGetLastError();
  return fn;
}

static void nd_k_find_driver(void) {
  nd_k_cu_stream_capturing = (CUresult(*)(CUstream, CUstreamCaptureStatus *))nd_k_entry("cuStreamIsCapturing");
  /* ND_DRIVER_LAUNCH=0 (a diagnostic, for comparisons) keeps every launch on the runtime. */
  const char *env = getenv("ND_DRIVER_LAUNCH");
  if (env != NULL && strcmp(env, "0") == 0) return;
  nd_k_cu_launch = (nd_cu_launch_fn)nd_k_entry("cuLaunchKernel");
  /* The per-context function handles need all of these; without one, every driver launch
   * takes the context-independent handle. */
  nd_k_cu_ctx_current = (CUresult(*)(CUcontext *))nd_k_entry("cuCtxGetCurrent");
  nd_k_cu_ctx_device = (CUresult(*)(CUdevice *))nd_k_entry("cuCtxGetDevice");
  nd_k_cu_primary_state = (CUresult(*)(CUdevice, unsigned *, int *))nd_k_entry("cuDevicePrimaryCtxGetState");
  nd_k_cu_primary_retain = (CUresult(*)(CUcontext *, CUdevice))nd_k_entry("cuDevicePrimaryCtxRetain");
  nd_k_cu_primary_release = (CUresult(*)(CUdevice))nd_k_entry("cuDevicePrimaryCtxRelease");
  nd_k_cu_kernel_function = (CUresult(*)(CUfunction *, CUkernel))nd_k_entry("cuKernelGetFunction");
  /* ND_KERNEL_FUNCTION=0 (a diagnostic) keeps the context-independent handles. */
  env = getenv("ND_KERNEL_FUNCTION");
  if ((env != NULL && strcmp(env, "0") == 0) || !nd_k_cu_ctx_current || !nd_k_cu_ctx_device ||
      !nd_k_cu_primary_state || !nd_k_cu_primary_retain || !nd_k_cu_primary_release || !nd_k_cu_kernel_function)
    nd_k_cu_ctx_current = NULL;
}

void nd_k_kernel_init(nd_k_kernel *k, const void *stub) {
  std::call_once(nd_k_cu_once, nd_k_find_driver);
  cudaKernel_t h = NULL;
  if (nd_k_cu_launch == NULL || cudaGetKernel(&h, stub) != cudaSuccess) {
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
  if (nd_k_cu_ctx_device(&dev) != CUDA_SUCCESS || dev < 0 || dev >= ND_K_FN_DEVICES ||
      nd_k_cu_primary_state(dev, &flags, &active) != CUDA_SUCCESS || !active ||
      nd_k_cu_primary_retain(&p, dev) != CUDA_SUCCESS) {
    other = c;
    return -1;
  }
  (void)nd_k_cu_primary_release(dev);
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
  CUcontext c = NULL;
  if (nd_k_cu_ctx_current == NULL || nd_k_cu_ctx_current(&c) != CUDA_SUCCESS || c == NULL) return NULL;
  const int d = nd_k_primary_device(c);
  if (d < 0) return NULL;
  void *f = k->fn[d].load(std::memory_order_acquire);
  if (f == NULL) {
    CUfunction x = NULL;
    if (nd_k_cu_kernel_function(&x, (CUkernel)k->kernel) != CUDA_SUCCESS || x == NULL) return NULL;
    k->fn[d].store((void *)x, std::memory_order_release);
    f = (void *)x;
  }
  return (CUfunction)f;
}

cudaError_t nd_k_launch_argv(const void *stub, nd_k_kernel *k, dim3 g, dim3 b, size_t smem,
                             cudaStream_t st, void **argv) {
  if (k != NULL && k->kernel != NULL) {
    /* The primary context's function first; should it fail (a stream of another context,
     * say), the launch is made again with the context-independent handle, and a failure of
     * that is the launch's error. */
    CUfunction f = nd_k_function(k);
    if (f != NULL) {
      CUresult r = nd_k_cu_launch(f, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)smem, (CUstream)st, argv, NULL);
      if (r == CUDA_SUCCESS) return cudaSuccess;
    }
    /* A CUkernel passed as the CUfunction launches in the stream's context (the current one
     * for the legacy and per-thread streams). The driver's launch errors carry the runtime's
     * numbers. A thread that has made no runtime call yet has no current context: the
     * runtime launch below binds it. */
    CUresult r = nd_k_cu_launch((CUfunction)k->kernel, g.x, g.y, g.z, b.x, b.y, b.z, (unsigned)smem,
                                (CUstream)st, argv, NULL);
    if (r != CUDA_ERROR_INVALID_CONTEXT) return (cudaError_t)r;
  }
  (void)cudaLaunchKernel(stub, g, b, argv, smem, st);
  return cudaGetLastError();
}

extern "C" int nd_k_stream_capturing(void *stream) {
  std::call_once(nd_k_cu_once, nd_k_find_driver);
  if (nd_k_cu_stream_capturing != NULL) {
    CUstreamCaptureStatus c = CU_STREAM_CAPTURE_STATUS_NONE;
    if (nd_k_cu_stream_capturing((CUstream)stream, &c) == CUDA_SUCCESS) return c != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing((cudaStream_t)stream, &cap) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return cap != cudaStreamCaptureStatusNone;
}

/* A driver entry point for other folders (jit/ loads and launches user kernels through the
 * driver's library API without linking libcuda): the symbol as of CUDA version cuda_version
 * (12000 for 12.0), or NULL when the driver lacks it. */
extern "C" void *nd_k_driver_entry(const char *name, int cuda_version) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, (unsigned)cuda_version, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    fn = NULL;
  (void)cudaGetLastError();
  return fn;
}
