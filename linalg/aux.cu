/* Helper kernels of linalg/: info scans, identities, pointer arrays for batched vendor calls,
 * determinants from LU factors, conjugation, integer matmul, and the reductions behind norms,
 * traces, ranks and pseudo-inverses.
 *
 * Launch geometry: grid-stride loops of 256 threads (launch.cuh) unless stated; the integer
 * matmul uses 16x16 tiles through shared memory; reductions use one thread per output when
 * there are many outputs and one block per output (256 threads, a shared-memory tree) when
 * there are few. */
#include <cuda_fp16.h>

#include "kernels/convert.cuh"
#include "kernels/launch.cuh"
#include "linalg/kernels.h"
#include "linalg/scalar.cuh"

namespace {

__global__ void k_info_first(const int *info, int64_t count, unsigned long long *first) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x)
    if (info[i] != 0) atomicMin(first, (unsigned long long)i);
}

template <typename T>
__global__ void k_identity(nd_lk_mat x, int n, int64_t total) {
  const int64_t nn = (int64_t)n * n;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
       e += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = e / nn, r = e - b * nn, i = r / n, j = r - i * n;
    ((T *)x.data)[b * x.bs + i * x.rs + j * x.cs] = i == j ? nd_one<T>() : nd_zero<T>();
  }
}

__global__ void k_pointer_array(void **ptrs, char *base, int64_t stride, int64_t batch) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < batch;
       b += (int64_t)gridDim.x * blockDim.x)
    ptrs[b] = base + b * stride;
}

/* One block of 128 threads per matrix: log|det| and the phase of the diagonal of U, the
 * parity of the pivots (ipiv[i] != i + 1 is one interchange). */
template <typename T>
__global__ void k_lu_det(int mode, int n, int64_t batch, const T *lu, const int *ipiv,
                         const int *info, T *det, typename nd_real_of<T>::type *logdet) {
  typedef typename nd_real_of<T>::type R;
  __shared__ double s_log[128];
  __shared__ int s_par[128];
  __shared__ T s_ph[128];
  for (int64_t b = blockIdx.x; b < batch; b += gridDim.x) {
    const T *m = lu + b * (int64_t)n * n;
    double lg = 0;
    int par = 0;
    T ph = nd_one<T>();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      T d = m[(int64_t)i * n + i];
      lg += log((double)nd_abs(d));
      ph = ph * nd_phase(d);
      par ^= ipiv[b * n + i] != i + 1;
    }
    s_log[threadIdx.x] = lg;
    s_par[threadIdx.x] = par;
    s_ph[threadIdx.x] = ph;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
      if (threadIdx.x < h) {
        s_log[threadIdx.x] += s_log[threadIdx.x + h];
        s_par[threadIdx.x] ^= s_par[threadIdx.x + h];
        s_ph[threadIdx.x] = s_ph[threadIdx.x] * s_ph[threadIdx.x + h];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      T sign = s_par[0] ? nd_zero<T>() - s_ph[0] : s_ph[0];
      const bool singular = info[b] != 0;
      if (mode == ND_LK_DET) {
        det[b] = singular ? nd_zero<T>() : sign * nd_from_real<T>(exp(s_log[0]));
      } else {
        det[b] = singular ? nd_zero<T>() : sign;
        logdet[b] = singular ? R(-INFINITY) : (R)s_log[0];
      }
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void k_conj(nd_kloop L, nd_koperand d, nd_koperand s) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od, os;
    nd_k_offsets2(i, L, d.strides, s.strides, od, os);
    *(T *)(d.data + od) = nd_conj(*(const T *)(s.data + os));
  }
}

/* Integer matmul: 16x16 output tile per block, k in steps of 16 through shared memory; values
 * are widened to 64 bits (sign or zero extension does not matter: the low bits of sums of
 * products are the same), so the result wraps exactly as NumPy's does. */
