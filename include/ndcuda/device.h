/* Devices: how many there are, which one the calling thread works on, what each one is, and
 * moving arrays between them.
 *
 * The device model. Every array lives on one device (nd_array_device), every stream, event and
 * memory pool belongs to the device that was current when it was made (nd_stream_device,
 * nd_event_device), and a stateful random generator to the device of its states
 * (nd_generator_device; a Philox generator has no device state and runs anywhere). Each thread
 * has a current device, as cudaSetDevice gives it: the device a new thread starts on is device
 * 0, and a change made by one thread does not affect the others. Each thread also has one
 * current stream per device (ndcuda/stream.h), so switching devices switches streams, and
 * switching back finds the stream that was current there before.
 *
 * Operations run on the current device. Every operation except a copy refuses an array that
 * lives elsewhere: it returns ND_ERR_DEVICE_MISMATCH, and the message names the array's device
 * and the current one (as CuPy refuses such arrays); nothing is computed and no output is
 * written. Copies move
 * data between devices: nd_array_to_device, nd_copyto with a destination on another device, and
 * the sharding helpers below. Host transfers of an existing array (nd_array_to_host,
 * nd_array_to_host_async, nd_array_from_host_async) are copies too: they run on the calling
 * thread's current stream of the array's device, whichever device is current.
 *
 * Copies between devices are peer to peer (cudaMemcpyPeerAsync over NVLink or PCIe) when the
 * two devices can access each other's memory; peer access, for the devices and for ndcuda's
 * memory pools, is enabled once per pair the first time a copy needs it (thread safe). Where
 * the devices cannot reach each other the same call is staged through host memory by the CUDA
 * driver (slower, still asynchronous). Copies take part in the automatic ordering: the copy
 * waits, through events, for the source's last writer on its device and for the destination's
 * readers and writer; it is recorded as a read of the source and a write of the destination,
 * so later work on either device that touches them waits for it. Nothing blocks the host.
 *
 * Self-contained: this header needs only the status codes and the export macro, so a program
 * (or another part of the library) can use devices without the array API. */
#ifndef NDCUDA_DEVICE_H
#define NDCUDA_DEVICE_H

#include <stdint.h>

#include "ndcuda/export.h"
#include "ndcuda/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The handles this header names (the same typedefs as array.h, stream.h and random.h). */
typedef struct nd_array nd_array;
typedef struct nd_event nd_event;
typedef struct nd_generator nd_generator;

/* ---- devices ------------------------------------------------------------------------------ */

/* The number of CUDA devices visible to the process (CUDA_VISIBLE_DEVICES applies). A machine
 * without a device or without a driver is not an error: *count is 0 and ND_OK is returned.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_CUDA (the driver failed otherwise). Host only. */
ND_API nd_status nd_device_count(int *count);

/* The calling thread's current device. Errors: ND_ERR_NULL_POINTER, ND_ERR_NO_DEVICE. Host
 * only. */
ND_API nd_status nd_device_get(int *device);

/* Makes device the calling thread's current device (cudaSetDevice). Later operations of this
 * thread run there, on this thread's current stream of that device. Other threads are not
 * affected. Errors: ND_ERR_VALUE (device negative or not below nd_device_count; the message
 * gives the value and the count), ND_ERR_NO_DEVICE (no device at all), ND_ERR_CUDA. Host only;
 * waits for nothing. */
ND_API nd_status nd_device_set(int device);

/* nd_device_push makes device current and remembers the device that was current before;
 * nd_device_pop makes that one current again. Pairs nest (64 deep per thread), like
 * nd_stream_push / nd_stream_pop. Errors: as nd_device_set; ND_ERR_INVALID_ARGUMENT when
 * the stack is full, or for a pop without a push on this thread. Host only. */
ND_API nd_status nd_device_push(int device);
ND_API nd_status nd_device_pop(void);

/* Blocks the host until every piece of work on the device (-1: the current one) has finished,
 * on all its streams (cudaDeviceSynchronize). Errors: ND_ERR_VALUE, ND_ERR_NO_DEVICE,
 * ND_ERR_CUDA (including errors of earlier asynchronous work). */
ND_API nd_status nd_device_synchronize(int device);

/* What a device is. A plain value filled by nd_device_get_properties. */
typedef struct nd_device_properties {
  char name[256];                 /* "NVIDIA H100 80GB HBM3" */
  int cc_major, cc_minor;         /* compute capability */
  int sm_count;                   /* multiprocessors */
  int max_threads_per_block;
  int warp_size;
  int64_t total_memory;           /* bytes of device memory */
  int64_t l2_cache_bytes;
  int64_t shared_memory_per_block_optin; /* the most dynamic shared memory a block may opt into */
  int pci_domain, pci_bus, pci_device;
  int integrated;                 /* 1 for a GPU that shares the host's memory */
} nd_device_properties;

