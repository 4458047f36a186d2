/* Short rows: several rows of up to 128 keys, each sorted by a group of 4-32 threads of a warp
 * (cub::WarpMergeSort, stable), many rows to a block, one launch. The keys are read from the
 * input as they are and twiddled to NumPy's order on load (sort_bits.cuh: every NaN alike and
 * last, -0.0 as +0.0); the values that ride along are the elements' own bits (sort) or their
 * positions in the row (argsort, stored as int64). Every row has the same length, so no
 * partition of rows by length is needed, and nothing waits for the host.
 *
 * cub::DeviceSegmentedSort, tried first, partitions the rows by length and then copies the
 * group sizes to the host and synchronizes the stream (without relocatable device code), and
 * sorts rows past its sub-warp tiles (112 keys of 4 bytes; 64 with 8-byte values) one block per
 * row: 10^4 float32 rows of 128 keys took it 901 us on an H100, these warp groups 24 us
 * (bench/RESULTS.md, "Rows"). 32 instances. */
#include <cub/warp/warp_merge_sort.cuh>

#include "kernels/launch.cuh"
#include "sort/sort.h"
#include "sort/sort_bits.cuh"
#include "src/internal.h"

namespace {

constexpr int block_threads = 256;
constexpr int items = 4; /* keys per thread */

template <class K>
struct key_less {
  __device__ bool operator()(K a, K b) const { return a < b; }
};

/* Rows of n <= LW * items keys of dtype dt (width sizeof(K)), n apart; logical warp g of the
 * grid sorts row g. Arg: int64 positions to out, else the elements' bits in order. */
template <class K, int LW, bool Arg>
__global__ __launch_bounds__(block_threads) void k_sort_short(const K *in, void *out, int n, int64_t rows,
                                                             int dt) {
  using V = std::conditional_t<Arg, uint8_t, K>;
  using sorter = cub::WarpMergeSort<K, items, LW, V>;
  constexpr int groups = block_threads / LW;
  __shared__ typename sorter::TempStorage temp[groups];
  const int group = (int)threadIdx.x / LW, lane = (int)threadIdx.x % LW;
  const int64_t row = (int64_t)blockIdx.x * groups + group;
  if (row >= rows) return; /* the whole group leaves together */
  in += row * n;
  K keys[items];
  V vals[items];
#pragma unroll
  for (int i = 0; i < items; i++) {
    const int p = lane * items + i;
    K raw = p < n ? in[p] : (K)0;
    keys[i] = p < n ? (K)nd_twiddle(dt, (const char *)&raw) : (K)~(K)0; /* pads sort last */
    if constexpr (Arg) vals[i] = (uint8_t)p;
    else vals[i] = raw;
  }
  sorter(temp[group]).StableSort(keys, vals, key_less<K>());
#pragma unroll
  for (int i = 0; i < items; i++) {
    const int p = lane * items + i;
    if (p < n) {
      if constexpr (Arg) ((int64_t *)out)[row * n + p] = vals[i];
      else ((V *)out)[row * n + p] = vals[i];
    }
  }
}

template <class K, int LW>
nd_status launch(const void *in, void *out, int64_t n, int64_t rows, int dt, bool arg, cudaStream_t st) {
  const unsigned blocks = (unsigned)((rows + block_threads / LW - 1) / (block_threads / LW));
  if (arg)
    nd_k_launch<k_sort_short<K, LW, true>>(blocks, block_threads, 0, st, (const K *)in, out, (int)n, rows, dt);
  else
    nd_k_launch<k_sort_short<K, LW, false>>(blocks, block_threads, 0, st, (const K *)in, out, (int)n, rows, dt);
  return ND_K_LAUNCHED();
}

/* The smallest group that holds a row: 4 threads for up to 16 keys, 8, 16, 32 for up to 128. */
template <class K>
nd_status launch_fit(const void *in, void *out, int64_t n, int64_t rows, int dt, bool arg, cudaStream_t st) {
  if (n <= 4 * items) return launch<K, 4>(in, out, n, rows, dt, arg, st);
  if (n <= 8 * items) return launch<K, 8>(in, out, n, rows, dt, arg, st);
  if (n <= 16 * items) return launch<K, 16>(in, out, n, rows, dt, arg, st);
  return launch<K, 32>(in, out, n, rows, dt, arg, st);
}

/* The longest rows sorted here; longer ones go to the one-block sort (sort_block.cu, which sort.c
 * asks only for rows this does not take) or to one composite-key sort of the whole array. */
constexpr int64_t short_max_keys = 32 * items;

}  // namespace

extern "C" int nd_k_sort_short_fit(int dtype, int64_t n, int64_t rows) {
  return nd_dtype_kind((nd_dtype)dtype) != 'c' && rows > 1 && n >= 1 && n <= short_max_keys;
}

extern "C" nd_status nd_k_sort_short(int dtype, const void *in, void *out, int64_t n, int64_t rows, int arg,
                                     void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  if (!nd_k_sort_short_fit(dtype, n, rows))
    return nd__error(ND_ERR_INTERNAL, "nd_k_sort_short: %lld rows of %lld keys of dtype %d do not fit",
                     (long long)rows, (long long)n, dtype);
  switch (nd_dtype_itemsize((nd_dtype)dtype)) {
    case 1: return launch_fit<uint8_t>(in, out, n, rows, dtype, arg != 0, st);
    case 2: return launch_fit<uint16_t>(in, out, n, rows, dtype, arg != 0, st);
    case 4: return launch_fit<uint32_t>(in, out, n, rows, dtype, arg != 0, st);
    default: return launch_fit<uint64_t>(in, out, n, rows, dtype, arg != 0, st);
  }
}
