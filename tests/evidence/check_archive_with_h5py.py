#!/usr/bin/python3
"""Reads an archive with h5py (and pandas when installed), no project code, and checks it
against the JSON sidecar its writer emitted: every dataset's row count, the enum names,
and the values of every candidate, shape and decision. Also checks that `fhmoe_evidence
export` writes the same columns as the datasets hold.

    check_archive_with_h5py.py --writer PATH --tool PATH

With --archive and --summary-json instead, checks the archive of a real fhmoe_tune_mpi run
against the summary the tuner wrote itself (--summary-json): every dataset's row count, and
per shape the status counts and the decision.

    check_archive_with_h5py.py --archive RUN.h5 --summary-json SUMMARY.json
"""

import argparse
import csv
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import h5py

STATUS_NAMES = ["ok", "mismatch", "unsupported", "crash", "timeout", "oom_runtime",
                "oom_preflight", "not_run"]
DECISION_NAMES = ["promote", "retain", "incomplete", "all_failed", "pending"]
TABLES = ["shapes", "candidates", "race", "decisions", "policy", "ranks"]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def same_number(archived, expected):
    if expected is None:
        return math.isnan(archived)
    return float(archived) == float(expected)


def text(value):
    return value.decode("utf-8")


def check_archive(path, sidecar):
    with h5py.File(path, "r") as archive:
        attrs = archive.attrs
        check(attrs["schema_version"] == 2, f"schema_version {attrs['schema_version']}")
        provenance = sidecar["provenance"]
        check(attrs["tool_version"] == provenance["tool_version"], "tool_version")
        check(attrs["backend"] == provenance["backend"], "backend")
        check(int(attrs["seed"]) == provenance["seed"], "seed")
        check(int(attrs["exit_status"]) == provenance["exit_status"], "exit_status")
        check(list(attrs["command_line"]) == provenance["command_line"], "command_line")
        check(bool(attrs["complete"]) is True, "complete is a bool")

        for table in TABLES:
            dataset = archive[table]
            check(len(dataset) == sidecar["rows"][table],
                  f"/{table}: {len(dataset)} rows, sidecar says {sidecar['rows'][table]}")
            check(dataset.compression == "gzip", f"/{table} is not deflate-compressed")
            check(dataset.chunks is not None, f"/{table} is not chunked")
            check(dataset.maxshape == (None,), f"/{table} is not extendible")

        candidates = archive["candidates"]
        status_enum = h5py.check_enum_dtype(candidates.dtype["status"])
        check(status_enum == {name: i for i, name in enumerate(STATUS_NAMES)},
              f"status enum {status_enum}")
        decision_enum = h5py.check_enum_dtype(archive["decisions"].dtype["decision"])
        check(decision_enum == {name: i for i, name in enumerate(DECISION_NAMES)},
              f"decision enum {decision_enum}")
        status_of = {v: k for k, v in status_enum.items()}
        decision_of = {v: k for k, v in decision_enum.items()}

        rows = candidates[()]
        for i, expected in enumerate(sidecar["candidates"]):
            row = rows[i]
            where = f"/candidates[{i}]"
            check(row["shape_id"] == expected["shape_id"], where + ".shape_id")
            check(text(row["candidate_key"]) == expected["candidate_key"], where + ".candidate_key")
            check(status_of[row["status"]] == expected["status"], where + ".status")
            check(same_number(row["mean_us"], expected["mean_us"]), where + ".mean_us")
            check(same_number(row["relative_to_incumbent"], expected["relative_to_incumbent"]),
                  where + ".relative_to_incumbent")
            check(bool(row["catastrophic"]) == expected["catastrophic"], where + ".catastrophic")
            check(text(row["detail"]) == expected["detail"], where + ".detail")

        shapes = archive["shapes"][()]
        for i, expected in enumerate(sidecar["shapes"]):
            check(text(shapes[i]["shape_key"]) == expected["shape_key"], f"/shapes[{i}].shape_key")
            check(shapes[i]["n_ok"] == expected["n_ok"], f"/shapes[{i}].n_ok")
            check(decision_of[shapes[i]["decision"]] == expected["decision"],
                  f"/shapes[{i}].decision")

        decisions = archive["decisions"][()]
        for i, expected in enumerate(sidecar["decisions"]):
            check(decision_of[decisions[i]["decision"]] == expected["decision"],
                  f"/decisions[{i}].decision")
            for field in ("best_challenger_key", "published_key"):
                check(text(decisions[i][field]) == expected[field], f"/decisions[{i}].{field}")
            check(same_number(decisions[i]["margin_pct"], expected["margin_pct"]),
                  f"/decisions[{i}].margin_pct")

        policy = {text(row["name"]): row["value"] for row in archive["policy"][()]}
        check(policy == sidecar["policy"], f"policy {policy}")
        return {table: list(archive[table].dtype.names) for table in TABLES}


def check_pandas(path, sidecar):
    try:
        import pandas
    except ImportError:
        print("pandas not installed: the pandas reading is not checked")
        return
    with h5py.File(path, "r") as archive:
        frame = pandas.DataFrame(archive["candidates"][()])
        names = {v: k for k, v in h5py.check_enum_dtype(archive["candidates"].dtype["status"]).items()}
    check(len(frame) == sidecar["rows"]["candidates"], "pandas row count")
    statuses = frame["status"].map(names)
    expected = [c["status"] for c in sidecar["candidates"]]
    check(list(statuses) == expected, "pandas status column")
    check(list(frame["detail"].str.decode("utf-8")) == [c["detail"] for c in sidecar["candidates"]],
          "pandas detail column")


