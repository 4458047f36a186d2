#!/usr/bin/env python3
"""Host test of bench/plot_sweep.py (reading the sweep CSV files, the best-peer report) and of
bench/sweep.py's table (the same operations and sizes as bench_sweep.c). Run by CTest
(test_bench_sweep); exits non-zero on failure. The picture itself needs matplotlib and is not
drawn here."""

import io
import os
import re
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")
sys.path.insert(0, BENCH)
import plot_sweep  # noqa: E402
import sweep  # noqa: E402

ND = """# tool: nd_bench
# device: Test GPU
# launch_us: 2.500
# copy_gbps: 3000.00
tool,op,size,median_us,min_us,reps,bytes,flops
ndcuda,add_f32,1024,3.000,2.900,25,12288,0
ndcuda,add_f32,1048576,10.000,9.000,25,12582912,0
ndcuda,matmul_f32,16,4.000,3.900,25,3072,8192
"""
PEERS = """# tool: sweep.py
tool,op,size,median_us,min_us,reps,bytes,flops
cupy,add_f32,1024,5.000,4.900,25,12288,0
torch,add_f32,1024,2.000,1.900,25,12288,0
torch,add_f32,1048576,11.000,10.900,25,12582912,0
cupy,matmul_f32,16,8.000,7.000,25,3072,8192
not,a,row
"""


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.nd = os.path.join(self.dir.name, "nd.csv")
        self.peers = os.path.join(self.dir.name, "peers.csv")
        with open(self.nd, "w") as f:
            f.write(ND)
        with open(self.peers, "w") as f:
            f.write(PEERS)

    def tearDown(self):
        self.dir.cleanup()

    def test_read_and_report(self):
        meta, rows = plot_sweep.read(self.nd)
        self.assertEqual(meta["copy_gbps"], "3000.00")
        self.assertEqual(meta["launch_us"], "2.500")
        rows += plot_sweep.read(self.peers)[1]
        self.assertEqual(len(rows), 7)  # the malformed line is skipped
        data = plot_sweep.series(rows)
        self.assertEqual([p[0] for p in data["add_f32"]["torch"]], [1024, 1048576])
        report = plot_sweep.behind_report(data)
        self.assertIn("add_f32        best peer / ndcuda  1024: 0.67 (PyTorch ahead); 1048576: 1.10", report)
        self.assertIn("matmul_f32     best peer / ndcuda  16: 2.00", report)

    def test_main_without_png(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(plot_sweep.main([self.nd, self.peers, os.path.join(self.dir.name, "none.csv")]), 0)
        self.assertIn("PyTorch ahead", out.getvalue())

    def test_same_table_as_the_c_sweep(self):
        """The operations, sizes and --quick limits of sweep.py match bench_sweep.c's tables."""
        with open(os.path.join(BENCH, "bench_sweep.c")) as f:
            src = f.read()

        def c_sizes(name):
            body = re.search(r"static const int64_t %s\[\] = \{(.*?)\};" % name, src, re.S).group(1)
            return [eval(t.strip()) for t in body.split(",") if t.strip() and t.strip() != "0"]

        ops = re.findall(r'\{"(\w+)", SW_\w+, (sw_\w+), ([^}]+)\}', src)
        self.assertEqual([o[0] for o in ops], [o[0] for o in sweep.OPS])
        for (name, table, quick), (pname, sizes, pquick) in zip(ops, sweep.OPS):
            self.assertEqual(c_sizes(table), sizes, name)
            self.assertEqual(eval(quick), pquick, name)
        self.assertEqual(sweep.cost("matmul_f32", 16), (12 * 256, 2.0 * 16 ** 3))
        self.assertEqual(sweep.cost("inv_32x32_f32", 10), (2 * 10 * 1024 * 4, 2.0 * 32768 * 10))


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
