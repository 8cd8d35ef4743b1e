"""orbitcc-sim: run one episode of a hand-coded controller and report it.

  orbitcc-sim                                   # starlink_dual with its own controller
  orbitcc-sim scenario=single_link controller=newreno scenario.loss_rate=0.001 seed=2
  orbitcc-sim describe=maco                     # maco's parameters: default, range, help
                                                # (also describe=env, reward, features)

Writes into the run directory (printed at the end): the resolved config
(config.yaml), the command, metrics.json, series.npz and timeseries.png.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import hydra
import numpy as np
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from orbitcc.cli.common import handle_help, one_line_errors, run_app
from orbitcc.config import register_configs, to_object, write_run_record
from orbitcc.runner import build_simulation, collect_series


def _jsonable(metrics: dict) -> dict:
    return {k: v for k, v in metrics.items() if k != "series"}


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="sim")
@one_line_errors("orbitcc-sim")
def _app(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    sim_cfg = to_object(cfg)
    write_run_record(run_dir, cfg)

    sim, _ = build_simulation(sim_cfg, record_series=True)
    started = time.perf_counter()
    sim.run()
    wall = time.perf_counter() - started
    metrics = sim.summary()
    metrics["scenario"] = sim_cfg.scenario.name
    metrics["controller"] = sim_cfg.controller.name if sim_cfg.controller else "scenario-default"
    metrics["seed"] = sim_cfg.seed
    metrics["wall_s"] = wall
    metrics["series"] = collect_series(sim)

    (run_dir / "metrics.json").write_text(json.dumps(_jsonable(metrics), indent=2) + "\n")
    np.savez_compressed(run_dir / "series.npz", **metrics["series"])
    if cfg.print_table:
        from orbitcc.cli.report import metrics_table

        print(
            f"orbitcc-sim: {metrics['scenario']}, seed {metrics['seed']}, "
            f"{metrics['duration_s']:.1f} simulated s in {wall:.3f} wall s"
        )
        print(metrics_table(metrics))
    if cfg.plot:
        from orbitcc.plotting import plot_timeseries

        title = f"{metrics['scenario']} - seed {metrics['seed']}"
        plot_timeseries(metrics, run_dir / "timeseries.png", title=title)
    print(f"outputs: {run_dir}")


def main() -> None:
    handle_help("orbitcc-sim", __doc__ or "", ["scenario", "controller"])
    describe = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("describe=")]
    if describe:
        from orbitcc.params import describe as describe_settings

        try:
            print("\n\n".join(describe_settings(name) for name in describe))
        except ValueError as err:
            sys.exit(f"orbitcc-sim: {err}")
        return
    register_configs()
    run_app("orbitcc-sim", _app, "sim")


if __name__ == "__main__":
    main()
