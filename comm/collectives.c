/* Collectives on arrays (include/ndcuda/comm.h): call records, groups, the cross-rank check
 * and the issue of a batch through NCCL. Communicators are made in comm/comm.c.
 *
 * Every collective goes the same way, grouped or not: the public function checks its
 * arguments and turns them into a call record (comm_call: NCCL datatype and count, root or
 * peer, the arrays retained, the current stream captured, staging buffers for views that are
 * not C-contiguous). Outside a group the record is issued at once; inside one it is appended to
 * the thread's pending list and issued by the outermost nd_comm_group_end, after the ranks of
 * each nd_comm_init_all set have been checked against each other. Issuing a batch inserts the
 * hazard waits of every record, makes the NCCL calls (in one ncclGroupStart/End when there is
 * more than one, or an all-to-all), and then records the accesses and copies staged outputs
 * back: the record has to come after ncclGroupEnd, because NCCL enqueues its kernels there,
 * and an event recorded earlier would not cover them.
 *
 * Compiled to nothing without NCCL: comm/comm.c then holds every public function (they return
 * ND_ERR_UNSUPPORTED). */
#ifdef ND_HAVE_NCCL
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm_internal.h"
#include "src/api_scope.h"
#include "src/array.h"
#include "src/device.h"
#include "streams/hazard.h"
#include "streams/stream_internal.h"

static const char *const nd__op_names[] = {"sum", "prod", "min", "max", "avg"};

static nd_status nd__check_op(const char *fn, nd_comm_op op) {
  if ((int)op < 0 || (int)op > (int)ND_COMM_AVG)
    return nd__error(ND_ERR_VALUE, "%s: op %d is not an nd_comm_op (ND_COMM_SUM .. ND_COMM_AVG)",
                     fn, (int)op);
  return ND_OK;
}

/* ---- call records ----------------------------------------------------------------------- */

enum nd__comm_kind {
  ND__C_ALLREDUCE,
  ND__C_REDUCE,
  ND__C_BROADCAST,
  ND__C_ALLGATHER,
  ND__C_REDUCE_SCATTER,
  ND__C_ALLTOALL,
  ND__C_SEND,
  ND__C_RECV
};

typedef struct comm_call {
  int kind;
  const char *fn;
  nd_comm *comm;
  nd_stream *stream; /* the caller's current stream at the call (retained) */
  nd_array *in;      /* what NCCL reads: the caller's array or its staging copy (retained) */
  nd_array *out;     /* what NCCL writes: the caller's array or a staging buffer (retained) */
  nd_array *back;    /* the caller's output when `out` is a staging buffer (retained) */
  ncclDataType_t type;
  size_t count; /* NCCL elements: per rank's block for allgather/reduce_scatter/alltoall */
  ncclRedOp_t op;
  int peer; /* root, or the peer of send/recv; -1 otherwise */
  /* What the caller passed, for messages and the cross-rank check. */
  nd_dtype dtype;
  int64_t nelem;
  int ndop;
} comm_call;

static void nd__call_release(comm_call *c) {
  nd_array_release(c->in);
  nd_array_release(c->out);
  nd_array_release(c->back);
  if (c->stream) nd__stream_release(c->stream);
  c->in = c->out = c->back = NULL;
  c->stream = NULL;
}

static _Thread_local int nd__group_depth;
/* The first failure of a call made inside the open group (ND_OK if none): the outermost end
 * then enqueues nothing, since issuing the other ranks' calls without the failed one would
 * leave them waiting for it. */
static _Thread_local nd_status nd__group_failed;

static nd_status nd__note(nd_status st) {
  if (st != ND_OK && nd__group_depth > 0 && nd__group_failed == ND_OK) nd__group_failed = st;
  return st;
}
static _Thread_local comm_call *nd__pending;
static _Thread_local int nd__npending, nd__cappending;

static const char *const nd__kind_fn[] = {
    "nd_comm_allreduce", "nd_comm_reduce",   "nd_comm_broadcast", "nd_comm_allgather",
    "nd_comm_reduce_scatter", "nd_comm_alltoall", "nd_comm_send", "nd_comm_recv"};

/* The NCCL type and the number of NCCL elements per array element. reduce is the operation
 * for reductions, -1 for pure data movement. */