template <typename U>
__global__ void k_matmul_int(int is_bool, int64_t m, int64_t n, int64_t k, nd_lk_mat A, nd_lk_mat B,
                             nd_lk_mat C, int64_t batch) {
  __shared__ uint64_t sa[16][17];
  __shared__ uint64_t sb[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = (int64_t)blockIdx.y * 16 + ty, col = (int64_t)blockIdx.x * 16 + tx;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    const U *a = (const U *)A.data + b * A.bs;
    const U *bm = (const U *)B.data + b * B.bs;
    uint64_t acc = 0;
    for (int64_t k0 = 0; k0 < k; k0 += 16) {
      sa[ty][tx] = (row < m && k0 + tx < k) ? (uint64_t)a[row * A.rs + (k0 + tx) * A.cs] : 0;
      sb[ty][tx] = (k0 + ty < k && col < n) ? (uint64_t)bm[(k0 + ty) * B.rs + col * B.cs] : 0;
      __syncthreads();
#pragma unroll
      for (int t = 0; t < 16; t++) {
        if (is_bool)
          acc |= (sa[ty][t] != 0) & (sb[t][tx] != 0);
        else
          acc += sa[ty][t] * sb[t][tx];
      }
      __syncthreads();
    }
    if (row < m && col < n) ((U *)C.data)[b * C.bs + row * C.rs + col * C.cs] = (U)acc;
  }
}

/* |x| and friends through the tagged loads of convert.cuh, so any input dtype works. */
__device__ __forceinline__ double nd_kabs(const nd_kval &v) {
  switch (v.kind) {
    case ND_K_SINT: return fabs((double)v.i);
    case ND_K_UINT: return (double)v.u;
    case ND_K_COMPLEX: return hypot(v.re, v.im);
    default: return fabs(v.re);
  }
}

struct nd_racc {
  double a, b; /* real part (or the |x| aggregate) and imaginary part of a plain sum */
  int64_t i;   /* integer sums (exact, wrapping as int64) */
};

__device__ __forceinline__ void nd_racc_init(int op, nd_racc &r) {
  r.a = op == ND_LK_MIN_ABS ? INFINITY : 0.0;
  r.b = 0;
  r.i = 0;
}

__device__ __forceinline__ void nd_racc_add(int op, double p, nd_racc &r, const nd_kval &v) {
  switch (op) {
    case ND_LK_SUM:
      if (v.kind == ND_K_SINT) r.i += v.i;
      else if (v.kind == ND_K_UINT) r.i += (int64_t)v.u;
      else {
        r.a += v.re;
        r.b += v.im;
      }
      break;
    case ND_LK_SUM_ABS: r.a += nd_kabs(v); break;
    case ND_LK_SUM_SQ: {
      double x = nd_kabs(v);
      r.a += x * x;
      break;
    }
    case ND_LK_MAX_ABS: {
      double x = nd_kabs(v);
      r.a = (x > r.a || x != x) ? x : r.a;
      break;
    }
    case ND_LK_MIN_ABS: {
      double x = nd_kabs(v);
      r.a = (x < r.a || x != x) ? x : r.a;
      break;
    }
    case ND_LK_COUNT_NZ: r.a += (v.kind == ND_K_SINT ? v.i != 0 : v.kind == ND_K_UINT ? v.u != 0 : (v.re != 0 || v.im != 0)) ? 1.0 : 0.0; break;
    default: r.a += pow(nd_kabs(v), p); break;
  }
}

__device__ __forceinline__ void nd_racc_merge(int op, nd_racc &r, const nd_racc &o) {
  switch (op) {
    case ND_LK_MAX_ABS: r.a = (o.a > r.a || o.a != o.a) ? o.a : r.a; break;
    case ND_LK_MIN_ABS: r.a = (o.a < r.a || o.a != o.a) ? o.a : r.a; break;
    default:
      r.a += o.a;
      r.b += o.b;
      r.i += o.i;
      break;
  }
}

