"""Host-only tests of the public functions' signatures and of argument handling that needs no
device: inspect.signature must describe what the array API standard and NumPy document
(array-api-tests reads it), and wrong combinations of arguments fail before any device use.

The first tests spell the expected signatures out; the last one compares every function of the
standard with the specification's own stubs when the vendored array-api-tests checkout is
present (../shared/vendor/array-api-tests next to the repository)."""

import importlib
import inspect
import pathlib
import sys
from inspect import Parameter

import numpy as np
import pytest

import ndcuda

POS_ONLY = Parameter.POSITIONAL_ONLY
POS_OR_KW = Parameter.POSITIONAL_OR_KEYWORD
KW_ONLY = Parameter.KEYWORD_ONLY


def params(f):
    return inspect.signature(f).parameters


# name -> the array API's keyword arguments (keyword-only or positional-or-keyword both do).
REDUCTIONS = {
    "sum": ("axis", "dtype", "keepdims"),
    "prod": ("axis", "dtype", "keepdims"),
    "mean": ("axis", "keepdims"),
    "min": ("axis", "keepdims"),
    "max": ("axis", "keepdims"),
    "std": ("axis", "correction", "keepdims"),
    "var": ("axis", "correction", "keepdims"),
    "all": ("axis", "keepdims"),
    "any": ("axis", "keepdims"),
    "argmin": ("axis", "keepdims"),
    "argmax": ("axis", "keepdims"),
    "cumulative_sum": ("axis", "dtype", "include_initial"),
    "cumulative_prod": ("axis", "dtype", "include_initial"),
    "count_nonzero": ("axis", "keepdims"),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_have_inspectable_signatures(name):
    p = params(getattr(ndcuda, name))
    first = next(iter(p.values()))
    assert first.kind in (POS_ONLY, POS_OR_KW) and first.default is Parameter.empty
    for kw in REDUCTIONS[name]:
        assert kw in p, f"{name} lacks {kw}"
        assert p[kw].kind in (KW_ONLY, POS_OR_KW)
    assert not any(q.kind in (Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD)
                   for q in p.values())


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "nansum", "nanmean", "std", "var",
                                  "amin", "amax", "min", "max", "all", "any", "argmin",
                                  "argmax", "cumsum", "cumprod", "ptp", "median"])
def test_reductions_take_numpy_positional_arguments(name):
    """The positional order is NumPy's (a, axis, dtype, out, ...), so that code written for
    NumPy passes the same arguments to the same parameters."""
    def positional(f):
        return [q.name for q in inspect.signature(f).parameters.values()
                if q.kind in (POS_ONLY, POS_OR_KW)]
    assert positional(getattr(ndcuda, name)) == positional(getattr(np, name))


def test_clip_signature_is_the_array_apis():
    p = list(params(ndcuda.clip).values())
    assert p[0].kind == POS_ONLY
    assert (p[1].name, p[1].kind, p[1].default) == ("min", POS_OR_KW, None)
    assert (p[2].name, p[2].kind, p[2].default) == ("max", POS_OR_KW, None)
    assert params(ndcuda.clip)["a_min"].kind == KW_ONLY


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "eye", "identity", "tri"])
def test_creation_functions_default_dtype_is_inspectable(name):
    # dtype=None (float64) rather than dtype=float, whose default inspect cannot render.
    assert params(getattr(ndcuda, name))["dtype"].default is None


def test_linalg_signatures():
    assert params(ndcuda.linalg.matrix_rank)["rtol"].kind == KW_ONLY
    assert params(ndcuda.linalg.pinv)["rtol"].kind == KW_ONLY
    vn = params(ndcuda.linalg.vector_norm)
    assert [vn[k].kind for k in ("axis", "keepdims", "ord")] == [KW_ONLY] * 3


