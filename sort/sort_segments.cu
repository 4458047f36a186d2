/* Several short rows sorted at once by cub::DeviceSegmentedSort (stable): unsigned twiddled keys
 * of the dtype's width with values that are either the raw bits of the same width (sorts of
 * values) or int64 indices in the row (argsort). Every row has n keys and starts n after the
 * one before, so the segment offsets are computed (a counting iterator times n), not stored.
 * CUB partitions the rows by length into sub-warp, warp and block sorts; with rows of one
 * length that is one light partition kernel and one sort. Seven instances. */
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "sort/sort.h"
#include "src/internal.h"

namespace {

struct row_start {
  int64_t n;
  __host__ __device__ int64_t operator()(int64_t r) const { return r * n; }
};

template <class K, class V>
cudaError_t seg_pairs(const void *kin, void *kout, const void *vin, void *vout, int64_t n, int64_t rows,
                      void *temp, size_t *bytes, cudaStream_t st) {
  auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), row_start{n});
  return cub::DeviceSegmentedSort::StableSortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin,
                                                   (V *)vout, n * rows, rows, begin, begin + 1, st);
}

/* The longest rows sorted here: the sub-warp merge sorts' tiles that CUB's policy for sm_86
 * and later gives every key and value width hold 64 keys at least (16 threads of 4 keys with
 * 8-byte keys or values); a longer row would go to CUB's block radix sort of one row per block,
 * 20 times slower at 128 keys. Longer rows go to the one-block sort (sort_block.cu, which takes
 * rows of more than this many keys) or to one composite-key sort of the whole array. */
constexpr int64_t seg_max_keys = 64;

}  // namespace

extern "C" int nd_k_sort_seg_fit(int64_t n, int64_t rows) { return rows > 1 && n >= 1 && n <= seg_max_keys; }

extern "C" nd_status nd_k_sort_seg_pairs(int kbytes, int vbytes, const void *kin, void *kout, const void *vin,
                                         void *vout, int64_t n, int64_t rows, void *temp, size_t *temp_bytes,
                                         void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (n == 0 || rows == 0) {
    if (temp == NULL) *temp_bytes = 0;
    return ND_OK;
  }
  cudaError_t e;
  switch (vbytes == 8 ? kbytes : -kbytes) {
    case 1: e = seg_pairs<uint8_t, int64_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case 2: e = seg_pairs<uint16_t, int64_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case 4: e = seg_pairs<uint32_t, int64_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case 8:
    case -8: e = seg_pairs<uint64_t, int64_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case -1: e = seg_pairs<uint8_t, uint8_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case -2: e = seg_pairs<uint16_t, uint16_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    case -4: e = seg_pairs<uint32_t, uint32_t>(kin, kout, vin, vout, n, rows, temp, temp_bytes, st); break;
    default:
      return nd__error(ND_ERR_INTERNAL, "nd_k_sort_seg_pairs: no sort for %d-byte keys with %d-byte values",
                       kbytes, vbytes);
  }
  return ND_CUDA(e);
}
