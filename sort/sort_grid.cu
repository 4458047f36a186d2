/* One row sorted by one cooperative launch: for rows from grid_min_keys (where the one-block
 * sort of sort_block.cu falls behind) up to grid_max_keys, where cub::DeviceRadixSort runs a
 * histogram kernel, a scan kernel and a memset and a onesweep kernel per 8-bit digit, whose
 * launches and look-back chains, not the bytes, set its time (about 55-65 us from 2^15 to 2^18
 * float32 keys on the H100 and the H200, ndcuda, CuPy and PyTorch alike; bench/RESULTS.md).
 *
 * The row is cut into tiles of T x I keys, one block each, all resident at once. Each 8-bit digit
 * is one pass: every block loads its tile (warp-striped), ranks it with cub::BlockRadixRankMatch
 * (stable in load order), publishes its 256 digit counts, and after a grid-wide barrier reads
 * every block's counts to find where its keys of each digit start (the digits' totals scanned,
 * plus the counts of the blocks before it), then writes its keys in rank order from shared
 * memory, so that keys of one digit leave in runs. A second barrier ends the pass. No host
 * synchronisation, no temporary storage beyond the ping-pong buffers and the counts.
 *
 * Keys: values in NumPy's order through a bijective unsigned encoding (signed integers with the
 * sign bit flipped; floats mapped to their order with -inf lowest, the NaNs with the sign bit
 * set rotated above the positive ones, so that every NaN sorts last and every bit comes back);
 * -0.0 and +0.0 tie on their digits, as in CUB's sort, and keep their bits. Argsort: the
 * twiddled keys of sort_bits.cuh (every NaN alike) with uint32 positions riding along, stored
 * as int64. Eight instances (four key widths, values or positions). */
#include <cooperative_groups.h>

#include <cstdint>

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>

#include "kernels/launch.cuh"
#include "sort/sort.h"
#include "sort/sort_bits.cuh"
#include "ndcuda/dtype.h"
#include "src/device.h"
#include "src/internal.h"

