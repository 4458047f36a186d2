/* Devices: which one the calling thread is on, the properties that launch geometry and kernel
 * choice depend on (cached per device), the CUDA driver's entry points the library uses, and
 * the stream-capture query. Every folder asks here; nothing else calls cudaDeviceGetAttribute
 * or cudaGetDriverEntryPoint*. Not installed. */
#ifndef ND_DEVICE_H
#define ND_DEVICE_H

#include <cuda.h>

#include "src/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices the library keeps per-device state for (pools, streams, properties). */
#define ND__MAX_DEVICES 64

/* cudaGetDevice, without the runtime call when the process sees one device (then always 0):
 * some 50 ns saved on every operation. Returns the cudaError_t as an int. */
int nd__device_id(int *device);

/* The calling thread's device, as a status: ND_ERR_NO_DEVICE when there is none,
 * ND_ERR_NOT_IMPLEMENTED past ND__MAX_DEVICES. fn names the public function. */
nd_status nd__device_current(const char *fn, int *device);

/* Makes device the calling thread's current device for a moment: *prev receives the device
 * to restore with nd__device_leave (-1 when device was current already, so that leaving does
 * nothing). Used where work must be enqueued on another device's stream handle: the legacy
 * and per-thread handles mean "this device's" stream, so they name the right stream only
 * while their device is current. Returns the cudaError_t as an int (0 on success). */
int nd__device_enter(int device, int *prev);
void nd__device_leave(int prev);

/* 1 for the CUDA runtime errors that mean this machine has no usable GPU, whichever call
 * returns them (no device, no driver or one too old, a stub driver library such as the
 * toolkit's, a system not ready, a forward-compatibility driver the device does not support)
 * rather than a failing driver or call: callers turn them into ND_ERR_NO_DEVICE (or a count
 * of 0). err is a cudaError_t. */
int nd__cuda_no_device(int err);

/* The number of devices, as a status: ND_ERR_NO_DEVICE when there is none (fn and what name
 * the caller in the message). */
nd_status nd__device_count_checked(const char *fn, int *count);

/* Checks a device argument of public function fn (arg names the parameter): -1 means the
 * current device when allow_current; otherwise 0 <= device < count. Writes the resolved
 * device. Errors: ND_ERR_VALUE (naming fn, arg, the value and the count), ND_ERR_NO_DEVICE. */
nd_status nd__device_arg_check(const char *fn, const char *arg, int device, int allow_current,
                               int *out);

/* What the library reads of a device, once per device. */
typedef struct nd__device_props {
  int sm_count;             /* multiprocessors */
  int cc_major, cc_minor;   /* compute capability */
  int l2_bytes;             /* L2 cache */
  int smem_per_block;       /* shared memory a block gets without opting in */
  int smem_per_block_optin; /* the most a block may opt into */
  int smem_per_sm;          /* shared memory of one multiprocessor */
  int regs_per_sm;          /* 32-bit registers of one multiprocessor */
  int max_threads_per_sm;
  int cooperative_launch;   /* whether grids may be launched cooperatively (grid-wide barriers) */
} nd__device_props;

/* Device d's properties (read on the first call for d, then cached), or NULL when they cannot
 * be read (no such device, driver failure: then nothing is cached and the next call asks
 * again; CUDA's last error is cleared). */
const nd__device_props *nd__device_props_of(int device);

/* The current device's properties, or NULL as above. */
const nd__device_props *nd__device_props_current(void);

/* The current device's multiprocessor count for launch geometry. When the device cannot be
 * read the answer is 1 (a valid, small grid): the launch that follows fails with the device's
 * own error, so no guess of a particular GPU's count is needed. */
int nd__device_sm_count(void);

/* The current device's compute capability major, 0 when it cannot be read (so that no
 * capability-gated path is chosen). */
int nd__device_cc_major(void);

/* The driver functions the library calls directly, found once through
 * cudaGetDriverEntryPointByVersion (so the library links no libcuda). A member is NULL where
 * the driver lacks it; callers fall back to the runtime. */
typedef struct nd__driver_api {
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, CUstream, void **, void **);
  CUresult (*ctx_get_current)(CUcontext *);
  CUresult (*ctx_get_device)(CUdevice *);
  CUresult (*primary_ctx_get_state)(CUdevice, unsigned *, int *);
  CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
  CUresult (*primary_ctx_release)(CUdevice);
  CUresult (*kernel_get_function)(CUfunction *, CUkernel);
  CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus *);
  /* fills of 16- and 32-bit patterns at the memset rate (kernels/copy.cu's nd_k_fill) */
  CUresult (*memset_d16_async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*memset_d32_async)(CUdeviceptr, unsigned int, size_t, CUstream);
} nd__driver_api;

/* The table (looked up on the first call; never NULL). */
const nd__driver_api *nd__driver(void);

/* Any other driver entry point (jit/ loads and launches user kernels through the driver's
 * library API without linking libcuda): the symbol as of CUDA version cuda_version (12000 for
 * 12.0), or NULL when the driver lacks it. */
void *nd__driver_entry(const char *name, int cuda_version);

/* Whether stream (a cudaStream_t) is being captured: 1, 0, or -1 when that cannot be told.
 * The driver's query (some 25 ns against 65 for the runtime's on an H100 host), else the
 * runtime's. */
int nd__stream_capturing(void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ND_DEVICE_H */
