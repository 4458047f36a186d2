/* User kernels compiled at run time (NVRTC) and the kernel cache.
 *
 * Built-in operators never compile at run time; this header is for kernels the user writes:
 * - raw modules: CUDA C++ source compiled to a CUBIN for the current device's exact
 *   architecture (PTX only where NVRTC cannot target the device), loaded with the driver's
 *   context-independent library API, kernels fetched by name or by name expression
 *   (templates), launched with a typed argument list;
 * - generated elementwise and reduction kernels (as CuPy's ElementwiseKernel and
 *   ReductionKernel).
 *
 * Every compile goes through one cache (memory, then disk; see "the kernel cache" below): the
 * same source with the same options compiles once per process, and once per machine when the
 * disk cache is on, whatever the number of threads and processes asking at once.
 *
 * Conventions (as everywhere in ndcuda): handles are opaque and reference counted; inputs are
 * borrowed; `out` parameters receive new references; failures return a status and leave a
 * message naming the function, the kernel and the argument in nd_last_error().
 *
 * Headers available to user source without any include path: <cooperative_groups.h> and the
 * CUDA headers NVRTC ships (cuda_fp16.h, cuda_bf16.h, ...), found through the CUDA include
 * directory the library locates once (CUDA_PATH, CUDA_HOME, the build's toolkit, or
 * /usr/local/cuda), and "ndcuda_jit.h", the library's device helpers for ndcuda dtypes
 * (nd_float16, nd_complex64, nd_complex128 with arithmetic, and the index types). */
#ifndef NDCUDA_JIT_H
#define NDCUDA_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda/array.h"
#include "ndcuda/dtype.h"
#include "ndcuda/export.h"
#include "ndcuda/status.h"
#include "ndcuda/ufunc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_module nd_module;
typedef struct nd_kernel nd_kernel;

/* ---- compile options --------------------------------------------------------------------
 * A versioned options struct, NCCL-style: declare it with the initializer so that fields
 * added later get their defaults:
 *   nd_module_options o = ND_MODULE_OPTIONS_INIT;
 *   o.noptions = 1; o.options = (const char *[]){"-use_fast_math"};
 * Every array below is borrowed for the duration of the call only. */
#define ND_MODULE_OPTIONS_VERSION 1

typedef struct nd_module_options {
  size_t size;                         /* sizeof(nd_module_options), set by the initializer */
  int version;                         /* ND_MODULE_OPTIONS_VERSION */
  const char *name;                    /* names the module in messages and logs; NULL: "module" */
  int noptions;
  const char *const *options;          /* NVRTC options, in order ("-use_fast_math", "-G") */
  int ndefines;
  const char *const *defines;          /* "NAME" or "NAME=VALUE", passed as -D */
  int nheaders;
  const char *const *header_names;     /* in-memory headers: the name user code #includes */
  const char *const *header_sources;   /* and its content */
  int nname_expressions;
  const char *const *name_expressions; /* "my_kernel<float, 4>": resolved to lowered names */
  int cooperative;                     /* kernels use a grid-wide sync: launches of this
                                          module are cooperative (see nd_kernel_launch) */
} nd_module_options;

#define ND_MODULE_OPTIONS_INIT \
  { sizeof(nd_module_options), ND_MODULE_OPTIONS_VERSION, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, NULL, 0 }

/* ---- raw modules ----------------------------------------------------------------------- */

/* Compiles source (CUDA C++; kernels meant to be fetched by plain name should be declared
 * extern "C") for the current device and loads it, through the kernel cache. opts may be
 * NULL (defaults). Borrows source and opts. Returns a new reference in *out.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_INVALID_ARGUMENT (options struct of another size or
 * version, a NULL entry in an array), ND_ERR_COMPILE (the message names the module and
 * carries the first lines of the compiler log; nd_jit_last_log() has the whole log),
 * ND_ERR_NVRTC, ND_ERR_CUDA (driver load failure), ND_ERR_NO_DEVICE.
 * Stream behaviour: enqueues nothing; may block while compiling (tens of milliseconds) or
 * while another thread or process compiles the same source. */
ND_API nd_status nd_module_create(const char *source, const nd_module_options *opts,
                                  nd_module **out);

ND_API nd_module *nd_module_retain(nd_module *m); /* returns m; NULL accepted */
ND_API void nd_module_release(nd_module *m);      /* NULL accepted; unloads on the last one */

/* The compile log of the compile that built m ("" when m came from the disk cache or the
 * compiler printed nothing). Owned by m. */
ND_API const char *nd_module_log(const nd_module *m);

/* 1 when m was built by a compile in this process, 0 when it was loaded from the disk cache
 * or found in memory; a diagnostic for tests and benchmarks. */
