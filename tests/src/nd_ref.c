/* Host reference for the GPU suites (see nd_ref.h). */
#define _POSIX_C_SOURCE 200809L
#include "tests/src/nd_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- conversions ---------------------------------------------------------------------- */

/* A value of any kind: 'i' (bool and signed), 'u', 'f' (half: came from float16), 'c'. */
typedef struct ref_val {
  int kind;
  int half;
  int64_t i;
  uint64_t u;
  double re, im;
} ref_val;

static ref_val ref_classify(nd_scalar v) {
  ref_val r;
  memset(&r, 0, sizeof r);
  r.kind = 'i';
  switch (nd_dtype_kind(v.dtype)) {
    case 'b': r.i = v.v.b != 0; break;
    case 'i': r.i = v.v.i; break;
    case 'u': r.kind = 'u'; r.u = v.v.u; break;
    case 'f':
      r.kind = 'f';
      r.half = v.dtype == ND_FLOAT16;
      r.re = v.v.f;
      break;
    case 'c':
      r.kind = 'c';
      r.re = v.v.c[0];
      r.im = v.v.c[1];
      break;
    default: break;
  }
  return r;
}

/* x86-64's truncating conversions (cvttsd2si): toward zero, or the "integer indefinite"
 * value, the most negative integer, for NaN and anything out of range. NumPy inherits them
 * because its casts are C casts compiled for that instruction set. */
static int64_t ref_trunc32(double x) {
  if (isnan(x) || x <= -2147483649.0 || x >= 2147483648.0) return INT32_MIN;
  return (int64_t)trunc(x);
}
static int64_t ref_trunc64(double x) {
  /* -2^63 - 2048 is the double below -2^63; everything above it truncates into range. */
  if (isnan(x) || x <= -9223372036854777856.0 || x >= 9223372036854775808.0) return INT64_MIN;
  return (int64_t)trunc(x);
}

/* Floating to uint32. NumPy's vectorised loop (what any array longer than a few elements
 * gets) is the compiler's split at 2^31 with 32-bit conversions; its scalar loop uses a
 * 64-bit conversion and keeps the low half, which differs for NaN, infinities and values
 * outside [-2^31, 2^32). Both are NumPy "on x86"; the table and ndcuda follow the vectorised
 * one. float16 sources go through int64 in NumPy's half loops either way. */
static uint64_t ref_to_u32(double x, int half) {
  if (half) return (uint32_t)(uint64_t)ref_trunc64(x);
  if (x >= 2147483648.0) return (uint32_t)ref_trunc32(x - 2147483648.0) ^ 0x80000000u;
  return (uint32_t)ref_trunc32(x);
}
static uint64_t ref_to_u64(double x) {
  if (x >= 9223372036854775808.0) return (uint64_t)ref_trunc64(x - 9223372036854775808.0) ^ (UINT64_C(1) << 63);
  return (uint64_t)ref_trunc64(x);
}

uint16_t nd_ref_double_to_half(double x) {
  uint16_t sign = signbit(x) ? 0x8000u : 0;
  if (isnan(x)) return (uint16_t)(sign | 0x7e00u);
  double a = fabs(x);
  if (isinf(a)) return (uint16_t)(sign | 0x7c00u);
  if (a == 0) return sign;
  int e;
  (void)frexp(a, &e); /* a = m * 2^e with m in [0.5, 1): the leading bit is 2^(e-1) */
  int lead = e - 1;
  if (lead < -14) lead = -14; /* subnormal halves share the quantum 2^-24 */
  /* a / 2^(lead-10) is exact (a power-of-two scaling into [0, 2048)); nearbyint rounds it
   * to the nearest integer, ties to even, in the default rounding mode. */
  double n = nearbyint(ldexp(a, 10 - lead));
  if (a < 0x1p-14) return (uint16_t)(sign | (uint16_t)n); /* 1024 is the smallest normal */
  if (n == 2048.0) {
    n = 1024.0;
    lead++;
  }
  if (lead > 15) return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | (uint16_t)(((lead + 15) << 10) | ((int)n - 1024)));
}

double nd_ref_half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = m * 0x1p-24;
  else
    v = (1024 + m) * ldexp(1.0, e - 25);
  return (h & 0x8000u) ? -v : v;
}

nd_scalar nd_ref_load(nd_dtype dt, const void *p) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  switch (dt) {
    case ND_BOOL: s.v.b = *(const unsigned char *)p != 0; break;
#define LOAD_(E, T, F)      \
  case E: {                 \
    T x_;                   \
    memcpy(&x_, p, sizeof x_); \
    s.v.F = x_;             \
    break;                  \
  }
    LOAD_(ND_INT8, int8_t, i)
    LOAD_(ND_INT16, int16_t, i)
    LOAD_(ND_INT32, int32_t, i)
    LOAD_(ND_INT64, int64_t, i)
    LOAD_(ND_UINT8, uint8_t, u)
    LOAD_(ND_UINT16, uint16_t, u)
    LOAD_(ND_UINT32, uint32_t, u)
    LOAD_(ND_UINT64, uint64_t, u)
    LOAD_(ND_FLOAT32, float, f)
    LOAD_(ND_FLOAT64, double, f)
#undef LOAD_
    case ND_FLOAT16: {
      uint16_t h;
      memcpy(&h, p, 2);
      s.v.f = nd_ref_half_to_double(h);
      break;
    }
    case ND_COMPLEX64: {
      float c[2];
      memcpy(c, p, 8);
      s.v.c[0] = c[0];
      s.v.c[1] = c[1];
      break;
    }
    case ND_COMPLEX128: memcpy(s.v.c, p, 16); break;
    default: break;
  }
  return s;
}

void nd_ref_store(nd_dtype dt, void *p, nd_scalar v) {
  ref_val r = ref_classify(v);
  unsigned char *b = p;
  size_t n = nd_dtype_itemsize(dt);
  char k = nd_dtype_kind(dt);
  if (k == 'i' || k == 'u') {
    uint64_t bits;
    if (r.kind == 'i')
      bits = (uint64_t)r.i;
    else if (r.kind == 'u')
      bits = r.u;
    else if (n < 4 || dt == ND_INT32)
      bits = (uint64_t)ref_trunc32(r.re); /* narrow targets keep the low bits of the int32 */
    else if (dt == ND_UINT32)
      bits = ref_to_u32(r.re, r.half);
    else if (dt == ND_INT64)
      bits = (uint64_t)ref_trunc64(r.re);
    else
      bits = ref_to_u64(r.re);
    for (size_t j = 0; j < n; j++) b[j] = (unsigned char)(bits >> (8 * j)); /* little-endian */
    return;
  }
  /* Integers convert to float once (a C cast), then to the target; NumPy's integer to
   * float16 casts go through float32 the same way. */
  double d = r.kind == 'i' ? (double)r.i : r.kind == 'u' ? (double)r.u : r.re;
  float f = r.kind == 'i' ? (float)r.i : r.kind == 'u' ? (float)r.u : (float)r.re;
  switch (dt) {
    case ND_BOOL:
      b[0] = r.kind == 'i' ? r.i != 0 : r.kind == 'u' ? r.u != 0 : (r.re != 0 || r.im != 0);
      break;
    case ND_FLOAT16: {
      uint16_t h = nd_ref_double_to_half(r.kind == 'i' || r.kind == 'u' ? (double)f : r.re);
      memcpy(b, &h, 2);
      break;
    }
    case ND_FLOAT32: memcpy(b, &f, 4); break;
    case ND_FLOAT64: memcpy(b, &d, 8); break;
    case ND_COMPLEX64: {
      float c[2] = {f, (float)r.im};
      memcpy(b, c, 8);
      break;
    }
    case ND_COMPLEX128: {
      double c[2] = {d, r.im};
      memcpy(b, c, 16);
      break;
    }
    default: break;
  }
}

nd_scalar nd_ref_cast(nd_scalar v, nd_dtype dt) {
  unsigned char b[16];
  memset(b, 0, sizeof b);
  nd_ref_store(dt, b, v);
  return nd_ref_load(dt, b);
}

/* One real component of 2, 4 or 8 bytes: NaN matches NaN, else the bytes must agree. */
static int ref_same_real(size_t n, const unsigned char *a, const unsigned char *b) {
  int na, nb;
  if (n == 2) {
    uint16_t x, y;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    na = (x & 0x7c00u) == 0x7c00u && (x & 0x3ffu);
    nb = (y & 0x7c00u) == 0x7c00u && (y & 0x3ffu);
  } else if (n == 4) {
    float x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    na = isnan(x);
    nb = isnan(y);
  } else {
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    na = isnan(x);
    nb = isnan(y);
  }
  if (na || nb) return na && nb;
  return memcmp(a, b, n) == 0;
}

int nd_ref_same(nd_dtype dt, const void *a, const void *b) {
  const unsigned char *x = a, *y = b;
  switch (nd_dtype_kind(dt)) {
    case 'f': return ref_same_real(nd_dtype_itemsize(dt), x, y);
    case 'c': {
      size_t h = nd_dtype_itemsize(dt) / 2;
      return ref_same_real(h, x, y) && ref_same_real(h, x + h, y + h);
    }
    case 'b': return (x[0] != 0) == (y[0] != 0) && x[0] <= 1 && y[0] <= 1;
    default: return memcmp(x, y, nd_dtype_itemsize(dt)) == 0;
  }
}

char *nd_ref_format(nd_dtype dt, const void *p, char *buf, size_t cap) {
  nd_scalar s = nd_ref_load(dt, p);
  const unsigned char *b = p;
  switch (nd_dtype_kind(dt)) {
    case 'b': snprintf(buf, cap, "bool %s [0x%02x]", s.v.b ? "True" : "False", b[0]); break;
    case 'i': snprintf(buf, cap, "%s %lld", nd_dtype_name(dt), (long long)s.v.i); break;
    case 'u': snprintf(buf, cap, "%s %llu", nd_dtype_name(dt), (unsigned long long)s.v.u); break;
    case 'f': {
      uint64_t bits = 0;
      memcpy(&bits, p, nd_dtype_itemsize(dt));
      snprintf(buf, cap, "%s %.17g [0x%0*llx]", nd_dtype_name(dt), s.v.f,
               (int)(2 * nd_dtype_itemsize(dt)), (unsigned long long)bits);
      break;
    }
    case 'c': snprintf(buf, cap, "%s (%.17g, %.17g)", nd_dtype_name(dt), s.v.c[0], s.v.c[1]); break;
    default: snprintf(buf, cap, "dtype %d ?", (int)dt); break;
  }
  return buf;
}

char *nd_ref_format_scalar(nd_scalar v, char *buf, size_t cap) {
  switch (v.dtype) {
    case ND_PYINT: snprintf(buf, cap, "int %lld", (long long)v.v.i); return buf;
    case ND_PYFLOAT: snprintf(buf, cap, "float %.17g", v.v.f); return buf;
    case ND_PYCOMPLEX: snprintf(buf, cap, "complex (%.17g, %.17g)", v.v.c[0], v.v.c[1]); return buf;
    default: break;
  }
  if (!nd_dtype_is_valid(v.dtype)) {
    snprintf(buf, cap, "invalid scalar dtype %d", (int)v.dtype);
    return buf;
  }
  unsigned char b[16];
  memset(b, 0, sizeof b);
  /* A strong scalar stored in its own dtype is itself (nothing is lost). */
  nd_ref_store(v.dtype, b, v);
  return nd_ref_format(v.dtype, b, buf, cap);
}

/* ---- host arrays ---------------------------------------------------------------------- */

char *nd_ref_shape_str(int ndim, const int64_t *shape, char *buf, size_t cap) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, cap - n, "(");
  for (int i = 0; i < ndim && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)shape[i]);
  if (n < cap) snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
  return buf;
}

nd_ref nd_ref_new_order(nd_dtype dt, int ndim, const int64_t *shape, char order) {
  nd_ref r;
  memset(&r, 0, sizeof r);
  ck_assert_msg(nd_dtype_is_valid(dt), "nd_ref_new: invalid dtype %d", (int)dt);
  ck_assert_msg(ndim >= 0 && ndim <= ND_MAXDIMS, "nd_ref_new: ndim %d", ndim);
  r.dtype = dt;
  r.ndim = ndim;
  r.itemsize = nd_dtype_itemsize(dt);
  r.size = 1;
  for (int i = 0; i < ndim; i++) {
    ck_assert_msg(shape[i] >= 0, "nd_ref_new: negative dimension %lld", (long long)shape[i]);
    r.shape[i] = shape[i];
    r.size *= shape[i];
  }
  int64_t s = (int64_t)r.itemsize;
  if (order == 'F') {
    for (int i = 0; i < ndim; i++) {
      r.strides[i] = s;
      s *= shape[i] > 0 ? shape[i] : 1;
    }
  } else {
    for (int i = ndim - 1; i >= 0; i--) {
      r.strides[i] = s;
      s *= shape[i] > 0 ? shape[i] : 1;
    }
  }
  size_t bytes = (size_t)r.size * r.itemsize;
  r.owned = calloc(bytes > 0 ? bytes : 1, 1);
  ck_assert_msg(r.owned != NULL, "nd_ref_new: out of host memory for %zu bytes", bytes);
  r.data = r.owned;
  return r;
}

