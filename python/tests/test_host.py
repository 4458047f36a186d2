"""Host-only tests: they need no GPU and run in CI.

They cover what the package decides by itself or asks the C library's pure host code:
import without a device, dtype mapping, NumPy 2 promotion, error mapping, argument parsing,
and that calls needing a device fail with a clear ndcuda error instead of crashing."""

import pickle
import threading
import warnings

import numpy as np
import pytest

import ndcuda
from ndcuda import _core

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")]
NO_GPU = not ndcuda.is_available()


def test_import_and_version():
    assert ndcuda.__version__.count(".") == 2
    assert ndcuda.library_version() if hasattr(ndcuda, "library_version") else True
    assert isinstance(ndcuda.get_device_count(), int)


# ---- dtypes ----------------------------------------------------------------------------------

def test_dtype_numbers_round_trip():
    for i, dt in enumerate(DTYPES):
        assert _core.dtype_to_nd(dt) == i
        assert _core.dtype_from_nd(i) == dt
        assert _core.dtype_to_nd(dt.type) == i
        assert _core.dtype_to_nd(dt.name) == i
        assert _core.dtype_to_nd(dt.str) == i


def test_dtype_python_types_and_byte_order():
    assert _core.dtype_to_nd(bool) == 0
    assert _core.dtype_from_nd(_core.dtype_to_nd(int)) == np.dtype(int)
    assert _core.dtype_from_nd(_core.dtype_to_nd(float)) == np.float64
    assert _core.dtype_from_nd(_core.dtype_to_nd(complex)) == np.complex128
    assert _core.dtype_from_nd(_core.dtype_to_nd(">f4")) == np.float32
    assert _core.dtype_from_nd(_core.dtype_to_nd(None)) == np.float64


@pytest.mark.parametrize("bad", [object, "U3", "S2", "datetime64[s]", np.longdouble,
                                 "V8", [("a", "f4")]])
def test_unsupported_dtypes_raise_type_error(bad):
    if np.dtype(bad) in DTYPES:
        pytest.skip("longdouble is float64 on this platform")
    with pytest.raises(TypeError, match="ndcuda does not support dtype"):
        _core.dtype_to_nd(bad)
    with pytest.raises(TypeError):
        ndcuda.zeros(3, dtype=bad)


def test_dtype_from_nd_rejects_other_numbers():
    with pytest.raises(ValueError):
        _core.dtype_from_nd(14)
    with pytest.raises(ValueError):
        _core.dtype_from_nd(-1)


@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_matches_numpy(a):
    for b in DTYPES:
        assert ndcuda.promote_types(a, b) == np.promote_types(a, b), (a, b)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast_matches_numpy(casting):
    for a in DTYPES:
        for b in DTYPES:
            assert ndcuda.can_cast(a, b, casting) == np.can_cast(a, b, casting), (a, b)


def test_can_cast_refuses_python_scalars_and_bad_rule():
    with pytest.raises(TypeError):
        ndcuda.can_cast(1, np.int8)
    with pytest.raises(ValueError, match="casting must be one of"):
        ndcuda.can_cast(np.int8, np.int16, "sometimes")


@pytest.mark.parametrize("dt", DTYPES)
def test_result_type_with_weak_scalars_matches_numpy(dt):
    # NEP 50: Python scalars are weak, NumPy scalars and dtypes are strong.
    for scalar in (1, 1.5, 1j, True):
        assert ndcuda.result_type(dt, scalar) == np.result_type(dt, scalar), (dt, scalar)
    for other in DTYPES:
        assert ndcuda.result_type(dt, other) == np.result_type(dt, other)
    assert ndcuda.result_type(dt, np.float32(1)) == np.result_type(dt, np.float32(1))


def test_result_type_all_weak_gives_defaults():
    assert ndcuda.result_type(1, 2) == np.int64
    assert ndcuda.result_type(1, 2.0) == np.float64
    assert ndcuda.result_type(1.0, 2j) == np.complex128
    with pytest.raises(ValueError):
        ndcuda.result_type()


# ---- the ufunc table -------------------------------------------------------------------------

NOT_UFUNCS_IN_NUMPY = {"real", "imag", "angle", "clip", "where"}


