/* Communicators (include/ndcuda/comm.h): the unique id and its text form, nd_comm_init_all,
 * nd_comm_init_rank, destroy and the queries. The collectives and groups are in
 * comm/collectives.c.
 *
 * Without NCCL (ND_HAVE_NCCL undefined) this file holds every public nd_comm_* function: each
 * checks its pointer arguments and returns ND_ERR_UNSUPPORTED with a message saying how to
 * enable NCCL; the unique id's text form works either way. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/device.h"
#include "src/internal.h"

#ifdef ND_HAVE_NCCL
#include "comm/comm_internal.h"
#endif

/* ---- the parts that need no NCCL --------------------------------------------------------- */

nd_status nd_comm_id_to_hex(const nd_comm_id *id, char *buf, size_t cap) {
  const char *fn = "nd_comm_id_to_hex";
  ND_CHECK_NULL(fn, id);
  ND_CHECK_NULL(fn, buf);
  if (cap < ND_COMM_ID_HEX_CHARS + 1)
    return nd__error(ND_ERR_VALUE, "%s: buffer of %zu bytes is too small (needs %d: %d digits "
                     "and a NUL)", fn, cap, ND_COMM_ID_HEX_CHARS + 1, ND_COMM_ID_HEX_CHARS);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < ND_COMM_ID_BYTES; i++) {
    buf[2 * i] = digits[id->bytes[i] >> 4];
    buf[2 * i + 1] = digits[id->bytes[i] & 15];
  }
  buf[ND_COMM_ID_HEX_CHARS] = '\0';
  return ND_OK;
}

static int nd__hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

nd_status nd_comm_id_from_hex(const char *hex, nd_comm_id *id) {
  const char *fn = "nd_comm_id_from_hex";
  ND_CHECK_NULL(fn, hex);
  ND_CHECK_NULL(fn, id);
  const char *p = hex;
  while (isspace((unsigned char)*p)) p++;
  size_t n = strlen(p);
  while (n > 0 && isspace((unsigned char)p[n - 1])) n--;
  if (n != ND_COMM_ID_HEX_CHARS)
    return nd__error(ND_ERR_VALUE, "%s: expected %d hexadecimal digits, got %zu characters", fn,
                     ND_COMM_ID_HEX_CHARS, n);
  nd_comm_id tmp;
  for (int i = 0; i < ND_COMM_ID_BYTES; i++) {
    int hi = nd__hexval((unsigned char)p[2 * i]), lo = nd__hexval((unsigned char)p[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      int at = hi < 0 ? 2 * i : 2 * i + 1;
      return nd__error(ND_ERR_VALUE, "%s: character %d ('%c') is not a hexadecimal digit", fn,
                       at, isprint((unsigned char)p[at]) ? p[at] : '?');
    }
    tmp.bytes[i] = (unsigned char)(hi << 4 | lo);
  }
  *id = tmp;
  return ND_OK;
}

#ifndef ND_HAVE_NCCL

/* ---- built without NCCL ------------------------------------------------------------------ */

static nd_status nd__unsupported(const char *fn) {
  return nd__error(ND_ERR_UNSUPPORTED, "%s: this ndcuda was built without NCCL, so collectives "
                   "are not available; reconfigure with -DNDCUDA_WITH_NCCL=ON (and "
                   "-DNDCUDA_NCCL_ROOT=<folder with include/nccl.h and lib/libnccl.so*> when CMake "
                   "does not find it, e.g. the nvidia-nccl-cu13 wheel's folder) and rebuild", fn);
}

int nd_comm_available(void) { return 0; }

nd_status nd_comm_nccl_version(int *version) {
  ND_CHECK_NULL("nd_comm_nccl_version", version);
  return nd__unsupported("nd_comm_nccl_version");
}

nd_status nd_comm_init_all(int ndev, const int *devices, nd_comm **comms) {
  ND_CHECK_NULL("nd_comm_init_all", comms);
  return nd__unsupported("nd_comm_init_all");
}

nd_status nd_comm_unique_id(nd_comm_id *id) {
  ND_CHECK_NULL("nd_comm_unique_id", id);
  return nd__unsupported("nd_comm_unique_id");
}

nd_status nd_comm_init_rank(int nranks, const nd_comm_id *id, int rank, nd_comm **comm) {
  ND_CHECK_NULL("nd_comm_init_rank", id);
  ND_CHECK_NULL("nd_comm_init_rank", comm);
  return nd__unsupported("nd_comm_init_rank");
}

nd_status nd_comm_destroy(nd_comm *comm) {
  /* No communicator can exist in this build, so only NULL is a valid argument. */
  if (comm == NULL) return ND_OK;
  return nd__unsupported("nd_comm_destroy");
}

nd_status nd_comm_rank(const nd_comm *comm, int *rank) {
  ND_CHECK_NULL("nd_comm_rank", comm);
  ND_CHECK_NULL("nd_comm_rank", rank);
  return nd__unsupported("nd_comm_rank");
}

nd_status nd_comm_size(const nd_comm *comm, int *nranks) {
  ND_CHECK_NULL("nd_comm_size", comm);
  ND_CHECK_NULL("nd_comm_size", nranks);
  return nd__unsupported("nd_comm_size");
}

nd_status nd_comm_device(const nd_comm *comm, int *device) {
  ND_CHECK_NULL("nd_comm_device", comm);
  ND_CHECK_NULL("nd_comm_device", device);
  return nd__unsupported("nd_comm_device");
}

nd_status nd_comm_group_start(void) { return nd__unsupported("nd_comm_group_start"); }
nd_status nd_comm_group_end(void) { return nd__unsupported("nd_comm_group_end"); }

nd_status nd_comm_allreduce(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op) {
  const char *fn = "nd_comm_allreduce";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  return nd__unsupported(fn);
}

nd_status nd_comm_reduce(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op,
                         int root) {
  const char *fn = "nd_comm_reduce";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  return nd__unsupported(fn);
}

nd_status nd_comm_broadcast(nd_comm *comm, nd_array *a, int root) {
  const char *fn = "nd_comm_broadcast";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, a);
  return nd__unsupported(fn);
}

