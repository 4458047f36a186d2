/* One-block radix sorts: a whole row of up to 16384 keys sorted by one cub::BlockRadixSort in
 * one block's registers and shared memory, one launch.
 *
 * cub::DeviceRadixSort sorts rows past its single-tile size (4864 keys of 4 bytes, 2304 of 8
 * bytes or with 8-byte values) in a histogram kernel, a scan kernel and, for each 8-bit digit,
 * a memset and a kernel: 43-47 us for 6000-16384 float32 keys and 74-84 us for float64 on an
 * H200, whatever n (tools/sort_probe.cu; bench/RESULTS.md "One-block sorts"). One block sorts
 * 8192 float32 keys in 18 us and 16384 in 35 us there, 8192 float64 keys in 35 us, and rows
 * of up to 2048 keys of up to 4 bytes in 3.7-7.1 us against CUB's single tile's 4.5-9.9.
 *
 * Geometry: one block of T threads holds I keys each (blocked: thread t the keys t*I ..
 * t*I+I-1, so that the sort is stable in input order); the keys past n are filled with bits
 * that sort after every key and are not stored. The sorted keys leave striped (key i*T + t in
 * thread t), so the stores coalesce. The block radix sort's temporary storage (the exchange of
 * a whole tile, or the digit counters) is dynamic shared memory, 9-66 KiB: a tile is used only
 * where the device's opt-in limit per block holds it. Each key width has a ladder of
 * tiles (fastest first for the sizes they hold, measured on the H100 and the H200); a row
 * takes the first tile it fits, or CUB's sort when none does.
 *
 * Keys: unsigned integers (signed ones with their sign bit flipped on the way in and out, so
 * one instance serves both), and float16/32/64 natively, so that -0.0 and +0.0 tie and keep
 * their bits, as in CUB's device sort; the NaNs with the sign bit set, which that order puts
 * first, are stored last by the kernel itself (no fix-up launches). Pairs: unsigned keys with
 * int64 values (unique, the passes of multi-row sorts). Argsort: a kernel of its own twiddles
 * the keys to NumPy's order as it loads them and carries their positions (2 bytes) instead of
 * int64 values, one launch (no preparation kernel, no temporaries). Several rows: one block per
 * row, with tiles of 64 and 128 threads first for short rows. 73 instances. */
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include <cub/block/block_radix_sort.cuh>

#include "kernels/launch.cuh"
#include "sort/sort.h"
#include "sort/sort_bits.cuh"
#include "ndcuda/dtype.h"
#include "src/device.h"
#include "src/internal.h"

