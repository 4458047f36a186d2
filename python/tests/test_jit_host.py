"""Host-only tests of the run-time compilation wrappers: they need no GPU.

Constructing a kernel never compiles (RawModule and RawKernel compile at their first use,
generated kernels per dtype combination at their first call), so argument checking and the C
library's parsing of parameter lists run here."""

import io

import numpy as np
import pytest

import ndcuda
from ndcuda import _core

NO_GPU = not ndcuda.is_available()

SRC = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''

NAMES = ["RawModule", "RawKernel", "In", "Out", "InOut", "ElementwiseKernel",
         "ReductionKernel", "get_last_compile_log", "get_kernel_cache_stats",
         "clear_kernel_cache", "prune_kernel_cache"]


@pytest.mark.parametrize("name", NAMES)
def test_exported(name):
    assert getattr(ndcuda, name) is getattr(_core, name)


# ---- RawModule / RawKernel -------------------------------------------------------------------

def test_raw_module_keeps_arguments():
    m = ndcuda.RawModule(code=SRC, options=("-use_fast_math",), name_expressions=["f<int>"])
    assert m.code == SRC
    assert m.options == ("-use_fast_math",)
    assert m.name_expressions == ("f<int>",)
    assert m.enable_cooperative_groups is False
    m = ndcuda.RawModule(code=SRC, options="-G", enable_cooperative_groups=True)
    assert m.options == ("-G",)
    assert m.enable_cooperative_groups is True