static nd_status nd__comm_type(const char *fn, const char *arg, nd_dtype dt, int reduce,
                               ncclDataType_t *type, int *mult) {
  *mult = 1;
  int integer = 1;
  switch (dt) {
    case ND_INT8: *type = ncclInt8; break;
    case ND_UINT8: *type = ncclUint8; break;
    case ND_INT32: *type = ncclInt32; break;
    case ND_UINT32: *type = ncclUint32; break;
    case ND_INT64: *type = ncclInt64; break;
    case ND_UINT64: *type = ncclUint64; break;
    case ND_FLOAT16: *type = ncclFloat16; integer = 0; break;
    case ND_FLOAT32: *type = ncclFloat32; integer = 0; break;
    case ND_FLOAT64: *type = ncclFloat64; integer = 0; break;
    default: integer = -1; break; /* no NCCL type */
  }
  if (integer >= 0) {
    if (integer && reduce == ND_COMM_AVG)
      return nd__error(ND_ERR_DTYPE, "%s: ND_COMM_AVG of %s '%s' is not supported (NCCL would "
                       "truncate the integer average); cast to a floating-point dtype first or "
                       "use ND_COMM_SUM", fn, nd_dtype_name(dt), arg);
    return ND_OK;
  }
  if (reduce < 0) { /* data movement: anything travels as bytes */
    *type = ncclUint8;
    *mult = (int)nd_dtype_itemsize(dt);
    return ND_OK;
  }
  if (dt == ND_BOOL) {
    if (reduce == ND_COMM_MIN || reduce == ND_COMM_MAX) {
      *type = ncclUint8; /* logical and / or on 0 and 1 */
      return ND_OK;
    }
    return nd__error(ND_ERR_DTYPE, "%s: ND_COMM_%s of bool '%s' is not supported (only "
                     "ND_COMM_MIN, a logical and, and ND_COMM_MAX, a logical or); cast to an "
                     "integer dtype first", fn, reduce == ND_COMM_SUM ? "SUM" :
                     reduce == ND_COMM_PROD ? "PROD" : "AVG", arg);
  }
  if (dt == ND_COMPLEX64 || dt == ND_COMPLEX128) {
    if (reduce == ND_COMM_SUM || reduce == ND_COMM_AVG) {
      *type = dt == ND_COMPLEX64 ? ncclFloat32 : ncclFloat64;
      *mult = 2;
      return ND_OK;
    }
    return nd__error(ND_ERR_DTYPE, "%s: ND_COMM_%s of %s '%s' is not supported (only "
                     "ND_COMM_SUM and ND_COMM_AVG, taken on the real and imaginary parts)", fn,
                     reduce == ND_COMM_PROD ? "PROD" : reduce == ND_COMM_MIN ? "MIN" : "MAX",
                     nd_dtype_name(dt), arg);
  }
  return nd__error(ND_ERR_DTYPE, "%s: reductions of %s '%s' are not supported (NCCL has no "
                   "16-bit integer type); cast to int32 first", fn, nd_dtype_name(dt), arg);
}

static nd_status nd__check_comm(const char *fn, const nd_comm *comm) {
  int d;
  ND_TRY(nd__device_current(fn, &d));
  if (d != comm->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: the communicator of rank %d belongs to device "
                     "%d but the calling thread's current device is %d (make device %d current "
                     "first)", fn, comm->rank, comm->device, d, comm->device);
  return ND_OK;
}

static nd_status nd__check_array(const char *fn, const nd_comm *comm, const char *arg,
                                 const nd_array *a, int written) {
  if (a->buf->device != comm->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: '%s' lives on device %d but the communicator "
                     "of rank %d on device %d", fn, arg, a->buf->device, comm->rank,
                     comm->device);
  if (written && !a->writeable)
    return nd__error(ND_ERR_READ_ONLY, "%s: '%s' is read-only (a broadcast view or marked so)",
                     fn, arg);
  return ND_OK;
}

static nd_status nd__check_rank(const char *fn, const nd_comm *comm, const char *arg, int r) {
  if (r < 0 || r >= comm->nranks)
    return nd__error(ND_ERR_VALUE, "%s: %s %d is out of range for a communicator of %d rank%s",
                     fn, arg, r, comm->nranks, comm->nranks == 1 ? "" : "s");
  return ND_OK;
}

static nd_status nd__same_dtype(const char *fn, const nd_array *a, const char *an,
                                const nd_array *b, const char *bn) {
  if (a->dtype != b->dtype)
    return nd__error(ND_ERR_DTYPE, "%s: '%s' is %s but '%s' is %s (no conversion is done)", fn,
                     an, nd_dtype_name(a->dtype), bn, nd_dtype_name(b->dtype));
  return ND_OK;
}