def test_every_c_ufunc_is_exported_under_numpy_name():
    table = _core._UFUNCS
    assert len(table) >= 77
    for name, f in table.items():
        exported = getattr(ndcuda, name)
        if name in NOT_UFUNCS_IN_NUMPY:
            assert callable(exported)
            assert hasattr(np, name)
            continue
        assert exported is f
        assert isinstance(f, ndcuda.ufunc)
        npf = getattr(np, name)
        assert isinstance(npf, np.ufunc), name
        assert f.nin == npf.nin, name
        assert f.__name__ == name


def _numpy_loop_dtype(npf, dts):
    try:
        return npf.resolve_dtypes(tuple(dts) + (None,))[-1]
    except (TypeError, np.exceptions.DTypePromotionError):
        return None


@pytest.mark.parametrize("name", sorted(set(_core._UFUNCS) - NOT_UFUNCS_IN_NUMPY))
def test_ufunc_result_dtypes_match_numpy(name):
    f = _core._UFUNCS[name]
    npf = getattr(np, name)
    combos = [(d,) for d in DTYPES] if f.nin == 1 else \
        [(a, b) for a in DTYPES for b in DTYPES[::3]] + \
        [(a, w) for a in DTYPES for w in (int, float, complex)]
    checked = 0
    for dts in combos:
        want = _numpy_loop_dtype(npf, [d if isinstance(d, np.dtype) else d for d in dts])
        try:
            got = f.result_type(*dts)
        except TypeError:
            got = None
        if want is None:
            assert got is None, (name, dts, got)
            continue
        if got is None and name in ("sign",) and dts[0] == np.bool_:
            continue
        assert got == want, (name, dts, got, want)
        checked += 1
    assert checked > 0


def test_pow_operator_dtype_matches_numpy_operator():
    # `a ** e` is NumPy's fast_scalar_power, not always power(a, e): an exact Python int 2 is
    # square for every dtype (bool ** 2 is int8 where power(bool, 2) is int64), 1 and 0.5 are
    # positive and sqrt for float and complex arrays. The dtype the operator gives is decided
    # on the host, so it is checked here against NumPy's operator over every dtype.
    exps = [2, 1, 0, 3, -1, 0.5, 2.0, 1.0, -1.0, True, False, 1j, np.int16(2), np.float32(0.5),
            np.float64(0.5), np.bool_(True), np.uint8(2)]
    checked = 0
    for dt in DTYPES:
        for e in exps:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    want = (np.ones(2, dt) ** e).dtype
                except (TypeError, ValueError, OverflowError):
                    continue  # integers to negative integer powers, -1 for an unsigned dtype
            assert _core._pow_operator_dtype(dt, e) == want, (dt, e)
            checked += 1
    assert checked > 150
    assert _core._pow_operator_dtype(np.bool_, 2) == np.int8
    assert _core._pow_operator_dtype(np.bool_, True) == np.int8
    assert _core._pow_operator_dtype(np.bool_, 3) == np.int64


def test_ufunc_call_argument_errors_need_no_device():
    with pytest.raises(TypeError, match="add\\(\\) takes from 2 to 3"):
        ndcuda.add(1)
    with pytest.raises(TypeError, match="takes from 1 to 2"):
        ndcuda.sqrt()
    assert repr(ndcuda.add) == "<ufunc 'add'>"
    assert ndcuda.add.nargs == 3 and ndcuda.add.nout == 1


# ---- errors ----------------------------------------------------------------------------------

EXPECTED = {
    "ERR_INVALID_ARGUMENT": ValueError, "ERR_SHAPE": ValueError, "ERR_DTYPE": TypeError,
    "ERR_AXIS": np.exceptions.AxisError, "ERR_INDEX": IndexError, "ERR_CASTING": TypeError,
    "ERR_OUT_OF_MEMORY": MemoryError, "ERR_NO_DEVICE": RuntimeError,
    "ERR_READ_ONLY": ValueError, "ERR_CUDA": RuntimeError, "ERR_CUBLAS": RuntimeError,
    "ERR_CUSOLVER": RuntimeError, "ERR_SINGULAR": np.linalg.LinAlgError,
    "ERR_NOT_POSITIVE_DEFINITE": np.linalg.LinAlgError,
    "ERR_NOT_IMPLEMENTED": NotImplementedError, "ERR_VALUE": ValueError,
    "ERR_STREAM": RuntimeError, "ERR_IO": OSError, "ERR_INTERNAL": RuntimeError,
    "ERR_OVERFLOW": ValueError, "ERR_DEVICE_MISMATCH": ValueError,
    "ERR_COMPILE": RuntimeError, "ERR_UNSUPPORTED": NotImplementedError, "ERR_NCCL": RuntimeError,
}