ND_API int nd_module_compiled_here(const nd_module *m);

/* The whole compiler log of the calling thread's last failed compile ("" if none). The
 * buffer belongs to the thread and stays valid until its next failed compile. */
ND_API const char *nd_jit_last_log(void);

/* The kernel called name: an extern "C" name, or one of the module's name expressions
 * exactly as given at creation (its lowered name is used). Borrows m; returns a new
 * reference (which keeps m alive). Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (no such kernel:
 * the message names the module and the kernel), ND_ERR_CUDA. */
ND_API nd_status nd_module_get_kernel(nd_module *m, const char *name, nd_kernel **out);

ND_API nd_kernel *nd_kernel_retain(nd_kernel *k); /* returns k; NULL accepted */
ND_API void nd_kernel_release(nd_kernel *k);      /* NULL accepted */
ND_API const char *nd_kernel_name(const nd_kernel *k); /* as asked for; owned by k */

typedef struct nd_kernel_attributes {
  int registers;             /* per thread */
  size_t static_shared_bytes;
  size_t local_bytes;        /* per thread (spills and local arrays) */
  int max_threads_per_block; /* for this kernel on the current device */
  size_t max_dynamic_shared_bytes; /* the most a launch may ask for (after the opt-in) */
  int cooperative;           /* launched cooperatively (the module's flag) */
} nd_kernel_attributes;

/* The kernel's attributes on the current device. Errors: ND_ERR_NULL_POINTER, ND_ERR_CUDA. */
ND_API nd_status nd_kernel_get_attributes(nd_kernel *k, nd_kernel_attributes *out);

/* How many blocks of block_threads threads with dynamic_shared_bytes each can be resident on
 * one multiprocessor of the current device (0 when such a block cannot run at all).
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_CUDA. */
ND_API nd_status nd_kernel_max_active_blocks(nd_kernel *k, int block_threads,
                                             size_t dynamic_shared_bytes, int *out);

/* The largest grid (in blocks of block_threads threads with dynamic_shared_bytes each) that a
 * cooperative launch of k may use on the current device: nd_kernel_max_active_blocks times
 * the device's multiprocessors, the limit nd_kernel_launch checks a cooperative grid against.
 * 0 when such a block cannot run at all. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE
 * (block_threads not positive), ND_ERR_CUDA, ND_ERR_NO_DEVICE. */
ND_API nd_status nd_kernel_max_cooperative_grid(nd_kernel *k, int block_threads,
                                                size_t dynamic_shared_bytes, int64_t *out);

/* ---- launching ------------------------------------------------------------------------- */

/* How a kernel argument is passed. Arrays pass the device address of their element
 * (0, ..., 0) as a pointer, and take part in the cross-stream ordering exactly as built-in
 * operands do: ND_KARG_READ waits for the array's last writer on another stream;
 * ND_KARG_WRITE and ND_KARG_READWRITE also wait for readers on other streams, and the launch
 * is recorded as the array's writer. ND_KARG_POINTER passes a raw device pointer that ndcuda
 * does not track: ordering it is the caller's business. ND_KARG_SCALAR passes a value
 * converted to the given dtype (unsafe casting, as nd_full), by value. */
typedef enum nd_karg_kind {
  ND_KARG_READ = 1,
  ND_KARG_WRITE = 2,
  ND_KARG_READWRITE = 3,
  ND_KARG_SCALAR = 4,
  ND_KARG_POINTER = 5
} nd_karg_kind;

typedef struct nd_karg {
  nd_karg_kind kind;
  nd_array *array;     /* READ, WRITE, READWRITE (borrowed) */
  nd_dtype dtype;      /* SCALAR: the parameter's type */
  nd_scalar scalar;    /* SCALAR: the value */
  const void *pointer; /* POINTER */
} nd_karg;

static inline nd_karg nd_karg_array_(nd_karg_kind kind, const nd_array *a) {
  nd_karg r;
  r.kind = kind;
  r.array = (nd_array *)a; /* never written through for ND_KARG_READ */
  r.dtype = ND_BOOL;
  r.scalar = nd_scalar_int(0);
  r.pointer = 0;
  return r;
}
static inline nd_karg nd_karg_read(const nd_array *a) { return nd_karg_array_(ND_KARG_READ, a); }
static inline nd_karg nd_karg_write(nd_array *a) { return nd_karg_array_(ND_KARG_WRITE, a); }
static inline nd_karg nd_karg_readwrite(nd_array *a) { return nd_karg_array_(ND_KARG_READWRITE, a); }
static inline nd_karg nd_karg_scalar(nd_dtype dtype, nd_scalar value) {
  nd_karg r = nd_karg_array_(ND_KARG_SCALAR, 0);
  r.dtype = dtype;
  r.scalar = value;
  return r;
}
static inline nd_karg nd_karg_pointer(const void *p) {
  nd_karg r = nd_karg_array_(ND_KARG_POINTER, 0);
  r.pointer = p;
  return r;
}