def test_raw_module_reads_path(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text(SRC)
    assert ndcuda.RawModule(path=str(p)).code == SRC


@pytest.mark.parametrize("kwargs,exc", [
    (dict(), TypeError),                                     # neither code nor path
    (dict(code=SRC, path="x.cu"), TypeError),                # both
    (dict(code=b"bytes"), TypeError),
    (dict(code=SRC, options=(1,)), TypeError),
    (dict(code=SRC, name_expressions="f<int>"), TypeError),  # a str, not a sequence
    (dict(code=SRC, name_expressions=[3]), TypeError),
    (dict(code=SRC, backend="nvcc"), NotImplementedError),
    (dict(code=SRC, translate_cucomplex=True), NotImplementedError),
    (dict(code=SRC, jitify=True), NotImplementedError),
    (dict(code=SRC, headers={"a.h": 1}), TypeError),
    (dict(code=SRC, name=5), TypeError),
])
def test_raw_module_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        ndcuda.RawModule(**kwargs)


def test_raw_module_missing_path(tmp_path):
    with pytest.raises(OSError):
        ndcuda.RawModule(path=str(tmp_path / "missing.cu"))


def test_raw_kernel_arguments():
    k = ndcuda.RawKernel(SRC, "saxpy", options=("-use_fast_math",))
    assert k.name == "saxpy"
    assert k.code == SRC
    assert k.options == ("-use_fast_math",)
    assert k.enable_cooperative_groups is False
    assert ndcuda.RawKernel(SRC, "saxpy", enable_cooperative_groups=True) \
        .enable_cooperative_groups is True
    with pytest.raises(TypeError):
        ndcuda.RawKernel(SRC, 3)
    with pytest.raises(ValueError):
        ndcuda.RawKernel(SRC, "")
    with pytest.raises(TypeError):
        ndcuda.RawKernel(SRC)
    with pytest.raises(NotImplementedError):
        ndcuda.RawKernel(SRC, "saxpy", backend="nvcc")


@pytest.mark.parametrize("grid,block,args,exc", [
    ((1,), (1,), [1], None),          # a list is accepted as args (checked further on)
    ((1,), (1,), 5, TypeError),       # args must be a tuple
    ("1", (1,), (), TypeError),
    ((1, 1, 1, 1), (1,), (), ValueError),
    ((), (1,), (), ValueError),
    ((-1,), (1,), (), ValueError),
    ((1,), (2 ** 32,), (), ValueError),
    ((1,), 1.5, (), TypeError),
])
def test_raw_kernel_launch_argument_checks(grid, block, args, exc):
    """Grid, block and args are checked before the kernel is compiled."""
    k = ndcuda.RawKernel(SRC, "saxpy")
    if exc is None:
        if not NO_GPU:
            pytest.skip("the launch itself is checked in test_jit_gpu.py")
        with pytest.raises(ndcuda.NoDeviceError):
            k(grid, block, args)
        return
    with pytest.raises(exc):
        k(grid, block, args)


def test_raw_kernel_bad_shared_mem():
    k = ndcuda.RawKernel(SRC, "saxpy")
    with pytest.raises(ValueError):
        k((1,), (1,), (), shared_mem=-1)
    with pytest.raises(TypeError):
        k((1,), (1,), (), shared_mem=1.5)
    with pytest.raises(TypeError):
        k((1,), (1,), (), stream="not a stream")


@pytest.mark.skipif(not NO_GPU, reason="checks the error without a device")
def test_raw_kernel_needs_device():
    k = ndcuda.RawKernel(SRC, "saxpy")
    for f in (lambda: k.num_regs, lambda: k.attributes, lambda: k.max_active_blocks(128),
              k.compile, lambda: ndcuda.RawModule(code=SRC).get_function("saxpy")):
        with pytest.raises(ndcuda.NoDeviceError) as e:
            f()
        assert "nd_module_create" in str(e.value)


def test_access_wrappers():
    for cls in (ndcuda.In, ndcuda.Out, ndcuda.InOut):
        with pytest.raises(TypeError):
            cls(np.zeros(3))
        with pytest.raises(TypeError):
            cls(None)


# ---- ElementwiseKernel ------------------------------------------------------------------------

def test_elementwise_kernel_parses():
    k = ndcuda.ElementwiseKernel("T x, float32 y, raw T table", "T z, int64 w",
                                 "z = x + y; w = i", "mixed")
    assert (k.nin, k.nout) == (3, 2)
    assert k.name == "mixed"
    assert k.in_params == "T x, float32 y, raw T table"
    assert ndcuda.ElementwiseKernel("T x", "T y", "y = x").name == "kernel"


@pytest.mark.parametrize("inp,outp,fragment", [
    ("T x, T", "T z", "input parameter ' T'"),
    ("T x, T x", "T z", "'x' is used twice"),
    ("T x", "T x", "'x' is used twice"),
    ("T x", "foo bar baz z", "output parameter 'foo bar baz z'"),
])
def test_elementwise_kernel_malformed(inp, outp, fragment):
    with pytest.raises(ValueError) as e:
        ndcuda.ElementwiseKernel(inp, outp, "z = x", "badk")
    assert isinstance(e.value, ndcuda.Error)
    msg = str(e.value)
    assert msg.startswith("nd_elementwise_kernel_create: kernel 'badk'")
    assert fragment in msg


def test_elementwise_kernel_bad_arguments():
    with pytest.raises(TypeError):
        ndcuda.ElementwiseKernel(None, "T z", "z = 1")
    with pytest.raises(NotImplementedError):
        ndcuda.ElementwiseKernel("T x", "T z", "z = x", loop_prep="int a = 0;")
    k = ndcuda.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add")
    with pytest.raises(TypeError, match="Wrong number of arguments for 'add'"):
        k(1)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        k(1, 2, 3, 4)
    with pytest.raises(TypeError, match="NumPy array"):
        k(np.zeros(3), 1.0)
    with pytest.raises(TypeError, match="unsupported type"):
        k("a", 1.0)
    with pytest.raises(OverflowError):
        k(2 ** 70, 1)
    with pytest.raises(NotImplementedError):
        k(1, 2, size=3)
    with pytest.raises(TypeError, match="output 0"):
        k(1.0, 2.0, np.zeros(3))


# ---- ReductionKernel --------------------------------------------------------------------------

def test_reduction_kernel_parses():
    k = ndcuda.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    assert k.nin == 1 and k.name == "ssq"
    k = ndcuda.ReductionKernel("T x, T w", "float64 y", "x * w", "a + b", None, 0,
                               reduce_type=np.float64)
    assert k.nin == 2 and k.name == "reduce_kernel"
    ndcuda.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", None)


@pytest.mark.parametrize("inp,outp,fragment", [
    ("T x", "T y, T w", "has 2 output parameters"),
    ("raw T x", "T y", "raw parameters are not supported"),
    ("T x, T", "T y", "input parameter ' T'"),
])
def test_reduction_kernel_malformed(inp, outp, fragment):
    with pytest.raises(ValueError) as e:
        ndcuda.ReductionKernel(inp, outp, "x", "a + b", "y = a", "0", "badr")
    msg = str(e.value)
    assert msg.startswith("nd_reduction_kernel_create: kernel 'badr'")
    assert fragment in msg


def test_reduction_kernel_bad_arguments():
    with pytest.raises(TypeError):
        ndcuda.ReductionKernel("T x", "T y", None, "a + b", "y = a", "0")
    with pytest.raises(TypeError):
        ndcuda.ReductionKernel("T x", "T y", "x", "a + b", "y = a", [0])
    k = ndcuda.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    with pytest.raises(TypeError, match="Wrong number of arguments for 'ssq'"):
        k()
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        k(1, 2, 3)
    with pytest.raises(TypeError, match="out must be"):
        k(1.0, out=np.zeros(()))
    with pytest.raises(TypeError, match="both positionally and by keyword"):
        k(1.0, np.zeros(()), out=np.zeros(()))
    with pytest.raises(TypeError):
        k(1.0, axis=1.5)


# ---- the kernel cache -------------------------------------------------------------------------

def test_kernel_cache_stats():
    s = ndcuda.get_kernel_cache_stats()
    for key in ("memory_hits", "disk_hits", "misses", "compiles", "failed_compiles",
                "corrupt_entries", "warnings", "bytes_written", "disk_bytes", "disk_entries",
                "memory_entries"):
        assert isinstance(s[key], int) and s[key] >= 0, key
    assert isinstance(s["compile_ms"], float)
    assert isinstance(s["last_warning"], str)
    with pytest.raises(ValueError):
        ndcuda.prune_kernel_cache(-1)


def test_last_compile_log_is_str():
    assert isinstance(ndcuda.get_last_compile_log(), str)


@pytest.mark.skipif(not NO_GPU, reason="checks the error without a device")
def test_compile_needs_device():
    log = io.StringIO()
    with pytest.raises(ndcuda.NoDeviceError):
        ndcuda.RawModule(code=SRC).compile(log)
    assert log.getvalue() == ""
