"""Where cells run: an existing engine, never a scheduler of ours.

- ``pool`` (default): ``concurrent.futures.ProcessPoolExecutor`` with the
  ``spawn`` start method; cells run in worker processes, never in the
  process that writes results.jsonl, and no state is inherited from it.
  Consecutive seeds of one (entrant, scenario cell) go out as one task
  (``batch_cells``), which pays a round trip and a composition once.
- ``ray``: one Ray task per batch of cells (``ray.init(address=...)``;
  ``null`` starts a local instance, ``auto`` joins the cluster of ``ray
  start``); the instance starts once per leaderboard run.
- ``submitit``: ``submitit.AutoExecutor`` job arrays, ``cluster=slurm`` on a
  Slurm cluster or ``cluster=local`` (subprocesses on this machine, what the
  tests use); ``cells_per_job`` cells per array task.
- ``serial``: in this process, one cell after the other (debugging).

Every launcher yields ``(cell, record or error message)`` as cells finish; the
caller alone writes results.jsonl, so workers never share a file.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orbitcc.baselines.cells import Cell, run_cell, worker_init
from orbitcc.lifetime import die_with_parent

Outcome = tuple[Cell, dict[str, Any] | None, str | None]  # (cell, record, error)
LAUNCHERS = ("pool", "ray", "submitit", "serial")
CLUSTERS = ("local", "slurm", "debug")


@dataclass
class LauncherConfig:
    """Where the cells run (group ``launcher/``; docs/leaderboard.md)."""

    name: str = "pool"  # pool | ray | submitit | serial
    workers: int | None = None  # pool: processes; None: the CPU count
    max_tasks_per_child: int | None = None  # pool: 1 = a fresh process per cell
    address: str | None = None  # ray: null starts a local instance; auto / ray://host:10001
    num_cpus: int | None = None  # ray: CPUs of a local instance; None: all
    object_store_mb: int = 256  # ray: object store of a local instance (records are small)
    cluster: str = "local"  # submitit: local | slurm | debug
    folder: str | None = None  # submitit: job logs; None: <run dir>/submitit
    cells_per_job: int = 8  # submitit: cells in one array task
    timeout_min: int = 60  # submitit: per array task
    partition: str | None = None  # submitit/slurm: partition
    array_parallelism: int = 64  # submitit/slurm: array tasks running at once
    slurm_additional: dict[str, str] = field(default_factory=dict)  # e.g. {account: myacct}

    def __post_init__(self) -> None:
        if self.name not in LAUNCHERS:
            raise ValueError(
                f"launcher.name = {self.name!r} is unknown; allowed: {', '.join(LAUNCHERS)}"
            )
        if self.cluster not in CLUSTERS:
            raise ValueError(
                f"launcher.cluster = {self.cluster!r} is unknown; allowed: {', '.join(CLUSTERS)}"
            )
        for name in ("workers", "max_tasks_per_child", "num_cpus"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ValueError(f"launcher.{name} = {v} must be >= 1 or null")
        if self.object_store_mb < 80:  # Ray's minimum is 75 MiB
            raise ValueError(f"launcher.object_store_mb = {self.object_store_mb} must be >= 80")
        if self.cells_per_job < 1 or self.timeout_min < 1 or self.array_parallelism < 1:
            raise ValueError(
                "launcher.cells_per_job, timeout_min and array_parallelism must be >= 1"
            )


def _error(err: BaseException) -> str:
    tb = traceback.format_exception_only(type(err), err)
    return "".join(tb).strip()


def _safe_run(cell: dict[str, Any], suite: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return run_cell(cell, suite), None
    except Exception as err:  # noqa: BLE001 - reported per cell, the suite goes on
        return None, _error(err)


def run_chunk(cells: list[dict[str, Any]], suite: str) -> list[tuple[Any, Any]]:
    """Runs several cells (one submitit array task)."""
    return [_safe_run(c, suite) for c in cells]


def launch(cells: list[Cell], cfg: LauncherConfig, suite: str, run_dir: Path) -> Iterator[Outcome]:
    if not cells:
        return iter(())
    if cfg.name == "serial":
        return _serial(cells, suite)
    if cfg.name == "pool":
        return _pool(cells, cfg, suite)
    if cfg.name == "ray":
        return _ray(cells, cfg, suite)
    return _submitit(cells, cfg, suite, run_dir)


def _serial(cells: list[Cell], suite: str) -> Iterator[Outcome]:
    for cell in cells:
        record, error = _safe_run(cell.to_dict(), suite)
        yield cell, record, error


MAX_CELLS_PER_TASK = 8


def batch_cells(cells: list[Cell], workers: int, cap: int = MAX_CELLS_PER_TASK) -> list[list[Cell]]:
    """Cells grouped into tasks: consecutive seeds of one (entrant, scenario
    cell) run together (one round trip carries them, and their worker has
    their config composed already), at most ``cap`` and at most ~1/(2
    workers) of all cells per task, so every worker still gets several."""
    cap = max(1, min(cap, len(cells) // (2 * max(workers, 1))))
    tasks: list[list[Cell]] = []
    for cell in cells:
        last = tasks[-1] if tasks else None
        if (
            last is not None
            and len(last) < cap
            and (last[0].entrant, last[0].cell) == (cell.entrant, cell.cell)
        ):
            last.append(cell)
        else:
            tasks.append([cell])
    return tasks


def _pool_worker_init(parent_pid: int) -> None:
    # A SIGKILLed run leaves no orphans: its workers die with it (and then
    # multiprocessing's resource tracker, whose pipe they held).
    die_with_parent(parent_pid)
    worker_init()


def _pool(cells: list[Cell], cfg: LauncherConfig, suite: str) -> Iterator[Outcome]:
    workers = min(cfg.workers or os.cpu_count() or 1, len(cells))
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_pool_worker_init,
        initargs=(os.getpid(),),
        max_tasks_per_child=cfg.max_tasks_per_child,
    ) as pool:
        pending: dict[Future, list[Cell]] = {}
        # max_tasks_per_child=1 promises a fresh process per cell: no batching.
        cap = 1 if cfg.max_tasks_per_child is not None else MAX_CELLS_PER_TASK
        queue = list(reversed(batch_cells(cells, workers, cap)))
        # Keep a bounded number of tasks in flight: a killed run has not
        # queued thousands of pickled cells, and results arrive in order-ish.
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                task = queue.pop()
                pending[pool.submit(run_chunk, [c.to_dict() for c in task], suite)] = task
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                task = pending.pop(fut)
                try:
                    results = fut.result()
                except Exception as err:  # noqa: BLE001 - a worker died (segfault, OOM)
                    msg = f"worker process failed: {_error(err)}"
                    results = [(None, msg)] * len(task)
                for cell, (record, error) in zip(task, results, strict=True):
                    yield cell, record, error


def _ray(cells: list[Cell], cfg: LauncherConfig, suite: str) -> Iterator[Outcome]:
    try:
        import ray
    except ImportError:
        raise RuntimeError("launcher=ray needs Ray: pip install 'orbitcc[cluster]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: dict[str, Any] = {
            "address": cfg.address,
            "log_to_driver": False,
            "include_dashboard": False,
        }
        if cfg.address is None:
            kwargs["object_store_memory"] = cfg.object_store_mb * 2**20
            if cfg.num_cpus is not None:
                kwargs["num_cpus"] = cfg.num_cpus
        ray.init(**kwargs)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_chunk)
        slots = int(ray.cluster_resources().get("CPU", 1))
        refs = {
            remote.remote([c.to_dict() for c in task], suite): task
            for task in batch_cells(cells, slots)
        }
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                task = refs[ref]
                try:
                    results = ray.get(ref)
                except Exception as err:  # noqa: BLE001 - the task's worker died
                    results = [(None, f"ray task failed: {_error(err)}")] * len(task)
                for cell, (record, error) in zip(task, results, strict=True):
                    yield cell, record, error
    finally:
        if started_here:
            ray.shutdown()


def _submitit(
    cells: list[Cell], cfg: LauncherConfig, suite: str, run_dir: Path
) -> Iterator[Outcome]:
    try:
        import submitit
    except ImportError:
        raise RuntimeError(
            "launcher=submitit needs submitit: pip install 'orbitcc[cluster]'"
        ) from None
    folder = Path(cfg.folder) if cfg.folder else run_dir / "submitit"
    executor = submitit.AutoExecutor(folder=str(folder / "%j"), cluster=cfg.cluster)
    params: dict[str, Any] = {
        "timeout_min": cfg.timeout_min,
        "cpus_per_task": 1,
        "name": f"orbitcc-{suite or 'cells'}",
    }
    if cfg.cluster == "slurm":
        params["slurm_array_parallelism"] = cfg.array_parallelism
        if cfg.partition:
            params["slurm_partition"] = cfg.partition
        if cfg.slurm_additional:
            params["slurm_additional_parameters"] = dict(cfg.slurm_additional)
    executor.update_parameters(**params)
    chunks = [cells[i : i + cfg.cells_per_job] for i in range(0, len(cells), cfg.cells_per_job)]
    jobs = executor.map_array(
        run_chunk, [[c.to_dict() for c in ch] for ch in chunks], [suite] * len(chunks)
    )
    pending = dict(zip(range(len(jobs)), jobs, strict=True))
    while pending:
        finished = [i for i, job in pending.items() if job.done()]
        if not finished:
            time.sleep(0.5)
            continue
        for i in finished:
            job = pending.pop(i)
            try:
                results = job.result()
            except Exception as err:  # noqa: BLE001 - the array task failed
                msg = f"submitit job {job.job_id} failed: {_error(err)}"
                results = [(None, msg)] * len(chunks[i])
            for cell, (record, error) in zip(chunks[i], results, strict=True):
                yield cell, record, error
