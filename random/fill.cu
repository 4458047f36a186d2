/* The bandwidth-bound fills: uniform, normal, lognormal, exponential, integers, bernoulli.
 *
 * One element block per loop step (random/philox.h): four 32-bit words give four float32
 * values, two float64 values, four narrow or two wide integers, or two bernoulli draws. With
 * Philox a step is one Philox4x32-10 evaluation (ten rounds of two 32x32->64 multiplies, no
 * state in memory) and one 16-byte store, in a single pass over the output with no temporary.
 * Launch geometry: grid-stride loops of 256 threads (engine.cuh decides the grid). Full blocks
 * are stored with one vector store; the host guarantees 16-byte alignment of the output, and
 * the last, partial block is stored element by element.
 *
 * At 2^28 float32 values the uniform and integer fills run at the speed of writing memory; the
 * float32 normal fill is bound by arithmetic instead (with the correctly rounded logf and sqrtf
 * it took 1.56 times as long as the uniform fill on an H100), so its Box-Muller radius uses the
 * hardware's log2 and square-root approximations, with a short series where log2's absolute
 * error would show (see m2log_f32), the angle's two constant factors are folded into one, and
 * standard normals skip the affine step. The values stay within about 1e-6 (1 + |z|) of those
 * of logf, sqrtf and sinf/cosf, well inside what the host reference in the tests allows
 * (2e-5); float64 normals use log, sqrt and sincospi.
 *
 * Integers: all four candidates of a block are computed first and the rejection loop (Lemire)
 * only runs when one of them is rejected, which for most ranges almost never happens (range
 * 1000: 3e-7 per block). The loop then redraws in element order, exactly as a per-element loop
 * would, so the numbers do not depend on this arrangement. */
#include <string.h>

#include <type_traits>

#include "random/engine.cuh"

