/* matmul and the batched product core.
 *
 * cuBLAS is column-major; ndcuda is row-major. A row-major C = A B is the column-major
 * C^T = B^T A^T, so the product is issued as gemm(B, A) with m and n swapped, and each operand's
 * transpose flag says whether its matrices are row-major (unit column stride: no transpose of
 * the buffer needed) or column-major (unit row stride: transposed). No operand is copied
 * unless its matrices have no unit stride at all. One matrix goes through cublasGemmEx (the
 * call CuPy makes), or, for a small one (m n k <= ND__LT_MAX_FLOPS), through cublasLt with a
 * plan cached per shape (linalg/handles.c: cublasGemmEx picks its algorithm on every call, host
 * time that shows when the product itself takes a few microseconds); a batch through
 * cublasGemmStridedBatchedEx with the operands' batch strides (0 broadcasts a matrix across the
 * batch). float32 uses CUBLAS_COMPUTE_32F, i.e. no TF32, unless TF32 was asked for. */
#include <limits.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "linalg/kernels.h"
#include "linalg/products.h"
#include "src/api_scope.h"

/* m n k up to 512^3: where a product's host time is comparable to its device time. */
#define ND__LT_MAX_FLOPS 134217728.0

static void *nd__ptr(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }

/* How cuBLAS sees a (rows x cols) matrix with element strides (rs, cs): row-major (trans 0)
 * with leading dimension rs, or column-major (trans 1) with leading dimension cs. */
static int nd__blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *colmajor, int64_t *ld) {
  const int64_t c1 = cols > 1 ? cols : 1, r1 = rows > 1 ? rows : 1;
  if (cols <= 1 || cs == 1) {
    int64_t l = rows <= 1 ? c1 : rs;
    if (l >= c1 && l <= INT_MAX) {
      *colmajor = 0;
      *ld = l;
      return 1;
    }
  }
  if (rows <= 1 || rs == 1) {
    int64_t l = cols <= 1 ? r1 : cs;
    if (l >= r1 && l <= INT_MAX) {
      *colmajor = 1;
      *ld = l;
      return 1;
    }
  }
  return 0;
}

nd_status nd__as_batch3(const char *fn, const nd_array *x, nd_dtype dt, nd_array **out) {
  const int nd = x->ndim;
  int64_t bs;
  int64_t batch = 1;
  for (int i = 0; i < nd - 2; i++) batch *= x->shape[i];
  int64_t shape[3] = {batch, x->shape[nd - 2], x->shape[nd - 1]};
  if (x->dtype == dt && nd__batch_single_stride(nd - 2, x->shape, x->strides, &bs)) {
    int64_t strides[3] = {bs, x->strides[nd - 2], x->strides[nd - 1]};
    return nd__array_view(fn, x, 3, shape, strides, x->offset, 1, out);
  }
  nd_array *c;
  ND_TRY(nd__linalg_contig(fn, x, dt, &c));
  nd_status st = nd_array_reshape(c, 3, shape, out);
  nd_array_release(c);
  return st;
}

typedef struct nd__gemm_types {
  cudaDataType_t data;
  cublasComputeType_t compute;
  const void *one;
  const void *zero;
} nd__gemm_types;

static nd_status nd__gemm_types_of(const char *fn, nd_dtype dt, int tf32, nd__gemm_types *t) {
  static const float f1 = 1.0f, f0 = 0.0f;
  static const double d1 = 1.0, d0 = 0.0;
  static const float c1[2] = {1.0f, 0.0f}, c0[2] = {0.0f, 0.0f};
  static const double z1[2] = {1.0, 0.0}, z0[2] = {0.0, 0.0};
  switch (dt) {
    case ND_FLOAT16: *t = (nd__gemm_types){CUDA_R_16F, CUBLAS_COMPUTE_32F, &f1, &f0}; return ND_OK;
    case ND_FLOAT32:
      *t = (nd__gemm_types){CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, &f1, &f0};
      return ND_OK;
    case ND_FLOAT64: *t = (nd__gemm_types){CUDA_R_64F, CUBLAS_COMPUTE_64F, &d1, &d0}; return ND_OK;
    case ND_COMPLEX64:
      *t = (nd__gemm_types){CUDA_C_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, c1, c0};
      return ND_OK;
    case ND_COMPLEX128: *t = (nd__gemm_types){CUDA_C_64F, CUBLAS_COMPUTE_64F, z1, z0}; return ND_OK;
    default: break;
  }
  return nd__error(ND_ERR_INTERNAL, "%s: dtype %s has no gemm", fn, nd_dtype_name(dt));
}

