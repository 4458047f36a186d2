# User kernels compiled at run time (include/ndcuda/jit.h), with CuPy's call signatures:
# RawModule, RawKernel, ElementwiseKernel, ReductionKernel, and the kernel cache.
#
# Compiling happens lazily, at the first use that needs the device (get_function, a launch,
# an attribute, compile()), as CuPy's RawKernel does, so constructing a kernel never needs a
# GPU. Generated kernels parse their definition at construction (a malformed parameter list
# is a ValueError at once) and compile per combination of dtypes at the first call. Every call
# that may compile or wait (module creation, launches, generated kernel calls) releases the
# GIL.


cdef object _bytes_or_none(object s, str what):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a str, got {type(s).__name__}")
    return s.encode()


cdef const char *_cstr(object b):
    """The buffer of a bytes object, or NULL for None (the bytes must be kept alive)."""
    if b is None:
        return NULL
    return <const char *>(<bytes>b)


cdef class _ModuleOptions:
    """An nd_module_options and the memory its arrays point into."""
    cdef nd_module_options o
    cdef list _keep
    cdef const char **_arrays[5]

    def __cinit__(self):
        memset(&self.o, 0, sizeof(nd_module_options))
        self.o.size = sizeof(nd_module_options)
        self.o.version = ND_MODULE_OPTIONS_VERSION
        self._keep = []
        cdef int i
        for i in range(5):
            self._arrays[i] = NULL

    def __dealloc__(self):
        cdef int i
        for i in range(5):
            free(self._arrays[i])

    cdef const char **_array(self, int slot, object strings, str what) except? NULL:
        cdef Py_ssize_t n = len(strings)
        cdef Py_ssize_t i
        if n == 0:
            return NULL
        if n > 100000:
            raise ValueError(f"too many {what}")
        cdef const char **p = <const char **>malloc(n * sizeof(const char *))
        if p == NULL:
            raise MemoryError()
        self._arrays[slot] = p
        for i in range(n):
            b = _bytes_or_none(strings[i], what)
            if b is None:
                raise TypeError(f"{what} must hold strings, got None")
            self._keep.append(b)
            p[i] = _cstr(b)
        return p


cdef _ModuleOptions _module_options(object name, object options, object name_expressions=None,
                                    object headers=None, bint cooperative=False):
    """The C options for a module: NVRTC options (a str or a sequence of str), name
    expressions, in-memory headers ({name: source}) and the cooperative flag."""
    cdef _ModuleOptions r = _ModuleOptions()
    if isinstance(options, (str, bytes)):
        options = (options,)
    options = tuple(options) if options is not None else ()
    bname = _bytes_or_none(name, "name")
    if bname is not None:
        r._keep.append(bname)
        r.o.name = _cstr(bname)
    r.o.noptions = len(options)
    r.o.options = r._array(0, options, "options")
    if name_expressions is not None:
        if isinstance(name_expressions, (str, bytes)):
            raise TypeError("name_expressions must be a sequence of str, not a str")
        name_expressions = tuple(name_expressions)
        r.o.nname_expressions = len(name_expressions)
        r.o.name_expressions = r._array(1, name_expressions, "name_expressions")
    if headers:
        items = list(dict(headers).items())
        r.o.nheaders = len(items)
        r.o.header_names = r._array(2, [k for k, v in items], "header names")
        r.o.header_sources = r._array(3, [v for k, v in items], "header sources")
    r.o.cooperative = 1 if cooperative else 0
    return r


cdef object _with_stream(object stream):
    """A context manager making stream current (None: the current stream stays)."""
    if stream is None:
        return _NullContext()
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be an ndcuda.Stream, got {type(stream).__name__}")
    return stream


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


# ---- raw modules and kernels -----------------------------------------------------------------

def _read_source(code, path):
    if code is not None and path is not None:
        raise TypeError("give either code or path, not both")
    if path is not None:
        with open(path, "r") as f:
            return f.read()
    if code is None:
        raise TypeError("code or path is required")
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, got {type(code).__name__}")
    return code


