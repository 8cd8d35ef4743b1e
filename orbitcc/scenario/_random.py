"""Exogenous randomness of the LEO presets (design decision 3).

Every preset that inherits :class:`AccessRandomness` draws these processes in
the C++ core from the episode seed, each from its own stream, so two seeds
give different channels and every controller meets the same channel for one
seed (``cpp_core/leo/exogenous.h``, ``cpp_core/leo/gilbert_elliott.h``):

* **Handover blackouts**: each hard handover (a Starlink reassignment, an
  RSS-forced migration in MACO's along-track model, an Iridium route change)
  blacks the link out for a log-normal duration (median ``outage_median_s``,
  log-sd ``outage_sigma``, clamped to [``outage_min_s``, ``outage_max_s``]).
  A soft (make-before-break) attach has no blackout. Published observations
  this reading rests on: Starlink reassigns terminals on a global 15 s grid
  (Tanveer et al., "Making Sense of Constellations", arXiv 2307.00402;
  G. Huston, "Measuring Starlink protocol performance", APNIC 2024); packet
  losses of up to 50 % cluster at handovers (Kassem et al., "A browser-side
  view of Starlink connectivity", IMC 2022); latency spikes at each 15 s
  boundary last about 140 ms at the start of a slot and 75 ms at its end
  (arXiv 2601.08439). None gives a blackout distribution, so the log-normal
  with a 50 ms median and a 20-500 ms range is our reading of them ("tens to
  a few hundred ms"), not a measured fit.
* **Capacity jitter**: the link budget's capacity times exp(sigma x -
  sigma^2/2), x a stationary AR(1) standard normal updated every
  ``capacity_jitter_interval_s`` (mean factor 1: the long-run capacity is the
  budget's), redrawn at each handover (a new satellite brings its own load).
  ``capacity_jitter_max_factor`` > 0 caps the factor: a link whose base is a
  link budget's Shannon rate cannot exceed it (max factor 1, a fade below the
  budget; the capped factor's mean is 2 Phi(-sigma/2), 0.96 at sigma 0.1).
* **Latency jump at a handover**: an extra one-way delay uniform in
  [0, ``handover_delay_jitter_ms``], redrawn at each handover (Huston reports
  minimum-RTT steps at every reassignment, up to 30 -> 80 ms).
* **Bursty loss**: a continuous-time Gilbert-Elliott process on the access
  link (loss ``ge_p_good`` / ``ge_p_bad`` in the good / bad state, mean
  sojourns ``ge_mean_good_s`` / ``ge_mean_bad_s``); per-packet draws are
  counter-based, so the k-th packet on a link meets the same fate under
  every controller.

``deterministic: true`` switches all of it off (calibration runs): fixed
blackouts (the preset's own fixed value), no jitter, no random loss.
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario.rules import ScenarioRules


class AccessRandomness(ScenarioRules):
    # The rules of a preset with a randomised access (a kind's own may
    # extend them, calling check_randomness).
    def check_rules(self) -> None:
        self.check_randomness()

    def check_randomness(self) -> None:
        """The cross-field rules (each value's range is in the C++ table):
        outage_min_s <= outage_median_s <= outage_max_s."""
        if self.outage_max_s < self.outage_min_s:
            raise ValueError(
                f"scenario.outage_max_s = {self.outage_max_s!r} is out of range; "
                f"allowed: [outage_min_s = {self.outage_min_s!r}, 60] s"
            )
        if not self.outage_min_s <= self.outage_median_s <= self.outage_max_s:
            raise ValueError(
                f"scenario.outage_median_s = {self.outage_median_s!r} is out of "
                f"range; allowed: [outage_min_s, outage_max_s] = "
                f"[{self.outage_min_s!r}, {self.outage_max_s!r}] s"
            )

    def outage(self, fixed_s: float) -> float | dict[str, Any]:
        """A hard-handover blackout key: ``fixed_s`` when deterministic, else
        the log-normal distribution."""
        if self.deterministic:
            return float(fixed_s)
        return {
            "dist": "lognormal",
            "median_s": self.outage_median_s,
            "sigma": self.outage_sigma,
            "min_s": self.outage_min_s,
            "max_s": self.outage_max_s,
        }

    def overlays(self) -> dict[str, Any]:
        """Link keys (``jitter``, ``loss_process``) of a randomised access link."""
        if self.deterministic:
            return {}
        out: dict[str, Any] = {}
        if self.capacity_jitter_sigma > 0 or self.handover_delay_jitter_ms > 0:
            out["jitter"] = {
                "capacity_sigma": self.capacity_jitter_sigma,
                "interval_s": self.capacity_jitter_interval_s,
                "correlation": self.capacity_jitter_correlation,
                "handover_delay_ms": self.handover_delay_jitter_ms,
            }
            if self.capacity_jitter_max_factor > 0:
                out["jitter"]["max_factor"] = self.capacity_jitter_max_factor
        if self.ge_p_good > 0 or self.ge_p_bad > 0:
            out["loss_process"] = {
                "type": "gilbert_elliott",
                "p_good": self.ge_p_good,
                "p_bad": self.ge_p_bad,
                "mean_good_s": self.ge_mean_good_s,
                "mean_bad_s": self.ge_mean_bad_s,
            }
        return out
