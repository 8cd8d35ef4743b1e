"""Long validations (~20 s here; more on slower machines): `make validate` (pytest -m slow).

They repeat the foundation's model checks over wider grids, more seeds and
longer episodes than the default suite can afford."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from analytic import cubic_window, mathis_throughput_pps, padhye_throughput_pps
from specs import one_link_spec, random_loss_run

import orbitcc
from orbitcc import _core

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("transport", ["tcp", "quic"])
@pytest.mark.parametrize("loss", [1e-4, 3e-4, 1e-3, 3e-3, 1e-2])
def test_newreno_tracks_padhye_within_15_percent_over_five_seeds(transport, loss):
    # The model's parameters are the simulator's own (as in test_core_models):
    # QUIC grows by bytes acknowledged (b = 1, Padhye's model with T0 = 200 ms).
    # TCP grows per ACK with an ACK every two segments (ns-3.37's defaults,
    # docs/tcp.md), so b = 2; and its SACK recovery and limited transmit remove
    # the timeouts Padhye's Reno suffers (asserted: at most 2 % of losses end
    # in an RTO), so the model without timeouts applies: the square-root law.
    measured, predicted = [], []
    timeouts = losses = 0
    for seed in range(5):
        r = random_loss_run(transport, loss, 600.0 if loss < 1e-3 else 200.0, seed)
        timeouts += r["timeouts"]
        losses += r["losses"]
        rtt_s = r["rtt_s"]
        measured.append(r["pps"])
        if transport == "tcp":
            predicted.append(mathis_throughput_pps(loss, rtt_s, b=2))
        else:
            predicted.append(padhye_throughput_pps(loss, rtt_s, rto_s=0.2, b=1))
    if transport == "tcp":
        assert timeouts <= 0.02 * losses, f"{timeouts} timeouts, {losses} losses"
    assert np.mean(measured) / np.mean(predicted) == pytest.approx(1.0, abs=0.15)


def test_cubic_follows_its_curve_in_every_epoch_of_a_long_run():
    spec = one_link_spec(
        "cubic", "quic", capacity_mbps=100, rtt_ms=100, duration_s=300, sample_interval_s=0.01
    )
    spec["flows"][0]["controller_params"] = {"fast_convergence": 0}
    sim = _core.Simulation(spec)
    sim.run()
    s = sim.series()
    t, w = s["t_s"], s["cwnd_bytes"][0] / 1500
    cuts = np.where(np.diff(w) < -0.2 * w[:-1])[0]
    assert len(cuts) >= 20
    for start, end in zip(cuts[3:-1], cuts[4:], strict=True):
        rtt_s = s["srtt_ms"][0][start + 1 : end].mean() / 1e3
        elapsed = t[start + 1 : end + 1] - t[start + 1]
        inside = elapsed > 2 * rtt_s
        expected = np.array([cubic_window(x - rtt_s, w[start]) for x in elapsed[inside]])
        assert np.max(np.abs(w[start + 1 : end + 1][inside] - expected) / expected) < 0.02


@pytest.mark.parametrize("band", ["ka", "s"])
def test_lms_capacity_occupancy_in_a_full_simulation(band):
    # Khan et al. Table 1 through the whole simulator: the fraction of time
    # the link spends at each capacity matches pi_i * tau_i / sum(pi * tau),
    # pi the embedded jump chain's stationary law and tau the mean sojourns.
    jump = {
        "ka": [[0, 0.93156, 0.068437], [0.34526, 0, 0.65474], [0.070012, 0.92999, 0]],
        "s": [[0, 0.94076, 0.059243], [0.77084, 0, 0.22916], [0.49418, 0.50582, 0]],
    }[band]
    tau = {"ka": [0.2530, 0.7299, 0.1666], "s": [0.5485, 0.4992, 0.3529]}[band]
    caps = {"ka": [80, 40, 16], "s": [4, 2, 0.8]}[band]
    p = np.array(jump) / np.array(jump).sum(axis=1, keepdims=True)
    vals, vecs = np.linalg.eig(p.T)
    pi = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    pi /= pi.sum()
    expected = pi * tau / np.sum(pi * tau)
    m = orbitcc.run(
        f"lms_{band}",
        "cubic",
        seed=3,
        duration_s=3000.0,
        series=True,
        overrides=["sample_interval_s=0.01"],
    )
    capacity = m["series"]["capacity_mbps"][0]
    occupancy = [np.mean(np.isclose(capacity, c)) for c in caps]
    assert occupancy == pytest.approx(list(expected), abs=0.02)


@pytest.mark.parametrize("link", ["T1", "T2", "T3", "OC3"])
def test_refwa_fairer_than_newreno_on_every_link_type(link):
    def jain(router, controller):
        return np.mean(
            [
                orbitcc.run(
                    "refwa_bottleneck",
                    controller,
                    seed=s,
                    overrides=[f"scenario.router={router}", f"scenario.link_type={link}"],
                )["jain_fairness"]
                for s in range(3)
            ]
        )

    assert jain("refwa", "refwa") > jain("none", "newreno")


def test_maco_run_is_identical_in_a_fresh_process():
    code = (
        "import json, orbitcc; m = orbitcc.run('starlink_dual', 'maco', seed=7); "
        "m.pop('flows'); print(json.dumps(m, sort_keys=True))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    here = orbitcc.run("starlink_dual", "maco", seed=7)
    here.pop("flows")
    assert runs[0] == runs[1] == json.dumps(here, sort_keys=True) + "\n"