/* Fills *out with device's properties (-1: the current device). Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_VALUE (no such device), ND_ERR_NO_DEVICE, ND_ERR_CUDA. Host only (reads the device
 * once per call; microseconds). */
ND_API nd_status nd_device_get_properties(int device, nd_device_properties *out);

/* Whether device can read and write peer's memory directly (cudaDeviceCanAccessPeer): *out is
 * 1 or 0; 0 when device == peer (a device's own memory needs no peer access). Copies between
 * devices that cannot reach each other still work (staged through the host). Errors:
 * ND_ERR_NULL_POINTER, ND_ERR_VALUE, ND_ERR_NO_DEVICE, ND_ERR_CUDA. Host only. */
ND_API nd_status nd_device_can_access_peer(int device, int peer, int *out);

/* The device an event belongs to (the current device when it was created), or -1 for NULL. */
ND_API int nd_event_device(const nd_event *event);

/* The device holding a generator's state (XORWOW, MRG32K3A: where it was created), or -1 for
 * a Philox generator, which has no device state and fills arrays on any device, or for NULL. */
ND_API int nd_generator_device(const nd_generator *gen);

/* ---- copies between devices ---------------------------------------------------------------- */

/* A copy of a on device (-1: the current device): a new C-contiguous array with a's dtype,
 * shape and values. a may be on any device and have any layout; a non-contiguous a is first
 * gathered into a contiguous temporary on its own device, then copied peer to peer (or
 * staged, see above). When a already lives on device the result is still a copy.
 * Borrows a; *out receives a new reference (untouched on failure). The calling thread's
 * current device is the same on return.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (device out of range), ND_ERR_NO_DEVICE,
 * ND_ERR_OUT_OF_MEMORY, ND_ERR_CUDA.
 * Streams: the gather runs on the calling thread's current stream of a's device, the copy
 * on its current stream of the destination device; both are ordered after earlier writers of
 * a and recorded, so later work on either device that touches a or the result waits for
 * them. Does not block. */
ND_API nd_status nd_array_to_device(const nd_array *a, int device, nd_array **out);

/* nd_copyto (array.h) also copies between devices: dst and src may live on different
 * devices, with its broadcasting and casting rules. The copy runs on the calling thread's
 * current stream of dst's device (a src that is not contiguous, or that needs broadcasting or
 * casting, is first moved whole to dst's device and converted there), ordered as above. */

/* ---- sharding ------------------------------------------------------------------------------- */

/* Splits a along axis into n parts, part i on device devices[i] (devices NULL: part i on
 * device i), as NumPy's array_split: the first (len % n) parts get len / n + 1 entries along
 * axis, the others len / n (parts may be empty when n > len). out must hold n pointers; on
 * success out[i] receives a new C-contiguous array (a new reference each) and on failure
 * nothing is written to out. A device may appear more than once. Borrows a and devices.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (n < 1 or above 4096, a device out of range),
 * ND_ERR_AXIS (axis out of range, or a is 0-d), ND_ERR_NO_DEVICE, ND_ERR_OUT_OF_MEMORY,
 * ND_ERR_CUDA.
 * Streams: each part is copied as nd_array_to_device copies. Does not block. */
ND_API nd_status nd_shard_split(const nd_array *a, int axis, int n, const int *devices,
                                nd_array **out);

/* Joins n arrays along axis into a new C-contiguous array on device (-1: the current
 * device), as nd_concatenate does on one device: the parts may live on any devices, must have
 * the same ndim and the same shape except along axis, and the result dtype is their promoted
 * dtype (nd_result_type). The inverse of nd_shard_split. Borrows the parts; *out receives a
 * new reference (untouched on failure).
 * Errors: ND_ERR_NULL_POINTER (parts, a part, or out), ND_ERR_VALUE (n < 1 or above 4096,
 * device out of range), ND_ERR_AXIS, ND_ERR_SHAPE, ND_ERR_NO_DEVICE, ND_ERR_OUT_OF_MEMORY,
 * ND_ERR_CUDA.
 * Streams: each part is copied into its place on the calling thread's current stream of
 * device, ordered after the part's last writer on its own device. Does not block. */
ND_API nd_status nd_shard_gather(int n, const nd_array *const *parts, int axis, int device,
                                 nd_array **out);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_DEVICE_H */
