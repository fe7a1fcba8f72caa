#!/usr/bin/env python3
"""tools/gpu/device-run.sh's plumbing, run here in a copy of the tree where the GPU programs are
stand-ins (no GPU on this machine): the bundle's xz-compressed binaries and libraries unpacked,
the record's steps in order with record_table.py at the end, the call budget cutting the last
step, a failing step in the status, the Open MPI runtime's archive unpacked for the MPI step,
and the logs packed into one archive so that a call brings back at most 8 files, the caller's
own log left alone.

    device_run_test.py --source-dir REPO
"""

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

SOURCE = None

# A bench output in today's format whose best is within 2x of the floor and faster than the
# stand-in peers at every token: the record's clauses are all met.
BENCH = ["gpu backend on a stand-in (sm_90, 132 SMs); copy bandwidth 4.20 TB/s",
         "tokens candidate eager_us graph_us chain_us route stage1 quant stage2 floor_us x_fl "
         "mismatch cos_dist"]
for _t in (1, 4, 16, 64, 256, 1024, 2048):
    BENCH.append(f"{_t} bm16|a|b {30 * _t + 9:.1f} {30 * _t:.1f} {30 * _t - 1:.1f} 1 1 1 1 "
                 f"{20 * _t:.1f} 1.50 0.0000 1e-06")
BENCH_TEXT = "\n".join(BENCH) + "\n"

PEERS = """#!/usr/bin/env python3
import json, sys
path = sys.argv[sys.argv.index("--json") + 1]
rows = [{"tokens": t, "floor_us": 20.0 * t, "bf16_grouped_mm_eager_us": 90.0 * t,
         "bf16_grouped_mm_graph_us": 80.0 * t, "bf16_grouped_mm_chain_us": 70.0 * t}
        for t in (1, 4, 16, 64, 256, 1024, 2048)]
json.dump({"rows": rows, "copy_bw_tb_per_s": 4.1}, open(path, "w"))
print("stand-in peers table")
"""


