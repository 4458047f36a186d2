# Random numbers: NumPy's Generator API over nd_generator.
#
# Seeding. An int seed in [0, 2**64) is the C generator's seed itself, so a Python program and
# a C program with the same seed draw the same numbers. Other seeds (a sequence of ints, a
# numpy.random.SeedSequence, None for fresh entropy) go through NumPy's SeedSequence, whose
# first 64-bit word becomes the seed. Parameters are Python scalars: arrays of parameters
# (NumPy's broadcasting over loc/scale/...) are not supported by the C library.

_BITGENS = {"philox": ND_BITGEN_PHILOX, "xorwow": ND_BITGEN_XORWOW,
            "mrg32k3a": ND_BITGEN_MRG32K3A}


cdef uint64_t _seed_value(object seed) except? 0:
    if isinstance(seed, (int, _np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError("Seed must be non-negative")
        if seed < 2 ** 64:
            return <uint64_t>int(seed)
    if isinstance(seed, Generator):
        raise TypeError("use Generator.spawn or a new seed instead of a Generator")
    ss = seed if isinstance(seed, _np.random.SeedSequence) else _np.random.SeedSequence(seed)
    return <uint64_t>int(ss.generate_state(1, _np.uint64)[0])


cdef int _size_of(object size, int64_t *buf) except -2:
    if size is None:
        return 0
    return _parse_shape(size, buf)


cdef int _check_param(object v, str name) except -1:
    if isinstance(v, (ndarray, _np.ndarray, list, tuple)):
        raise _NotImplementedError(f"{name}: array-valued parameters are not supported "
                                   f"(pass a Python scalar)")
    return 0


cdef class Generator:
    """NumPy's Generator on the GPU: Generator(seed=None, bitgen='philox').

    Methods take NumPy's names and arguments (size, dtype, out where NumPy has them) and
    return ndcuda arrays; with size=None they return 0-d arrays."""
    cdef nd_generator *_g
    cdef bint _owned

    def __cinit__(self):
        self._g = NULL
        self._owned = False

    def __init__(self, seed=None, bitgen="philox"):
        if bitgen not in _BITGENS:
            raise ValueError(f"bitgen must be one of {sorted(_BITGENS)} (got {bitgen!r})")
        _check(nd_generator_create(_seed_value(seed), _BITGENS[bitgen], &self._g))
        self._owned = True

    def __dealloc__(self):
        if self._g != NULL and self._owned:
            nd_generator_destroy(self._g)

    @property
    def seed(self):
        return nd_generator_seed(self._g)

    @property
    def bitgen(self):
        cdef nd_bitgen b = nd_generator_bitgen(self._g)
        for k, v in _BITGENS.items():
            if v == b:
                return k

    @property
    def offset(self):
        return nd_generator_offset(self._g)

    def __repr__(self):
        return f"Generator({self.bitgen.upper()}) seed={self.seed}"

    def spawn(self, int n_children):
        ss = _np.random.SeedSequence(self.seed)
        return [Generator(c, self.bitgen) for c in ss.spawn(n_children)]

    # ---- continuous -------------------------------------------------------------------------

    def random(self, size=None, dtype=_np.float64, out=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        if out is not None:
            _check(nd_random_random_into(self._g, _out_ptr(out)))
            return out
        cdef int n = _size_of(size, buf)
        _check(nd_random_random(self._g, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def uniform(self, low=0.0, high=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(low, "uniform")
        _check_param(high, "uniform")
        cdef int n = _size_of(size, buf)
        _check(nd_random_uniform(self._g, low, high, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        if out is not None:
            _check(nd_random_standard_normal_into(self._g, _out_ptr(out)))
            return out
        cdef int n = _size_of(size, buf)
        _check(nd_random_standard_normal(self._g, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def normal(self, loc=0.0, scale=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(loc, "normal")
        _check_param(scale, "normal")
        cdef int n = _size_of(size, buf)
        _check(nd_random_normal(self._g, loc, scale, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(mean, "lognormal")
        _check_param(sigma, "lognormal")
        cdef int n = _size_of(size, buf)
        _check(nd_random_lognormal(self._g, mean, sigma, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def standard_exponential(self, size=None, dtype=_np.float64, method="inv", out=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        if out is not None:
            _check(nd_random_standard_exponential_into(self._g, _out_ptr(out)))
            return out
        cdef int n = _size_of(size, buf)
        _check(nd_random_standard_exponential(self._g, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def exponential(self, scale=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(scale, "exponential")
        cdef int n = _size_of(size, buf)
        _check(nd_random_exponential(self._g, scale, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def standard_gamma(self, shape, size=None, dtype=_np.float64, out=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(shape, "standard_gamma")
        if out is not None:
            _check(nd_random_standard_gamma_into(self._g, shape, _out_ptr(out)))
            return out
        cdef int n = _size_of(size, buf)
        _check(nd_random_standard_gamma(self._g, shape, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def gamma(self, shape, scale=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(shape, "gamma")
        _check_param(scale, "gamma")
        cdef int n = _size_of(size, buf)
        _check(nd_random_gamma(self._g, shape, scale, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def beta(self, a, b, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(a, "beta")
        _check_param(b, "beta")
        cdef int n = _size_of(size, buf)
        _check(nd_random_beta(self._g, a, b, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def chisquare(self, df, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(df, "chisquare")
        cdef int n = _size_of(size, buf)
        _check(nd_random_chisquare(self._g, df, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    # ---- discrete ---------------------------------------------------------------------------

    def poisson(self, lam=1.0, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(lam, "poisson")
        cdef int n = _size_of(size, buf)
        _check(nd_random_poisson(self._g, lam, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    def binomial(self, n, p, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(n, "binomial")
        _check_param(p, "binomial")
        cdef int nd = _size_of(size, buf)
        _check(nd_random_binomial(self._g, _operator.index(n), p, nd, buf, _nd_dtype(dtype),
                                  &res))
        return _wrap(res)

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        cdef int64_t buf[32]
        cdef nd_array *res
        cdef nd_scalar lo, hi
        _check_param(low, "integers")
        _check_param(high, "integers")
        if high is None:
            low, high = 0, low
        for v in (low, high):
            if isinstance(v, (float, complex, _np.floating, _np.complexfloating)):
                raise TypeError("Unsupported dtype for low/high: integers are required")
        _int_bound(low, &lo)
        _int_bound(high, &hi)
        cdef int n = _size_of(size, buf)
        _check(nd_random_integers(self._g, lo, hi, 1 if endpoint else 0, n, buf,
                                  _nd_dtype(dtype), &res))
        return _wrap(res)

    def bernoulli(self, p=0.5, size=None, *, dtype=None):
        cdef int64_t buf[32]
        cdef nd_array *res
        _check_param(p, "bernoulli")
        cdef int n = _size_of(size, buf)
        _check(nd_random_bernoulli(self._g, p, n, buf, _nd_dtype(dtype), &res))
        return _wrap(res)

    # ---- sampling and permutations -----------------------------------------------------------

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        cdef int64_t buf[32]
        cdef nd_array *res
        cdef double[::1] pv
        cdef const double *pp = NULL
        cdef int n = _size_of(size, buf)
        if axis != 0:
            raise _NotImplementedError("choice with axis != 0")
        if p is not None:
            if isinstance(p, ndarray):
                p = (<ndarray>p).get()
            pv = _np.ascontiguousarray(p, dtype=_np.float64).ravel()
            if pv.shape[0]:
                pp = &pv[0]
        if isinstance(a, (int, _np.integer)):
            if p is not None and pv.shape[0] != a:
                raise ValueError("a and p must have same size")
            _check(nd_random_choice(self._g, a, n, buf, 1 if replace else 0, pp, &res))
        else:
            x = _arr(a)
            if p is not None and (x.ndim == 0 or pv.shape[0] != x.shape[0]):
                raise ValueError("a and p must have same size")
            _check(nd_random_choice_array(self._g, (<ndarray>x)._a, n, buf,
                                          1 if replace else 0, pp, &res))
        return _wrap(res)

    def permutation(self, x, axis=0):
        cdef nd_array *res
        if isinstance(x, (int, _np.integer)):
            _check(nd_random_permutation(self._g, x, &res))
        else:
            _check(nd_random_permutation_array(self._g, _arr(x)._a, axis, &res))
        return _wrap(res)

    def shuffle(self, x, axis=0):
        if not isinstance(x, ndarray):
            raise TypeError("shuffle needs an ndcuda.ndarray (it permutes in place)")
        _check(nd_random_shuffle(self._g, (<ndarray>x)._a, axis))

    def permuted(self, x, axis=None, out=None):
        raise _NotImplementedError("permuted (independent shuffles of each slice)")


cdef int _int_bound(object v, nd_scalar *s) except -1:
    v = _operator.index(v)
    if -9223372036854775808 <= v <= 9223372036854775807:
        s.dtype = ND_PYINT
        s.v.i = <int64_t>v
    elif 0 <= v <= 18446744073709551615:
        s.dtype = ND_UINT64
        s.v.u = <uint64_t>v
    else:
        raise ValueError(f"integer bound {v} is outside the 64-bit range")
    return 0


def default_rng(seed=None):
    """A new Generator (Philox), seeded as NumPy's default_rng is (see the module notes)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


cdef class _DefaultGenerator(Generator):
    """The calling thread's default generator of the C library (ND_SEED), for the legacy
    module-level functions (ndcuda.random.rand, ...)."""

    def __init__(self):
        pass

    cdef int _bind(self) except -1:
        _check(nd_generator_default(&self._g))
        self._owned = False
        return 0


def _thread_default_generator():
    cdef _DefaultGenerator g = _DefaultGenerator.__new__(_DefaultGenerator)
    g._bind()
    return g


def random_seed(seed):
    """Restarts the calling thread's default generator (np.random.seed for this thread)."""
    _check(nd_random_seed(_seed_value(seed)))
