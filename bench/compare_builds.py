#!/usr/bin/env python3
"""Two builds of ndcuda on one GPU: each case's median before and after a change.

    python3 bench/compare_builds.py --base B1.csv [B2.csv ...] --new N1.csv [N2.csv ...]
                                    [--limit 3] [--markdown FILE]

Reads CSV files written by `nd_bench --out` from two builds (the runs of each build
interleaved in one session, see tools/gpu-run's ND_BASELINE) and prints, for every case of the
new build in its order: the median of the runs' medians of each build, the change in percent
(positive: the new build is slower; for ratio rows, higher is better and the sign is turned)
and a verdict. A device row more than --limit percent slower (default 3, issue 22's rule) is
"SLOWER"; host rows (per-call costs on the CPU) are marked "host" instead, since they differ
by tens of percent between two processes of the same code. Cases only one build has are listed
as such. Exit status 0 (the table is a report, not a test).
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import read_results  # noqa: E402


def median(xs):
    xs = sorted(x for x in xs if x is not None and not math.isnan(x))
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def present(x):
    return x is not None and not math.isnan(x)


def collect(paths):
    """case -> (kind, [figure per run], is_ratio), and the cases in first-seen order."""
    out, order = {}, []
    for path in paths:
        _, rows = read_results(path)
        for r in rows:
            ratio = not present(r["median_us"]) and present(r["value"])
            fig = r["value"] if ratio else r["median_us"]
            if r["case"] not in out:
                out[r["case"]] = (r["kind"], [], ratio)
                order.append(r["case"])
            out[r["case"]][1].append(fig)
    return out, order


def compare(base, new, limit):
    """Rows (case, kind, base, new, change %, verdict) for every case, new build's order first."""
    b, _ = collect(base)
    n, order = collect(new)
    rows = []
    for case in order + [c for c in collect(base)[1] if c not in n]:
        kind, figs, ratio = n.get(case) or b.get(case)
        mb = median(b[case][1]) if case in b else None
        mn = median(n[case][1]) if case in n else None
        if mb is None or mn is None or mb == 0:
            verdict = "new only" if mb is None and mn is not None else "base only" if mn is None and mb is not None else "-"
            rows.append((case, kind, mb, mn, None, verdict))
            continue
        change = 100.0 * (mn - mb) / abs(mb)
        if ratio:
            change = -change
        if kind == "host":
            verdict = "host"
        elif change > limit:
            verdict = "SLOWER"
        else:
            verdict = "ok"
        rows.append((case, kind, mb, mn, change, verdict))
    return rows


def fmt(x):
    if x is None:
        return "-"
    return "%.4g" % x if abs(x) < 100 else "%.1f" % x


def table(rows, limit):
    lines = ["| case | kind | base | new | change %% | verdict (> %g%% slower: SLOWER) |" % limit,
             "|---|---|---:|---:|---:|---|"]
    for case, kind, mb, mn, change, verdict in rows:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            case, kind, fmt(mb), fmt(mn), "-" if change is None else "%+.1f" % change, verdict))
    slower = [r[0] for r in rows if r[5] == "SLOWER"]
    lines.append("")
    lines.append("%d cases compared; %d device case(s) more than %g%% slower%s" % (
        sum(1 for r in rows if r[4] is not None), len(slower), limit, (": " + ", ".join(slower)) if slower else ""))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="Compare nd_bench results of two builds.")
    p.add_argument("--base", nargs="+", required=True, help="nd_bench CSV files of the build before")
    p.add_argument("--new", nargs="+", required=True, help="nd_bench CSV files of the build after")
    p.add_argument("--limit", type=float, default=3.0, help="percent slower that fails a device row")
    p.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = p.parse_args(argv)
    for path in args.base + args.new:
        if not os.path.exists(path):
            sys.stderr.write("compare_builds.py: %s does not exist\n" % path)
            return 2
    text = table(compare(args.base, args.new, args.limit), args.limit)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
