"""Smoke test of the MACO reproduction command with a tiny budget."""

from __future__ import annotations

import math

from orbitcc.reproductions import reproduce_maco


def test_reproduce_maco_writes_tables_and_keeps_the_discussion(tmp_path):
    out = tmp_path / "docs" / "reproduction.md"
    out.parent.mkdir()
    out.write_text(
        f"# intro\n\n{reproduce_maco.BEGIN}\nSTALE-GENERATED-TEXT\n{reproduce_maco.END}\n\n"
        "hand-written\n"
    )
    reproduce_maco.main(
        [
            "--seeds",
            "1",
            "--duration",
            "3",
            "--sweep-seeds",
            "1",
            "--sweep-file-bytes",
            "200000",
            "--out",
            str(out),
        ]
    )
    text = out.read_text()
    assert text.startswith("# intro") and text.rstrip().endswith("hand-written")
    assert "STALE-GENERATED-TEXT" not in text
    for controller in ("MACO", "OLIA", "BBR"):
        assert controller in text
    assert text.count("| congestion signals acted on |") == len(reproduce_maco.VARIANTS)
    # Every finding row carries the paper's value, orbitcc's and a verdict.
    findings = text.split("### Findings")[1].split("###")[0]
    rows = [r for r in findings.splitlines() if r.startswith("| ") and "verdict" not in r]
    assert len(rows) >= 14
    assert all(("**reproduces**" in r) != ("**does not reproduce**" in r) for r in rows)
    for variant in reproduce_maco.VARIANTS:
        png = tmp_path / "docs" / "img" / f"reproduction_{variant}.png"
        assert png.read_bytes()[:4] == b"\x89PNG"


def test_recovery_time_measure_on_a_synthetic_series():
    # cwnd starts at 10 packets and reaches a 100-packet BDP after 50 ms; a cut
    # at 100 ms (to 60 packets) recovers at 130 ms; the last cut never does.
    import numpy as np

    t = np.arange(0, 0.3, reproduce_maco.SAMPLE_S)
    cwnd = np.full(len(t), 100.0)
    cwnd[:5] = 10
    cwnd[10:13] = 60
    cwnd[20:] = 50
    series = {
        "t_s": t,
        "cwnd_bytes": cwnd[None, :] * 1500,
        "capacity_mbps": np.full((1, len(t)), 1500 * 8 * 100 / 0.05 / 1e6),
        "min_rtt_ms": np.full((1, len(t)), 50.0),
    }
    times = reproduce_maco.recovery_times(series, [0])
    assert times["slow_start"] == [50.0]
    assert times["congestion_avoidance"] == [30.0]
    assert times["censored"] == [t[20]]


def test_docgen_rewrites_only_its_own_section(tmp_path):
    from orbitcc.reproductions import docgen

    out = tmp_path / "doc.md"
    out.write_text("# head\n")
    docgen.write_section(out, "a", "A1", title="A")
    docgen.write_section(out, "b", "B1", title="B")
    docgen.write_section(out, "a", "A2")
    text = out.read_text()
    assert "A1" not in text and "A2" in text and "B1" in text
    assert text.index("## A") < text.index("A2") < text.index("## B") < text.index("B1")
    assert text.count(docgen.begin_marker("a")) == 1
    assert text.count(docgen.end_marker("b")) == 1
    # A begin marker without its end marker would swallow the rest: refused.
    out.write_text(f"{docgen.begin_marker('a')}\nrest\n")
    import pytest

    with pytest.raises(ValueError, match="no matching"):
        docgen.write_section(out, "a", "A3")


def test_mean_std_reports_spread_only_when_there_is_one():
    from orbitcc.reproductions.docgen import mean_std

    assert mean_std([1.0, 2.0, 3.0]) == "2.0 +- 1.0"
    assert mean_std([4.3]) == "4.3"  # one (deterministic) run: no "+- 0.0"
    assert mean_std([]) == "n/a"


