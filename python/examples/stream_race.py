"""The cross-stream race of a batched inverse (report 5), in Python.

A batch of identity matrices is filled on the legacy null stream while that stream is still
busy, then inverted on a non-blocking stream. A non-blocking stream does not wait for the null
stream, so a library that does not track where data came from can invert matrices that are
not filled yet (CuPy returned NaN/inf here). ndcuda records that the identities were
produced on the null stream and makes the inverse wait for them, so every trial is right.

Each trial scales its identities by a different power of two, so an inverse that ran early
cannot pass by reading the previous trial's matrices from the same pooled memory.

    python3 python/examples/stream_race.py [trials]      (ND_AUTO_EVENTS=0 shows the race)
"""

import sys

import numpy as np

import ndcuda as nd

BATCH, N = 4096, 8


def main(trials=20):
    s = nd.Stream(non_blocking=True)
    nd.linalg.set_checked(False)   # a singular batch gives NaN/inf instead of an error
    bad = 0
    for t in range(trials):
        big = nd.zeros(1 << 27, np.float32)
        for _ in range(4):
            nd.add(big, big, out=big)                       # keeps the null stream busy
        scale = float(2 << (t % 4))
        batch = nd.broadcast_to(nd.eye(N, dtype=np.float32), (BATCH, N, N)) * scale
        with s:                                             # the non-blocking stream
            inv = nd.linalg.inv(batch)
            h = inv.get()
        ok = np.allclose(h, np.broadcast_to(np.eye(N, dtype=np.float32) / scale, h.shape))
        bad += not ok
        print(f"trial {t:2d}: {'ok' if ok else 'WRONG (NaN/inf or stale matrices)'}")
    print(f"{bad} wrong of {trials}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
