"""A digest of every result bit of 13 specs, on a chosen compiled core.

    python tools/core_identity.py new              (the installed orbitcc._core)
    python tools/core_identity.py /path/_core.so   (another build, e.g. the base commit's)

Prints one line per spec: the SHA-256 (first 16 hex digits) of its summary
(timing keys removed), every subflow's packet accounting and every series.
Two builds that print the same lines give the same results, so a change
meant only to make the core faster can be shown to leave every result bit
as it was (run it on both modules and compare).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from typing import Any

if len(sys.argv) > 1 and sys.argv[1] != "new":
    _spec = importlib.util.spec_from_file_location("orbitcc._core", sys.argv[1])
    assert _spec is not None and _spec.loader is not None
    _mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_mod)
    sys.modules["orbitcc._core"] = _mod

from orbitcc import _core
from orbitcc.cli.bench import scenario_spec, single_link_spec, starlink_at

TIMING = ("wall_s", "cpu_s", "events_per_s")


def strip(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def cases() -> dict[str, dict]:
    out = {
        "sl10g": single_link_spec(10000.0, 1.5),
        "sl1g": single_link_spec(1000.0, 4.0),
        "sl100_newreno": single_link_spec(100.0, 10.0, controller="newreno"),
        "sd10g": scenario_spec("starlink_dual", "maco", 1.5, starlink_at(10000.0)),
    }
    for c in ("maco", "olia", "bbr", "cubic", "newreno", "lia"):
        out[f"sd/{c}"] = scenario_spec("starlink_dual", c, 30.0)
    for scen in ("lms_ka", "iridium_mptcp", "refwa_bottleneck"):
        out[scen] = scenario_spec(scen, None, 10.0)
    return out


def main() -> None:
    for name, spec in cases().items():
        spec = json.loads(json.dumps(spec))
        spec["record_series"] = True
        sim = _core.Simulation(spec)
        sim.run()
        acc = [sim.packet_accounting(i) for i in range(sim.num_subflows)]
        h = hashlib.sha256(
            json.dumps([strip(sim.summary()), acc], sort_keys=True, default=str).encode()
        )
        series = sim.series()
        for k in sorted(series):
            v = series[k]
            h.update(k.encode())
            h.update(v.tobytes() if hasattr(v, "tobytes") else repr(v).encode())
        print(name, h.hexdigest()[:16])


if __name__ == "__main__":
    main()
