/* Internal helpers shared by sort/sort.c and sort/search.c. Not installed. */
#ifndef ND_SORT_INTERNAL_H
#define ND_SORT_INTERNAL_H

#include "src/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch buffers of one operation, allocated from the pool on its stream and released
 * (stream-ordered) together. */
#define ND__TEMPS_MAX 12
typedef struct nd__temps {
  const char *fn;
  nd_stream *s;
  nd__buffer *b[ND__TEMPS_MAX];
  int n;
} nd__temps;

nd_status nd__temp(nd__temps *t, int64_t bytes, void **ptr);
void nd__temps_release(nd__temps *t);

/* Opens a hazard-tracked phase on t's stream: reads (NULL entries skipped), writes, and every
 * temporary of t as a write. nd__phase_end closes it, adding fn to a failure's message. */
nd_status nd__phase_begin(nd__sync *sync, nd__temps *t, int nread, const nd_array *const *reads,
                          int nwrite, nd_array *const *writes);
nd_status nd__phase_end(nd__sync *sync, const char *fn, nd_status st);

/* Bits needed to hold x >= 0 (0 for 0). */
int nd__bits_for(int64_t x);

/* A new C-ordered array: a sorted along axis (ND_AXIS_NONE: flattened), or the argsort
 * indices (int64) when want_idx. */
nd_status nd__sorted_copy(const char *fn, const nd_array *a, int64_t axis, int want_idx,
                          nd_array **result);

#ifdef __cplusplus
}
#endif

#endif /* ND_SORT_INTERNAL_H */
