#!/usr/bin/env python3
"""Generates the cases of test_null_args from the public headers.

Every function declared `ND_API nd_status nd_...(...)` in include/ndcuda/*.h is read, and for
each of its pointer parameters one case is written: that parameter NULL, every other argument
valid-looking (fake arrays over a buffer that is never touched, host scratch memory, the first
enumerator of an enum). The test expects ND_ERR_NULL_POINTER, a message naming the function,
and no crash. Parameters that the headers document as optional (NULL accepted) are listed in
OPTIONAL below with the reason; the generator fails when an entry there names a function or a
parameter that no longer exists, so the list cannot go stale, and a new function is covered
without anyone having to remember it.

usage: gen_null_cases.py OUTPUT HEADER...
"""
import re
import sys

# (function, parameter) pairs that may be NULL, as the header comments say. '*' as the function
# applies the rule to every function with a parameter of that name and type (see RULES).
OPTIONAL = {
    ("nd_stream_destroy", "stream"): "stream.h: NULL is accepted",
    ("nd_event_destroy", "event"): "stream.h: NULL accepted",
    ("nd_event_record", "stream"): "stream.h: NULL means the current stream",
    ("nd_stream_wait_event", "stream"): "stream.h: NULL: current",
    ("nd_host_free_pinned", "ptr"): "memory.h: NULL accepted",
    ("nd_generator_destroy", "gen"): "random.h: NULL accepted",
    ("nd_array_from_device_ptr", "strides"): "array.h: strides NULL means C order",
    ("nd_tensordot", "axes_a"): "linalg.h: axes_a == NULL and axes_b == NULL is the integer form",
    ("nd_tensordot", "axes_b"): "linalg.h: axes_a == NULL and axes_b == NULL is the integer form",
    ("nd_linalg_inv_ex", "info"): "linalg.h: if info is not NULL it receives the info array",
    ("nd_linalg_qr", "q"): "linalg.h: q may be NULL for ND_QR_R",
    ("nd_linalg_svd", "u"): "linalg.h: u, vh may be NULL with compute_uv = 0",
    ("nd_linalg_svd", "vh"): "linalg.h: u, vh may be NULL with compute_uv = 0",
    ("nd_linalg_lstsq", "residuals"): "linalg.h: residuals, rank and s may be NULL",
    ("nd_linalg_lstsq", "rank"): "linalg.h: residuals, rank and s may be NULL",
    ("nd_linalg_lstsq", "s"): "linalg.h: residuals, rank and s may be NULL",
    ("nd_average", "weights"): "reduce.h: weights is NULL (the mean)",
    ("nd_average", "sum_of_weights"): "reduce.h: sum_of_weights, if not NULL",
    ("nd_bincount", "weights"): "sort.h: weights or NULL",
    ("nd_histogram", "range"): "sort.h: range NULL: the data's min and max",
    ("nd_histogram", "weights"): "sort.h: weights, or NULL",
    ("nd_histogram", "bin_edges"): "sort.h: bin_edges may be NULL",
    ("nd_random_choice", "p"): "random.h: p, if not NULL",
    ("nd_unique", "index"): "sort.h: optional outputs (NULL to skip)",
    ("nd_unique", "inverse"): "sort.h: optional outputs (NULL to skip)",
    ("nd_unique", "counts"): "sort.h: optional outputs (NULL to skip)",
    ("nd_linalg_solve_ex", "info"): "linalg.h: info as in nd_linalg_inv_ex (if not NULL)",
    ("nd_linalg_cholesky_ex", "info"): "linalg.h: info as in nd_linalg_inv_ex (if not NULL)",
    ("nd_array_wait", "stream"): "array.h: stream NULL means the current stream",
    ("nd_array_record", "stream"): "array.h: stream NULL means the current stream",
    ("nd_random_choice_array", "p"): "random.h: p as in nd_random_choice (if not NULL)",
    ("nd_elementwise_kernel_create", "preamble"): "jit.h: preamble (may be NULL)",
    ("nd_reduction_kernel_create", "post_map_expr"): "jit.h: post_map_expr (NULL: y = a)",
    ("nd_reduction_kernel_create", "identity"): "jit.h: identity (NULL: none)",
    ("nd_reduction_kernel_create", "reduce_type"): "jit.h: reduce_type NULL for the output's type",
    ("nd_reduction_kernel_create", "preamble"): "jit.h: preamble as for elementwise kernels (may be NULL)",
    ("nd_reduction_kernel_call", "axes"): "jit.h: axes NULL: every axis",
    ("nd_shard_split", "devices"): "device.h: devices NULL: part i on device i",
    ("nd_comm_init_all", "devices"): "comm.h: devices may be NULL for devices 0..ndev-1",
    ("nd_comm_destroy", "comm"): "comm.h: NULL is accepted",
    ("nd_comm_reduce", "recv"): "comm.h: recv may be NULL on the ranks other than the root",
}