__device__ __forceinline__ void nd_racc_store(int op, int post, double p, int dtype, char *dst,
                                              const nd_racc &r, int src_kind_int) {
  nd_kval v;
  v.u = 0;
  v.i = 0;
  v.im = 0;
  if (op == ND_LK_SUM && src_kind_int) {
    v.kind = ND_K_SINT;
    v.i = r.i;
  } else {
    double x = r.a;
    if (post == ND_LK_POST_SQRT) x = sqrt(x);
    else if (post == ND_LK_POST_ROOT) x = pow(x, 1.0 / p);
    v.kind = ND_K_COMPLEX;
    v.re = x;
    v.im = op == ND_LK_SUM ? r.b : 0.0;
  }
  nd_store(dtype, dst, v);
}

__device__ __forceinline__ int nd_is_int_dtype(int dt) { return dt <= 8; }

__global__ void k_reduce_thread(int op, int post, double p, nd_kloop L, nd_koperand d, nd_koperand s,
                                int64_t len, int64_t sstride) {
  const int si = nd_is_int_dtype(s.dtype);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od, os;
    nd_k_offsets2(i, L, d.strides, s.strides, od, os);
    nd_racc r;
    nd_racc_init(op, r);
    for (int64_t j = 0; j < len; j++) nd_racc_add(op, p, r, nd_load(s.dtype, s.data + os + j * sstride));
    nd_racc_store(op, post, p, d.dtype, d.data + od, r, si);
  }
}

__global__ void k_reduce_block(int op, int post, double p, nd_kloop L, nd_koperand d, nd_koperand s,
                               int64_t len, int64_t sstride) {
  __shared__ nd_racc sh[256];
  const int si = nd_is_int_dtype(s.dtype);
  for (int64_t i = blockIdx.x; i < L.count; i += gridDim.x) {
    int64_t od, os;
    nd_k_offsets2(i, L, d.strides, s.strides, od, os);
    nd_racc r;
    nd_racc_init(op, r);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
      nd_racc_add(op, p, r, nd_load(s.dtype, s.data + os + j * sstride));
    sh[threadIdx.x] = r;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
      if (threadIdx.x < h) nd_racc_merge(op, sh[threadIdx.x], sh[threadIdx.x + h]);
      __syncthreads();
    }
    if (threadIdx.x == 0) nd_racc_store(op, post, p, d.dtype, d.data + od, sh[0], si);
    __syncthreads();
  }
}

template <typename T>
__global__ void k_scale_rows_pinv(int64_t batch, int64_t rows, int64_t cols, T *x,
                                  const typename nd_real_of<T>::type *s, double rcond) {
  const int64_t total = batch * rows * cols;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
       e += (int64_t)gridDim.x * blockDim.x) {
    int64_t b = e / (rows * cols), i = (e / cols) % rows;
    double sv = (double)s[b * rows + i], smax = (double)s[b * rows];
    double f = sv > rcond * smax ? 1.0 / sv : 0.0;
    x[e] = x[e] * nd_from_real<T>(f);
  }
}

template <typename R>
__global__ void k_rank(int64_t batch, int64_t k, const R *s, double tol, double tol_scale, int64_t *rank) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < batch;
       b += (int64_t)gridDim.x * blockDim.x) {
    const R *sb = s + b * k;
    double t = tol >= 0 ? tol : (k > 0 ? (double)sb[0] * tol_scale : 0.0);
    int64_t c = 0;
    for (int64_t i = 0; i < k; i++) c += (double)sb[i] > t;
    rank[b] = c;
  }
}

template <typename R>
__global__ void k_ratio(int64_t batch, int64_t k, const R *s, int inverse, R *out) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < batch;
       b += (int64_t)gridDim.x * blockDim.x)
    out[b] = inverse ? s[b * k + k - 1] / s[b * k] : s[b * k] / s[b * k + k - 1];
}

}  // namespace

extern "C" nd_status nd_lk_first_reset(unsigned long long *first, void *stream) {
  return ND_CUDA(cudaMemsetAsync(first, 0xff, sizeof *first, (cudaStream_t)stream));
}