def _check_backend(backend, translate_cucomplex, jitify):
    if backend != "nvrtc":
        raise _NotImplementedError(f"backend {backend!r} (only 'nvrtc' is supported)")
    if translate_cucomplex:
        raise _NotImplementedError("translate_cucomplex (use nd_complex64 / nd_complex128 "
                                   "from \"ndcuda_jit.h\")")
    if jitify:
        raise _NotImplementedError("jitify")


cdef class RawModule:
    """RawModule(code=None, *, path=None, options=(), backend='nvrtc',
    translate_cucomplex=False, enable_cooperative_groups=False, name_expressions=None,
    jitify=False, name=None, headers=None)

    CUDA C++ source compiled with NVRTC for the current device (nd_module_create), through
    the kernel cache. Kernels meant to be fetched by plain name must be declared extern "C";
    templates are fetched by the name expressions given here ("f<float, 4>"). The module is
    compiled at the first get_function() or compile(); a compile error raises
    ndcuda.CUDARuntimeError carrying the start of the log (``ndcuda.get_last_compile_log()``
    has all of it). ``headers`` ({name: source}) are in-memory headers the code may #include.
    With ``enable_cooperative_groups`` every kernel of the module is launched cooperatively.
    """
    cdef nd_module *_m
    cdef readonly object code
    cdef readonly tuple options
    cdef readonly object name_expressions
    cdef readonly bint enable_cooperative_groups
    cdef object _name
    cdef object _headers

    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False, name=None, headers=None):
        _check_backend(backend, translate_cucomplex, jitify)
        self.code = _read_source(code, path)
        if isinstance(options, str):
            options = (options,)
        self.options = tuple(options)
        for o in self.options:
            if not isinstance(o, str):
                raise TypeError(f"options must hold str, got {type(o).__name__}")
        if name_expressions is not None:
            if isinstance(name_expressions, str):
                raise TypeError("name_expressions must be a sequence of str, not a str")
            name_expressions = tuple(name_expressions)
            for e in name_expressions:
                if not isinstance(e, str):
                    raise TypeError(f"name_expressions must hold str, got {type(e).__name__}")
        self.name_expressions = name_expressions
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        self._name = name
        if headers is not None:
            headers = dict(headers)
            for k, v in headers.items():
                if not isinstance(k, str) or not isinstance(v, str):
                    raise TypeError("headers must map str names to str sources")
        self._headers = headers

    def __dealloc__(self):
        nd_module_release(self._m)

    cdef nd_module *_module(self) except NULL:
        cdef nd_module *m = NULL
        cdef nd_status st
        cdef _ModuleOptions o
        cdef const char *src
        if self._m != NULL:
            return self._m
        o = _module_options(self._name, self.options, self.name_expressions, self._headers,
                            self.enable_cooperative_groups)
        bsrc = self.code.encode()
        src = bsrc
        with nogil:
            st = nd_module_create(src, &o.o, &m)
        if st != ND_OK:
            _raise(st)
        if self._m != NULL:
            # Another thread compiled the module while this one had released the GIL.
            nd_module_release(m)
        else:
            self._m = m
        return self._m

    def compile(self, log_stream=None):
        """Compiles (or finds in the cache) and loads the module now; writes the compile log
        to log_stream when given."""
        self._module()
        if log_stream is not None:
            log_stream.write(self.log)

    @property
    def log(self):
        """The compile log ("" when the module came from the cache or nothing was printed)."""
        cdef const char *s = nd_module_log(self._module())
        return s.decode("utf-8", "replace") if s != NULL else ""

    @property
    def compiled_here(self):
        """True when this process compiled the module (not found in the cache)."""
        return nd_module_compiled_here(self._module()) != 0

    def get_function(self, name):
        """The kernel called name (an extern "C" name or one of the name expressions) as a
        RawKernel bound to this module."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        cdef nd_kernel *k = NULL
        cdef nd_module *m = self._module()
        _check(nd_module_get_kernel(m, name.encode(), &k))
        cdef RawKernel r = RawKernel.__new__(RawKernel)
        r._k = k
        r._module_obj = self
        r.name = name
        r.code = self.code
        r.options = self.options
        r.enable_cooperative_groups = self.enable_cooperative_groups
        return r


cdef class _KernelArg:
    """An ndcuda array with the access a raw kernel makes of it (In, Out, InOut)."""
    cdef readonly ndarray array
    cdef int _kind

    def __repr__(self):
        return f"{type(self).__name__}({self.array!r})"


cdef class In(_KernelArg):
    """Marks an array argument of a RawKernel launch as read only (ND_KARG_READ): the launch
    waits for its last writer on another stream and is not recorded as a writer."""
    def __init__(self, ndarray array not None):
        self.array = array
        self._kind = ND_KARG_READ


cdef class Out(_KernelArg):
    """Marks an array argument of a RawKernel launch as written only (ND_KARG_WRITE)."""
    def __init__(self, ndarray array not None):
        self.array = array
        self._kind = ND_KARG_WRITE


cdef class InOut(_KernelArg):
    """Marks an array argument of a RawKernel launch as read and written (the default for a
    bare ndarray)."""
    def __init__(self, ndarray array not None):
        self.array = array
        self._kind = ND_KARG_READWRITE


cdef int _dims3(object v, unsigned *out, str what) except -1:
    if isinstance(v, int) or isinstance(v, _np.integer):
        v = (v,)
    elif not isinstance(v, tuple):
        raise TypeError(f"{what} must be an int or a tuple of up to 3 ints, "
                        f"got {type(v).__name__}")
    if len(v) < 1 or len(v) > 3:
        raise ValueError(f"{what} must have 1 to 3 dimensions, got {len(v)}")
    out[0] = out[1] = out[2] = 1
    cdef int i
    for i in range(len(v)):
        x = _operator.index(v[i])
        if x < 0 or x > 0xFFFFFFFF:
            raise ValueError(f"{what}[{i}] = {x} is out of range")
        out[i] = <unsigned>x
    return 0


cdef int _karg_of(object x, nd_karg *a, int i) except -1:
    """Fills a for the launch argument x (argument number i)."""
    cdef int kind
    memset(a, 0, sizeof(nd_karg))
    if isinstance(x, ndarray):
        a.kind = ND_KARG_READWRITE
        a.array = (<ndarray>x)._a
        return 0
    if isinstance(x, _KernelArg):
        a.kind = <nd_karg_kind>(<_KernelArg>x)._kind
        a.array = (<_KernelArg>x).array._a
        return 0
    if isinstance(x, _np.ndarray) and (<object>x).ndim != 0:
        raise TypeError(f"argument {i}: a NumPy array cannot be passed to a kernel; copy it "
                        f"to the device with ndcuda.asarray first")
    kind = _scalar_of(x, &a.scalar)
    if kind == _BIG_INT:
        raise OverflowError(f"argument {i}: Python integer {x} out of bounds for int64")
    if kind != _SCALAR:
        raise TypeError(f"argument {i}: unsupported type {type(x).__name__} (kernel "
                        f"arguments are ndcuda arrays, In/Out/InOut, and scalars)")
    a.kind = ND_KARG_SCALAR
    # Python scalars are passed as int64, float64 and complex128, NumPy scalars as their own
    # dtype, as CuPy does; the kernel's parameter must have that type.
    if a.scalar.dtype == ND_PYINT:
        a.dtype = ND_INT64
    elif a.scalar.dtype == ND_PYFLOAT:
        a.dtype = ND_FLOAT64
    elif a.scalar.dtype == ND_PYCOMPLEX:
        a.dtype = ND_COMPLEX128
    else:
        a.dtype = a.scalar.dtype
    return 0


cdef class RawKernel:
    """RawKernel(code, name, options=(), backend='nvrtc', translate_cucomplex=False, *,
    enable_cooperative_groups=False, jitify=False)

    One kernel of CUDA C++ source (declared extern "C"), compiled at its first use.
    ``kernel(grid, block, args, *, shared_mem=0, stream=None)`` launches it on the current
    stream (or stream): grid and block are ints or tuples of up to 3 ints, args a tuple of:

    - ndcuda arrays, passed as the device address of their first element. A bare array is
      taken as read and written (the launch waits for readers and writers on other streams
      and becomes its last writer); wrap it in ``ndcuda.In(x)`` (read only: also allowed for
      read-only arrays) or ``ndcuda.Out(x)`` to say less;
    - scalars, passed by value: a NumPy scalar as its dtype, a Python bool as bool, int as
      int64, float as float64, complex as complex128 (so the kernel's parameter must be
      declared with that type, e.g. ``long long`` or ``double``).

    The argument count and sizes, the grid, block and shared memory are checked before
    anything is enqueued. With enable_cooperative_groups the launch is cooperative and a grid
    larger than the device can hold at once is a ValueError.
    """
    cdef nd_kernel *_k
    cdef RawModule _module_obj
    cdef readonly str name
    cdef readonly object code
    cdef readonly tuple options
    cdef readonly bint enable_cooperative_groups

    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False,
                 *, enable_cooperative_groups=False, jitify=False):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if not name:
            raise ValueError("name must not be empty")
        self._module_obj = RawModule(code, options=options, backend=backend,
                                     translate_cucomplex=translate_cucomplex,
                                     enable_cooperative_groups=enable_cooperative_groups,
                                     jitify=jitify)
        self.name = name
        self.code = code
        self.options = self._module_obj.options
        self.enable_cooperative_groups = bool(enable_cooperative_groups)

    def __dealloc__(self):
        nd_kernel_release(self._k)

    cdef nd_kernel *_kernel(self) except NULL:
        cdef nd_kernel *k = NULL
        if self._k != NULL:
            return self._k
        m = self._module_obj._module()
        _check(nd_module_get_kernel(m, self.name.encode(), &k))
        if self._k != NULL:
            # Another thread fetched the kernel while this one waited for the module.
            nd_kernel_release(k)
        else:
            self._k = k
        return self._k

    def compile(self, log_stream=None):
        """Compiles (or finds in the cache) the kernel's module and fetches the kernel now."""
        self._kernel()
        if log_stream is not None:
            log_stream.write(self._module_obj.log)

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        cdef nd_launch_config cfg
        cdef nd_karg *kargs = NULL
        cdef nd_status st
        cdef int n, i
        cdef nd_kernel *k
        if not isinstance(args, tuple):
            if isinstance(args, list):
                args = tuple(args)
            else:
                raise TypeError(f"args must be a tuple, got {type(args).__name__}")
        _dims3(grid, cfg.grid, "grid")
        _dims3(block, cfg.block, "block")
        shared_mem = _operator.index(shared_mem)
        if shared_mem < 0:
            raise ValueError(f"shared_mem must be >= 0, got {shared_mem}")
        cfg.shared_bytes = <size_t>shared_mem
        n = len(args)
        if n > 4096:
            raise ValueError(f"too many kernel arguments ({n})")
        ctx = _with_stream(stream)
        k = self._kernel()
        kargs = <nd_karg *>malloc((n if n > 0 else 1) * sizeof(nd_karg))
        if kargs == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                _karg_of(args[i], &kargs[i], i)
            with ctx:
                with nogil:
                    st = nd_kernel_launch(k, cfg, n, kargs)
                # Raised inside the stream's context, before leaving it can touch the
                # thread's error message.
                if st != ND_OK:
                    _raise(st)
        finally:
            free(kargs)

    cdef nd_kernel_attributes _attributes(self) except *:
        cdef nd_kernel_attributes a
        _check(nd_kernel_get_attributes(self._kernel(), &a))
        return a

    @property
    def attributes(self):
        """The kernel's attributes on the current device, as a dict (CuPy's names)."""
        cdef nd_kernel_attributes a = self._attributes()
        return {"num_regs": a.registers,
                "shared_size_bytes": a.static_shared_bytes,
                "local_size_bytes": a.local_bytes,
                "max_threads_per_block": a.max_threads_per_block,
                "max_dynamic_shared_size_bytes": a.max_dynamic_shared_bytes,
                "cooperative": bool(a.cooperative)}

    @property
    def num_regs(self):
        return self._attributes().registers

    @property
    def shared_size_bytes(self):
        return self._attributes().static_shared_bytes

    @property
    def local_size_bytes(self):
        return self._attributes().local_bytes

    @property
    def max_threads_per_block(self):
        return self._attributes().max_threads_per_block

    @property
    def max_dynamic_shared_size_bytes(self):
        return self._attributes().max_dynamic_shared_bytes

    def max_active_blocks(self, int block_threads, shared_mem=0):
        """How many blocks of block_threads threads with shared_mem bytes of dynamic shared
        memory can be resident on one multiprocessor (0: such a block cannot run)."""
        cdef int out = 0
        shared_mem = _operator.index(shared_mem)
        if shared_mem < 0:
            raise ValueError(f"shared_mem must be >= 0, got {shared_mem}")
        _check(nd_kernel_max_active_blocks(self._kernel(), block_threads,
                                           <size_t>shared_mem, &out))
        return out


