"""numpy.random on the GPU: ``default_rng`` and ``Generator`` with NumPy's method names.

An int seed in [0, 2**64) is the C generator's seed itself (the same numbers as a C program
with that seed); other seeds go through ``numpy.random.SeedSequence``. The legacy
module-level functions (``rand``, ``randn``, ``random``, ...) draw from the calling thread's
default generator, which ``seed`` restarts and ``ND_SEED`` seeds.
"""

from ndcuda import _core
from ndcuda._core import Generator, default_rng  # noqa: F401

seed = _core.random_seed


def _default():
    return _core._thread_default_generator()


def random(size=None, dtype=float):
    return _default().random(size, dtype)


random_sample = random
sample = random
ranf = random


def rand(*shape, dtype=float):
    return _default().random(shape if shape else None, dtype)


def randn(*shape, dtype=float):
    return _default().standard_normal(shape if shape else None, dtype)


def randint(low, high=None, size=None, dtype=int):
    return _default().integers(low, high, size, dtype)


def uniform(low=0.0, high=1.0, size=None):
    return _default().uniform(low, high, size)


def normal(loc=0.0, scale=1.0, size=None):
    return _default().normal(loc, scale, size)


def standard_normal(size=None):
    return _default().standard_normal(size)


def exponential(scale=1.0, size=None):
    return _default().exponential(scale, size)


def poisson(lam=1.0, size=None):
    return _default().poisson(lam, size)


def choice(a, size=None, replace=True, p=None):
    return _default().choice(a, size, replace, p)


def permutation(x):
    return _default().permutation(x)


def shuffle(x):
    return _default().shuffle(x)
