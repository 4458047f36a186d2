/* Sorting complex values in NumPy's order, for isin's test set: cub::DeviceMergeSort::SortKeys
 * over (re, im) pairs with a comparison, since a radix sort has no single key for a pair.
 * The order is NumPy's (npysort's CLT, the same as cmp3 in sort_search.cu, which the isin
 * search uses on the result): no NaN part < NaN imaginary part only < NaN real part only <
 * both NaN; within a class by the parts that are numbers, real part first. It is a strict
 * weak order, as a comparison sort needs. CUB chooses the launch geometry. */
#include <cub/device/device_merge_sort.cuh>

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