namespace {

namespace cg = cooperative_groups;

constexpr int grid_threads = 512;
constexpr int grid_items = 8;
constexpr int grid_tile = grid_threads * grid_items;
/* 2^19 keys, where it was still 1.5 times as fast as CUB's sort (bench/RESULTS.md); a longer
 * row would need more blocks than 132 multiprocessors hold (one block of 512 threads of 94-127
 * registers each), and on a device that holds fewer the grid refuses what it cannot keep resident. */
constexpr int grid_max_blocks = 128;
constexpr int64_t grid_max_keys = (int64_t)grid_max_blocks * grid_tile;
/* The grid is asked before the one-block sort (sort_block.cu), from the length where it is the
 * faster of the two (bench/RESULTS.md): past 8192 keys, where the one-block sort moves to its
 * 512 x 24 and 512 x 32 tiles (8-byte keys: to CUB's sort), except for values of 4 bytes, whose
 * 512 x 24 tile keeps them to 12288 keys (1-2 us ahead of the grid there; past it the 512 x 32
 * tile loses: 37 against 29 us for 16384 float32 values on the H100), and for argsort of 1-byte
 * keys, which the grid sorts in one 8-bit pass where the one-block sort's tiles past 2048 keys
 * take two of 6 or 4 bits: from 3072 keys (0.6-1.8 us ahead there on the H100 and the H200). */
constexpr int64_t grid_min_keys(size_t width, bool arg) {
  return width == 4 && !arg ? 12289 : width == 1 && arg ? 3072 : 8193;
}
constexpr int radix_bits = 8, digits = 1 << radix_bits;

template <class K>
constexpr K top_bit = (K)((K)1 << (8 * sizeof(K) - 1));

/* The float encoding: the flipped bits (negatives complemented, positives with the sign bit
 * set) less the flipped bits of -inf, modulo 2^w: -inf is 0, the order holds up to the positive
 * NaNs, and the NaNs with the sign bit set (below -inf once flipped) wrap to the top. */
template <class K>
__device__ __forceinline__ K neg_inf_flipped() {
  if constexpr (sizeof(K) == 2) return (K)~nd_neg_inf_bits16;
  else if constexpr (sizeof(K) == 4) return (K)~nd_neg_inf_bits32;
  else return (K)~nd_neg_inf_bits64;
}

template <class K>
__device__ __forceinline__ K encode(int dt, K u) {
  switch (dt) {
    case ND_INT8:
    case ND_INT16:
    case ND_INT32:
    case ND_INT64: return (K)(u ^ top_bit<K>);
    case ND_FLOAT16:
    case ND_FLOAT32:
    case ND_FLOAT64: {
      if constexpr (sizeof(K) >= 2) {
        const K f = (u & top_bit<K>) ? (K)~u : (K)(u | top_bit<K>);
        return (K)(f - neg_inf_flipped<K>());
      }
    }
    default: return u;
  }
}

template <class K>
__device__ __forceinline__ K decode(int dt, K k) {
  switch (dt) {
    case ND_INT8:
    case ND_INT16:
    case ND_INT32:
    case ND_INT64: return (K)(k ^ top_bit<K>);
    case ND_FLOAT16:
    case ND_FLOAT32:
    case ND_FLOAT64: {
      if constexpr (sizeof(K) >= 2) {
        const K f = (K)(k + neg_inf_flipped<K>());
        return (f & top_bit<K>) ? (K)(f & (K)~top_bit<K>) : (K)~f;
      }
    }
    default: return k;
  }
}

/* The digit a key is ranked by; for float values the encoded -0.0 (one below +0.0) counts as
 * +0.0, so the two tie and keep their input order. */
template <class K>
struct digit_of {
  uint32_t shift;
  K neg_zero; /* the encoded -0.0, or 0 where nothing is folded (0 encodes no -0.0) */
  __device__ __forceinline__ uint32_t Digit(K k) const {
    if (neg_zero != 0 && k == neg_zero) k = (K)(k + 1);
    return (uint32_t)(k >> shift) & (digits - 1);
  }
};

using ranker = cub::BlockRadixRankMatch<grid_threads, radix_bits, false>;
using scanner = cub::BlockScan<int, grid_threads>;

template <class K, bool ARG>
constexpr size_t exchange_bytes = (size_t)grid_tile * (sizeof(K) + (ARG ? sizeof(uint32_t) : 0));

constexpr size_t align16(size_t b) { return (b + 15) / 16 * 16; }

/* Shared memory: the ranking's storage and then, in the same bytes, the tile in rank order
 * (exchange_room); the scan's storage; two tables of 256 ints. */
template <class K, bool ARG>
constexpr size_t exchange_room = align16(sizeof(typename ranker::TempStorage) > exchange_bytes<K, ARG>
                                             ? sizeof(typename ranker::TempStorage)
                                             : exchange_bytes<K, ARG>);
constexpr size_t scan_room = align16(sizeof(typename scanner::TempStorage));
template <class K, bool ARG>
constexpr size_t grid_smem = exchange_room<K, ARG> + scan_room + 2 * digits * sizeof(int);

struct grid_args {
  const char *in; /* the row: dtype's elements, contiguous */
  void *out;      /* sorted values (dtype's bits), or int64 positions */
  void *keys[2];  /* ping-pong key buffers of the passes between the first and the last */
  uint32_t *pos[2];
  int *counts;    /* passes x blocks x 256 digit counts */
  int64_t n;
  int dtype;
};

/* Sorts a.n keys of width sizeof(K) (1-byte keys sort in one pass, 8-byte in eight). ARG: argsort
 * (twiddled keys, positions out), else values (encoded keys, decoded out). */
template <class K, bool ARG>
__global__ void __launch_bounds__(grid_threads) k_sort_grid(grid_args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr size_t ex_bytes = exchange_room<K, ARG>;
  auto &rank_temp = *reinterpret_cast<typename ranker::TempStorage *>(smem);
  K *s_keys = reinterpret_cast<K *>(smem);
  uint32_t *s_pos = reinterpret_cast<uint32_t *>(smem + (size_t)grid_tile * sizeof(K));
  auto &scan_temp = *reinterpret_cast<typename scanner::TempStorage *>(smem + ex_bytes);
  int *s_first = reinterpret_cast<int *>(smem + ex_bytes + scan_room);
  int *s_dst = s_first + digits; /* where the block's keys of each digit go, less their first rank */

  cg::grid_group grid = cg::this_grid();
  constexpr int passes = (int)sizeof(K);
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int b = blockIdx.x, blocks = gridDim.x;
  const int64_t base = (int64_t)b * grid_tile;
  const int valid = (int)(a.n - base < grid_tile ? a.n - base : grid_tile);
  const bool is_float = a.dtype == ND_FLOAT16 || a.dtype == ND_FLOAT32 || a.dtype == ND_FLOAT64;
  const K neg_zero = !ARG && is_float ? encode<K>(a.dtype, top_bit<K>) : (K)0;

  for (int p = 0; p < passes; p++) {
    const K *src = (const K *)a.keys[(p + 1) & 1];
    const uint32_t *psrc = a.pos[(p + 1) & 1];
    K keys[grid_items];
    uint32_t pos[grid_items];
    /* warp-striped: item i of lane l of warp w is element w * 32 * I + i * 32 + l of the tile */
#pragma unroll
    for (int i = 0; i < grid_items; i++) {
      const int e = warp * 32 * grid_items + i * 32 + lane;
      pos[i] = 0;
      if (e < valid) {
        if (p == 0) {
          const char *q = a.in + (base + e) * (int64_t)sizeof(K);
          if constexpr (ARG) keys[i] = (K)nd_twiddle(a.dtype, q);
          else keys[i] = encode<K>(a.dtype, *(const K *)q);
          pos[i] = (uint32_t)(base + e);
        } else {
          /* from L2: other blocks wrote them, and this block's L1 may hold the buffer's
           * lines from two passes ago */
          keys[i] = __ldcg(src + base + e);
          if constexpr (ARG) pos[i] = __ldcg(psrc + base + e);
        }
      } else {
        keys[i] = (K)~(K)0; /* past the row: ranks after every key of the tile, never stored */
      }
    }
    const digit_of<K> dig{(uint32_t)(radix_bits * p), neg_zero};
    int ranks[grid_items];
    int first[ranker::BINS_TRACKED_PER_THREAD];
    ranker(rank_temp).RankKeys(keys, ranks, dig, first);
    if (t < digits) s_first[t] = first[0];
    __syncthreads(); /* the ranking's storage is read no more: the tile may overwrite it */
    if (t < digits) {
      int c = (t + 1 < digits ? s_first[t + 1] : grid_tile) - s_first[t];
      if (t == digits - 1) c -= grid_tile - valid; /* the padding keys, all in the top digit */
      a.counts[((int64_t)p * blocks + b) * digits + t] = c;
    }
#pragma unroll
    for (int i = 0; i < grid_items; i++) {
      s_keys[ranks[i]] = keys[i];
      if constexpr (ARG) s_pos[ranks[i]] = pos[i];
    }
    grid.sync(); /* every block's counts are out */
    int before = 0, total = 0;
    if (t < digits) {
#pragma unroll 8
      for (int c = 0; c < blocks; c++) {
        const int v = __ldcg(&a.counts[((int64_t)p * blocks + c) * digits + t]);
        total += v;
        if (c < b) before += v;
      }
    }
    int start;
    scanner(scan_temp).ExclusiveSum(total, start);
    if (t < digits) s_dst[t] = start + before - s_first[t];
    __syncthreads();
    const bool last = p == passes - 1;
    K *kdst = (K *)a.keys[p & 1];
    uint32_t *pdst = a.pos[p & 1];
    for (int j = t; j < valid; j += grid_threads) {
      const K k = s_keys[j];
      const int64_t d = (int64_t)s_dst[dig.Digit(k)] + j;
      if (last) {
        if constexpr (ARG) ((int64_t *)a.out)[d] = (int64_t)s_pos[j];
        else ((K *)a.out)[d] = decode<K>(a.dtype, k);
      } else {
        kdst[d] = k;
        if constexpr (ARG) pdst[d] = s_pos[j];
      }
    }
    if (!last) grid.sync(); /* the pass's keys are out; the next pass reads them */
  }
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* The temporaries: two key buffers (the first alone with two passes, none with one), two
 * position buffers (argsort with two passes or more), the counts. */
size_t temp_layout(int w, bool arg, int64_t n, int blocks, size_t off[5]) {
  const int passes = w;
  const size_t kb = align256((size_t)n * w), pb = align256((size_t)n * 4);
  size_t o = 0;
  off[0] = o;
  o += passes >= 2 ? kb : 0;
  off[1] = o;
  o += passes >= 3 ? kb : 0;
  off[2] = o;
  o += arg && passes >= 2 ? pb : 0;
  off[3] = o;
  o += arg && passes >= 3 ? pb : 0;
  off[4] = o;
  o += align256((size_t)passes * blocks * digits * sizeof(int));
  return o;
}

template <class K, bool ARG>
int take(int dtype, const void *in, void *out, int64_t n, void *temp, size_t *temp_bytes,
         void *stream, nd_status *st) {
  constexpr auto K_ = k_sort_grid<K, ARG>;
  constexpr size_t smem = grid_smem<K, ARG>;
  const nd__device_props *p = nd__device_props_current();
  if (p == NULL || !p->cooperative_launch || smem > (size_t)p->smem_per_block_optin) return 0;
  const int blocks = (int)((n + grid_tile - 1) / grid_tile);
  *st = nd_k_smem_once<K_>(smem, false);
  if (*st != ND_OK) return 1;
  /* the whole grid resident at once (blocks per multiprocessor of this device, asked once) */
  int per_sm = 0;
  *st = nd_k_occupancy_once<K_>(grid_threads, smem, &per_sm);
  if (*st != ND_OK) return 1;
  if ((int64_t)per_sm * p->sm_count < blocks) return 0;
  size_t off[5];
  const size_t bytes = temp_layout((int)sizeof(K), ARG, n, blocks, off);
  if (temp == NULL) {
    *temp_bytes = bytes;
    return 1;
  }
  char *tb = (char *)temp;
  grid_args a;
  a.in = (const char *)in;
  a.out = out;
  a.keys[0] = tb + off[0];
  a.keys[1] = tb + off[1];
  a.pos[0] = (uint32_t *)(tb + off[2]);
  a.pos[1] = (uint32_t *)(tb + off[3]);
  a.counts = (int *)(tb + off[4]);
  a.n = n;
  a.dtype = dtype;
  void *argv[1] = {&a};
  *st = ND_CUDA(cudaLaunchCooperativeKernel((const void *)K_, dim3((unsigned)blocks), dim3(grid_threads), argv,
                                            smem, (cudaStream_t)stream));
  return 1;
}

template <bool ARG>
int take_width(int dtype, const void *in, void *out, int64_t n, void *temp, size_t *temp_bytes,
               void *stream, nd_status *st) {
  switch (nd_dtype_itemsize((nd_dtype)dtype)) {
    case 1: return take<uint8_t, ARG>(dtype, in, out, n, temp, temp_bytes, stream, st);
    case 2: return take<uint16_t, ARG>(dtype, in, out, n, temp, temp_bytes, stream, st);
    case 4: return take<uint32_t, ARG>(dtype, in, out, n, temp, temp_bytes, stream, st);
    case 8: return take<uint64_t, ARG>(dtype, in, out, n, temp, temp_bytes, stream, st);
    default: return 0;
  }
}

}  // namespace

extern "C" int nd_k_sort_grid(int dtype, const void *in, void *out, int64_t n, int want_idx,
                              void *temp, size_t *temp_bytes, void *stream, nd_status *st) {
  *st = ND_OK;
  const size_t width = nd_dtype_itemsize((nd_dtype)dtype);
  if (nd_dtype_kind((nd_dtype)dtype) == 'c' || n < grid_min_keys(width, want_idx != 0) || n > grid_max_keys)
    return 0;
  /* A cooperative launch in a captured stream is left to CUB's sort, which captures plainly. */
  if (nd__stream_capturing(stream)) return 0;
  return want_idx ? take_width<true>(dtype, in, out, n, temp, temp_bytes, stream, st)
                  : take_width<false>(dtype, in, out, n, temp, temp_bytes, stream, st);
}
