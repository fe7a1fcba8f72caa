#!/usr/bin/python3
"""An fhmoe evidence archive as pandas DataFrames, in one call (docs/evidence-schema.md).

    import sys; sys.path.insert(0, "tools")   # a checkout; an install has it in <prefix>/bin
    from evidence_frames import read_evidence
    run = read_evidence("run.h5")
    run["candidates"]          # one row per candidate
    run["decisions"]           # one row per decided shape (incumbent, best_challenger, published)
    run["provenance"]          # the root attributes, as a dict

Every table of the archive (policy, ranks, shapes, candidates, race, decisions) becomes a
DataFrame with the dataset's column names: strings as str, ENUM columns by name (statuses,
decisions, ratio bases), booleans as bool, absent numbers as NaN. schema_version 1 archives
read too, their /decisions winner_* columns renamed best_challenger_* (what they held).
Needs only h5py and pandas (Debian: python3-h5py python3-pandas), not PyTables, which
pandas.read_hdf would. Run as a program it prints each table's shape and first rows.
"""

import sys

import h5py
import pandas

TABLES = ("policy", "ranks", "shapes", "candidates", "race", "decisions")
SUPPORTED_VERSIONS = (1, 2)
# schema_version 1's names of the best challenger's columns (evidence-schema.md, Versions).
VERSION_1_RENAMES = {"winner_key": "best_challenger_key", "winner_us": "best_challenger_us",
                     "winner_stderr_us": "best_challenger_stderr_us"}


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def _column(dataset, values, name):
    """One column, decoded: ENUMs by name (booleans as bool), strings as str."""
    enum = h5py.check_enum_dtype(dataset.dtype[name])
    if enum is not None:
        if set(enum) == {"FALSE", "TRUE"}:
            return values.astype(bool)
        by_value = {value: label for label, value in enum.items()}
        ordered = [by_value[value] for value in sorted(by_value)]
        return pandas.Categorical([by_value[int(v)] for v in values], categories=ordered)
    if h5py.check_string_dtype(dataset.dtype[name]) is not None:
        return [_text(v) for v in values]
    return values


def read_evidence(path):
    """{table: DataFrame} for every table, and "provenance": {attribute: value}."""
    with h5py.File(path, "r") as archive:
        version = int(archive.attrs["schema_version"])
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"{path}: schema_version {version} is not supported (this reader "
                             f"reads {', '.join(map(str, SUPPORTED_VERSIONS))})")
        run = {"provenance": {key: _text(value) for key, value in archive.attrs.items()}}
        for table in TABLES:
            dataset = archive[table]
            values = dataset[()]
            run[table] = pandas.DataFrame(
                {name: _column(dataset, values[name], name) for name in values.dtype.names})
        if version == 1:
            run["decisions"] = run["decisions"].rename(columns=VERSION_1_RENAMES)
    return run


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    try:
        run = read_evidence(argv[1])
    except (OSError, KeyError, ValueError) as error:
        print(f"evidence_frames: {argv[1]}: {error}", file=sys.stderr)
        return 2
    for table in TABLES:
        print(f"{table}: {len(run[table])} rows")
        print(run[table].head(3).to_string(), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
