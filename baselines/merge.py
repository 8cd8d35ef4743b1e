"""orbitcc-leaderboard-merge: one table and report from several results archives.

  orbitcc-leaderboard-merge OUT_DIR IN_DIR [IN_DIR ...]

Each IN_DIR is the output folder of an ``orbitcc-leaderboard`` run (on this
machine, a laptop, a Ray or Slurm cluster): its ``results.jsonl`` (one record
per cell), the resolved ``config.yaml`` and ``archive.json`` (the manifest:
commit, orbitcc version, machine, load, suite, and the key and config hash of
every cell the run holds). The merge checks that every archive comes from the
same code (commit and version, also this checkout's: the report reruns the
timeline cell), the same suite name, episode length and score, that a cell
present in several archives has the same configuration hash, and that no cell
is in two archives; then it writes into OUT_DIR what one run over the union of
the cells writes: results.jsonl, leaderboard.md, leaderboard.csv, report.html,
config.yaml and archive.json. docs/leaderboard.md "Results archives" documents
the format, so other groups can submit theirs.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from orbitcc.baselines.cells import Plan, code_identity
from orbitcc.baselines.results import REQUIRED_FIELDS, ResultsError, encode, read_records
from orbitcc.baselines.stats import Board

PROG = "orbitcc-leaderboard-merge"
ARCHIVE_FILE = "archive.json"
ARCHIVE_FORMAT = "orbitcc-results"
ARCHIVE_VERSION = 1


class MergeError(ValueError):
    """Archives that cannot be merged: one message naming the folders."""


# ------------------------------------------------------------ the manifest --

def machine() -> dict[str, Any]:
    """Where a run ran (the archive's ``machine``)."""
    return {"host": platform.node(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "python": platform.python_version()}


def load() -> list[float]:
    """1, 5 and 15 minute load averages (the archive's ``load``)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def manifest(the_plan: Plan, records: list[dict[str, Any]], lb_config: dict[str, Any],
             started: dict[str, Any], launcher: str) -> dict[str, Any]:
    """archive.json of a run: what it holds and where it ran."""
    code = code_identity()
    suite = lb_config["suite"]
    return {
        "format": ARCHIVE_FORMAT, "version": ARCHIVE_VERSION,
        "orbitcc_version": code["orbitcc_version"], "git_commit": code["git_commit"],
        "suite": suite["name"], "suite_hash": digest(suite),
        "score": lb_config["score"], "duration_s": suite.get("duration_s"),
        "launcher": launcher, "machine": machine(), "results": "results.jsonl",
        "load": {"start": started.get("load", []), "end": load()},
        "started_utc": started.get("utc"),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cells": [{"key": r["key"], "entrant": r["entrant_label"], "cell": r["cell"],
                   "seed": r["seed"], "config_hash": r["config_hash"]} for r in records],
    }


def write_manifest(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")


# ------------------------------------------------------------------ merging --

def _read_archive(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(manifest, resolved config) of one archive folder."""
    if not folder.is_dir():
        raise MergeError(f"{folder} is not a folder (give orbitcc-leaderboard output folders)")
    for name in (ARCHIVE_FILE, "config.yaml"):
        if not (folder / name).is_file():
            raise MergeError(f"{folder} has no {name}: not a results archive (written by "
                             "orbitcc-leaderboard at the end of a run; docs/leaderboard.md "
                             "'Results archives')")
    try:
        data = json.loads((folder / ARCHIVE_FILE).read_text())
    except json.JSONDecodeError as err:
        raise MergeError(f"{folder / ARCHIVE_FILE} is not JSON: {err.msg}") from None
    if not isinstance(data, dict) or data.get("format") != ARCHIVE_FORMAT:
        raise MergeError(f"{folder / ARCHIVE_FILE}: format = {data.get('format')!r} "
                         f"(if a dict); allowed: {ARCHIVE_FORMAT!r}")
    if data.get("version") != ARCHIVE_VERSION:
        raise MergeError(f"{folder / ARCHIVE_FILE}: version = {data.get('version')!r}; "
                         f"this orbitcc reads version {ARCHIVE_VERSION}")
    for key in ("git_commit", "orbitcc_version", "suite", "score", "cells"):
        if key not in data:
            raise MergeError(f"{folder / ARCHIVE_FILE} has no {key!r}")
    if not _results_file(folder, data).is_file():
        raise MergeError(f"{folder}: its results file {_results_file(folder, data)} is missing")
    cfg = OmegaConf.to_container(OmegaConf.load(folder / "config.yaml"), resolve=True)
    if not isinstance(cfg, dict) or "suite" not in cfg:
        raise MergeError(f"{folder / 'config.yaml'} is not an orbitcc-leaderboard config")
    return data, cfg


def _results_file(folder: Path, data: dict[str, Any]) -> Path:
    """The archive's results.jsonl (``results``: relative to the folder, or absolute)."""
    return folder / str(data.get("results") or "results.jsonl")


def _same(what: str, values: dict[Path, Any], hint: str = "") -> Any:
    distinct = {json.dumps(v, sort_keys=True, default=str) for v in values.values()}
    if len(distinct) > 1:
        listing = "; ".join(f"{d}: {v}" for d, v in values.items())
        raise MergeError(f"the archives differ in {what} ({listing}){hint}")
    return next(iter(values.values()))


def _union(lists: list[list[Any]]) -> list[Any]:
    out: list[Any] = []
    seen: set[str] = set()
    for items in lists:
        for x in items:
            k = json.dumps(x, sort_keys=True, default=str)
            if k not in seen:
                seen.add(k)
                out.append(x)
    return out


def merged_config(configs: dict[Path, dict[str, Any]]) -> dict[str, Any]:
    """The leaderboard config of one run over the union of the archives' cells."""
    first = next(iter(configs.values()))
    suites = {d: c["suite"] for d, c in configs.items()}
    _same("suite name", {d: s["name"] for d, s in suites.items()})
    _same("episode length (suite.duration_s)", {d: s.get("duration_s")
                                                for d, s in suites.items()})
    _same("score settings", {d: c["score"] for d, c in configs.items()},
          " (rank with the same score.* settings)")
    sweeps: list[dict[str, Any]] = []
    for s in suites.values():  # one sweep per (scenario, param, overrides): values united
        for sw in s.get("sweeps") or []:
            twin = next((x for x in sweeps if (x["scenario"], x["param"], x.get("overrides"))
                         == (sw["scenario"], sw["param"], sw.get("overrides"))), None)
            if twin is None:
                sweeps.append({**sw, "values": list(sw["values"])})
            else:
                twin["values"] = _union([twin["values"], list(sw["values"])])
    suite = {**first["suite"],
             "scenarios": _union([list(s["scenarios"]) for s in suites.values()]),
             "cells": _union([list(s.get("cells") or []) for s in suites.values()]),
             "sweeps": sweeps,
             "seeds": _union([list(s["seeds"]) for s in suites.values()]),
             "entrants": _union([list(s["entrants"]) for s in suites.values()])}
    agents = _union([list(c.get("agents") or []) for c in configs.values()])
    timeline = _union([[c.get("timeline_cell")] for c in configs.values()
                       if c.get("timeline_cell")])
    return {**first, "suite": suite, "agents": agents,
            "timeline_cell": timeline[0] if timeline else None, "results": None}


def merge(out_dir: Path, in_dirs: list[Path], log: Any = print,
          ) -> tuple[dict[str, Path], Board]:
    """Merges the archives into out_dir; returns the written files and the board."""
    from orbitcc.baselines.leaderboard import (
        LeaderboardConfig,
        board_from,
        make_plan,
        suite_entrants,
    )
    from orbitcc.baselines.report import write_reports
    from orbitcc.config import compose_config, to_object

    if not in_dirs:
        raise MergeError("give at least one input folder: "
                         f"{PROG} OUT_DIR IN_DIR [IN_DIR ...]")
    resolved = [d.resolve() for d in in_dirs]
    if len(set(resolved)) != len(resolved):
        raise MergeError("an input folder is given twice")
    if out_dir.resolve() in resolved:
        raise MergeError(f"OUT_DIR {out_dir} is also an input; write the merge elsewhere")
    archives: dict[Path, dict[str, Any]] = {}
    configs: dict[Path, dict[str, Any]] = {}
    for d in in_dirs:
        archives[d], configs[d] = _read_archive(d)
    code = code_identity()
    commit = _same("code (git commit)", {d: a["git_commit"] for d, a in archives.items()},
                   ": run every part on the same commit")
    version = _same("orbitcc version", {d: a["orbitcc_version"] for d, a in archives.items()})
    if (commit, version) != (code["git_commit"], code["orbitcc_version"]):
        raise MergeError(f"the archives come from commit {commit} (orbitcc {version}); this "
                         f"checkout is {code['git_commit']} (orbitcc {code['orbitcc_version']})"
                         f": check out that commit to merge them (the report reruns cells)")
    merged = merged_config(configs)
    try:
        base = compose_config("leaderboard", [f"suite={merged['suite']['name']}"])
        lb: LeaderboardConfig = to_object(OmegaConf.merge(base, OmegaConf.create(merged)))
        the_plan = make_plan(lb.suite, suite_entrants(lb))
    except ValueError as err:
        raise MergeError(f"the merged configuration is not valid: {err}") from None
    by_id = {(c.entrant_label, c.cell, c.seed): c for c in the_plan.cells}
    keys = {c.key for c in the_plan.cells}
    owner: dict[str, Path] = {}
    records: dict[str, dict[str, Any]] = {}
    for d, a in archives.items():
        wanted = {c["key"]: c for c in a["cells"]}
        for c in a["cells"]:
            ident = (c["entrant"], c["cell"], c["seed"])
            if c["key"] in owner or ident in {(r["entrant_label"], r["cell"], r["seed"])
                                              for r in records.values()}:
                other = owner.get(c["key"]) or next(
                    owner[k] for k, r in records.items()
                    if (r["entrant_label"], r["cell"], r["seed"]) == ident)
                raise MergeError(f"{c['entrant']} on {c['cell']} seed {c['seed']} is in both "
                                 f"{other} and {d}; a cell must come from one archive "
                                 "(remove it from one results.jsonl and its archive.json)")
            if c["key"] not in keys:
                mine = by_id.get(ident)
                why = ("it is not a cell of the merged suite" if mine is None else
                       f"its configuration hash {c['config_hash'][:12]} differs from "
                       f"{mine.config_hash[:12]} of the same cell in the merged suite "
                       "(scenario, overrides, controller or agent settings differ)")
                raise MergeError(f"{d}: {c['entrant']} on {c['cell']} seed {c['seed']}: {why}")
            owner[c["key"]] = d
        try:
            rows = read_records(_results_file(d, a), REQUIRED_FIELDS)
        except ResultsError as err:
            raise MergeError(str(err)) from None
        found = {}
        for r in rows:
            if r["key"] in wanted and r["key"] not in found:
                found[r["key"]] = r
        missing = [k for k in wanted if k not in found]
        if missing:
            c = wanted[missing[0]]
            raise MergeError(f"{_results_file(d, a)} lacks {len(missing)} record(s) its "
                             f"archive.json lists, e.g. {c['entrant']} on {c['cell']} seed "
                             f"{c['seed']}")
        records.update(found)
    ordered = [records[c.key] for c in the_plan.cells if c.key in records]
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.jsonl"
    results.write_bytes(b"".join(encode(r) for r in ordered))
    (out_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(merged)))
    (out_dir / "command.txt").write_text(" ".join([PROG, *map(str, [out_dir, *in_dirs])])
                                         + "\n")
    data = manifest(the_plan, ordered, merged, {}, "merge")
    data["merged_from"] = [{"folder": str(d), "machine": a.get("machine"),
                            "load": a.get("load"), "launcher": a.get("launcher"),
                            "cells": len(a["cells"])} for d, a in archives.items()]
    write_manifest(out_dir / ARCHIVE_FILE, data)
    board = board_from(the_plan, lb.suite, ordered, lb.score)
    paths = write_reports(board, out_dir, suite_name=lb.suite.name, the_plan=the_plan,
                          html=lb.report, timeline_cell=lb.timeline_cell, score=lb.score)
    log(f"{PROG}: {len(ordered)}/{len(the_plan.cells)} cells of suite {lb.suite.name} from "
        f"{len(in_dirs)} archives")
    return {"results": results, **paths}, board