namespace {

template <int T, int I, int B>
struct tile {
  static constexpr int threads = T, items = I, radix_bits = B, size = T * I;
};

template <class K, class V, class Tl>
using block_sorter = cub::BlockRadixSort<K, Tl::threads, Tl::items, V, Tl::radix_bits>;

/* The sort's temporary storage, then the count of sign-bit-set NaNs (an int). */
template <class K, class V, class Tl>
constexpr size_t tile_smem = sizeof(typename block_sorter<K, V, Tl>::TempStorage) + sizeof(int);

template <class K>
constexpr bool float_key = std::is_same_v<K, __half> || std::is_same_v<K, float> || std::is_same_v<K, double>;

/* A NaN with its sign bit set: CUB's float order puts these first. */
template <class K>
__device__ __forceinline__ bool neg_nan(K k) {
  if constexpr (std::is_same_v<K, __half>) return __half_as_ushort(k) > nd_neg_inf_bits16;
  else if constexpr (std::is_same_v<K, float>) return __float_as_uint(k) > nd_neg_inf_bits32;
  else return (uint64_t)__double_as_longlong(k) > nd_neg_inf_bits64;
}

/* Bits that sort after every key: all ones for unsigned keys; for floats the positive NaN with
 * every payload bit set, which CUB's float order puts last. */
template <class K>
__device__ __forceinline__ K pad_key() {
  if constexpr (std::is_same_v<K, __half>) return __ushort_as_half((unsigned short)0x7fff);
  else if constexpr (std::is_same_v<K, float>) return __int_as_float(0x7fffffff);
  else if constexpr (std::is_same_v<K, double>) return __longlong_as_double(0x7fffffffffffffffLL);
  else return (K)~(K)0;
}

/* Block b sorts row b of n keys (rows lie n apart). flip: XORed into integer keys on load and
 * store (the sign bit of a signed dtype, else 0). nan_last (float keys): the sign-bit-set NaNs,
 * which sort first, are stored last instead (the sorted row rotated by their count), as
 * nd_k_sort_nanfix does after CUB's sort. */
template <class K, class V, class Tl>
__global__ __launch_bounds__(Tl::threads, 1) void k_sort_block(const K *kin, K *kout, const V *vin,
                                                                V *vout, int n, uint64_t flip,
                                                                int end_bit, int nan_last) {
  constexpr int T = Tl::threads, I = Tl::items;
  const int64_t row = (int64_t)blockIdx.x * n;
  kin += row;
  kout += row;
  if constexpr (!std::is_same_v<V, cub::NullType>) {
    vin += row;
    vout += row;
  }
  constexpr bool keys_only = std::is_same_v<V, cub::NullType>;
  using temp_t = typename block_sorter<K, V, Tl>::TempStorage;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &temp = *reinterpret_cast<temp_t *>(smem);
  int &neg_nans = *reinterpret_cast<int *>(smem + sizeof(temp_t));
  if (threadIdx.x == 0) neg_nans = 0; /* the sort's barriers order this before the counting */
  K keys[I];
  V vals[I];
  const int base = (int)threadIdx.x * I;
#pragma unroll
  for (int i = 0; i < I; i++) {
    if (base + i < n) {
      keys[i] = kin[base + i];
      if constexpr (std::is_integral_v<K>) keys[i] ^= (K)flip;
      if constexpr (!keys_only) vals[i] = vin[base + i];
    } else {
      keys[i] = pad_key<K>();
    }
  }
  if constexpr (keys_only)
    block_sorter<K, V, Tl>(temp).SortBlockedToStriped(keys, 0, end_bit);
  else
    block_sorter<K, V, Tl>(temp).SortBlockedToStriped(keys, vals, 0, end_bit);
  int shift = 0; /* key j goes to j - shift, modulo n */
  if constexpr (float_key<K>) {
    if (nan_last) {
      int mine = 0;
#pragma unroll
      for (int i = 0; i < I; i++) mine += neg_nan(keys[i]);
      if (mine) atomicAdd(&neg_nans, mine);
      __syncthreads();
      shift = neg_nans;
    }
  }
#pragma unroll
  for (int i = 0; i < I; i++) {
    const int j = i * T + (int)threadIdx.x;
    if (j < n) {
      const int to = j >= shift ? j - shift : j + n - shift;
      if constexpr (std::is_integral_v<K>) keys[i] ^= (K)flip;
      kout[to] = keys[i];
      if constexpr (!keys_only) vout[to] = vals[i];
    }
  }
}

/* Argsort: block b sorts row b of n keys of dtype dt (rows lie n apart), read natively and
 * twiddled to NumPy's order on load (every NaN alike, last; -0.0 as +0.0), with each key's
 * position in the row (16 bits: a tile holds at most 16384 keys) riding along; the positions
 * are stored as int64. Keys past n are all-ones, which sort after every key, real NaNs
 * included (the sort is stable and they come last in the tile), and are not stored. */
template <class K, class Tl>
__global__ __launch_bounds__(Tl::threads, 1) void k_argsort_block(const char *in, int64_t *out, int n,
                                                                   int dt) {
  constexpr int T = Tl::threads, I = Tl::items;
  in += (int64_t)blockIdx.x * n * (int64_t)sizeof(K);
  out += (int64_t)blockIdx.x * n;
  using temp_t = typename block_sorter<K, uint16_t, Tl>::TempStorage;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &temp = *reinterpret_cast<temp_t *>(smem);
  K keys[I];
  uint16_t pos[I];
  const int base = (int)threadIdx.x * I;
#pragma unroll
  for (int i = 0; i < I; i++) {
    keys[i] = base + i < n ? (K)nd_twiddle(dt, in + (base + i) * (int)sizeof(K)) : (K)~(K)0;
    pos[i] = (uint16_t)(base + i);
  }
  block_sorter<K, uint16_t, Tl>(temp).SortBlockedToStriped(keys, pos, 0, 8 * (int)sizeof(K));
#pragma unroll
  for (int i = 0; i < I; i++) {
    const int j = i * T + (int)threadIdx.x;
    if (j < n) out[j] = pos[i];
  }
}

/* The values an argsort's block sort carries (positions in the row): launch_tile's sign to
 * launch k_argsort_block. */
using arg_pos = uint16_t;

struct block_args {
  const void *kin;
  void *kout;
  const int64_t *vin;
  int64_t *vout;
  int64_t n;    /* keys in a row */
  int64_t rows; /* one block each */
  uint64_t flip;
  int end_bit;
  int nan_last;
  int dtype;         /* argsort: the keys' dtype */
  size_t smem_optin; /* the device's opt-in shared memory per block */
  bool launch;       /* false: only say whether a tile takes the row */
  cudaStream_t stream;
};

template <class K, class V, class Tl>
nd_status launch_tile(const block_args &a) {
  if constexpr (std::is_same_v<V, arg_pos>) {
    constexpr auto K_ = k_argsort_block<K, Tl>;
    ND_TRY(nd_k_smem_once<K_>(tile_smem<K, V, Tl>, false));
    return ND_CUDA(nd_k_go<K_>(dim3((unsigned)a.rows), dim3(Tl::threads), tile_smem<K, V, Tl>, a.stream,
                               (const char *)a.kin, (int64_t *)a.vout, (int)a.n, a.dtype));
  } else {
    constexpr auto K_ = k_sort_block<K, V, Tl>;
    ND_TRY(nd_k_smem_once<K_>(tile_smem<K, V, Tl>, false));
    return ND_CUDA(nd_k_go<K_>(dim3((unsigned)a.rows), dim3(Tl::threads), tile_smem<K, V, Tl>, a.stream,
                               (const K *)a.kin, (K *)a.kout, (const V *)a.vin, (V *)a.vout, (int)a.n,
                               a.flip, a.end_bit, a.nan_last));
  }
}

/* The first tile of the ladder that holds n keys and fits the device: true when one does
 * (launched when a.launch, its status in *st). */
template <class K, class V>
bool take(const block_args &, nd_status *) {
  return false;
}
template <class K, class V, class Tl, class... Rest>
bool take(const block_args &a, nd_status *st) {
  if (a.n <= Tl::size && tile_smem<K, V, Tl> <= a.smem_optin) {
    if (a.launch) *st = launch_tile<K, V, Tl>(a);
    return true;
  }
  return take<K, V, Rest...>(a, st);
}

/* Several rows: tiles of fewer threads first, so that a short row does not occupy a block of
 * 256 threads sorting a tile of 2048 keys (that block costs the same whatever n; with rows of
 * up to 1024 keys a block of 64 or 128 threads sorts 4-8 times fewer keys and more blocks
 * share each multiprocessor: bench/RESULTS.md "Rows"). */
template <class K, class V>
bool take_row_tile(const block_args &a, nd_status *st) {
  return a.rows > 1 && take<K, V, tile<64, 4, 4>, tile<128, 8, 4>>(a, st);
}

/* The ladders: the fastest shape for each range of n in tools/sort_probe.cu (every shape on
 * the H200; the H100 ranks the ones it ran alike; bench/RESULTS.md). 1024 threads, which
 * spill at 64 registers a thread, lose to 512 with twice the keys each. */
template <class K>
bool take_keys(const block_args &a, nd_status *st) {
  using N = cub::NullType;
  if (take_row_tile<K, N>(a, st)) return true;
  if constexpr (sizeof(K) <= 2)
    return take<K, N, tile<256, 8, 4>, tile<256, 16, 4>, tile<512, 16, 4>, tile<512, 32, 4>>(a, st);
  else if constexpr (sizeof(K) == 4)
    return take<K, N, tile<256, 8, 4>, tile<256, 19, 6>, tile<512, 16, 4>, tile<512, 24, 4>,
                tile<512, 32, 4>>(a, st);
  else /* 8-byte keys: past 8192 CUB's device sort is as fast */
    return take<K, N, tile<256, 19, 6>, tile<256, 32, 6>>(a, st);
}

/* Argsort: the ladders of 4- and 8-byte keys (the 2-byte positions ride with the keys; keys of 1
 * and 2 bytes take the 4-byte ladder, not timed apart). The 512 x 32 tile spills 180 bytes a
 * thread and is still ahead of PyTorch's row sort 2.9-3.2 times at 16384 keys (RESULTS.md). */
template <class K>
bool take_arg(const block_args &a, nd_status *st) {
  if (take_row_tile<K, arg_pos>(a, st)) return true;
  if constexpr (sizeof(K) <= 4)
    return take<K, arg_pos, tile<256, 8, 4>, tile<256, 19, 6>, tile<512, 16, 4>, tile<512, 24, 4>,
                tile<512, 32, 4>>(a, st);
  else
    return take<K, arg_pos, tile<256, 19, 6>, tile<256, 32, 6>>(a, st);
}

template <class K>
bool take_pairs(const block_args &a, nd_status *st) {
  if constexpr (sizeof(K) <= 4)
    return take<K, int64_t, tile<256, 19, 6>, tile<512, 16, 6>>(a, st);
  else
    return take<K, int64_t, tile<256, 19, 6>, tile<256, 32, 4>>(a, st);
}

/* Rows of 8-byte keys, or with 8-byte values, up to this many keys stay with CUB's single-tile
 * sort, which is faster there (14-15 us against 16-17 for float64; 9 against 12 for pairs). */
constexpr int64_t cub_wide_single_tile = 2048;

bool props_optin(size_t *optin) {
  const nd__device_props *p = nd__device_props_current();
  if (p == NULL) return false;
  *optin = (size_t)p->smem_per_block_optin;
  return true;
}

/* Whether (and, with a.launch, how) the one-block sort takes a.rows rows of a.n keys of dtype;
 * a.flip and a.end_bit are set here. */
bool take_keys_of(int dtype, block_args &a, nd_status *st) {
  a.end_bit = 8 * (int)nd_dtype_itemsize((nd_dtype)dtype);
  switch (dtype) {
    case ND_BOOL:
    case ND_UINT8: return take_keys<uint8_t>(a, st);
    case ND_INT8: a.flip = 0x80; return take_keys<uint8_t>(a, st);
    case ND_UINT16: return take_keys<uint16_t>(a, st);
    case ND_INT16: a.flip = 0x8000; return take_keys<uint16_t>(a, st);
    case ND_FLOAT16: return take_keys<__half>(a, st);
    case ND_UINT32: return take_keys<uint32_t>(a, st);
    case ND_INT32: a.flip = UINT64_C(1) << 31; return take_keys<uint32_t>(a, st);
    case ND_FLOAT32: return take_keys<float>(a, st);
    case ND_UINT64: return take_keys<uint64_t>(a, st);
    case ND_INT64: a.flip = UINT64_C(1) << 63; return take_keys<uint64_t>(a, st);
    case ND_FLOAT64: return take_keys<double>(a, st);
    default: return false;
  }
}

bool take_pairs_of(int kbytes, const block_args &a, nd_status *st) {
  switch (kbytes) {
    case 1: return take_pairs<uint8_t>(a, st);
    case 2: return take_pairs<uint16_t>(a, st);
    case 4: return take_pairs<uint32_t>(a, st);
    case 8: return take_pairs<uint64_t>(a, st);
    default: return false;
  }
}

bool take_arg_of(int dtype, block_args &a, nd_status *st) {
  if (nd_dtype_kind((nd_dtype)dtype) == 'c') return false; /* complex order is not a radix order */
  a.dtype = dtype;
  switch (nd_dtype_itemsize((nd_dtype)dtype)) {
    case 1: return take_arg<uint8_t>(a, st);
    case 2: return take_arg<uint16_t>(a, st);
    case 4: return take_arg<uint32_t>(a, st);
    case 8: return take_arg<uint64_t>(a, st);
    default: return false;
  }
}

/* The arguments with nothing but the rows and the stream set. */
block_args args_of(const void *kin, void *kout, const int64_t *vin, int64_t *vout, int64_t n, int64_t rows,
                   bool launch, void *stream) {
  block_args a = {kin, kout, vin, vout, n, rows, 0, 0, 0, 0, 0, launch, (cudaStream_t)stream};
  return a;
}

/* Rows go to the one-block sort only when a tile holds a row (take) and the grid the rows. Short
 * rows would fit too, but the caller sends the rows that sort_short.cu takes there first (sort.c):
 * the one length bound between the two is sort_short.cu's. */
bool grid_ok(int64_t n, int64_t rows) { return n >= 1 && rows >= 1 && rows <= INT32_MAX; }

/* Whether a.rows rows of a.n keys of dtype go to one block each, values of several rows
 * (take_rows) or argsort of one row or several (take_arg_rows); launched when a.launch. The fit
 * queries and the launchers below ask the same. */
bool take_rows(int dtype, block_args &a, nd_status *st) {
  return a.rows > 1 && grid_ok(a.n, a.rows) && props_optin(&a.smem_optin) && take_keys_of(dtype, a, st);
}

bool take_arg_rows(int dtype, block_args &a, nd_status *st) {
  return grid_ok(a.n, a.rows) && props_optin(&a.smem_optin) && take_arg_of(dtype, a, st);
}

}  // namespace