static int nd__same_memory(const nd_array *a, const nd_array *b) {
  return a->buf == b->buf && a->offset == b->offset && a->size == b->size &&
         a->dtype == b->dtype && nd_array_is_c_contiguous(a) && nd_array_is_c_contiguous(b);
}

static void *nd__ptr(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }

/* Finishes a record: retains the arrays, captures the stream, stages views that NCCL cannot
 * take, then issues it or appends it to the group. `in` and `out` are the caller's arrays
 * (either may be NULL); inplace_ok says whether NCCL accepts in == out. */
static nd_status nd__comm_issue(comm_call *calls, int n, const char *fn);

static nd_status nd__comm_submit(comm_call *c, const nd_array *in, nd_array *out, int inplace_ok) {
  const char *fn = c->fn;
  c->stream = nd__stream_current_for(c->comm->device);
  if (c->stream == NULL)
    return nd__error(ND_ERR_CUDA, "%s: no current stream on device %d", fn, c->comm->device);
  nd__stream_retain(c->stream);
  nd_status st = ND_OK;
  if (in != NULL) {
    int stage = !nd_array_is_c_contiguous(in);
    if (out != NULL && !stage && nd__array_may_overlap(in, out))
      stage = !(inplace_ok && nd__same_memory(in, out));
    if (stage && in->size > 0)
      st = nd_array_copy(in, ND_ORDER_C, &c->in);
    else
      c->in = nd_array_retain((nd_array *)in);
  }
  if (st == ND_OK && out != NULL) {
    if (!nd_array_is_c_contiguous(out) && out->size > 0) {
      st = nd__array_alloc(fn, out->ndim, out->shape, out->dtype, 'C', &c->out);
      if (st == ND_OK) c->back = nd_array_retain(out);
    } else {
      c->out = nd_array_retain(out);
    }
  }
  if (st != ND_OK) {
    nd__call_release(c);
    return st;
  }
  if (nd__group_depth == 0) {
    st = nd__comm_issue(c, 1, fn);
    nd__call_release(c);
    return st;
  }
  if (nd__npending == nd__cappending) {
    int cap = nd__cappending ? 2 * nd__cappending : 16;
    comm_call *p = realloc(nd__pending, (size_t)cap * sizeof *p);
    if (p == NULL) {
      nd__call_release(c);
      return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory to record the call in the "
                       "group", fn);
    }
    nd__pending = p;
    nd__cappending = cap;
  }
  atomic_fetch_add(&c->comm->pending, 1);
  nd__pending[nd__npending++] = *c;
  return ND_OK;
}

static void nd__call_init(comm_call *c, int kind, nd_comm *comm) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->fn = nd__kind_fn[kind];
  c->comm = comm;
  c->peer = -1;
  c->ndop = -1;
}

/* ---- issuing a batch ---------------------------------------------------------------------- */

static nd_status nd__set_device(const char *fn, int d, int *cur) {
  if (*cur == d) return ND_OK;
  nd_status st = ND_CUDA(cudaSetDevice(d));
  if (st != ND_OK) return nd__error_context(st, fn);
  *cur = d;
  return ND_OK;
}