# Functions whose messages name another function by design, with the name they use.
NAMED_AS = {"nd_ufunc_call": "nd_add"}  # ufunc.h: the named function of its op (ND_UFUNC_ADD here)

# Integer arguments other than 1, by function: (position among the int parameters, value).
INTS = {"nd_ufunc_call": {0: "2"}, "nd_ufunc_result_type": {0: "2"}}

# Rules by parameter name and type, for whole classes of parameters.
def rule_optional(fn, ptype, pname):
    if ptype == "nd_array *" and pname == "out":
        return "out= is optional everywhere (ufunc.h, reduce.h)"
    if ptype == "nd_generator *" and pname == "gen":
        return "random.h: gen may be NULL (the default generator)"
    if ptype == "struct CUstream_st *":
        return "stream.h: NULL is the legacy stream"
    if ptype == "const nd_module_options *" and pname == "opts":
        return "jit.h: opts may be NULL (defaults)"
    if ptype == "nd_array *const *" and pname == "out":
        return "jit.h: out may be NULL (all outputs allocated)"
    if ptype == "FNPTR" or (ptype == "void *" and pname == "ctx"):
        return "callbacks and their context are optional"
    return None

# Values for the other arguments, by type.
VALUES = {
    "const nd_array *": "&A",
    "nd_array *": "&A",
    "nd_array **": "&R",
    "const nd_array *const *": "ARRS",
    "const int64_t *": "I64",
    "const int64_t *const *": "I64P",
    "const int *": "I32",
    "const double *": "DBL",
    "const nd_dtype *": "DTS",
    "const nd_operand *": "OPS",
    "const nd_slice *": "SLICES",
    "const char *": "STR",
    "const void *": "HOST",
    "void *": "HOST",
    "void **": "&VP",
    "int *": "&I",
    "int64_t *": "&L",
    "float *": "&F",
    "nd_dtype *": "&DT",
    "nd_scalar *": "&SC",
    "nd_memory_stats *": "&MS",
    "nd_device_properties *": "(nd_device_properties *)HOST",
    "nd_stream *": "(nd_stream *)FAKE_HANDLE",
    "const nd_stream *": "(const nd_stream *)FAKE_HANDLE",
    "nd_stream **": "&STREAM",
    "nd_event *": "(nd_event *)FAKE_HANDLE",
    "const nd_event *": "(const nd_event *)FAKE_HANDLE",
    "nd_event **": "&EVENT",
    "nd_generator *": "(nd_generator *)FAKE_HANDLE",
    "nd_generator **": "&GEN",
    "struct CUstream_st *": "NULL",
    "nd_module *": "(nd_module *)FAKE_HANDLE",
    "nd_module **": "(nd_module **)&VP",
    "nd_kernel *": "(nd_kernel *)FAKE_HANDLE",
    "nd_kernel **": "(nd_kernel **)&VP",
    "nd_elementwise_kernel *": "(nd_elementwise_kernel *)FAKE_HANDLE",
    "nd_elementwise_kernel **": "(nd_elementwise_kernel **)&VP",
    "nd_reduction_kernel *": "(nd_reduction_kernel *)FAKE_HANDLE",
    "nd_reduction_kernel **": "(nd_reduction_kernel **)&VP",
    "nd_kernel_attributes *": "(nd_kernel_attributes *)HOST",
    "nd_jit_cache_stats *": "(nd_jit_cache_stats *)HOST",
    "const nd_karg *": "(const nd_karg *)HOST",
    "char *": "(char *)HOST",
    "FNPTR": "NULL",
    "nd_comm *": "(nd_comm *)FAKE_HANDLE",
    "const nd_comm *": "(const nd_comm *)FAKE_HANDLE",
    "nd_comm **": "(nd_comm **)&VP",
    "nd_comm_id *": "(nd_comm_id *)HOST",
    "const nd_comm_id *": "(const nd_comm_id *)HOST",
    # non-pointers
    "int": "1",
    "int64_t": "1",
    "unsigned": "0",
    "size_t": "32",
    "uint64_t": "1",
    "double": "1.0",
    "char": "'L'",
    "nd_dtype": "ND_FLOAT64",
    "nd_scalar": "nd_scalar_float(1.0)",
    "nd_operand": "nd_arg(&A)",
    "nd_slice": "ND_SLICE_ALL",
    "nd_ufunc": "ND_UFUNC_ADD",
    "nd_launch_config": "(nd_launch_config){{1, 1, 1}, {1, 1, 1}, 0}",
    # DLPack (interop.h)
    "DLDataType": "(DLDataType){kDLFloat, 64, 1}",
    "DLDataType *": "(DLDataType *)HOST",
    "struct DLManagedTensorVersioned *": "(struct DLManagedTensorVersioned *)HOST",
    "struct DLManagedTensorVersioned **": "(struct DLManagedTensorVersioned **)&VP",
    "DLManagedTensor *": "(DLManagedTensor *)HOST",
    "DLManagedTensor **": "(DLManagedTensor **)&VP",
}
DOUBLES = ["0.25", "0.75", "0.5", "0.125"]
# Strings some functions need to get past their first checks.
STRINGS = {"nd_einsum": '"ij->ji"', "nd_dtype_from_name": '"float64"'}