extern "C" int nd_k_sort_block_keys(int dtype, const void *in, void *out, int64_t n, int nan_last,
                                    int launch, void *stream, nd_status *st) {
  block_args a = args_of(in, out, NULL, NULL, n, 1, launch != 0, stream);
  a.nan_last = nan_last;
  /* Device properties, once read, stay cached: the query and the launch decide alike. */
  if (n <= 0 || !props_optin(&a.smem_optin)) return 0;
  if (nd_dtype_itemsize((nd_dtype)dtype) == 8 && n <= cub_wide_single_tile) return 0;
  return take_keys_of(dtype, a, st);
}

extern "C" int nd_k_sort_block_pairs(int kbytes, const void *kin, void *kout, const int64_t *vin,
                                     int64_t *vout, int64_t n, int end_bit, int launch, void *stream,
                                     nd_status *st) {
  block_args a = args_of(kin, kout, vin, vout, n, 1, launch != 0, stream);
  a.end_bit = end_bit;
  if (n <= cub_wide_single_tile || !props_optin(&a.smem_optin)) return 0;
  return take_pairs_of(kbytes, a, st);
}

extern "C" int nd_k_sort_rows_fit(int dtype, int64_t n, int64_t rows) {
  block_args a = args_of(NULL, NULL, NULL, NULL, n, rows, false, NULL);
  nd_status st = ND_OK;
  return take_rows(dtype, a, &st);
}