static nd_status nd__launch(const comm_call *c) {
  const char *fn = c->fn;
  ncclComm_t nc = c->comm->nc;
  cudaStream_t s = (cudaStream_t)c->stream->cu;
  void *in = c->in ? nd__ptr(c->in) : NULL;
  void *out = c->out ? nd__ptr(c->out) : NULL;
  switch (c->kind) {
    case ND__C_ALLREDUCE:
      return ND_NCCL(fn, ncclAllReduce(in, out, c->count, c->type, c->op, nc, s), nc);
    case ND__C_REDUCE:
      return ND_NCCL(fn, ncclReduce(in, out ? out : in, c->count, c->type, c->op, c->peer, nc, s),
                     nc);
    case ND__C_BROADCAST: {
      void *p = out ? out : in;
      return ND_NCCL(fn, ncclBroadcast(in ? in : p, p, c->count, c->type, c->peer, nc, s), nc);
    }
    case ND__C_ALLGATHER:
      return ND_NCCL(fn, ncclAllGather(in, out, c->count, c->type, nc, s), nc);
    case ND__C_REDUCE_SCATTER:
      return ND_NCCL(fn, ncclReduceScatter(in, out, c->count, c->type, c->op, nc, s), nc);
    case ND__C_ALLTOALL: {
      size_t blk = (size_t)c->nelem * nd_dtype_itemsize(c->dtype); /* bytes per peer */
      for (int r = 0; r < c->comm->nranks; r++) {
        ND_TRY(ND_NCCL(fn, ncclSend((char *)in + (size_t)r * blk, c->count, c->type, r, nc, s), nc));
        ND_TRY(ND_NCCL(fn, ncclRecv((char *)out + (size_t)r * blk, c->count, c->type, r, nc, s), nc));
      }
      return ND_OK;
    }
    case ND__C_SEND:
      return ND_NCCL(fn, ncclSend(in, c->count, c->type, c->peer, nc, s), nc);
    case ND__C_RECV:
      return ND_NCCL(fn, ncclRecv(out, c->count, c->type, c->peer, nc, s), nc);
  }
  return nd__error(ND_ERR_INTERNAL, "%s: unknown call kind %d", fn, c->kind);
}

static nd_status nd__sync_of(const comm_call *c, nd__sync *sync) {
  nd__sync_init(sync, c->stream);
  if (c->in) ND_TRY(nd__sync_add(sync, &c->in->buf->hz, ND__READ));
  if (c->out) ND_TRY(nd__sync_add(sync, &c->out->buf->hz, ND__WRITE));
  return ND_OK;
}

static nd_status nd__comm_issue(comm_call *calls, int n, const char *fn) {
  int prev = -1;
  if (nd__device_id(&prev) != 0) {
    (void)cudaGetLastError();
    return nd__error(ND_ERR_NO_DEVICE, "%s: cannot read the current device", fn);
  }
  int cur = prev;
  nd_status st = ND_OK;
  int grouped = n > 1;
  for (int i = 0; i < n; i++) {
    if (atomic_load(&calls[i].stream->destroyed))
      return nd__error(ND_ERR_STREAM, "%s: the stream current at the call on rank %d has been "
                       "destroyed before the group ended", calls[i].fn, calls[i].comm->rank);
    if (calls[i].kind == ND__C_ALLTOALL) grouped = 1;
  }
  /* Waits first, for every call: each is enqueued before NCCL's kernels. */
  for (int i = 0; i < n && st == ND_OK; i++) {
    if (calls[i].count == 0) continue;
    nd__sync sync;
    st = nd__set_device(fn, calls[i].comm->device, &cur);
    if (st == ND_OK) st = nd__sync_of(&calls[i], &sync);
    if (st == ND_OK) st = nd__sync_begin(&sync);
  }
  if (st != ND_OK) goto done;
  if (grouped) {
    st = ND_NCCL(fn, ncclGroupStart(), NULL);
    if (st != ND_OK) goto done;
  }
  for (int i = 0; i < n; i++) {
    if (calls[i].count == 0) continue;
    nd_status s2 = nd__launch(&calls[i]);
    if (st == ND_OK) st = s2;
    if (st != ND_OK && !grouped) break;
  }
  if (grouped) {
    /* The group must be closed even after a failed call, or NCCL keeps it open on this
     * thread. */
    nd_status s2 = ND_NCCL(fn, ncclGroupEnd(), NULL);
    if (st == ND_OK) st = s2;
  }
  if (st != ND_OK) goto done;
  for (int i = 0; i < n && st == ND_OK; i++) {
    comm_call *c = &calls[i];
    if (c->count == 0) continue;
    nd__sync sync;
    st = nd__set_device(fn, c->comm->device, &cur);
    if (st == ND_OK) st = nd__sync_of(c, &sync);
    if (st == ND_OK) st = nd__sync_end(&sync);
    if (st == ND_OK && c->back != NULL) {
      /* The staged output goes into the caller's view on the call's own stream. */
      st = nd_stream_push(c->stream);
      if (st == ND_OK) {
        st = nd__assign(c->fn, c->back, c->out);
        nd_status s2 = nd_stream_pop();
        if (st == ND_OK) st = s2;
      }
    }
  }
done:
  if (cur != prev) (void)cudaSetDevice(prev);
  return st;
}

/* ---- the cross-rank check of a group ------------------------------------------------------ */

static int nd__is_p2p(int kind) { return kind == ND__C_SEND || kind == ND__C_RECV; }

