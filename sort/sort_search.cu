/* Searching and counting: nonzero, searchsorted, isin, bincount and histogram.
 *
 * Comparisons go through the tagged values of convert.cuh in NumPy's sort order (NaN after
 * every number and equal to NaN for ordering; complex lexicographic, NaN parts last), so one
 * kernel serves every pair of dtypes: integers compare exactly, anything with a float as
 * double (which is what NumPy's promotion to float64 does). All kernels are grid-stride
 * loops of 256 threads, one element per thread; bincount and histogram add with global
 * atomics (64-bit integer counts, double weights). */
#include <cuda_fp16.h>

#include "kernels/convert.cuh"
#include "kernels/launch.cuh"
#include "sort/sort.h"
#include "ndcuda/dtype.h"

namespace {

__device__ __forceinline__ bool is_int(const nd_kval &v) { return v.kind == ND_K_SINT || v.kind == ND_K_UINT; }

__device__ __forceinline__ int cmp_real(double x, double y) {
  const bool xn = x != x, yn = y != y;
  if (xn || yn) return (int)xn - (int)yn;
  return (x > y) - (x < y);
}

/* -1, 0, 1: x before, tied with, after y in NumPy's sort order. */
__device__ int cmp3(const nd_kval &x, const nd_kval &y) {
  if (is_int(x) && is_int(y)) {
    if (x.kind == ND_K_SINT && y.kind == ND_K_SINT) return (x.i > y.i) - (x.i < y.i);
    if (x.kind == ND_K_UINT && y.kind == ND_K_UINT) return (x.u > y.u) - (x.u < y.u);
    if (x.kind == ND_K_SINT) return x.i < 0 ? -1 : (((uint64_t)x.i > y.u) - ((uint64_t)x.i < y.u));
    return y.i < 0 ? 1 : ((x.u > (uint64_t)y.i) - (x.u < (uint64_t)y.i));
  }
  const double xr = nd_to_double(x), yr = nd_to_double(y);
  if (x.kind != ND_K_COMPLEX && y.kind != ND_K_COMPLEX) return cmp_real(xr, yr);
  /* NumPy's complex order (npysort's CLT): no NaN part < NaN imaginary part only < NaN real
   * part only < both NaN; within a class by the parts that are numbers (real then imaginary,
   * the real part alone, the imaginary part alone). A NaN imaginary part therefore puts
   * 1 + nanj after 5 + 0j, which a lexicographic comparison would not. */
  const int xc = 2 * (xr != xr) + (x.im != x.im), yc = 2 * (yr != yr) + (y.im != y.im);
  if (xc != yc) return xc < yc ? -1 : 1;
  switch (xc) {
    case 0: {
      const int c = (xr > yr) - (xr < yr);
      return c != 0 ? c : (x.im > y.im) - (x.im < y.im);
    }
    case 1: return (xr > yr) - (xr < yr);
    case 2: return (x.im > y.im) - (x.im < y.im);
    default: return 0;
  }
}

/* NumPy's ==: NaN is never equal. */
__device__ bool eq(const nd_kval &x, const nd_kval &y) {
  if (is_int(x) && is_int(y)) return cmp3(x, y) == 0;
  return nd_to_double(x) == nd_to_double(y) && x.im == y.im;
}

__device__ __forceinline__ bool truth(const nd_kval &v) {
  switch (v.kind) {
    case ND_K_SINT: return v.i != 0;
    case ND_K_UINT: return v.u != 0;
    case ND_K_COMPLEX: return v.re != 0 || v.im != 0;
    default: return v.re != 0;
  }
}

__global__ void k_nonzero_flags(nd_kloop L, nd_koperand a, uint64_t *flags) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x)
    flags[i] = truth(nd_load(a.dtype, a.data + nd_k_offset1(i, L, a.strides)));
}

struct Shape {
  int ndim;
  int64_t s[ND_MAXDIMS];
};

__global__ void k_nonzero_scatter(const uint64_t *scan, int64_t count, Shape sh, int64_t *out,
                                  int64_t total) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const uint64_t prev = i > 0 ? scan[i - 1] : 0;
    if (scan[i] == prev) continue;
    const int64_t pos = (int64_t)prev;
    int64_t r = i;
    for (int d = sh.ndim - 1; d >= 0; --d) {
      int64_t n = sh.s[d], q = r / n;
      out[d * total + pos] = r - q * n;
      r = q;
    }
  }
}

__global__ void k_searchsorted(const char *a, int adt, int64_t as, int64_t na, nd_kloop L,
                               nd_koperand o, nd_koperand v, int right) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t oo, ov;
    nd_k_offsets2(i, L, o.strides, v.strides, oo, ov);
    const nd_kval x = nd_load(v.dtype, v.data + ov);
    int64_t lo = 0, hi = na;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const int c = cmp3(nd_load(adt, a + mid * as), x);
      if (c < 0 || (right && c == 0)) lo = mid + 1;
      else hi = mid;
    }
    *(int64_t *)(o.data + oo) = lo;
  }
}