extern "C" nd_status nd_k_sort_rows_keys(int dtype, const void *in, void *out, int64_t n, int64_t rows,
                                         int nan_last, void *stream) {
  block_args a = args_of(in, out, NULL, NULL, n, rows, true, stream);
  a.nan_last = nan_last;
  nd_status st = ND_OK;
  if (!take_rows(dtype, a, &st))
    return nd__error(ND_ERR_INTERNAL, "nd_k_sort_rows_keys: %lld rows of %lld keys of dtype %d do not fit",
                     (long long)rows, (long long)n, dtype);
  return st;
}

extern "C" int nd_k_sort_arg_fit(int dtype, int64_t n, int64_t rows) {
  block_args a = args_of(NULL, NULL, NULL, NULL, n, rows, false, NULL);
  nd_status st = ND_OK;
  return take_arg_rows(dtype, a, &st);
}

extern "C" nd_status nd_k_sort_arg(int dtype, const void *in, int64_t *out, int64_t n, int64_t rows, void *stream) {
  block_args a = args_of(in, NULL, NULL, out, n, rows, true, stream);
  nd_status st = ND_OK;
  if (!take_arg_rows(dtype, a, &st))
    return nd__error(ND_ERR_INTERNAL, "nd_k_sort_arg: %lld rows of %lld keys of dtype %d do not fit",
                     (long long)rows, (long long)n, dtype);
  return st;
}
