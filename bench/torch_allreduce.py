#!/usr/bin/env python3
"""torch.distributed.all_reduce bus bandwidth, the PyTorch counterpart of nd_bench_comm.

One process per GPU (torch.multiprocessing, env:// rendezvous on localhost), NCCL backend,
float32 sum, in place (PyTorch's all_reduce has no out-of-place form). For each size (x4 from
1 KiB to 1 GiB): warm-up, then `iters` back-to-back calls timed with CUDA events on rank 0,
repeated 5 times, median reported; busbw = algbw * 2 (n - 1) / n as nccl-tests computes it.
NVLink multicast stays off (NCCL_NVLS_ENABLE=0) unless the caller set it otherwise.

usage: torch_allreduce.py [--ngpus N] [--min BYTES] [--max BYTES] [--out FILE.csv]
"""
import argparse
import os
import statistics
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")


def worker(rank, world, args, port):
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    cap = args.max // 4
    buf = torch.ones(cap, dtype=torch.float32, device="cuda")
    factor = 2.0 * (world - 1) / world
    rows = []
    size = args.min
    while size <= args.max:
        t = buf[: size // 4]
        iters = 1000 if size <= (1 << 20) else 100 if size <= (64 << 20) else 20
        for _ in range(3):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        times = []
        for _ in range(5):
            dist.barrier(device_ids=[rank])
            torch.cuda.synchronize()
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(iters):
                dist.all_reduce(t)
            e1.record()
            torch.cuda.synchronize()
            times.append(e0.elapsed_time(e1) * 1e3 / iters)
        us = statistics.median(times)
        rows.append((size, iters, us, size / us * 1e-3 * factor))
        size *= 4
    if rank == 0:
        print(f"torch_allreduce: {world} x {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, float32 sum, in place")
        print(f"{'bytes':>12} {'iters':>7} | {'torch us':>10} {'busbw':>9}")
        for b, it, us, bw in rows:
            print(f"{b:>12} {it:>7} | {us:>10.2f} {bw:>9.2f}")
        if args.out:
            with open(args.out, "w") as f:
                f.write("bytes,iters,torch_us,torch_busbw_GBs\n")
                for b, it, us, bw in rows:
                    f.write(f"{b},{it},{us:.3f},{bw:.3f}\n")
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ngpus", type=int, default=0)
    ap.add_argument("--min", type=int, default=1024)
    ap.add_argument("--max", type=int, default=1 << 30)
    ap.add_argument("--out")
    args = ap.parse_args()
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError:
        print("SKIPPED: PyTorch is not installed", file=sys.stderr)
        return 77
    n = torch.cuda.device_count()
    if n < 2:
        print(f"SKIPPED: torch_allreduce needs 2 GPUs (found {n})", file=sys.stderr)
        return 77
    world = args.ngpus if 0 < args.ngpus <= n else n
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(world, args, port), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