def check_frames(path, sidecar, columns):
    """tools/evidence_frames.py: every table in one call, decoded (issue #15, item 5)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from evidence_frames import read_evidence
    run = read_evidence(path)
    for table in TABLES:
        check(list(run[table].columns) == columns[table], f"frames: {table} columns")
        check(len(run[table]) == sidecar["rows"][table], f"frames: {table} row count")
    candidates = run["candidates"]
    check(list(candidates["status"]) == [c["status"] for c in sidecar["candidates"]],
          "frames: status by name")
    check(list(candidates["detail"]) == [c["detail"] for c in sidecar["candidates"]],
          "frames: detail as str")
    check(candidates["catastrophic"].dtype == bool, "frames: catastrophic is bool")
    check(list(candidates["catastrophic"]) == [c["catastrophic"] for c in sidecar["candidates"]],
          "frames: catastrophic values")
    decisions = run["decisions"]
    check(list(decisions["decision"]) == [d["decision"] for d in sidecar["decisions"]],
          "frames: decision by name")
    check(list(decisions["published_key"]) == [d["published_key"] for d in sidecar["decisions"]],
          "frames: published_key")
    check(run["provenance"]["tool_version"] == sidecar["provenance"]["tool_version"],
          "frames: provenance")


def check_export(tool, path, sidecar, columns, directory):
    result = subprocess.run([tool, "export", str(path), "--csv", str(directory)],
                            capture_output=True, text=True, check=False)
    check(result.returncode == 0, f"export exit {result.returncode}: {result.stderr}")
    for table in TABLES:
        with open(Path(directory) / f"{table}.csv", newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        check(rows[0] == columns[table],
              f"{table}.csv columns differ from the dataset's:\n {rows[0]}\n {columns[table]}")
        check(len(rows) - 1 == sidecar["rows"][table], f"{table}.csv row count")


# Summary lines of shapes the run skipped: they have no row in the archive.
SKIPPED = {"already tuned", "other device"}


def check_against_run_summary(path, summary):
    """Row counts of a real run's archive against the tuner's own --summary-json."""
    tuned = [shape for shape in summary["shapes"] if shape["decision"] not in SKIPPED]
    expected_rows = {
        "shapes": len(tuned),
        "candidates": sum(sum(shape["candidates"].values()) for shape in tuned),
        "race": sum(shape["race_samples"] for shape in tuned),
        "decisions": sum(1 for shape in tuned if shape["decision"] in DECISION_NAMES),
        "ranks": summary["ranks"],
        "policy": len(summary["policy"]),
    }
    with h5py.File(path, "r") as archive:
        for table in TABLES:
            check(len(archive[table]) == expected_rows[table],
                  f"/{table}: {len(archive[table])} rows, the run's summary says "
                  f"{expected_rows[table]}")
        decision_of = {v: k for k, v in
                       h5py.check_enum_dtype(archive["shapes"].dtype["decision"]).items()}
        shapes = {text(row["shape_key"]): row for row in archive["shapes"][()]}
        for expected in tuned:
            row = shapes.get(expected["shape"])
            if row is None:
                check(False, f"/shapes has no row for {expected['shape']}")
                continue
            for status in STATUS_NAMES:
                archived = int(row["n_" + status])
                wanted = expected["candidates"].get(status, 0)
                check(archived == wanted,
                      f"/shapes {expected['shape']}: n_{status} {archived}, summary {wanted}")
            check(decision_of[row["decision"]] == expected["decision"],
                  f"/shapes {expected['shape']}: decision {decision_of[row['decision']]}, "
                  f"summary {expected['decision']}")
        policy = {text(row["name"]): float(row["value"]) for row in archive["policy"][()]}
        check(policy == summary["policy"], f"/policy {policy} != summary {summary['policy']}")
        check(int(archive.attrs["exit_status"]) == summary["exit_code"], "exit_status")
    print("rows:", expected_rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--writer")
    parser.add_argument("--tool")
    parser.add_argument("--archive")
    parser.add_argument("--summary-json")
    args = parser.parse_args()
    if args.archive or args.summary_json:
        if not (args.archive and args.summary_json):
            parser.error("--archive and --summary-json go together")
        summary = json.loads(Path(args.summary_json).read_text(encoding="utf-8"))
        check_against_run_summary(args.archive, summary)
        for failure in failures:
            print("FAIL:", failure)
        print(f"{len(failures)} failures")
        return 1 if failures else 0
    if not (args.writer and args.tool):
        parser.error("--writer and --tool are required (or --archive and --summary-json)")
    with tempfile.TemporaryDirectory(prefix="fhmoe-h5py-") as scratch:
        archive = Path(scratch) / "run.h5"
        sidecar_path = Path(scratch) / "run.json"
        subprocess.run([args.writer, str(archive), str(sidecar_path), "61", "35"], check=True)
        sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
        check(sidecar["rows"]["candidates"] > 100, "the sample is too small to mean much")
        columns = check_archive(archive, sidecar)
        check_pandas(archive, sidecar)
        check_frames(archive, sidecar, columns)
        check_export(args.tool, archive, sidecar, columns, Path(scratch) / "csv")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
