#!/usr/bin/env python3
"""bench/peers/torch_moe_peers.py's whole run (parent and children) on a machine where it can
measure nothing (no torch, or torch without a GPU, as on CI): it still writes its table and
JSON, every cell naming why it is empty, and exits 1, so that a device call does not read an
empty run as a comparison made.

    peers_without_gpu_test.py --script bench/peers/torch_moe_peers.py
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77  # ctest's SKIP_RETURN_CODE: a GPU is here, the run would measure


def gpu_present():
    probe = subprocess.run(
        [sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
        capture_output=True, timeout=120)
    return probe.returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    args = parser.parse_args()
    if gpu_present():
        print("a GPU with torch is here: the peers would measure; skipped")
        return SKIP
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "out", "peers.json")
        done = subprocess.run([sys.executable, args.script, "--tokens", "1,4",
                               "--budget-s", "100", "--json", report_path],
                              capture_output=True, text=True, timeout=110)
        if done.returncode != 1:
            failures.append(f"exit {done.returncode}, wanted 1")
        if "no cell was measured" not in done.stdout:
            failures.append("no 'no cell was measured' line")
        if "tokens | floor_us" not in done.stdout:
            failures.append("no table printed")
        try:
            with open(report_path) as fh:
                report = json.load(fh)
        except (OSError, ValueError) as exc:
            failures.append(f"no JSON report: {exc}")
            report = {}
        rows = report.get("rows") or []
        if [row.get("tokens") for row in rows] != [1, 4]:
            failures.append(f"JSON rows for tokens {[row.get('tokens') for row in rows]}")
        for row in rows:
            for key, value in row.items():
                if key.endswith("_us") and key != "floor_us" and value is not None:
                    failures.append(f"tokens {row.get('tokens')}: {key} = {value}")
                if key.endswith("_note") and not str(value).startswith("n/a"):
                    failures.append(f"tokens {row.get('tokens')}: {key} = {value!r}")
        if rows and not any(key.endswith("_note") for key in rows[0]):
            failures.append("the cells do not say why they are empty")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        print("--- stdout\n" + done.stdout + "--- stderr\n" + done.stderr)
        return 1
    print("ok: exit 1, the table and the JSON written, every cell n/a with its reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
