/* Collective communication between GPUs on ndcuda arrays, through NCCL.
 *
 * A communicator (nd_comm) is one rank of a group of GPUs that exchange data. Two ways to make
 * one:
 * - one process driving several local GPUs: nd_comm_init_all() returns one nd_comm per device
 *   (rank i on devices[i]). Use them from one thread, wrapping the calls for the different
 *   ranks in nd_comm_group_start()/nd_comm_group_end(), or from one thread per GPU.
 * - one process per GPU (possibly on several hosts): rank 0 calls nd_comm_unique_id() and
 *   hands the bytes to every other process (a file, an environment variable, MPI_Bcast: see
 *   nd_comm_id_to_hex); each process then calls nd_comm_init_rank() on its own device.
 *
 * Devices. A communicator belongs to the device it was made on. Every call on it must be made
 * while that device is the calling thread's current device (the device whose current stream
 * the work goes to), and every array passed to it must live there; otherwise the call fails
 * with ND_ERR_DEVICE_MISMATCH naming both devices.
 *
 * Streams and ordering. Each call enqueues its work on the calling thread's current stream of
 * the communicator's device and returns without waiting for the transfer (NCCL semantics). It
 * takes part in the library's automatic ordering like every other operation: it waits for the
 * last writer of each input and for the readers of each output when they ran on other streams,
 * and records its own read and write, so that, say, nd_add on a non-blocking stream of device
 * 1 after an allreduce on device 1's default stream needs no event from the caller.
 *
 * Data. Arrays are taken as flat sequences of their elements in C (row-major) order. An input
 * that is not C-contiguous (a transposed, sliced or negatively strided view) is copied to a
 * contiguous staging buffer first; an output that is not C-contiguous receives into a staging
 * buffer that is copied into it afterwards, on the same stream. So every layout works, at the
 * cost of one extra copy for such views. Inputs that overlap the output (other than the exact
 * in-place forms documented per function) are staged the same way, so the result is as if the
 * input had been read completely first. Zero-size arrays are accepted and move nothing.
 *
 * dtypes. Reductions (allreduce, reduce, reduce_scatter) take int8, uint8, int32, uint32,
 * int64, uint64, float16, float32 and float64 with every ND_COMM_* operation, except that
 * ND_COMM_AVG needs a floating-point or complex dtype (NCCL would truncate an integer average;
 * NumPy's mean of integers is a float: cast first). complex64 and complex128 are reduced as
 * pairs of float32 / float64 values for ND_COMM_SUM and ND_COMM_AVG (exact: both are taken
 * component by component); ND_COMM_PROD, ND_COMM_MIN and ND_COMM_MAX on complex are refused.
 * bool is reduced as uint8 for ND_COMM_MIN (logical and) and ND_COMM_MAX (logical or); other
 * operations on bool, and every reduction on int16 and uint16 (NCCL has no 16-bit integer
 * type), are refused with ND_ERR_DTYPE. The pure data movements (broadcast, allgather,
 * all-to-all, send/recv) take every dtype: those NCCL lacks travel as bytes.
 *
 * Groups. Between nd_comm_group_start() and nd_comm_group_end() on one thread, calls are only
 * recorded (with the stream current at the call): the collectives are enqueued together by
 * nd_comm_group_end() (one ncclGroupStart/ncclGroupEnd), so that one thread can drive several
 * GPUs, making each rank's device current before its call, or pair sends and receives,
 * without deadlock. Inputs that need staging are copied at the call; the others are read when
 * the group ends, so do not change them in between. Groups nest; the outermost end issues.
 * Arrays passed inside a group are retained until then. When a group holds calls for every
 * rank of a communicator set made by nd_comm_init_all, nd_comm_group_end first checks that the
 * ranks agree (the same collectives in the same order with the same counts, dtypes, operations
 * and roots; every send matched by a receive of the same size and dtype) and, if they do not,
 * enqueues nothing and fails with ND_ERR_VALUE naming the ranks and values. A call that fails
 * inside a group (a bad argument on one rank) makes the group enqueue nothing either:
 * nd_comm_group_end then fails with ND_ERR_INVALID_ARGUMENT, since issuing the other ranks'
 * calls without it would leave them waiting.
 *
 * What cannot be detected, and hangs: NCCL itself checks nothing across ranks. A rank that
 * never makes the matching call, ranks that disagree on counts, dtypes, roots or the order of
 * calls in different threads or processes, or one thread that drives several ranks without a
 * group (the first rank's call can block waiting for the others) leave the collective waiting
 * on the GPU (and possibly the host) forever; in the mismatched-size case it may also read or
 * write out of bounds. The checks above cover the single-thread group case only.
 *
 * Availability. NCCL is optional at build time (CMake option NDCUDA_WITH_NCCL). In a library
 * built without it, nd_comm_available() returns 0 and every nd_comm_* function checks its
 * pointer arguments and then returns ND_ERR_UNSUPPORTED with a message saying how to enable
 * it. */