static void nd__describe(const comm_call *c, char *buf, size_t cap) {
  int64_t nelem = c->nelem;
  if (c->kind == ND__C_SEND || c->kind == ND__C_RECV)
    snprintf(buf, cap, "%s of %lld %s %s rank %d", c->fn, (long long)nelem,
             nd_dtype_name(c->dtype), c->kind == ND__C_SEND ? "to" : "from", c->peer);
  else
    snprintf(buf, cap, "%s of %lld %s%s%s", c->fn, (long long)nelem, nd_dtype_name(c->dtype),
             c->ndop >= 0 ? " " : "", c->ndop >= 0 ? nd__op_names[c->ndop] : "");
}

static int nd__collectives_agree(const comm_call *a, const comm_call *b) {
  return a->kind == b->kind && a->type == b->type && a->count == b->count && a->op == b->op &&
         a->peer == b->peer;
}

static nd_status nd__check_group(comm_call *calls, int n) {
  const char *fn = "nd_comm_group_end";
  for (int i = 0; i < n; i++) {
    nd__clique *cl = calls[i].comm->clique;
    if (cl == NULL) continue;
    int seen_before = 0;
    for (int j = 0; j < i && !seen_before; j++) seen_before = calls[j].comm->clique == cl;
    if (seen_before) continue;
    /* Which ranks of this set the group holds calls for. */
    int present[ND__MAX_DEVICES] = {0};
    int npresent = 0;
    for (int j = i; j < n; j++)
      if (calls[j].comm->clique == cl && !present[calls[j].comm->rank]) {
        present[calls[j].comm->rank] = 1;
        npresent++;
      }
    if (npresent < cl->nranks) continue; /* other threads may hold the rest: nothing to check */
    /* Collectives: the k-th of every rank must agree with rank 0's k-th. */
    int k0 = 0;
    for (int j = i; j < n; j++) {
      const comm_call *a = &calls[j];
      if (a->comm->clique != cl || a->comm->rank != 0 || nd__is_p2p(a->kind)) continue;
      for (int r = 1; r < cl->nranks; r++) {
        int k = 0;
        const comm_call *b = NULL;
        for (int m = i; m < n && b == NULL; m++)
          if (calls[m].comm->clique == cl && calls[m].comm->rank == r && !nd__is_p2p(calls[m].kind))
            if (k++ == k0) b = &calls[m];
        char da[160], db[160];
        nd__describe(a, da, sizeof da);
        if (b == NULL)
          return nd__error(ND_ERR_VALUE, "%s: ranks disagree: collective %d of rank 0 is %s but "
                           "rank %d has no collective %d in the group; nothing was enqueued", fn,
                           k0, da, r, k0);
        if (!nd__collectives_agree(a, b)) {
          nd__describe(b, db, sizeof db);
          if (a->kind == b->kind && a->peer != b->peer)
            return nd__error(ND_ERR_VALUE, "%s: ranks disagree: collective %d of rank 0 is %s "
                             "from root %d but of rank %d from root %d; nothing was enqueued", fn,
                             k0, da, a->peer, r, b->peer);
          return nd__error(ND_ERR_VALUE, "%s: ranks disagree: collective %d of rank 0 is %s but "
                           "of rank %d %s; nothing was enqueued", fn, k0, da, r, db);
        }
      }
      k0++;
    }
    for (int r = 1; r < cl->nranks; r++) {
      int kr = 0;
      for (int m = i; m < n; m++)
        if (calls[m].comm->clique == cl && calls[m].comm->rank == r && !nd__is_p2p(calls[m].kind))
          kr++;
      if (kr != k0)
        return nd__error(ND_ERR_VALUE, "%s: ranks disagree: rank 0 makes %d collective call%s in "
                         "the group but rank %d makes %d; nothing was enqueued", fn, k0,
                         k0 == 1 ? "" : "s", r, kr);
    }
    /* Point to point: the k-th send from a to b meets the k-th receive on b from a. */
    for (int j = i; j < n; j++) {
      const comm_call *s = &calls[j];
      if (s->comm->clique != cl || !nd__is_p2p(s->kind)) continue;
      int from = s->kind == ND__C_SEND ? s->comm->rank : s->peer;
      int to = s->kind == ND__C_SEND ? s->peer : s->comm->rank;
      int other_kind = s->kind == ND__C_SEND ? ND__C_RECV : ND__C_SEND;
      int other_rank = s->peer, my_rank = s->comm->rank;
      int k = 0, km = 0;
      for (int m = i; m < j; m++)
        if (calls[m].comm->clique == cl && calls[m].kind == s->kind &&
            calls[m].comm->rank == my_rank && calls[m].peer == other_rank)
          k++;
      const comm_call *t = NULL;
      for (int m = i; m < n && t == NULL; m++)
        if (calls[m].comm->clique == cl && calls[m].kind == other_kind &&
            calls[m].comm->rank == other_rank && calls[m].peer == my_rank)
          if (km++ == k) t = &calls[m];
      char ds[160], dt[160];
      nd__describe(s, ds, sizeof ds);
      if (t == NULL)
        return nd__error(ND_ERR_VALUE, "%s: rank %d makes %s but rank %d posts no matching %s "
                         "(transfer %d from rank %d to rank %d); nothing was enqueued", fn,
                         my_rank, ds, other_rank,
                         other_kind == ND__C_RECV ? "nd_comm_recv" : "nd_comm_send", k, from, to);
      if (t->type != s->type || t->count != s->count) {
        nd__describe(t, dt, sizeof dt);
        return nd__error(ND_ERR_VALUE, "%s: rank %d makes %s but rank %d %s (sizes or dtypes "
                         "differ); nothing was enqueued", fn, my_rank, ds, other_rank, dt);
      }
    }
  }
  return ND_OK;
}

