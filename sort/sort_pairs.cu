/* Key-value radix sorts over unsigned (twiddled) keys: the one-block sort (sort_block.cu) for
 * rows of int64 values that fit it, else cub::DeviceRadixSort::SortPairs with
 * int64 values for the four key widths (unique, the passes of multi-row sorts), with uint32
 * values for the four key widths between double buffers (argsort's positions in a row, widened
 * to int64 as they are written out: each pass moves 4 bytes a pair fewer), and with uint64
 * composite (row, value) keys carrying the raw value bits of 1-, 2- and 4-byte dtypes
 * (multi-row sorts of values, which keep -0.0 and NaN payloads exactly). Eleven instances.
 * end_bit limits the passes to the bits that are in use. */
#include <cub/device/device_radix_sort.cuh>

#include "sort/sort.h"
#include "src/internal.h"

namespace {

template <class K, class V>
cudaError_t pairs(const void *kin, void *kout, const void *vin, void *vout, int64_t n, int end_bit,
                  void *temp, size_t *bytes, cudaStream_t st) {
  return cub::DeviceRadixSort::SortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin,
                                         (V *)vout, n, 0, end_bit, st);
}

template <class K>
cudaError_t pairs32(void *const keys[2], uint32_t *const vals[2], int64_t n, int end_bit, void *temp,
                    size_t *bytes, int *which, cudaStream_t st) {
  cub::DoubleBuffer<K> k((K *)keys[0], (K *)keys[1]);
  cub::DoubleBuffer<uint32_t> v(vals[0], vals[1]);
  const cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, *bytes, k, v, n, 0, end_bit, st);
  *which = k.selector;
  return e;
}

/* No keys: nothing is enqueued and no temporary storage is needed. */
bool no_keys(int64_t n, const void *temp, size_t *temp_bytes) {
  if (n != 0) return false;
  if (temp == NULL) *temp_bytes = 0;
  return true;
}

}  // namespace

extern "C" nd_status nd_k_sort_pairs_idx(int kbytes, const void *kin, void *kout, const int64_t *vin,
                                         int64_t *vout, int64_t n, int end_bit, void *temp,
                                         size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (no_keys(n, temp, temp_bytes)) return ND_OK;
  if (end_bit < 1) end_bit = 1;
  nd_status bst = ND_OK;
  if (nd_k_sort_block_pairs(kbytes, kin, kout, vin, vout, n, end_bit, temp != NULL, stream, &bst)) {
    if (temp == NULL) *temp_bytes = 0;
    return bst;
  }
  cudaError_t e;
  switch (kbytes) {
    case 1: e = pairs<uint8_t, int64_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    case 2: e = pairs<uint16_t, int64_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    case 4: e = pairs<uint32_t, int64_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    case 8: e = pairs<uint64_t, int64_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_pairs_idx: no sort for %d-byte keys", kbytes);
  }
  return ND_CUDA(e);
}

extern "C" nd_status nd_k_sort_pairs_val(int vbytes, const uint64_t *kin, uint64_t *kout, const void *vin,
                                         void *vout, int64_t n, int end_bit, void *temp,
                                         size_t *temp_bytes, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (no_keys(n, temp, temp_bytes)) return ND_OK;
  if (end_bit < 1) end_bit = 1;
  cudaError_t e;
  switch (vbytes) {
    case 1: e = pairs<uint64_t, uint8_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    case 2: e = pairs<uint64_t, uint16_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    case 4: e = pairs<uint64_t, uint32_t>(kin, kout, vin, vout, n, end_bit, temp, temp_bytes, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_pairs_val: no sort for %d-byte values", vbytes);
  }
  return ND_CUDA(e);
}

extern "C" nd_status nd_k_sort_pairs_idx32(int kbytes, void *const keys[2], uint32_t *const vals[2],
                                           int64_t n, int end_bit, void *temp, size_t *temp_bytes,
                                           int *which, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  *which = 0;
  if (no_keys(n, temp, temp_bytes)) return ND_OK;
  if (end_bit < 1) end_bit = 1;
  cudaError_t e;
  switch (kbytes) {
    case 1: e = pairs32<uint8_t>(keys, vals, n, end_bit, temp, temp_bytes, which, st); break;
    case 2: e = pairs32<uint16_t>(keys, vals, n, end_bit, temp, temp_bytes, which, st); break;
    case 4: e = pairs32<uint32_t>(keys, vals, n, end_bit, temp, temp_bytes, which, st); break;
    case 8: e = pairs32<uint64_t>(keys, vals, n, end_bit, temp, temp_bytes, which, st); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_k_sort_pairs_idx32: no sort for %d-byte keys", kbytes);
  }
  return ND_CUDA(e);
}
