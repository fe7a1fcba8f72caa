#!/usr/bin/python3
"""Runs tools/plot_evidence.py on a written archive and checks that it produces every
figure as a real, non-empty PNG, and that a missing archive is exit status 2.

    check_plot_evidence.py --writer PATH --plot PATH
"""

import argparse
import importlib.util
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    data = path.read_bytes()
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--writer", required=True)
    parser.add_argument("--plot", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="fhmoe-plot-") as scratch:
        archive = Path(scratch) / "run.h5"
        subprocess.run([args.writer, str(archive), str(Path(scratch) / "run.json"), "71", "14"],
                       check=True)
        out = Path(scratch) / "png"
        result = subprocess.run(["/usr/bin/python3", args.plot, str(archive), "--out", str(out),
                                 "--per-page", "9"], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            failures.append(f"plot exit {result.returncode}: {result.stderr}")
        expected = ["latency.png", "latency_p2.png", "status.png", "race.png"]
        written = sorted(Path(line).name for line in result.stdout.split())
        if written != sorted(expected):
            failures.append(f"wrote {written}, expected {sorted(expected)}")
        for name in expected:
            size = png_size(out / name) if (out / name).exists() else None
            if size is None or size[0] < 100 or size[1] < 100 or (out / name).stat().st_size < 5000:
                failures.append(f"{name} is not a real figure (size {size})")

        missing = subprocess.run(["/usr/bin/python3", args.plot, str(Path(scratch) / "none.h5"),
                                  "--out", str(out)], capture_output=True, text=True, check=False)
        if missing.returncode != 2 or "none.h5" not in missing.stderr:
            failures.append(f"missing archive: exit {missing.returncode}, {missing.stderr!r}")
    # Legend labels: two keys that differ only in the middle must not look the same.
    spec = importlib.util.spec_from_file_location("plot_evidence", args.plot)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    twins = ["bm16|fhmoe1_afp8_wfp4_bf16_t16x64x128_w4_gui_fp8|fhmoe2_afp8_wfp4_bf16_t16x128x128_atomic",
             "bm16|fhmoe1_afp8_wfp4_bf16_t16x64x256_w4_gui_fp8|fhmoe2_afp8_wfp4_bf16_t16x128x128_atomic"]
    if plot.short_key(twins[0]) != plot.short_key(twins[1]):
        failures.append("the twin keys no longer collide at the default width: pick other twins")
    labels = plot.distinct_short_keys(twins)
    if len(set(labels.values())) != 2:
        failures.append(f"legend labels do not tell the candidates apart: {labels}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