def test_status_codes_come_from_the_library():
    codes = _core._status_codes()
    assert codes["OK"] == 0
    for name in EXPECTED:
        assert name in codes


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_status_maps_to_numpy_exception_type(name):
    code = _core._status_codes()[name]
    exc = _core._exception_for(code, f"nd_something: message for {name}")
    assert isinstance(exc, EXPECTED[name])
    assert isinstance(exc, ndcuda.Error)
    assert exc.status == name
    assert str(exc) == f"nd_something: message for {name}"


def test_special_exception_classes():
    codes = _core._status_codes()
    e = _core._exception_for(codes["ERR_OUT_OF_MEMORY"], "x")
    assert isinstance(e, ndcuda.OutOfMemoryError) and isinstance(e, MemoryError)
    e = _core._exception_for(codes["ERR_SINGULAR"], "x")
    assert isinstance(e, ndcuda.linalg.LinAlgError)
    assert issubclass(ndcuda.linalg.LinAlgError, np.linalg.LinAlgError)
    e = _core._exception_for(codes["ERR_NO_DEVICE"], "x")
    assert isinstance(e, ndcuda.NoDeviceError) and isinstance(e, ndcuda.CUDARuntimeError)
    e = _core._exception_for(codes["ERR_VALUE"], "nd_add: Python integer 300 out of bounds for uint8")
    assert isinstance(e, OverflowError) and isinstance(e, ndcuda.Error)
    e = _core._exception_for(codes["ERR_VALUE"], "nd_average: Weights sum to zero, can't be normalized")
    assert isinstance(e, ZeroDivisionError)
    e = _core._exception_for(codes["ERR_AXIS"], "axis 2 is out of bounds")
    assert isinstance(e, IndexError) and isinstance(e, ValueError)
    e = _core._exception_for(999, "later status")
    assert type(e) is ndcuda.Error


# ---- no device -------------------------------------------------------------------------------

@pytest.mark.skipif(not NO_GPU, reason="checks the behaviour without a GPU")
@pytest.mark.parametrize("call", [
    lambda: ndcuda.zeros(3),
    lambda: ndcuda.asarray([1, 2, 3]),
    lambda: ndcuda.arange(10),
    lambda: ndcuda.eye(3),
    lambda: ndcuda.Stream(),
    lambda: ndcuda.Stream(non_blocking=True, priority=-1),
    lambda: ndcuda.Stream.null.synchronize(),
    lambda: ndcuda.Event(),
    lambda: ndcuda.get_current_stream(),
    lambda: ndcuda.synchronize(),
    lambda: ndcuda.memory_stats(),
    lambda: ndcuda.random.default_rng(1).random(3),
    lambda: ndcuda.ndarray((2, 2)),
])
def test_calls_without_device_raise_no_device_error(call):
    with pytest.raises(ndcuda.NoDeviceError) as info:
        call()
    assert "device" in str(info.value).lower()
    assert ndcuda.get_device_count() == 0 and not ndcuda.is_available()


def test_argument_errors_come_before_device_use():
    with pytest.raises(ValueError, match="negative dimensions"):
        ndcuda.zeros(-1)
    with pytest.raises(ValueError, match="negative dimensions"):
        ndcuda.empty((2, -3))
    with pytest.raises(TypeError):
        ndcuda.zeros((2, "a"))
    with pytest.raises(TypeError):
        ndcuda.zeros(2.5)
    with pytest.raises(ValueError, match="maximum supported dimension"):
        ndcuda.zeros((1,) * 33)
    with pytest.raises(ValueError, match="order must be one of"):
        ndcuda.empty(3, order="Z")


def test_sort_kind_checked_as_numpy_before_device_use():
    # NumPy reads the first letter of a sort kind and refuses the rest; partitions take only
    # "introselect". The checks come before the input is looked at, so a list needs no device.
    a = np.arange(3.0)
    for fn in (ndcuda.sort, ndcuda.argsort):
        for kind in ("bogus", "", 5, "z"):
            want = _numpy_error(lambda: getattr(np, fn.__name__)(a, kind=kind))
            with pytest.raises(type(want)) as info:
                fn([3.0, 1.0], kind=kind)
            assert str(info.value) == str(want)
        with pytest.raises(ValueError, match="can't be provided at the same time"):
            fn([3.0, 1.0], kind="stable", stable=True)
        with pytest.raises(ValueError, match="order"):
            fn([3.0, 1.0], order="x")
    for fn in (ndcuda.partition, ndcuda.argpartition):
        for kind in ("bogus", None):
            want = _numpy_error(lambda: getattr(np, fn.__name__)(a, 1, kind=kind))
            with pytest.raises(type(want)) as info:
                fn([3.0, 1.0], 1, kind=kind)
            assert str(info.value) == str(want)


