#!/usr/bin/env python3
"""Host test of bench/compare.py on synthetic CSV files: the speed ratios against each peer,
the best peer and best/nd, the issue targets (copy %, write rate, a third of the best peer),
the vs-best verdicts (ok, even within 3% of the ceiling, MISS), and rows that are missing,
failed or unsupported in a peer. Run by CTest (test_bench_compare); exits non-zero on failure."""

import io
import math
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import compare  # noqa: E402

HEADER = "case,kind,median_us,min_us,reps,bytes,gbps,pct_copy,value,note\n"


def csv_text(tool, rows, copy_gbps="3000.00", device="Test GPU"):
    lines = ["# tool: %s\n" % tool, "# device: %s\n" % device, "# date: 2026-11-27 00:00:00 UTC\n", HEADER]
    lines += [r + "\n" for r in rows]
    lines.append("# copy_gbps: %s\n" % copy_gbps)
    return "".join(lines)


ND = [
    "ceiling.memcpy_d2d,device,700.000,690.000,25,2147483648,3067.00,100.0,,\"ref\"",
    "ceiling.memset,device,370.000,360.000,25,1073741824,2902.00,94.6,,\"write\"",
    # ndcuda faster than both peers
    "ew.add_f32,device,1000.000,990.000,25,3221225472,3221.00,98.0,,\"checked\"",
    # slower than PyTorch by 1%, both within 3% of the ceiling: even
    "ew.exp_f32,device,707.000,700.000,25,2147483648,3037.00,97.5,,\"checked\"",
    # slower than CuPy by 10%: MISS
    "red.sum_f32,device,330.000,320.000,25,1073741828,3253.00,90.0,,\"checked\"",
    # fill at 96% of the write rate (2902 GB/s)
    "core.fill_f32,device,385.000,380.000,25,1073741824,2786.00,91.0,,\"checked\"",
    # a third of the best peer's time: 6000 vs 19000 (CuPy) and 20000 (PyTorch)
    "linalg.inv_4096_f64,device,6000.000,5900.000,3,0,,,,\"checked\"",
    # nd only
    "stream.tiny_fill.bare_driver,host,2.500,2.400,41,0,,,,\"\"",
    # the peers cannot run it / failed in PyTorch
    "stream.tiny_fill.bare_kernel,host,3.000,2.900,41,0,,,,\"\"",
    # a ratio row: higher is better
    "stream.pipeline.speedup,ratio,,,0,0,,,2.5000,\"1stream / 4stream median\"",
    # ndcuda failed
    "sort.sort_f32,error,,,0,0,,,,\"FAILED (see stderr)\"",
    # a difference of two of the tool's own rows: no verdict, its target still applies
    "stream.handoff.extra,host,1.400,,41,0,,,,\"cross_stream minus same_stream\"",
    # the same cuBLAS call in all three, 0.5% behind: even; the unchecked inverse 5% behind: MISS
    "linalg.matmul_8192_f64,device,19384.000,19300.000,4,0,,,,\"checked\"",
    "linalg.inv_4096_f64_unchecked,device,20000.000,19900.000,3,0,,,,\"checked\"",
]
CUPY = [
    "ceiling.memcpy_d2d,device,705.000,690.000,25,2147483648,3046.00,100.0,,\"ref\"",
    "ew.add_f32,device,1270.000,1260.000,25,3221225472,2536.00,83.3,,\"checked\"",
    "ew.exp_f32,device,1268.000,1260.000,25,2147483648,1694.00,55.6,,\"checked\"",
    "red.sum_f32,device,300.000,299.000,25,1073741828,3579.00,97.0,,\"checked\"",
    "core.fill_f32,device,400.000,399.000,25,1073741824,2684.00,88.0,,\"checked\"",
    "linalg.inv_4096_f64,device,19000.000,18900.000,3,0,,,,\"checked\"",
    "stream.tiny_fill.bare_kernel,host,3.500,3.400,41,0,,,,\"\"",
    "stream.pipeline.speedup,ratio,,,0,0,,,2.0000,\"1stream / 4stream median\"",
    "sort.sort_f32,device,2000.000,1990.000,25,536870912,268.00,8.8,,\"checked\"",
    "stream.handoff.extra,host,1.200,,41,0,,,,\"cross_stream minus same_stream\"",
    "linalg.matmul_8192_f64,device,19290.000,19280.000,4,0,,,,\"checked\"",
    "linalg.inv_4096_f64_unchecked,device,19000.000,18900.000,3,0,,,,\"checked\"",
    "cupy.only_case,device,10.000,9.000,25,0,,,,\"checked\"",
]
TORCH = [
    "ceiling.memcpy_d2d,device,702.000,690.000,25,2147483648,3059.00,100.0,,\"ref\"",
    "ew.add_f32,device,1050.000,1040.000,25,3221225472,3067.00,100.3,,\"checked\"",
    "ew.exp_f32,device,700.000,690.000,25,2147483648,3067.00,100.3,,\"checked\"",
    # red.sum_f32 missing from the PyTorch file
    "core.fill_f32,device,390.000,380.000,25,1073741824,2753.00,90.0,,\"checked\"",
    "linalg.inv_4096_f64,device,20000.000,19900.000,3,0,,,,\"checked\"",
    "stream.tiny_fill.bare_kernel,error,,,0,0,,,,\"unsupported: PyTorch has no bare kernel launch\"",
    "stream.pipeline.speedup,ratio,,,0,0,,,3.0000,\"1stream / 4stream median\"",
    "sort.sort_f32,error,,,0,0,,,,\"CHECK FAILED\"",
]


class CompareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.paths = {}
        for name, tool, rows in (("nd", "nd_bench", ND), ("cupy", "cupy_bench", CUPY), ("torch", "torch_bench", TORCH)):
            path = os.path.join(cls.dir.name, name + ".csv")
            with open(path, "w") as f:
                f.write(csv_text(tool, rows))
            cls.paths[name] = path
        _, cls.nd = compare.read_results(cls.paths["nd"])
        _, cls.cu = compare.read_results(cls.paths["cupy"])
        _, cls.th = compare.read_results(cls.paths["torch"])
        cls.table = compare.build_table(cls.nd, [cls.cu, cls.th])
        cls.by = {r[0]: dict(zip(compare.HEADER, r)) for r in cls.table}

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_ratios_each_peer(self):
        r = self.by["ew.add_f32"]
        self.assertEqual(r["CuPy/nd"], "1.27")
        self.assertEqual(r["PyTorch/nd"], "1.05")
        self.assertEqual(r["best peer"], "PyTorch")
        self.assertEqual(r["best/nd"], "1.05")
        self.assertEqual(r["vs best"], "ok")
        self.assertEqual(r["target"], ">= 97% ok")

    def test_even_within_ceiling(self):
        r = self.by["ew.exp_f32"]
        self.assertEqual(r["best peer"], "PyTorch")
        self.assertEqual(r["best/nd"], "0.99")
        self.assertEqual(r["vs best"], "even")
        self.assertEqual(r["target"], ">= 97% ok")

    def test_miss_and_missing_peer_row(self):
        r = self.by["red.sum_f32"]
        self.assertEqual(r["PyTorch us"], "-")
        self.assertEqual(r["PyTorch/nd"], "-")
        self.assertEqual(r["best peer"], "CuPy")
        self.assertEqual(r["best/nd"], "0.91")
        self.assertEqual(r["vs best"], "MISS")  # not within 3% of the ceiling: no "even"

    def test_fill_against_write_rate(self):
        r = self.by["core.fill_f32"]
        self.assertEqual(r["target"], ">= 95% write ok")  # 2786 / 2902 = 96%
        self.assertEqual(r["best peer"], "PyTorch")

    def test_third_of_best_peer(self):
        r = self.by["linalg.inv_4096_f64"]
        self.assertEqual(r["best peer"], "CuPy")
        self.assertEqual(r["best/nd"], "3.17")
        self.assertEqual(r["target"], "best/nd >= 3 ok")
        self.assertEqual(r["vs best"], "ok")
        slower = dict(self.nd[6], median_us=7000.0)
        status = compare.target_status(slower, [("CuPy", self.cu[5]), ("PyTorch", self.th[4])])
        self.assertEqual(status, "best/nd >= 3 MISS")

    def test_unsupported_and_nd_only(self):
        r = self.by["stream.tiny_fill.bare_kernel"]
        self.assertEqual(r["PyTorch us"], "n/a")
        self.assertEqual(r["best peer"], "CuPy")  # the unsupported row takes no part
        self.assertEqual(r["best/nd"], "1.17")
        self.assertEqual(r["vs best"], "")  # a bare CUDA call of each harness: no library code timed
        r = self.by["stream.tiny_fill.bare_driver"]
        self.assertEqual((r["CuPy us"], r["PyTorch us"], r["best peer"], r["vs best"]), ("-", "-", "-", ""))

    def test_ratio_rows_higher_is_better(self):
        r = self.by["stream.pipeline.speedup"]
        self.assertEqual(r["nd us"], "2.50x")
        self.assertEqual(r["CuPy/nd"], "1.25")
        self.assertEqual(r["PyTorch/nd"], "0.83")
        self.assertEqual(r["best peer"], "PyTorch")
        self.assertEqual(r["vs best"], "")  # the time rows carry the verdicts

    def test_difference_rows_no_verdict(self):
        r = self.by["stream.handoff.extra"]
        self.assertEqual((r["best peer"], r["best/nd"]), ("CuPy", "0.86"))
        self.assertEqual(r["vs best"], "")  # same_stream and cross_stream carry the verdicts
        self.assertEqual(r["target"], "<= 2 us ok")

    def test_vendor_call_rows(self):
        r = self.by["linalg.matmul_8192_f64"]
        self.assertEqual((r["best/nd"], r["vs best"]), ("1.00", "even"))  # 0.995: the same cuBLAS call
        self.assertEqual(r["target"], "CuPy/nd >= 0.98 ok")
        r = self.by["linalg.inv_4096_f64_unchecked"]
        self.assertEqual((r["best/nd"], r["vs best"]), ("0.95", "MISS"))  # below 0.98: a miss all the same

    def test_failed_rows(self):
        r = self.by["sort.sort_f32"]
        self.assertEqual((r["nd us"], r["PyTorch us"]), ("FAILED", "FAILED"))
        self.assertEqual((r["CuPy/nd"], r["best peer"], r["vs best"]), ("-", "-", ""))

    def test_peer_only_rows_listed_after(self):
        self.assertEqual(self.table[-1][0], "cupy.only_case")
        self.assertEqual(self.by["cupy.only_case"]["nd us"], "-")
        self.assertEqual(self.by["cupy.only_case"]["CuPy us"], "10.00")

    def test_summary_counts(self):
        s = compare.summary(self.table)
        self.assertIn("targets: 8 of 9 met; vs best peer: 3 ok, 2 even, 2 MISS", s)
        self.assertEqual(self.by["ceiling.memcpy_d2d"]["vs best"], "")  # a reference, not a case

    def test_main_with_missing_files(self):
        out = io.StringIO()
        md = os.path.join(self.dir.name, "r.md")
        with redirect_stdout(out):
            rc = compare.main([self.paths["nd"], os.path.join(self.dir.name, "none.csv"), "--torch", self.paths["torch"],
                               "--markdown", md])
        self.assertEqual(rc, 0)
        with open(md) as f:
            text = f.read()
        self.assertIn("Device: Test GPU.", text)
        self.assertIn("| ew.add_f32 | 1000.0 | 98.0 | - | - | 1050.0 | 100.3 |", text)
        self.assertEqual(compare.main([os.path.join(self.dir.name, "none.csv")]), 1)


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
