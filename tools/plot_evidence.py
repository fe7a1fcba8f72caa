#!/usr/bin/python3
"""Plots of one fhmoe evidence archive (docs/evidence-schema.md), written as PNGs.

    plot_evidence.py ARCHIVE --out DIR [--shape KEY ...] [--per-page N]

latency[_pN].png  per shape: every ok candidate's mean time (with its standard error),
                  fastest first, the best challenger (starred) and the incumbent's race
                  time (dashed) marked
status.png        per shape: how many candidates ended in each status
race.png          per raced shape: each contender's time in every race round

Reads the archive with h5py alone (Debian's python3-h5py + python3-matplotlib), the way any
user can. Exit status: 0 on success, 2 for a missing or unreadable archive or bad flags.
"""

import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display on cluster nodes or in CI

import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

STATUS_COLOURS = {
    "ok": "#2ca02c",
    "mismatch": "#d62728",
    "unsupported": "#7f7f7f",
    "crash": "#9467bd",
    "timeout": "#ff7f0e",
    "oom_runtime": "#8c564b",
    "oom_preflight": "#e377c2",
    "not_run": "#bcbd22",
}


def text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def short_key(key, width=40):
    """Candidate keys run to 80 characters; legends need both ends to tell them apart."""
    return key if len(key) <= width else key[:width // 2 - 1] + "…" + key[-(width // 2):]


def distinct_short_keys(keys, width=40):
    """{key: label}: short_key at the smallest width from `width` up that tells every key of
    one legend apart (two keys differing only in the middle would otherwise look the same)."""
    keys = sorted(set(keys))
    for w in range(width, max([width] + [len(k) for k in keys]) + 2, 4):
        labels = {key: short_key(key, w) for key in keys}
        if len(set(labels.values())) == len(keys):
            return labels
    return {key: key for key in keys}


def enum_names(dataset, field):
    """{value: name} of an HDF5 ENUM column, as h5py exposes it."""
    mapping = h5py.check_enum_dtype(dataset.dtype[field])
    return {value: name for name, value in mapping.items()}


class Run:
    def __init__(self, path):
        with h5py.File(path, "r") as archive:
            self.attrs = dict(archive.attrs)
            self.shapes = archive["shapes"][()]
            self.candidates = archive["candidates"][()]
            self.race = archive["race"][()]
            self.decisions = archive["decisions"][()]
            self.status_names = enum_names(archive["candidates"], "status")
            self.decision_names = enum_names(archive["shapes"], "decision")
        self.decision_by_shape = {int(row["shape_id"]): row for row in self.decisions}
        # schema_version 1 named the best challenger's columns winner_* (evidence-schema.md).
        self.challenger_field = ("winner_key" if int(self.attrs["schema_version"]) == 1
                                 else "best_challenger_key")

    def best_challenger(self, decision):
        return text(decision[self.challenger_field]) if decision is not None else ""

    def challenger_label(self, shape_id):
        """"best challenger", with "(published)" when the shape promoted it."""
        published = self.shape_decision(shape_id) == "promote"
        return "best challenger" + (" (published)" if published else "")

    def shape_label(self, shape_id):
        row = self.shapes[shape_id]
        return f"{text(row['shape_key'])} [{text(row['gfx'])}/{row['cu_num']}]"

    def shape_decision(self, shape_id):
        return self.decision_names[int(self.shapes[shape_id]["decision"])]


def select_shapes(run, keys):
    if not keys:
        return list(range(len(run.shapes)))
    wanted = []
    for key in keys:
        matches = [i for i, row in enumerate(run.shapes) if text(row["shape_key"]) == key]
        if not matches:
            raise SystemExit(f"plot_evidence: no shape '{key}' in the archive")
        wanted.extend(matches)
    return wanted


def grid(count):
    columns = min(3, max(1, count))
    return math.ceil(count / columns), columns


def plot_latency_page(run, shape_ids, path):
    rows, columns = grid(len(shape_ids))
    figure, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.4 * rows), squeeze=False)
    ok_value = next(v for v, n in run.status_names.items() if n == "ok")
    for axis, shape_id in zip(axes.flat, shape_ids):
        mine = run.candidates[(run.candidates["shape_id"] == shape_id)
                              & (run.candidates["status"] == ok_value)]
        mine = np.sort(mine, order="mean_us")
        decision = run.decision_by_shape.get(shape_id)
        title = f"{run.shape_label(shape_id)}\n{run.shape_decision(shape_id)}"
        if decision is not None and not math.isnan(decision["margin_pct"]):
            title += f", margin {decision['margin_pct']:+.2f}% (bar {decision['bar_pct']:.2f}%)"
        axis.set_title(title, fontsize=8)
        if len(mine) == 0:
            axis.text(0.5, 0.5, "no ok candidate", ha="center", va="center",
                      transform=axis.transAxes)
            axis.set_xticks([])
            continue
        keys = [text(k) for k in mine["candidate_key"]]
        positions = np.arange(len(mine))
        axis.errorbar(positions, mine["mean_us"], yerr=mine["stderr_us"], fmt="o", ms=3,
                      color="#1f77b4", ecolor="#9ecae1", label="candidates (mean ± stderr)")
        if decision is not None:
            challenger = run.best_challenger(decision)
            if challenger in keys:
                i = keys.index(challenger)
                axis.plot(i, mine["mean_us"][i], marker="*", ms=14, color="#d62728",
                          linestyle="none", label=run.challenger_label(shape_id))
            if not math.isnan(decision["incumbent_us"]):
                axis.axhline(decision["incumbent_us"], color="#ff7f0e", linestyle="--",
                             linewidth=1, label="incumbent (race)")
        axis.set_xlabel("ok candidates, fastest first", fontsize=8)
        axis.set_ylabel("mean time (us)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.legend(fontsize=6, loc="upper left")
    for axis in list(axes.flat)[len(shape_ids):]:
        axis.set_visible(False)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def plot_status(run, shape_ids, path):
    names = [run.status_names[v] for v in sorted(run.status_names)]
    figure, axis = plt.subplots(figsize=(9, 0.35 * len(shape_ids) + 1.6))
    left = np.zeros(len(shape_ids))
    positions = np.arange(len(shape_ids))
    for name in names:
        counts = np.array([int(run.shapes[i]["n_" + name]) for i in shape_ids])
        axis.barh(positions, counts, left=left, color=STATUS_COLOURS.get(name, "#333333"),
                  label=name)
        left += counts
    axis.set_yticks(positions)
    axis.set_yticklabels([f"{text(run.shapes[i]['shape_key'])} ({run.shape_decision(i)})"
                          for i in shape_ids], fontsize=7)
    axis.invert_yaxis()
    axis.set_xlabel("candidates")
    axis.set_title("status of every candidate, per shape")
    axis.legend(fontsize=7, ncol=4, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def plot_race(run, shape_ids, path):
    raced = [i for i in shape_ids if np.any(run.race["shape_id"] == i)]
    if not raced:
        raced_note = "no shape reached the race"
        figure, axis = plt.subplots(figsize=(5, 2))
        axis.text(0.5, 0.5, raced_note, ha="center", va="center")
        axis.set_axis_off()
        figure.savefig(path, dpi=80)
        plt.close(figure)
        return
    rows, columns = grid(len(raced))
    figure, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.2 * rows), squeeze=False)
    for axis, shape_id in zip(axes.flat, raced):
        samples = run.race[run.race["shape_id"] == shape_id]
        decision = run.decision_by_shape.get(shape_id)
        challenger = run.best_challenger(decision)
        keys = sorted({text(k) for k in samples["candidate_key"]})
        labels = distinct_short_keys(keys)
        for key in keys:
            mine = np.sort(samples[[text(k) == key for k in samples["candidate_key"]]],
                           order="round")
            incumbent = bool(mine["is_incumbent"][0])
            label = ("incumbent " if incumbent else "") + (
                run.challenger_label(shape_id) + " " if key == challenger else "")
            axis.plot(mine["round"], mine["time_us"], marker="o", ms=3,
                      linestyle="--" if incumbent else "-",
                      linewidth=2.2 if key == challenger else 1.0,
                      label=label + labels[key])
        axis.set_title(f"{run.shape_label(shape_id)}\n{run.shape_decision(shape_id)}", fontsize=8)
        # Rounds are whole numbers: one tick per round, not matplotlib's 0.5 steps.
        axis.set_xticks(sorted({int(r) for r in samples["round"]}))
        axis.set_xlabel("race round", fontsize=8)
        axis.set_ylabel("round mean (us)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.legend(fontsize=6)
    for axis in list(axes.flat)[len(raced):]:
        axis.set_visible(False)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive")
    parser.add_argument("--out", required=True, help="directory for the PNGs")
    parser.add_argument("--shape", action="append", default=[],
                        help="plot only this shape_key (repeatable)")
    parser.add_argument("--per-page", type=int, default=12,
                        help="shapes per latency/race figure (default 12)")
    args = parser.parse_args(argv)
    if args.per_page < 1:
        parser.error("--per-page must be at least 1")
    try:
        run = Run(args.archive)
    except (OSError, KeyError, ValueError) as error:
        print(f"plot_evidence: cannot read '{args.archive}': {error}", file=sys.stderr)
        return 2
    shape_ids = select_shapes(run, args.shape)
    os.makedirs(args.out, exist_ok=True)
    written = []
    pages = [shape_ids[i:i + args.per_page] for i in range(0, len(shape_ids), args.per_page)]
    for number, page in enumerate(pages, start=1):
        name = "latency.png" if number == 1 else f"latency_p{number}.png"
        plot_latency_page(run, page, os.path.join(args.out, name))
        written.append(name)
    if shape_ids:
        plot_status(run, shape_ids, os.path.join(args.out, "status.png"))
        written.append("status.png")
        plot_race(run, shape_ids[:args.per_page], os.path.join(args.out, "race.png"))
        written.append("race.png")
    for name in written:
        print(os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