/* ---- groups ------------------------------------------------------------------------------- */

nd_status nd_comm_group_start(void) {
  nd__group_depth++;
  return ND_OK;
}

nd_status nd_comm_group_end(void) {
  const char *fn = "nd_comm_group_end";
  ND__API_SCOPE(fn);
  if (nd__group_depth == 0)
    return nd__error(ND_ERR_STREAM, "%s: no group was started on this thread "
                     "(nd_comm_group_start)", fn);
  if (--nd__group_depth > 0) return ND_OK;
  comm_call *calls = nd__pending;
  int n = nd__npending;
  nd__pending = NULL;
  nd__npending = nd__cappending = 0;
  nd_status failed = nd__group_failed;
  nd__group_failed = ND_OK;
  nd_status st = failed != ND_OK
                     ? nd__error(ND_ERR_INVALID_ARGUMENT, "%s: a call made in this group failed "
                                 "(%s), so none of its %d recorded call%s was enqueued", fn,
                                 nd_status_name(failed), n, n == 1 ? "" : "s")
                     : nd__check_group(calls, n);
  if (st == ND_OK && n > 0) st = nd__comm_issue(calls, n, fn);
  for (int i = 0; i < n; i++) {
    atomic_fetch_sub(&calls[i].comm->pending, 1);
    nd__call_release(&calls[i]);
  }
  free(calls);
  return st;
}

/* ---- the collectives -------------------------------------------------------------------- */

static nd_status nd__reduction_args(comm_call *c, const char *fn, const nd_array *send,
                                    nd_array *recv, nd_comm_op op, int64_t in_blocks) {
  ND_TRY(nd__check_op(fn, op));
  ND_TRY(nd__check_comm(fn, c->comm));
  ND_TRY(nd__check_array(fn, c->comm, "send", send, 0));
  if (recv != NULL) {
    ND_TRY(nd__check_array(fn, c->comm, "recv", recv, 1));
    ND_TRY(nd__same_dtype(fn, send, "send", recv, "recv"));
  }
  int mult;
  ND_TRY(nd__comm_type(fn, "send", send->dtype, (int)op, &c->type, &mult));
  static const ncclRedOp_t to_nccl[] = {ncclSum, ncclProd, ncclMin, ncclMax, ncclAvg};
  c->op = to_nccl[op];
  c->ndop = (int)op;
  c->dtype = send->dtype;
  c->nelem = send->size;
  c->count = (size_t)(send->size / in_blocks) * (size_t)mult;
  return ND_OK;
}


static nd_status nd__shape_match(const char *fn, const nd_array *a, const char *an,
                                 const nd_array *b, const char *bn) {
  if (a->ndim == b->ndim && !memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof(int64_t)))
    return ND_OK;
  char sa[ND__SHAPE_STR], sb[ND__SHAPE_STR];
  return nd__error(ND_ERR_SHAPE, "%s: '%s' has shape %s but '%s' has shape %s (they must match)",
                   fn, an, nd__format_shape(sa, sizeof sa, a->ndim, a->shape), bn,
                   nd__format_shape(sb, sizeof sb, b->ndim, b->shape));
}