namespace {

/* K_STD_NORMAL is K_NORMAL with loc 0 and scale 1, which skips the affine step. */
enum { K_UNIFORM = 0, K_NORMAL = 1, K_LOGNORMAL = 2, K_EXPONENTIAL = 3, K_STD_NORMAL = 4 };

/* Stores the V values of block j (elements j*V ...) with one vector store when the block is
 * full, else element by element up to n. */
template <class T, int V>
__device__ __forceinline__ void store_block(T *out, int64_t j, int64_t n, const T (&v)[V]) {
  const int64_t i0 = j * V;
  constexpr int bytes = (int)sizeof(T) * V;
  if (i0 + V <= n) {
    char *p = (char *)(out + i0);
    if constexpr (bytes == 32) {
      uint4 u[2];
      memcpy(u, v, 32);
      ((uint4 *)p)[0] = u[0];
      ((uint4 *)p)[1] = u[1];
    } else if constexpr (bytes == 16) {
      uint4 u;
      memcpy(&u, v, 16);
      *(uint4 *)p = u;
    } else if constexpr (bytes == 8) {
      uint2 u;
      memcpy(&u, v, 8);
      *(uint2 *)p = u;
    } else if constexpr (bytes == 4) {
      uint32_t u;
      memcpy(&u, v, 4);
      *(uint32_t *)p = u;
    } else {
      uint16_t u;
      memcpy(&u, v, 2);
      *(uint16_t *)p = u;
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; k++)
      if (i0 + k < n) out[i0 + k] = v[k];
  }
}

/* -2 ln(u) for u in (0, 1]. lg2.approx (one MUFU instruction) has an absolute error of at
 * most 2^-22 on [0.5, 2] and 2 ulps elsewhere: relative to -2 ln(u) that is below 3e-6 once
 * u <= 1 - 2^-4. Above that, t = 1 - u is exact (Sterbenz) and -2 ln(1 - t) =
 * 2 (t + t^2/2 + ... + t^6/6) with a truncation error below t^6 / 7 < 2^-26 relative. At
 * u = 1 (t = 0) the result is exactly 0. */
__device__ __forceinline__ float m2log_f32(float u) {
  float l2;
  asm("lg2.approx.f32 %0, %1;" : "=f"(l2) : "f"(u));
  const float far = l2 * -1.38629436111989061883f; /* -2 ln 2 */
  const float t = 1.0f - u;
  float p = 1.0f / 6.0f;
  p = fmaf(p, t, 0.2f);
  p = fmaf(p, t, 0.25f);
  p = fmaf(p, t, 1.0f / 3.0f);
  p = fmaf(p, t, 0.5f);
  p = fmaf(p, t, 1.0f);
  const float near = 2.0f * t * p;
  return t < 0.0625f ? near : far;
}

/* sqrt.approx (one MUFU instruction, relative error about 2^-23; 0 gives 0) instead of the
 * correctly rounded sqrtf, whose refinement and special-case branch cost about ten more. */
__device__ __forceinline__ float sqrt_approx_f32(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ void box_muller(uint32_t x, uint32_t y, float &z0, float &z1) {
  const float r = sqrt_approx_f32(m2log_f32(nd__open_f32(x)));
  /* The angle pi * nd__sym_f32(y) with the two constant factors folded into one multiply. */
  float s, c;
  __sincosf((float)((int32_t)y >> 8) * (0x1p-23f * 3.14159265358979323846f), &s, &c);
  z0 = r * s;
  z1 = r * c;
}

__device__ __forceinline__ void box_muller(uint4 w, double &z0, double &z1) {
  const double r = sqrt(-2.0 * log(nd__open_f64(w.x, w.y)));
  double s, c;
  sincospi(nd__sym_f64(w.z, w.w), &s, &c);
  z0 = r * s;
  z1 = r * c;
}

template <int KIND>
__device__ __forceinline__ void transform(uint4 w, float a, float b, float (&v)[4]) {
  if (KIND == K_UNIFORM) {
    v[0] = a + b * nd__unit_f32(w.x);
    v[1] = a + b * nd__unit_f32(w.y);
    v[2] = a + b * nd__unit_f32(w.z);
    v[3] = a + b * nd__unit_f32(w.w);
  } else if (KIND == K_STD_NORMAL) {
    box_muller(w.x, w.y, v[0], v[1]);
    box_muller(w.z, w.w, v[2], v[3]);
  } else if (KIND == K_NORMAL || KIND == K_LOGNORMAL) {
    box_muller(w.x, w.y, v[0], v[1]);
    box_muller(w.z, w.w, v[2], v[3]);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      v[k] = a + b * v[k];
      if (KIND == K_LOGNORMAL) v[k] = expf(v[k]);
    }
  } else {
    /* 1 - u is exact and lies in (0, 1]. */
    v[0] = b * -logf(1.0f - nd__unit_f32(w.x));
    v[1] = b * -logf(1.0f - nd__unit_f32(w.y));
    v[2] = b * -logf(1.0f - nd__unit_f32(w.z));
    v[3] = b * -logf(1.0f - nd__unit_f32(w.w));
  }
}

template <int KIND>
__device__ __forceinline__ void transform(uint4 w, double a, double b, double (&v)[2]) {
  if (KIND == K_UNIFORM) {
    v[0] = a + b * nd__unit_f64(w.x, w.y);
    v[1] = a + b * nd__unit_f64(w.z, w.w);
  } else if (KIND == K_NORMAL || KIND == K_LOGNORMAL) {
    box_muller(w, v[0], v[1]);
#pragma unroll
    for (int k = 0; k < 2; k++) {
      v[k] = a + b * v[k];
      if (KIND == K_LOGNORMAL) v[k] = exp(v[k]);
    }
  } else {
    v[0] = b * -log(1.0 - nd__unit_f64(w.x, w.y));
    v[1] = b * -log(1.0 - nd__unit_f64(w.z, w.w));
  }
}

template <class Eng, class T, int KIND>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_transform(nd_krng rng, T *__restrict__ out, int64_t n, T a, T b) {
  constexpr int V = 16 / sizeof(T);
  const int64_t nblk = (n + V - 1) / V;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= nblk) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < nblk; j += step) {
    eng.begin(j);
    T v[V];
    transform<KIND>(eng.next4(), a, b, v);
    store_block<T, V>(out, j, n, v);
  }
  eng.finish(rng, tid);
}

/* Lemire's bounded mapping of one word (32 or 64 bits; a 64-bit word is two engine outputs,
 * high first). */