typedef struct nd_launch_config {
  unsigned grid[3];     /* blocks in x, y, z (0 is an error) */
  unsigned block[3];    /* threads in x, y, z */
  size_t shared_bytes;  /* dynamic shared memory per block; above 48 KiB the kernel is opted
                           in automatically up to the device's per-block limit */
} nd_launch_config;

/* Launches k on the calling thread's current stream with args[0..nargs) after inserting the
 * waits its array arguments need, and records its accesses after. A kernel of a cooperative
 * module is launched cooperatively, and its grid must fit on the device at once: more blocks
 * than max_active_blocks x multiprocessors is ND_ERR_VALUE naming that limit (never a silent
 * shrink, never a hang).
 * Checks, all before anything is enqueued: argument count and each argument's size against
 * the kernel's parameters (where the driver can tell them), dtypes, NULL arrays, arrays on
 * another device (ND_ERR_DEVICE_MISMATCH), write access to read-only arrays (ND_ERR_READ_ONLY),
 * grid and block limits, shared memory limits (ND_ERR_VALUE). Each message names the kernel
 * and the argument. Borrows everything. Enqueues and returns. */
ND_API nd_status nd_kernel_launch(nd_kernel *k, nd_launch_config config, int nargs,
                                  const nd_karg *args);

/* ---- generated elementwise kernels -----------------------------------------------------
 * As CuPy's ElementwiseKernel. in_params and out_params are comma-separated parameter lists,
 * "T x, float32 y, raw T table": a type is an ndcuda dtype name (float32, complex128, ...) or a
 * placeholder (one identifier that is not a dtype name) resolved from the arguments; "raw"
 * passes the whole array (indexed by the operation itself with the _ind helper) instead of
 * the element at the current index. operation is the loop body: it reads the inputs by name,
 * assigns the outputs by name, and may use i (the linear index, int64). preamble (may be
 * NULL) is placed before the kernel. Inputs broadcast as NumPy's operands; outputs are
 * allocated (C order) or given (an out may be the same view as an input; an input that
 * overlaps an out otherwise is read from a copy, NumPy's rule). Outputs are write-only in the
 * operation: their previous value is not read. Inputs of a fixed type accept arrays of dtypes
 * that cast to it safely; outputs take the result under 'same_kind'. The same dimension
 * collapsing and a contiguous fast path with 16-byte accesses as the built-in elementwise
 * kernels apply. One compile per combination of dtypes and index width, through the kernel
 * cache, remembered by the definition. Raw arrays must be C-contiguous; the operation indexes
 * them linearly (name[j]). Limits: 16 parameters, 12 non-raw array operands. */
typedef struct nd_elementwise_kernel nd_elementwise_kernel;

/* Parses the definition. Borrows every string (they are copied). opts may be NULL.
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (a malformed parameter list, a name used twice,
 * an unknown name in a type position; the message names the kernel and the parameter). */
ND_API nd_status nd_elementwise_kernel_create(const char *in_params, const char *out_params,
                                              const char *operation, const char *name,
                                              const char *preamble,
                                              const nd_module_options *opts,
                                              nd_elementwise_kernel **out);
ND_API void nd_elementwise_kernel_release(nd_elementwise_kernel *k); /* NULL accepted */

/* Runs the kernel over nin inputs (arrays or scalars: a scalar binds a placeholder only when
 * no array does, taking its own dtype, weak kinds as int64, float64, complex128) and nout
 * outputs. out may be NULL (all outputs allocated) or hold nout entries, each an array or
 * NULL (allocated); results receives nout new references (the given outs retained).
 * Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE (wrong number of arguments), ND_ERR_DTYPE (a
 * placeholder bound to two dtypes, a fixed-type parameter given another dtype, an output
 * whose type cannot be resolved), ND_ERR_SHAPE (cannot broadcast; out of the wrong shape),
 * ND_ERR_READ_ONLY, ND_ERR_DEVICE_MISMATCH, ND_ERR_COMPILE; nothing is launched and no out
 * is touched on failure. Enqueues on the current stream and returns (the first call of a
 * dtype combination may block compiling). */
ND_API nd_status nd_elementwise_kernel_call(nd_elementwise_kernel *k, int nin,
                                            const nd_operand *in, int nout, nd_array *const *out,
                                            nd_array **results);

