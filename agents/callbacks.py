"""SB3 callbacks and a W&B logger output used by ``orbitcc-train``.

- ``EpisodeMetricsCallback``: when an episode ends, records its metrics
  (throughput, p95 delay, losses by cause, ...) in SB3's logger under
  ``episode/``; SB3 averages them until the next dump.
- ``ProgressCallback``: a progress line every 10 % of the budget (tqdm/rich,
  which SB3's progress bar needs, are not dependencies of orbitcc).
- ``WandbOutput``: an SB3 logger output that forwards every dump (SB3's own
  train/rollout values and ours) to a W&B run.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter

# Keys of an episode summary (orbitcc.run's metrics) logged per episode.
EPISODE_METRICS: tuple[str, ...] = (
    "throughput_mbps", "goodput_mbps", "p95_delay_ms", "mean_delay_ms", "loss_rate",
    "congestion_losses", "handover_losses", "random_losses", "utilization", "jain_fairness",
)


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


class ProgressCallback(BaseCallback):
    """Prints ``steps / total, steps/s, episodes, last episode`` every 10 %."""

    def __init__(self, total_timesteps: int, episodes: EpisodeMetricsCallback,
                 prefix: str = "orbitcc-train") -> None:
        super().__init__()
        self.total = int(total_timesteps)
        self.episodes = episodes
        self.prefix = prefix
        self._next = 0.1
        self._started = 0.0

    def _on_training_start(self) -> None:
        self._started = time.perf_counter()

    def _on_step(self) -> bool:
        done = self.num_timesteps / max(self.total, 1)
        if done >= self._next or self.num_timesteps >= self.total:
            while self._next <= done:
                self._next += 0.1
            self.report()
        return True

    def report(self) -> None:
        wall = max(time.perf_counter() - self._started, 1e-9)
        last = self.episodes.last
        tail = ""
        if last:
            tail = (f", last episode: return {last.get('return', float('nan')):.3g}, "
                    f"{last.get('throughput_mbps', float('nan')):.2f} Mb/s, "
                    f"p95 {last.get('p95_delay_ms', float('nan')):.1f} ms")
        pct = 100.0 * min(self.num_timesteps / max(self.total, 1), 1.0)
        print(f"{self.prefix}: {self.num_timesteps}/{self.total} steps ({pct:.0f}%), "
              f"{self.num_timesteps / wall:.0f} steps/s, "
              f"{self.episodes.episodes} episodes{tail}", flush=True)


class WandbOutput(KVWriter):
    """SB3 logger output writing each dump to a W&B run (numbers only)."""

    def __init__(self, run: Any) -> None:
        self.run = run

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any],
              step: int = 0) -> None:
        data = {k: float(v) for k, v in key_values.items()
                if isinstance(v, (int, float, np.integer, np.floating))
                and not isinstance(v, bool)}
        if data:
            self.run.log(data, step=int(step))

    def close(self) -> None:
        pass
