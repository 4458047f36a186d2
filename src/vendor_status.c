/* Converting CUDA runtime and vendor-library results into nd_status values.
 *
 * Each conversion names the vendor's error, the call, the function, file and line, and
 * clears the runtime's last-error state so that one failure is not reported again by the
 * next unrelated call. A sticky error (the context is corrupted, for example by an illegal
 * address in a kernel) cannot be cleared; the message says so, since every later call on
 * that device will fail too. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <curand.h>
#include <cusolverDn.h>
#include <nvrtc.h>

#include "src/device.h"
#include "src/internal.h"

/* The source location as a path inside the project ("src/alloc.c"): __FILE__ is the absolute
 * path on the machine that built the library, which means nothing to the caller. */
static const char *nd__src_path(const char *file) {
  const char *last = NULL, *before = NULL;
  for (const char *p = file; *p; p++)
    if (*p == '/') {
      before = last;
      last = p;
    }
  return before ? before + 1 : file;
}

nd_status nd__cuda_status(int err, const char *call, const char *func, const char *file,
                          int line) {
  cudaError_t e = (cudaError_t)err;
  /* Reading the last error resets it unless the error is sticky; a second read tells which. */
  (void)cudaGetLastError();
  int sticky = cudaGetLastError() != cudaSuccess || cudaPeekAtLastError() != cudaSuccess;
  nd_status st = e == cudaErrorMemoryAllocation ? ND_ERR_OUT_OF_MEMORY
                 : nd__cuda_no_device(e) ? ND_ERR_NO_DEVICE : ND_ERR_CUDA;
  return nd__error(st, "%s: %s failed: %s (%s) at %s:%d%s", func, call, cudaGetErrorName(e),
                   cudaGetErrorString(e), nd__src_path(file), line,
                   sticky ? "; the CUDA context is in an unrecoverable state" : "");
}

nd_status nd__cublas_status(int err, const char *call, const char *func, const char *file,
                            int line) {
  (void)cudaGetLastError();
  cublasStatus_t s = (cublasStatus_t)err;
  nd_status st = s == CUBLAS_STATUS_ALLOC_FAILED ? ND_ERR_OUT_OF_MEMORY : ND_ERR_CUBLAS;
  return nd__error(st, "%s: %s failed: %s (%s) at %s:%d", func, call, cublasGetStatusName(s),
                   cublasGetStatusString(s), nd__src_path(file), line);
}

static const char *nd__cusolver_name(cusolverStatus_t s) {
  switch (s) {
#define ND__CASE(x) \
  case x:           \
    return #x;
    ND__CASE(CUSOLVER_STATUS_SUCCESS)
    ND__CASE(CUSOLVER_STATUS_NOT_INITIALIZED)
    ND__CASE(CUSOLVER_STATUS_ALLOC_FAILED)
    ND__CASE(CUSOLVER_STATUS_INVALID_VALUE)
    ND__CASE(CUSOLVER_STATUS_ARCH_MISMATCH)
    ND__CASE(CUSOLVER_STATUS_MAPPING_ERROR)
    ND__CASE(CUSOLVER_STATUS_EXECUTION_FAILED)
    ND__CASE(CUSOLVER_STATUS_INTERNAL_ERROR)
    ND__CASE(CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED)
    ND__CASE(CUSOLVER_STATUS_NOT_SUPPORTED)
    ND__CASE(CUSOLVER_STATUS_ZERO_PIVOT)
    ND__CASE(CUSOLVER_STATUS_INVALID_LICENSE)
    ND__CASE(CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED)
    ND__CASE(CUSOLVER_STATUS_IRS_PARAMS_INVALID)
    ND__CASE(CUSOLVER_STATUS_IRS_INTERNAL_ERROR)
    ND__CASE(CUSOLVER_STATUS_IRS_NOT_SUPPORTED)
    ND__CASE(CUSOLVER_STATUS_IRS_OUT_OF_RANGE)
    ND__CASE(CUSOLVER_STATUS_INVALID_WORKSPACE)
#undef ND__CASE
    default:
      return "CUSOLVER_STATUS_UNKNOWN";
  }
}

nd_status nd__cusolver_status(int err, const char *call, const char *func, const char *file,
                              int line) {
  (void)cudaGetLastError();
  cusolverStatus_t s = (cusolverStatus_t)err;
  nd_status st = s == CUSOLVER_STATUS_ALLOC_FAILED ? ND_ERR_OUT_OF_MEMORY : ND_ERR_CUSOLVER;
  return nd__error(st, "%s: %s failed: %s (%d) at %s:%d", func, call, nd__cusolver_name(s), err,
                   nd__src_path(file), line);
}

static const char *nd__curand_name(curandStatus_t s) {
  switch (s) {
#define ND__CASE(x) \
  case x:           \
    return #x;
    ND__CASE(CURAND_STATUS_SUCCESS)
    ND__CASE(CURAND_STATUS_VERSION_MISMATCH)
    ND__CASE(CURAND_STATUS_NOT_INITIALIZED)
    ND__CASE(CURAND_STATUS_ALLOCATION_FAILED)
    ND__CASE(CURAND_STATUS_TYPE_ERROR)
    ND__CASE(CURAND_STATUS_OUT_OF_RANGE)
    ND__CASE(CURAND_STATUS_LENGTH_NOT_MULTIPLE)
    ND__CASE(CURAND_STATUS_DOUBLE_PRECISION_REQUIRED)
    ND__CASE(CURAND_STATUS_LAUNCH_FAILURE)
    ND__CASE(CURAND_STATUS_PREEXISTING_FAILURE)
    ND__CASE(CURAND_STATUS_INITIALIZATION_FAILED)
    ND__CASE(CURAND_STATUS_ARCH_MISMATCH)
    ND__CASE(CURAND_STATUS_INTERNAL_ERROR)
#undef ND__CASE
    default:
      return "CURAND_STATUS_UNKNOWN";
  }
}

nd_status nd__curand_status(int err, const char *call, const char *func, const char *file,
                            int line) {
  (void)cudaGetLastError();
  curandStatus_t s = (curandStatus_t)err;
  nd_status st = s == CURAND_STATUS_ALLOCATION_FAILED ? ND_ERR_OUT_OF_MEMORY : ND_ERR_CURAND;
  return nd__error(st, "%s: %s failed: %s (%d) at %s:%d", func, call, nd__curand_name(s), err,
                   nd__src_path(file), line);
}

nd_status nd__nvrtc_status(int err, const char *call, const char *func, const char *file,
                           int line) {
  nvrtcResult r = (nvrtcResult)err;
  nd_status st = r == NVRTC_ERROR_OUT_OF_MEMORY ? ND_ERR_OUT_OF_MEMORY : ND_ERR_NVRTC;
  return nd__error(st, "%s: %s failed: %s at %s:%d", func, call, nvrtcGetErrorString(r),
                   nd__src_path(file), line);
}
