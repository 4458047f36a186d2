/* Devices, their cached properties, the driver's entry points and the capture query
 * (device.h). */
#include <pthread.h>
#include <stdatomic.h>

#include <cuda_runtime_api.h>

#include "src/device.h"

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
