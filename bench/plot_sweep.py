#!/usr/bin/env python3
"""Draws the size sweep: log-log time against size per operation, ndcuda, CuPy and PyTorch.

    python3 bench/plot_sweep.py ND_SWEEP_CSV [PEER_SWEEP_CSV ...] [--png FILE] [--title TEXT]

Reads the CSV of `nd_bench --sweep` (which carries '# copy_gbps' and '# launch_us') and of
bench/sweep.py, and draws one panel per operation with a line per tool, the copy-bandwidth line
(the bytes of one call at the measured copy rate: no bandwidth-bound call can be faster) and the
launch-latency floor (the least time of an empty launch between two events). Also prints, per operation and size,
the best peer's time over ndcuda's (below 1: ndcuda behind), marking where ndcuda falls behind.
Without --png it only prints (matplotlib is needed for the picture only).
"""

import argparse
import csv
import math
import sys

TOOLS = [("ndcuda", "ndcuda", "C0", "o"), ("cupy", "CuPy", "C1", "s"), ("torch", "PyTorch", "C2", "^")]
SIZE_LABEL = {
    "add_f32": "elements", "sum_f32": "elements", "sort_f32": "keys", "argsort_f32": "keys",
    "sort_rows_1024_f32": "rows of 1024 keys", "sort_rows_f32": "keys in each of 10^4 rows",
    "argsort_rows_f32": "keys in each of 10^4 rows",
    "inv_8x8_f32": "matrices (batch)", "inv_32x32_f32": "matrices (batch)", "matmul_f32": "order n",
}


def read(path):
    meta, rows = {}, []
    with open(path, newline="") as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                key, sep, val = line[1:].partition(":")
                if sep:
                    meta[key.strip()] = val.strip()
            elif line.strip():
                lines.append(line)
    for r in csv.DictReader(lines):
        try:
            rows.append({"tool": r["tool"], "op": r["op"], "size": int(r["size"]),
                         "median_us": float(r["median_us"]), "bytes": int(r["bytes"]), "flops": float(r["flops"])})
        except (KeyError, ValueError):
            continue
    return meta, rows


def series(rows):
    """{op: {tool: [(size, median_us, bytes, flops)]}} sorted by size."""
    out = {}
    for r in rows:
        out.setdefault(r["op"], {}).setdefault(r["tool"], []).append((r["size"], r["median_us"], r["bytes"], r["flops"]))
    for op in out:
        for t in out[op]:
            out[op][t].sort()
    return out


def behind_report(data):
    lines = []
    for op, by in data.items():
        nd = {s: t for s, t, _, _ in by.get("ndcuda", [])}
        cells = []
        for size in sorted(nd):
            peers = [(name, t) for tool, name, _, _ in TOOLS[1:] for s, t, _, _ in by.get(tool, []) if s == size]
            if not peers:
                continue
            name, best = min(peers, key=lambda p: p[1])
            r = best / nd[size]
            cells.append("%d: %.2f%s" % (size, r, "" if r >= 1.0 else " (%s ahead)" % name))
        lines.append("%-14s best peer / ndcuda  %s" % (op, "; ".join(cells) if cells else "-"))
    return "\n".join(lines)


def plot(data, meta, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    copy_gbps = float(meta.get("copy_gbps", "nan"))
    launch_us = float(meta.get("launch_us", "nan"))
    ops = [op for op in SIZE_LABEL if op in data] + [op for op in data if op not in SIZE_LABEL]
    cols = 3
    rows = max(1, math.ceil(len(ops) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    for i, op in enumerate(ops):
        ax = axes[i // cols][i % cols]
        by = data[op]
        for tool, name, color, marker in TOOLS:
            pts = by.get(tool)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=name, lw=1.4, ms=4)
        sizes = sorted({p[0] for pts in by.values() for p in pts})
        ref = next(iter(by.values()))
        nbytes = {p[0]: p[2] for p in ref}
        if sizes and copy_gbps > 0:
            ax.plot(sizes, [nbytes[s] / (copy_gbps * 1e3) for s in sizes], color="0.4", ls="--", lw=1,
                    label="bytes at copy rate (%.0f GB/s)" % copy_gbps)
        if launch_us > 0:
            ax.axhline(launch_us, color="0.6", ls=":", lw=1, label="launch floor (%.1f us)" % launch_us)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(op)
        ax.set_xlabel(SIZE_LABEL.get(op, "size"))
        ax.set_ylabel("median device time (us)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7)
    for j in range(len(ops), rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle(title or "Cost growth: %s, %s" % (meta.get("device", "?"), meta.get("date", "?")))
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description="Draw the nd_bench --sweep / sweep.py results.")
    p.add_argument("nd_csv")
    p.add_argument("peer_csv", nargs="*")
    p.add_argument("--png", help="write the figure here")
    p.add_argument("--title")
    args = p.parse_args(argv)
    meta, rows = read(args.nd_csv)
    for path in args.peer_csv:
        try:
            rows += read(path)[1]
        except OSError as e:
            sys.stderr.write("plot_sweep.py: %s: %s (left out)\n" % (path, e))
    data = series(rows)
    print(behind_report(data))
    if args.png:
        try:
            plot(data, meta, args.png, args.title)
        except ImportError as e:
            sys.stderr.write("plot_sweep.py: no matplotlib here (%s); no picture\n" % e)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
