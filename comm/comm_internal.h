/* The communicator object and the NCCL helpers shared by comm/comm.c (communicators) and
 * comm/collectives.c (collectives). Only built with NCCL. Not installed. */
#ifndef ND_COMM_INTERNAL_H
#define ND_COMM_INTERNAL_H

#include <stdatomic.h>

#include <cuda_runtime.h>
/* nccl.h declares ncclGroupStart() and a few others without (void). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "src/internal.h"

_Static_assert(sizeof(ncclUniqueId) == ND_COMM_ID_BYTES, "nd_comm_id must hold an ncclUniqueId");

/* The communicators one nd_comm_init_all made together: the unit whose ranks a group can see
 * all of, and so check against each other. */
typedef struct nd__clique {
  atomic_int refs;
  int nranks;
} nd__clique;

struct nd_comm {
  ncclComm_t nc;
  int rank;
  int nranks;
  int device;
  nd__clique *clique; /* NULL for a communicator from nd_comm_init_rank */
  atomic_int pending; /* records naming it in some thread's open group */
};

/* An NCCL failure as a status, with NCCL's own last message (clears CUDA's last error). */
nd_status nd__comm_nccl_fail(const char *fn, const char *call, ncclResult_t r, ncclComm_t c);

#define ND_NCCL(fn, call, comm)                                                         \
  __extension__({                                                                       \
    ncclResult_t nd__r_ = (call);                                                       \
    nd__r_ == ncclSuccess ? ND_OK : nd__comm_nccl_fail((fn), #call, nd__r_, (comm));    \
  })

#endif /* ND_COMM_INTERNAL_H */