def get_last_compile_log():
    """The whole compiler log of this thread's last failed compile ("" if none)."""
    cdef const char *s = nd_jit_last_log()
    return s.decode("utf-8", "replace") if s != NULL else ""


# ---- generated kernels -----------------------------------------------------------------------

cdef int _count_params(str params):
    """The number of parameters in a list that nd_*_kernel_create accepted (types and names
    never contain commas)."""
    return len([p for p in params.split(",") if p.strip()])


cdef object _operands(tuple args, int n, nd_operand *ops, str kname):
    """Fills ops[0..n) from args; returns the list keeping the arrays alive."""
    cdef int kind
    cdef int i
    keep = []
    for i in range(n):
        x = args[i]
        if isinstance(x, ndarray):
            ops[i].kind = ND_OPERAND_ARRAY
            ops[i].array = (<ndarray>x)._a
            keep.append(x)
            continue
        if isinstance(x, _np.ndarray) and (<object>x).ndim != 0:
            raise TypeError(f"{kname}: argument {i} is a NumPy array; copy it to the device "
                            f"with ndcuda.asarray first")
        kind = _scalar_of(x, &ops[i].scalar)
        if kind == _BIG_INT:
            raise OverflowError(f"{kname}: argument {i}: Python integer {x} out of bounds "
                                f"for int64")
        if kind != _SCALAR:
            raise TypeError(f"{kname}: argument {i}: unsupported type {type(x).__name__}")
        ops[i].kind = ND_OPERAND_SCALAR
        ops[i].array = NULL
    return keep