extern "C" nd_status nd_lk_info_first(const int *info, int64_t count, unsigned long long *first,
                                      void *stream) {
  if (count == 0) return ND_OK;
  nd_k_launch<k_info_first>(nd_k_blocks(count, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, info, count, first);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_identity(nd_lk_mat x, int dtype, int n, int64_t batch, void *stream) {
  const int64_t total = batch * n * n;
  if (total == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = nd_k_blocks(total, ND_K_THREADS);
  switch (dtype) {
    case 10: nd_k_launch<k_identity<float>>(blocks, ND_K_THREADS, 0, st, x, n, total); break;
    case 11: nd_k_launch<k_identity<double>>(blocks, ND_K_THREADS, 0, st, x, n, total); break;
    case 12: nd_k_launch<k_identity<nd_c64>>(blocks, ND_K_THREADS, 0, st, x, n, total); break;
    case 13: nd_k_launch<k_identity<nd_c128>>(blocks, ND_K_THREADS, 0, st, x, n, total); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_lk_identity: dtype %d", dtype);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_pointer_array(void **ptrs, char *base, int64_t stride, int64_t batch, void *stream) {
  if (batch == 0) return ND_OK;
  nd_k_launch<k_pointer_array>(nd_k_blocks(batch, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, ptrs, base, stride, batch);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_lu_det(int mode, int dtype, int n, int64_t batch, const void *lu, const int *ipiv,
                                  const int *info, void *det, void *logdet, void *stream) {
  if (batch == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = (unsigned)(batch < 65535 ? batch : 65535);
  switch (dtype) {
    case 10: nd_k_launch<k_lu_det<float>>(blocks, 128, 0, st, mode, n, batch, (const float *)lu, ipiv, info, (float *)det, (float *)logdet); break;
    case 11: nd_k_launch<k_lu_det<double>>(blocks, 128, 0, st, mode, n, batch, (const double *)lu, ipiv, info, (double *)det, (double *)logdet); break;
    case 12: nd_k_launch<k_lu_det<nd_c64>>(blocks, 128, 0, st, mode, n, batch, (const nd_c64 *)lu, ipiv, info, (nd_c64 *)det, (float *)logdet); break;
    case 13: nd_k_launch<k_lu_det<nd_c128>>(blocks, 128, 0, st, mode, n, batch, (const nd_c128 *)lu, ipiv, info, (nd_c128 *)det, (double *)logdet); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_lk_lu_det: dtype %d", dtype);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_conj(const nd_kloop *L, const nd_koperand *d, const nd_koperand *s, void *stream) {
  if (L->count == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = nd_k_blocks(L->count, ND_K_THREADS);
  if (s->dtype == 12) nd_k_launch<k_conj<nd_c64>>(blocks, ND_K_THREADS, 0, st, *L, *d, *s);
  else if (s->dtype == 13) nd_k_launch<k_conj<nd_c128>>(blocks, ND_K_THREADS, 0, st, *L, *d, *s);
  else return nd__error(ND_ERR_INTERNAL, "nd_lk_conj: dtype %d is not complex", s->dtype);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_matmul_int(int dtype, int64_t batch, int64_t m, int64_t n, int64_t k,
                                      nd_lk_mat a, nd_lk_mat b, nd_lk_mat c, void *stream) {
  if (batch == 0 || m == 0 || n == 0) return ND_OK;
  if ((m + 15) / 16 > 65535)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "nd_matmul: integer matmul with more than %d rows", 65535 * 16);
  cudaStream_t st = (cudaStream_t)stream;
  int64_t gx = (n + 15) / 16;
  if (gx > 0x7fffffff) return nd__error(ND_ERR_NOT_IMPLEMENTED, "nd_matmul: integer matmul too wide");
  dim3 grid((unsigned)gx, (unsigned)((m + 15) / 16), (unsigned)(batch < 65535 ? batch : 65535));
  dim3 block(16, 16);
  switch (dtype) {
    case 0: nd_k_launch<k_matmul_int<uint8_t>>(grid, block, 0, st, 1, m, n, k, a, b, c, batch); break;
    case 1: case 5: nd_k_launch<k_matmul_int<uint8_t>>(grid, block, 0, st, 0, m, n, k, a, b, c, batch); break;
    case 2: case 6: nd_k_launch<k_matmul_int<uint16_t>>(grid, block, 0, st, 0, m, n, k, a, b, c, batch); break;
    case 3: case 7: nd_k_launch<k_matmul_int<uint32_t>>(grid, block, 0, st, 0, m, n, k, a, b, c, batch); break;
    case 4: case 8: nd_k_launch<k_matmul_int<uint64_t>>(grid, block, 0, st, 0, m, n, k, a, b, c, batch); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_lk_matmul_int: dtype %d", dtype);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_reduce(int op, int post, double p, const nd_kloop *L, const nd_koperand *d,
                                  const nd_koperand *s, int64_t len, int64_t sstride, void *stream) {
  if (L->count == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  if (L->count < (int64_t)nd_k_sm_count() * 64 && len > 64) {
    int64_t blocks = L->count < 65535 ? L->count : 65535;
    nd_k_launch<k_reduce_block>((unsigned)blocks, 256, 0, st, op, post, p, *L, *d, *s, len, sstride);
  } else {
    nd_k_launch<k_reduce_thread>(nd_k_blocks(L->count, 128), 128, 0, st, op, post, p, *L, *d, *s, len, sstride);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_scale_rows_pinv(int dtype, int64_t batch, int64_t rows, int64_t cols, void *x,
                                           const void *s, double rcond, void *stream) {
  const int64_t total = batch * rows * cols;
  if (total == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = nd_k_blocks(total, ND_K_THREADS);
  switch (dtype) {
    case 10: nd_k_launch<k_scale_rows_pinv<float>>(blocks, ND_K_THREADS, 0, st, batch, rows, cols, (float *)x, (const float *)s, rcond); break;
    case 11: nd_k_launch<k_scale_rows_pinv<double>>(blocks, ND_K_THREADS, 0, st, batch, rows, cols, (double *)x, (const double *)s, rcond); break;
    case 12: nd_k_launch<k_scale_rows_pinv<nd_c64>>(blocks, ND_K_THREADS, 0, st, batch, rows, cols, (nd_c64 *)x, (const float *)s, rcond); break;
    case 13: nd_k_launch<k_scale_rows_pinv<nd_c128>>(blocks, ND_K_THREADS, 0, st, batch, rows, cols, (nd_c128 *)x, (const double *)s, rcond); break;
    default: return nd__error(ND_ERR_INTERNAL, "nd_lk_scale_rows_pinv: dtype %d", dtype);
  }
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_rank(int real_dtype, int64_t batch, int64_t k, const void *s, double tol,
                                double tol_scale, int64_t *rank, void *stream) {
  if (batch == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = nd_k_blocks(batch, 128);
  if (real_dtype == 10) nd_k_launch<k_rank<float>>(blocks, 128, 0, st, batch, k, (const float *)s, tol, tol_scale, rank);
  else nd_k_launch<k_rank<double>>(blocks, 128, 0, st, batch, k, (const double *)s, tol, tol_scale, rank);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_lk_ratio_first_last(int real_dtype, int64_t batch, int64_t k, const void *s, int inverse,
                                            void *out, void *stream) {
  if (batch == 0 || k == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  const unsigned blocks = nd_k_blocks(batch, 128);
  if (real_dtype == 10) nd_k_launch<k_ratio<float>>(blocks, 128, 0, st, batch, k, (const float *)s, inverse, (float *)out);
  else nd_k_launch<k_ratio<double>>(blocks, 128, 0, st, batch, k, (const double *)s, inverse, (double *)out);
  return ND_K_LAUNCHED();
}