static int nd__is_intlike(nd_dtype dt) { return dt <= ND_UINT64; }

nd_status nd__matmul_into(const char *fn, const nd_array *a, const nd_array *b, nd_array *c, int tf32) {
  const int64_t batch = c->shape[0], m = c->shape[1], n = c->shape[2], k = a->shape[2];
  if (c->size == 0) return ND_OK;
  if (k == 0) return nd_array_fill(c, nd_scalar_int(0));
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, c, &s));
  const nd_dtype dt = c->dtype;
  const int64_t isz = (int64_t)nd_dtype_itemsize(dt);
  nd_array *ak = NULL, *bk = NULL, *ck = NULL;
  int64_t ea[3], eb[3], ec[3];
  nd_status st = ND_OK;

  if (nd__is_intlike(dt)) {
    ak = nd_array_retain((nd_array *)a);
    bk = nd_array_retain((nd_array *)b);
    if (!nd__elem_strides(ak, ea)) {
      nd_array_release(ak);
      st = nd__linalg_contig(fn, a, dt, &ak);
      if (st == ND_OK) (void)nd__elem_strides(ak, ea);
    }
    if (st == ND_OK && !nd__elem_strides(bk, eb)) {
      nd_array_release(bk);
      st = nd__linalg_contig(fn, b, dt, &bk);
      if (st == ND_OK) (void)nd__elem_strides(bk, eb);
    }
    if (st == ND_OK && !nd__elem_strides(c, ec))
      st = nd__error(ND_ERR_INTERNAL, "%s: output strides are not whole elements", fn);
    nd__sync sync;
    nd__sync_init(&sync, s);
    if (st == ND_OK) st = nd__sync_add(&sync, &ak->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &bk->buf->hz, ND__READ);
    if (st == ND_OK) st = nd__sync_add(&sync, &c->buf->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      nd_lk_mat am = {nd__ptr(ak), ea[0], ea[1], ea[2]}, bm = {nd__ptr(bk), eb[0], eb[1], eb[2]},
                cm = {nd__ptr(c), ec[0], ec[1], ec[2]};
      st = nd_lk_matmul_int(dt, batch, m, n, k, am, bm, cm, s->cu);
      if (st != ND_OK) st = nd__error_context(st, fn);
      nd_status st2 = nd__sync_end(&sync);
      if (st == ND_OK) st = st2;
    }
    nd_array_release(ak);
    nd_array_release(bk);
    return st;
  }

  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || batch > INT_MAX)
    return nd__error(ND_ERR_NOT_IMPLEMENTED, "%s: product dimensions (%lld, %lld, %lld) x %lld exceed "
                     "cuBLAS's int range", fn, (long long)m, (long long)n, (long long)k, (long long)batch);
  nd__gemm_types gt = {CUDA_R_32F, CUBLAS_COMPUTE_32F, NULL, NULL};
  ND_TRY(nd__gemm_types_of(fn, dt, tf32, &gt));
  int acol, bcol, ccol;
  int64_t lda, ldb, ldc;
  /* Operands: used as they are when cuBLAS can address them, else as C-contiguous copies. */
  const nd_array *src[2] = {a, b};
  nd_array **keep[2] = {&ak, &bk};
  int *cols[2] = {&acol, &bcol};
  int64_t *lds[2] = {&lda, &ldb}, *es[2] = {ea, eb};
  for (int i = 0; i < 2 && st == ND_OK; i++) {
    const nd_array *x = src[i];
    if (x->dtype == dt && nd__elem_strides(x, es[i]) && es[i][0] >= 0 &&
        nd__blas_layout(x->shape[1], x->shape[2], es[i][1], es[i][2], cols[i], lds[i])) {
      *keep[i] = nd_array_retain((nd_array *)x);
    } else {
      st = nd__linalg_contig(fn, x, dt, keep[i]);
      if (st == ND_OK) {
        (void)nd__elem_strides(*keep[i], es[i]);
        (void)nd__blas_layout(x->shape[1], x->shape[2], es[i][1], es[i][2], cols[i], lds[i]);
      }
    }
  }
  /* The result: written in place when row-major, else through a C-contiguous temporary. */
  if (st == ND_OK) {
    if (nd__elem_strides(c, ec) && ec[0] >= 0 && nd__blas_layout(m, n, ec[1], ec[2], &ccol, &ldc) && !ccol &&
        !nd__array_may_overlap(c, ak) && !nd__array_may_overlap(c, bk)) {
      ck = nd_array_retain(c);
    } else {
      st = nd__array_alloc(fn, 3, c->shape, dt, 'C', &ck);
      if (st == ND_OK) {
        (void)nd__elem_strides(ck, ec);
        ldc = n > 1 ? n : 1;
      }
    }
  }
  void *h = NULL;
  if (st == ND_OK) st = nd__cublas_for(fn, s, &h);
  nd__sync sync;
  nd__sync_init(&sync, s);
  int begun = 0;
  if (st == ND_OK) st = nd__sync_add(&sync, &ak->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &bk->buf->hz, ND__READ);
  if (st == ND_OK) st = nd__sync_add(&sync, &ck->buf->hz, ND__WRITE);
  if (st == ND_OK) st = nd__sync_begin(&sync);
  if (st == ND_OK) {
    begun = 1;
    /* column-major: C^T (n x m) = op(B buffer) (n x k) * op(A buffer) (k x m) */
    cublasOperation_t opb = bcol ? CUBLAS_OP_T : CUBLAS_OP_N, opa = acol ? CUBLAS_OP_T : CUBLAS_OP_N;
    int done = 0;
    if (batch == 1 && (double)m * (double)n * (double)k <= ND__LT_MAX_FLOPS) {
      /* a small product: a cached cublasLt plan instead of cublasGemmEx's choice on every call */
      const nd__lt_gemm lg = {(int)gt.data, (int)gt.compute, (int)opb, (int)opa, n, m, k, ldb, lda, ldc,
                              gt.one, nd__ptr(bk), nd__ptr(ak), gt.zero, nd__ptr(ck)};
      st = nd__gemm_lt(fn, s, h, &lg, &done);
    }
    if (st == ND_OK && done) {
      /* launched */
    } else if (st == ND_OK && batch == 1) {
      st = ND_CUBLAS(cublasGemmEx(h, opb, opa, (int)n, (int)m, (int)k, gt.one, nd__ptr(bk), gt.data, (int)ldb,
                                  nd__ptr(ak), gt.data, (int)lda, gt.zero, nd__ptr(ck), gt.data, (int)ldc,
                                  gt.compute, CUBLAS_GEMM_DEFAULT));
    } else if (st == ND_OK) {
      st = ND_CUBLAS(cublasGemmStridedBatchedEx(h, opb, opa, (int)n, (int)m, (int)k, gt.one, nd__ptr(bk), gt.data,
                                                (int)ldb, (long long)eb[0], nd__ptr(ak), gt.data, (int)lda,
                                                (long long)ea[0], gt.zero, nd__ptr(ck), gt.data, (int)ldc,
                                                (long long)ec[0], (int)batch, gt.compute, CUBLAS_GEMM_DEFAULT));
    }
    if (st != ND_OK) st = nd__error_context(st, fn);
  }
  if (begun) {
    nd_status st2 = nd__sync_end(&sync);
    if (st == ND_OK) st = st2;
  }
  if (st == ND_OK && ck != c) st = nd__assign(fn, c, ck);
  (void)isz;
  nd_array_release(ak);
  nd_array_release(bk);
  nd_array_release(ck);
  return st;
}