nd_ref nd_ref_new(nd_dtype dt, int ndim, const int64_t *shape) {
  return nd_ref_new_order(dt, ndim, shape, 'C');
}

void nd_ref_free(nd_ref *r) {
  if (r == NULL) return;
  free(r->owned);
  r->owned = NULL;
  r->data = NULL;
}

void nd_ref_unravel(int ndim, const int64_t *shape, int64_t k, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; d--) {
    idx[d] = k % shape[d];
    k /= shape[d];
  }
}

unsigned char *nd_ref_ptr(const nd_ref *r, const int64_t *idx) {
  int64_t off = 0;
  for (int d = 0; d < r->ndim; d++) off += idx[d] * r->strides[d];
  return r->data + off;
}

unsigned char *nd_ref_flat(const nd_ref *r, int64_t k) {
  int64_t idx[ND_MAXDIMS];
  nd_ref_unravel(r->ndim, r->shape, k, idx);
  return nd_ref_ptr(r, idx);
}

nd_scalar nd_ref_get(const nd_ref *r, int64_t k) { return nd_ref_load(r->dtype, nd_ref_flat(r, k)); }

void nd_ref_set(nd_ref *r, int64_t k, nd_scalar v) { nd_ref_store(r->dtype, nd_ref_flat(r, k), v); }

nd_scalar nd_ref_pattern(nd_dtype dt, int64_t k) {
  nd_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = dt;
  size_t n = nd_dtype_itemsize(dt);
  switch (nd_dtype_kind(dt)) {
    case 'b': s.v.b = k % 3 != 1; break;
    case 'i': s.v.i = n == 1 ? (k * 37) % 251 - 125 : k * 3 - 1000; break;
    case 'u': s.v.u = n == 1 ? (uint64_t)((k * 37) % 251) : (uint64_t)k * 7u + 1u; break;
    case 'f': s.v.f = (double)(k % 2000 - 500) * 0.5; break;
    default:
      s.v.c[0] = (double)(k % 2000 - 500) * 0.5;
      s.v.c[1] = (double)(k % 13) - 6.25;
      break;
  }
  /* Round-trip through the dtype so that the scalar is exactly what the array holds. */
  return nd_ref_cast(s, dt);
}

void nd_ref_fill_pattern(nd_ref *r, int64_t seed) {
  for (int64_t k = 0; k < r->size; k++) nd_ref_set(r, k, nd_ref_pattern(r->dtype, k + seed));
}

void nd_ref_fill(nd_ref *r, nd_scalar v) {
  for (int64_t k = 0; k < r->size; k++) nd_ref_set(r, k, v);
}

nd_ref nd_ref_gather(const nd_ref *src, int ndim, const int64_t *shape, nd_ref_map map,
                     const void *ctx) {
  nd_ref out = nd_ref_new(src->dtype, ndim, shape);
  int64_t oi[ND_MAXDIMS], si[ND_MAXDIMS];
  for (int64_t k = 0; k < out.size; k++) {
    nd_ref_unravel(ndim, shape, k, oi);
    map(oi, si, ctx);
    for (int d = 0; d < src->ndim; d++)
      ck_assert_msg(si[d] >= 0 && si[d] < src->shape[d],
                    "nd_ref_gather: map sends output element %lld to index %lld on axis %d of "
                    "length %lld", (long long)k, (long long)si[d], d, (long long)src->shape[d]);
    memcpy(nd_ref_flat(&out, k), nd_ref_ptr(src, si), src->itemsize);
  }
  return out;
}

nd_ref nd_ref_copy(const nd_ref *src) {
  nd_ref out = nd_ref_new(src->dtype, src->ndim, src->shape);
  for (int64_t k = 0; k < src->size; k++)
    memcpy(out.data + k * (int64_t)out.itemsize, nd_ref_flat(src, k), src->itemsize);
  return out;
}

nd_ref nd_ref_astype(const nd_ref *src, nd_dtype dt) {
  nd_ref out = nd_ref_new(dt, src->ndim, src->shape);
  for (int64_t k = 0; k < src->size; k++) nd_ref_set(&out, k, nd_ref_get(src, k));
  return out;
}

nd_ref nd_ref_reshape(const nd_ref *src, int ndim, const int64_t *shape) {
  nd_ref out = nd_ref_copy(src);
  nd_ref r = nd_ref_new(src->dtype, ndim, shape);
  ck_assert_msg(r.size == out.size, "nd_ref_reshape: %lld elements into %lld",
                (long long)out.size, (long long)r.size);
  if (r.size > 0) memcpy(r.data, out.data, (size_t)r.size * r.itemsize);
  nd_ref_free(&out);
  return r;
}

void nd_ref_assign(nd_ref *dst, const nd_ref *src) {
  nd_ref tmp = nd_ref_copy(src);
  nd_ref b = nd_ref_broadcast(&tmp, dst->ndim, dst->shape);
  for (int64_t k = 0; k < dst->size; k++) nd_ref_set(dst, k, nd_ref_get(&b, k));
  nd_ref_free(&tmp);
}

static nd_ref ref_view_of(const nd_ref *r) {
  nd_ref v = *r;
  v.owned = NULL;
  return v;
}

nd_ref nd_ref_slice(const nd_ref *r, int n, const nd_slice *slices) {
  ck_assert_msg(n >= 0 && n <= r->ndim, "nd_ref_slice: %d slices for %d axes", n, r->ndim);
  nd_ref v = ref_view_of(r);
  v.size = 1;
  for (int i = 0; i < r->ndim; i++) {
    if (i < n) {
      int64_t start, step, count;
      nd_status st = nd_slice_indices(slices[i], r->shape[i], &start, &step, &count);
      ck_assert_msg(st == ND_OK, "nd_ref_slice: bad slice on axis %d: %s", i, nd_last_error());
      if (count > 0) v.data += start * r->strides[i];
      v.shape[i] = count;
      v.strides[i] = r->strides[i] * step;
    }
    v.size *= v.shape[i];
  }
  return v;
}

nd_ref nd_ref_permute(const nd_ref *r, const int *perm) {
  nd_ref v = ref_view_of(r);
  for (int i = 0; i < r->ndim; i++) {
    ck_assert_msg(perm[i] >= 0 && perm[i] < r->ndim, "nd_ref_permute: bad axis %d", perm[i]);
    v.shape[i] = r->shape[perm[i]];
    v.strides[i] = r->strides[perm[i]];
  }
  return v;
}

nd_ref nd_ref_flip(const nd_ref *r, int axis) {
  ck_assert_msg(axis >= 0 && axis < r->ndim, "nd_ref_flip: bad axis %d", axis);
  nd_ref v = ref_view_of(r);
  if (r->shape[axis] > 0) v.data += (r->shape[axis] - 1) * r->strides[axis];
  v.strides[axis] = -r->strides[axis];
  return v;
}

nd_ref nd_ref_index(const nd_ref *r, int axis, int64_t i) {
  ck_assert_msg(axis >= 0 && axis < r->ndim, "nd_ref_index: bad axis %d", axis);
  if (i < 0) i += r->shape[axis];
  ck_assert_msg(i >= 0 && i < r->shape[axis], "nd_ref_index: index %lld out of range", (long long)i);
  nd_ref v = ref_view_of(r);
  v.data += i * r->strides[axis];
  v.ndim = r->ndim - 1;
  v.size = 1;
  for (int d = 0, j = 0; d < r->ndim; d++) {
    if (d == axis) continue;
    v.shape[j] = r->shape[d];
    v.strides[j] = r->strides[d];
    v.size *= v.shape[j];
    j++;
  }
  return v;
}

nd_ref nd_ref_broadcast(const nd_ref *r, int ndim, const int64_t *shape) {
  char a[256], b[256];
  ck_assert_msg(ndim >= r->ndim, "nd_ref_broadcast: %s to %s",
                nd_ref_shape_str(r->ndim, r->shape, a, sizeof a), nd_ref_shape_str(ndim, shape, b, sizeof b));
  nd_ref v = ref_view_of(r);
  int lead = ndim - r->ndim;
  v.ndim = ndim;
  v.size = 1;
  for (int j = 0; j < ndim; j++) {
    int k = j - lead;
    int64_t st = 0;
    if (k >= 0) {
      ck_assert_msg(r->shape[k] == shape[j] || r->shape[k] == 1, "nd_ref_broadcast: %s to %s",
                    nd_ref_shape_str(r->ndim, r->shape, a, sizeof a),
                    nd_ref_shape_str(ndim, shape, b, sizeof b));
      st = r->shape[k] == shape[j] ? r->strides[k] : 0;
    }
    v.shape[j] = shape[j];
    v.strides[j] = st;
    v.size *= shape[j];
  }
  return v;
}

/* ---- device glue ---------------------------------------------------------------------- */

nd_array *nd_ref_upload(const nd_ref *r) {
  nd_ref c = nd_ref_copy(r);
  nd_array *a = NULL;
  nd_status st = nd_array_from_host(c.data, (size_t)c.size * c.itemsize, c.ndim, c.shape, c.dtype, &a);
  nd_ref_free(&c);
  ck_assert_msg(st == ND_OK, "nd_ref_upload: nd_array_from_host failed: %s: %s", nd_status_name(st),
                nd_last_error());
  return a;
}

nd_ref nd_ref_download(const nd_array *a) {
  ck_assert_msg(a != NULL, "nd_ref_download: NULL array");
  nd_ref r = nd_ref_new(nd_array_dtype(a), nd_array_ndim(a), nd_array_shape(a));
  nd_status st = nd_array_to_host(a, r.data, (size_t)r.size * r.itemsize);
  if (st != ND_OK) {
    char d[512];
    nd_ref_free(&r);
    ck_abort_msg("nd_ref_download: nd_array_to_host of %s failed: %s: %s",
                 nd_ref_describe(a, d, sizeof d), nd_status_name(st), nd_last_error());
  }
  return r;
}

char *nd_ref_describe(const nd_array *a, char *buf, size_t cap) {
  if (a == NULL) {
    snprintf(buf, cap, "NULL array");
    return buf;
  }
  char sh[256], st[256];
  int f = nd_array_flags(a);
  snprintf(buf, cap, "%s shape %s strides %s offset %lld flags%s%s%s%s",
           nd_dtype_name(nd_array_dtype(a)), nd_ref_shape_str(nd_array_ndim(a), nd_array_shape(a), sh, sizeof sh),
           nd_ref_shape_str(nd_array_ndim(a), nd_array_strides(a), st, sizeof st),
           (long long)nd_array_offset(a), (f & ND_ARRAY_C_CONTIGUOUS) ? " C" : "",
           (f & ND_ARRAY_F_CONTIGUOUS) ? " F" : "", (f & ND_ARRAY_WRITEABLE) ? " W" : " RO",
           (f & ND_ARRAY_OWNDATA) ? " OWN" : "");
  return buf;
}

/* Compares two host arrays of equal dtype and shape; returns the number of mismatches and
 * describes the first few in msg. */
static int64_t ref_compare(const nd_ref *got, const nd_ref *want, char *msg, size_t cap) {
  int64_t bad = 0;
  size_t n = 0;
  msg[0] = '\0';
  for (int64_t k = 0; k < want->size; k++) {
    const unsigned char *g = nd_ref_flat(got, k), *w = nd_ref_flat(want, k);
    if (nd_ref_same(want->dtype, g, w)) continue;
    if (bad < 6 && n < cap) {
      int64_t idx[ND_MAXDIMS];
      char is[256], gs[128], ws[128];
      nd_ref_unravel(want->ndim, want->shape, k, idx);
      n += (size_t)snprintf(msg + n, cap - n, "\n  at %s: got %s, want %s",
                            nd_ref_shape_str(want->ndim, idx, is, sizeof is),
                            nd_ref_format(want->dtype, g, gs, sizeof gs),
                            nd_ref_format(want->dtype, w, ws, sizeof ws));
    }
    bad++;
  }
  return bad;
}

