"""Python smoke run of an instrumented ``orbitcc._core`` (make sanitize).

    LD_PRELOAD=$(g++ -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \\
        python tests/sanitizer_smoke.py build/asan/_core*.so

Loads the given module as ``orbitcc._core`` before anything imports the
installed one, then drives the paths Python users take: every preset through
``orbitcc.run``, the single and vector envs with random and extreme actions
(over QUIC and TCP),
two threads on one env, a handle replaced by a reset, and bad inputs. Any
sanitizer report aborts the process (-fno-sanitize-recover=all); exit 0 means
zero reports.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading


def load_core(path: str) -> None:
    loader = importlib.machinery.ExtensionFileLoader("orbitcc._core", path)
    spec = importlib.util.spec_from_file_location("orbitcc._core", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["orbitcc._core"] = module


def main(path: str) -> int:
    load_core(path)
    import gymnasium as gym
    import numpy as np

    import orbitcc
    from orbitcc import _core
    from orbitcc.config import available

    assert _core.__file__ == path, _core.__file__
    rng = np.random.default_rng(0)
    for scenario in sorted(available("scenario")):
        for controller in (None, "cubic", "bbr"):
            try:
                m = orbitcc.run(scenario, controller, seed=1, duration_s=2.0)
            except ValueError as e:  # e.g. a TCP preset with a coupled controller
                print(f"{scenario}/{controller}: {str(e)[:80]}")
                continue
            assert np.isfinite(m["throughput_mbps"]), (scenario, controller)
    for scenario, extra in (("starlink_dual", []), ("lms_ka", ["scenario.transport=tcp"])):
        for mode in ("window", "rate", "discrete", "residual"):
            v = orbitcc.make_vec(
                scenario,
                num_envs=3,
                num_threads=2,
                overrides=[f"env.action={mode}", "duration_s=3", *extra],
            )
            v.reset(seed=3)
            for t in range(60):
                a = v.action_space.sample() if t % 3 else v.action_space.sample() * 0
                v.step(a)
            v.close()
    e = gym.make(
        "orbitcc/OrbitCC-v0", scenario="single_link", overrides=["duration_s=1000"]
    ).unwrapped
    e.reset(seed=0)
    for a in (1e30, -1e30, 0.0, 1.0, -1.0):
        e.step(np.full(1, a, np.float32))
    errors: list[str] = []

    def hammer() -> None:
        for _ in range(100):
            try:
                e.step(rng.uniform(-1, 1, 1).astype(np.float32))
            except RuntimeError as err:
                errors.append(str(err))

    threads = [threading.Thread(target=hammer) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    s = e.simulation
    e.reset(seed=1)
    try:
        s.now_s  # noqa: B018
        raise AssertionError("a stale handle was readable")
    except RuntimeError:
        pass
    sim = _core.Simulation(
        {
            "duration_s": 1.0,
            "links": [
                {"capacity_mbps": 1000.0, "delay_ms": 5.0},
                {"capacity_mbps": 1000.0, "delay_ms": 5.0},
            ],
            "flows": [{"controller": "external", "paths": [{"forward": [0], "reverse": [1]}]}],
        }
    )
    sim.set_window(0, 1e15)
    sim.set_pacing_rate(0, 1e3)
    sim.step(0.2)
    sim.set_pacing_rate(0, 0.0)
    sim.run()
    for bad in (
        {"links": []},
        {"duration_s": -1},
        {"seed": 2**64},
        {"links": [{"capacity_mbps": 1e300}], "flows": []},
    ):
        try:
            _core.Simulation(bad)
        except ValueError:
            pass
    print(f"sanitizer smoke: ok ({len(errors)} concurrent-use errors raised as intended)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