nd_status nd_comm_allgather(nd_comm *comm, const nd_array *send, nd_array *recv) {
  const char *fn = "nd_comm_allgather";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  return nd__unsupported(fn);
}

nd_status nd_comm_reduce_scatter(nd_comm *comm, const nd_array *send, nd_array *recv,
                                 nd_comm_op op) {
  const char *fn = "nd_comm_reduce_scatter";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  return nd__unsupported(fn);
}

nd_status nd_comm_alltoall(nd_comm *comm, const nd_array *send, nd_array *recv) {
  const char *fn = "nd_comm_alltoall";
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  return nd__unsupported(fn);
}

nd_status nd_comm_send(nd_comm *comm, const nd_array *a, int peer) {
  ND_CHECK_NULL("nd_comm_send", comm);
  ND_CHECK_NULL("nd_comm_send", a);
  return nd__unsupported("nd_comm_send");
}

nd_status nd_comm_recv(nd_comm *comm, nd_array *a, int peer) {
  ND_CHECK_NULL("nd_comm_recv", comm);
  ND_CHECK_NULL("nd_comm_recv", a);
  return nd__unsupported("nd_comm_recv");
}

#else /* ND_HAVE_NCCL */

/* ---- objects ------------------------------------------------------------------------------ */

/* An NCCL failure as a status, with NCCL's own last message. */
nd_status nd__comm_nccl_fail(const char *fn, const char *call, ncclResult_t r, ncclComm_t c) {
  const char *last = ncclGetLastError(c);
  (void)cudaGetLastError(); /* a failed launch inside NCCL must not leak into the next call */
  return nd__error(ND_ERR_NCCL, "%s: %s failed: %s (ncclResult_t %d)%s%s", fn, call,
                   ncclGetErrorString(r), (int)r, last && *last ? ": " : "", last ? last : "");
}
int nd_comm_available(void) { return 1; }

nd_status nd_comm_nccl_version(int *version) {
  ND_CHECK_NULL("nd_comm_nccl_version", version);
  return ND_NCCL("nd_comm_nccl_version", ncclGetVersion(version), NULL);
}

static nd_status nd__device_count(const char *fn, int *count) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_NO_DEVICE, "%s: no CUDA device is available (%s)", fn,
                     e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
  }
  *count = n;
  return ND_OK;
}