nd_status nd_matmul_ex(const nd_array *a, const nd_array *b, unsigned flags, nd_array **out) {
  const char *fn = "nd_matmul_ex";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, a);
  ND_CHECK_NULL(fn, b);
  ND_CHECK_NULL(fn, out);
  int tf32;
  ND_TRY(nd__linalg_flags(fn, flags, NULL, &tf32));
  nd__mm_plan p;
  ND_TRY(nd__matmul_shapes(fn, a->ndim, a->shape, b->ndim, b->shape, &p));
  nd_dtype dt;
  ND_TRY(nd_promote_types(a->dtype, b->dtype, &dt));
  if (b->buf->device != a->buf->device)
    return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: a on device %d, b on device %d", fn, a->buf->device, b->buf->device);
  /* Both operands as (batch..., rows, cols) broadcast views. */
  int64_t shape[ND_MAXDIMS];
  memcpy(shape, p.batch_shape, (size_t)p.batch_ndim * sizeof(int64_t));
  nd_array *av = NULL, *bv = NULL, *am = NULL, *bm = NULL, *a3 = NULL, *b3 = NULL, *c = NULL, *c3 = NULL;
  nd_status st = ND_OK;
  if (p.a_vec) {
    int64_t sh[2] = {1, p.k}, stv[2] = {0, a->strides[0]};
    st = nd__array_view(fn, a, 2, sh, stv, a->offset, 0, &am);
  } else {
    am = nd_array_retain((nd_array *)a);
  }
  if (st == ND_OK && p.b_vec) {
    int64_t sh[2] = {p.k, 1}, stv[2] = {b->strides[0], 0};
    st = nd__array_view(fn, b, 2, sh, stv, b->offset, 0, &bm);
  } else if (st == ND_OK) {
    bm = nd_array_retain((nd_array *)b);
  }
  if (st == ND_OK) {
    shape[p.batch_ndim] = p.m;
    shape[p.batch_ndim + 1] = p.k;
    st = nd_array_broadcast_to(am, p.batch_ndim + 2, shape, &av);
  }
  if (st == ND_OK) {
    shape[p.batch_ndim] = p.k;
    shape[p.batch_ndim + 1] = p.n;
    st = nd_array_broadcast_to(bm, p.batch_ndim + 2, shape, &bv);
  }
  if (st == ND_OK) st = nd__array_alloc(fn, p.out_ndim, p.out_shape, dt, 'C', &c);
  if (st == ND_OK && c->size > 0) {
    int64_t cshape[3] = {p.batch, p.m, p.n};
    st = nd_array_reshape(c, 3, cshape, &c3);
    if (st == ND_OK) st = nd__as_batch3(fn, av, dt, &a3);
    if (st == ND_OK) st = nd__as_batch3(fn, bv, dt, &b3);
    if (st == ND_OK) st = nd__matmul_into(fn, a3, b3, c3, tf32);
  }
  nd_array_release(am);
  nd_array_release(bm);
  nd_array_release(av);
  nd_array_release(bv);
  nd_array_release(a3);
  nd_array_release(b3);
  nd_array_release(c3);
  if (st != ND_OK) {
    nd_array_release(c);
    return st;
  }
  *out = c;
  return ND_OK;
}

nd_status nd_matmul(const nd_array *a, const nd_array *b, nd_array **out) {
  ND__API_SCOPE("nd_matmul");
  return nd_matmul_ex(a, b, 0, out);
}
