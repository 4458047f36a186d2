"""A NumPy program ported to ndcuda: explicit 2-D heat diffusion on a grid.

The NumPy version and the ndcuda version are the same function with `xp` as the array module
(only the import changes); the script runs both and compares the final fields.

    python3 python/examples/heat_simulation.py [n] [steps]
"""

import sys
import time

import numpy as np

import ndcuda


def simulate(xp, n=256, steps=500, alpha=0.2):
    """Forward Euler for u_t = laplacian(u) with fixed (zero) edges and a hot square."""
    u = xp.zeros((n, n), dtype=xp.float64)
    u[n // 4: n // 2, n // 4: n // 2] = 100.0
    for _ in range(steps):
        lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
               - 4.0 * u[1:-1, 1:-1])
        u[1:-1, 1:-1] += alpha * lap
    return u, float(u.sum()), float(u.max())


def main(n=256, steps=500):
    t0 = time.perf_counter()
    ref, ref_sum, ref_max = simulate(np, n, steps)
    t1 = time.perf_counter()
    got, got_sum, got_max = simulate(ndcuda, n, steps)
    t2 = time.perf_counter()
    err = np.abs(ndcuda.asnumpy(got) - ref).max()
    print(f"NumPy : total heat {ref_sum:.6f}, max {ref_max:.6f}, {t1 - t0:.3f} s")
    print(f"ndcuda: total heat {got_sum:.6f}, max {got_max:.6f}, {t2 - t1:.3f} s")
    print(f"max |difference| {err:.3e}")
    return 0 if err < 1e-9 else 1


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