__global__ void k_isin(nd_kloop L, nd_koperand o, nd_koperand x, const char *t, int tdt, int tsz,
                       int64_t nt, int invert) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t oo, ox;
    nd_k_offsets2(i, L, o.strides, x.strides, oo, ox);
    const nd_kval v = nd_load(x.dtype, x.data + ox);
    int64_t lo = 0, hi = nt;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (cmp3(nd_load(tdt, t + mid * tsz), v) < 0) lo = mid + 1;
      else hi = mid;
    }
    const bool found = lo < nt && eq(nd_load(tdt, t + lo * tsz), v);
    *(uint8_t *)(o.data + oo) = (uint8_t)(found != (invert != 0));
  }
}

template <class F>
__device__ __forceinline__ F edge(const void *e, int edt, int64_t j) {
  if (edt == ND_FLOAT16) return (F)__half2float(((const __half *)e)[j]);
  if (edt == ND_FLOAT32) return (F)((const float *)e)[j];
  return (F)((const double *)e)[j];
}

/* NumPy's uniform-bin rule (numpy/lib/_histograms_impl.py): scale into a bin, put the right
 * edge into the last bin, then correct by one against the edges themselves. */
template <class F>
__global__ void k_hist(nd_kloop L, nd_koperand x, nd_koperand w, int has_w, const void *edges, int edt,
                       int64_t bins, int as_bincount, void *hist) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ox, ow = 0;
    if (has_w) nd_k_offsets2(i, L, x.strides, w.strides, ox, ow);
    else ox = nd_k_offset1(i, L, x.strides);
    const nd_kval v = nd_load(x.dtype, x.data + ox);
    int64_t b;
    if (as_bincount) {
      b = v.kind == ND_K_UINT ? (int64_t)v.u : v.i;
    } else {
      const F xv = (F)nd_to_double(v), first = edge<F>(edges, edt, 0), last = edge<F>(edges, edt, bins);
      if (!(xv >= first && xv <= last)) continue;
      const F f = ((xv - first) / (last - first)) * (F)bins;
      b = (int64_t)f;
      if (b >= bins) b = bins - 1;
      if (b < 0) b = 0;
      if (xv < edge<F>(edges, edt, b)) b--;
      else if (b != bins - 1 && xv >= edge<F>(edges, edt, b + 1)) b++;
      if (b < 0) b = 0;
      if (b > bins - 1) b = bins - 1;
    }
    if (has_w) atomicAdd((double *)hist + b, nd_to_double(nd_load(w.dtype, w.data + ow)));
    else atomicAdd((unsigned long long *)hist + b, 1ull);
  }
}

const int nd_isz[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};

unsigned blocks_for(int64_t n) { return nd_k_blocks(n, ND_K_THREADS); }

}  // namespace

extern "C" nd_status nd_k_nonzero_flags(const nd_kloop *L, const nd_koperand *a, uint64_t *flags,
                                        void *stream) {
  if (L->count == 0) return ND_OK;
  nd_k_launch<k_nonzero_flags>(blocks_for(L->count), ND_K_THREADS, 0, (cudaStream_t)stream, *L, *a, flags);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_nonzero_scatter(const uint64_t *scan, int64_t count, int ndim,
                                          const int64_t *shape, int64_t *out, int64_t total,
                                          void *stream) {
  if (count == 0 || total == 0) return ND_OK;
  Shape sh;
  sh.ndim = ndim;
  for (int d = 0; d < ndim; d++) sh.s[d] = shape[d];
  nd_k_launch<k_nonzero_scatter>(blocks_for(count), ND_K_THREADS, 0, (cudaStream_t)stream, scan, count, sh, out, total);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_searchsorted(const char *a, int adtype, int64_t a_stride, int64_t na,
                                       const nd_kloop *L, const nd_koperand *out,
                                       const nd_koperand *v, int right, void *stream) {
  if (L->count == 0) return ND_OK;
  nd_k_launch<k_searchsorted>(blocks_for(L->count), ND_K_THREADS, 0, (cudaStream_t)stream, a, adtype, a_stride, na, *L, *out, *v, right);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_isin(const nd_kloop *L, const nd_koperand *out, const nd_koperand *x,
                               const char *sorted, int tdtype, int64_t nt, int invert, void *stream) {
  if (L->count == 0) return ND_OK;
  nd_k_launch<k_isin>(blocks_for(L->count), ND_K_THREADS, 0, (cudaStream_t)stream, *L, *out, *x, sorted, tdtype, nd_isz[tdtype], nt, invert);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_histogram(const nd_kloop *L, const nd_koperand *x, const nd_koperand *w,
                                    const void *edges, int edge_dtype, int64_t bins, int as_bincount,
                                    void *hist, void *stream) {
  if (L->count == 0) return ND_OK;
  nd_koperand wo;
  if (w) wo = *w;
  else wo = *x;
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = blocks_for(L->count);
  if (edge_dtype == ND_FLOAT64 || as_bincount)
    nd_k_launch<k_hist<double>>(blocks, ND_K_THREADS, 0, st, *L, *x, wo, w != NULL, edges, edge_dtype, bins, as_bincount, hist);
  else
    nd_k_launch<k_hist<float>>(blocks, ND_K_THREADS, 0, st, *L, *x, wo, w != NULL, edges, edge_dtype, bins, as_bincount, hist);
  return ND_K_LAUNCHED();
}