static nd_status nd__allreduce_impl(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op) {
  const char *fn = "nd_comm_allreduce";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  comm_call c;
  nd__call_init(&c, ND__C_ALLREDUCE, comm);
  ND_TRY(nd__reduction_args(&c, fn, send, recv, op, 1));
  ND_TRY(nd__shape_match(fn, send, "send", recv, "recv"));
  return nd__comm_submit(&c, send, recv, 1);
}

static nd_status nd__reduce_impl(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op,
                         int root) {
  const char *fn = "nd_comm_reduce";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_TRY(nd__check_rank(fn, comm, "root", root));
  int is_root = comm->rank == root;
  if (is_root && recv == NULL)
    return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'recv' is NULL on the root (rank %d)",
                     fn, root);
  comm_call c;
  nd__call_init(&c, ND__C_REDUCE, comm);
  nd_array *out = is_root ? recv : NULL;
  ND_TRY(nd__reduction_args(&c, fn, send, out, op, 1));
  if (out) ND_TRY(nd__shape_match(fn, send, "send", out, "recv"));
  c.peer = root;
  return nd__comm_submit(&c, send, out, 1);
}

static nd_status nd__broadcast_impl(nd_comm *comm, nd_array *a, int root) {
  const char *fn = "nd_comm_broadcast";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, a);
  ND_TRY(nd__check_rank(fn, comm, "root", root));
  ND_TRY(nd__check_comm(fn, comm));
  int is_root = comm->rank == root;
  ND_TRY(nd__check_array(fn, comm, "a", a, !is_root));
  comm_call c;
  nd__call_init(&c, ND__C_BROADCAST, comm);
  int mult;
  ND_TRY(nd__comm_type(fn, "a", a->dtype, -1, &c.type, &mult));
  c.dtype = a->dtype;
  c.nelem = a->size;
  c.count = (size_t)a->size * (size_t)mult;
  c.peer = root;
  return nd__comm_submit(&c, is_root ? a : NULL, is_root ? NULL : a, 0);
}

static nd_status nd__sizes(const char *fn, const nd_array *big, const char *bn,
                           const nd_array *small, const char *sn, int nranks) {
  if (big->size != small->size * (int64_t)nranks) {
    char sa[ND__SHAPE_STR], sb[ND__SHAPE_STR];
    return nd__error(ND_ERR_SHAPE, "%s: '%s' (shape %s, %lld elements) must hold %d times the "
                     "%lld elements of '%s' (shape %s), one block per rank", fn, bn,
                     nd__format_shape(sa, sizeof sa, big->ndim, big->shape),
                     (long long)big->size, nranks, (long long)small->size, sn,
                     nd__format_shape(sb, sizeof sb, small->ndim, small->shape));
  }
  return ND_OK;
}

/* The checks of the collectives that move elements without reducing them (allgather,
 * all-to-all): non-NULL arguments, a usable communicator, both arrays on its device (recv
 * writable), one dtype. */
static nd_status nd__copy_args(const char *fn, nd_comm *comm, const nd_array *send, nd_array *recv) {
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  ND_TRY(nd__check_comm(fn, comm));
  ND_TRY(nd__check_array(fn, comm, "send", send, 0));
  ND_TRY(nd__check_array(fn, comm, "recv", recv, 1));
  return nd__same_dtype(fn, send, "send", recv, "recv");
}

static nd_status nd__allgather_impl(nd_comm *comm, const nd_array *send, nd_array *recv) {
  const char *fn = "nd_comm_allgather";
  ND__API_SCOPE(fn);
  ND_TRY(nd__copy_args(fn, comm, send, recv));
  ND_TRY(nd__sizes(fn, recv, "recv", send, "send", comm->nranks));
  comm_call c;
  nd__call_init(&c, ND__C_ALLGATHER, comm);
  int mult;
  ND_TRY(nd__comm_type(fn, "send", send->dtype, -1, &c.type, &mult));
  c.dtype = send->dtype;
  c.nelem = send->size;
  c.count = (size_t)send->size * (size_t)mult;
  return nd__comm_submit(&c, send, recv, 0);
}

