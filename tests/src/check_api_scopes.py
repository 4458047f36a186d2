#!/usr/bin/env python3
"""Every public function that calls another public function opens an ND__API_SCOPE.

Without one, an error raised by the callee names the callee ("nd_array_reshape: ...") where
the caller called something else (nd_kron). This reads the public headers for the ND_API
names and each definition of one in the library's sources, and lists the definitions that
call another public function (accessors and pure queries, which cannot fail, aside) without
a scope. Exit status 1 when there are any.

usage: check_api_scopes.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

# Calls that cannot raise an error worth renaming: accessors, queries, reference counting.
QUIET = {"nd_array_release", "nd_array_retain", "nd_dtype_name", "nd_dtype_kind", "nd_dtype_itemsize",
         "nd_dtype_is_valid", "nd_dtype_is_weak", "nd_array_ndim", "nd_array_dtype", "nd_array_size",
         "nd_array_shape", "nd_last_error", "nd_status_name", "nd_host_is_pinned", "nd_stream_current",
         "nd_can_cast", "nd_promote_types", "nd_result_type", "nd_ufunc_name", "nd_ufunc_nin",
         "nd_array_is_c_contiguous", "nd_array_is_f_contiguous", "nd_casting_name", "nd_clear_error"}


def main(root):
    pub = set()
    for h in glob.glob(os.path.join(root, "include", "ndcuda", "*.h")):
        pub |= set(re.findall(r"ND_API\s+[\w\s\*]+?\b(nd_\w+)\s*\(", open(h).read()))
    bad = []
    for d in ("src", "linalg", "random", "streams", "jit"):
        for f in sorted(glob.glob(os.path.join(root, d, "*.c"))):
            s = open(f).read()
            for m in re.finditer(r"^nd_status (nd_\w+)\((.*?)\n\}", s, re.S | re.M):
                name, body = m.group(1), m.group(2)
                if name not in pub or "ND__API_SCOPE" in body:
                    continue
                calls = set(re.findall(r"\b(nd_[a-z]\w*)\s*\(", body)) & pub - {name} - QUIET
                if calls:
                    bad.append("%s: %s calls %s without ND__API_SCOPE" % (os.path.relpath(f, root), name,
                                                                        ", ".join(sorted(calls))))
    for b in bad:
        print(b)
    print("check_api_scopes: %d public functions call others without a scope" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