/* ---- generated reduction kernels -------------------------------------------------------
 * As CuPy's ReductionKernel. in_params as for elementwise kernels (no raw parameters);
 * out_params one parameter. map_expr maps the inputs at one element to the reduce type;
 * reduce_expr combines two values a and b of it; post_map_expr (NULL: "y = a", with y the
 * output's name) turns the result a into the output; identity (NULL: none) is the reduce
 * type's neutral value, also the result of an empty reduction (without one, an empty
 * reduction is ND_ERR_VALUE); reduce_type is a dtype name, a placeholder, or NULL for the
 * output's type. Placeholders in type positions are usable by name in all three expressions.
 * The combine order is unspecified (a tree), so reduce_expr must be associative and
 * commutative as far as the caller cares. */
typedef struct nd_reduction_kernel nd_reduction_kernel;

/* Parses the definition; borrows every string (copied). Errors: ND_ERR_NULL_POINTER,
 * ND_ERR_VALUE (malformed parameters, not exactly one output, raw parameters). */
ND_API nd_status nd_reduction_kernel_create(const char *in_params, const char *out_params,
                                            const char *map_expr, const char *reduce_expr,
                                            const char *post_map_expr, const char *identity,
                                            const char *reduce_type, const char *name,
                                            const char *preamble, const nd_module_options *opts,
                                            nd_reduction_kernel **out);
ND_API void nd_reduction_kernel_release(nd_reduction_kernel *k); /* NULL accepted */

/* Reduces the broadcast inputs over axes[0..naxes) (negative axes count from the end; axes
 * NULL: every axis), keeping them as size 1 when keepdims. out (may be NULL) receives the
 * result (its dtype: the output parameter's, or a same_kind cast of it); *result (may be NULL
 * when out is given) a new reference to the result. Errors: ND_ERR_NULL_POINTER, ND_ERR_VALUE
 * (input count, no array input, empty reduction without identity), ND_ERR_AXIS (out of range,
 * repeated), ND_ERR_DTYPE, ND_ERR_CASTING, ND_ERR_SHAPE, ND_ERR_READ_ONLY,
 * ND_ERR_DEVICE_MISMATCH, ND_ERR_COMPILE; nothing launched and out untouched on failure.
 * Enqueues on the current stream and returns. */
ND_API nd_status nd_reduction_kernel_call(nd_reduction_kernel *k, int nin, const nd_operand *in,
                                          int naxes, const int64_t *axes, int keepdims,
                                          nd_array *out, nd_array **result);

/* ---- the kernel cache ------------------------------------------------------------------
 * Configured from the environment at the first compile:
 *   ND_CACHE            0 (no cache: every create compiles), memory, disk (default)
 *   ND_CACHE_DIR        the directory (default $XDG_CACHE_HOME/ndcuda, else ~/.cache/ndcuda);
 *                       an unwritable one turns the cache to memory with a warning
 *   ND_CACHE_MAX_BYTES  a cap on the directory's size, least recently used entries evicted
 *                       first (default 1 GiB; 0 for no cap)
 * Entries are validated on every read (see jit/README.md): a corrupt, truncated or foreign
 * entry is removed, counted, warned about and recompiled, never loaded. */
typedef struct nd_jit_cache_stats {
  uint64_t memory_hits;   /* found in this process's map (including waits on a compile) */
  uint64_t disk_hits;     /* loaded from the directory */
  uint64_t misses;        /* not in memory */
  uint64_t compiles;      /* compiles run in this process */
  uint64_t failed_compiles;
  uint64_t corrupt_entries; /* bad disk entries removed */
  uint64_t warnings;      /* warnings recorded (nd_jit_cache_last_warning has the last) */
  uint64_t bytes_written; /* to the directory by this process */
  uint64_t disk_bytes;    /* size of the entries in the directory now */
  uint64_t disk_entries;
  uint64_t memory_entries;
  double compile_ms;      /* total wall time of this process's compiles */
} nd_jit_cache_stats;

/* Fills *out with the process cache's statistics (scans the directory for disk_bytes).
 * Errors: ND_ERR_NULL_POINTER. */
ND_API nd_status nd_jit_cache_get_stats(nd_jit_cache_stats *out);

/* Copies the last cache warning ("" if none) into buf (cap bytes, NUL-terminated).
 * Errors: ND_ERR_NULL_POINTER. */
ND_API nd_status nd_jit_cache_last_warning(char *buf, size_t cap);

/* Forgets every module the process cache holds (modules the caller still references stay
 * valid) and removes every disk entry. Errors: ND_ERR_IO naming the path. */
ND_API nd_status nd_jit_cache_clear(void);

/* Trims the disk cache to max_bytes (< 0: ND_CACHE_MAX_BYTES), least recently used first,
 * and removes temporary files left by writers that died. Errors: ND_ERR_IO. */
ND_API nd_status nd_jit_cache_prune(int64_t max_bytes);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_JIT_H */
