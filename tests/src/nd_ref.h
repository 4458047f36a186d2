/* Host reference for the GPU suites: NumPy's element conversions, a tiny strided host array,
 * and the glue that uploads a reference to the device and checks a device array against one.
 *
 * Every GPU suite compares what ndcuda computes with what this file computes on the host.
 * The reference is deliberately simple (one element at a time, through explicit index
 * arithmetic) and is itself checked for real on the host by test_convert_host: its
 * conversions against a table generated with NumPy, its indexing and views against
 * hand-written expectations. Helpers that talk to the device assert with Check, so they are
 * for use inside tests only.
 *
 * Conventions: an nd_ref is a plain value. nd_ref_new and the functions that say "owned"
 * return storage that nd_ref_free releases; views (slice, permute, flip, index, broadcast)
 * share the storage of their source and must not outlive it (nd_ref_free on a view is a
 * no-op). Strides are in bytes and may be negative or zero, as on the device. */
#ifndef ND_TEST_REF_H
#define ND_TEST_REF_H

#include <stddef.h>
#include <stdint.h>

#include "tests/nd_test.h"

#if defined(__GNUC__)
#define ND_REF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ND_REF_PRINTF(a, b)
#endif

/* ---- elements ------------------------------------------------------------------------- */

/* One element of dtype dt at p, as a strong scalar of that dtype (b, i, u, f or c filled). */
nd_scalar nd_ref_load(nd_dtype dt, const void *p);

/* Writes v converted to dt at p with NumPy's unsafe-cast results on x86-64 (the values its
 * vectorised cast loops give; see nd_ref.c for the one place where NumPy's scalar loop
 * differs). Weak kinds convert as int64, float64 and complex128 do. */
void nd_ref_store(nd_dtype dt, void *p, nd_scalar v);

/* v converted to dt, as a scalar of dtype dt. */
nd_scalar nd_ref_cast(nd_scalar v, nd_dtype dt);

/* 1 when the elements at a and b are the same value of dt: identical bytes, except that any
 * NaN matches any NaN (per component for complex), since NaN payloads differ between
 * devices. -0.0 and 0.0 are different values here. */
int nd_ref_same(nd_dtype dt, const void *a, const void *b);

/* "float32 -1.5 [0xbfc00000]": dtype, value and, for floats, the bits. Returns buf. */
char *nd_ref_format(nd_dtype dt, const void *p, char *buf, size_t cap);
char *nd_ref_format_scalar(nd_scalar v, char *buf, size_t cap);

/* IEEE binary16 from double (round to nearest even) and back, written independently of
 * src/convert.c (scaling with frexp/ldexp instead of bit manipulation). */
uint16_t nd_ref_double_to_half(double x);
double nd_ref_half_to_double(uint16_t h);

/* ---- host arrays ---------------------------------------------------------------------- */

typedef struct nd_ref {
  nd_dtype dtype;
  int ndim;
  int64_t shape[ND_MAXDIMS];
  int64_t strides[ND_MAXDIMS]; /* bytes */
  int64_t size;
  size_t itemsize;
  unsigned char *data;  /* element (0, ..., 0) */
  unsigned char *owned; /* storage to free; NULL for a view */
} nd_ref;

/* A zero-filled owned array in C ('C') or Fortran ('F') order. */
nd_ref nd_ref_new(nd_dtype dt, int ndim, const int64_t *shape);
nd_ref nd_ref_new_order(nd_dtype dt, int ndim, const int64_t *shape, char order);
void nd_ref_free(nd_ref *r);

/* The C-order multi-index of linear element k (shape must have no zero dimension). */
void nd_ref_unravel(int ndim, const int64_t *shape, int64_t k, int64_t *idx);
unsigned char *nd_ref_ptr(const nd_ref *r, const int64_t *idx);
/* The k-th element in C order. */
unsigned char *nd_ref_flat(const nd_ref *r, int64_t k);
nd_scalar nd_ref_get(const nd_ref *r, int64_t k);
void nd_ref_set(nd_ref *r, int64_t k, nd_scalar v);

/* A deterministic value for element k of a test array of dtype dt: distinct for nearby k
 * (as far as the dtype allows) and exactly representable, so that a misplaced element shows. */
nd_scalar nd_ref_pattern(nd_dtype dt, int64_t k);
/* Sets element k (C order) of r to nd_ref_pattern(dtype, k + seed). */
void nd_ref_fill_pattern(nd_ref *r, int64_t seed);
/* Sets every element to v (converted). */
void nd_ref_fill(nd_ref *r, nd_scalar v);

/* out[idx] = src[map(idx)] for every idx of (ndim, shape): an owned C-ordered result. The
 * map writes src's multi-index; it is checked against src's shape. */
typedef void (*nd_ref_map)(const int64_t *out_idx, int64_t *src_idx, const void *ctx);
nd_ref nd_ref_gather(const nd_ref *src, int ndim, const int64_t *shape, nd_ref_map map,
                     const void *ctx);

