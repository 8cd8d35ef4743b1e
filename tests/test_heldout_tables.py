"""The held-out tables that cannot flatter (issue 35, item 4;
orbitcc.agents.heldout_tables) on hand-made rows: the four splits, the paired
differences with their standard errors, the issue's targets and the
training-seed summary; and the shipped tables, the command that prints them and
docs/agents.md's generated block, held equal."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from orbitcc.agents import heldout_tables as ht

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "agents" / "reference"


def row(
    thr: float, p95: float, bg: float, trace: bool, flows: int, ret: float = 0.0
) -> dict[str, float]:
    return {
        "return": ret,
        "throughput_mbps": thr,
        "p95_delay_ms": p95,
        "background_mbps": bg,
        "trace_episode": float(trace),
        "background_flows": float(flows),
    }


@pytest.fixture
def data() -> dict:
    # Seeds 0-3 of the task: 0 synthetic + background, 1 synthetic alone,
    # 2 trace + background, 3 synthetic + background. Trace variant: 0, 1
    # with background, 2, 3 alone.
    def task(thr: list[float], p95: list[float], bg: list[float]) -> list[dict[str, float]]:
        meta = [(False, 1), (False, 0), (True, 1), (False, 2)]
        return [row(t, p, b, tr, f) for t, p, b, (tr, f) in zip(thr, p95, bg, meta, strict=True)]

    def trace(thr: list[float]) -> list[dict[str, float]]:
        return [
            row(t, 100.0, 1.0 if i < 2 else 0.0, True, 1 if i < 2 else 0) for i, t in enumerate(thr)
        ]

    return {
        "seeds": [0, 1, 2, 3],
        "rows": {
            "task": {
                "agent:a": task([10, 20, 30, 40], [90, 90, 90, 90], [5, 0, 5, 5]),
                "seed:a:s1": task([12, 22, 32, 42], [90, 90, 90, 90], [5, 0, 5, 5]),
                "newreno": task([9, 25, 30, 40], [100, 100, 100, 100], [4, 0, 5, 5]),
                "olia": task([8, 18, 28, 38], [96, 96, 96, 96], [5, 0, 5, 5]),
            },
            "trace": {
                "agent:a": trace([10, 10, 18, 18]),
                "newreno": trace([10, 10, 20, 20]),
                "olia": trace([9, 9, 19, 19]),
            },
        },
    }


def test_splits_partition_the_episodes(data: dict) -> None:
    s = ht.splits(data)
    assert s["synthetic, with background"] == ("task", [0, 3])
    assert s["synthetic, no background"] == ("task", [1])
    assert s["trace, with background"] == ("trace", [0, 1])
    assert s["trace, no background"] == ("trace", [2, 3])


def test_paired_stats_are_mean_and_standard_error() -> None:
    m, se, n = ht.paired_stats([1, 2, 3], [0, 0, 0])
    assert (m, n) == (2.0, 3)
    assert se == pytest.approx(1.0 / math.sqrt(3))


def test_targets_on_hand_made_rows(data: dict) -> None:
    t = {what: (met, fig) for what, met, fig in ht.targets(data, "agent:a")}
    # throughput vs NewReno: (1 - 5 + 0 + 0) / 4 = -1; vs OLIA +2
    assert t["throughput >= newreno's"][0] is False
    assert t["throughput >= olia's"][0] is True
    # p95: 90 vs 96: -6 <= -5
    assert t["p95 delay <= OLIA's - 5 ms"][0] is True
    assert t["background >= OLIA's"][0] is True
    # alone: task seed 1 (20 vs NewReno 25, OLIA 18) and trace seeds 2, 3
    # (18, 18 vs NewReno 20, 20): NewReno is the better; 56 / 65 = 86 %.
    key = [k for k in t if k.startswith("no background")][0]
    assert "(newreno)" in key and t[key][0] is False
    assert t[key][1].startswith("86.2 %")
    key = [k for k in t if k.startswith("trace episodes")][0]
    assert t[key][0] is True  # 56 / 60 = 93 %


def test_seeds_summary_and_tables(data: dict) -> None:
    text = ht.seeds_summary(data, "a", baselines=("newreno",))
    # runs' mean throughput 25 and 27: +26.0 +- 1.4
    assert "+26.0 +- 1.4" in text
    tables = ht.tables(data)
    assert "**agent:a, trace, no background** (2 test seeds: 2, 3" in tables
    assert "seed:a:s1" not in tables  # training siblings are not baselines


def test_training_table_reads_the_records_play_kept(
    data: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`play` copies each run's train_summary.json figures into the json, so
    the training table needs no run dir: after the dirs are gone it still
    prints every run, and a run without a summary has no row."""
    import shutil

    runs = {}
    for name, seed, best in [("a", 0, 152.8), ("s1", 1, 148.8), ("nosummary", 2, 0.0)]:
        run = tmp_path / name
        run.mkdir()
        runs[name] = run
        if name != "nosummary":
            summary = {
                "seed": seed,
                "timesteps": 600064,
                "wall_s": 2471.3,
                "steps_per_s": 242.8,
                "stopped_by": "steps",
                "best_eval_return": best,
                "best_eval_step": 20000,
                "newreno_eval_return": 114.6,
                "curve": [1, 2, 3],  # not copied
            }
            (run / "train_summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(ht, "_task", lambda path: ("single_link", ["env.history=4"]))
    monkeypatch.setattr(
        ht.heldout,
        "play_many",
        lambda ckpt, scenario, overrides, seeds, entrants, jobs: [
            [{"return": float(s), "trace_episode": 0.0, "background_flows": 1.0} for s in seeds]
        ],
    )
    out = tmp_path / "split.json"
    played = ht.play(
        {"a": runs["a"]},
        ["newreno"],
        [0, 1],
        1,
        out,
        extra_runs=[("a", runs["s1"]), ("a", runs["nosummary"])],
    )
    assert json.loads(out.read_text()) == played
    assert set(played["training"]) == {"agent:a", "seed:a:s1"}
    assert "curve" not in played["training"]["agent:a"]
    for run in runs.values():
        shutil.rmtree(run)
    table = ht.training_table(played).splitlines()
    assert table[2:] == [
        "| a | 0 | 600,064 | 2471 | 243 | steps | 152.8 (20,000) | 114.6 |",
        "| a | 1 | 600,064 | 2471 | 243 | steps | 148.8 (20,000) | 114.6 |",
    ]


def test_the_shipped_tables_are_the_commands_output_and_the_docs_block() -> None:
    """agents/reference/heldout_tables.md is what `tables` prints from the
    committed heldout_split.json (every played run has its training row),
    and docs/agents.md's generated block is that file."""
    from orbitcc.reproductions.docgen import begin_marker, end_marker

    split = json.loads((REFERENCE / "heldout_split.json").read_text())
    assert set(split["training"]) == set(split["runs"])
    printed = ht.report(split)
    shipped = (REFERENCE / "heldout_tables.md").read_text()
    assert printed.strip() == shipped.strip()
    doc = (ROOT / "docs" / "agents.md").read_text()
    block = doc.split(begin_marker("heldout_tables"), 1)[1].split(end_marker("heldout_tables"))[0]
    assert block.strip() == shipped.strip()


def test_docgen_command_writes_one_section_and_refuses_a_missing_one(tmp_path: Path) -> None:
    """`python -m orbitcc.reproductions.docgen DOC SECTION FILE` (the step of
    make train-reference that fills docs/agents.md): the section's text is
    replaced, the rest kept byte for byte; a document without the section is
    refused with its name (exit 2), not appended to."""
    from orbitcc.reproductions import docgen

    doc = tmp_path / "doc.md"
    head = "# Title\n\nhand-written\n\n"
    tail = "\n\nafter\n"
    doc.write_text(head + docgen.begin_marker("t") + "\n\nold\n\n" + docgen.end_marker("t") + tail)
    body = tmp_path / "body.md"
    body.write_text("| a |\n|---|\n| 1 |\n")
    assert docgen.main([str(doc), "t", str(body)]) == 0
    assert doc.read_text() == (
        head
        + docgen.begin_marker("t")
        + "\n\n| a |\n|---|\n| 1 |\n\n"
        + docgen.end_marker("t")
        + tail
    )
    with pytest.raises(SystemExit) as exc:
        docgen.main([str(doc), "other", str(body)])
    assert exc.value.code == 2
    assert "other" not in doc.read_text()


def test_a_retrained_agent_is_played_again_and_the_baselines_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`play` resumes, but an agent's rows belong to its checkpoint: after the
    agent's model.zip (or obs_norm.json) changes, its rows are played again
    on every variant, while the baselines' rows and an unchanged sibling's
    are kept (the round-7 retrain found the old agent's rows kept beside the
    new agent's training record)."""
    calls: list[str] = []

    def fake_play_many(ckpt, scenario, overrides, seeds, entrants, jobs):
        label = entrants[0] or ckpt
        calls.append(label)
        value = float(len(calls))  # each play gives new numbers
        return [[{"return": value, "trace_episode": 0.0, "background_flows": 1.0} for _ in seeds]]

    monkeypatch.setattr(ht, "_task", lambda path: ("single_link", ["env.history=4"]))
    monkeypatch.setattr(ht.heldout, "play_many", fake_play_many)
    agent, sibling = tmp_path / "agent", tmp_path / "s1"
    for run in (agent, sibling):
        run.mkdir()
        (run / "model.zip").write_bytes(b"v1")
        (run / "obs_norm.json").write_text("{}")
    out = tmp_path / "split.json"

    def play() -> dict:
        return ht.play({"a": agent}, ["newreno"], [0, 1], 1, out, extra_runs=[("a", sibling)])

    first = play()
    agent_ckpt, sibling_ckpt = str(agent / "model.zip"), str(sibling / "model.zip")
    # Task and trace: the agent and the baseline each; then the sibling (task only).
    assert calls == [agent_ckpt, "newreno", agent_ckpt, "newreno", sibling_ckpt]
    assert play() == first and len(calls) == 5  # nothing changed: nothing replayed
    (agent / "obs_norm.json").write_text('{"mean": [1.0]}')  # a reship
    second = play()
    assert calls[5:] == [agent_ckpt, agent_ckpt]  # the agent alone, both variants
    for variant in ("task", "trace"):
        rows = second["rows"][variant]
        assert rows["agent:a"] != first["rows"][variant]["agent:a"]
        assert rows["newreno"] == first["rows"][variant]["newreno"]
    assert second["rows"]["task"]["seed:a:s1"] == first["rows"]["task"]["seed:a:s1"]
    assert second["checkpoints"]["agent:a"] == ht.checkpoint_digest(agent)
    assert second["checkpoints"]["agent:a"] != first["checkpoints"]["agent:a"]