template <class W>
struct nd_bounded;
template <>
struct nd_bounded<uint32_t> {
  static __device__ __forceinline__ uint32_t map(uint32_t x, uint64_t r, uint64_t t, int *ok) {
    return nd__lemire32(x, (uint32_t)r, (uint32_t)t, ok);
  }
  template <class Eng>
  static __device__ __forceinline__ uint32_t word(Eng &eng) {
    return eng.next();
  }
};
template <>
struct nd_bounded<uint64_t> {
  static __device__ __forceinline__ uint64_t map(uint64_t x, uint64_t r, uint64_t t, int *ok) {
    return nd__lemire64(x, r, t, ok);
  }
  template <class Eng>
  static __device__ __forceinline__ uint64_t word(Eng &eng) {
    const uint64_t hi = eng.next();
    const uint64_t lo = eng.next();
    return (hi << 32) | lo;
  }
};

/* Offsets in [0, range) for the V words x of one block. A rejected word is redrawn from the
 * thread's engine stream, in order of k, only after the whole block was mapped (the common
 * case has no branch per word). */
template <class W, int V, class Eng>
__device__ __forceinline__ void nd_bounded_block(Eng &eng, const W (&x)[V], uint64_t range,
                                                 uint64_t thr, W (&c)[V]) {
  int all_ok = 1;
#pragma unroll
  for (int k = 0; k < V; k++) {
    int ok;
    c[k] = nd_bounded<W>::map(x[k], range, thr, &ok);
    all_ok &= ok;
  }
  if (!all_ok) {
#pragma unroll
    for (int k = 0; k < V; k++) {
      int ok;
      (void)nd_bounded<W>::map(x[k], range, thr, &ok);
      while (!ok) c[k] = nd_bounded<W>::map(nd_bounded<W>::word(eng), range, thr, &ok);
    }
  }
}

/* U is the unsigned type of the output's width; values are low + offset, wrapping, so signed
 * dtypes get their two's complement bits. Narrow widths map four 32-bit words per block, wide
 * ones two 64-bit words. */
template <class Eng, class U, bool WIDE>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_integers(nd_krng rng, U *__restrict__ out, int64_t n, uint64_t low, uint64_t range,
               uint64_t thr) {
  constexpr int V = WIDE ? 2 : 4;
  typedef typename std::conditional<WIDE, uint64_t, uint32_t>::type W;
  const int64_t nblk = (n + V - 1) / V;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= nblk) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < nblk; j += step) {
    eng.begin(j);
    const uint4 w = eng.next4();
    W x[V], c[V];
    if constexpr (WIDE) {
      x[0] = ((uint64_t)w.x << 32) | w.y;
      x[1] = ((uint64_t)w.z << 32) | w.w;
    } else {
      x[0] = w.x;
      x[1] = w.y;
      x[2] = w.z;
      x[3] = w.w;
    }
    nd_bounded_block<W, V>(eng, x, range, thr, c);
    U v[V];
#pragma unroll
    for (int k = 0; k < V; k++) v[k] = (U)(low + c[k]);
    store_block<U, V>(out, j, n, v);
  }
  eng.finish(rng, tid);
}

template <class Eng>
__global__ void __launch_bounds__(ND_K_THREADS)
    k_bernoulli(nd_krng rng, uint8_t *__restrict__ out, int64_t n, double p) {
  const int64_t nblk = (n + 1) / 2;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (tid >= nblk) return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  Eng eng(rng, tid);
  for (int64_t j = tid; j < nblk; j += step) {
    eng.begin(j);
    const uint4 w = eng.next4();
    uint8_t v[2] = {(uint8_t)(nd__unit_f64(w.x, w.y) < p), (uint8_t)(nd__unit_f64(w.z, w.w) < p)};
    store_block<uint8_t, 2>(out, j, n, v);
  }
  eng.finish(rng, tid);
}

template <class Eng, class T, int KIND>
void launch_transform(const nd_krng *rng, T *out, int64_t n, T a, T b, cudaStream_t st) {
  const int64_t nblk = (n + 16 / (int64_t)sizeof(T) - 1) / (16 / (int64_t)sizeof(T));
  nd_k_launch<k_transform<Eng, T, KIND>>(nd_kr_grid<Eng, k_transform<Eng, T, KIND> >(nblk), ND_K_THREADS, 0, st, *rng, out, n, a, b);
}