def test_argument_errors_need_no_device():
    x = np.ones(3)
    with pytest.raises(ValueError, match="correction"):
        ndcuda.std(x, ddof=1, correction=1)
    with pytest.raises(ValueError, match="correction"):
        ndcuda.var(x, ddof=1, correction=0.5)
    with pytest.raises(NotImplementedError, match="where"):
        ndcuda.sum(x, where=False)
    with pytest.raises(NotImplementedError, match="where"):
        ndcuda.all(x, where=np.False_)
    with pytest.raises(NotImplementedError, match="where"):
        ndcuda.mean(x, where=np.array([True, False, True]))
    with pytest.raises(NotImplementedError, match="initial"):
        ndcuda.max(x, None, None, False, 0.0)
    with pytest.raises(TypeError):
        ndcuda.max(x, dtype=np.float32)     # NumPy's amax has no dtype either
    with pytest.raises(TypeError):
        ndcuda.argmax(x, 0, None, True)     # keepdims is keyword-only, as in NumPy
    with pytest.raises(TypeError):
        ndcuda.cumulative_sum(x, 0)         # axis is keyword-only, as in NumPy 2
    with pytest.raises(ValueError, match="not both"):
        ndcuda.clip(x, 0, 1, a_min=0)
    with pytest.raises(ValueError, match="both"):
        ndcuda.linalg.matrix_rank(np.eye(2), 1e-3, rtol=1e-3)
    with pytest.raises(ValueError, match="shifts"):
        ndcuda.roll(x, (1, 2), axis=(0,))
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        ndcuda.linalg.norm(np.ones((2, 2)), axis=())    # as NumPy; not every axis
    with pytest.raises(TypeError, match="axis"):
        ndcuda.argmax(x, axis=())                       # one axis or None
    with pytest.raises(TypeError, match="axis"):
        ndcuda.cumulative_sum(x, axis=(0, 1))
    with pytest.raises(TypeError):
        ndcuda.sum(x, axis=0.5)
    with pytest.raises(TypeError):
        ndcuda.sum(x, axis=(0, "1"))


# ---- against the specification's stubs ---------------------------------------------------------

def _find_stubs():
    here = pathlib.Path(__file__).resolve()
    for up in here.parents:
        src = up / "shared" / "vendor" / "array-api-tests" / "array-api" / "src"
        if (src / "array_api_stubs" / "_2025_12").is_dir():
            return src
    return None


STUBS = _find_stubs()


def _stub_functions():
    if STUBS is None:
        return []
    sys.path.insert(0, str(STUBS))
    try:
        out = []
        folder = STUBS / "array_api_stubs" / "_2025_12"
        for path in sorted(folder.glob("*.py")):
            mod = path.stem
            if not (mod.endswith("_functions") or mod == "linalg"):
                continue
            m = importlib.import_module(f"array_api_stubs._2025_12.{mod}")
            for name in m.__all__:
                stub = getattr(m, name)
                if inspect.isfunction(stub):
                    out.append(pytest.param(mod, name, stub, id=f"{mod}.{name}"))
        return out
    finally:
        sys.path.remove(str(STUBS))


@pytest.mark.skipif(STUBS is None, reason="the vendored array-api-tests checkout is absent")
@pytest.mark.parametrize("module, name, stub", _stub_functions())
def test_signature_matches_the_specification(module, name, stub):
    """The rules of array-api-tests' test_signatures.py: every parameter the specification
    lists before its keyword-only ones is there, in order, with its name unless it is
    positional-only, and with its kind when it is positional-or-keyword; every keyword-only
    parameter is there by name, keyword-only or positional-or-keyword."""
    f = getattr(ndcuda.linalg if module == "linalg" else ndcuda, name)
    sig = inspect.signature(f)
    ours = list(sig.parameters.values())
    spec = list(inspect.signature(stub).parameters.values())
    lead = [q for q in spec if q.kind != KW_ONLY]
    for i, q in enumerate(lead):
        assert len(ours) > i, f"{name}: parameter {q.name} missing"
        if q.kind not in (POS_ONLY, Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD):
            assert ours[i].name == q.name, f"{name}: {ours[i].name} should be {q.name}"
        if q.kind in (POS_OR_KW, Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD):
            assert ours[i].kind == q.kind, f"{name}: {q.name} has the wrong kind"
    for q in spec[len(lead):]:
        assert q.name in sig.parameters, f"{name}: keyword {q.name} missing"
        assert sig.parameters[q.name].kind in (KW_ONLY, POS_OR_KW)


def test_array_api_version():
    assert ndcuda.__array_api_version__ == "2025.12"
    a = ndcuda.ndarray.__new__(ndcuda.ndarray)      # no device needed
    for v in (None, "2023.12", "2024.12", "2025.12"):
        assert a.__array_namespace__(api_version=v) is ndcuda
    with pytest.raises(ValueError, match="2099.12"):
        a.__array_namespace__(api_version="2099.12")


def test_ufunc_signatures():
    for f, nin in ((ndcuda.add, 2), (ndcuda.exp, 1), (ndcuda.pow, 2), (ndcuda.isnan, 1)):
        p = list(params(f).values())
        assert [q.kind for q in p[:nin]] == [POS_ONLY] * nin
        assert (p[nin].name, p[nin].kind) == ("out", POS_OR_KW)
        assert all(q.kind == KW_ONLY for q in p[nin + 1:])
        assert {"where", "casting", "dtype"} <= {q.name for q in p[nin + 1:]}