def test_section_main_runs_the_generator_and_rejects_a_single_seed(tmp_path, capsys):
    """The shared command line of the seeded reproduction scripts."""
    import pytest

    from orbitcc.reproductions import docgen

    calls = []

    def generate(seeds: int, jobs: int) -> str:
        calls.append((seeds, jobs))
        return f"table over {seeds} seeds"

    out = tmp_path / "doc.md"
    assert (
        docgen.section_main(
            ["--seeds", "3", "--jobs", "1", "--out", str(out)], None, "x", "Paper X", generate
        )
        == 0
    )
    assert calls == [(3, 1)]
    text = out.read_text()
    assert "## Paper X" in text and "table over 3 seeds" in text
    for bad, says in (
        (["--seeds", "1"], "--seeds must be >= 2"),
        (["--jobs", "0"], "--jobs must be >= 1"),
    ):
        with pytest.raises(SystemExit):
            docgen.section_main([*bad, "--out", str(out)], None, "x", "Paper X", generate)
        assert says in capsys.readouterr().err
    assert calls == [(3, 1)]  # nothing ran on bad input


def test_eq26_pair_increase_matches_the_closed_form():
    # Two subflows with equal windows w and RTT tau, T_r = tau: per subflow w
    # ACKs per RTT, each adding 3 x^2 sqrt(T) / (2 tau (2x)^(5/2)) packets with
    # x = w / tau, so the pair grows 3 sqrt(w T / tau) / 2^(5/2) per RTT.
    import math

    import numpy as np

    w, tau = 200.0, 0.1
    n = 20
    series = {
        "subflow_flow": np.array([0, 0, 1]),
        "cwnd_bytes": np.full((3, n), w * 1500.0),
        "srtt_ms": np.full((3, n), tau * 1e3),
    }
    mask = np.ones(n, dtype=bool)
    got = reproduce_maco.eq26_pair_increase(series, mask)
    assert math.isclose(got, 3 * math.sqrt(w) / 2**2.5, rel_tol=1e-9)
    # One subflow alone: 1.5 sqrt(w T / tau) packets per RTT.
    single = {k: v[1:] for k, v in series.items()}
    single["subflow_flow"] = np.array([0, 1])
    assert math.isclose(
        reproduce_maco.eq26_pair_increase(single, mask), 1.5 * math.sqrt(w), rel_tol=1e-9
    )
    assert math.isnan(reproduce_maco.eq26_pair_increase(series, np.zeros(n, dtype=bool)))


def test_reproduce_maco_sections_write_their_own_markers(tmp_path):
    out = tmp_path / "reproduction.md"
    out.write_text("# intro\n\nhand-written\n")
    reproduce_maco.main(
        ["--section", "friendliness", "--seeds", "2", "--duration", "4", "--out", str(out)]
    )
    text = out.read_text()
    assert "hand-written" in text and "predicted split" in text and "measured split" in text
    assert "--section friendliness --seeds 2 --duration 4" in text
    assert text.count("<!-- GENERATED: reproduce_maco_friendliness") == 1
    # A second run replaces its section and leaves the rest as it was.
    reproduce_maco.main(
        ["--section", "friendliness", "--seeds", "2", "--duration", "3", "--out", str(out)]
    )
    again = out.read_text()
    assert again.count("<!-- GENERATED: reproduce_maco_friendliness") == 1
    assert "--duration 3" in again and "--duration 4" not in again
    assert again.startswith("# intro")


