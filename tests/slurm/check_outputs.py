#!/usr/bin/python3
"""Checks the outputs of tuner runs under Slurm (Debian's /usr/bin/python3 and h5py).

  check_outputs.py devices LOG RANKS    every rank logged one CUDA_VISIBLE_DEVICES, all distinct
  check_outputs.py csv TUNED_CSV        the tuned CSV has the tuned_fhmoe columns and rows
  check_outputs.py h5 ARCHIVE           h5py reads the archive and it holds data
  check_outputs.py decisions A B        two tuned CSVs published the same shapes with the same
                                        block_m/ksplit; kernel names too with --strict-kernels
  check_outputs.py node-devices LOG RANKS HOSTS
                                        several nodes: every rank logged its host, local rank and
                                        device; each host's ranks have local ranks 0..k-1 and
                                        distinct devices, numbered per node
  check_outputs.py ranks ARCHIVE HOST=R,R... ...
                                        the archive's /ranks puts exactly these ranks on each host
  check_outputs.py measured-on ARCHIVE HOST
                                        the archive holds candidates measured (status ok) on HOST
  check_outputs.py races-per-host ARCHIVE
                                        cpu ranks share their host: no candidate ran on a race's
                                        host during the race, and candidates on other hosts did
                                        (a rule treating all hosts as one device never lets them)

Exit 0 when the check holds, 1 with a message when it does not.
"""
import csv
import re
import sys

# aiter's tuned_fhmoe.csv columns (DESIGN.md section 4) plus the tuner's measured us and err.
KEY_COLUMNS = ["gfx", "cu_num", "token", "model_dim", "inter_dim", "expert", "topk",
               "shared_expert_id", "act_type", "dtype", "q_dtype_a", "q_dtype_w", "q_type",
               "use_g1u1", "doweight_stage1", "hidden_pad", "intermediate_pad", "gate_mode"]
DECISION_COLUMNS = ["block_m", "ksplit", "kernelName1", "kernelName2"]
REQUIRED_COLUMNS = KEY_COLUMNS + DECISION_COLUMNS + ["us", "err"]

# A device line: srun --label's "N: " prefix, then anything naming CUDA_VISIBLE_DEVICES=value.
LABEL = re.compile(r"^\s*(\d+):\s")
RANK_IN_TEXT = re.compile(r"\brank[\s=:#]*(\d+)\b", re.IGNORECASE)
DEVICE = re.compile(r"CUDA_VISIBLE_DEVICES=([^\s,;)'\"]+)")


def fail(message):
    print(f"check_outputs: FAIL: {message}")
    sys.exit(1)


def check_devices(log_path, ranks):
    """The rank is the last one the line names before the device ("[rank 0] rank 2 on host:
    ... CUDA_VISIBLE_DEVICES=2" is rank 0 reporting rank 2), else srun's --label prefix."""
    devices_by_rank = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            device = DEVICE.search(line)
            if not device:
                continue
            label = LABEL.match(line)
            named = RANK_IN_TEXT.findall(line[:device.start()])
            rank = int(named[-1]) if named else (int(label.group(1)) if label else None)
            if rank is None:
                continue
            devices_by_rank.setdefault(rank, set()).add(device.group(1))
    if sorted(devices_by_rank) != list(range(ranks)):
        fail(f"ranks that logged CUDA_VISIBLE_DEVICES: {sorted(devices_by_rank)}, expected 0..{ranks - 1}")
    for rank, devices in sorted(devices_by_rank.items()):
        if len(devices) != 1:
            fail(f"rank {rank} logged several devices: {sorted(devices)}")
    chosen = [next(iter(devices_by_rank[rank])) for rank in range(ranks)]
    if len(set(chosen)) != ranks:
        fail(f"ranks share devices: {chosen}")
    print(f"check_outputs: {ranks} ranks on distinct devices {chosen}")


