/* Launch geometry and offset computation shared by the kernel files.
 *
 * Grid-stride loops: at most ND_K_BLOCKS_PER_SM blocks of ND_K_THREADS per multiprocessor,
 * enough to keep the memory system busy, after which each thread loops. Offsets of an element
 * are computed from its C-order linear index by peeling dimensions from the last, in 64-bit
 * arithmetic: arrays beyond 2^31 elements index correctly. */
#ifndef ND_LAUNCH_CUH
#define ND_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>
#include <type_traits>
#include <utility>

#include "kernels/kernel_types.h"
#include "src/device.h"
#include "src/internal.h"

#define ND_K_THREADS 256
#define ND_K_BLOCKS_PER_SM 8

/* The current device's multiprocessor count and compute capability major, from the device
 * module (src/device.h), which caches them per device. */
static inline int nd_k_sm_count(void) { return nd__device_sm_count(); }
static inline int nd_k_cc_major(void) { return nd__device_cc_major(); }

/* A 1-d grid of `blocks` blocks, clamped to the grid's x limit (2^31 - 1); kernels launched with
 * it loop over the work beyond the limit. */
static inline unsigned nd_k_grid_x(int64_t blocks) {
  const int64_t cap = 0x7fffffff;
  return blocks < 1 ? 1u : (unsigned)(blocks < cap ? blocks : cap);
}

static inline unsigned nd_k_blocks(int64_t work_items, int threads) {
  int64_t want = (work_items + threads - 1) / threads;
  int64_t cap = (int64_t)nd_k_sm_count() * ND_K_BLOCKS_PER_SM * (ND_K_THREADS / threads > 0 ? ND_K_THREADS / threads : 1);
  if (want > cap) want = cap;
  return want < 1 ? 1u : (unsigned)want;
}

/* Byte offsets of linear index i for two operands. */
__device__ __forceinline__ void nd_k_offsets2(int64_t i, const nd_kloop &L, const int64_t *sa,
                                              const int64_t *sb, int64_t &oa, int64_t &ob) {
  oa = 0;
  ob = 0;
  for (int d = L.ndim - 1; d > 0; --d) {
    int64_t n = L.shape[d];
    int64_t q = i / n;
    int64_t r = i - q * n;
    oa += r * sa[d];
    ob += r * sb[d];
    i = q;
  }
  if (L.ndim > 0) {
    oa += i * sa[0];
    ob += i * sb[0];
  }
}

__device__ __forceinline__ int64_t nd_k_offset1(int64_t i, const nd_kloop &L, const int64_t *sa) {
  int64_t oa = 0;
  for (int d = L.ndim - 1; d > 0; --d) {
    int64_t n = L.shape[d];
    int64_t q = i / n;
    oa += (i - q * n) * sa[d];
    i = q;
  }
  if (L.ndim > 0) oa += i * sa[0];
  return oa;
}

/* ---- launching through the driver ----------------------------------------------------------
 *
 * Every kernel of the library launches here: `nd_k_go<kernel>(grid, block, smem, stream,
 * args...)` launches like kernel<<<grid, block, smem, stream>>>(args...) and returns the
 * launch's error; `nd_k_launch<kernel>(...)` does the same for launchers that report through
 * ND_K_LAUNCHED() afterwards. The launch is most of the host cost of the small operations
 * (elementwise, fill, copy, reductions, sequences): the runtime's <<<>>> looks the kernel up
 * from its host stub on every launch, while here each
 * kernel's context-independent handle (cudaGetKernel) is taken once, and the driver's
 * cuLaunchKernel (found once through cudaGetDriverEntryPointByVersion, so the library links no
 * libcuda) is called with it. When the calling thread's context is its device's primary
 * context (the runtime's, the usual case) the launch uses that context's function handle
 * instead, fetched once per kernel and device: the driver resolves a context-independent handle
 * on every launch, which in a library of this many kernels costs about 0.25 us of the 3 to 4 us
 * a launch takes (H100 host, 2026-11-22). Where none of this is possible (no handle, no entry
 * point, no current context on this thread) the same launch goes through cudaLaunchKernel.
 * Unlike <<<>>> + cudaGetLastError, a failed driver launch leaves the runtime's last-error state
 * alone, and the error comes back here. */
#define ND_K_FN_DEVICES 8 /* devices whose primary contexts get per-kernel function handles */

struct nd_k_kernel {
  void *kernel;                          /* CUkernel, or NULL: the runtime launch */
  std::atomic<void *> fn[ND_K_FN_DEVICES]; /* CUfunction in device d's primary context */
};

void nd_k_kernel_init(nd_k_kernel *k, const void *stub);
cudaError_t nd_k_launch_argv(const void *stub, nd_k_kernel *k, dim3 grid, dim3 block, size_t smem,
                             cudaStream_t stream, void **argv);

