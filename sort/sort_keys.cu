/* One-row sorts of values with native keys: the cooperative grid sort (sort_grid.cu) for the
 * lengths it takes, the one-block sort (sort_block.cu) for shorter rows that fit it, else
 * cub::DeviceRadixSort::SortKeys for each real dtype (bool sorts as uint8). CUB
 * sorts floats by their bits with -0.0 and +0.0 treated as equal and kept as they were, which
 * is NumPy's stable order once NaN is canonical (the caller runs nd_k_sort_canon first) or once
 * the NaNs with the sign bit set are moved last (nan_last: nd_k_sort_nanfix after CUB's sort).
 * Eleven instances, in a file of their own so that they compile alongside the pair sorts. */
#include <cuda_fp16.h>

#include <cub/device/device_radix_sort.cuh>

#include "sort/sort.h"
#include "ndcuda/dtype.h"
#include "src/internal.h"

namespace {

template <class K>
cudaError_t sort_keys(const void *in, void *out, int64_t n, void *temp, size_t *bytes, cudaStream_t st) {
  return cub::DeviceRadixSort::SortKeys(temp, *bytes, (const K *)in, (K *)out, n, 0, (int)sizeof(K) * 8, st);
}

}  // namespace

extern "C" nd_status nd_k_sort_keys(int dtype, const void *in, void *out, int64_t n, int nan_last,
                                    void *temp, size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (n == 0) {
    if (temp == NULL) *temp_bytes = 0;
    return ND_OK;
  }
  nan_last = nan_last && (dtype == ND_FLOAT16 || dtype == ND_FLOAT32 || dtype == ND_FLOAT64);
  nd_status bst = ND_OK;
  if (nd_k_sort_grid(dtype, in, out, n, 0, temp, temp_bytes, stream, &bst)) return bst;
  if (nd_k_sort_block_keys(dtype, in, out, n, nan_last, temp != NULL, stream, &bst)) {
    if (temp == NULL) *temp_bytes = 0;
    return bst;
  }
  /* The NaN fix-up reuses the sort's temporary storage as its scratch. */
  const size_t fix_bytes = nan_last ? nd_k_sort_nanfix_bytes(dtype, n) : 0;
  const bool query = temp == NULL;
  cudaError_t e;
  switch (dtype) {
    case ND_BOOL:
    case ND_UINT8: e = sort_keys<uint8_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_INT8: e = sort_keys<int8_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_INT16: e = sort_keys<int16_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_INT32: e = sort_keys<int32_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_INT64: e = sort_keys<int64_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_UINT16: e = sort_keys<uint16_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_UINT32: e = sort_keys<uint32_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_UINT64: e = sort_keys<uint64_t>(in, out, n, temp, temp_bytes, st); break;
    case ND_FLOAT16: e = sort_keys<__half>(in, out, n, temp, temp_bytes, st); break;
    case ND_FLOAT32: e = sort_keys<float>(in, out, n, temp, temp_bytes, st); break;
    case ND_FLOAT64: e = sort_keys<double>(in, out, n, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_keys: no sort for dtype %d", dtype);
  }
  if (e != cudaSuccess) return ND_CUDA(e);
  if (query) {
    if (*temp_bytes < fix_bytes) *temp_bytes = fix_bytes;
    return ND_OK;
  }
  return nan_last ? nd_k_sort_nanfix(dtype, out, temp, n, stream) : ND_OK;
}