def read_tuned(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        rows = list(reader)
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        fail(f"{path}: header lacks {missing} (header: {header})")
    if not rows:
        fail(f"{path}: no rows")
    for number, row in enumerate(rows, start=2):
        if not row["block_m"].strip().isdigit():
            fail(f"{path}:{number}: block_m '{row['block_m']}' is not a number")
        if not row["kernelName1"].strip() or not row["kernelName2"].strip():
            fail(f"{path}:{number}: empty kernel name")
    return rows


def check_csv(path):
    rows = read_tuned(path)
    print(f"check_outputs: {path}: {len(rows)} tuned rows")


def check_h5(path):
    import h5py  # Debian's python3-h5py; imported here so the other checks do not need it

    datasets = {}

    def visit(name, item):
        if isinstance(item, h5py.Dataset):
            datasets[name] = item.shape

    try:
        with h5py.File(path, "r") as archive:
            archive.visititems(visit)
            attributes = len(archive.attrs)
    except OSError as error:
        fail(f"{path}: h5py cannot read it: {error}")
    if not datasets:
        fail(f"{path}: no datasets")
    if all((shape or (0,))[0] == 0 for shape in datasets.values()):
        fail(f"{path}: every dataset is empty: {datasets}")
    print(f"check_outputs: {path}: {attributes} root attributes, datasets {datasets}")


def decisions(path):
    rows = read_tuned(path)
    chosen = {}
    for row in rows:
        key = tuple(row[column].strip() for column in KEY_COLUMNS)
        if key in chosen:
            fail(f"{path}: two rows for shape {key}")
        chosen[key] = tuple(row[column].strip() for column in DECISION_COLUMNS)
    return chosen


def check_decisions(path_a, path_b, strict_kernels=False):
    """The rows present are the shapes the runs promoted (with --update_improved, only those
    are written), so equal key sets mean equal promote/retain decisions. block_m and ksplit
    are always compared, the kernel names with --strict-kernels (what the nightly test uses:
    on the sim backend one seed gives one set of choices; see docs/operations.md)."""
    a, b = decisions(path_a), decisions(path_b)
    if a.keys() != b.keys():
        fail(f"different shapes published: only in {path_a}: {sorted(a.keys() - b.keys())}; "
             f"only in {path_b}: {sorted(b.keys() - a.keys())}")
    compared = DECISION_COLUMNS if strict_kernels else DECISION_COLUMNS[:2]
    width = len(compared)
    differing = {key: (a[key], b[key]) for key in a if a[key][:width] != b[key][:width]}
    for key in a:
        if key not in differing and a[key] != b[key]:
            print(f"  note: shape {key}: same block_m/ksplit, other kernels: {a[key][2:]} vs {b[key][2:]}")
    if differing:
        for key, (left, right) in differing.items():
            print(f"  shape {key}: {DECISION_COLUMNS} {left} vs {right}")
        fail(f"{len(differing)} of {len(a)} shapes decided differently ({compared})")
    print(f"check_outputs: {len(a)} shapes published by both, same {compared}")


# The tuner's start-up line of every rank (tune_run.cpp, log_binding):
#   rank 2/4 on fhmoe-n2: backend cpu, device binding: ... (CUDA_VISIBLE_DEVICES=0), worker ..., local rank 0
BINDING_LINE = re.compile(r"\brank (\d+)/(\d+) on (\S+): backend \S+, device binding: .*"
                          r"\((\w+)=([^)]*)\), worker .*, local rank (\d+)\s*$")


def check_node_devices(log_path, ranks, hosts):
    seen = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            match = BINDING_LINE.search(line)
            if not match:
                continue
            rank, world, host, variable, value, local = match.groups()
            if int(world) != ranks:
                fail(f"a rank reports a world of {world}, expected {ranks}: {line.strip()}")
            entry = (host, int(local), variable, value)
            if seen.setdefault(int(rank), entry) != entry:
                fail(f"rank {rank} logged two bindings: {seen[int(rank)]} and {entry}")
    if sorted(seen) != list(range(ranks)):
        fail(f"ranks that logged their binding: {sorted(seen)}, expected 0..{ranks - 1}")
    by_host = {}
    for rank, (host, local, variable, value) in sorted(seen.items()):
        if variable != "CUDA_VISIBLE_DEVICES":
            fail(f"rank {rank} on {host} has no device from the launcher ({variable}={value})")
        by_host.setdefault(host, []).append((local, value, rank))
    if len(by_host) != hosts:
        fail(f"ranks ran on {len(by_host)} hosts {sorted(by_host)}, expected {hosts}")
    for host, members in sorted(by_host.items()):
        locals_ = sorted(local for local, _, _ in members)
        if locals_ != list(range(len(members))):
            fail(f"{host}: local ranks {locals_}, expected 0..{len(members) - 1} (one index per rank of the node)")
        devices = [value for _, value, _ in members]
        if len(set(devices)) != len(devices):
            fail(f"{host}: ranks share devices {devices}")
    shared_numbers = set.intersection(*({value for _, value, _ in members} for members in by_host.values()))
    if not shared_numbers:
        fail(f"no device number is used on every host ({by_host}): devices look numbered per job, not per node")
    for host, members in sorted(by_host.items()):
        listed = ", ".join(f"rank {rank} local {local} device {value}" for local, value, rank in sorted(members))
        print(f"check_outputs: {host}: {listed}")


def read_table(archive, name):
    table = archive[name][()]
    def value(row, field):
        item = row[field]
        return item.decode("utf-8") if isinstance(item, bytes) else item.item() if hasattr(item, "item") else item
    return [{field: value(row, field) for field in table.dtype.names} for row in table]


def check_ranks(path, expected_args):
    import h5py

    expected = {}
    for argument in expected_args:
        host, _, listed = argument.partition("=")
        for rank in listed.split(","):
            expected[int(rank)] = host
    with h5py.File(path, "r") as archive:
        rows = read_table(archive, "ranks")
    archived = {row["rank"]: row["host"] for row in rows}
    if archived != expected:
        fail(f"{path}: /ranks has {dict(sorted(archived.items()))}, expected {dict(sorted(expected.items()))}")
    print(f"check_outputs: {path}: /ranks {dict(sorted(archived.items()))}")


def check_measured_on(path, host):
    import h5py

    with h5py.File(path, "r") as archive:
        candidates = read_table(archive, "candidates")
    by_host = {}
    for candidate in candidates:
        if candidate["status"] == 0:  # Status::ok, the first of the archive's status enum
            by_host[candidate["host"]] = by_host.get(candidate["host"], 0) + 1
    if by_host.get(host, 0) == 0:
        fail(f"{path}: no candidate measured on {host}; measured per host: {by_host}")
    print(f"check_outputs: {path}: candidates measured per host {dict(sorted(by_host.items()))}")


def check_races_per_host(path):
    import h5py

    with h5py.File(path, "r") as archive:
        candidates = read_table(archive, "candidates")
        decisions = read_table(archive, "decisions")
    races = [d for d in decisions if d["race_rank"] >= 0]
    if not races:
        fail(f"{path}: no decision names its race: the rule goes unchecked")
    hosts = {c["host"] for c in candidates if c["host"]}
    if len(hosts) < 2:
        fail(f"{path}: candidates were measured on {sorted(hosts)}: not a run over several hosts")
    elsewhere = 0
    for race in races:
        start, end, race_host = race["race_started_unix_ns"], race["race_finished_unix_ns"], race["race_host"]
        if not race_host or start <= 0 or end < start:
            fail(f"{path}: shape {race['shape_id']}: race without host or times: {race}")
        for candidate in candidates:
            if candidate["started_unix_ns"] == 0:
                continue
            if not (candidate["started_unix_ns"] < end and candidate["finished_unix_ns"] > start):
                continue
            if candidate["host"] == race_host:
                fail(f"{path}: candidate {candidate['candidate_key']} of shape {candidate['shape_id']} "
                     f"ran on rank {candidate['rank']} of {race_host} during the race of shape "
                     f"{race['shape_id']} on rank {race['race_rank']} of the same host")
            elsewhere += 1
    # Two races of different hosts at once show the same as a candidate beside a race: with
    # one device group for all hosts, one race would have held every rank still.
    concurrent_races = sum(
        1 for i, a in enumerate(races) for b in races[i + 1:]
        if a["race_host"] != b["race_host"] and a["race_started_unix_ns"] < b["race_finished_unix_ns"]
        and b["race_started_unix_ns"] < a["race_finished_unix_ns"])
    race_hosts = sorted({race["race_host"] for race in races})
    if elsewhere == 0 and concurrent_races == 0:
        fail(f"{path}: {len(races)} races on {race_hosts}, and nothing of another host ran during any of "
             "them: the rule held every host still for a race, as if all hosts were one device")
    print(f"check_outputs: {path}: {len(races)} races on {race_hosts}, none beside a candidate of its "
          f"own host; during them {elsewhere} candidate(s) and {concurrent_races} race(s) of other hosts ran")


def main(argv):
    commands = {"devices": (check_devices, 2), "csv": (check_csv, 1), "h5": (check_h5, 1),
                "decisions": (check_decisions, 2), "node-devices": (check_node_devices, 3),
                "races-per-host": (check_races_per_host, 1), "measured-on": (check_measured_on, 2)}
    if len(argv) >= 4 and argv[1] == "ranks":
        check_ranks(argv[2], argv[3:])
        return 0
    strict_kernels = "--strict-kernels" in argv
    argv = [argument for argument in argv if argument != "--strict-kernels"]
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__)
        return 2
    function, _ = commands[argv[1]]
    arguments = argv[2:]
    if argv[1] == "devices":
        arguments = [arguments[0], int(arguments[1])]
    if argv[1] == "node-devices":
        arguments = [arguments[0], int(arguments[1]), int(arguments[2])]
    if argv[1] == "decisions":
        arguments.append(strict_kernels)
    function(*arguments)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
