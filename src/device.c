/* Devices, their cached properties, the driver's entry points and the capture query
 * (device.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "src/device.h"
#include "ndcuda/device.h"

/* ---- the current device ------------------------------------------------------------------ */

/* Devices visible to the process; -1 until a count succeeded. A failed or empty count is not
 * remembered: every call then asks the runtime, which reports the error. */
static atomic_int nd__ndev = -1;

int nd__device_id(int *device) {
  int n = atomic_load_explicit(&nd__ndev, memory_order_relaxed);
  if (n < 0) {
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
      (void)cudaGetLastError();
      n = -1;
    } else {
      atomic_store_explicit(&nd__ndev, n, memory_order_relaxed);
    }
  }
  if (n == 1) {
    *device = 0;
    return 0;
  }
  return (int)cudaGetDevice(device);
}

nd_status nd__device_current(const char *fn, int *device) {
  int d = -1;
  cudaError_t e = (cudaError_t)nd__device_id(&d);
  if (e != cudaSuccess || d < 0) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_NO_DEVICE, "%s: no CUDA device is available (%s)", fn,
                     cudaGetErrorString(e));
  }
  if (d >= ND__MAX_DEVICES)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: device %d is beyond the %d devices ndcuda "
                     "supports", fn, d, ND__MAX_DEVICES);
  *device = d;
  return ND_OK;
}

int nd__device_enter(int device, int *prev) {
  *prev = -1;
  int cur = -1;
  int e = nd__device_id(&cur);
  if (e != 0) {
    (void)cudaGetLastError();
    return e;
  }
  if (cur == device) return 0;
  e = (int)cudaSetDevice(device);
  if (e != 0) {
    (void)cudaGetLastError();
    return e;
  }
  *prev = cur;
  return 0;
}

void nd__device_leave(int prev) {
  if (prev >= 0 && cudaSetDevice(prev) != cudaSuccess) (void)cudaGetLastError();
}

int nd__cuda_no_device(int err) {
  const cudaError_t e = (cudaError_t)err;
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary ||
         e == cudaErrorSystemNotReady || e == cudaErrorCompatNotSupportedOnDevice;
}

nd_status nd__device_count_checked(const char *fn, int *count) {
  int n = atomic_load_explicit(&nd__ndev, memory_order_relaxed);
  if (n > 0) {
    *count = n;
    return ND_OK;
  }
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_NO_DEVICE, "%s: no CUDA device is available (%s)", fn,
                     e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
  }
  atomic_store_explicit(&nd__ndev, n, memory_order_relaxed);
  *count = n;
  return ND_OK;
}

nd_status nd__device_arg_check(const char *fn, const char *arg, int device, int allow_current,
                               int *out) {
  if (allow_current && device == -1) return nd__device_current(fn, out);
  if (device < 0)
    return nd__error(ND_ERR_VALUE, "%s: argument '%s' is %d, not a device number%s", fn, arg,
                     device, allow_current ? " (-1 means the current device)" : "");
  int n = 0;
  ND_TRY(nd__device_count_checked(fn, &n));
  if (device >= n)
    return nd__error(ND_ERR_VALUE, "%s: argument '%s' is %d but the process sees %d device%s "
                     "(0..%d)", fn, arg, device, n, n == 1 ? "" : "s", n - 1);
  if (device >= ND__MAX_DEVICES)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: device %d is beyond the %d devices ndcuda "
                     "supports", fn, device, ND__MAX_DEVICES);
  *out = device;
  return ND_OK;
}

/* ---- the public device API ------------------------------------------------------------------ */

nd_status nd_device_count(int *count) {
  ND_CHECK_NULL("nd_device_count", count);
  int n = atomic_load_explicit(&nd__ndev, memory_order_relaxed);
  if (n > 0) {
    *count = n;
    return ND_OK;
  }
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    /* from cudaGetDeviceCount, "not supported" too means no usable device (from another call
     * it names an unsupported operation, so nd__cuda_no_device leaves it out) */
    if (!nd__cuda_no_device(e) && e != cudaErrorNotSupported)
      return nd__error(ND_ERR_CUDA, "nd_device_count: cudaGetDeviceCount failed: %s (%s)",
                       cudaGetErrorName(e), cudaGetErrorString(e));
    n = 0;
  }
  if (n > 0) atomic_store_explicit(&nd__ndev, n, memory_order_relaxed);
  *count = n;
  return ND_OK;
}