cdef class ElementwiseKernel:
    """ElementwiseKernel(in_params, out_params, operation, name='kernel', reduce_dims=True,
    preamble='', no_return=False, return_tuple=False, loop_prep='', after_loop='',
    options=())

    A kernel generated from a loop body, as CuPy's (nd_elementwise_kernel_create). Parameter
    lists are "T x, float32 y, raw T table": a type is an ndcuda dtype name or a placeholder
    resolved from the arguments. ``k(*inputs)`` allocates the outputs; ``k(*inputs, *outputs)``
    writes into the given ones. Inputs broadcast as NumPy's; Python scalars are weak
    (int64, float64, complex128 when they alone bind a placeholder). Dimensions are always
    collapsed (reduce_dims is accepted and ignored); ``size``, ``loop_prep`` and
    ``after_loop`` are not supported. Returns the output, or a tuple of them when there are
    several or return_tuple is set, or None with no_return.
    """
    cdef nd_elementwise_kernel *_k
    cdef readonly str in_params
    cdef readonly str out_params
    cdef readonly str operation
    cdef readonly str name
    cdef readonly str preamble
    cdef readonly tuple options
    cdef readonly int nin
    cdef readonly int nout
    cdef readonly bint no_return
    cdef readonly bint return_tuple

    def __init__(self, str in_params not None, str out_params not None,
                 str operation not None, str name not None="kernel", reduce_dims=True,
                 str preamble not None="", no_return=False, return_tuple=False,
                 loop_prep="", after_loop="", options=()):
        cdef nd_elementwise_kernel *k = NULL
        cdef _ModuleOptions o
        if loop_prep or after_loop:
            raise _NotImplementedError("loop_prep and after_loop")
        o = _module_options(name, options)
        _check(nd_elementwise_kernel_create(in_params.encode(), out_params.encode(),
                                            operation.encode(), name.encode(),
                                            preamble.encode(), &o.o, &k))
        nd_elementwise_kernel_release(self._k)
        self._k = k
        self.in_params = in_params
        self.out_params = out_params
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self.options = tuple((options,) if isinstance(options, str) else options)
        self.nin = _count_params(in_params)
        self.nout = _count_params(out_params)
        self.no_return = bool(no_return)
        self.return_tuple = bool(return_tuple)

    def __dealloc__(self):
        nd_elementwise_kernel_release(self._k)

    def __call__(self, *args, size=None, block_size=None, stream=None):
        cdef nd_operand ops[16]
        cdef nd_array *outs[16]
        cdef nd_array *res[16]
        cdef nd_status st
        cdef int i, nin = self.nin, nout = self.nout
        cdef int n = len(args)
        cdef bint given
        cdef nd_array **outp = NULL
        if self._k == NULL:
            raise ValueError("ElementwiseKernel is not initialized")
        if size is not None:
            raise _NotImplementedError(f"{self.name}: size (the index space comes from the "
                                       f"array arguments)")
        if n != nin and n != nin + nout:
            raise TypeError(f"Wrong number of arguments for {self.name!r}: expected {nin} or "
                            f"{nin + nout}, got {n}")
        if nin > 16 or nout > 16:
            raise ValueError(f"{self.name}: too many parameters")
        keep = _operands(args, nin, ops, self.name)
        given = n == nin + nout
        for i in range(nout):
            outs[i] = NULL
            res[i] = NULL
            if given:
                x = args[nin + i]
                if x is None:
                    continue
                if not isinstance(x, ndarray):
                    raise TypeError(f"{self.name}: output {i} must be an ndcuda.ndarray, got "
                                    f"{type(x).__name__}")
                outs[i] = (<ndarray>x)._a
        if given:
            outp = outs
        with _with_stream(stream):
            with nogil:
                st = nd_elementwise_kernel_call(self._k, nin, ops, nout, outp, res)
            if st != ND_OK:
                _raise(st)
        # A given output is returned as the same Python object, as CuPy does.
        results = []
        for i in range(nout):
            if outs[i] != NULL:
                nd_array_release(res[i])
                results.append(args[nin + i])
            else:
                results.append(_wrap(res[i]))
        results = tuple(results)
        if self.no_return:
            return None
        if nout == 1 and not self.return_tuple:
            return results[0]
        return results