static nd_status nd__reduce_scatter_impl(nd_comm *comm, const nd_array *send, nd_array *recv,
                                 nd_comm_op op) {
  const char *fn = "nd_comm_reduce_scatter";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, send);
  ND_CHECK_NULL(fn, recv);
  comm_call c;
  nd__call_init(&c, ND__C_REDUCE_SCATTER, comm);
  ND_TRY(nd__reduction_args(&c, fn, send, recv, op, comm->nranks > 0 ? comm->nranks : 1));
  ND_TRY(nd__sizes(fn, send, "send", recv, "recv", comm->nranks));
  c.nelem = recv->size;
  return nd__comm_submit(&c, send, recv, 0);
}

static nd_status nd__alltoall_impl(nd_comm *comm, const nd_array *send, nd_array *recv) {
  const char *fn = "nd_comm_alltoall";
  ND__API_SCOPE(fn);
  ND_TRY(nd__copy_args(fn, comm, send, recv));
  if (send->size != recv->size || send->size % comm->nranks != 0)
    return nd__error(ND_ERR_SHAPE, "%s: 'send' (%lld elements) and 'recv' (%lld elements) must "
                     "have the same size, a multiple of the %d ranks", fn,
                     (long long)send->size, (long long)recv->size, comm->nranks);
  comm_call c;
  nd__call_init(&c, ND__C_ALLTOALL, comm);
  int mult;
  ND_TRY(nd__comm_type(fn, "send", send->dtype, -1, &c.type, &mult));
  c.dtype = send->dtype;
  c.nelem = send->size / comm->nranks;
  c.count = (size_t)c.nelem * (size_t)mult;
  return nd__comm_submit(&c, send, recv, 0);
}

static nd_status nd__p2p(nd_comm *comm, const char *fn, int kind, nd_array *a, int peer) {
  ND_TRY(nd__check_rank(fn, comm, "peer", peer));
  ND_TRY(nd__check_comm(fn, comm));
  ND_TRY(nd__check_array(fn, comm, "a", a, kind == ND__C_RECV));
  comm_call c;
  nd__call_init(&c, kind, comm);
  int mult;
  ND_TRY(nd__comm_type(fn, "a", a->dtype, -1, &c.type, &mult));
  c.dtype = a->dtype;
  c.nelem = a->size;
  c.count = (size_t)a->size * (size_t)mult;
  c.peer = peer;
  return nd__comm_submit(&c, kind == ND__C_SEND ? a : NULL, kind == ND__C_RECV ? a : NULL, 0);
}

static nd_status nd__send_impl(nd_comm *comm, const nd_array *a, int peer) {
  const char *fn = "nd_comm_send";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, a);
  return nd__p2p(comm, fn, ND__C_SEND, (nd_array *)a, peer);
}

static nd_status nd__recv_impl(nd_comm *comm, nd_array *a, int peer) {
  const char *fn = "nd_comm_recv";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, comm);
  ND_CHECK_NULL(fn, a);
  return nd__p2p(comm, fn, ND__C_RECV, a, peer);
}


/* The public entry points: a failure inside a group poisons the group (see nd__note). */
nd_status nd_comm_allreduce(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op) {
  return nd__note(nd__allreduce_impl(comm, send, recv, op));
}

nd_status nd_comm_reduce(nd_comm *comm, const nd_array *send, nd_array *recv, nd_comm_op op,
                         int root) {
  return nd__note(nd__reduce_impl(comm, send, recv, op, root));
}

nd_status nd_comm_broadcast(nd_comm *comm, nd_array *a, int root) {
  return nd__note(nd__broadcast_impl(comm, a, root));
}

nd_status nd_comm_allgather(nd_comm *comm, const nd_array *send, nd_array *recv) {
  return nd__note(nd__allgather_impl(comm, send, recv));
}

nd_status nd_comm_reduce_scatter(nd_comm *comm, const nd_array *send, nd_array *recv,
                                 nd_comm_op op) {
  return nd__note(nd__reduce_scatter_impl(comm, send, recv, op));
}

nd_status nd_comm_alltoall(nd_comm *comm, const nd_array *send, nd_array *recv) {
  return nd__note(nd__alltoall_impl(comm, send, recv));
}

nd_status nd_comm_send(nd_comm *comm, const nd_array *a, int peer) {
  return nd__note(nd__send_impl(comm, a, peer));
}

nd_status nd_comm_recv(nd_comm *comm, nd_array *a, int peer) {
  return nd__note(nd__recv_impl(comm, a, peer));
}

#endif /* ND_HAVE_NCCL */