nd_status nd_device_get(int *device) {
  ND_CHECK_NULL("nd_device_get", device);
  return nd__device_current("nd_device_get", device);
}

static nd_status nd__device_set(const char *fn, int device) {
  int d = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 0, &d));
  cudaError_t e = cudaSetDevice(d);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_CUDA, "%s: cudaSetDevice(%d) failed: %s (%s)", fn, d,
                     cudaGetErrorName(e), cudaGetErrorString(e));
  }
  return ND_OK;
}

nd_status nd_device_set(int device) {
  return nd__device_set("nd_device_set", device);
}

/* The calling thread's pushed devices: what nd_device_pop restores. */
#define ND__DEVICE_STACK_MAX 64
static _Thread_local int nd__dev_stack[ND__DEVICE_STACK_MAX];
static _Thread_local int nd__dev_depth;

nd_status nd_device_push(int device) {
  const char *fn = "nd_device_push";
  if (nd__dev_depth == ND__DEVICE_STACK_MAX)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: the device stack is full (%d pushes without a "
                     "pop)", fn, ND__DEVICE_STACK_MAX);
  int d = -1, cur = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 0, &d));
  ND_TRY(nd__device_current(fn, &cur));
  ND_TRY(nd__device_set(fn, d));
  nd__dev_stack[nd__dev_depth++] = cur;
  return ND_OK;
}

nd_status nd_device_pop(void) {
  const char *fn = "nd_device_pop";
  if (nd__dev_depth == 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nothing was pushed on this thread", fn);
  ND_TRY(nd__device_set(fn, nd__dev_stack[nd__dev_depth - 1]));
  nd__dev_depth--;
  return ND_OK;
}

nd_status nd_device_synchronize(int device) {
  const char *fn = "nd_device_synchronize";
  int d = -1, prev = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 1, &d));
  int e = nd__device_enter(d, &prev);
  if (e == 0) e = (int)cudaDeviceSynchronize();
  nd__device_leave(prev);
  if (e != 0) return nd__cuda_status(e, "cudaDeviceSynchronize()", fn, __FILE__, __LINE__);
  return ND_OK;
}

nd_status nd_device_get_properties(int device, nd_device_properties *out) {
  const char *fn = "nd_device_get_properties";
  ND_CHECK_NULL(fn, out);
  int d = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 1, &d));
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, d);
  if (e != cudaSuccess) return nd__cuda_status((int)e, "cudaGetDeviceProperties", fn, __FILE__, __LINE__);
  nd_device_properties r;
  memset(&r, 0, sizeof r);
  snprintf(r.name, sizeof r.name, "%s", p.name);
  r.cc_major = p.major;
  r.cc_minor = p.minor;
  r.sm_count = p.multiProcessorCount;
  r.max_threads_per_block = p.maxThreadsPerBlock;
  r.warp_size = p.warpSize;
  r.total_memory = (int64_t)p.totalGlobalMem;
  r.l2_cache_bytes = (int64_t)p.l2CacheSize;
  r.shared_memory_per_block_optin = (int64_t)p.sharedMemPerBlockOptin;
  r.pci_domain = p.pciDomainID;
  r.pci_bus = p.pciBusID;
  r.pci_device = p.pciDeviceID;
  r.integrated = p.integrated;
  *out = r;
  return ND_OK;
}

nd_status nd_device_can_access_peer(int device, int peer, int *out) {
  const char *fn = "nd_device_can_access_peer";
  ND_CHECK_NULL(fn, out);
  int d = -1, q = -1;
  ND_TRY(nd__device_arg_check(fn, "device", device, 0, &d));
  ND_TRY(nd__device_arg_check(fn, "peer", peer, 0, &q));
  if (d == q) {
    *out = 0;
    return ND_OK;
  }
  int can = 0;
  cudaError_t e = cudaDeviceCanAccessPeer(&can, d, q);
  if (e != cudaSuccess) return nd__cuda_status((int)e, "cudaDeviceCanAccessPeer", fn, __FILE__, __LINE__);
  *out = can != 0;
  return ND_OK;
}

/* ---- properties --------------------------------------------------------------------------- */

static nd__device_props nd__props[ND__MAX_DEVICES];
static atomic_int nd__props_ready[ND__MAX_DEVICES];
static pthread_mutex_t nd__props_lock = PTHREAD_MUTEX_INITIALIZER;

