/* Internal helpers shared by every part of the library: error reporting and the macros that
 * turn CUDA and vendor-library failures into statuses. Not installed. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ndcuda.h"
#include "src/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ND__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ND__LIKELY(x) __builtin_expect(!!(x), 1)
#define ND__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define ND__PRINTF(a, b)
#define ND__LIKELY(x) (x)
#define ND__UNLIKELY(x) (x)
#endif

/* Sets the calling thread's nd_last_error() message from a printf format and returns status,
 * so failures read: return nd__error(ND_ERR_SHAPE, "nd_add: shapes %s and %s ...", ...). */
nd_status nd__error(nd_status status, const char *fmt, ...) ND__PRINTF(2, 3);

/* Prepends "prefix: " context to the current message (used when a helper's failure is
 * reported by a public function) and returns status unchanged. */
nd_status nd__error_context(nd_status status, const char *prefix);

/* Formats a shape as NumPy prints it: "(3, 4)", "(5,)", "()". Writes at most cap bytes,
 * always NUL-terminated, and returns buf so it can be used inline in a message. */
char *nd__format_shape(char *buf, size_t cap, int ndim, const int64_t *shape);

/* Room for a formatted shape of ND_MAXDIMS dimensions. */
#define ND__SHAPE_STR 720

/* Status conversions for vendor results. Each names the vendor's error, the failing call, the
 * function, file and line; each clears CUDA's (non-sticky) last error so that a failure does
 * not leak into the next unrelated call. The call argument is an int so that these can be
 * declared without the vendor headers. */
nd_status nd__cuda_status(int err, const char *call, const char *func, const char *file,
                                 int line);
nd_status nd__cublas_status(int err, const char *call, const char *func, const char *file,
                            int line);
nd_status nd__cusolver_status(int err, const char *call, const char *func, const char *file,
                              int line);
nd_status nd__curand_status(int err, const char *call, const char *func, const char *file,
                            int line);
nd_status nd__nvrtc_status(int err, const char *call, const char *func, const char *file,
                           int line);

/* ND_CUDA(cudaMemsetAsync(...)) evaluates the call exactly once and yields ND_OK or a status
 * with the message set. Usage:
 *   if ((st = ND_CUDA(cudaFoo(...))) != ND_OK) goto fail;
 * or, where nothing needs cleaning up, ND_TRY(ND_CUDA(cudaFoo(...))). */
typedef nd_status (*nd__vendor_fn)(int, const char *, const char *, const char *, int);
static inline nd_status nd__vendor_check_(nd__vendor_fn fn, int err, const char *call,
                                          const char *func, const char *file, int line) {
  return ND__LIKELY(err == 0) ? ND_OK : fn(err, call, func, file, line);
}
#define ND_CUDA(call) \
  nd__vendor_check_(nd__cuda_status, (int)(call), #call, __func__, __FILE__, __LINE__)
#define ND_CUBLAS(call) \
  nd__vendor_check_(nd__cublas_status, (int)(call), #call, __func__, __FILE__, __LINE__)
#define ND_CUSOLVER(call) \
  nd__vendor_check_(nd__cusolver_status, (int)(call), #call, __func__, __FILE__, __LINE__)
#define ND_CURAND(call) \
  nd__vendor_check_(nd__curand_status, (int)(call), #call, __func__, __FILE__, __LINE__)
#define ND_NVRTC(call) \
  nd__vendor_check_(nd__nvrtc_status, (int)(call), #call, __func__, __FILE__, __LINE__)

#define ND_TRY(expr)                    \
  do {                                  \
    nd_status nd__st_ = (expr);         \
    if (nd__st_ != ND_OK) return nd__st_; \
  } while (0)

#define ND_CHECK_NULL(fn, ptr)                                                            \
  do {                                                                                    \
    if ((ptr) == NULL)                                                                    \
      return nd__error(ND_ERR_NULL_POINTER, "%s: argument '%s' is NULL", (fn), #ptr);    \
  } while (0)

/* For functions with an optional `out`: result may be NULL when out is given (the result is
 * out itself), not when both are. */
#define ND_CHECK_RESULT(fn, out, result)                                                   \
  do {                                                                                    \
    if ((result) == NULL && (out) == NULL)                                                \
      return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'result' is NULL (and no 'out' " \
                       "given)", (fn));                                                   \
  } while (0)


/* The array dtype of a weak kind as np.asarray makes it: int64, float64, complex128. */
nd_dtype nd__weak_default(nd_dtype weak);

/* Test hook: how kernels launched through nd_k_go go (kernels/launch.cu). ND__LAUNCH_DRIVER,
 * the default, is the driver's cuLaunchKernel with the primary context's function handle;
 * ND__LAUNCH_DRIVER_KERNEL the driver with the context-independent handle only (the path of a
 * thread whose context is not a primary one); ND__LAUNCH_RUNTIME cudaLaunchKernel (the path
 * where the driver entry point is missing). Returns the previous mode. */
enum { ND__LAUNCH_DRIVER = 0, ND__LAUNCH_DRIVER_KERNEL = 1, ND__LAUNCH_RUNTIME = 2 };
int nd__launch_set_mode(int mode);

#ifdef __cplusplus
}
#endif

#endif /* ND_INTERNAL_H */
