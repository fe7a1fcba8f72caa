#!/usr/bin/env python3
"""tools/gpu/record_table.py on a recorded device call (docs/data, 2026-12-04 18:29: the bench
before its chain column, the peers' printed table before their chain mode) and on bench and
peers outputs written here in today's formats, each with one thing wrong.

    record_table_test.py --tool tools/gpu/record_table.py --data docs/data
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TOOL = None
DATA = None
TOKENS = (1, 4, 16, 64, 256, 1024, 2048)
RECORDED_BENCH = "h200-2026-12-04-q-fhmoe_gpu_bench.txt"
RECORDED_PEERS = "h200-2026-12-04-q-peers.txt"


def run(*args):
    done = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          timeout=60)
    return done.returncode, done.stdout, done.stderr


def clause(stdout, start):
    """The (verdict, detail) of the clause line that starts with `start`."""
    for line in stdout.split("\n"):
        if line.startswith(start):
            match = re.match(r"^.*?\s{2,}(met|NOT MET|n/a)\s{2,}(.*)$", line)
            if match:
                return match.group(1), match.group(2)
    raise AssertionError(f"no clause line starting {start!r} in:\n{stdout}")


def table_row(stdout, name):
    for line in stdout.split("\n"):
        if line.startswith(name + " ") and len(line) > 36:
            return line[36:].split()
    raise AssertionError(f"no table row {name!r} in:\n{stdout}")


# Today's bench: a candidate's row has a chain column; two candidates per token, the second
# (the default) slower. The floor is the best graph time / 1.5 at every token (within 2x).
def bench_text(mismatch_at=None, cut=False, broken_line=False):
    lines = ["gpu backend on NVIDIA H200 (sm_90, 132 SMs, L2 60 MiB, driver 13.0), DSV4 I384 "
             "(H 7168, I 384, E 385, topk 7); copy bandwidth 4.21 TB/s",
             "medians of 20 event-timed runs after 3 warm-up runs",
             "tokens candidate eager_us graph_us chain_us route stage1 quant stage2 floor_us "
             "x_fl mismatch cos_dist"]
    summary = []
    for t in TOKENS:
        graph = 30.0 * t
        floor = graph / 1.5
        for name, factor in (("fast", 1.0), ("default", 1.2)):
            mismatch = 0.25 if (mismatch_at == t and name == "fast") else 0.0
            lines.append(f"{t} bm16|{name}|s2 {graph * factor + 10:.1f} {graph * factor:.1f} "
                         f"{graph * factor - 2:.1f} 3.0 10.0 0.0 5.0 {floor:.1f} "
                         f"{graph * factor / floor:.2f} {mismatch:.4f} 1.0e-06")
        lines.append(f"{t} bm16|huge|s2 unsupported: gpu backend cannot run this candidate")
        summary.append(f"{t} {floor:.1f} {graph:.1f} {graph - 2:.1f} {graph + 10:.1f} 3.00 2.93 "
                       f"{graph * 1.2:.1f} {graph * 1.2 + 10:.1f}  bm16|fast|s2")
    if broken_line:
        lines.insert(5, "4 bm16|odd|s2 12.0 11.0")
    if cut:
        lines.append("2048 bm16|late|s2 123.4 120")
        return "\n".join(lines) + "\n"
    lines += ["", "fastest candidate per token (graph replay; mismatch 0 against the CPU "
              "reference)",
              "tokens floor_us graph_us chain_us eager_us x_floor x_chain dflt_grph dflt_eagr "
              "candidate"] + summary
    return "\n".join(lines) + "\n"


# Today's peers: JSON with eager, graph and chain for each method; bf16 is slower than the
# fake bench's best by `margin` at every token except `lose_at`.
def peers_json(lose_at=None, flag_at=None):
    rows = []
    for t in TOKENS:
        graph = 30.0 * t
        row = {"tokens": t, "floor_us": graph / 1.5 + 0.1}
        for method in ("bf16_grouped_mm", "fp8_scaled_grouped_mm", "dequant_then_matmul"):
            scale = 0.9 if (method == "bf16_grouped_mm" and t == lose_at) else 2.0
            row[f"{method}_eager_us"] = (graph + 10) * scale
            row[f"{method}_graph_us"] = graph * scale
            row[f"{method}_chain_us"] = (graph - 2) * scale
            row[f"{method}_check_failed"] = (method == "dequant_then_matmul" and t == flag_at)
        rows.append(row)
    return json.dumps({"schema": "fhmoe-torch-moe-peers/1", "copy_bw_tb_per_s": 4.15,
                       "rows": rows}, indent=1)


class RecordTableTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return path

    def test_the_recorded_call_of_2026_12_04(self):
        code, out, err = run(os.path.join(DATA, RECORDED_BENCH), "--peers",
                             os.path.join(DATA, RECORDED_PEERS))
        self.assertEqual(code, 1, err)  # one clause not met: one token at 2.93x the floor
        self.assertEqual(table_row(out, "fhmoe best, graph"),
                         ["24.3", "51.5", "137.5", "363.8", "707.3", "1381.9", "2450.0"])
        self.assertEqual(table_row(out, "torch bf16 _grouped_mm, graph"),
                         ["122.2", "231.8", "578.9", "1483.5", "2180.2", "2378.5", "2570.3"])
        self.assertEqual(table_row(out, "x floor (graph)")[:4], ["2.93", "1.97", "1.53", "1.42"])
        self.assertNotIn("fhmoe best, chain", out)  # that bench timed no chain
        self.assertEqual(clause(out, "mismatch 0")[0], "met")
        self.assertIn("2446 rows timed, 0 with mismatch > 0, 40 unsupported",
                      clause(out, "mismatch 0")[1])
        verdict, detail = clause(out, "faster than torch bf16 _grouped_mm, graph")
        self.assertEqual((verdict, detail), ("met", "closest at 2048 tokens: 4.7 % faster"))
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, eager")[0], "met")
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, chain")[0], "n/a")
        verdict, detail = clause(out, "within 2x of the floor")
        self.assertEqual(verdict, "NOT MET")
        self.assertTrue(detail.startswith("over at 1 (2.93x);"), detail)
        self.assertEqual(clause(out, "the peers' correctness checks")[0], "met")

    def test_todays_formats_all_met(self):
        code, out, err = run(self.write("bench.txt", bench_text()), "--peers",
                             self.write("peers.json", peers_json()))
        self.assertEqual(code, 0, out + err)
        self.assertEqual(table_row(out, "fhmoe best, chain")[0], "28.0")
        self.assertEqual(table_row(out, "torch bf16 _grouped_mm, chain")[0], "56.0")
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, chain")[0], "met")
        self.assertEqual(table_row(out, "default config, graph")[0], "36.0")
        self.assertIn("floor (peers, 4.15 TB/s)", out)

    def test_a_mismatching_row_fails_the_clause_and_is_not_the_best(self):
        code, out, _ = run(self.write("bench.txt", bench_text(mismatch_at=16)), "--peers",
                           self.write("peers.json", peers_json()))
        self.assertEqual(code, 1)
        verdict, detail = clause(out, "mismatch 0")
        self.assertEqual(verdict, "NOT MET")
        self.assertIn("1 with mismatch > 0, 7 unsupported; e.g. 16 bm16|fast|s2", detail)
        # The best at 16 tokens is the matching default (576.0), not the faster wrong one.
        self.assertEqual(table_row(out, "fhmoe best, graph")[2], "576.0")

    def test_a_loss_to_torch_is_named(self):
        code, out, _ = run(self.write("bench.txt", bench_text()), "--peers",
                           self.write("peers.json", peers_json(lose_at=256)))
        self.assertEqual(code, 1)
        for mode in ("eager", "graph", "chain"):
            verdict, detail = clause(out, f"faster than torch bf16 _grouped_mm, {mode}")
            self.assertEqual((verdict, detail), ("NOT MET", "not faster (or not timed) at [256]"))

    def test_a_flagged_peer_check_is_reported(self):
        code, out, _ = run(self.write("bench.txt", bench_text()), "--peers",
                           self.write("peers.json", peers_json(flag_at=4)))
        self.assertEqual(code, 1)
        self.assertEqual(clause(out, "the peers' correctness checks"),
                         ("NOT MET", "flagged: [(4, 'dequant_then_matmul')]"))

    def test_a_bench_cut_off_mid_line_misses_its_last_token(self):
        code, out, _ = run(self.write("bench.txt", bench_text(cut=True)))
        self.assertEqual(code, 1)
        self.assertEqual(clause(out, "the bench ran to its end")[0], "NOT MET")
        # Without the peers the comparison the issue asks for is not shown.
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, graph"),
                         ("NOT MET", "no peers file"))
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, chain"),
                         ("n/a", "no peers file"))

    def test_peers_without_figures_do_not_show_the_comparison(self):
        rows = json.loads(peers_json())
        for row in rows["rows"]:
            for key in list(row):
                if key.startswith("bf16_grouped_mm_") and key.endswith("_us"):
                    row[key] = None
        code, out, _ = run(self.write("bench.txt", bench_text()), "--peers",
                           self.write("peers.json", json.dumps(rows)))
        self.assertEqual(code, 1)
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, eager"),
                         ("NOT MET", "no eager figures on one side"))
        self.assertEqual(clause(out, "faster than torch bf16 _grouped_mm, chain"),
                         ("n/a", "no chain figures on one side"))

    def test_a_token_not_timed_is_not_met(self):
        code, out, _ = run(self.write("bench.txt", bench_text()), "--tokens", "1,4,8")
        self.assertEqual(code, 1)
        self.assertEqual(clause(out, "every token timed"),
                         ("NOT MET", "missing or no mismatch-0 candidate: [8]"))

    def test_bad_input_names_the_file_and_line(self):
        path = self.write("bench.txt", bench_text(broken_line=True))
        code, out, err = run(path)
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn(f"{path}:6: a candidate row has 4 fields, the header 13", err)

    def test_unreadable_inputs_and_flags(self):
        missing = os.path.join(self.dir.name, "none.txt")
        code, _, err = run(missing)
        self.assertEqual(code, 2)
        self.assertIn(f"{missing}: cannot read", err)
        code, _, err = run(self.write("bench.txt", bench_text()), "--peers",
                           self.write("peers.json", "{\"rows\": 3}"))
        self.assertEqual(code, 2)
        self.assertIn("peers.json: no rows", err)
        code, _, err = run(self.write("other.txt", "hello\n"))
        self.assertEqual(code, 2)
        self.assertIn("not fhmoe_gpu_bench's output", err)
        code, _, err = run(self.write("bench.txt", bench_text()), "--floor-multiple", "0")
        self.assertEqual(code, 2)
        self.assertIn("--floor-multiple", err)
        code, _, err = run(self.write("bench.txt", bench_text()), "--tokens", "1,x")
        self.assertEqual(code, 2)
        self.assertIn("--tokens", err)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--data", required=True)
    args, rest = parser.parse_known_args()
    TOOL, DATA = args.tool, args.data
    unittest.main(argv=[sys.argv[0], *rest])