static void ref_expect_v(const nd_ref *got, const nd_ref *want, const char *what, const char *ctx) {
  char a[256], b[256];
  ck_assert_msg(got->dtype == want->dtype, "%s: dtype %s, want %s (%s)", ctx, nd_dtype_name(got->dtype),
                nd_dtype_name(want->dtype), what);
  ck_assert_msg(got->ndim == want->ndim &&
                    memcmp(got->shape, want->shape, (size_t)want->ndim * sizeof(int64_t)) == 0,
                "%s: shape %s, want %s (%s)", ctx, nd_ref_shape_str(got->ndim, got->shape, a, sizeof a),
                nd_ref_shape_str(want->ndim, want->shape, b, sizeof b), what);
  char msg[2048];
  int64_t bad = ref_compare(got, want, msg, sizeof msg);
  ck_assert_msg(bad == 0, "%s: %lld of %lld elements differ (%s):%s", ctx, (long long)bad,
                (long long)want->size, what, msg);
}

void nd_ref_expect(const nd_array *a, const nd_ref *want, const char *fmt, ...) {
  char ctx[512], d[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  ck_assert_msg(a != NULL, "%s: array is NULL", ctx);
  nd_ref_describe(a, d, sizeof d);
  char a1[256], b1[256];
  ck_assert_msg(nd_array_dtype(a) == want->dtype, "%s: dtype %s, want %s (array %s)", ctx,
                nd_dtype_name(nd_array_dtype(a)), nd_dtype_name(want->dtype), d);
  ck_assert_msg(nd_array_ndim(a) == want->ndim &&
                    memcmp(nd_array_shape(a), want->shape, (size_t)want->ndim * sizeof(int64_t)) == 0,
                "%s: shape %s, want %s (array %s)", ctx,
                nd_ref_shape_str(nd_array_ndim(a), nd_array_shape(a), a1, sizeof a1),
                nd_ref_shape_str(want->ndim, want->shape, b1, sizeof b1), d);
  ck_assert_msg(nd_array_size(a) == want->size, "%s: size %lld, want %lld (array %s)", ctx,
                (long long)nd_array_size(a), (long long)want->size, d);
  nd_ref got = nd_ref_download(a);
  ref_expect_v(&got, want, d, ctx);
  nd_ref_free(&got);
}

void nd_ref_expect_ref(const nd_ref *got, const nd_ref *want, const char *fmt, ...) {
  char ctx[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  ref_expect_v(got, want, "host arrays", ctx);
}

/* ---- awkward layouts -------------------------------------------------------------------- */

#define REF_OK(expr)                                                                              \
  do {                                                                                            \
    nd_status st_ = (expr);                                                                       \
    ck_assert_msg(st_ == ND_OK, "%s failed: %s: %s", #expr, nd_status_name(st_), nd_last_error()); \
  } while (0)

void nd_ref_layout_make(nd_ref_layout_kind kind, nd_dtype dt, int64_t rows, int64_t cols,
                        int64_t seed, nd_ref_layout *out) {
  static const char *const names[ND_REF_NUM_LAYOUTS] = {"contiguous", "offset", "transposed",
                                                        "negative strides", "stepped", "broadcast",
                                                        "zero-size", "0-d"};
  ck_assert_msg(kind >= 0 && kind < ND_REF_NUM_LAYOUTS, "nd_ref_layout_make: kind %d", (int)kind);
  memset(out, 0, sizeof *out);
  out->name = names[kind];
  int64_t shape[2];
  int nd = 2;
  switch (kind) {
    case ND_REF_OFFSET: shape[0] = rows + 2; shape[1] = cols + 3; break;
    case ND_REF_TRANSPOSED: shape[0] = cols; shape[1] = rows; break;
    case ND_REF_STEPPED: shape[0] = 2 * rows; shape[1] = 3 * cols; break;
    case ND_REF_BROADCAST: nd = 1; shape[0] = cols; break;
    case ND_REF_SCALAR: nd = 1; shape[0] = 3; break;
    default: shape[0] = rows; shape[1] = cols; break;
  }
  out->base_ref = nd_ref_new(dt, nd, shape);
  nd_ref_fill_pattern(&out->base_ref, seed);
  out->base = nd_ref_upload(&out->base_ref);
  const nd_ref *b = &out->base_ref;
  switch (kind) {
    case ND_REF_CONTIG:
      out->array = nd_array_retain(out->base);
      out->ref = nd_ref_slice(b, 0, NULL);
      break;
    case ND_REF_OFFSET: {
      nd_slice sl[2] = {{1, 1 + rows, ND_NONE}, {2, 2 + cols, ND_NONE}};
      REF_OK(nd_array_slice(out->base, 2, sl, &out->array));
      out->ref = nd_ref_slice(b, 2, sl);
      break;
    }
    case ND_REF_TRANSPOSED: {
      int perm[2] = {1, 0};
      REF_OK(nd_array_transpose(out->base, 0, NULL, &out->array));
      out->ref = nd_ref_permute(b, perm);
      break;
    }
    case ND_REF_NEGATIVE: {
      nd_slice sl[2] = {{ND_NONE, ND_NONE, -1}, {ND_NONE, ND_NONE, -1}};
      REF_OK(nd_array_slice(out->base, 2, sl, &out->array));
      out->ref = nd_ref_slice(b, 2, sl);
      break;
    }
    case ND_REF_STEPPED: {
      nd_slice sl[2] = {{1, ND_NONE, 2}, {ND_NONE, ND_NONE, -3}};
      REF_OK(nd_array_slice(out->base, 2, sl, &out->array));
      out->ref = nd_ref_slice(b, 2, sl);
      break;
    }
    case ND_REF_BROADCAST: {
      int64_t bs[2] = {rows, cols};
      REF_OK(nd_array_broadcast_to(out->base, 2, bs, &out->array));
      out->ref = nd_ref_broadcast(b, 2, bs);
      break;
    }
    case ND_REF_ZERO_SIZE: {
      nd_slice sl[1] = {{rows, rows, ND_NONE}};
      REF_OK(nd_array_slice(out->base, 1, sl, &out->array));
      out->ref = nd_ref_slice(b, 1, sl);
      break;
    }
    case ND_REF_SCALAR:
      REF_OK(nd_array_index(out->base, 0, 1, &out->array));
      out->ref = nd_ref_index(b, 0, 1);
      break;
    default: break;
  }
  char want[128], got[128];
  ck_assert_msg(nd_array_ndim(out->array) == out->ref.ndim &&
                    memcmp(nd_array_shape(out->array), out->ref.shape,
                           (size_t)out->ref.ndim * sizeof(int64_t)) == 0,
                "nd_ref_layout_make(%s): device shape %s, host shape %s", out->name,
                nd_ref_shape_str(nd_array_ndim(out->array), nd_array_shape(out->array), got, sizeof got),
                nd_ref_shape_str(out->ref.ndim, out->ref.shape, want, sizeof want));
}

void nd_ref_layout_free(nd_ref_layout *l) {
  nd_array_release(l->array);
  nd_array_release(l->base);
  nd_ref_free(&l->base_ref);
  l->array = l->base = NULL;
}

int64_t nd_ref_unhex(const char *hex, unsigned char *out, size_t cap) {
  size_t len = strlen(hex);
  if (len % 2 != 0 || len / 2 > cap) return -1;
  for (size_t i = 0; i < len / 2; i++) {
    int v = 0;
    for (int j = 0; j < 2; j++) {
      char c = hex[2 * i + (size_t)j];
      int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (x < 0) return -1;
      v = v * 16 + x;
    }
    out[i] = (unsigned char)v;
  }
  return (int64_t)(len / 2);
}

/* ---- NumPy's cast table ---------------------------------------------------------------- */

/* Generated with NumPy 2.4.6 (x86-64, gcc 14 build) by this script; do not edit by hand.
 *
 *   FL = [0.0, -0.0, 1.0, -1.5, 300.7, 1e20, -1e20, nan, inf, -inf, 65504.0, 65520.0, 70000.5,
 *         3e9, 5e9, -3e9, -5e9, 2.0**31, 2.0**32+5, 2.0**63, 2.0**64, -2.0**63, 1.8e19, 127.5,
 *         -128.9, 255.9, 256.0, -0.5, 1+2**-11+2**-40, 6e-8, 2.9802322387695312e-08, 1e-46,
 *         3.4028235677973366e38, 1e300, -2.0**31-0.5, 4294967295.0]
 *   IM = [0.0, 0.0, 2.5, -1.0, 0.0, nan, 0.0, 0.0, 1.0, 0.0]
 *   INTS = [0, 1, -1, 2, 127, 128, 255, 256, 300, -129, -128, 32767, 32768, 65535, 65536,
 *           -32769, 2**31-1, 2**31, -2**31, 2**32-1, 2**32, 2**53+1, 2**63-1, -2**63, 2**24+1,
 *           2049, 65519, 65520, 2**64-1, 2**63+2**40+1, -300]
 *   bool sources: [0, 1, 1, 0, 1]; integer sources: np.array([v % 2**64 for v in INTS],
 *   dtype=np.uint64).astype(src); float sources: np.array(FL).astype(src); complex sources:
 *   [complex(x, IM[i % 10]) for i, x in enumerate(FL)] + [1j, complex(-0.0, 0.0),
 *   complex(0.0, nan)], astype(src).
 *   Each target: np.repeat(a, 256).astype(dst)[::256], i.e. NumPy's vectorised loop (see
 *   ref_to_u32 above for why that matters), bytes as hex. */
const nd_ref_cast_case nd_ref_cast_table[ND_NUM_DTYPES] = {
    /* bool: False, True, True, False, True */
    {ND_BOOL, 5,
     "0001010001",
     {
      /* -> bool */
      "0001010001",
      /* -> int8 */
      "0001010001",
      /* -> int16 */
      "00000100010000000100",
      /* -> int32 */
      "0000000001000000010000000000000001000000",
      /* -> int64 */
      "0000000000000000010000000000000001000000000000000000000000000000"
      "0100000000000000",
      /* -> uint8 */
      "0001010001",
      /* -> uint16 */
      "00000100010000000100",
      /* -> uint32 */
      "0000000001000000010000000000000001000000",
      /* -> uint64 */
      "0000000000000000010000000000000001000000000000000000000000000000"
      "0100000000000000",
      /* -> float16 */
      "0000003c003c0000003c",
      /* -> float32 */
      "000000000000803f0000803f000000000000803f",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f03f0000000000000000"
      "000000000000f03f",
      /* -> complex64 */
      "00000000000000000000803f000000000000803f000000000000000000000000"
      "0000803f00000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f03f000000000000000000000000000000000000000000000000"
      "000000000000f03f0000000000000000",
     }},
    /* int8: 0, 1, -1, 2, 127, -128, -1, 0, 44, 127, -128, -1, 0, -1, 0, -1, -1, 0, 0, -1, 0, 1, -1, 0, 1, 1, -17, -16, -1, 1, -44 */
    {ND_INT8, 31,
     "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
     {
      /* -> bool */
      "00010101010101000101010100010001010000010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f0080ffffff00002c007f0080ffffff0000ffff0000ffff"
      "ffff00000000ffff00000100ffff000001000100effff0ffffff0100d4ff",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080ffffffffffffff00000000"
      "2c0000007f00000080ffffffffffffff00000000ffffffff00000000ffffffff"
      "ffffffff0000000000000000ffffffff0000000001000000ffffffff00000000"
      "0100000001000000effffffff0ffffffffffffff01000000d4ffffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f0000000000000080ffffffffffffffffffffffffffffff0000000000000000"
      "2c000000000000007f0000000000000080ffffffffffffffffffffffffffffff"
      "0000000000000000ffffffffffffffff0000000000000000ffffffffffffffff"
      "ffffffffffffffff00000000000000000000000000000000ffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000000000000000100000000000000effffffffffffffff0ffffffffffffff"
      "ffffffffffffffff0100000000000000d4ffffffffffffff",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f0080ffffff00002c007f0080ffffff0000ffff0000ffff"
      "ffff00000000ffff00000100ffff000001000100effff0ffffff0100d4ff",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080ffffffffffffff00000000"
      "2c0000007f00000080ffffffffffffff00000000ffffffff00000000ffffffff"
      "ffffffff0000000000000000ffffffff0000000001000000ffffffff00000000"
      "0100000001000000effffffff0ffffffffffffff01000000d4ffffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f0000000000000080ffffffffffffffffffffffffffffff0000000000000000"
      "2c000000000000007f0000000000000080ffffffffffffffffffffffffffffff"
      "0000000000000000ffffffffffffffff0000000000000000ffffffffffffffff"
      "ffffffffffffffff00000000000000000000000000000000ffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000000000000000100000000000000effffffffffffffff0ffffffffffffff"
      "ffffffffffffffff0100000000000000d4ffffffffffffff",
      /* -> float16 */
      "0000003c00bc0040f05700d800bc00008051f05700d800bc000000bc000000bc"
      "00bc0000000000bc0000003c00bc0000003c003c40cc00cc00bc003c80d1",
      /* -> float32 */
      "000000000000803f000080bf000000400000fe42000000c3000080bf00000000"
      "000030420000fe42000000c3000080bf00000000000080bf00000000000080bf"
      "000080bf0000000000000000000080bf000000000000803f000080bf00000000"
      "0000803f0000803f000088c1000080c1000080bf0000803f000030c2",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f0bf0000000000000040"
      "0000000000c05f4000000000000060c0000000000000f0bf0000000000000000"
      "00000000000046400000000000c05f4000000000000060c0000000000000f0bf"
      "0000000000000000000000000000f0bf0000000000000000000000000000f0bf"
      "000000000000f0bf00000000000000000000000000000000000000000000f0bf"
      "0000000000000000000000000000f03f000000000000f0bf0000000000000000"
      "000000000000f03f000000000000f03f00000000000031c000000000000030c0"
      "000000000000f0bf000000000000f03f00000000000046c0",
      /* -> complex64 */
      "00000000000000000000803f00000000000080bf000000000000004000000000"
      "0000fe4200000000000000c300000000000080bf000000000000000000000000"
      "00003042000000000000fe4200000000000000c300000000000080bf00000000"
      "0000000000000000000080bf000000000000000000000000000080bf00000000"
      "000080bf0000000000000000000000000000000000000000000080bf00000000"
      "00000000000000000000803f00000000000080bf000000000000000000000000"
      "0000803f000000000000803f00000000000088c100000000000080c100000000"
      "000080bf000000000000803f00000000000030c200000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060c00000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "000000000000464000000000000000000000000000c05f400000000000000000"
      "00000000000060c00000000000000000000000000000f0bf0000000000000000"
      "00000000000000000000000000000000000000000000f0bf0000000000000000"
      "00000000000000000000000000000000000000000000f0bf0000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000000000000000f0bf0000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "000000000000f03f0000000000000000000000000000f03f0000000000000000"
      "00000000000031c0000000000000000000000000000030c00000000000000000"
      "000000000000f0bf0000000000000000000000000000f03f0000000000000000"
      "00000000000046c00000000000000000",
     }},
    /* int16: 0, 1, -1, 2, 127, 128, 255, 256, 300, -129, -128, 32767, -32768, -1, 0, 32767, -1, 0, 0, -1, 0, 1, -1, 0, 1, 2049, -17, -16, -1, 1, -300 */
    {ND_INT16, 31,
     "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
     "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
     {
      /* -> bool */
      "00010101010101010101010101010001010000010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f00000080ffffffffffff00000000ff7f0000"
      "ffffffff0000000000000000ffffffff0000000001000000ffffffff00000000"
      "0100000001080000effffffff0ffffffffffffff01000000d4feffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080ffffffffffffffffffffffffffff0000000000000000ff7f000000000000"
      "ffffffffffffffff00000000000000000000000000000000ffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000000000000000108000000000000effffffffffffffff0ffffffffffffff"
      "ffffffffffffffff0100000000000000d4feffffffffffff",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f00000080ffffffffffff00000000ff7f0000"
      "ffffffff0000000000000000ffffffff0000000001000000ffffffff00000000"
      "0100000001080000effffffff0ffffffffffffff01000000d4feffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080ffffffffffffffffffffffffffff0000000000000000ff7f000000000000"
      "ffffffffffffffff00000000000000000000000000000000ffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000000000000000108000000000000effffffffffffffff0ffffffffffffff"
      "ffffffffffffffff0100000000000000d4feffffffffffff",
      /* -> float16 */
      "0000003c00bc0040f0570058f85b005cb05c08d800d8007800f800bc00000078"
      "00bc0000000000bc0000003c00bc0000003c006840cc00cc00bc003cb0dc",
      /* -> float32 */
      "000000000000803f000080bf000000400000fe420000004300007f4300008043"
      "00009643000001c3000000c300feff46000000c7000080bf0000000000feff46"
      "000080bf0000000000000000000080bf000000000000803f000080bf00000000"
      "0000803f00100045000088c1000080c1000080bf0000803f000096c3",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f0bf0000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c0724000000000002060c000000000000060c000000000c0ffdf40"
      "000000000000e0c0000000000000f0bf000000000000000000000000c0ffdf40"
      "000000000000f0bf00000000000000000000000000000000000000000000f0bf"
      "0000000000000000000000000000f03f000000000000f0bf0000000000000000"
      "000000000000f03f000000000002a04000000000000031c000000000000030c0"
      "000000000000f0bf000000000000f03f0000000000c072c0",
      /* -> complex64 */
      "00000000000000000000803f00000000000080bf000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "0000964300000000000001c300000000000000c30000000000feff4600000000"
      "000000c700000000000080bf00000000000000000000000000feff4600000000"
      "000080bf0000000000000000000000000000000000000000000080bf00000000"
      "00000000000000000000803f00000000000080bf000000000000000000000000"
      "0000803f000000000010004500000000000088c100000000000080c100000000"
      "000080bf000000000000803f00000000000096c300000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c07240000000000000000000000000002060c00000000000000000"
      "00000000000060c0000000000000000000000000c0ffdf400000000000000000"
      "000000000000e0c00000000000000000000000000000f0bf0000000000000000"
      "0000000000000000000000000000000000000000c0ffdf400000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000000000000000f0bf0000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "000000000000f03f0000000000000000000000000002a0400000000000000000"
      "00000000000031c0000000000000000000000000000030c00000000000000000"
      "000000000000f0bf0000000000000000000000000000f03f0000000000000000"
      "0000000000c072c00000000000000000",
     }},
    /* int32: 0, 1, -1, 2, 127, 128, 255, 256, 300, -129, -128, 32767, 32768, 65535, 65536, -32769, 2147483647, -2147483648, -2147483648, -1, 0, 1, -1, 0, 16777217, 2049, 65519, 65520, -1, 1, -300 */
    {ND_INT32, 31,
     "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
     "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
     "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
     "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
     {
      /* -> bool */
      "00010101010101010101010101010101010101010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f0000000000000080ffffffff00000080ffffffffffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000000000d4feffffffffffff",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f0000000000000080ffffffff00000080ffffffffffffffffffffffff"
      "00000000000000000100000000000000ffffffffffffffff0000000000000000"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000000000d4feffffffffffff",
      /* -> float16 */
      "0000003c00bc0040f0570058f85b005cb05c08d800d800780078007c007c00f8"
      "007c00fc00fc00bc0000003c00bc0000007c0068ff7b007c00bc003cb0dc",
      /* -> float32 */
      "000000000000803f000080bf000000400000fe420000004300007f4300008043"
      "00009643000001c3000000c300feff460000004700ff7f4700008047000100c7"
      "0000004f000000cf000000cf000080bf000000000000803f000080bf00000000"
      "0000804b0010004500ef7f4700f07f47000080bf0000803f000096c3",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f0bf0000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c0724000000000002060c000000000000060c000000000c0ffdf40"
      "000000000000e04000000000e0ffef40000000000000f040000000002000e0c0"
      "0000c0ffffffdf41000000000000e0c1000000000000e0c1000000000000f0bf"
      "0000000000000000000000000000f03f000000000000f0bf0000000000000000"
      "0000001000007041000000000002a04000000000e0fdef400000000000feef40"
      "000000000000f0bf000000000000f03f0000000000c072c0",
      /* -> complex64 */
      "00000000000000000000803f00000000000080bf000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "0000964300000000000001c300000000000000c30000000000feff4600000000"
      "000000470000000000ff7f47000000000000804700000000000100c700000000"
      "0000004f00000000000000cf00000000000000cf00000000000080bf00000000"
      "00000000000000000000803f00000000000080bf000000000000000000000000"
      "0000804b00000000001000450000000000ef7f470000000000f07f4700000000"
      "000080bf000000000000803f00000000000096c300000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c07240000000000000000000000000002060c00000000000000000"
      "00000000000060c0000000000000000000000000c0ffdf400000000000000000"
      "000000000000e040000000000000000000000000e0ffef400000000000000000"
      "000000000000f0400000000000000000000000002000e0c00000000000000000"
      "0000c0ffffffdf410000000000000000000000000000e0c10000000000000000"
      "000000000000e0c10000000000000000000000000000f0bf0000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000000000000000000000"
      "00000010000070410000000000000000000000000002a0400000000000000000"
      "00000000e0fdef4000000000000000000000000000feef400000000000000000"
      "000000000000f0bf0000000000000000000000000000f03f0000000000000000"
      "0000000000c072c00000000000000000",
     }},
    /* int64: 0, 1, -1, 2, 127, 128, 255, 256, 300, -129, -128, 32767, 32768, 65535, 65536, -32769, 2147483647, 2147483648, -2147483648, 4294967295, 4294967296, 9007199254740993, 9223372036854775807, -9223372036854775808, 16777217, 2049, 65519, 65520, -1, -9223370937343148031, -300 */
    {ND_INT64, 31,
     "00000000000000000100000000000000ffffffffffffffff0200000000000000"
     "7f000000000000008000000000000000ff000000000000000001000000000000"
     "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
     "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
     "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
     "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
     "01000001000000000108000000000000efff000000000000f0ff000000000000"
     "ffffffffffffffff0100000000010080d4feffffffffffff",
     {
      /* -> bool */
      "00010101010101010101010101010101010101010101010101010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
      "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000010080d4feffffffffffff",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
      "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000010080d4feffffffffffff",
      /* -> float16 */
      "0000003c00bc0040f0570058f85b005cb05c08d800d800780078007c007c00f8"
      "007c007c00fc007c007c007c007c00fc007c0068ff7b007c00bc00fcb0dc",
      /* -> float32 */
      "000000000000803f000080bf000000400000fe420000004300007f4300008043"
      "00009643000001c3000000c300feff460000004700ff7f4700008047000100c7"
      "0000004f0000004f000000cf0000804f0000804f0000005a0000005f000000df"
      "0000804b0010004500ef7f4700f07f47000080bffeffffde000096c3",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f0bf0000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c0724000000000002060c000000000000060c000000000c0ffdf40"
      "000000000000e04000000000e0ffef40000000000000f040000000002000e0c0"
      "0000c0ffffffdf41000000000000e041000000000000e0c10000e0ffffffef41"
      "000000000000f0410000000000004043000000000000e043000000000000e0c3"
      "0000001000007041000000000002a04000000000e0fdef400000000000feef40"
      "000000000000f0bf000000c0ffffdfc30000000000c072c0",
      /* -> complex64 */
      "00000000000000000000803f00000000000080bf000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "0000964300000000000001c300000000000000c30000000000feff4600000000"
      "000000470000000000ff7f47000000000000804700000000000100c700000000"
      "0000004f000000000000004f00000000000000cf000000000000804f00000000"
      "0000804f000000000000005a000000000000005f00000000000000df00000000"
      "0000804b00000000001000450000000000ef7f470000000000f07f4700000000"
      "000080bf00000000feffffde00000000000096c300000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f0bf000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c07240000000000000000000000000002060c00000000000000000"
      "00000000000060c0000000000000000000000000c0ffdf400000000000000000"
      "000000000000e040000000000000000000000000e0ffef400000000000000000"
      "000000000000f0400000000000000000000000002000e0c00000000000000000"
      "0000c0ffffffdf410000000000000000000000000000e0410000000000000000"
      "000000000000e0c100000000000000000000e0ffffffef410000000000000000"
      "000000000000f041000000000000000000000000000040430000000000000000"
      "000000000000e0430000000000000000000000000000e0c30000000000000000"
      "00000010000070410000000000000000000000000002a0400000000000000000"
      "00000000e0fdef4000000000000000000000000000feef400000000000000000"
      "000000000000f0bf0000000000000000000000c0ffffdfc30000000000000000"
      "0000000000c072c00000000000000000",
     }},
    /* uint8: 0, 1, 255, 2, 127, 128, 255, 0, 44, 127, 128, 255, 0, 255, 0, 255, 255, 0, 0, 255, 0, 1, 255, 0, 1, 1, 239, 240, 255, 1, 212 */
    {ND_UINT8, 31,
     "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
     {
      /* -> bool */
      "00010101010101000101010100010001010000010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ff0002007f008000ff0000002c007f008000ff000000ff000000ff00"
      "ff0000000000ff0000000100ff00000001000100ef00f000ff000100d400",
      /* -> int32 */
      "0000000001000000ff000000020000007f00000080000000ff00000000000000"
      "2c0000007f00000080000000ff00000000000000ff00000000000000ff000000"
      "ff0000000000000000000000ff0000000000000001000000ff00000000000000"
      "0100000001000000ef000000f0000000ff00000001000000d4000000",
      /* -> int64 */
      "00000000000000000100000000000000ff000000000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000000000000000000"
      "2c000000000000007f000000000000008000000000000000ff00000000000000"
      "0000000000000000ff000000000000000000000000000000ff00000000000000"
      "ff0000000000000000000000000000000000000000000000ff00000000000000"
      "00000000000000000100000000000000ff000000000000000000000000000000"
      "01000000000000000100000000000000ef00000000000000f000000000000000"
      "ff000000000000000100000000000000d400000000000000",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ff0002007f008000ff0000002c007f008000ff000000ff000000ff00"
      "ff0000000000ff0000000100ff00000001000100ef00f000ff000100d400",
      /* -> uint32 */
      "0000000001000000ff000000020000007f00000080000000ff00000000000000"
      "2c0000007f00000080000000ff00000000000000ff00000000000000ff000000"
      "ff0000000000000000000000ff0000000000000001000000ff00000000000000"
      "0100000001000000ef000000f0000000ff00000001000000d4000000",
      /* -> uint64 */
      "00000000000000000100000000000000ff000000000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000000000000000000"
      "2c000000000000007f000000000000008000000000000000ff00000000000000"
      "0000000000000000ff000000000000000000000000000000ff00000000000000"
      "ff0000000000000000000000000000000000000000000000ff00000000000000"
      "00000000000000000100000000000000ff000000000000000000000000000000"
      "01000000000000000100000000000000ef00000000000000f000000000000000"
      "ff000000000000000100000000000000d400000000000000",
      /* -> float16 */
      "0000003cf85b0040f0570058f85b00008051f0570058f85b0000f85b0000f85b"
      "f85b00000000f85b0000003cf85b0000003c003c785b805bf85b003ca05a",
      /* -> float32 */
      "000000000000803f00007f43000000400000fe420000004300007f4300000000"
      "000030420000fe420000004300007f430000000000007f430000000000007f43"
      "00007f43000000000000000000007f43000000000000803f00007f4300000000"
      "0000803f0000803f00006f430000704300007f430000803f00005443",
      /* -> float64 */
      "0000000000000000000000000000f03f0000000000e06f400000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000000000"
      "00000000000046400000000000c05f4000000000000060400000000000e06f40"
      "00000000000000000000000000e06f4000000000000000000000000000e06f40"
      "0000000000e06f40000000000000000000000000000000000000000000e06f40"
      "0000000000000000000000000000f03f0000000000e06f400000000000000000"
      "000000000000f03f000000000000f03f0000000000e06d400000000000006e40"
      "0000000000e06f40000000000000f03f0000000000806a40",
      /* -> complex64 */
      "00000000000000000000803f0000000000007f43000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000000000000000"
      "00003042000000000000fe4200000000000000430000000000007f4300000000"
      "000000000000000000007f4300000000000000000000000000007f4300000000"
      "00007f43000000000000000000000000000000000000000000007f4300000000"
      "00000000000000000000803f0000000000007f43000000000000000000000000"
      "0000803f000000000000803f0000000000006f43000000000000704300000000"
      "00007f43000000000000803f000000000000544300000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "0000000000e06f40000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000000000000000000000000"
      "000000000000464000000000000000000000000000c05f400000000000000000"
      "000000000000604000000000000000000000000000e06f400000000000000000"
      "000000000000000000000000000000000000000000e06f400000000000000000"
      "000000000000000000000000000000000000000000e06f400000000000000000"
      "0000000000e06f40000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000e06f400000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "0000000000e06f40000000000000000000000000000000000000000000000000"
      "000000000000f03f0000000000000000000000000000f03f0000000000000000"
      "0000000000e06d4000000000000000000000000000006e400000000000000000"
      "0000000000e06f400000000000000000000000000000f03f0000000000000000"
      "0000000000806a400000000000000000",
     }},
    /* uint16: 0, 1, 65535, 2, 127, 128, 255, 256, 300, 65407, 65408, 32767, 32768, 65535, 0, 32767, 65535, 0, 0, 65535, 0, 1, 65535, 0, 1, 2049, 65519, 65520, 65535, 1, 65236 */
    {ND_UINT16, 31,
     "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
     "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
     {
      /* -> bool */
      "00010101010101010101010101010001010000010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffff0000020000007f00000080000000ff00000000010000"
      "2c0100007fff000080ff0000ff7f000000800000ffff000000000000ff7f0000"
      "ffff00000000000000000000ffff00000000000001000000ffff000000000000"
      "0100000001080000efff0000f0ff0000ffff000001000000d4fe0000",
      /* -> int64 */
      "00000000000000000100000000000000ffff0000000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fff00000000000080ff000000000000ff7f000000000000"
      "0080000000000000ffff0000000000000000000000000000ff7f000000000000"
      "ffff00000000000000000000000000000000000000000000ffff000000000000"
      "00000000000000000100000000000000ffff0000000000000000000000000000"
      "01000000000000000108000000000000efff000000000000f0ff000000000000"
      "ffff0000000000000100000000000000d4fe000000000000",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffff0000020000007f00000080000000ff00000000010000"
      "2c0100007fff000080ff0000ff7f000000800000ffff000000000000ff7f0000"
      "ffff00000000000000000000ffff00000000000001000000ffff000000000000"
      "0100000001080000efff0000f0ff0000ffff000001000000d4fe0000",
      /* -> uint64 */
      "00000000000000000100000000000000ffff0000000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fff00000000000080ff000000000000ff7f000000000000"
      "0080000000000000ffff0000000000000000000000000000ff7f000000000000"
      "ffff00000000000000000000000000000000000000000000ffff000000000000"
      "00000000000000000100000000000000ffff0000000000000000000000000000"
      "01000000000000000108000000000000efff000000000000f0ff000000000000"
      "ffff0000000000000100000000000000d4fe000000000000",
      /* -> float16 */
      "0000003c007c0040f0570058f85b005cb05cfc7bfc7b00780078007c00000078"
      "007c00000000007c0000003c007c0000003c0068ff7b007c007c003cf77b",
      /* -> float32 */
      "000000000000803f00ff7f47000000400000fe420000004300007f4300008043"
      "00009643007f7f4700807f4700feff460000004700ff7f470000000000feff46"
      "00ff7f47000000000000000000ff7f47000000000000803f00ff7f4700000000"
      "0000803f0010004500ef7f4700f07f4700ff7f470000803f00d47e47",
      /* -> float64 */
      "0000000000000000000000000000f03f00000000e0ffef400000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c0724000000000e0efef400000000000f0ef4000000000c0ffdf40"
      "000000000000e04000000000e0ffef40000000000000000000000000c0ffdf40"
      "00000000e0ffef400000000000000000000000000000000000000000e0ffef40"
      "0000000000000000000000000000f03f00000000e0ffef400000000000000000"
      "000000000000f03f000000000002a04000000000e0fdef400000000000feef40"
      "00000000e0ffef40000000000000f03f0000000080daef40",
      /* -> complex64 */
      "00000000000000000000803f0000000000ff7f47000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "0000964300000000007f7f470000000000807f470000000000feff4600000000"
      "000000470000000000ff7f4700000000000000000000000000feff4600000000"
      "00ff7f47000000000000000000000000000000000000000000ff7f4700000000"
      "00000000000000000000803f0000000000ff7f47000000000000000000000000"
      "0000803f00000000001000450000000000ef7f470000000000f07f4700000000"
      "00ff7f47000000000000803f0000000000d47e4700000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "00000000e0ffef40000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c07240000000000000000000000000e0efef400000000000000000"
      "0000000000f0ef40000000000000000000000000c0ffdf400000000000000000"
      "000000000000e040000000000000000000000000e0ffef400000000000000000"
      "0000000000000000000000000000000000000000c0ffdf400000000000000000"
      "00000000e0ffef40000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000000e0ffef400000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "00000000e0ffef40000000000000000000000000000000000000000000000000"
      "000000000000f03f0000000000000000000000000002a0400000000000000000"
      "00000000e0fdef4000000000000000000000000000feef400000000000000000"
      "00000000e0ffef400000000000000000000000000000f03f0000000000000000"
      "0000000080daef400000000000000000",
     }},
    /* uint32: 0, 1, 4294967295, 2, 127, 128, 255, 256, 300, 4294967167, 4294967168, 32767, 32768, 65535, 65536, 4294934527, 2147483647, 2147483648, 2147483648, 4294967295, 0, 1, 4294967295, 0, 16777217, 2049, 65519, 65520, 4294967295, 1, 4294966996 */
    {ND_UINT32, 31,
     "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
     "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
     "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
     "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
     {
      /* -> bool */
      "00010101010101010101010101010101010101010001010001010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffff000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffff0000000080ffffff00000000ff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffff00000000"
      "ffffff7f0000000000000080000000000000008000000000ffffffff00000000"
      "00000000000000000100000000000000ffffffff000000000000000000000000"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffff000000000100000000000000d4feffff00000000",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffff000000000200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffff0000000080ffffff00000000ff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffff00000000"
      "ffffff7f0000000000000080000000000000008000000000ffffffff00000000"
      "00000000000000000100000000000000ffffffff000000000000000000000000"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffff000000000100000000000000d4feffff00000000",
      /* -> float16 */
      "0000003c007c0040f0570058f85b005cb05c007c007c00780078007c007c007c"
      "007c007c007c007c0000003c007c0000007c0068ff7b007c007c003c007c",
      /* -> float32 */
      "000000000000803f0000804f000000400000fe420000004300007f4300008043"
      "00009643ffff7f4f0000804f00feff460000004700ff7f470000804780ff7f4f"
      "0000004f0000004f0000004f0000804f000000000000803f0000804f00000000"
      "0000804b0010004500ef7f4700f07f470000804f0000803fffff7f4f",
      /* -> float64 */
      "0000000000000000000000000000f03f0000e0ffffffef410000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c072400000e0efffffef41000000f0ffffef4100000000c0ffdf40"
      "000000000000e04000000000e0ffef40000000000000f0400000e0ffefffef41"
      "0000c0ffffffdf41000000000000e041000000000000e0410000e0ffffffef41"
      "0000000000000000000000000000f03f0000e0ffffffef410000000000000000"
      "0000001000007041000000000002a04000000000e0fdef400000000000feef40"
      "0000e0ffffffef41000000000000f03f000080daffffef41",
      /* -> complex64 */
      "00000000000000000000803f000000000000804f000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "0000964300000000ffff7f4f000000000000804f0000000000feff4600000000"
      "000000470000000000ff7f4700000000000080470000000080ff7f4f00000000"
      "0000004f000000000000004f000000000000004f000000000000804f00000000"
      "00000000000000000000803f000000000000804f000000000000000000000000"
      "0000804b00000000001000450000000000ef7f470000000000f07f4700000000"
      "0000804f000000000000803f00000000ffff7f4f00000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "0000e0ffffffef41000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c0724000000000000000000000e0efffffef410000000000000000"
      "000000f0ffffef41000000000000000000000000c0ffdf400000000000000000"
      "000000000000e040000000000000000000000000e0ffef400000000000000000"
      "000000000000f04000000000000000000000e0ffefffef410000000000000000"
      "0000c0ffffffdf410000000000000000000000000000e0410000000000000000"
      "000000000000e04100000000000000000000e0ffffffef410000000000000000"
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "0000e0ffffffef41000000000000000000000000000000000000000000000000"
      "00000010000070410000000000000000000000000002a0400000000000000000"
      "00000000e0fdef4000000000000000000000000000feef400000000000000000"
      "0000e0ffffffef410000000000000000000000000000f03f0000000000000000"
      "000080daffffef410000000000000000",
     }},
    /* uint64: 0, 1, 18446744073709551615, 2, 127, 128, 255, 256, 300, 18446744073709551487, 18446744073709551488, 32767, 32768, 65535, 65536, 18446744073709518847, 2147483647, 2147483648, 18446744071562067968, 4294967295, 4294967296, 9007199254740993, 9223372036854775807, 9223372036854775808, 16777217, 2049, 65519, 65520, 18446744073709551615, 9223373136366403585, 18446744073709551316 */
    {ND_UINT64, 31,
     "00000000000000000100000000000000ffffffffffffffff0200000000000000"
     "7f000000000000008000000000000000ff000000000000000001000000000000"
     "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
     "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
     "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
     "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
     "01000001000000000108000000000000efff000000000000f0ff000000000000"
     "ffffffffffffffff0100000000010080d4feffffffffffff",
     {
      /* -> bool */
      "00010101010101010101010101010101010101010101010101010101010101",
      /* -> int8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> int16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> int32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> int64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
      "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000010080d4feffffffffffff",
      /* -> uint8 */
      "0001ff027f80ff002c7f80ff00ff00ffff0000ff0001ff000101eff0ff01d4",
      /* -> uint16 */
      "00000100ffff02007f008000ff0000012c017fff80ffff7f0080ffff0000ff7f"
      "ffff00000000ffff00000100ffff000001000108effff0ffffff0100d4fe",
      /* -> uint32 */
      "0000000001000000ffffffff020000007f00000080000000ff00000000010000"
      "2c0100007fffffff80ffffffff7f000000800000ffff000000000100ff7fffff"
      "ffffff7f0000008000000080ffffffff0000000001000000ffffffff00000000"
      "0100000101080000efff0000f0ff0000ffffffff01000000d4feffff",
      /* -> uint64 */
      "00000000000000000100000000000000ffffffffffffffff0200000000000000"
      "7f000000000000008000000000000000ff000000000000000001000000000000"
      "2c010000000000007fffffffffffffff80ffffffffffffffff7f000000000000"
      "0080000000000000ffff0000000000000000010000000000ff7fffffffffffff"
      "ffffff7f00000000000000800000000000000080ffffffffffffffff00000000"
      "00000000010000000100000000002000ffffffffffffff7f0000000000000080"
      "01000001000000000108000000000000efff000000000000f0ff000000000000"
      "ffffffffffffffff0100000000010080d4feffffffffffff",
      /* -> float16 */
      "0000003c007c0040f0570058f85b005cb05c007c007c00780078007c007c007c"
      "007c007c007c007c007c007c007c007c007c0068ff7b007c007c007c007c",
      /* -> float32 */
      "000000000000803f0000805f000000400000fe420000004300007f4300008043"
      "000096430000805f0000805f00feff460000004700ff7f47000080470000805f"
      "0000004f0000004f0000805f0000804f0000804f0000005a0000005f0000005f"
      "0000804b0010004500ef7f4700f07f470000805f0100005f0000805f",
      /* -> float64 */
      "0000000000000000000000000000f03f000000000000f0430000000000000040"
      "0000000000c05f4000000000000060400000000000e06f400000000000007040"
      "0000000000c07240000000000000f043000000000000f04300000000c0ffdf40"
      "000000000000e04000000000e0ffef40000000000000f040f0ffffffffffef43"
      "0000c0ffffffdf41000000000000e0410000f0ffffffef430000e0ffffffef41"
      "000000000000f0410000000000004043000000000000e043000000000000e043"
      "0000001000007041000000000002a04000000000e0fdef400000000000feef40"
      "000000000000f043000000200000e043000000000000f043",
      /* -> complex64 */
      "00000000000000000000803f000000000000805f000000000000004000000000"
      "0000fe4200000000000000430000000000007f43000000000000804300000000"
      "00009643000000000000805f000000000000805f0000000000feff4600000000"
      "000000470000000000ff7f470000000000008047000000000000805f00000000"
      "0000004f000000000000004f000000000000805f000000000000804f00000000"
      "0000804f000000000000005a000000000000005f000000000000005f00000000"
      "0000804b00000000001000450000000000ef7f470000000000f07f4700000000"
      "0000805f000000000100005f000000000000805f00000000",
      /* -> complex128 */
      "00000000000000000000000000000000000000000000f03f0000000000000000"
      "000000000000f043000000000000000000000000000000400000000000000000"
      "0000000000c05f40000000000000000000000000000060400000000000000000"
      "0000000000e06f40000000000000000000000000000070400000000000000000"
      "0000000000c072400000000000000000000000000000f0430000000000000000"
      "000000000000f043000000000000000000000000c0ffdf400000000000000000"
      "000000000000e040000000000000000000000000e0ffef400000000000000000"
      "000000000000f0400000000000000000f0ffffffffffef430000000000000000"
      "0000c0ffffffdf410000000000000000000000000000e0410000000000000000"
      "0000f0ffffffef4300000000000000000000e0ffffffef410000000000000000"
      "000000000000f041000000000000000000000000000040430000000000000000"
      "000000000000e0430000000000000000000000000000e0430000000000000000"
      "00000010000070410000000000000000000000000002a0400000000000000000"
      "00000000e0fdef4000000000000000000000000000feef400000000000000000"
      "000000000000f0430000000000000000000000200000e0430000000000000000"
      "000000000000f0430000000000000000",
     }},
    /* float16: 0.0, -0.0, 1.0, -1.5, 300.75, inf, -inf, nan, inf, -inf, 65504.0, inf, inf, inf, inf, -inf, -inf, inf, inf, inf, inf, -inf, inf, 127.5, -128.875, 255.875, 256.0, -0.5, 1.0009765625, 5.960464477539063e-08, 0.0, 0.0, inf, inf, -inf, inf */
    {ND_FLOAT16, 36,
     "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
     "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8013c010000000000"
     "007c007c00fc007c",
     {
      /* -> bool */
      "0000010101010101010101010101010101010101010101010101010101010000"
      "01010101",
      /* -> int8 */
      "000001ff2c0000000000e00000000000000000000000007f80ff000001000000"
      "00000000",
      /* -> int16 */
      "000000000100ffff2c0100000000000000000000e0ff00000000000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> int32 */
      "000000000000000001000000ffffffff2c010000000000800000008000000080"
      "0000008000000080e0ff00000000008000000080000000800000008000000080"
      "000000800000008000000080000000800000008000000080000000807f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000080000000800000008000000080",
      /* -> int64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000008000000000000000800000000000000080"
      "00000000000000800000000000000080e0ff0000000000000000000000000080"
      "0000000000000080000000000000008000000000000000800000000000000080"
      "0000000000000080000000000000008000000000000000800000000000000080"
      "0000000000000080000000000000008000000000000000807f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000080000000000000008000000000000000800000000000000080",
      /* -> uint8 */
      "000001ff2c0000000000e00000000000000000000000007f80ff000001000000"
      "00000000",
      /* -> uint16 */
      "000000000100ffff2c0100000000000000000000e0ff00000000000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> uint32 */
      "000000000000000001000000ffffffff2c010000000000000000000000000000"
      "0000000000000000e0ff00000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000007f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000000000000000000000000000000",
      /* -> uint64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000000000000000000000800000000000000080"
      "00000000000000000000000000000080e0ff0000000000000000000000000000"
      "0000000000000000000000000000000000000000000000000000000000000080"
      "0000000000000080000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000008000000000000000007f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000000000000800000000000000000",
      /* -> float16 */
      "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
      "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8013c010000000000"
      "007c007c00fc007c",
      /* -> float32 */
      "00000000000000800000803f0000c0bf006096430000807f000080ff0000c07f"
      "0000807f000080ff00e07f470000807f0000807f0000807f0000807f000080ff"
      "000080ff0000807f0000807f0000807f0000807f000080ff0000807f0000ff42"
      "00e000c300e07f4300008043000000bf0020803f000080330000000000000000"
      "0000807f0000807f000080ff0000807f",
      /* -> float64 */
      "00000000000000000000000000000080000000000000f03f000000000000f8bf"
      "0000000000cc7240000000000000f07f000000000000f0ff000000000000f87f"
      "000000000000f07f000000000000f0ff0000000000fcef40000000000000f07f"
      "000000000000f07f000000000000f07f000000000000f07f000000000000f0ff"
      "000000000000f0ff000000000000f07f000000000000f07f000000000000f07f"
      "000000000000f07f000000000000f0ff000000000000f07f0000000000e05f40"
      "00000000001c60c00000000000fc6f400000000000007040000000000000e0bf"
      "000000000004f03f000000000000703e00000000000000000000000000000000"
      "000000000000f07f000000000000f07f000000000000f0ff000000000000f07f",
      /* -> complex64 */
      "000000000000000000000080000000000000803f000000000000c0bf00000000"
      "00609643000000000000807f00000000000080ff000000000000c07f00000000"
      "0000807f00000000000080ff0000000000e07f47000000000000807f00000000"
      "0000807f000000000000807f000000000000807f00000000000080ff00000000"
      "000080ff000000000000807f000000000000807f000000000000807f00000000"
      "0000807f00000000000080ff000000000000807f000000000000ff4200000000"
      "00e000c30000000000e07f43000000000000804300000000000000bf00000000"
      "0020803f00000000000080330000000000000000000000000000000000000000"
      "0000807f000000000000807f00000000000080ff000000000000807f00000000",
      /* -> complex128 */
      "0000000000000000000000000000000000000000000000800000000000000000"
      "000000000000f03f0000000000000000000000000000f8bf0000000000000000"
      "0000000000cc72400000000000000000000000000000f07f0000000000000000"
      "000000000000f0ff0000000000000000000000000000f87f0000000000000000"
      "000000000000f07f0000000000000000000000000000f0ff0000000000000000"
      "0000000000fcef400000000000000000000000000000f07f0000000000000000"
      "000000000000f07f0000000000000000000000000000f07f0000000000000000"
      "000000000000f07f0000000000000000000000000000f0ff0000000000000000"
      "000000000000f0ff0000000000000000000000000000f07f0000000000000000"
      "000000000000f07f0000000000000000000000000000f07f0000000000000000"
      "000000000000f07f0000000000000000000000000000f0ff0000000000000000"
      "000000000000f07f00000000000000000000000000e05f400000000000000000"
      "00000000001c60c000000000000000000000000000fc6f400000000000000000"
      "00000000000070400000000000000000000000000000e0bf0000000000000000"
      "000000000004f03f0000000000000000000000000000703e0000000000000000"
      "0000000000000000000000000000000000000000000000000000000000000000"
      "000000000000f07f0000000000000000000000000000f07f0000000000000000"
      "000000000000f0ff0000000000000000000000000000f07f0000000000000000",
     }},
    /* float32: 0.0, -0.0, 1.0, -1.5, 300.70001220703125, 1.0000000200408773e+20, -1.0000000200408773e+20, nan, inf, -inf, 65504.0, 65520.0, 70000.5, 3000000000.0, 5000000000.0, -3000000000.0, -5000000000.0, 2147483648.0, 4294967296.0, 9.223372036854776e+18, 1.8446744073709552e+19, -9.223372036854776e+18, 1.8000000404716257e+19, 127.5, -128.89999389648438, 255.89999389648438, 256.0, -0.5, 1.00048828125, 5.99999978589949e-08, 2.9802322387695312e-08, 0.0, inf, inf, -2147483648.0, 4294967296.0 */
    {ND_FLOAT32, 36,
     "00000000000000800000803f0000c0bf9a599643ec78ad60ec78ade00000c07f"
     "0000807f000080ff00e07f4700f07f4740b888475ed0324ff902954f5ed032cf"
     "f90295cf0000004f0000804f0000005f0000805f000000dfd9cc795f0000ff42"
     "66e600c366e67f4300008043000000bf0010803f59d980330000003300000000"
     "0000807f0000807f000000cf0000804f",
     {
      /* -> bool */
      "0000010101010101010101010101010101010101010101010101010101010100"
      "01010101",
      /* -> int8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000",
      /* -> int16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> int32 */
      "000000000000000001000000ffffffff2c010000000000800000008000000080"
      "0000008000000080e0ff0000f0ff000070110100000000800000008000000080"
      "000000800000008000000080000000800000008000000080000000807f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000080000000800000008000000080",
      /* -> int64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000008000000000000000800000000000000080"
      "00000000000000800000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000000000000010000000000000000000080"
      "0000000000000080000000000000008000000000000000807f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000080000000000000008000000080ffffffff0000000001000000",
      /* -> uint8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000",
      /* -> uint16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> uint32 */
      "000000000000000001000000ffffffff2c010000000000000000008000000080"
      "0000000000000080e0ff0000f0ff000070110100005ed0b20000000000000080"
      "000000800000008000000000000000000000000000000080000000007f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000000000000000000008000000000",
      /* -> uint64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000000000000000000000800000000000000080"
      "00000000000000000000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000000000000010000000000000000000080"
      "000000000000000000000000000000800000000000d9ccf97f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000080ffffffff0000000001000000",
      /* -> float16 */
      "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
      "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8003c010000000000"
      "007c007c00fc007c",
      /* -> float32 */
      "00000000000000800000803f0000c0bf9a599643ec78ad60ec78ade00000c07f"
      "0000807f000080ff00e07f4700f07f4740b888475ed0324ff902954f5ed032cf"
      "f90295cf0000004f0000804f0000005f0000805f000000dfd9cc795f0000ff42"
      "66e600c366e67f4300008043000000bf0010803f59d980330000003300000000"
      "0000807f0000807f000000cf0000804f",
      /* -> float64 */
      "00000000000000000000000000000080000000000000f03f000000000000f8bf"
      "0000004033cb7240000000801daf1544000000801daf15c4000000000000f87f"
      "000000000000f07f000000000000f0ff0000000000fcef400000000000feef40"
      "000000000817f140000000c00b5ae641000000205fa0f241000000c00b5ae6c1"
      "000000205fa0f2c1000000000000e041000000000000f041000000000000e043"
      "000000000000f043000000000000e0c3000000209b39ef430000000000e05f40"
      "000000c0cc1c60c0000000c0ccfc6f400000000000007040000000000000e0bf"
      "000000000002f03f000000202b1b703e000000000000603e0000000000000000"
      "000000000000f07f000000000000f07f000000000000e0c1000000000000f041",
      /* -> complex64 */
      "000000000000000000000080000000000000803f000000000000c0bf00000000"
      "9a59964300000000ec78ad6000000000ec78ade0000000000000c07f00000000"
      "0000807f00000000000080ff0000000000e07f470000000000f07f4700000000"
      "40b88847000000005ed0324f00000000f902954f000000005ed032cf00000000"
      "f90295cf000000000000004f000000000000804f000000000000005f00000000"
      "0000805f00000000000000df00000000d9cc795f000000000000ff4200000000"
      "66e600c30000000066e67f43000000000000804300000000000000bf00000000"
      "0010803f0000000059d980330000000000000033000000000000000000000000"
      "0000807f000000000000807f00000000000000cf000000000000804f00000000",
      /* -> complex128 */
      "0000000000000000000000000000000000000000000000800000000000000000"
      "000000000000f03f0000000000000000000000000000f8bf0000000000000000"
      "0000004033cb72400000000000000000000000801daf15440000000000000000"
      "000000801daf15c40000000000000000000000000000f87f0000000000000000"
      "000000000000f07f0000000000000000000000000000f0ff0000000000000000"
      "0000000000fcef4000000000000000000000000000feef400000000000000000"
      "000000000817f1400000000000000000000000c00b5ae6410000000000000000"
      "000000205fa0f2410000000000000000000000c00b5ae6c10000000000000000"
      "000000205fa0f2c10000000000000000000000000000e0410000000000000000"
      "000000000000f0410000000000000000000000000000e0430000000000000000"
      "000000000000f0430000000000000000000000000000e0c30000000000000000"
      "000000209b39ef4300000000000000000000000000e05f400000000000000000"
      "000000c0cc1c60c00000000000000000000000c0ccfc6f400000000000000000"
      "00000000000070400000000000000000000000000000e0bf0000000000000000"
      "000000000002f03f0000000000000000000000202b1b703e0000000000000000"
      "000000000000603e000000000000000000000000000000000000000000000000"
      "000000000000f07f0000000000000000000000000000f07f0000000000000000"
      "000000000000e0c10000000000000000000000000000f0410000000000000000",
     }},
    /* float64: 0.0, -0.0, 1.0, -1.5, 300.7, 1e+20, -1e+20, nan, inf, -inf, 65504.0, 65520.0, 70000.5, 3000000000.0, 5000000000.0, -3000000000.0, -5000000000.0, 2147483648.0, 4294967301.0, 9.223372036854776e+18, 1.8446744073709552e+19, -9.223372036854776e+18, 1.8e+19, 127.5, -128.9, 255.9, 256.0, -0.5, 1.0004882812509095, 6e-08, 2.9802322387695312e-08, 1e-46, 3.4028235677973366e+38, 1e+300, -2147483648.5, 4294967295.0 */
    {ND_FLOAT64, 36,
     "00000000000000000000000000000080000000000000f03f000000000000f8bf"
     "3333333333cb7240408cb5781daf1544408cb5781daf15c4000000000000f87f"
     "000000000000f07f000000000000f0ff0000000000fcef400000000000feef40"
     "000000000817f140000000c00b5ae641000000205fa0f241000000c00b5ae6c1"
     "000000205fa0f2c1000000000000e041000050000000f041000000000000e043"
     "000000000000f043000000000000e0c300a138149b39ef430000000000e05f40"
     "cdcccccccc1c60c0cdccccccccfc6f400000000000007040000000000000e0bf"
     "001000000002f03f2b69a4292b1b703e000000000000603e61552c24ce446236"
     "000000f0ffffef479c7500883ce4377e000010000000e0c10000e0ffffffef41",
     {
      /* -> bool */
      "0000010101010101010101010101010101010101010101010101010101010101"
      "01010101",
      /* -> int8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000",
      /* -> int16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> int32 */
      "000000000000000001000000ffffffff2c010000000000800000008000000080"
      "0000008000000080e0ff0000f0ff000070110100000000800000008000000080"
      "000000800000008000000080000000800000008000000080000000807f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000080000000800000008000000080",
      /* -> int64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000008000000000000000800000000000000080"
      "00000000000000800000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000005000000010000000000000000000080"
      "0000000000000080000000000000008000000000000000807f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000080000000000000008000000080ffffffffffffffff00000000",
      /* -> uint8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000",
      /* -> uint16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000",
      /* -> uint32 */
      "000000000000000001000000ffffffff2c010000000000000000008000000080"
      "0000000000000080e0ff0000f0ff000070110100005ed0b20000000000000080"
      "000000800000008000000000000000000000000000000080000000007f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "000000000000000000000080ffffffff",
      /* -> uint64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000000000000000000000800000000000000080"
      "00000000000000000000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000005000000010000000000000000000080"
      "00000000000000000000000000000080000008c5a1d8ccf97f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000080ffffffffffffffff00000000",
      /* -> float16 */
      "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
      "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8013c010000000000"
      "007c007c00fc007c",
      /* -> float32 */
      "00000000000000800000803f0000c0bf9a599643ec78ad60ec78ade00000c07f"
      "0000807f000080ff00e07f4700f07f4740b888475ed0324ff902954f5ed032cf"
      "f90295cf0000004f0000804f0000005f0000805f000000dfd9cc795f0000ff42"
      "66e600c366e67f4300008043000000bf0010803f59d980330000003300000000"
      "0000807f0000807f000000cf0000804f",
      /* -> float64 */
      "00000000000000000000000000000080000000000000f03f000000000000f8bf"
      "3333333333cb7240408cb5781daf1544408cb5781daf15c4000000000000f87f"
      "000000000000f07f000000000000f0ff0000000000fcef400000000000feef40"
      "000000000817f140000000c00b5ae641000000205fa0f241000000c00b5ae6c1"
      "000000205fa0f2c1000000000000e041000050000000f041000000000000e043"
      "000000000000f043000000000000e0c300a138149b39ef430000000000e05f40"
      "cdcccccccc1c60c0cdccccccccfc6f400000000000007040000000000000e0bf"
      "001000000002f03f2b69a4292b1b703e000000000000603e61552c24ce446236"
      "000000f0ffffef479c7500883ce4377e000010000000e0c10000e0ffffffef41",
      /* -> complex64 */
      "000000000000000000000080000000000000803f000000000000c0bf00000000"
      "9a59964300000000ec78ad6000000000ec78ade0000000000000c07f00000000"
      "0000807f00000000000080ff0000000000e07f470000000000f07f4700000000"
      "40b88847000000005ed0324f00000000f902954f000000005ed032cf00000000"
      "f90295cf000000000000004f000000000000804f000000000000005f00000000"
      "0000805f00000000000000df00000000d9cc795f000000000000ff4200000000"
      "66e600c30000000066e67f43000000000000804300000000000000bf00000000"
      "0010803f0000000059d980330000000000000033000000000000000000000000"
      "0000807f000000000000807f00000000000000cf000000000000804f00000000",
      /* -> complex128 */
      "0000000000000000000000000000000000000000000000800000000000000000"
      "000000000000f03f0000000000000000000000000000f8bf0000000000000000"
      "3333333333cb72400000000000000000408cb5781daf15440000000000000000"
      "408cb5781daf15c40000000000000000000000000000f87f0000000000000000"
      "000000000000f07f0000000000000000000000000000f0ff0000000000000000"
      "0000000000fcef4000000000000000000000000000feef400000000000000000"
      "000000000817f1400000000000000000000000c00b5ae6410000000000000000"
      "000000205fa0f2410000000000000000000000c00b5ae6c10000000000000000"
      "000000205fa0f2c10000000000000000000000000000e0410000000000000000"
      "000050000000f0410000000000000000000000000000e0430000000000000000"
      "000000000000f0430000000000000000000000000000e0c30000000000000000"
      "00a138149b39ef4300000000000000000000000000e05f400000000000000000"
      "cdcccccccc1c60c00000000000000000cdccccccccfc6f400000000000000000"
      "00000000000070400000000000000000000000000000e0bf0000000000000000"
      "001000000002f03f00000000000000002b69a4292b1b703e0000000000000000"
      "000000000000603e000000000000000061552c24ce4462360000000000000000"
      "000000f0ffffef4700000000000000009c7500883ce4377e0000000000000000"
      "000010000000e0c100000000000000000000e0ffffffef410000000000000000",
     }},
    /* complex64: 0j, (-0+0j), (1+2.5j), (-1.5-1j), (300.70001220703125+0j), (1.0000000200408773e+20+nanj), (-1.0000000200408773e+20+0j), (nan+0j), (inf+1j), (-inf+0j), (65504+0j), (65520+0j), (70000.5+2.5j), (3000000000-1j), (5000000000+0j), (-3000000000+nanj), (-5000000000+0j), (2147483648+0j), (4294967296+1j), (9.223372036854776e+18+0j), (1.8446744073709552e+19+0j), (-9.223372036854776e+18+0j), (1.8000000404716257e+19+2.5j), (127.5-1j), (-128.89999389648438+0j), (255.89999389648438+nanj), (256+0j), (-0.5+0j), (1.00048828125+1j), (5.99999978589949e-08+0j), (2.9802322387695312e-08+0j), 0j, (inf+2.5j), (inf-1j), (-2147483648+0j), (4294967296+nanj), 1j, (-0+0j), nanj */
    {ND_COMPLEX64, 39,
     "000000000000000000000080000000000000803f000020400000c0bf000080bf"
     "9a59964300000000ec78ad600000c07fec78ade0000000000000c07f00000000"
     "0000807f0000803f000080ff0000000000e07f470000000000f07f4700000000"
     "40b88847000020405ed0324f000080bff902954f000000005ed032cf0000c07f"
     "f90295cf000000000000004f000000000000804f0000803f0000005f00000000"
     "0000805f00000000000000df00000000d9cc795f000020400000ff42000080bf"
     "66e600c30000000066e67f430000c07f0000804300000000000000bf00000000"
     "0010803f0000803f59d980330000000000000033000000000000000000000000"
     "0000807f000020400000807f000080bf000000cf000000000000804f0000c07f"
     "000000000000803f0000008000000000000000000000c07f",
     {
      /* -> bool */
      "0000010101010101010101010101010101010101010101010101010101010100"
      "01010101010001",
      /* -> int8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000000000",
      /* -> int16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000000000000000",
      /* -> int32 */
      "000000000000000001000000ffffffff2c010000000000800000008000000080"
      "0000008000000080e0ff0000f0ff000070110100000000800000008000000080"
      "000000800000008000000080000000800000008000000080000000807f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000080000000800000008000000080000000000000000000000000",
      /* -> int64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000008000000000000000800000000000000080"
      "00000000000000800000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000000000000010000000000000000000080"
      "0000000000000080000000000000008000000000000000807f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000080000000000000008000000080ffffffff0000000001000000"
      "000000000000000000000000000000000000000000000000",
      /* -> uint8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000000000",
      /* -> uint16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000000000000000",
      /* -> uint32 */
      "000000000000000001000000ffffffff2c010000000000000000008000000080"
      "0000000000000080e0ff0000f0ff000070110100005ed0b20000000000000080"
      "000000800000008000000000000000000000000000000080000000007f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000000000000000000008000000000000000000000000000000000",
      /* -> uint64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000000000000000000000800000000000000080"
      "00000000000000000000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000000000000010000000000000000000080"
      "000000000000000000000000000000800000000000d9ccf97f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000080ffffffff0000000001000000"
      "000000000000000000000000000000000000000000000000",
      /* -> float16 */
      "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
      "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8003c010000000000"
      "007c007c00fc007c000000800000",
      /* -> float32 */
      "00000000000000800000803f0000c0bf9a599643ec78ad60ec78ade00000c07f"
      "0000807f000080ff00e07f4700f07f4740b888475ed0324ff902954f5ed032cf"
      "f90295cf0000004f0000804f0000005f0000805f000000dfd9cc795f0000ff42"
      "66e600c366e67f4300008043000000bf0010803f59d980330000003300000000"
      "0000807f0000807f000000cf0000804f000000000000008000000000",
      /* -> float64 */
      "00000000000000000000000000000080000000000000f03f000000000000f8bf"
      "0000004033cb7240000000801daf1544000000801daf15c4000000000000f87f"
      "000000000000f07f000000000000f0ff0000000000fcef400000000000feef40"
      "000000000817f140000000c00b5ae641000000205fa0f241000000c00b5ae6c1"
      "000000205fa0f2c1000000000000e041000000000000f041000000000000e043"
      "000000000000f043000000000000e0c3000000209b39ef430000000000e05f40"
      "000000c0cc1c60c0000000c0ccfc6f400000000000007040000000000000e0bf"
      "000000000002f03f000000202b1b703e000000000000603e0000000000000000"
      "000000000000f07f000000000000f07f000000000000e0c1000000000000f041"
      "000000000000000000000000000000800000000000000000",
      /* -> complex64 */
      "000000000000000000000080000000000000803f000020400000c0bf000080bf"
      "9a59964300000000ec78ad600000c07fec78ade0000000000000c07f00000000"
      "0000807f0000803f000080ff0000000000e07f470000000000f07f4700000000"
      "40b88847000020405ed0324f000080bff902954f000000005ed032cf0000c07f"
      "f90295cf000000000000004f000000000000804f0000803f0000005f00000000"
      "0000805f00000000000000df00000000d9cc795f000020400000ff42000080bf"
      "66e600c30000000066e67f430000c07f0000804300000000000000bf00000000"
      "0010803f0000803f59d980330000000000000033000000000000000000000000"
      "0000807f000020400000807f000080bf000000cf000000000000804f0000c07f"
      "000000000000803f0000008000000000000000000000c07f",
      /* -> complex128 */
      "0000000000000000000000000000000000000000000000800000000000000000"
      "000000000000f03f0000000000000440000000000000f8bf000000000000f0bf"
      "0000004033cb72400000000000000000000000801daf1544000000000000f87f"
      "000000801daf15c40000000000000000000000000000f87f0000000000000000"
      "000000000000f07f000000000000f03f000000000000f0ff0000000000000000"
      "0000000000fcef4000000000000000000000000000feef400000000000000000"
      "000000000817f1400000000000000440000000c00b5ae641000000000000f0bf"
      "000000205fa0f2410000000000000000000000c00b5ae6c1000000000000f87f"
      "000000205fa0f2c10000000000000000000000000000e0410000000000000000"
      "000000000000f041000000000000f03f000000000000e0430000000000000000"
      "000000000000f0430000000000000000000000000000e0c30000000000000000"
      "000000209b39ef4300000000000004400000000000e05f40000000000000f0bf"
      "000000c0cc1c60c00000000000000000000000c0ccfc6f40000000000000f87f"
      "00000000000070400000000000000000000000000000e0bf0000000000000000"
      "000000000002f03f000000000000f03f000000202b1b703e0000000000000000"
      "000000000000603e000000000000000000000000000000000000000000000000"
      "000000000000f07f0000000000000440000000000000f07f000000000000f0bf"
      "000000000000e0c10000000000000000000000000000f041000000000000f87f"
      "0000000000000000000000000000f03f00000000000000800000000000000000"
      "0000000000000000000000000000f87f",
     }},
    /* complex128: 0j, (-0+0j), (1+2.5j), (-1.5-1j), (300.7+0j), (1e+20+nanj), (-1e+20+0j), (nan+0j), (inf+1j), (-inf+0j), (65504+0j), (65520+0j), (70000.5+2.5j), (3000000000-1j), (5000000000+0j), (-3000000000+nanj), (-5000000000+0j), (2147483648+0j), (4294967301+1j), (9.223372036854776e+18+0j), (1.8446744073709552e+19+0j), (-9.223372036854776e+18+0j), (1.8e+19+2.5j), (127.5-1j), (-128.9+0j), (255.9+nanj), (256+0j), (-0.5+0j), (1.0004882812509095+1j), (6e-08+0j), (2.9802322387695312e-08+0j), (1e-46+0j), (3.4028235677973366e+38+2.5j), (1e+300-1j), (-2147483648.5+0j), (4294967295+nanj), 1j, (-0+0j), nanj */
    {ND_COMPLEX128, 39,
     "0000000000000000000000000000000000000000000000800000000000000000"
     "000000000000f03f0000000000000440000000000000f8bf000000000000f0bf"
     "3333333333cb72400000000000000000408cb5781daf1544000000000000f87f"
     "408cb5781daf15c40000000000000000000000000000f87f0000000000000000"
     "000000000000f07f000000000000f03f000000000000f0ff0000000000000000"
     "0000000000fcef4000000000000000000000000000feef400000000000000000"
     "000000000817f1400000000000000440000000c00b5ae641000000000000f0bf"
     "000000205fa0f2410000000000000000000000c00b5ae6c1000000000000f87f"
     "000000205fa0f2c10000000000000000000000000000e0410000000000000000"
     "000050000000f041000000000000f03f000000000000e0430000000000000000"
     "000000000000f0430000000000000000000000000000e0c30000000000000000"
     "00a138149b39ef4300000000000004400000000000e05f40000000000000f0bf"
     "cdcccccccc1c60c00000000000000000cdccccccccfc6f40000000000000f87f"
     "00000000000070400000000000000000000000000000e0bf0000000000000000"
     "001000000002f03f000000000000f03f2b69a4292b1b703e0000000000000000"
     "000000000000603e000000000000000061552c24ce4462360000000000000000"
     "000000f0ffffef4700000000000004409c7500883ce4377e000000000000f0bf"
     "000010000000e0c100000000000000000000e0ffffffef41000000000000f87f"
     "0000000000000000000000000000f03f00000000000000800000000000000000"
     "0000000000000000000000000000f87f",
     {
      /* -> bool */
      "0000010101010101010101010101010101010101010101010101010101010101"
      "01010101010001",
      /* -> int8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000000000",
      /* -> int16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000000000000000",
      /* -> int32 */
      "000000000000000001000000ffffffff2c010000000000800000008000000080"
      "0000008000000080e0ff0000f0ff000070110100000000800000008000000080"
      "000000800000008000000080000000800000008000000080000000807f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "00000080000000800000008000000080000000000000000000000000",
      /* -> int64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000008000000000000000800000000000000080"
      "00000000000000800000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000005000000010000000000000000000080"
      "0000000000000080000000000000008000000000000000807f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000080000000000000008000000080ffffffffffffffff00000000"
      "000000000000000000000000000000000000000000000000",
      /* -> uint8 */
      "000001ff2c0000000000e0f070000000000000000000007f80ff000001000000"
      "00000000000000",
      /* -> uint16 */
      "000000000100ffff2c0100000000000000000000e0fff0ff7011000000000000"
      "00000000000000000000000000007f0080ffff00000100000100000000000000"
      "0000000000000000000000000000",
      /* -> uint32 */
      "000000000000000001000000ffffffff2c010000000000000000008000000080"
      "0000000000000080e0ff0000f0ff000070110100005ed0b20000000000000080"
      "000000800000008000000000000000000000000000000080000000007f000000"
      "80ffffffff000000000100000000000001000000000000000000000000000000"
      "000000000000000000000080ffffffff000000000000000000000000",
      /* -> uint64 */
      "000000000000000000000000000000000100000000000000ffffffffffffffff"
      "2c01000000000000000000000000000000000000000000800000000000000080"
      "00000000000000000000000000000080e0ff000000000000f0ff000000000000"
      "7011010000000000005ed0b20000000000f2052a0100000000a22f4dffffffff"
      "000efad5feffffff000000800000000005000000010000000000000000000080"
      "00000000000000000000000000000080000008c5a1d8ccf97f00000000000000"
      "80ffffffffffffffff0000000000000000010000000000000000000000000000"
      "0100000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000080ffffffffffffffff00000000"
      "000000000000000000000000000000000000000000000000",
      /* -> float16 */
      "00000080003c00beb35c007c00fc007e007c00fcff7b007c007c007c007c00fc"
      "00fc007c007c007c007c00fc007cf85707d8ff5b005c00b8013c010000000000"
      "007c007c00fc007c000000800000",
      /* -> float32 */
      "00000000000000800000803f0000c0bf9a599643ec78ad60ec78ade00000c07f"
      "0000807f000080ff00e07f4700f07f4740b888475ed0324ff902954f5ed032cf"
      "f90295cf0000004f0000804f0000005f0000805f000000dfd9cc795f0000ff42"
      "66e600c366e67f4300008043000000bf0010803f59d980330000003300000000"
      "0000807f0000807f000000cf0000804f000000000000008000000000",
      /* -> float64 */
      "00000000000000000000000000000080000000000000f03f000000000000f8bf"
      "3333333333cb7240408cb5781daf1544408cb5781daf15c4000000000000f87f"
      "000000000000f07f000000000000f0ff0000000000fcef400000000000feef40"
      "000000000817f140000000c00b5ae641000000205fa0f241000000c00b5ae6c1"
      "000000205fa0f2c1000000000000e041000050000000f041000000000000e043"
      "000000000000f043000000000000e0c300a138149b39ef430000000000e05f40"
      "cdcccccccc1c60c0cdccccccccfc6f400000000000007040000000000000e0bf"
      "001000000002f03f2b69a4292b1b703e000000000000603e61552c24ce446236"
      "000000f0ffffef479c7500883ce4377e000010000000e0c10000e0ffffffef41"
      "000000000000000000000000000000800000000000000000",
      /* -> complex64 */
      "000000000000000000000080000000000000803f000020400000c0bf000080bf"
      "9a59964300000000ec78ad600000c07fec78ade0000000000000c07f00000000"
      "0000807f0000803f000080ff0000000000e07f470000000000f07f4700000000"
      "40b88847000020405ed0324f000080bff902954f000000005ed032cf0000c07f"
      "f90295cf000000000000004f000000000000804f0000803f0000005f00000000"
      "0000805f00000000000000df00000000d9cc795f000020400000ff42000080bf"
      "66e600c30000000066e67f430000c07f0000804300000000000000bf00000000"
      "0010803f0000803f59d980330000000000000033000000000000000000000000"
      "0000807f000020400000807f000080bf000000cf000000000000804f0000c07f"
      "000000000000803f0000008000000000000000000000c07f",
      /* -> complex128 */
      "0000000000000000000000000000000000000000000000800000000000000000"
      "000000000000f03f0000000000000440000000000000f8bf000000000000f0bf"
      "3333333333cb72400000000000000000408cb5781daf1544000000000000f87f"
      "408cb5781daf15c40000000000000000000000000000f87f0000000000000000"
      "000000000000f07f000000000000f03f000000000000f0ff0000000000000000"
      "0000000000fcef4000000000000000000000000000feef400000000000000000"
      "000000000817f1400000000000000440000000c00b5ae641000000000000f0bf"
      "000000205fa0f2410000000000000000000000c00b5ae6c1000000000000f87f"
      "000000205fa0f2c10000000000000000000000000000e0410000000000000000"
      "000050000000f041000000000000f03f000000000000e0430000000000000000"
      "000000000000f0430000000000000000000000000000e0c30000000000000000"
      "00a138149b39ef4300000000000004400000000000e05f40000000000000f0bf"
      "cdcccccccc1c60c00000000000000000cdccccccccfc6f40000000000000f87f"
      "00000000000070400000000000000000000000000000e0bf0000000000000000"
      "001000000002f03f000000000000f03f2b69a4292b1b703e0000000000000000"
      "000000000000603e000000000000000061552c24ce4462360000000000000000"
      "000000f0ffffef4700000000000004409c7500883ce4377e000000000000f0bf"
      "000010000000e0c100000000000000000000e0ffffffef41000000000000f87f"
      "0000000000000000000000000000f03f00000000000000800000000000000000"
      "0000000000000000000000000000f87f",
     }},
};