static int nd__props_read(int d, nd__device_props *p) {
  static const struct {
    enum cudaDeviceAttr attr;
    size_t offset;
  } rows[] = {
      {cudaDevAttrMultiProcessorCount, offsetof(nd__device_props, sm_count)},
      {cudaDevAttrComputeCapabilityMajor, offsetof(nd__device_props, cc_major)},
      {cudaDevAttrComputeCapabilityMinor, offsetof(nd__device_props, cc_minor)},
      {cudaDevAttrL2CacheSize, offsetof(nd__device_props, l2_bytes)},
      {cudaDevAttrMaxSharedMemoryPerBlock, offsetof(nd__device_props, smem_per_block)},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, offsetof(nd__device_props, smem_per_block_optin)},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, offsetof(nd__device_props, smem_per_sm)},
      {cudaDevAttrMaxRegistersPerMultiprocessor, offsetof(nd__device_props, regs_per_sm)},
      {cudaDevAttrMaxThreadsPerMultiProcessor, offsetof(nd__device_props, max_threads_per_sm)},
      {cudaDevAttrCooperativeLaunch, offsetof(nd__device_props, cooperative_launch)},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, rows[i].attr, d) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    *(int *)((char *)p + rows[i].offset) = v;
  }
  return p->sm_count > 0 && p->cc_major > 0;
}

const nd__device_props *nd__device_props_of(int d) {
  if (d < 0 || d >= ND__MAX_DEVICES) return NULL;
  if (ND__LIKELY(atomic_load_explicit(&nd__props_ready[d], memory_order_acquire))) return &nd__props[d];
  const nd__device_props *out = NULL;
  pthread_mutex_lock(&nd__props_lock);
  if (atomic_load_explicit(&nd__props_ready[d], memory_order_relaxed)) {
    out = &nd__props[d];
  } else {
    nd__device_props p = {0};
    if (nd__props_read(d, &p)) {
      nd__props[d] = p;
      atomic_store_explicit(&nd__props_ready[d], 1, memory_order_release);
      out = &nd__props[d];
    }
  }
  pthread_mutex_unlock(&nd__props_lock);
  return out;
}

const nd__device_props *nd__device_props_current(void) {
  int d = -1;
  if (nd__device_id(&d) != 0) {
    (void)cudaGetLastError();
    return NULL;
  }
  return nd__device_props_of(d);
}

int nd__device_sm_count(void) {
  const nd__device_props *p = nd__device_props_current();
  return p != NULL ? p->sm_count : 1;
}

int nd__device_cc_major(void) {
  const nd__device_props *p = nd__device_props_current();
  return p != NULL ? p->cc_major : 0;
}

/* ---- the driver ---------------------------------------------------------------------------- */

static nd__driver_api nd__drv;
static pthread_once_t nd__drv_once = PTHREAD_ONCE_INIT;

void *nd__driver_entry(const char *name, int cuda_version) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, (unsigned)cuda_version, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    fn = NULL;
  (void)cudaGetLastError();
  return fn;
}

static void nd__driver_find(void) {
  /* The casts go through void * to the members' own types (POSIX guarantees that object and
   * function pointers convert). */
#define ND__ENTRY(member, name) *(void **)&nd__drv.member = nd__driver_entry(name, 12000)
  ND__ENTRY(launch_kernel, "cuLaunchKernel");
  ND__ENTRY(ctx_get_current, "cuCtxGetCurrent");
  ND__ENTRY(ctx_get_device, "cuCtxGetDevice");
  ND__ENTRY(primary_ctx_get_state, "cuDevicePrimaryCtxGetState");
  ND__ENTRY(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
  ND__ENTRY(primary_ctx_release, "cuDevicePrimaryCtxRelease");
  ND__ENTRY(kernel_get_function, "cuKernelGetFunction");
  ND__ENTRY(stream_is_capturing, "cuStreamIsCapturing");
  ND__ENTRY(memset_d16_async, "cuMemsetD16Async");
  ND__ENTRY(memset_d32_async, "cuMemsetD32Async");
#undef ND__ENTRY
}

const nd__driver_api *nd__driver(void) {
  pthread_once(&nd__drv_once, nd__driver_find);
  return &nd__drv;
}

int nd__stream_capturing(void *stream) {
  const nd__driver_api *drv = nd__driver();
  if (drv->stream_is_capturing != NULL) {
    CUstreamCaptureStatus c = CU_STREAM_CAPTURE_STATUS_NONE;
    if (drv->stream_is_capturing((CUstream)stream, &c) == CUDA_SUCCESS) return c != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing((cudaStream_t)stream, &cap) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return cap != cudaStreamCaptureStatusNone;
}
