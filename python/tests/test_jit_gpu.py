"""GPU tests of user kernels compiled at run time (RawModule, RawKernel, ElementwiseKernel,
ReductionKernel): every result is compared with NumPy. Skipped without a device (see
conftest.py)."""

import io

import numpy as np
import pytest

import ndcuda as nd

pytestmark = pytest.mark.gpu

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''

MATMUL = r'''
#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N,
                                  int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x;
    int br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < K && col < N) ? B[br * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
'''

TEMPLATES = r'''
template <typename T>
__global__ void fill(T *p, T v, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + (T)i;
}
'''

COOPERATIVE = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void reverse_after_sync(int *a, int *b, long long n) {
  cg::grid_group g = cg::this_grid();
  long long i = g.thread_rank();
  if (i < n) a[i] = (int)i;
  g.sync();
  if (i < n) b[i] = a[n - 1 - i];
}
'''


def rng_array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return rng.integers(0, 50, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


# ---- RawKernel -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_saxpy(n):
    k = nd.RawKernel(SAXPY, "saxpy")
    hx, hy = rng_array(n, "float32", 1), rng_array(n, "float32", 2)
    x, y = nd.asarray(hx), nd.asarray(hy)
    k(((n + 255) // 256,), (256,), (np.float32(2.5), nd.In(x), y, n))
    # The device may contract a * x + y into one FMA (one rounding) or round twice, so the
    # reference is the exact value in float64 and each element may be off by half an ulp of
    # a * x plus half an ulp of the result: at most eps32 * (|a x| + |y|). A relative
    # tolerance on the result fails where a * x and y nearly cancel.
    got = nd.asnumpy(y).astype(np.float64)
    ax = 2.5 * hx.astype(np.float64)
    exact = ax + hy.astype(np.float64)
    bound = np.finfo(np.float32).eps * (np.abs(ax) + np.abs(hy.astype(np.float64)))
    bad = np.flatnonzero(np.abs(got - exact) > bound)
    assert bad.size == 0, (int(bad[0]), got[bad[0]], exact[bad[0]], bound[bad[0]])
    np.testing.assert_array_equal(nd.asnumpy(x), hx)  # read-only argument untouched


def test_saxpy_on_a_stream_and_list_args():
    k = nd.RawKernel(SAXPY, "saxpy")
    hx = rng_array(300, "float32")
    x, y = nd.asarray(hx), nd.zeros(300, dtype="float32")
    s = nd.Stream()
    k(2, 256, [np.float32(1.0), nd.In(x), nd.InOut(y), 300], stream=s)
    s.synchronize()
    np.testing.assert_array_equal(nd.asnumpy(y), hx)


@pytest.mark.parametrize("m,n,kk", [(16, 16, 16), (33, 17, 45), (1, 70, 3)])
def test_tiled_matmul(m, n, kk):
    k = nd.RawKernel(MATMUL, "matmul")
    ha, hb = rng_array((m, kk), "float32", 3), rng_array((kk, n), "float32", 4)
    a, b = nd.asarray(ha), nd.asarray(hb)
    c = nd.empty((m, n), dtype="float32")
    k(((n + 15) // 16, (m + 15) // 16), (16, 16),
      (nd.In(a), nd.In(b), nd.Out(c), np.int32(m), np.int32(n), np.int32(kk)))
    np.testing.assert_allclose(nd.asnumpy(c), ha @ hb, rtol=1e-4, atol=1e-4)


def test_kernel_attributes():
    k = nd.RawKernel(MATMUL, "matmul")
    assert k.num_regs > 0
    assert k.shared_size_bytes == 2 * 16 * 16 * 4
    assert k.max_threads_per_block >= 256
    attrs = k.attributes
    assert attrs["num_regs"] == k.num_regs
    assert attrs["cooperative"] is False
    assert k.max_active_blocks(256) >= 1
    log = io.StringIO()
    k.compile(log_stream=log)
    assert isinstance(log.getvalue(), str)


def test_bad_launches():
    k = nd.RawKernel(SAXPY, "saxpy")
    x, y = nd.zeros(4, dtype="float32"), nd.zeros(4, dtype="float32")
    # Argument count and sizes are checked where the driver reports a kernel's parameters.
    with pytest.raises(nd.Error):  # too few arguments
        k((1,), (4,), (np.float32(1), nd.In(x), y))
    with pytest.raises(nd.Error):  # a float64 where the kernel takes a float
        k((1,), (4,), (1.0, nd.In(x), y, 4))
    np.testing.assert_array_equal(nd.asnumpy(y), np.zeros(4, np.float32))
    with pytest.raises(ValueError):  # more threads than a block may have
        k((1,), (4096,), (np.float32(1), nd.In(x), y, 4))
    with pytest.raises(ValueError):  # no blocks
        k((0,), (4,), (np.float32(1), nd.In(x), y, 4))
    with pytest.raises(ValueError):  # more shared memory than a block may have
        k((1,), (4,), (np.float32(1), nd.In(x), y, 4), shared_mem=1 << 30)
    with pytest.raises(TypeError):  # a host array
        k((1,), (4,), (np.float32(1), np.zeros(4, np.float32), y, 4))
    np.testing.assert_array_equal(nd.asnumpy(y), np.zeros(4, np.float32))


def test_unknown_kernel_and_compile_error():
    m = nd.RawModule(code=SAXPY)
    with pytest.raises(ValueError, match="nosuch"):
        m.get_function("nosuch")
    bad = nd.RawModule(code='extern "C" __global__ void f() { this is not C++; }')
    with pytest.raises(nd.CUDARuntimeError):
        bad.get_function("f")
    assert nd.get_last_compile_log() != ""


def test_name_expressions():
    m = nd.RawModule(code=TEMPLATES, name_expressions=["fill<float>", "fill<double>"])
    for dt, expr in ((np.float32, "fill<float>"), (np.float64, "fill<double>")):
        f = m.get_function(expr)
        p = nd.empty(100, dtype=dt)
        f((1,), (128,), (nd.Out(p), dt(0.5), 100))
        np.testing.assert_array_equal(nd.asnumpy(p), dt(0.5) + np.arange(100, dtype=dt))


def test_cooperative_launch():
    m = nd.RawModule(code=COOPERATIVE, enable_cooperative_groups=True)
    k = m.get_function("reverse_after_sync")
    assert k.attributes["cooperative"] is True
    n = 512
    a, b = nd.empty(n, dtype="int32"), nd.empty(n, dtype="int32")
    k((4,), (128,), (a, nd.Out(b), n))
    np.testing.assert_array_equal(nd.asnumpy(b), np.arange(n, dtype=np.int32)[::-1])
    with pytest.raises(ValueError):  # a grid that cannot be resident at once
        k((1 << 20,), (128,), (a, nd.Out(b), n))


def test_kernel_cache_counts_compiles():
    before = nd.get_kernel_cache_stats()
    nd.RawKernel(SAXPY + "\n// variant for the cache test\n", "saxpy").compile()
    after = nd.get_kernel_cache_stats()
    assert after["misses"] + after["memory_hits"] > before["misses"] + before["memory_hits"]


# ---- ElementwiseKernel -----------------------------------------------------------------------

ADD = nd.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_test")


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint64", "float16",
                                   "float32", "float64", "complex64", "complex128"])
def test_elementwise_add_dtypes(dtype):
    hx, hy = rng_array((7, 9), dtype, 1), rng_array((7, 9), dtype, 2)
    z = ADD(nd.asarray(hx), nd.asarray(hy))
    assert z.dtype == np.dtype(dtype)
    np.testing.assert_allclose(nd.asnumpy(z), hx + hy, rtol=1e-3 if dtype == "float16" else 1e-7)


def test_elementwise_broadcast_and_layouts():
    hx, hy = rng_array((4, 1), "float64", 1), rng_array((1, 5), "float64", 2)
    z = ADD(nd.asarray(hx), nd.asarray(hy))
    assert z.shape == (4, 5)
    np.testing.assert_allclose(nd.asnumpy(z), hx + hy)
    h = rng_array((6, 8), "float32", 3)
    d = nd.asarray(h)
    # A transposed view with negative strides plus an offset view with negative strides.
    np.testing.assert_allclose(nd.asnumpy(ADD(d[::-1, ::2].T, d[:4, 7:1:-1])),
                               h[::-1, ::2].T + h[:4, 7:1:-1])
    zero = nd.zeros((0, 3), dtype="float32")
    assert ADD(zero, zero).shape == (0, 3)


def test_elementwise_scalars_and_outputs():
    hx = rng_array(10, "float32")
    x = nd.asarray(hx)
    z = ADD(x, 2.0)  # a weak Python float takes the array's dtype
    assert z.dtype == np.float32
    np.testing.assert_allclose(nd.asnumpy(z), hx + np.float32(2.0))
    out = nd.empty(10, dtype="float32")
    r = ADD(x, x, out)
    assert r is out
    np.testing.assert_allclose(nd.asnumpy(out), hx + hx)
    with pytest.raises(TypeError):  # T bound to two dtypes
        ADD(x, nd.asarray(hx.astype(np.float64)))
    with pytest.raises(ValueError):  # shapes that do not broadcast
        ADD(x, nd.zeros(3, dtype="float32"))
    with pytest.raises(ValueError):  # out of the wrong shape
        ADD(x, x, nd.empty(3, dtype="float32"))


def test_elementwise_two_outputs_fixed_types_and_index():
    k = nd.ElementwiseKernel("T x", "float64 half, int64 idx", "half = x / 2.0; idx = i",
                             "two_out")
    h = rng_array(12, "int32")
    half, idx = k(nd.asarray(h))
    np.testing.assert_allclose(nd.asnumpy(half), h / 2.0)
    np.testing.assert_array_equal(nd.asnumpy(idx), np.arange(12))
    assert nd.ElementwiseKernel("T x", "T y", "y = x", "copy_t", return_tuple=True)(
        nd.asarray(h))[0].shape == (12,)


def test_elementwise_raw_parameter():
    k = nd.ElementwiseKernel("raw T x, int64 n", "T y", "y = x[n - 1 - i]", "reverse")
    h = rng_array(33, "float32")
    y = nd.empty(33, dtype="float32")
    k(nd.asarray(h), 33, y)
    np.testing.assert_array_equal(nd.asnumpy(y), h[::-1])


# ---- ReductionKernel -------------------------------------------------------------------------

SSQ = nd.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_sum_of_squares(axis, keepdims, dtype):
    h = rng_array((3, 4, 5), dtype)
    r = SSQ(nd.asarray(h), axis=axis, keepdims=keepdims)
    want = np.sum(h * h, axis=axis, keepdims=keepdims, dtype=h.dtype)
    assert r.shape == want.shape
    assert r.dtype == want.dtype
    np.testing.assert_allclose(nd.asnumpy(r), want, rtol=1e-5)


def test_reduction_layouts_out_and_errors():
    h = rng_array((6, 7), "float64")
    d = nd.asarray(h)
    np.testing.assert_allclose(nd.asnumpy(SSQ(d[::-1, 1::2].T, axis=1)),
                               np.sum(h[::-1, 1::2].T ** 2, axis=1))
    out = nd.empty(7, dtype="float64")
    assert SSQ(d, axis=0, out=out) is out
    np.testing.assert_allclose(nd.asnumpy(out), np.sum(h * h, axis=0))
    assert float(nd.asnumpy(SSQ(nd.zeros((0,), dtype="float64")))) == 0.0
    nrm = nd.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")
    np.testing.assert_allclose(float(nd.asnumpy(nrm(d))), np.linalg.norm(h))
    no_identity = nd.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None, "mx")
    np.testing.assert_allclose(nd.asnumpy(no_identity(d, axis=1)), h.max(axis=1))
    with pytest.raises(ValueError):  # empty reduction without an identity
        no_identity(nd.zeros((0,), dtype="float64"))
    with pytest.raises(nd.AxisError):
        SSQ(d, axis=2)
    with pytest.raises(nd.AxisError):
        SSQ(d, axis=(0, 0))
