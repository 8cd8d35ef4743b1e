"""orbitcc-eval: run a suite (entrants x scenarios x seeds) and tabulate it.

  orbitcc-eval suite=smoke
  orbitcc-eval suite=maco_paper results=leaderboard/maco_paper.jsonl
  orbitcc-eval suite=smoke 'suite.entrants=[cubic,agent:outputs/train/<run>/model.zip]'

Entrants are controller names, run entirely in C++ by ``orbitcc.run``, or
``agent:<model.zip or orbitcc-train run dir>``, run through the env with
deterministic actions on the env/reward settings it was trained with. Every
entrant meets the same channel realisation for a seed (common random numbers).
Each finished run is appended to results.jsonl at once (flushed and fsynced),
so a crash loses at most the run in progress; with ``resume=true`` a rerun
skips the runs already there. The table reports mean +- sample std over seeds.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from itertools import product
from pathlib import Path
from typing import Any

import hydra
import numpy as np
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from orbitcc.config import (
    AGENT_ENTRANT_PREFIX,
    EvalConfig,
    SuiteConfig,
    register_configs,
    to_object,
    write_run_record,
)

RunKey = tuple[str, str, int]  # (entrant, scenario, seed)


# ---------------------------------------------------------------- entrants --

class ControllerEntrant:
    """A hand-coded controller: one ``orbitcc.run`` episode per (scenario, seed)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.label = name

    def check(self, scenario: str) -> None:
        pass

    def run(self, scenario: str, seed: int, duration_s: float | None) -> dict[str, Any]:
        import orbitcc

        return orbitcc.run(scenario=scenario, controller=self.name, seed=seed,
                           duration_s=duration_s)


class AgentEntrant:
    """A trained SB3 agent driving ``OrbitCCEnv`` with deterministic actions."""

    def __init__(self, name: str) -> None:
        from orbitcc.agents.checkpoint import load_checkpoint

        self.name = name
        self.checkpoint = load_checkpoint(name[len(AGENT_ENTRANT_PREFIX):])
        self.label = self.checkpoint.label

    def _env(self, scenario: str, duration_s: float | None) -> Any:
        from orbitcc.env.orbitcc_env import OrbitCCEnv

        overrides = self.checkpoint.env_overrides()
        if duration_s is not None:
            overrides.append(f"duration_s={float(duration_s)}")
        return OrbitCCEnv(scenario=scenario, controller=None, overrides=overrides,
                          info_level=0)

    def check(self, scenario: str) -> None:
        """Raises unless the agent's observation and action spaces fit ``scenario``."""
        env = self._env(scenario, None)
        model = self.checkpoint.model
        for what, ours, theirs in (("observation", env.observation_space,
                                    model.observation_space),
                                   ("action", env.action_space, model.action_space)):
            if ours != theirs:
                raise ValueError(
                    f"entrant {self.name!r} cannot play {scenario!r}: its {what} space "
                    f"{_describe(theirs)} differs from the scenario's {_describe(ours)} "
                    "(trained on "
                    f"{self.checkpoint.config['scenario']['name']!r}; the subflow count and "
                    "env settings must match)")
        trained = self.checkpoint.config["env"]
        if asdict(env.config.env) != trained:
            raise RuntimeError(f"entrant {self.name!r}: the rebuilt env config "
                               f"{asdict(env.config.env)} differs from the trained {trained}")
        env.close()

    def run(self, scenario: str, seed: int, duration_s: float | None) -> dict[str, Any]:
        env = self._env(scenario, duration_s)
        model = self.checkpoint.model
        obs, _ = env.reset(seed=seed)
        episode_return, steps, done = 0.0, 0, False
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(action)
            episode_return += reward
            steps += 1
            done = terminated or truncated
        metrics = env.summary()
        metrics["episode_return"] = episode_return
        metrics["env_steps"] = steps
        env.close()
        return metrics


def _describe(space: Any) -> str:
    return f"{type(space).__name__}{getattr(space, 'shape', '')}"


def make_entrant(name: str) -> ControllerEntrant | AgentEntrant:
    if name.startswith(AGENT_ENTRANT_PREFIX):
        return AgentEntrant(name)
    return ControllerEntrant(name)


def evaluate_entrant(entrant: str, scenario: str, seed: int,
                     duration_s: float | None = None) -> dict[str, Any]:
    """One run of one entrant: the results.jsonl record (without suite and wall_s)."""
    return _record(make_entrant(entrant), scenario, seed, duration_s)


def _record(entrant: ControllerEntrant | AgentEntrant, scenario: str, seed: int,
            duration_s: float | None) -> dict[str, Any]:
    metrics = entrant.run(scenario, seed, duration_s)
    metrics.pop("series", None)
    for key in ("scenario", "controller", "seed"):
        metrics.pop(key, None)
    return {"entrant": entrant.name, "entrant_label": entrant.label, "scenario": scenario,
            "seed": int(seed), **metrics}


