"""Records every preset's results for several controllers and seeds, for
bit-for-bit comparison across refactorings that must not change behaviour.

    python tools/golden_metrics.py record OUT.json   # writes the fingerprint
    python tools/golden_metrics.py compare A.json B.json

Each run is `orbitcc.run(scenario, controller, seed, series=True)`; floats are
stored exactly (JSON writes the shortest repr that round-trips) and each series
array as the SHA-256 of its bytes. Also steps the Gymnasium env (agent control
with seeded random actions, and a baseline controller) and records the hash of
every observation, reward and info array, so the env/RL path is covered too.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

CONTROLLERS = ("maco", "newreno", "cubic", "bbr", "olia", "lia", "balia", "refwa")
SEEDS = (0, 1)
ENV_CASES = (  # (scenario, controller or None for agent control, overrides)
    ("starlink_dual", None, ()),
    ("starlink_dual", "maco", ()),
    ("lms_ka", None, ()),
    ("single_link", None, ("env.action=rate",)),
    ("starlink_dual", "cubic", ("env.action=residual",)),
)
ENV_STEPS = 300


def _digest(a: Any) -> str:
    arr = np.ascontiguousarray(np.asarray(a))
    h = hashlib.sha256(str(arr.dtype).encode() + str(arr.shape).encode())
    h.update(arr.tobytes())
    return h.hexdigest()[:24]


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return {"sha": _digest(x)}
    if isinstance(x, np.generic):
        return x.item()
    return x


def record_runs() -> dict[str, Any]:
    import orbitcc

    out: dict[str, Any] = {}
    for scenario in orbitcc.scenarios():
        for controller in CONTROLLERS:
            for seed in SEEDS:
                key = f"run/{scenario}/{controller}/{seed}"
                try:
                    m = orbitcc.run(
                        scenario=scenario, controller=controller, seed=seed, series=True
                    )
                    out[key] = _plain(m)
                except Exception as e:  # noqa: BLE001 - a refusal is a result too
                    out[key] = {"error": f"{type(e).__name__}: {e}"}
                print(key, file=sys.stderr, flush=True)
    return out


def record_env() -> dict[str, Any]:
    import gymnasium as gym

    import orbitcc.env  # noqa: F401 - registers the ids

    out: dict[str, Any] = {}
    for scenario, controller, overrides in ENV_CASES:
        key = f"env/{scenario}/{controller}/{','.join(overrides)}"
        try:
            env = gym.make(
                "orbitcc/OrbitCC-v0",
                scenario=scenario,
                controller=controller,
                overrides=list(overrides),
            )
            rng = np.random.default_rng(7)
            h = hashlib.sha256()
            obs, info = env.reset(seed=3)
            h.update(np.asarray(obs).tobytes())
            rewards = []
            steps = 0
            acts = controller is None or "env.action=residual" in overrides
            for _ in range(ENV_STEPS):
                action = None
                if acts:
                    # seeded, independent of the space's own RNG
                    action = np.asarray(
                        rng.uniform(env.action_space.low, env.action_space.high),
                        dtype=env.action_space.dtype,
                    )
                obs, r, term, trunc, info = env.step(action)
                h.update(np.asarray(obs).tobytes())
                rewards.append(r)
                for k in sorted(info):
                    if k == "episode":
                        continue
                    h.update(k.encode())
                    h.update(repr(_plain(info[k])).encode())
                steps += 1
                if term or trunc:
                    break
            out[key] = {
                "steps": steps,
                "trajectory": h.hexdigest()[:24],
                "rewards": _digest(np.asarray(rewards)),
                "summary": _plain(env.unwrapped.summary()),
            }
            env.close()
        except Exception as e:  # noqa: BLE001
            out[key] = {"error": f"{type(e).__name__}: {e}"}
        print(key, file=sys.stderr, flush=True)
    return out


def compare(a_path: str, b_path: str) -> int:
    a = json.loads(Path(a_path).read_text())
    b = json.loads(Path(b_path).read_text())
    bad = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            bad += 1
            print(f"DIFF {key}")
            ra, rb = a.get(key), b.get(key)
            if isinstance(ra, dict) and isinstance(rb, dict):
                for k in sorted(set(ra) | set(rb)):
                    if ra.get(k) != rb.get(k):
                        print(f"   {k}: {str(ra.get(k))[:120]} != {str(rb.get(k))[:120]}")
    print(f"{len(set(a) | set(b)) - bad} identical, {bad} different")
    return 1 if bad else 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "record":
        data = record_runs()
        data.update(record_env())
        Path(sys.argv[2]).write_text(json.dumps(data, indent=1, sort_keys=True))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