/* Owned C-ordered copies: as is, converted, and reshaped (C order, same size). */
nd_ref nd_ref_copy(const nd_ref *src);
nd_ref nd_ref_astype(const nd_ref *src, nd_dtype dt);
nd_ref nd_ref_reshape(const nd_ref *src, int ndim, const int64_t *shape);

/* dst[...] = src[...]: src broadcast to dst's shape and converted to dst's dtype, read
 * completely before any write (so overlapping views behave as NumPy's assignment). */
void nd_ref_assign(nd_ref *dst, const nd_ref *src);

/* Views sharing r's storage. slice: Python slices on the first n axes (nd_slice_indices);
 * permute: axis i of the result is axis perm[i] of r; flip: reverses one axis; index: drops
 * one axis at position i (negative counts from the end); broadcast: NumPy broadcasting. */
nd_ref nd_ref_slice(const nd_ref *r, int n, const nd_slice *slices);
nd_ref nd_ref_permute(const nd_ref *r, const int *perm);
nd_ref nd_ref_flip(const nd_ref *r, int axis);
nd_ref nd_ref_index(const nd_ref *r, int axis, int64_t i);
nd_ref nd_ref_broadcast(const nd_ref *r, int ndim, const int64_t *shape);

/* ---- device glue (Check assertions on failure) ---------------------------------------- */

/* A new device array with r's shape, dtype and values (C order). */
nd_array *nd_ref_upload(const nd_ref *r);
/* An owned host copy of a device array (any layout), through nd_array_to_host. */
nd_ref nd_ref_download(const nd_array *a);

/* Asserts that a has want's dtype, shape and values (nd_ref_same for each element). The
 * message names the context (printf format), a's geometry and the first mismatches. */
void nd_ref_expect(const nd_array *a, const nd_ref *want, const char *fmt, ...)
    ND_REF_PRINTF(3, 4);
/* The same for two host arrays. */
void nd_ref_expect_ref(const nd_ref *got, const nd_ref *want, const char *fmt, ...)
    ND_REF_PRINTF(3, 4);

/* "(3, 4)" / "(5,)" / "()". Returns buf. */
char *nd_ref_shape_str(int ndim, const int64_t *shape, char *buf, size_t cap);
/* "float32 shape (3, 4) strides (16, 4) offset 8 flags C W": for failure messages. */
char *nd_ref_describe(const nd_array *a, char *buf, size_t cap);

/* ---- awkward layouts -------------------------------------------------------------------- */

/* The layouts every GPU op is checked over: one test array made the same way on the device
 * (through ndcuda's views) and on the host (through the views above), filled with
 * nd_ref_pattern values. Shapes are (rows, cols), except ZERO_SIZE (0, cols) and SCALAR (). */
typedef enum nd_ref_layout_kind {
  ND_REF_CONTIG = 0,     /* a fresh C-contiguous array */
  ND_REF_OFFSET = 1,     /* base[1:1+rows, 2:2+cols]: a byte offset, padded rows */
  ND_REF_TRANSPOSED = 2, /* base.T of a (cols, rows) array */
  ND_REF_NEGATIVE = 3,   /* base[::-1, ::-1] */
  ND_REF_STEPPED = 4,    /* base[1::2, ::-3] of a (2*rows, 3*cols) array */
  ND_REF_BROADCAST = 5,  /* broadcast_to(base, (rows, cols)) of a (cols,) array: read-only */
  ND_REF_ZERO_SIZE = 6,  /* base[rows:rows] */
  ND_REF_SCALAR = 7,     /* base[1] of a (3,) array: 0-d */
  ND_REF_NUM_LAYOUTS = 8
} nd_ref_layout_kind;

typedef struct nd_ref_layout {
  const char *name;
  nd_array *array; /* the view on the device (a new reference) */
  nd_ref ref;      /* the same view of base_ref */
  nd_array *base;
  nd_ref base_ref;
} nd_ref_layout;

void nd_ref_layout_make(nd_ref_layout_kind kind, nd_dtype dt, int64_t rows, int64_t cols,
                        int64_t seed, nd_ref_layout *out);
void nd_ref_layout_free(nd_ref_layout *l);

/* ---- NumPy's cast table ---------------------------------------------------------------- */

/* For each source dtype, a list of values (bytes as hex, little-endian) and the bytes NumPy's
 * astype gives for each of the 14 target dtypes. Generated once with NumPy 2.4 on x86-64;
 * see nd_ref.c. */
typedef struct nd_ref_cast_case {
  nd_dtype src;
  int n;
  const char *src_hex;
  const char *dst_hex[ND_NUM_DTYPES];
} nd_ref_cast_case;

extern const nd_ref_cast_case nd_ref_cast_table[ND_NUM_DTYPES];

/* Decodes a hex string into at most cap bytes; returns the number of bytes, or -1 for a
 * malformed string or too little room. */
int64_t nd_ref_unhex(const char *hex, unsigned char *out, size_t cap);

#endif /* ND_TEST_REF_H */