#ifndef NDCUDA_COMM_H
#define NDCUDA_COMM_H

#include <stddef.h>

#include "ndcuda/export.h"
#include "ndcuda/status.h"
#include "ndcuda/array.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_comm nd_comm;

/* Bytes of a unique id (NCCL's ncclUniqueId is 128). */
#define ND_COMM_ID_BYTES 128

/* The opaque bootstrap token that ties the ranks of one communicator together. Plain bytes:
 * copy it, write it to a file, send it over MPI. */
typedef struct nd_comm_id {
  unsigned char bytes[ND_COMM_ID_BYTES];
} nd_comm_id;

/* Characters of the hexadecimal form of an id, without the terminating NUL. */
#define ND_COMM_ID_HEX_CHARS (2 * ND_COMM_ID_BYTES)

/* Reduction operations. */
typedef enum nd_comm_op {
  ND_COMM_SUM = 0,
  ND_COMM_PROD = 1,
  ND_COMM_MIN = 2,
  ND_COMM_MAX = 3,
  ND_COMM_AVG = 4 /* the sum divided by the number of ranks (floating-point and complex only) */
} nd_comm_op;

/* 1 when the library was built with NCCL, 0 otherwise. Never fails. */
ND_API int nd_comm_available(void);

/* The NCCL version the library runs with (e.g. 22809 for 2.28.9) in *version, from the loaded
 * library. Errors: ND_ERR_NULL_POINTER, ND_ERR_UNSUPPORTED (built without NCCL). */
ND_API nd_status nd_comm_nccl_version(int *version);

/* Makes one communicator per device of devices[0..ndev) (rank i on devices[i]) in this
 * process, like ncclCommInitAll. devices may be NULL for devices 0..ndev-1. Writes ndev new
 * handles to comms[0..ndev); release each with nd_comm_destroy. Does not change the calling
 * thread's current device. Errors: ND_ERR_NULL_POINTER (comms), ND_ERR_VALUE (ndev < 1, a
 * device out of range or listed twice; the message names the index and value),
 * ND_ERR_NO_DEVICE, ND_ERR_NCCL, ND_ERR_UNSUPPORTED. Blocks until the communicators are
 * set up. */
ND_API nd_status nd_comm_init_all(int ndev, const int *devices, nd_comm **comms);

/* Makes a fresh unique id (call on one rank, usually 0, and hand the bytes to the others before
 * they call nd_comm_init_rank). Writes *id. Errors: ND_ERR_NULL_POINTER, ND_ERR_NCCL,
 * ND_ERR_UNSUPPORTED. Does not touch a device. */
ND_API nd_status nd_comm_unique_id(nd_comm_id *id);

/* The id as ND_COMM_ID_HEX_CHARS lowercase hexadecimal digits and a NUL in buf (cap bytes, at
 * least ND_COMM_ID_HEX_CHARS + 1), for an environment variable or a text file. Works without
 * NCCL. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (cap too small). */
ND_API nd_status nd_comm_id_to_hex(const nd_comm_id *id, char *buf, size_t cap);

/* Parses the form above (leading and trailing white space ignored; upper- or lowercase) into
 * *id. Works without NCCL. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (wrong length or a
 * character that is not a hexadecimal digit: the message gives its position). *id is left
 * untouched on failure. */
ND_API nd_status nd_comm_id_from_hex(const char *hex, nd_comm_id *id);

/* Makes this process's rank `rank` of `nranks` on the calling thread's current device, from
 * the id that every rank was given (ncclCommInitRank). Writes a new handle to *comm. Errors:
 * ND_ERR_NULL_POINTER, ND_ERR_VALUE (nranks < 1, rank outside [0, nranks)), ND_ERR_NO_DEVICE,
 * ND_ERR_NCCL (for instance a stale or corrupt id), ND_ERR_UNSUPPORTED. Blocks until all
 * nranks ranks have called it (a rank that never calls makes the others wait forever). */
ND_API nd_status nd_comm_init_rank(int nranks, const nd_comm_id *id, int rank, nd_comm **comm);

/* Destroys a communicator after the work enqueued on it has finished (ncclCommDestroy; this
 * blocks until then). NULL is accepted. Must not be called inside a group that still holds
 * calls on it (ND_ERR_INVALID_ARGUMENT). Errors: ND_ERR_NCCL, ND_ERR_UNSUPPORTED. */
ND_API nd_status nd_comm_destroy(nd_comm *comm);

/* The communicator's rank, number of ranks and device. Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_UNSUPPORTED. Never block. */
ND_API nd_status nd_comm_rank(const nd_comm *comm, int *rank);
ND_API nd_status nd_comm_size(const nd_comm *comm, int *nranks);
ND_API nd_status nd_comm_device(const nd_comm *comm, int *device);