def test_reproduce_maco_completion_section_runs_every_sweep_at_every_size(tmp_path):
    """``--section completion``: the R1, W and delay sweeps (Figs. 12-13), one
    row per file size and value with the seeds MACO won, and one verdict line
    per sweep and size; ``--sweep-file-bytes`` replaces the two sizes (tests)."""
    out = tmp_path / "reproduction.md"
    out.write_text("# intro\n\nhand-written\n")
    reproduce_maco.main(
        ["--section", "completion", "--seeds", "2", "--sweep-file-bytes", "150000"]
        + ["--out", str(out)]
    )
    text = out.read_text()
    assert text.count("<!-- GENERATED: reproduce_maco_completion") == 1
    assert "hand-written" in text
    assert "--section completion --seeds 2 --sweep-file-bytes 150000`" in text
    sweeps = [
        ("R1 (km)", reproduce_maco.SPACINGS_KM),
        ("W (MHz, R1 = 150 km)", reproduce_maco.BANDWIDTHS_MHZ),
        ("terrestrial one-way delay (ms, R1 = 150 km)", reproduce_maco.TERRESTRIAL_MS),
    ]
    for header, values in sweeps:
        assert f"| file | {header} | MACO | OLIA | BBR | MACO fastest |" in text
        for v in values:
            row = next(
                line for line in text.splitlines() if line.startswith(f"| 0.15 MB | {v:g} |")
            )
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert len(cells) == 6 and cells[5].endswith(" of 2"), row
            assert all(" +- " in c for c in cells[2:5]), row
    verdicts = [line for line in text.splitlines() if line.startswith("- 0.15 MB: Paper: ")]
    assert len(verdicts) == 3
    assert all("Verdict: **" in line for line in verdicts)
    # Without --sweep-file-bytes the sizes are the paper's 10 MB and the preset's 100 MB.
    assert reproduce_maco.FILE_SIZES == (10_000_000, 100_000_000)


def _sweep(maco, olia, bbr, values=(1.0, 2.0, 3.0)):
    return {
        c: {v: list(t) for v, t in zip(values, ts, strict=True)}
        for c, ts in (("maco", maco), ("olia", olia), ("bbr", bbr))
    }


def test_completion_verdict_and_wins_against_hand_made_sweeps():
    """The verdicts test each claim of the paper, not only MACO's rank: a tie
    is no win, a flat W is no speed-up, a delay that shortens one controller's
    transfer names it."""
    ok = _sweep(maco=[(10, 11), (8, 9), (6, 7)], olia=[(12, 13)] * 3, bbr=[(14, 15)] * 3)
    assert reproduce_maco.completion_verdict("bandwidth_mhz", ok).endswith("**reproduces**")
    assert reproduce_maco.maco_wins(ok, 1.0) == 2
    # A tie on one seed is not a win; a mean tie is not "fastest".
    tie = _sweep(maco=[(12, 11)] * 3, olia=[(12, 13)] * 3, bbr=[(14, 15)] * 3)
    assert reproduce_maco.maco_wins(tie, 2.0) == 1
    v = reproduce_maco.completion_verdict(
        "spacing_km", _sweep(maco=[(12, 13)] * 3, olia=[(12, 13)] * 3, bbr=[(14, 15)] * 3)
    )
    assert "does not reproduce" in v and "not the fastest (mean) at 1, 2, 3" in v
    # MACO fastest everywhere but W does not speed it: Fig. 12's second claim fails.
    flat = _sweep(maco=[(10, 10)] * 3, olia=[(12, 13)] * 3, bbr=[(14, 15)] * 3)
    v = reproduce_maco.completion_verdict("bandwidth_mhz", flat)
    assert "does not reproduce" in v and "not the fastest" not in v and "MACO 10.00 s" in v
    # A longer delay that shortens OLIA's transfer: Fig. 13's first claim fails for OLIA only.
    delay = _sweep(
        maco=[(5, 5), (6, 6), (7, 7)], olia=[(9, 9), (8, 8), (8, 8)], bbr=[(8, 8), (9, 9), (10, 10)]
    )
    v = reproduce_maco.completion_verdict("terrestrial_delay_ms", delay)
    assert "does not reproduce" in v and v.endswith("for OLIA")
    # NaN (an unfinished transfer) never counts as a win.
    nan = _sweep(maco=[(math.nan, 1)] * 3, olia=[(2, 2)] * 3, bbr=[(3, 3)] * 3)
    assert reproduce_maco.maco_wins(nan, 1.0) == 1