# ----------------------------------------------------------- results.jsonl --

def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Appends one JSON line and forces it to disk (a crash keeps every finished run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, default=_json_default, allow_nan=True)
    with open(path, "a+b") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:  # a line cut by a crash must not swallow this one
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write(line.encode() + b"\n")
        f.flush()
        os.fsync(f.fileno())


def read_records(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a results.jsonl (a line cut by a crash is skipped)."""
    if not path.is_file():
        return []
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            print(f"orbitcc-eval: {path}:{n} is incomplete, ignored", file=sys.stderr)
    return out


def _key(record: dict[str, Any]) -> RunKey:
    return (record["entrant"], record["scenario"], int(record["seed"]))


# ------------------------------------------------------------------- suite --

def run_suite(suite: SuiteConfig, results: Path, resume: bool = True,
              log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Runs every (entrant, scenario, seed) of ``suite`` not yet in ``results``;
    returns the suite's records (old and new) in suite order."""
    entrants = [make_entrant(name) for name in suite.entrants]
    for entrant, scenario in product(entrants, suite.scenarios):
        entrant.check(scenario)  # fail before any run, not halfway
    done = {_key(r) for r in read_records(results) if r.get("suite") == suite.name} \
        if resume else set()
    runs = list(product(entrants, suite.scenarios, suite.seeds))
    width = len(str(len(runs)))
    for k, (entrant, scenario, seed) in enumerate(runs, 1):
        head = f"[{k:>{width}}/{len(runs)}] {entrant.label} {scenario} seed {seed}"
        if (entrant.name, scenario, seed) in done:
            log(f"{head}: in {results.name} already, skipped")
            continue
        started = time.perf_counter()
        record = {"suite": suite.name,
                  **_record(entrant, scenario, seed, suite.duration_s),
                  "wall_s": 0.0}
        record["wall_s"] = time.perf_counter() - started
        append_record(results, record)
        log(f"{head}: {record['throughput_mbps']:.2f} Mb/s, p95 "
            f"{record['p95_delay_ms']:.1f} ms, loss {record['loss_rate']:.4f} "
            f"({record['wall_s']:.2f} s)")
    wanted = {(e.name, s, seed) for e, s, seed in runs}
    latest = {_key(r): r for r in read_records(results)
              if r.get("suite") == suite.name and _key(r) in wanted}
    return [latest[(e.name, s, seed)] for e, s, seed in runs if (e.name, s, seed) in latest]


def mean_std(values: Iterable[Any]) -> tuple[float, float, int]:
    """Mean, sample standard deviation (0 for one value) and count of the finite values."""
    xs = [float(v) for v in values
          if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not xs:
        return math.nan, math.nan, 0
    std = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
    return float(np.mean(xs)), std, len(xs)


def summary_table(records: list[dict[str, Any]], metrics: list[str]) -> str:
    """Mean +- std over seeds per (entrant, scenario), in the order of ``records``."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r.get("entrant_label", r["entrant"]), r["scenario"]), []).append(r)
    header = ["entrant", "scenario", "seeds", *metrics]
    rows = []
    for (label, scenario), rs in groups.items():
        cells = [label, scenario, str(len(rs))]
        for m in metrics:
            mean, std, n = mean_std(r.get(m) for r in rs)
            cells.append("-" if n == 0 else f"{mean:.4g} +- {std:.2g}")
        rows.append(cells)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, ["-" * w for w in widths], *rows]]
    return "\n".join(lines)


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="eval")
def _app(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    eval_cfg: EvalConfig = to_object(cfg)
    write_run_record(run_dir, cfg)
    results = Path(eval_cfg.results) if eval_cfg.results else run_dir / "results.jsonl"
    suite = eval_cfg.suite
    n = len(suite.entrants) * len(suite.scenarios) * len(suite.seeds)
    print(f"orbitcc-eval: suite {suite.name}: {len(suite.entrants)} entrants x "
          f"{len(suite.scenarios)} scenarios x {len(suite.seeds)} seeds = {n} runs -> {results}",
          flush=True)
    records = run_suite(suite, results, resume=eval_cfg.resume,
                        log=lambda line: print(line, flush=True))
    table = summary_table(records, list(eval_cfg.table_metrics))
    (run_dir / "summary.txt").write_text(table + "\n")
    if eval_cfg.print_table:
        print(f"\nmean +- std over seeds ({suite.name})\n{table}")
    print(f"outputs: {run_dir}")


def main() -> None:
    register_configs()
    _app()


if __name__ == "__main__":
    main()
