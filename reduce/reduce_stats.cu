/* Counting (all, any, count_nonzero), nanmean, the second pass of var/std, and the small
 * elementwise and quantile kernels that diff, average, median and quantile need.
 *
 * nd_k_binary and nd_k_quantile are one-thread-per-element grid-stride loops (256 threads)
 * over tagged loads; they run once per output or per element of a temporary and are not
 * on a bandwidth-critical path. */
#include "reduce/reduce_core.cuh"

using namespace ndr;

extern "C" nd_status nd_k_reduce_stats(const nd_kreduce *P, void *ws, size_t *wsb, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const LoadGeneric gen = {P->in_dtype, P->via_dtype, false};
  if (P->op == ND_KR_COUNT) return launch(P, OpCount{P->flags}, gen, ws, wsb, st);
  if (P->op == ND_KR_NANMEAN) {
    switch (P->acc) {
      case ND_KA_F32: return launch(P, OpNanMean<float>{P->flags}, gen, ws, wsb, st);
      case ND_KA_F64: return launch(P, OpNanMean<double>{P->flags}, gen, ws, wsb, st);
      case ND_KA_C64: return launch(P, OpNanMean<cf>{P->flags}, gen, ws, wsb, st);
      case ND_KA_C128: return launch(P, OpNanMean<cd>{P->flags}, gen, ws, wsb, st);
      default: break;
    }
  } else if (P->op == ND_KR_SQDEV) {
    switch (P->acc) {
      case ND_KA_F32:
        return launch(P, OpSqDev<float, float>{P->flags, (const float *)P->center, P->ddof}, gen, ws, wsb, st);
      case ND_KA_F64:
        return launch(P, OpSqDev<double, double>{P->flags, (const double *)P->center, P->ddof}, gen, ws, wsb, st);
      case ND_KA_C64:
        return launch(P, OpSqDev<cf, float>{P->flags, (const cf *)P->center, P->ddof}, gen, ws, wsb, st);
      case ND_KA_C128:
        return launch(P, OpSqDev<cd, double>{P->flags, (const cd *)P->center, P->ddof}, gen, ws, wsb, st);
      default: break;
    }
  }
  return nd__error(ND_ERR_INTERNAL, "nd_k_reduce_stats: no instance for op %d, accumulator %d",
                   P->op, P->acc);
}

/* ---- elementwise a OP b ------------------------------------------------------------------- */

namespace {

__device__ __forceinline__ void offsets3(int64_t i, const nd_kloop &L, const int64_t *sd,
                                         const int64_t *sa, const int64_t *sb, int64_t &od,
                                         int64_t &oa, int64_t &ob) {
  od = oa = ob = 0;
  for (int d = L.ndim - 1; d > 0; --d) {
    int64_t n = L.shape[d], q = i / n, r = i - q * n;
    od += r * sd[d];
    oa += r * sa[d];
    ob += r * sb[d];
    i = q;
  }
  if (L.ndim > 0) {
    od += i * sd[0];
    oa += i * sa[0];
    ob += i * sb[0];
  }
}

/* Complex division as NumPy (Smith's method, scaled by the larger part of the divisor). */
__device__ __forceinline__ void cdiv(double ar, double ai, double br, double bi, double &rr, double &ri) {
  double abr = fabs(br), abi = fabs(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) {
      rr = ar / abr;
      ri = ai / abr;
    } else {
      double rat = bi / br, scl = 1.0 / (br + bi * rat);
      rr = (ar + ai * rat) * scl;
      ri = (ai - ar * rat) * scl;
    }
  } else {
    double rat = br / bi, scl = 1.0 / (bi + br * rat);
    rr = (ar * rat + ai) * scl;
    ri = (ai * rat - ar) * scl;
  }
}