cdef class ReductionKernel:
    """ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
    name='reduce_kernel', reduce_type=None, reduce_dims=True, preamble='', options=())

    A reduction generated from expressions, as CuPy's (nd_reduction_kernel_create): map_expr
    maps the inputs at one element to the reduce type, reduce_expr combines ``a`` and ``b``,
    post_map_expr turns the result ``a`` into the output (None: assign it). identity is the
    neutral value as C source (None: none, and an empty reduction is a ValueError);
    reduce_type a dtype name, a NumPy dtype, a placeholder, or None for the output's type.
    ``k(*inputs, out=None, axis=None, keepdims=False)`` reduces over axis (None: all; an int
    or a tuple) the broadcast inputs; an output may also be passed as the last positional
    argument.
    """
    cdef nd_reduction_kernel *_k
    cdef readonly str in_params
    cdef readonly str out_params
    cdef readonly str name
    cdef readonly int nin

    def __init__(self, str in_params not None, str out_params not None, map_expr,
                 reduce_expr, post_map_expr, identity, str name not None="reduce_kernel",
                 reduce_type=None, reduce_dims=True, str preamble not None="", options=()):
        cdef nd_reduction_kernel *k = NULL
        cdef _ModuleOptions o
        bmap = _bytes_or_none(map_expr, "map_expr")
        bred = _bytes_or_none(reduce_expr, "reduce_expr")
        bpost = _bytes_or_none(post_map_expr, "post_map_expr")
        if identity is not None and not isinstance(identity, str):
            if isinstance(identity, (bool, int, float)):
                identity = repr(identity).lower() if isinstance(identity, bool) else \
                    repr(identity)
            else:
                raise TypeError(f"identity must be a str or None, got "
                                f"{type(identity).__name__}")
        bid = _bytes_or_none(identity, "identity")
        if reduce_type is not None and not isinstance(reduce_type, str):
            reduce_type = _np.dtype(reduce_type).name
        brt = _bytes_or_none(reduce_type, "reduce_type")
        if bmap is None or bred is None:
            raise TypeError("map_expr and reduce_expr are required")
        o = _module_options(name, options)
        _check(nd_reduction_kernel_create(in_params.encode(), out_params.encode(), _cstr(bmap),
                                          _cstr(bred), _cstr(bpost), _cstr(bid), _cstr(brt),
                                          name.encode(), preamble.encode(), &o.o, &k))
        nd_reduction_kernel_release(self._k)
        self._k = k
        self.in_params = in_params
        self.out_params = out_params
        self.name = name
        self.nin = _count_params(in_params)

    def __dealloc__(self):
        nd_reduction_kernel_release(self._k)

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        cdef nd_operand ops[16]
        cdef int64_t axes[64]
        cdef int naxes = -1, i, nin = self.nin
        cdef int n = len(args)
        cdef nd_array *res = NULL
        cdef nd_array *o = NULL
        cdef nd_status st
        cdef int kd = 1 if keepdims else 0
        cdef int64_t *axp = NULL
        if self._k == NULL:
            raise ValueError("ReductionKernel is not initialized")
        if n == nin + 1:
            if out is not None:
                raise TypeError(f"{self.name}: out given both positionally and by keyword")
            out = args[nin]
        elif n != nin:
            raise TypeError(f"Wrong number of arguments for {self.name!r}: expected {nin} or "
                            f"{nin + 1}, got {n}")
        if nin > 16:
            raise ValueError(f"{self.name}: too many parameters")
        if out is not None:
            if not isinstance(out, ndarray):
                raise TypeError(f"{self.name}: out must be an ndcuda.ndarray, got "
                                f"{type(out).__name__}")
            o = (<ndarray>out)._a
        if axis is not None:
            if not isinstance(axis, tuple):
                axis = (axis,)
            if len(axis) > 64:
                raise ValueError(f"{self.name}: too many axes")
            naxes = len(axis)
            for i in range(naxes):
                axes[i] = _operator.index(axis[i])
            axp = axes
        keep = _operands(args, nin, ops, self.name)
        with _with_stream(stream):
            with nogil:
                st = nd_reduction_kernel_call(self._k, nin, ops, naxes if naxes >= 0 else 0,
                                              axp, kd, o, &res)
            if st != ND_OK:
                _raise(st)
        if o != NULL:
            nd_array_release(res)
            return out
        return _wrap(res)


