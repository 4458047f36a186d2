"""Zero-copy exchange with CuPy and PyTorch (both ways, DLPack and the CUDA array interface)
and the cross-stream guarantee across that boundary. GPU only; each library is skipped when
it is not installed."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ndcuda as nd

pytestmark = pytest.mark.gpu


def _torch():
    return pytest.importorskip("torch")


def _cupy():
    return pytest.importorskip("cupy")


def test_dlpack_capsules_are_consumed_once():
    a = nd.arange(6, dtype=np.float32).reshape(2, 3)
    cap = a.__dlpack__(max_version=(1, 0))
    b = nd.from_dlpack(cap)
    assert b.data_ptr == a.data_ptr and b.shape == (2, 3)
    with pytest.raises(ValueError, match="consumed"):
        nd.from_dlpack(cap)
    legacy = a.T.__dlpack__()
    c = nd.from_dlpack(legacy)
    assert c.strides == a.T.strides and c.data_ptr == a.data_ptr
    np.testing.assert_array_equal(c.get(), a.get().T)
    del a
    import gc
    gc.collect()
    np.testing.assert_array_equal(b.get(), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert nd.zeros(1).__dlpack_device__() == (2, nd.Device().id)


def test_cuda_array_interface_export():
    a = nd.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-1]
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<i2"
    assert cai["strides"] == a.strides and cai["data"][0] == a.data_ptr
    assert cai["stream"] == nd.get_current_stream().ptr
    b = nd.asarray(_CAI(cai, a))
    assert b.data_ptr == a.data_ptr
    np.testing.assert_array_equal(b.get(), a.get())


class _CAI:
    def __init__(self, cai, owner):
        self.__cuda_array_interface__ = cai
        self.owner = owner


def test_numpy_dlpack_producer_is_copied():
    h = np.arange(5.0)
    d = nd.from_dlpack(h)
    np.testing.assert_array_equal(d.get(), h)
    with pytest.raises(BufferError):
        nd.from_dlpack(h, copy=False)


@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "complex64", "float16", "uint8"])
def test_torch_round_trip_no_copy(dt):
    torch = _torch()
    a = nd.asarray(np.arange(24).reshape(4, 6).astype(dt))[1:, ::2]
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(t.cpu().numpy(), a.get())
    b = nd.from_dlpack(t)
    assert b.data_ptr == a.data_ptr
    tt = torch.arange(10, device="cuda", dtype=torch.float32)[::3]
    c = nd.asarray(tt)
    assert c.data_ptr == tt.data_ptr()
    np.testing.assert_array_equal(c.get(), tt.cpu().numpy())
    c[0] = 100          # shared memory: torch sees the write
    torch.cuda.synchronize()
    assert tt[0].item() == 100


def test_cupy_round_trip_no_copy():
    cp = _cupy()
    a = nd.asarray(np.arange(20, dtype=np.float64).reshape(4, 5)).T
    x = cp.asarray(a)            # through __cuda_array_interface__
    assert x.data.ptr == a.data_ptr
    np.testing.assert_array_equal(cp.asnumpy(x), a.get())
    y = cp.from_dlpack(a)
    assert y.data.ptr == a.data_ptr
    z = cp.arange(10, dtype=cp.int32)[::-2]
    b = nd.asarray(z)
    assert b.data_ptr == z.data.ptr
    np.testing.assert_array_equal(b.get(), cp.asnumpy(z))
    c = nd.from_dlpack(z)
    assert c.data_ptr == z.data.ptr
    s = cp.cuda.Stream(non_blocking=True)
    with nd.Stream.from_external(s):
        d = nd.arange(4) + 1
    s.synchronize()
    assert d.get().tolist() == [1, 2, 3, 4]


# The cross-stream programs run in a subprocess so that ND_AUTO_EVENTS=0 (read once by the
# library) can be set for the negative control.
CROSS_STREAM = textwrap.dedent("""
    import sys
    import numpy as np
    import ndcuda as nd
    import torch
    direction = sys.argv[1]
    n = 1 << 24
    big = nd.ones((2048, 2048), np.float32)
    tbig = torch.ones((2048, 2048), device="cuda")
    wrong = 0
    trials = 100
    # Every trial's arrays and streams live to the end: with ND_AUTO_EVENTS=0 (the negative
    # control) a buffer freed while the other library still reads it could be unmapped
    # under that read; the race to show is the stale read, not a fault.
    keep = []
    for trial in range(trials):
        if direction == "nd_to_torch":
            with nd.Stream(non_blocking=True):
                for _ in range(3):
                    big = (big @ big) * (1.0 / 2048)   # keeps the producer stream busy
                x = nd.full((n,), float(trial), np.float32)
            ts = torch.cuda.Stream()
            with torch.cuda.stream(ts):
                t = torch.from_dlpack(x)          # __dlpack__(stream=ts)
                got = float(t[-1000:].sum().item()) / 1000
        else:
            ts = torch.cuda.Stream()
            with torch.cuda.stream(ts):
                for _ in range(3):
                    tbig = (tbig @ tbig) * (1.0 / 2048)
                t = torch.full((n,), float(trial), device="cuda")
                with nd.Stream(non_blocking=True):
                    x = nd.from_dlpack(t)         # torch orders its stream before ours
                    got = float(x[-1000:].sum().item()) / 1000
        if got != float(trial):
            wrong += 1
        keep.append((x, t, ts))
    torch.cuda.synchronize()
    nd.synchronize()
    del keep
    print(f"{direction}: {wrong} wrong of {trials}")
""")


def _run_cross(direction, auto_events):
    env = dict(os.environ)
    if not auto_events:
        env["ND_AUTO_EVENTS"] = "0"
    r = subprocess.run([sys.executable, "-c", CROSS_STREAM, direction], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    line = r.stdout.strip().splitlines()[-1]
    print(line, "(ND_AUTO_EVENTS=0)" if not auto_events else "")
    return int(line.split(":")[1].split()[0])


@pytest.mark.parametrize("direction", ["nd_to_torch", "torch_to_nd"])
def test_cross_stream_dlpack_is_ordered(direction):
    _torch()
    assert _run_cross(direction, True) == 0


def test_cross_stream_negative_control():
    """Without the library's ordering the same program reads stale data: the test above can
    fail."""
    _torch()
    assert _run_cross("nd_to_torch", False) > 0
