"""SB3 callbacks and a W&B logger output used by ``orbitcc-train``.

- ``EpisodeMetricsCallback``: when an episode ends, records its metrics
  (throughput, p95 delay, losses by cause, ...) in SB3's logger under
  ``episode/``; SB3 averages them until the next dump.
- ``ProgressCallback``: a progress bar with rate and ETA (redrawn in place on
  a terminal, a line per 10 % otherwise; tqdm/rich are not dependencies).
- ``RolloutTermsCallback``: per rollout, the reward's make-up on the
  training episodes (raw reward, unfairness, queueing, VecNormalize's scale).
- ``BudgetCallback``: stops at the wall-clock budget.
- ``HeldOutEvalCallback``: periodic evaluation on held-out seeds, best
  checkpoint, early stop.
- ``WandbOutput``: an SB3 logger output that forwards every dump (SB3's own
  train/rollout values and ours) to a W&B run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter

from orbitcc.runner import HEADLINE_METRICS

# Keys of an episode summary (orbitcc.run's metrics) logged per episode.
EPISODE_METRICS: tuple[str, ...] = (*HEADLINE_METRICS, "utilization", "jain_fairness")


class EpisodeMetricsCallback(BaseCallback):
    """Logs each finished episode's metrics (from the SB3 adapter's info)."""

    def __init__(self) -> None:
        super().__init__()
        self.episodes = 0
        self.last: dict[str, float] = {}

    def _on_step(self) -> bool:
        dones = self.locals.get("dones")
        infos = self.locals.get("infos", [])
        if dones is None:
            return True
        for done, info in zip(dones, infos, strict=False):
            if not done or "episode_metrics" not in info:
                continue
            self.episodes += 1
            summary = info["episode_metrics"]
            for key in EPISODE_METRICS:
                value = summary.get(key)
                if isinstance(value, (int, float)) and np.isfinite(value):
                    self.logger.record_mean(f"episode/{key}", float(value))
                    self.last[key] = float(value)
            if "episode" in info:  # added by VecMonitor
                self.last["return"] = float(info["episode"]["r"])
        self.logger.record("episode/count", self.episodes)
        return True


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rem = divmod(seconds, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


class ProgressCallback(BaseCallback):
    """A progress bar with rate and ETA.

    On a terminal one line is redrawn in place (at most 4 times a second);
    otherwise (logs, CI) a line is printed every 10 % of the budget and at
    least every ``log_every_s`` seconds. The ETA
    is the sooner of the step budget and the wall-clock budget. The final
    line is printed once, by ``finish()`` (SB3 collects whole rollouts, so
    the step count overshoots the budget: no line repeats "100 %").
    """

    def __init__(
        self,
        total_timesteps: int,
        episodes: EpisodeMetricsCallback,
        prefix: str = "orbitcc-train",
        budget_s: float | None = None,
        stream: Any = None,
        log_every_s: float = 60.0,
    ) -> None:
        super().__init__()
        self.log_every_s = log_every_s
        self.total = int(total_timesteps)
        self.episodes = episodes
        self.prefix = prefix
        self.budget_s = budget_s
        self.stream = stream if stream is not None else sys.stdout
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._tenths = 1  # next 10 % mark to print (non-terminal mode)
        self._started = 0.0
        self._last_draw = 0.0
        self.extra = ""  # e.g. the latest evaluation, set by EvalCallback

    def _on_training_start(self) -> None:
        self._started = time.perf_counter()
        self._last_draw = self._started

    def fraction(self) -> float:
        wall = time.perf_counter() - self._started
        f = self.num_timesteps / max(self.total, 1)
        if self.budget_s:
            f = max(f, wall / self.budget_s)
        return min(f, 1.0)

    def _on_step(self) -> bool:
        now = time.perf_counter()
        done = self.fraction()
        if self.tty:
            if now - self._last_draw >= 0.25 and done < 1.0:
                self._last_draw = now
                self.stream.write("\r" + self.line() + "\x1b[K")
                self.stream.flush()
        elif done < 1.0 and (
            10 * done >= self._tenths or now - self._last_draw >= self.log_every_s
        ):
            while self._tenths <= 10 * done:
                self._tenths += 1
            self._last_draw = now
            print(self.line(), file=self.stream, flush=True)
        return True

    def line(self) -> str:
        wall = max(time.perf_counter() - self._started, 1e-9)
        done = self.fraction()
        width = 24
        filled = int(round(width * done))
        bar = "#" * filled + "-" * (width - filled)
        rate = self.num_timesteps / wall
        eta = wall * (1.0 - done) / done if done > 0 else float("nan")
        last = self.episodes.last
        tail = ""
        if last:
            tail = (
                f" | last ep: return {last.get('return', float('nan')):.3g}, "
                f"{last.get('throughput_mbps', float('nan')):.1f} Mb/s"
            )
        eta_text = _clock(eta) if eta == eta else "--:--"
        return (
            f"{self.prefix} [{bar}] {100 * done:3.0f}% {self.num_timesteps}/{self.total} "
            f"steps, {rate:.0f} steps/s, {_clock(wall)} elapsed, ETA {eta_text}, "
            f"{self.episodes.episodes} episodes{tail}{self.extra}"
        )

    def report(self) -> None:
        print(self.line(), file=self.stream, flush=True)

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K\n")
            self.stream.flush()
        else:
            self.report()


class RolloutTermsCallback(BaseCallback):
    """Per rollout, what the reward is made of on the training episodes
    (to see where a drifting agent trades throughput for harm): the mean raw step reward, the mean
    per-step ``unfairness`` (the share of what the background flows were
    owed that they did not get) and ``queueing``, and, under VecNormalize's
    reward scaling, the divisor (the running std of the discounted return)
    and the share of scaled rewards clipped. Logged as ``terms/*``; it only
    reads, so training is unchanged bit for bit."""

    def __init__(self) -> None:
        super().__init__()
        self._sums: dict[str, float] = {}
        self._steps = 0

    def _on_rollout_start(self) -> None:
        self._sums = {"reward": 0.0, "unfairness": 0.0, "queueing": 0.0, "clipped": 0.0}
        self._steps = 0

    def _on_step(self) -> bool:
        env = self.training_env
        raw = env.get_original_reward() if hasattr(env, "get_original_reward") else None
        if raw is None:
            raw = self.locals.get("rewards")
        if raw is None:
            return True
        raw = np.asarray(raw, dtype=float).reshape(-1)
        self._sums["reward"] += float(raw.sum())
        for info in self.locals.get("infos", []):
            for key in ("unfairness", "queueing"):
                value = info.get(key)
                if value is not None:
                    self._sums[key] += float(value)
        if getattr(env, "norm_reward", False):
            scaled = np.asarray(self.locals.get("rewards"), dtype=float).reshape(-1)
            self._sums["clipped"] += float((np.abs(scaled) >= env.clip_reward).sum())
        self._steps += raw.size
        return True

    def _on_rollout_end(self) -> None:
        if not self._steps:
            return
        for key, total in self._sums.items():
            self.logger.record(f"terms/{key}", total / self._steps)
        env = self.training_env
        if getattr(env, "norm_reward", False):
            self.logger.record("terms/return_std", float(np.sqrt(env.ret_rms.var + env.epsilon)))


class BudgetCallback(BaseCallback):
    """Stops training once the wall-clock budget is spent."""

    def __init__(self, budget_s: float) -> None:
        super().__init__()
        self.budget_s = float(budget_s)
        self._started = 0.0
        self.exhausted = False

    def _on_training_start(self) -> None:
        self._started = time.perf_counter()

    def _on_step(self) -> bool:
        if time.perf_counter() - self._started >= self.budget_s:
            self.exhausted = True
            return False
        return True


class HeldOutEvalCallback(BaseCallback):
    """Every ``every`` steps: deterministic episodes on held-out validation
    seeds (test split), logged as ``eval/*``; keeps the best model; stops
    early after ``patience`` evaluations without improvement (0: never).

    ``evaluate(policy) -> dict`` plays the episodes (orbitcc.agents.heldout)
    with ``policy = policy_of(model)``, the model's deterministic action
    (orbitcc.entrants.policy: the one evaluation path of every evaluator);
    ``save_best(model)`` writes the best checkpoint. ``reference`` is a
    return to beat (NewReno's on the same seeds): the wall time and step
    count at which the agent first reaches it are recorded. ``feasible(result)``,
    when given, says whether an evaluation meets a constraint (constrained
    training): the best checkpoint is then the best feasible one, and an
    infeasible one is kept only until a feasible one appears.
    """

    def __init__(
        self,
        every: int,
        evaluate: Callable[[Callable], dict[str, float]],
        policy_of: Callable[[Any], Callable[[Any], Any]],
        save_best: Callable[[Any], None],
        patience: int = 0,
        reference: float | None = None,
        progress: ProgressCallback | None = None,
        feasible: Callable[[dict[str, float]], bool] | None = None,
    ) -> None:
        super().__init__()
        self.every = int(every)
        self.evaluate = evaluate
        self.policy_of = policy_of
        self.save_best = save_best
        self.patience = int(patience)
        self.reference = reference
        self.progress = progress
        self.feasible = feasible
        self.best_feasible = False
        self.best = -float("inf")
        self.best_step = 0
        self.since_best = 0
        self.curve: list[dict[str, float]] = []
        self.reached_reference: dict[str, float] | None = None
        self.stopped_early = False
        self._next = self.every
        self._started = 0.0
        self._cpu_started = 0.0
        self.eval_cpu_s = 0.0  # CPU spent in the evaluations so far
        self.setup_cpu_s = 0.0  # the process's CPU before training began (imports, env, model)

    def _on_training_start(self) -> None:
        self._started = time.perf_counter()
        self._cpu_started = time.process_time()
        self.setup_cpu_s = self._cpu_started

    def run_eval(self) -> None:
        wall = time.perf_counter() - self._started
        # Process CPU (every thread: the C++ workers and torch included) since
        # training began, the evaluations' own CPU excluded: the training's
        # cost, comparable across configurations on a shared machine.
        eval_started = time.process_time()
        train_cpu = eval_started - self._cpu_started - self.eval_cpu_s
        model = self.model
        result = self.evaluate(self.policy_of(model))
        ok = self.feasible is None or self.feasible(result)
        self.eval_cpu_s += time.process_time() - eval_started
        point = {
            "step": float(self.num_timesteps),
            "wall_s": wall,
            "cpu_s": train_cpu,
            "eval_cpu_s": self.eval_cpu_s,
            **result,
            "feasible": float(ok),
        }
        self.curve.append(point)
        for key, value in point.items():
            if key not in ("step", "wall_s", "cpu_s", "eval_cpu_s"):
                self.logger.record(f"eval/{key}", value)
        ret = result["return"]
        # A feasible policy beats any infeasible one; among equals, the return.
        if (ok, ret) > (self.best_feasible, self.best):
            self.best, self.best_step, self.since_best = ret, self.num_timesteps, 0
            self.best_feasible = ok
            self.save_best(model)
        else:
            self.since_best += 1
        if self.reference is not None and self.reached_reference is None and ret >= self.reference:
            self.reached_reference = {"step": float(self.num_timesteps), "wall_s": wall}
        if self.progress is not None:
            self.progress.extra = f" | eval {ret:.3g} (best {self.best:.3g})"

    def _on_step(self) -> bool:
        if self.num_timesteps < self._next:
            return True
        while self._next <= self.num_timesteps:
            self._next += self.every
        self.run_eval()
        if self.patience and self.since_best >= self.patience:
            self.stopped_early = True
            return False
        return True


class WandbOutput(KVWriter):
    """SB3 logger output writing each dump to a W&B run (numbers only)."""

    def __init__(self, run: Any) -> None:
        self.run = run

    def write(
        self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0
    ) -> None:
        data = {
            k: float(v)
            for k, v in key_values.items()
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        }
        if data:
            self.run.log(data, step=int(step))

    def close(self) -> None:
        pass
