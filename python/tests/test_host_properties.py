"""Host-only property tests (hypothesis): NumPy 2 promotion and broadcasting through the C
library's pure host code, against NumPy. Skipped where hypothesis is not installed."""

import numpy as np
import pytest

import ndcuda

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")]

_operand = st.one_of(st.sampled_from(DTYPES), st.sampled_from([1, 2.5, 1j, True]),
                     st.sampled_from(DTYPES).map(lambda d: d.type(1)))


@settings(max_examples=300, deadline=None)
@given(st.lists(_operand, min_size=1, max_size=5))
def test_result_type_matches_numpy_for_any_mix(ops):
    try:
        want = np.result_type(*ops)
    except TypeError:
        with pytest.raises(TypeError):
            ndcuda.result_type(*ops)
        return
    assert ndcuda.result_type(*ops) == want, ops


_shape = st.lists(st.integers(0, 4), min_size=0, max_size=5).map(tuple)


@settings(max_examples=300, deadline=None)
@given(st.lists(_shape, min_size=0, max_size=4))
def test_broadcast_shapes_matches_numpy(shapes):
    try:
        want = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError):
            ndcuda.broadcast_shapes(*shapes)
        return
    assert ndcuda.broadcast_shapes(*shapes) == want
