#!/usr/bin/env python3
"""Host test of bench/compare_builds.py on synthetic nd_bench CSV files: medians over several
runs of each build, the change in percent (the sign turned for ratio rows), the 3% rule on
device rows, host rows reported but not judged, and cases only one build has. Run by CTest
(test_bench_compare_builds); exits non-zero on failure."""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import compare_builds  # noqa: E402

HEADER = "case,kind,median_us,min_us,reps,bytes,gbps,pct_copy,value,note\n"


def write(d, name, rows):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("# tool: nd_bench\n# device: Test GPU\n" + HEADER + "".join(r + "\n" for r in rows))
    return path


def row(case, us, kind="device"):
    return "%s,%s,%.3f,%.3f,25,0,,,,\"checked\"" % (case, kind, us, us)


def ratio(case, value):
    return "%s,ratio,,,,,,,%.3f,\"x\"" % (case, value)


class CompareBuilds(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.base = [write(d, "b1.csv", [row("a", 100), row("b", 100), row("h", 1.0, "host"), ratio("r", 2.0),
                                         row("gone", 5)]),
                     write(d, "b2.csv", [row("a", 102), row("b", 100), row("h", 1.0, "host"), ratio("r", 2.0),
                                         row("gone", 5)]),
                     write(d, "b3.csv", [row("a", 500), row("b", 100), row("h", 1.0, "host"), ratio("r", 2.0),
                                         row("gone", 5)])]
        self.new = [write(d, "n1.csv", [row("a", 101), row("b", 104), row("h", 1.5, "host"), ratio("r", 1.8),
                                        row("added", 7)]),
                    write(d, "n2.csv", [row("a", 99), row("b", 104), row("h", 1.5, "host"), ratio("r", 1.8),
                                        row("added", 7)])]

    def tearDown(self):
        self.tmp.cleanup()

    def rows(self):
        return {r[0]: r for r in compare_builds.compare(self.base, self.new, 3.0)}

    def test_median_over_runs(self):
        r = self.rows()["a"]  # base median of 100, 102, 500 is 102 (the outlier ignored); new 100
        self.assertAlmostEqual(r[2], 102.0)
        self.assertAlmostEqual(r[3], 100.0)
        self.assertAlmostEqual(r[4], 100.0 * (100 - 102) / 102)
        self.assertEqual(r[5], "ok")

    def test_slower_device_row_fails_the_rule(self):
        r = self.rows()["b"]
        self.assertAlmostEqual(r[4], 4.0)
        self.assertEqual(r[5], "SLOWER")
        self.assertEqual(compare_builds.compare(self.base, self.new, 5.0)[1][5], "ok")

    def test_host_rows_are_not_judged(self):
        self.assertEqual(self.rows()["h"][5], "host")

    def test_ratio_rows_higher_is_better(self):
        r = self.rows()["r"]  # 2.0 -> 1.8: 10% worse
        self.assertAlmostEqual(r[4], 10.0)
        self.assertEqual(r[5], "SLOWER")

    def test_cases_of_one_build(self):
        rows = self.rows()
        self.assertEqual(rows["added"][5], "new only")
        self.assertEqual(rows["gone"][5], "base only")

    def test_main_prints_and_writes_markdown(self):
        md = os.path.join(self.tmp.name, "t.md")
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = compare_builds.main(["--base"] + self.base + ["--new"] + self.new + ["--markdown", md])
        self.assertEqual(rc, 0)
        self.assertIn("2 device case(s) more than 3% slower: b, r", buf.getvalue())
        with open(md) as f:
            self.assertIn("| b | device | 100.0 | 104.0 | +4.0 | SLOWER |", f.read())

    def test_missing_file(self):
        with redirect_stdout(io.StringIO()):
            self.assertEqual(compare_builds.main(["--base", "/nonexistent.csv", "--new"] + self.new), 2)


if __name__ == "__main__":
    unittest.main()