nd_status nd_comm_init_all(int ndev, const int *devices, nd_comm **comms) {
  const char *fn = "nd_comm_init_all";
  ND_CHECK_NULL(fn, comms);
  if (ndev < 1 || ndev > ND__MAX_DEVICES)
    return nd__error(ND_ERR_VALUE, "%s: ndev must be in [1, %d] (got %d)", fn, ND__MAX_DEVICES,
                     ndev);
  int devs[ND__MAX_DEVICES];
  for (int i = 0; i < ndev; i++) {
    devs[i] = devices ? devices[i] : i;
    if (devs[i] < 0)
      return nd__error(ND_ERR_VALUE, "%s: devices[%d] is %d (negative)", fn, i, devs[i]);
    for (int j = 0; j < i; j++)
      if (devs[j] == devs[i])
        return nd__error(ND_ERR_VALUE, "%s: devices[%d] and devices[%d] are both device %d (one "
                         "rank per device)", fn, j, i, devs[i]);
  }
  int count = 0;
  ND_TRY(nd__device_count(fn, &count));
  for (int i = 0; i < ndev; i++)
    if (devs[i] >= count)
      return nd__error(ND_ERR_VALUE, "%s: devices[%d] is %d but this process sees %d device%s",
                       fn, i, devs[i], count, count == 1 ? "" : "s");
  nd__clique *cl = calloc(1, sizeof *cl);
  nd_comm *objs = calloc((size_t)ndev, sizeof *objs);
  ncclComm_t nc[ND__MAX_DEVICES];
  if (cl == NULL || objs == NULL) {
    free(cl);
    free(objs);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %d communicators", fn, ndev);
  }
  int prev = -1;
  (void)cudaGetDevice(&prev);
  nd_status st = ND_NCCL(fn, ncclCommInitAll(nc, ndev, devs), NULL);
  if (prev >= 0) (void)cudaSetDevice(prev); /* the caller's current device stays as it was */
  if (st != ND_OK) {
    free(cl);
    free(objs);
    return st;
  }
  /* One allocation per communicator so that each handle is destroyed on its own. */
  free(objs);
  atomic_init(&cl->refs, ndev);
  cl->nranks = ndev;
  for (int i = 0; i < ndev; i++) {
    nd_comm *c = calloc(1, sizeof *c);
    if (c == NULL) {
      for (int j = 0; j < i; j++) free(comms[j]);
      for (int j = 0; j < ndev; j++) (void)ncclCommDestroy(nc[j]);
      free(cl);
      return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for %d communicators", fn, ndev);
    }
    c->nc = nc[i];
    c->rank = i;
    c->nranks = ndev;
    c->device = devs[i];
    c->clique = cl;
    atomic_init(&c->pending, 0);
    comms[i] = c;
  }
  return ND_OK;
}

nd_status nd_comm_unique_id(nd_comm_id *id) {
  const char *fn = "nd_comm_unique_id";
  ND_CHECK_NULL(fn, id);
  ncclUniqueId u;
  ND_TRY(ND_NCCL(fn, ncclGetUniqueId(&u), NULL));
  memcpy(id->bytes, &u, sizeof u);
  return ND_OK;
}

nd_status nd_comm_init_rank(int nranks, const nd_comm_id *id, int rank, nd_comm **comm) {
  const char *fn = "nd_comm_init_rank";
  ND_CHECK_NULL(fn, id);
  ND_CHECK_NULL(fn, comm);
  if (nranks < 1)
    return nd__error(ND_ERR_VALUE, "%s: nranks must be at least 1 (got %d)", fn, nranks);
  if (rank < 0 || rank >= nranks)
    return nd__error(ND_ERR_VALUE, "%s: rank %d is out of range for %d rank%s", fn, rank, nranks,
                     nranks == 1 ? "" : "s");
  int d;
  ND_TRY(nd__device_current(fn, &d));
  nd_comm *c = calloc(1, sizeof *c);
  if (c == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
  ncclUniqueId u;
  memcpy(&u, id->bytes, sizeof u);
  nd_status st = ND_NCCL(fn, ncclCommInitRank(&c->nc, nranks, u, rank), NULL);
  if (st != ND_OK) {
    free(c);
    return st;
  }
  c->rank = rank;
  c->nranks = nranks;
  c->device = d;
  atomic_init(&c->pending, 0);
  *comm = c;
  return ND_OK;
}

nd_status nd_comm_destroy(nd_comm *comm) {
  const char *fn = "nd_comm_destroy";
  if (comm == NULL) return ND_OK;
  if (atomic_load(&comm->pending) > 0)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: rank %d still has %d call%s recorded in an "
                     "open group; end the group first", fn, comm->rank,
                     atomic_load(&comm->pending), atomic_load(&comm->pending) == 1 ? "" : "s");
  int prev = -1;
  (void)cudaGetDevice(&prev);
  nd_status st = ND_NCCL(fn, ncclCommDestroy(comm->nc), NULL);
  if (prev >= 0) (void)cudaSetDevice(prev);
  if (comm->clique && atomic_fetch_sub(&comm->clique->refs, 1) == 1) free(comm->clique);
  free(comm);
  return st;
}

nd_status nd_comm_rank(const nd_comm *comm, int *rank) {
  ND_CHECK_NULL("nd_comm_rank", comm);
  ND_CHECK_NULL("nd_comm_rank", rank);
  *rank = comm->rank;
  return ND_OK;
}

nd_status nd_comm_size(const nd_comm *comm, int *nranks) {
  ND_CHECK_NULL("nd_comm_size", comm);
  ND_CHECK_NULL("nd_comm_size", nranks);
  *nranks = comm->nranks;
  return ND_OK;
}

nd_status nd_comm_device(const nd_comm *comm, int *device) {
  ND_CHECK_NULL("nd_comm_device", comm);
  ND_CHECK_NULL("nd_comm_device", device);
  *device = comm->device;
  return ND_OK;
}

#endif /* ND_HAVE_NCCL */