# ---- the kernel cache ------------------------------------------------------------------------

def get_kernel_cache_stats():
    """The process kernel cache's statistics (nd_jit_cache_get_stats) as a dict, with
    "last_warning" added."""
    cdef nd_jit_cache_stats s
    cdef char buf[1024]
    _check(nd_jit_cache_get_stats(&s))
    _check(nd_jit_cache_last_warning(buf, sizeof(buf)))
    return {"memory_hits": s.memory_hits, "disk_hits": s.disk_hits, "misses": s.misses,
            "compiles": s.compiles, "failed_compiles": s.failed_compiles,
            "corrupt_entries": s.corrupt_entries, "warnings": s.warnings,
            "bytes_written": s.bytes_written, "disk_bytes": s.disk_bytes,
            "disk_entries": s.disk_entries, "memory_entries": s.memory_entries,
            "compile_ms": s.compile_ms,
            "last_warning": buf.decode("utf-8", "replace")}


def clear_kernel_cache():
    """Forgets every module the process cache holds (kernels still referenced stay valid)
    and removes every disk entry (nd_jit_cache_clear)."""
    cdef nd_status st
    with nogil:
        st = nd_jit_cache_clear()
    _check(st)


def prune_kernel_cache(max_bytes=None):
    """Trims the disk cache to max_bytes (None: ND_CACHE_MAX_BYTES), least recently used
    first (nd_jit_cache_prune)."""
    cdef int64_t mb = -1 if max_bytes is None else _operator.index(max_bytes)
    cdef nd_status st
    if max_bytes is not None and mb < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    with nogil:
        st = nd_jit_cache_prune(mb)
    _check(st)