/* The handles of kernel K, made once per kernel (a thread-safe static). */
template <auto K>
inline nd_k_kernel *nd_k_handle() {
  static nd_k_kernel h;
  static const bool init = (nd_k_kernel_init(&h, (const void *)K), true);
  (void)init;
  return &h;
}

/* P are the kernel's parameter types: the arguments convert to them here, exactly as <<<>>>
 * would convert them, so argv points at objects of the types the kernel reads. */
template <class... P>
struct nd_k_launcher {
  static cudaError_t go(const void *stub, nd_k_kernel *h, dim3 grid, dim3 block, size_t smem,
                        cudaStream_t st, P... p) {
    void *argv[sizeof...(P) + 1] = {(void *)&p..., nullptr};
    return nd_k_launch_argv(stub, h, grid, block, smem, st, argv);
  }
};

template <auto K, class... P, class... A>
inline cudaError_t nd_k_go_sig(void (*)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t st,
                               A &&...a) {
  return nd_k_launcher<std::remove_cv_t<P>...>::go((const void *)K, nd_k_handle<K>(), grid, block,
                                                    smem, st, std::forward<A>(a)...);
}

template <auto K, class... A>
inline cudaError_t nd_k_go(dim3 grid, dim3 block, size_t smem, cudaStream_t st, A &&...a) {
  return nd_k_go_sig<K>(K, grid, block, smem, st, std::forward<A>(a)...);
}

/* The first error of this thread's nd_k_launch calls since the last ND_K_LAUNCHED(). */
extern thread_local cudaError_t nd_k_failed;

template <auto K, class... A>
inline void nd_k_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t st, A &&...a) {
  const cudaError_t e = nd_k_go<K>(grid, block, smem, st, std::forward<A>(a)...);
  if (e != cudaSuccess && nd_k_failed == cudaSuccess) nd_k_failed = e;
}

/* The error of the launches since the last call (nd_k_launch's record, else CUDA's last error),
 * cleared. */
static inline cudaError_t nd_k_take_error(void) {
  const cudaError_t e = nd_k_failed;
  nd_k_failed = cudaSuccess;
  return e != cudaSuccess ? e : cudaGetLastError();
}

/* Reports a failed launch (bad configuration, no kernel image for this device) as a status. */
#define ND_K_LAUNCHED() ND_CUDA(nd_k_take_error())

/* Kernel K's shared-memory attributes, set once per instance and device (the first 32 devices;
 * others on every call) rather than before every launch: the opt-in above 48 KiB of dynamic
 * shared memory when `bytes` (the most any launch of K asks for) needs it, and with
 * prefer_shared the largest carveout, so that the blocks the registers allow also fit. */
template <auto K>
inline nd_status nd_k_smem_once(size_t bytes, bool prefer_shared) {
  static std::atomic<unsigned> done{0};
  int dev = 0;
  ND_TRY(ND_CUDA((cudaError_t)nd__device_id(&dev)));
  if (dev < 32 && (done.load(std::memory_order_acquire) >> dev & 1u)) return ND_OK;
  if (bytes > 48 * 1024)
    ND_TRY(ND_CUDA(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes)));
  if (prefer_shared)
    ND_TRY(ND_CUDA(cudaFuncSetAttribute(K, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        (int)cudaSharedmemCarveoutMaxShared)));
  if (dev < 32) done.fetch_or(1u << dev, std::memory_order_release);
  return ND_OK;
}

/* *per_sm = the blocks of kernel K, `threads` threads and `smem` bytes of dynamic shared memory
 * each, that one multiprocessor of the current device holds at once: asked once per instance,
 * device (the first 32; others on every call) and slot (0 <= slot < SLOTS, for an instance
 * launched with several shared-memory sizes: one slot per size), then cached. Every call for one
 * slot must pass the same threads and smem. On failure *per_sm = 0 and CUDA's error as a
 * status (its last error cleared). */
template <auto K, int SLOTS = 1>
inline nd_status nd_k_occupancy_once(int threads, size_t smem, int *per_sm, int slot = 0) {
  static std::atomic<int> known[32][SLOTS];
  *per_sm = 0;
  if (slot < 0 || slot >= SLOTS)
    return nd__error(ND_ERR_INTERNAL, "nd_k_occupancy_once: slot %d of %d", slot, SLOTS);
  int dev = 0;
  ND_TRY(ND_CUDA((cudaError_t)nd__device_id(&dev)));
  if (dev < 32) {
    const int k = known[dev][slot].load(std::memory_order_relaxed);
    if (k > 0) {
      *per_sm = k;
      return ND_OK;
    }
  }
  int n = 0;
  ND_TRY(ND_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, K, threads, smem)));
  if (dev < 32 && n > 0) known[dev][slot].store(n, std::memory_order_relaxed);
  *per_sm = n;
  return ND_OK;
}

#endif /* ND_LAUNCH_CUH */