/* Starts a group on the calling thread (see Groups above). Errors: ND_ERR_UNSUPPORTED. */
ND_API nd_status nd_comm_group_start(void);

/* Ends the innermost group; the outermost end checks and issues the recorded calls, then
 * releases the arrays it held. Errors: ND_ERR_STREAM (no group started), ND_ERR_VALUE (ranks
 * disagree, see Groups; nothing is enqueued), ND_ERR_INVALID_ARGUMENT (a call made in the
 * group failed; nothing is enqueued), ND_ERR_NCCL, ND_ERR_UNSUPPORTED. Enqueues and returns. */
ND_API nd_status nd_comm_group_end(void);

/* recv = op over all ranks of send (ncclAllReduce). send and recv have the same shape and
 * dtype; recv may be send itself (in place). Borrows both. Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_SHAPE, ND_ERR_DTYPE (see dtypes), ND_ERR_VALUE (unknown op), ND_ERR_READ_ONLY,
 * ND_ERR_DEVICE_MISMATCH, ND_ERR_NCCL, ND_ERR_UNSUPPORTED. Enqueues and returns. */
ND_API nd_status nd_comm_allreduce(nd_comm *comm, const nd_array *send, nd_array *recv,
                                   nd_comm_op op);

/* recv on rank `root` = op over all ranks of send (ncclReduce). recv is used on the root only
 * (same shape and dtype as send; may be send itself) and may be NULL on the other ranks.
 * Errors: as nd_comm_allreduce, ND_ERR_VALUE (root out of range), ND_ERR_NULL_POINTER (recv
 * NULL on the root). Enqueues and returns. */
ND_API nd_status nd_comm_reduce(nd_comm *comm, const nd_array *send, nd_array *recv,
                                nd_comm_op op, int root);

/* Copies `a` of rank `root` into `a` of every other rank, in place (ncclBroadcast). Every rank
 * passes an array of the same size and dtype. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (root
 * out of range), ND_ERR_READ_ONLY (on a non-root rank), ND_ERR_DEVICE_MISMATCH, ND_ERR_NCCL,
 * ND_ERR_UNSUPPORTED. Enqueues and returns. */
ND_API nd_status nd_comm_broadcast(nd_comm *comm, nd_array *a, int root);

/* recv = the concatenation of every rank's send, rank 0 first (ncclAllGather). recv has
 * nranks times send's size and send's dtype; shape it (nranks, *send's shape) to index by
 * rank. Errors: ND_ERR_NULL_POINTER, ND_ERR_SHAPE (sizes), ND_ERR_DTYPE (dtypes differ),
 * ND_ERR_READ_ONLY, ND_ERR_DEVICE_MISMATCH, ND_ERR_NCCL, ND_ERR_UNSUPPORTED. Enqueues and
 * returns. */
ND_API nd_status nd_comm_allgather(nd_comm *comm, const nd_array *send, nd_array *recv);

/* recv = block `rank` of op over all ranks of send, where send (nranks times recv's size, in C
 * order) is cut into nranks equal blocks (ncclReduceScatter). Errors: as nd_comm_allreduce
 * with ND_ERR_SHAPE for the sizes. Enqueues and returns. */
ND_API nd_status nd_comm_reduce_scatter(nd_comm *comm, const nd_array *send, nd_array *recv,
                                        nd_comm_op op);

/* All-to-all: send and recv have the same size (a multiple of nranks) and dtype and are cut
 * into nranks equal blocks in C order; block j of send goes to rank j, and block i of recv
 * comes from rank i (one ncclSend/ncclRecv pair per peer in one group). Errors: ND_ERR_SHAPE,
 * ND_ERR_DTYPE, ND_ERR_NULL_POINTER, ND_ERR_READ_ONLY, ND_ERR_DEVICE_MISMATCH, ND_ERR_NCCL,
 * ND_ERR_UNSUPPORTED. Enqueues and returns. */
ND_API nd_status nd_comm_alltoall(nd_comm *comm, const nd_array *send, nd_array *recv);

/* Point to point: sends `a` to rank `peer`, which must post a matching nd_comm_recv of the
 * same size and dtype (ncclSend/ncclRecv). A rank that sends and receives at once (an
 * exchange) must put both in one group. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (peer out
 * of range), ND_ERR_READ_ONLY (recv), ND_ERR_DEVICE_MISMATCH, ND_ERR_NCCL,
 * ND_ERR_UNSUPPORTED. Enqueue and return. */
ND_API nd_status nd_comm_send(nd_comm *comm, const nd_array *a, int peer);
ND_API nd_status nd_comm_recv(nd_comm *comm, nd_array *a, int peer);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_COMM_H */