def strip_comments(s):
    return re.sub(r"/\*.*?\*/", " ", s, flags=re.S)


def parse_param(p):
    p = " ".join(p.split())
    if "(" in p:  # function pointer: void (*release)(void *ptr, void *ctx)
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)", p)
        return "FNPTR", m.group(1)
    m = re.match(r"(.*?)\s*(\w+)$", p)
    ptype = m.group(1).replace(" *", " *").strip()
    ptype = re.sub(r"\s*\*\s*", " *", ptype).replace("* *", "**").replace("**const", "**const")
    ptype = re.sub(r"\*\s*const\s*\*", "*const *", ptype)
    ptype = re.sub(r" \*\*", " **", ptype)
    return ptype.strip(), m.group(2)


def main():
    out, headers = sys.argv[1], sys.argv[2:]
    funcs, enums = [], {}
    for h in headers:
        s = strip_comments(open(h).read())
        for m in re.finditer(r"typedef\s+enum\s+(\w+)\s*\{\s*(\w+)", s):
            enums[m.group(1)] = m.group(2)
        for m in re.finditer(r"ND_API\s+nd_status\s+(nd_\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*;", s):
            name, params = m.group(1), m.group(2).strip()
            plist = [] if params in ("", "void") else [parse_param(p) for p in re.split(r",(?![^(]*\))", params)]
            funcs.append((name, plist))
    names = {f for f, _ in funcs}
    params_of = {f: {p for _, p in pl} for f, pl in funcs}
    for (f, p) in OPTIONAL:
        if f not in names or p not in params_of[f]:
            sys.exit(f"gen_null_cases.py: OPTIONAL names {f}({p}), which the headers do not declare")
    cases, skipped = [], 0
    lines = ["/* Generated by tests/src/gen_null_cases.py from the public headers; do not edit. */"]
    for name, plist in funcs:
        for i, (ptype, pname) in enumerate(plist):
            if "*" not in ptype and ptype != "FNPTR":
                continue
            if (name, pname) in OPTIONAL or rule_optional(name, ptype, pname):
                skipped += 1
                continue
            args = []
            ndouble = 0
            nint = 0
            for j, (t, n) in enumerate(plist):
                if j == i:
                    args.append("NULL")
                elif (name, n) in OPTIONAL or rule_optional(name, t, n):
                    args.append("NULL" if ("*" in t or t == "FNPTR") else VALUES[t])
                elif t == "const char *" and name in STRINGS:
                    args.append(STRINGS[name])
                elif t == "int":
                    args.append(INTS.get(name, {}).get(nint, "1"))
                    nint += 1
                elif t == "double":
                    # 0.25, 0.75, 0.5: a valid low < high, probability, shape, quantile, step
                    args.append(DOUBLES[min(ndouble, len(DOUBLES) - 1)])
                    ndouble += 1
                elif t in VALUES:
                    args.append(VALUES[t])
                elif t in enums:
                    args.append(enums[t])
                else:
                    sys.exit(f"gen_null_cases.py: no value for parameter type '{t}' of {name}")
            k = len(cases)
            lines.append(f"static nd_status nd_null_case_{k}(void) {{ return {name}({', '.join(args)}); }}")
            cases.append((name, pname, k))
    lines.append("static const nd_null_case nd_null_cases[] = {")
    for name, pname, k in cases:
        lines.append(f'  {{"{name}", "{pname}", "{NAMED_AS.get(name, name)}", nd_null_case_{k}}},')
    lines.append("};")
    lines.append(f"#define ND_NULL_NFUNCS {len(funcs)}")
    lines.append(f"#define ND_NULL_NOPTIONAL {skipped}")
    open(out, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