template <class Eng, class T>
void launch_real(const nd_krng *rng, const nd_krparams *p, T *out, int64_t n, cudaStream_t st) {
  const T a = (T)p->a, b = (T)p->b;
  switch (p->dist) {
    case ND_KR_UNIFORM: launch_transform<Eng, T, K_UNIFORM>(rng, out, n, a, b, st); break;
    case ND_KR_NORMAL:
      if constexpr (sizeof(T) == 4) {
        if (p->a == 0.0 && p->b == 1.0) {
          launch_transform<Eng, T, K_STD_NORMAL>(rng, out, n, a, b, st);
          break;
        }
      }
      launch_transform<Eng, T, K_NORMAL>(rng, out, n, a, b, st);
      break;
    case ND_KR_LOGNORMAL: launch_transform<Eng, T, K_LOGNORMAL>(rng, out, n, a, b, st); break;
    default: launch_transform<Eng, T, K_EXPONENTIAL>(rng, out, n, a, b, st); break;
  }
}

template <class Eng, class U, bool WIDE>
void launch_int(const nd_krng *rng, const nd_krparams *p, void *out, int64_t n, cudaStream_t st) {
  const int64_t nblk = (int64_t)nd_kr_blocks(n, WIDE ? 2 : 4);
  nd_k_launch<k_integers<Eng, U, WIDE>>(nd_kr_grid<Eng, k_integers<Eng, U, WIDE> >(nblk), ND_K_THREADS, 0, st, *rng, (U *)out, n, p->low, p->range, p->threshold);
}

template <class Eng>
void launch_integers(const nd_krng *rng, const nd_krparams *p, void *out, int itemsize, int64_t n,
                     cudaStream_t st) {
  if (p->wide) {
    launch_int<Eng, uint64_t, true>(rng, p, out, n, st);
    return;
  }
  switch (itemsize) {
    case 1: launch_int<Eng, uint8_t, false>(rng, p, out, n, st); break;
    case 2: launch_int<Eng, uint16_t, false>(rng, p, out, n, st); break;
    case 4: launch_int<Eng, uint32_t, false>(rng, p, out, n, st); break;
    default: launch_int<Eng, uint64_t, false>(rng, p, out, n, st); break;
  }
}

template <class Eng>
void launch_bernoulli(const nd_krng *rng, const nd_krparams *p, void *out, int64_t n,
                      cudaStream_t st) {
  nd_k_launch<k_bernoulli<Eng>>(nd_kr_grid<Eng, k_bernoulli<Eng> >((int64_t)nd_kr_blocks(n, 2)), ND_K_THREADS, 0, st, *rng, (uint8_t *)out, n, p->a);
}

const int nd_kr_itemsize[14] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 8, 16};

}  // namespace

extern "C" nd_status nd_kr_fill(const nd_krng *rng, const nd_krparams *p, void *out, int dtype,
                                int64_t n, void *stream) {
  if (n <= 0) return ND_OK;
  if (dtype < 0 || dtype >= 14)
    return nd__error(ND_ERR_INTERNAL, "nd_kr_fill: dtype %d", dtype);
  cudaStream_t st = (cudaStream_t)stream;
  switch (p->dist) {
    case ND_KR_UNIFORM:
    case ND_KR_NORMAL:
    case ND_KR_LOGNORMAL:
    case ND_KR_EXPONENTIAL:
      if (dtype == ND_FLOAT32) {
        ND_KR_DISPATCH(rng, (launch_real<Eng, float>(rng, p, (float *)out, n, st)));
      } else if (dtype == ND_FLOAT64) {
        ND_KR_DISPATCH(rng, (launch_real<Eng, double>(rng, p, (double *)out, n, st)));
      } else {
        return nd__error(ND_ERR_INTERNAL, "nd_kr_fill: distribution %d with dtype %d", p->dist, dtype);
      }
      break;
    case ND_KR_INTEGERS:
      ND_KR_DISPATCH(rng, (launch_integers<Eng>(rng, p, out, nd_kr_itemsize[dtype], n, st)));
      break;
    case ND_KR_BERNOULLI:
      ND_KR_DISPATCH(rng, (launch_bernoulli<Eng>(rng, p, out, n, st)));
      break;
    default:
      return nd_kr_fill_elem(rng, p, out, dtype, n, stream);
  }
  return ND_K_LAUNCHED();
}
