/* ndcuda: a NumPy-style GPU array runtime in C on CUDA.
 *
 * Stream semantics, stated once for the whole API: every operation enqueues its device work
 * on the calling thread's current stream (see ndcuda/stream.h) and returns without waiting,
 * unless its comment says it blocks. The library orders data between streams itself: when a
 * buffer written on one stream is used on another, it makes the consumer wait on an event. */
#ifndef NDCUDA_H
#define NDCUDA_H

#include "ndcuda/export.h"
#include "ndcuda/version.h"
#include "ndcuda/status.h"
#include "ndcuda/dtype.h"
#include "ndcuda/shape.h"
#include "ndcuda/stream.h"
#include "ndcuda/memory.h"
#include "ndcuda/array.h"
#include "ndcuda/reduce.h"
#include "ndcuda/sort.h"
#include "ndcuda/ufunc.h"
#include "ndcuda/linalg.h"
#include "ndcuda/random.h"
#include "ndcuda/jit.h"
#include "ndcuda/indexing.h"
#include "ndcuda/interop.h"
#include "ndcuda/device.h"
#include "ndcuda/comm.h"

#endif /* NDCUDA_H */