def _numpy_error(call):
    try:
        call()
    except Exception as e:  # the exception NumPy raises, to compare with ndcuda's
        return e
    raise AssertionError("NumPy accepted the call")


def test_broadcast_shapes_is_host_code():
    assert ndcuda.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
    assert ndcuda.broadcast_shapes((5,), ()) == (5,)
    assert ndcuda.broadcast_shapes() == ()
    with pytest.raises(ValueError, match="shape mismatch"):
        ndcuda.broadcast_shapes((3, 4), (5,))


# ---- random: Philox needs no device for seeding or parameter checks -----------------------

def test_generator_seeding():
    assert ndcuda.random.default_rng(5).seed == 5
    assert ndcuda.random.default_rng(2**64 - 1).seed == 2**64 - 1
    ss = np.random.SeedSequence(1234)
    want = int(np.random.SeedSequence(1234).generate_state(1, np.uint64)[0])
    assert ndcuda.random.default_rng(ss).seed == want
    assert ndcuda.random.default_rng([1, 2, 3]).seed == \
        int(np.random.SeedSequence([1, 2, 3]).generate_state(1, np.uint64)[0])
    a, b = ndcuda.random.default_rng(), ndcuda.random.default_rng()
    assert a.seed != b.seed
    g = ndcuda.random.default_rng(7)
    assert ndcuda.random.default_rng(g) is g
    with pytest.raises(ValueError):
        ndcuda.random.default_rng(-1)
    with pytest.raises(ValueError, match="bitgen"):
        ndcuda.random.Generator(1, bitgen="mt19937")


def test_generator_parameter_errors_need_no_device():
    g = ndcuda.random.default_rng(1)
    with pytest.raises(ValueError, match="scale"):
        g.normal(0.0, -1.0, size=3)
    with pytest.raises(ValueError):
        g.uniform(2.0, 1.0, size=3)
    with pytest.raises(ValueError):
        g.binomial(5, 1.5, size=3)
    with pytest.raises(NotImplementedError, match="array-valued"):
        g.normal([0.0, 1.0])
    with pytest.raises(TypeError):
        g.integers(0.5, 3)
    assert g.offset == 0      # nothing was drawn


# ---- settings ------------------------------------------------------------------------------

def test_linalg_checked_mode_is_per_thread():
    prev = ndcuda.linalg.set_checked(False)
    assert prev is True
    assert ndcuda.linalg.get_checked() is False
    seen = []
    t = threading.Thread(target=lambda: seen.append(ndcuda.linalg.get_checked()))
    t.start()
    t.join()
    assert seen == [True]
    ndcuda.linalg.set_checked(True)
    assert ndcuda.linalg.get_checked() is True


def test_flags_object():
    f = ndcuda.Flags(1 | 4)
    assert f.c_contiguous and f["C_CONTIGUOUS"] and f["W"] and not f.f_contiguous
    with pytest.raises(KeyError):
        f["NOPE"]


def test_stream_objects_need_no_device_until_used():
    s = ndcuda.Stream.null
    assert s is ndcuda.Stream.null
    assert ndcuda.Stream.ptds is not s
    with pytest.raises(TypeError, match="CUDA stream"):
        ndcuda.Stream.from_external("not a stream")


def test_namespace():
    assert ndcuda.float32 is np.float32
    assert ndcuda.pi == np.pi and ndcuda.newaxis is None
    for name in ("sum", "mean", "sort", "unique", "matmul", "einsum", "concatenate", "where",
                 "from_dlpack", "asnumpy", "linalg", "random"):
        assert hasattr(ndcuda, name), name
    for name in ("inv", "solve", "det", "slogdet", "cholesky", "qr", "svd", "eigh", "norm",
                 "pinv", "lstsq", "matrix_rank", "matrix_power", "cond", "LinAlgError",
                 "cross", "diagonal", "trace", "vector_norm", "matrix_norm", "svdvals"):
        assert hasattr(ndcuda.linalg, name), name
    for name in ("default_rng", "Generator", "seed", "rand", "randn"):
        assert hasattr(ndcuda.random, name), name
    for meth in ("random", "uniform", "normal", "standard_normal", "integers", "choice",
                 "permutation", "shuffle", "exponential", "gamma", "beta", "poisson",
                 "binomial", "lognormal", "chisquare", "standard_gamma"):
        assert hasattr(ndcuda.random.Generator, meth), meth



