"""ndcuda and PyTorch on the same memory, on different streams, with no host synchronisation.

1. PyTorch makes a batch of random SPD matrices on its own stream; ndcuda takes them through
   DLPack (zero copy: same device pointer) and solves on a non-blocking ndcuda stream.
   from_dlpack passes the current ndcuda stream to PyTorch, which orders its pending work
   before it.
2. ndcuda writes the solutions; PyTorch reads them back on another stream through DLPack;
   ndcuda makes that stream wait for the solve (the consumer's stream passed to __dlpack__).

    python3 python/examples/torch_interop.py
"""

import sys

import numpy as np
import torch

import ndcuda as nd


def main():
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        a = torch.randn(512, 32, 32, device="cuda", dtype=torch.float64)
        spd = a @ a.transpose(-1, -2) + 32 * torch.eye(32, device="cuda", dtype=torch.float64)
        b = torch.randn(512, 32, 1, device="cuda", dtype=torch.float64)
        with nd.Stream(non_blocking=True):
            A = nd.from_dlpack(spd)                  # torch's stream is ordered before ours
            B = nd.from_dlpack(b)
            X = nd.linalg.solve(A, B)
    print("zero copy:", A.data_ptr == spd.data_ptr(), B.data_ptr == b.data_ptr())

    other = torch.cuda.Stream()
    # PyTorch's own data (spd, b) must be ordered for PyTorch's other stream by PyTorch; X,
    # written by ndcuda, is ordered by ndcuda through __dlpack__.
    other.wait_stream(ts)
    with torch.cuda.stream(other):
        x = torch.from_dlpack(X)                     # X.__dlpack__(stream=other)
        resid = (spd @ x - b).abs().max().item()
    print(f"max residual |A x - b| computed by PyTorch: {resid:.3e}")
    ok = x.data_ptr() == X.data_ptr and resid < 1e-9
    print("ok" if ok else "WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
