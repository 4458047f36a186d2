/* Sorting complex values in NumPy's order: cub::DeviceMergeSort::SortKeys over (re, im) pairs
 * with a comparison for isin's test set, since a radix sort has no single key for a pair, and
 * cub::DeviceMergeSort::StableSortPairs over (row, re, im) keys with the flat element index as
 * the value for sort, argsort, partition and unique, which need NumPy's stable order within
 * each row of the sorted axis (ties, such as -0.0 and 0.0, keep their input order).
 * The order is NumPy's (npysort's CLT, the same as cmp3 in sort_search.cu, which the isin
 * search uses on the result): no NaN part < NaN imaginary part only < NaN real part only <
 * both NaN; within a class by the parts that are numbers, real part first. It is a strict
 * weak order, as a comparison sort needs. CUB chooses the launch geometry. */
#include <cub/device/device_merge_sort.cuh>

#include "kernels/launch.cuh"

#include "sort/sort.h"
#include "ndcuda/dtype.h"
#include "src/internal.h"

namespace {

template <class F>
struct Cx {
  F re, im;
};

template <class F>
struct ComplexLess {
  __device__ __forceinline__ bool operator()(const Cx<F> &x, const Cx<F> &y) const {
    const int xc = 2 * (x.re != x.re) + (x.im != x.im), yc = 2 * (y.re != y.re) + (y.im != y.im);
    if (xc != yc) return xc < yc;
    switch (xc) {
      case 0: return x.re < y.re || (x.re == y.re && x.im < y.im);
      case 1: return x.re < y.re;
      case 2: return x.im < y.im;
      default: return false;
    }
  }
};

/* A complex value with the row it belongs to: rows first, then NumPy's complex order, so one
 * stable sort orders every row of a multi-row sort at once. */
template <class F>
struct RowCx {
  int64_t row;
  Cx<F> v;
};

template <class F>
struct RowComplexLess {
  __device__ __forceinline__ bool operator()(const RowCx<F> &x, const RowCx<F> &y) const {
    if (x.row != y.row) return x.row < y.row;
    return ComplexLess<F>()(x.v, y.v);
  }
};

template <class F>
__device__ __forceinline__ bool has_nan(const Cx<F> &x) {
  return x.re != x.re || x.im != x.im;
}

/* keys[i] = (i / n, element i), idx[i] = i, for element i in C order over the loop. */
template <class F>
__global__ void k_cprep(nd_kloop L, nd_koperand s, int64_t n, RowCx<F> *keys, int64_t *idx) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    const F *p = (const F *)(s.data + nd_k_offset1(i, L, s.strides));
    RowCx<F> k;
    k.row = i / n;
    k.v.re = p[0];
    k.v.im = p[1];
    keys[i] = k;
    idx[i] = i;
  }
}

/* Group starts of unique over sorted keys: a value differs from the one before it when the
 * comparison orders them (the keys are sorted, so equal means neither is less), and every
 * value with a NaN part joins one group, as NumPy 2's unique (equal_nan=True) does for
 * complex input; those values sort last, so the group is the tail. */
template <class F>
__global__ void k_cflags(const RowCx<F> *keys, int64_t n, uint64_t *flags) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (i == 0) {
      flags[i] = 1;
    } else {
      const Cx<F> a = keys[i - 1].v, b = keys[i].v;
      flags[i] = has_nan(b) ? !has_nan(a) : ComplexLess<F>()(a, b);
    }
  }
}

template <class F>
cudaError_t sort_complex_pairs(void *keys, int64_t *idx, int64_t n, void *temp, size_t *bytes,
                               cudaStream_t st) {
  return cub::DeviceMergeSort::StableSortPairs(temp, *bytes, (RowCx<F> *)keys, idx, n,
                                               RowComplexLess<F>(), st);
}

template <class F>
cudaError_t sort_complex(void *keys, int64_t n, void *temp, size_t *bytes, cudaStream_t st) {
  return cub::DeviceMergeSort::SortKeys(temp, *bytes, (Cx<F> *)keys, n, ComplexLess<F>(), st);
}

}  // namespace

extern "C" nd_status nd_k_sort_complex(int dtype, void *keys, int64_t n, void *temp,
                                       size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) {
    if (temp == NULL) *temp_bytes = 0;
    return ND_OK;
  }
  cudaError_t e;
  switch (dtype) {
    case ND_COMPLEX64: e = sort_complex<float>(keys, n, temp, temp_bytes, st); break;
    case ND_COMPLEX128: e = sort_complex<double>(keys, n, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_complex: no sort for dtype %d", dtype);
  }
  return ND_CUDA(e);
}

extern "C" size_t nd_k_sort_complex_key_bytes(int dtype) {
  return dtype == ND_COMPLEX64 ? sizeof(RowCx<float>) : sizeof(RowCx<double>);
}

extern "C" nd_status nd_k_sort_complex_prep(const nd_kloop *loop, const nd_koperand *src, int64_t n,
                                            void *keys, int64_t *idx, void *stream) {
  if (loop->count == 0) return ND_OK;
  const unsigned blocks = nd_k_blocks(loop->count, ND_K_THREADS);
  cudaStream_t st = (cudaStream_t)stream;
  switch (src->dtype) {
    case ND_COMPLEX64:
      nd_k_launch<k_cprep<float>>(blocks, ND_K_THREADS, 0, st, *loop, *src, n, (RowCx<float> *)keys, idx);
      break;
    case ND_COMPLEX128:
      nd_k_launch<k_cprep<double>>(blocks, ND_K_THREADS, 0, st, *loop, *src, n, (RowCx<double> *)keys, idx);
      break;
    default:
      return nd__error(ND_ERR_INTERNAL, "nd_k_sort_complex_prep: dtype %d is not complex", src->dtype);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_sort_complex_pairs(int dtype, void *keys, int64_t *idx, int64_t n,
                                             void *temp, size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) {
    if (temp == NULL) *temp_bytes = 0;
    return ND_OK;
  }
  cudaError_t e;
  switch (dtype) {
    case ND_COMPLEX64: e = sort_complex_pairs<float>(keys, idx, n, temp, temp_bytes, st); break;
    case ND_COMPLEX128: e = sort_complex_pairs<double>(keys, idx, n, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_complex_pairs: no sort for dtype %d", dtype);
  }
  return ND_CUDA(e);
}

extern "C" nd_status nd_k_unique_flags_complex(int dtype, const void *keys, int64_t n,
                                               uint64_t *flags, void *stream) {
  if (n == 0) return ND_OK;
  const unsigned blocks = nd_k_blocks(n, ND_K_THREADS);
  cudaStream_t st = (cudaStream_t)stream;
  switch (dtype) {
    case ND_COMPLEX64:
      nd_k_launch<k_cflags<float>>(blocks, ND_K_THREADS, 0, st, (const RowCx<float> *)keys, n, flags);
      break;
    case ND_COMPLEX128:
      nd_k_launch<k_cflags<double>>(blocks, ND_K_THREADS, 0, st, (const RowCx<double> *)keys, n, flags);
      break;
    default:
      return nd__error(ND_ERR_INTERNAL, "nd_k_unique_flags_complex: dtype %d is not complex", dtype);
  }
  return ND_K_LAUNCHED();
}