__global__ void k_binary(int op, nd_kloop L, nd_koperand d, nd_koperand a, nd_koperand b) {
  const int dk = d.dtype == ND_BOOL ? 0 : d.dtype <= ND_UINT64 ? 1 : d.dtype <= ND_FLOAT64 ? 2 : 3;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < L.count;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t od, oa, ob;
    offsets3(i, L, d.strides, a.strides, b.strides, od, oa, ob);
    nd_kval x = nd_load(a.dtype, a.data + oa), y = nd_load(b.dtype, b.data + ob), r;
    if (dk == 0) {
      bool p = from_kval<bool>(x), q = from_kval<bool>(y);
      r = kv_sint(op == ND_KB_MUL ? (p && q) : (p != q));
    } else if (dk == 1) {
      uint64_t p = from_kval<uint64_t>(x), q = from_kval<uint64_t>(y);
      r = kv_sint((int64_t)(op == ND_KB_MUL ? p * q : op == ND_KB_NE ? (uint64_t)(p != q) : p - q));
    } else if (dk == 2) {
      double p = nd_to_double(x), q = nd_to_double(y);
      r = kv_float(op == ND_KB_MUL ? p * q : op == ND_KB_DIV ? p / q : op == ND_KB_NE ? (double)(p != q) : p - q);
    } else {
      double pr = nd_to_double(x), pi = x.im, qr = nd_to_double(y), qi = y.im, rr, ri;
      if (op == ND_KB_MUL) {
        rr = pr * qr - pi * qi;
        ri = pr * qi + pi * qr;
      } else if (op == ND_KB_DIV) {
        cdiv(pr, pi, qr, qi, rr, ri);
      } else if (op == ND_KB_NE) {
        rr = (pr != qr || pi != qi);
        ri = 0;
      } else {
        rr = pr - qr;
        ri = pi - qi;
      }
      r = kv_complex(rr, ri);
    }
    nd_store(d.dtype, d.data + od, r);
  }
}

/* ---- quantiles of sorted rows ------------------------------------------------------------- */

template <class F>
__device__ __forceinline__ F qload(const nd_kquantile &P, const char *row, int64_t j, int isz) {
  return (F)nd_to_double(nd_load(P.dtype, row + j * isz));
}

template <class F>
__global__ void k_quantile(const __grid_constant__ nd_kquantile P, int isz) {
  const int64_t total = P.nq * P.rows;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t qi = i / P.rows, m = i - qi * P.rows, n = P.n;
    const char *row = P.sorted + m * n * isz;
    F val;
    if (n == 0 || qload<F>(P, row, n - 1, isz) != qload<F>(P, row, n - 1, isz)) {
      /* Sorted with NaN last: a NaN anywhere shows at the end, and NumPy returns NaN. */
      val = (F)NAN;
    } else if (P.median) {
      const int64_t h = n / 2;
      if (n % 2) val = qload<F>(P, row, h, isz);
      else val = (qload<F>(P, row, h - 1, isz) + qload<F>(P, row, h, isz)) / (F)2;
    } else {
      /* NumPy's 'linear' method: virtual index (n - 1) * q, lerp computed from the nearer
       * end for accuracy. */
      const F q = (F)P.q[qi];
      const F vi = (F)(n - 1) * q;
      const F prev = floor(vi);
      int64_t ip = (int64_t)prev;
      if (ip < 0) ip = 0;
      if (ip > n - 1) ip = n - 1;
      const int64_t inx = ip + 1 < n ? ip + 1 : n - 1;
      const F g = vi - prev;
      const F a = qload<F>(P, row, ip, isz), b = qload<F>(P, row, inx, isz);
      const F d = b - a;
      val = g >= (F)0.5 ? b - d * ((F)1 - g) : a + d * g;
    }
    int64_t oo = qi * P.qstride, mm = m;
    for (int d = P.nk - 1; d > 0; --d) {
      int64_t nn = P.kshape[d], q = mm / nn;
      oo += (mm - q * nn) * P.kout[d];
      mm = q;
    }
    if (P.nk > 0) oo += mm * P.kout[0];
    nd_kval v = kv_float((double)val);
    char *o = P.out + oo;
    if (P.res_dtype == P.out_dtype) {
      nd_store(P.out_dtype, o, v);
    } else {
      uint4 tmp;
      nd_store(P.res_dtype, (char *)&tmp, v);
      nd_store(P.out_dtype, o, nd_load(P.res_dtype, (const char *)&tmp));
    }
  }
}

const int nd_isz[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};

}  // namespace

extern "C" nd_status nd_k_binary(int op, const nd_kloop *L, const nd_koperand *d, const nd_koperand *a,
                                 const nd_koperand *b, void *stream) {
  if (L->count == 0) return ND_OK;
  nd_k_launch<k_binary>(nd_k_blocks(L->count, ND_K_THREADS), ND_K_THREADS, 0, (cudaStream_t)stream, op, *L, *d, *a, *b);
  return ND_K_LAUNCHED();
}

extern "C" nd_status nd_k_quantile(const nd_kquantile *P, void *stream) {
  const int64_t total = P->nq * P->rows;
  if (total == 0) return ND_OK;
  cudaStream_t st = (cudaStream_t)stream;
  unsigned blocks = nd_k_blocks(total, ND_K_THREADS);
  const int isz = nd_isz[P->dtype];
  if (P->res_dtype == ND_FLOAT64) nd_k_launch<k_quantile<double>>(blocks, ND_K_THREADS, 0, st, *P, isz);
  else nd_k_launch<k_quantile<float>>(blocks, ND_K_THREADS, 0, st, *P, isz);
  return ND_K_LAUNCHED();
}
