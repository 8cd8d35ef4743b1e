"""orbitcc-leaderboard-merge: one table and report from several results archives.

  orbitcc-leaderboard-merge [--verify K] [--seed S] OUT_DIR IN_DIR [IN_DIR ...]

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

Every row is checked before it is used (baselines/verify.py): its
``numbers_hash``, its identity against its key, and its numbers against the
cell's physical range; ``--verify K`` also reruns K random cells of each
archive and refuses any bit of difference. The merge is order-independent: the
archives are taken in a canonical order (by their sorted cell identities), so
the output files are byte-identical in any argument order. It writes into a
temporary folder beside OUT_DIR and renames it at the end: a refused merge
leaves nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from orbitcc.baselines.cells import RECORD_SCHEMA, Cell, Plan, code_identity
from orbitcc.baselines.results import (
    REQUIRED_FIELDS,
    ResultsError,
    canonical,
    encode,
    read_records,
)
from orbitcc.baselines.stats import Board
from orbitcc.baselines.verify import check_row, pick, rerun

PROG = "orbitcc-leaderboard-merge"
ARCHIVE_FILE = "archive.json"
ARCHIVE_FORMAT = "orbitcc-results"
ARCHIVE_VERSION = 1


class MergeError(ValueError):
    """Archives that cannot be merged: one message naming the folders."""


# ------------------------------------------------------------ the manifest --


def machine() -> dict[str, Any]:
    """Where a run ran (the archive's ``machine``)."""
    return {
        "host": platform.node(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def load() -> list[float]:
    """1, 5 and 15 minute load averages (the archive's ``load``)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def manifest(
    the_plan: Plan,
    records: list[dict[str, Any]],
    lb_config: dict[str, Any],
    started: dict[str, Any],
    launcher: str,
) -> dict[str, Any]:
    """archive.json of a run: what it holds and where it ran."""
    code = code_identity()
    suite = lb_config["suite"]
    return {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "orbitcc_version": code["orbitcc_version"],
        "git_commit": code["git_commit"],
        "suite": suite["name"],
        "suite_hash": digest(suite),
        "score": lb_config["score"],
        "duration_s": suite.get("duration_s"),
        "launcher": launcher,
        "machine": machine(),
        "results": "results.jsonl",
        "load": {"start": started.get("load", []), "end": load()},
        "started_utc": started.get("utc"),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cells": [
            {
                "key": r["key"],
                "entrant": r["entrant_label"],
                "cell": r["cell"],
                "seed": r["seed"],
                "config_hash": r["config_hash"],
            }
            for r in records
        ],
    }


def write_manifest(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")


# ------------------------------------------------------------------ reading --

MAX_ARCHIVE_BYTES = 64 << 20  # archive.json
MAX_CONFIG_BYTES = 1 << 20  # config.yaml (a resolved leaderboard config: a few kB)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")
} | {"!"}
CELL_FIELDS: dict[str, type] = {
    "key": str,
    "entrant": str,
    "cell": str,
    "seed": int,
    "config_hash": str,
}


@dataclass
class Archive:
    """One results archive folder, read and checked."""

    folder: Path
    manifest: dict[str, Any]
    config: dict[str, Any]

    @property
    def results(self) -> Path:
        return self.folder / str(self.manifest.get("results") or "results.jsonl")

    def order_key(self) -> tuple[Any, ...]:
        """Canonical order of archives: by their sorted cell identities, then
        by the bytes of their manifests' cell lists (never by folder name)."""
        cells = sorted(
            (c["entrant"], c["cell"], c["seed"], c["key"]) for c in self.manifest["cells"]
        )
        return (cells, json.dumps(self.manifest["cells"], sort_keys=True))


def _text(path: Path, limit: int) -> str:
    try:
        size = path.stat().st_size
        if size > limit:
            raise MergeError(f"{path} is {size:,} bytes; allowed: at most {limit:,}")
        data = path.read_bytes()
    except OSError as err:
        raise MergeError(f"{path} cannot be read: {err.strerror or err}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise MergeError(
            f"{path} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})"
        ) from None


def _yaml(path: Path) -> Any:
    """Plain YAML only: no aliases (no expansion bombs), no tags (no objects)."""
    text = _text(path, MAX_CONFIG_BYTES)
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = event.start_mark
                raise MergeError(
                    f"{path}:{mark.line + 1}: YAML anchors and aliases are not "
                    "allowed in an archive's config.yaml (orbitcc writes none)"
                )
            tag = getattr(event, "tag", None)
            if tag is not None and tag not in _PLAIN_TAGS:
                mark = event.start_mark
                raise MergeError(
                    f"{path}:{mark.line + 1}: the YAML tag {tag} is not allowed (plain YAML only)"
                )
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        what = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise MergeError(f"{path}{at} is not valid YAML: {what}") from None


def _check_cells(where: Path, cells: Any) -> None:
    if not isinstance(cells, list):
        raise MergeError(
            f"{where}: cells = {_short(cells)}; allowed: a list of cell entries "
            "({key, entrant, cell, seed, config_hash})"
        )
    for i, c in enumerate(cells):
        if not isinstance(c, dict):
            raise MergeError(
                f"{where}: cells[{i}] = {_short(c)}; allowed: an object with "
                f"{', '.join(CELL_FIELDS)}"
            )
        for k, t in CELL_FIELDS.items():
            v = c.get(k)
            if k not in c:
                raise MergeError(f"{where}: cells[{i}] has no {k!r}")
            if not isinstance(v, t) or isinstance(v, bool):
                raise MergeError(
                    f"{where}: cells[{i}].{k} = {_short(v)}; allowed: a "
                    f"{'integer' if t is int else 'string'}"
                )
        if not _HEX64.fullmatch(c["key"]):
            raise MergeError(
                f"{where}: cells[{i}].key = {_short(c['key'])}; allowed: 64 lowercase hex digits"
            )


def _short(v: Any) -> str:
    text = json.dumps(v, default=str) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def read_archive(folder: Path) -> Archive:
    """One archive folder, every part checked (one MergeError naming the file)."""
    if not folder.is_dir():
        raise MergeError(f"{folder} is not a folder (give orbitcc-leaderboard output folders)")
    for name in (ARCHIVE_FILE, "config.yaml"):
        if not (folder / name).is_file():
            raise MergeError(
                f"{folder} has no {name}: not a results archive (written by "
                "orbitcc-leaderboard at the end of a run; docs/leaderboard.md "
                "'Results archives')"
            )
    where = folder / ARCHIVE_FILE
    try:
        data = json.loads(_text(where, MAX_ARCHIVE_BYTES))
    except json.JSONDecodeError as err:
        raise MergeError(f"{where} is not JSON: {err.msg} at line {err.lineno}") from None
    if not isinstance(data, dict):
        raise MergeError(
            f"{where} holds {type(data).__name__} {_short(data)}; allowed: an "
            f"object with format {ARCHIVE_FORMAT!r}"
        )
    if data.get("format") != ARCHIVE_FORMAT:
        raise MergeError(f"{where}: format = {data.get('format')!r}; allowed: {ARCHIVE_FORMAT!r}")
    if data.get("version") != ARCHIVE_VERSION:
        raise MergeError(
            f"{where}: version = {data.get('version')!r}; "
            f"this orbitcc reads version {ARCHIVE_VERSION}"
        )
    for key in ("git_commit", "orbitcc_version", "suite", "score", "cells"):
        if key not in data:
            raise MergeError(f"{where} has no {key!r}")
    for key in ("git_commit", "orbitcc_version", "suite"):
        if not isinstance(data[key], str):
            raise MergeError(f"{where}: {key} = {_short(data[key])}; allowed: a string")
    _check_cells(where, data["cells"])
    res = data.get("results", "results.jsonl")
    if res is not None and not isinstance(res, str):
        raise MergeError(f"{where}: results = {_short(res)}; allowed: a path")
    cfg = _yaml(folder / "config.yaml")
    if not (
        isinstance(cfg, dict)
        and isinstance(cfg.get("suite"), dict)
        and isinstance(cfg["suite"].get("name"), str)
    ):
        raise MergeError(
            f"{folder / 'config.yaml'} is not an orbitcc-leaderboard config (no suite.name)"
        )
    archive = Archive(folder, data, cfg)
    if not archive.results.is_file():
        raise MergeError(f"{folder}: its results file {archive.results} is missing")
    return archive


# ------------------------------------------------------------------ merging --


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


def _list(d: Path, cfg: dict[str, Any], key: str) -> list[Any]:
    v = cfg.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise MergeError(f"{d / 'config.yaml'}: {key} = {_short(v)}; allowed: a list")
    return v


def merged_config(configs: dict[Path, dict[str, Any]]) -> dict[str, Any]:
    """The leaderboard config of one run over the union of the archives' cells
    (lists united in the order of ``configs``: give them in canonical order)."""
    first = next(iter(configs.values()))
    suites = {d: c["suite"] for d, c in configs.items()}
    _same("suite name", {d: s["name"] for d, s in suites.items()})
    _same("episode length (suite.duration_s)", {d: s.get("duration_s") for d, s in suites.items()})
    _same(
        "score settings",
        {d: c.get("score") for d, c in configs.items()},
        " (rank with the same score.* settings)",
    )
    sweeps: list[dict[str, Any]] = []
    for d, s in suites.items():  # one sweep per (scenario, param, overrides): values united
        for sw in _list(d, s, "sweeps"):
            if not isinstance(sw, dict) or not {"scenario", "param", "values"} <= set(sw):
                raise MergeError(
                    f"{d / 'config.yaml'}: suite.sweeps holds {_short(sw)}; "
                    "allowed: {scenario, param, values, ...}"
                )
            twin = next(
                (
                    x
                    for x in sweeps
                    if (x["scenario"], x["param"], x.get("overrides"))
                    == (sw["scenario"], sw["param"], sw.get("overrides"))
                ),
                None,
            )
            if twin is None:
                sweeps.append({**sw, "values": list(sw["values"])})
            else:
                twin["values"] = _union([twin["values"], list(sw["values"])])
    suite = {
        **first["suite"],
        "scenarios": _union([_list(d, s, "scenarios") for d, s in suites.items()]),
        "cells": _union([_list(d, s, "cells") for d, s in suites.items()]),
        "sweeps": sweeps,
        "seeds": _union([_list(d, s, "seeds") for d, s in suites.items()]),
        "entrants": _union([_list(d, s, "entrants") for d, s in suites.items()]),
    }
    agents = _union([_list(d, c, "agents") for d, c in configs.items()])
    timeline = _union(
        [[c.get("timeline_cell")] for c in configs.values() if c.get("timeline_cell")]
    )
    return {
        **first,
        "suite": suite,
        "agents": agents,
        "timeline_cell": timeline[0] if timeline else None,
        "results": None,
    }


def _key_mismatch(entry: dict[str, Any], cell: Cell, row: dict[str, Any] | None) -> str:
    """What differs between an archive's cell and the merged suite's cell of
    the same entrant, scenario cell and seed (the parts of the key)."""
    parts = [
        (
            "configuration hash (scenario, overrides, controller or agent settings)",
            entry.get("config_hash"),
            cell.config_hash,
        )
    ]
    if row is not None:
        parts += [
            ("checkpoint hash", row.get("checkpoint_hash"), cell.checkpoint_hash),
            ("git commit", row.get("git_commit"), cell.code.get("git_commit")),
            ("orbitcc version", row.get("orbitcc_version"), cell.code.get("orbitcc_version")),
            ("record schema", row.get("schema"), RECORD_SCHEMA),
        ]
    out = []
    for what, mine, theirs in parts:
        if theirs is not None and mine != theirs:
            out.append(
                f"its {what} {str(mine)[:12]} differs from {str(theirs)[:12]} in the merged suite"
            )
    if out:
        return "; ".join(out)
    return (
        f"its key {entry['key'][:12]} is not the key {cell.key[:12]} its entrant, "
        "configuration, seed and code give (the archive was edited, or written by "
        "another record schema)"
    )


def _rows(archive: Archive) -> dict[str, tuple[str, dict[str, Any]]]:
    """The archive's rows by key ((file:line, record)); one key twice with
    other numbers is refused (identical repeats are one row)."""
    try:
        rows = read_records(archive.results, REQUIRED_FIELDS, require_hash=True)
    except ResultsError as err:
        raise MergeError(str(err)) from None
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    line = 0
    for r in rows:
        line += 1
        where = f"{archive.results} row {line}"
        key = str(r["key"])
        if key in out:
            if canonical(out[key][1]) != canonical(r):
                first = out[key][0].rsplit(" ", 1)[-1]
                raise MergeError(
                    f"{archive.results} holds the key {key[:12]} twice with other "
                    f"numbers (rows {first} and {line}): which one ran? Remove "
                    "one (or rerun the cell)"
                )
            continue
        out[key] = (where, r)
    return out


def _verify(
    archives: list[Archive],
    by_key: dict[str, Cell],
    rows: dict[Path, dict[str, tuple[str, dict[str, Any]]]],
    k: int,
    seed: int,
    log: Any,
) -> int:
    n = 0
    for a in archives:
        keys = [c["key"] for c in a.manifest["cells"]]
        for key in pick(keys, k, seed):
            where, r = rows[a.folder][key]
            rerun(r, by_key[key], where)
            n += 1
        log(f"{PROG}: {a.folder}: {min(k, len(keys))} of {len(keys)} cells rerun, bit-identical")
    return n


def load_plan(merged: dict[str, Any]) -> tuple[Any, Plan]:
    """The LeaderboardConfig and plan of a (merged) leaderboard config."""
    from orbitcc.baselines.leaderboard import LeaderboardConfig, make_plan, suite_entrants
    from orbitcc.config import compose_config, to_object

    try:
        base = compose_config("leaderboard", [f"suite={merged['suite']['name']}"])
        lb: LeaderboardConfig = to_object(OmegaConf.merge(base, OmegaConf.create(merged)))
        return lb, make_plan(lb.suite, suite_entrants(lb))
    except ValueError as err:
        raise MergeError(
            f"the merged configuration is not valid: {' '.join(str(err).split())}"
        ) from None
    except Exception as err:  # noqa: BLE001 - OmegaConf raises many kinds for bad values
        raise MergeError(
            f"the merged configuration is not valid: {type(err).__name__}: "
            f"{' '.join(str(err).split())[:300]}"
        ) from None


def check_code(archives: list[Archive]) -> None:
    """Same code in every archive, and this checkout's (the report and verify rerun cells)."""
    code = code_identity()
    commit = _same(
        "code (git commit)",
        {a.folder: a.manifest["git_commit"] for a in archives},
        ": run every part on the same commit",
    )
    version = _same("orbitcc version", {a.folder: a.manifest["orbitcc_version"] for a in archives})
    if (commit, version) != (code["git_commit"], code["orbitcc_version"]):
        raise MergeError(
            f"the archives come from commit {commit} (orbitcc {version}); this "
            f"checkout is {code['git_commit']} (orbitcc {code['orbitcc_version']})"
            f": check out that commit to merge them (the report reruns cells)"
        )


Rows = dict[str, tuple[str, dict[str, Any]]]  # key -> (where, record)


def collect(
    archives: list[Archive],
    the_plan: Plan,
) -> tuple[dict[str, dict[str, Any]], dict[Path, Rows]]:
    """Every archive's listed rows, checked against the plan: (records by key,
    rows by archive)."""
    by_key = {c.key: c for c in the_plan.cells}
    by_id = {(c.entrant_label, c.cell, c.seed): c for c in the_plan.cells}
    owner: dict[str, Path] = {}
    records: dict[str, dict[str, Any]] = {}
    all_rows: dict[Path, Rows] = {}
    for a in archives:
        where = a.folder / ARCHIVE_FILE
        rows = all_rows[a.folder] = _rows(a)
        for c in a.manifest["cells"]:
            ident = (c["entrant"], c["cell"], c["seed"])
            cell = by_key.get(c["key"])
            if cell is None:
                twin = by_id.get(ident)
                row = rows.get(c["key"], (None, None))[1]
                why = (
                    "it is not a cell of the merged suite"
                    if twin is None
                    else _key_mismatch(c, twin, row)
                )
                raise MergeError(f"{where}: {c['entrant']} on {c['cell']} seed {c['seed']}: {why}")
            if (cell.entrant_label, cell.cell, cell.seed, cell.config_hash) != (
                *ident,
                c["config_hash"],
            ):
                raise MergeError(
                    f"{where}: lists key {c['key'][:12]} as {c['entrant']} on "
                    f"{c['cell']} seed {c['seed']} (config {c['config_hash'][:12]})"
                    f", but that key is {cell.describe()} (config "
                    f"{cell.config_hash[:12]}): the archive was edited"
                )
            if c["key"] in owner:
                raise MergeError(
                    f"{c['entrant']} on {c['cell']} seed {c['seed']} is in both "
                    f"{owner[c['key']]} and {a.folder}; a cell must come from one "
                    "archive (remove it from one results.jsonl and its "
                    "archive.json)"
                )
            owner[c["key"]] = a.folder
            if c["key"] not in rows:
                missing = [x for x in a.manifest["cells"] if x["key"] not in rows]
                raise MergeError(
                    f"{a.results} lacks {len(missing)} record(s) its archive.json "
                    f"lists, e.g. {c['entrant']} on {c['cell']} seed {c['seed']}"
                )
            at, r = rows[c["key"]]
            try:
                check_row(r, cell, at)
            except ResultsError as err:
                raise MergeError(str(err)) from None
            records[c["key"]] = r
    return records, all_rows


def _out_dir(out_dir: Path, inputs: list[Path]) -> None:
    if out_dir.exists() or out_dir.is_symlink():
        if not out_dir.is_dir() or out_dir.is_symlink():
            raise MergeError(f"OUT_DIR {out_dir} exists and is not a folder; give a new folder")
        if any(out_dir.iterdir()):
            raise MergeError(
                f"OUT_DIR {out_dir} exists and is not empty; give a new folder "
                "(the merge never writes over files)"
            )
    if out_dir.resolve() in inputs:
        raise MergeError(f"OUT_DIR {out_dir} is also an input; write the merge elsewhere")


def merge(
    out_dir: Path,
    in_dirs: list[Path],
    log: Any = print,
    verify_cells: int = 0,
    verify_seed: int = 0,
) -> tuple[dict[str, Path], Board]:
    """Merges the archives into out_dir; returns the written files and the board.

    Nothing is written to out_dir unless the whole merge succeeds: the files
    are written into a temporary folder beside it, renamed to out_dir last."""
    from orbitcc.baselines.leaderboard import board_from
    from orbitcc.baselines.report import write_reports

    if not in_dirs:
        raise MergeError(f"give at least one input folder: {PROG} OUT_DIR IN_DIR [IN_DIR ...]")
    if verify_cells < 0:
        raise MergeError(f"--verify {verify_cells}: allowed: a number of cells >= 0")
    resolved = [d.resolve() for d in in_dirs]
    if len(set(resolved)) != len(resolved):
        raise MergeError("an input folder is given twice")
    _out_dir(out_dir, resolved)
    archives = sorted((read_archive(d) for d in in_dirs), key=Archive.order_key)
    check_code(archives)
    merged = merged_config({a.folder: a.config for a in archives})
    lb, the_plan = load_plan(merged)
    records, rows = collect(archives, the_plan)
    if verify_cells:
        _verify(archives, {c.key: c for c in the_plan.cells}, rows, verify_cells, verify_seed, log)
    ordered = [records[c.key] for c in the_plan.cells if c.key in records]
    board = board_from(the_plan, lb.suite, ordered, lb.score)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.merging-", dir=out_dir.parent))
    try:
        (tmp / "results.jsonl").write_bytes(b"".join(encode(r) for r in ordered))
        (tmp / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(merged)))
        (tmp / "command.txt").write_text(
            " ".join(
                [
                    PROG,
                    *([f"--verify {verify_cells}"] if verify_cells else []),
                    str(out_dir),
                    *(str(a.folder) for a in archives),
                ]
            )
            + "\n"
        )
        data = manifest(the_plan, ordered, merged, {}, "merge")
        # Nothing of the moment of the merge: the same archives give the same bytes.
        data["load"] = None
        times = [a.manifest.get(k) for a in archives for k in ("started_utc", "finished_utc")]
        stamps = sorted(t for t in times if isinstance(t, str))
        data["started_utc"] = stamps[0] if stamps else None
        data["finished_utc"] = stamps[-1] if stamps else None
        data["merged_from"] = [
            {
                "folder": str(a.folder),
                "machine": a.manifest.get("machine"),
                "load": a.manifest.get("load"),
                "launcher": a.manifest.get("launcher"),
                "cells": len(a.manifest["cells"]),
            }
            for a in archives
        ]
        if verify_cells:
            data["verified"] = {"cells_per_archive": verify_cells, "seed": verify_seed}
        write_manifest(tmp / ARCHIVE_FILE, data)
        paths = write_reports(
            board,
            tmp,
            suite_name=lb.suite.name,
            the_plan=the_plan,
            html=lb.report,
            timeline_cell=lb.timeline_cell,
            score=lb.score,
        )
        tmp.chmod(0o755)
        if out_dir.is_dir():
            out_dir.rmdir()  # empty (checked above); rename does not replace a folder
        os.rename(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(
        f"{PROG}: {len(ordered)}/{len(the_plan.cells)} cells of suite {lb.suite.name} from "
        f"{len(in_dirs)} archives"
    )
    out = {"results": out_dir / "results.jsonl"}
    out.update({k: out_dir / p.name for k, p in paths.items()})
    return out, board


def verify(folders: list[Path], cells: int = 3, seed: int = 0, log: Any = print) -> int:
    """``orbitcc-leaderboard-verify``: checks every row of each archive (hash,
    identity, physical range) and reruns ``cells`` random cells of each
    (random.Random(seed) over its sorted keys); returns the cells rerun.
    Raises MergeError / VerifyError at the first difference."""
    if cells < 0:
        raise MergeError(f"--cells {cells}: allowed: a number of cells >= 0")
    if not folders:
        raise MergeError("give at least one results archive folder")
    total = 0
    for d in sorted(set(folders), key=lambda p: str(p.resolve())):
        a = read_archive(d)
        check_code([a])
        _, the_plan = load_plan(merged_config({a.folder: a.config}))
        _, rows = collect([a], the_plan)
        log(
            f"{PROG_VERIFY}: {d}: {len(a.manifest['cells'])} rows: hashes, identities and "
            "physical ranges check"
        )
        total += _verify(
            [a],
            {c.key: c for c in the_plan.cells},
            rows,
            cells,
            seed,
            lambda s: log(s.replace(PROG, PROG_VERIFY)),
        )
    return total


PROG_VERIFY = "orbitcc-leaderboard-verify"