def executable(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class DeviceRunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = self.root = os.path.join(self.dir.name, "repo")
        os.makedirs(os.path.join(root, "tools", "gpu"))
        for name in ("device-run.sh", "record_table.py"):
            shutil.copy(os.path.join(SOURCE, "tools", "gpu", name),
                        os.path.join(root, "tools", "gpu", name))
        os.makedirs(os.path.join(root, "bench", "peers"))
        executable(os.path.join(root, "bench", "peers", "torch_moe_peers.py"), PEERS)
        self.fake = os.path.join(self.dir.name, "fakebin")
        os.makedirs(self.fake)
        executable(os.path.join(self.fake, "nvidia-smi"), "#!/bin/sh\necho 'index, name'\n"
                   "echo '0, stand-in'\n")
        executable(os.path.join(self.fake, "cuobjdump"),
                   "#!/bin/sh\nprintf '\\tFunction : matrix_stage1_kernel\\n HMMA.16816 a\\n"
                   " QGMMA.64x8x32 b\\n'\n")
        self.bin = os.path.join(root, ".device", "bin")
        os.makedirs(self.bin)
        library = os.path.join(root, ".device", "lib", "libstandin.so.1")
        os.makedirs(os.path.dirname(library))
        with open(library, "w", encoding="utf-8") as fh:
            fh.write("a library\n")
        subprocess.run(["xz", "-f", library], check=True)
        self.out = os.path.join(self.dir.name, "out")
        os.makedirs(self.out)
        self.program("gpu_op_test", "echo '[  PASSED  ] 15 tests.'")
        self.program("gpu_quantizer_test", "echo '[  PASSED  ] 3 tests.'")
        self.program("gpu_fault_matrix_test", "echo '[  PASSED  ] 13 tests.'")
        bench = os.path.join(self.dir.name, "bench.txt")
        with open(bench, "w", encoding="utf-8") as fh:
            fh.write(BENCH_TEXT)
        self.program("fhmoe_gpu_bench", f"cat '{bench}'")

    def tearDown(self):
        self.dir.cleanup()

    def program(self, name, body):
        """A stand-in GPU program, carried xz-compressed as the bundle carries them."""
        path = os.path.join(self.bin, name)
        executable(path, "#!/bin/sh\n" + body + "\n")
        subprocess.run(["xz", "-f", path], check=True)

    def run_script(self, *steps, env=None, log_name="device-run.log"):
        environment = dict(os.environ, OUT=self.out, PATH=self.fake + os.pathsep + os.environ["PATH"])
        environment.update(env or {})
        log = os.path.join(self.out, log_name)
        started = time.monotonic()
        with open(log, "w", encoding="utf-8") as fh:
            done = subprocess.run(["bash", os.path.join(self.root, "tools", "gpu", "device-run.sh"),
                                   *steps], stdout=fh, stderr=subprocess.STDOUT, env=environment,
                                  timeout=120)
        with open(log, encoding="utf-8") as fh:
            return done.returncode, fh.read(), time.monotonic() - started

    def test_a_record_runs_every_step_and_packs_the_logs(self):
        code, log, _ = self.run_script("record", env={"FHMOE_CALL_BUDGET": "100"})
        self.assertEqual(code, 0, log)
        sections = [line.rsplit(" (", 1)[0] for line in log.split("\n") if line.startswith("=== ")]
        self.assertEqual(sections, [
            "=== machine", "=== sass: matrix instructions in the stage kernels", "=== gpu_op_test",
            "=== gpu_quantizer_test", "=== gpu_fault_matrix_test",
            "=== peers: PyTorch on the same shapes", "=== fhmoe_gpu_bench",
            "=== record: issue #11's table and clauses (tools/gpu/record_table.py)",
            "=== done, status 0"])
        files = sorted(os.listdir(self.out))
        self.assertEqual(files, ["bench.txt", "device-run.log", "logs.tgz", "peers.json",
                                 "peers.txt", "record.txt", "sass_summary.txt"])
        self.assertLessEqual(len(files), 8)
        with tarfile.open(os.path.join(self.out, "logs.tgz")) as archive:
            self.assertEqual(sorted(archive.getnames()),
                             ["bench.err", "gpu_fault_matrix.log", "gpu_op_test.log",
                              "gpu_quantizer_test.log", "machine.txt"])
        with open(os.path.join(self.out, "record.txt"), encoding="utf-8") as fh:
            record = fh.read()
        self.assertIn("within 2x of the floor under graph replay, tokens 1,4,16,64  met", record)
        self.assertIn("faster than torch bf16 _grouped_mm, chain against chain      met", record)
        # The stand-ins ran from the unpacked binaries; the libraries are unpacked too.
        self.assertTrue(os.access(os.path.join(self.bin, "gpu_op_test"), os.X_OK))
        with open(os.path.join(self.root, ".device", "lib", "libstandin.so.1"),
                  encoding="utf-8") as fh:
            self.assertEqual(fh.read(), "a library\n")

    def test_a_failing_test_step_fails_the_call(self):
        self.program("gpu_op_test", "echo '[  FAILED  ] 1 test'; exit 1")
        code, log, _ = self.run_script("tests")
        self.assertEqual(code, 1)
        self.assertIn("=== done, status 1", log)

    def test_the_mpi_step_unpacks_the_open_mpi_archive_and_runs_two_ranks(self):
        # Two GPUs; the runtime carried as stage-device-bundle.sh packs it: one archive whose
        # env.sh puts its mpirun first on PATH.
        executable(os.path.join(self.fake, "nvidia-smi"),
                   "#!/bin/sh\necho 'GPU 0: stand-in'\necho 'GPU 1: stand-in'\n")
        staging = os.path.join(self.dir.name, "staging")
        runtime = os.path.join(staging, "openmpi")
        os.makedirs(os.path.join(runtime, "root", "usr", "bin"))
        with open(os.path.join(runtime, "env.sh"), "w", encoding="utf-8") as fh:
            fh.write('R="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/root"\n'
                     'export PATH="$R/usr/bin:$PATH"\n')
        # The stand-in mpirun runs the program after "-np N" N times, as ranks would.
        executable(os.path.join(runtime, "root", "usr", "bin", "mpirun"),
                   "#!/bin/sh\nwhile [ \"$1\" != -np ]; do shift; done\nranks=$2; shift 2\n"
                   "i=0; while [ $i -lt $ranks ]; do \"$@\" || exit 1; i=$((i + 1)); done\n")
        archive = os.path.join(self.root, ".device", "openmpi.tar.xz")
        subprocess.run(f"tar -C '{staging}' -cf - openmpi | xz > '{archive}'", shell=True,
                       check=True)
        os.makedirs(os.path.join(self.root, "configs"))
        with open(os.path.join(self.root, "configs", "untuned_fhmoe_small.csv"), "w",
                  encoding="utf-8") as fh:
            fh.write("token,model_dim\n")
        self.program("fhmoe_tune_mpi", "echo 'rank ran with' \"$@\"")
        self.program("fhmoe_evidence", "echo \"evidence $1\"")
        code, log, _ = self.run_script("mpi")
        self.assertEqual(code, 0, log)
        self.assertEqual(log.count("rank ran with --backend gpu --worker"), 2, log)
        self.assertIn("evidence summary", log)
        self.assertTrue(os.path.isfile(os.path.join(self.root, ".device", "openmpi", "env.sh")))

    def test_the_call_budget_cuts_the_last_step(self):
        self.program("fhmoe_gpu_bench", "sleep 60")
        code, log, seconds = self.run_script("bench", env={"FHMOE_CALL_BUDGET": "14",
                                                           "FHMOE_STEP_TIMEOUT": "300"})
        self.assertEqual(code, 1)  # the bench was cut off
        self.assertIn("=== done, status 1", log)
        self.assertLess(seconds, 14)  # ended 10 s before the budget would, not after 60


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    args, rest = parser.parse_known_args()
    SOURCE = args.source_dir
    unittest.main(argv=[sys.argv[0], *rest])