def test_array_namespace_info():
    info = ndcuda.__array_namespace_info__()
    assert info.capabilities()["max dimensions"] == 32
    assert info.default_dtypes()["real floating"] == np.float64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}
    assert "bool" in info.dtypes() and "complex128" in info.dtypes()
    assert info.devices() == () if NO_GPU else len(info.devices()) >= 1


def test_array_api_dtype_helpers():
    assert ndcuda.isdtype(np.int8, "signed integer")
    assert ndcuda.isdtype(np.uint16, ("bool", "integral"))
    assert not ndcuda.isdtype(np.float32, "integral")
    assert ndcuda.isdtype(np.complex64, "numeric") and ndcuda.isdtype(np.bool_, np.bool_)
    with pytest.raises(ValueError):
        ndcuda.isdtype(np.int8, "whole numbers")
    f = ndcuda.finfo(np.float32)
    assert type(f.eps) is float and f.eps == float(np.finfo(np.float32).eps)
    assert f.bits == 32 and f.dtype == np.float32 and type(f.smallest_normal) is float
    assert ndcuda.finfo(np.complex64).dtype == np.float32
    i = ndcuda.iinfo(np.uint8)
    assert (i.min, i.max, i.bits) == (0, 255, 8) and type(i.max) is int


def test_device_argument_is_checked_before_device_use():
    with pytest.raises(ValueError, match="unsupported device"):
        ndcuda.zeros(3, device="cpu")
    with pytest.raises(ValueError, match="unsupported device"):
        ndcuda.asarray([1], device="cpu")
    with pytest.raises(ValueError, match="unsupported device"):
        ndcuda.arange(3, device="cpu")


def test_an_ndarray_made_without_init_does_not_crash():
    a = ndcuda.ndarray.__new__(ndcuda.ndarray)
    assert a.shape == () and a.size == 0
    with pytest.raises(TypeError):
        len(a)
    with pytest.raises(TypeError):
        iter(a)
    with pytest.raises(ValueError, match="NULL"):
        a + 1
    with pytest.raises(ValueError, match="NULL"):
        a.get()



def test_none_and_foreign_objects_are_refused_without_crashing():
    with pytest.raises(TypeError):
        ndcuda.get_elapsed_time(None, None)
    with pytest.raises(TypeError):
        ndcuda.Stream.null.wait_event(None)
    with pytest.raises(TypeError):
        ndcuda.Stream.from_external(None)
    with pytest.raises(TypeError):
        ndcuda.from_dlpack(object())
    with pytest.raises(TypeError):
        ndcuda.from_dlpack(None)
    with pytest.raises(TypeError):
        ndcuda.asarray(None)
    with pytest.raises(TypeError):
        ndcuda.sum(None)
    with pytest.raises(TypeError):
        ndcuda.add(None, 1)
    with pytest.raises(TypeError):
        ndcuda.linalg.inv("matrix")


def test_eye_diagonal_offsets_are_clamped_to_the_matrix():
    # eye's k reaches the C call as int64: offsets past the matrix select nothing either way.
    assert _core._clamp_diagonal(2 ** 63, 0, None) == 1
    assert _core._clamp_diagonal(-(2 ** 70), 3, 4) == -4
    assert _core._clamp_diagonal(2, 3, 4) == 2
    assert _core._clamp_diagonal(-2, 3, None) == -2
    with pytest.raises(TypeError):
        _core._clamp_diagonal(1.5, 3, 4)


def test_device_selection_refuses_devices_that_do_not_exist():
    # ndcuda.Device(i).use() and `with ndcuda.Device(i)` go through nd_device_set/push: a number
    # past the machine's devices is refused with the C library's message, on any machine.
    with pytest.raises(ndcuda.Error, match="nd_device_set"):
        ndcuda.Device(64).use()
    with pytest.raises(ndcuda.Error, match="nd_device_push"):
        with ndcuda.Device(64):
            pass
    with pytest.raises(ndcuda.Error, match="nd_device_synchronize"):
        ndcuda.Device(64).synchronize()
