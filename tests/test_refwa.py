"""REFWA (Taleb et al., IEEE/ACM ToN 2006) on its own scenario: explicit window
feedback at the bottleneck makes flows of different RTT groups share fairly,
where NewReno favours short RTTs; parameters outside the paper's stability
region warn but run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import orbitcc


def jain_and_loss(router: str, controller: str, link: str) -> tuple[float, float]:
    runs = [
        orbitcc.run("refwa_bottleneck", controller, seed=seed,
                    overrides=[f"scenario.router={router}", f"scenario.link_type={link}"])
        for seed in (0, 1)
    ]
    return (float(np.mean([m["jain_fairness"] for m in runs])),
            float(np.mean([m["loss_rate"] for m in runs])))


@pytest.mark.parametrize("link", ["T1", "T2"])
def test_refwa_is_fairer_than_newreno_across_rtt_groups(link):
    # Four RTT groups, (2i+2) x 40 ms: NewReno's throughput falls with RTT,
    # REFWA's per-group feedback equalises it (the paper's Figs. 3-4).
    refwa_jain, refwa_loss = jain_and_loss("refwa", "refwa", link)
    reno_jain, reno_loss = jain_and_loss("none", "newreno", link)
    assert refwa_jain > reno_jain + 0.1
    assert refwa_jain >= 0.85
    assert refwa_loss < reno_loss  # the window feedback keeps the queue from overflowing


def test_refwa_outside_stability_region_warns_but_runs():
    with pytest.warns(RuntimeWarning, match="stab"):
        m = orbitcc.run("refwa_bottleneck", "refwa", duration_s=2.0,
                        overrides=["scenario.phi=4.0"])
    assert m["throughput_mbps"] > 0


def test_refwa_default_parameters_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        orbitcc.run("refwa_bottleneck", "refwa", duration_s=1.0)


def test_refwa_meaningless_parameters_are_errors():
    with pytest.raises(ValueError, match="phi"):
        orbitcc.run("refwa_bottleneck", "refwa", duration_s=1.0, overrides=["scenario.phi=-1"])
