"""Issue 37, items 2 and 6: every console script answers a mistyped key or
preset with orbitcc's one-line message (the key, "did you mean", the valid keys
of that node, the preset's own name for a setting) and exit status 2, never
Hydra's "Could not override ... To append to your config use +..." text; a
refused run leaves no output folder; run folders name the controller and the
settings that matter.

Each CLI's main() runs in this process with its argv (a subprocess per case
would spend most of its time importing)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from orbitcc.cli import bench, eval, leaderboard, leaderboard_merge, sim, train, validate
from orbitcc.cli.common import _suggest

HYDRA_WORDS = ("Could not override", "To append to your config", "HYDRA_FULL_ERROR")


def _run(
    main: Callable[[], object],
    prog: str,
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> str:
    """main() with argv = [prog, *args] in tmp_path; returns stderr; asserts exit 2."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [prog, *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    assert not any(w in err for w in HYDRA_WORDS), err
    assert err.startswith(f"{prog}: error: "), err
    assert err.count("\n") == 1, err  # one line
    return err


CASES = [
    # (main, prog, argv, fragments the message must hold)
    (
        sim.main,
        "orbitcc-sim",
        ["scenario=starlink_dual", "controler=maco"],
        [
            "controler: no such setting",
            "did you mean controller?",
            "valid keys of the config",
            "randomize",
        ],
    ),
    (
        sim.main,
        "orbitcc-sim",
        ["scenario=starlink_dual", "scenario.capcity_mbps=10"],
        [
            "scenario.capcity_mbps: no such setting",
            "did you mean core_capacity_mbps",
            "valid keys of scenario (starlink_dual",
            "buffer_bdp",
        ],
    ),
    # The generic name on a preset that names it its own way.
    (
        sim.main,
        "orbitcc-sim",
        ["scenario.capacity_mbps=-5"],
        ["the starlink_dual preset calls it core_capacity_mbps"],
    ),
    (
        sim.main,
        "orbitcc-sim",
        ["controller=macoo"],
        ["controller=macoo is no controller preset", "did you mean maco?", "allowed: balia"],
    ),
    (sim.main, "orbitcc-sim", ["seed=abc"], ["seed=abc", "could not be converted to Integer"]),
    (
        train.main,
        "orbitcc-train",
        ["agent.total_timestep=64"],
        ["agent.total_timestep: no such setting", "did you mean total_timesteps?", "num_envs"],
    ),
    (train.main, "orbitcc-train", ["env=discrt"], ["did you mean discrete?", "allowed: default"]),
    (
        eval.main,
        "orbitcc-eval",
        ["suite=quik"],
        ["suite=quik is no suite preset", "did you mean quick?", "allowed: full"],
    ),
    (
        leaderboard.main,
        "orbitcc-leaderboard",
        ["suite=quick", "score.delay_wieght=0.5"],
        [
            "score.delay_wieght: no such setting",
            "did you mean delay_weight?",
            "valid keys of score: throughput_weight",
        ],
    ),
    (leaderboard.main, "orbitcc-leaderboard", ["suite=quik"], ["did you mean quick?"]),
    (bench.main, "orbitcc-bench", ["round=2"], ["round: no such setting", "did you mean rounds?"]),
]


@pytest.mark.parametrize(
    ("main", "prog", "args", "fragments"), CASES, ids=[f"{c[1]} {' '.join(c[2])}" for c in CASES]
)
def test_hydra_cli_typos_get_orbitcc_message_and_exit_2(
    main: Callable[[], object],
    prog: str,
    args: list[str],
    fragments: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    err = _run(main, prog, args, monkeypatch, capsys, tmp_path)
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    assert not (tmp_path / "outputs").exists()  # composition fails before any folder


def test_internal_schema_files_are_never_offered_as_choices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for main, prog, group in (
        (leaderboard.main, "orbitcc-leaderboard", "suite"),
        (sim.main, "orbitcc-sim", "scenario"),
    ):
        err = _run(main, prog, [f"{group}=nosuchpreset"], monkeypatch, capsys, tmp_path)
        assert "_schema" not in err, err
        assert "allowed:" in err


def test_the_users_hydra_full_error_is_restored_for_the_task(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    _run(sim.main, "orbitcc-sim", ["controler=maco"], monkeypatch, capsys, tmp_path)
    assert "HYDRA_FULL_ERROR" not in os.environ


def test_a_refused_run_leaves_no_output_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Composition succeeds, the value is refused inside the task (Hydra has
    # made the run folder and its log by then).
    err = _run(
        sim.main, "orbitcc-sim", ["scenario.core_capacity_mbps=-5"], monkeypatch, capsys, tmp_path
    )
    assert "scenario.core_capacity_mbps = -5 is out of range" in err
    assert list(tmp_path.iterdir()) == []
    # A folder holding results of its own is never removed.
    keep = tmp_path / "outputs" / "leaderboard" / "quick"
    keep.mkdir(parents=True)
    (keep / "results.jsonl").write_text("")
    _run(
        leaderboard.main,
        "orbitcc-leaderboard",
        ["suite=quick", "score.floor=-1"],
        monkeypatch,
        capsys,
        tmp_path,
    )
    assert (keep / "results.jsonl").is_file()


def test_run_folder_names_the_controller_and_the_settings_that_matter(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    for args, name in (
        (["scenario.queue=fq_codel"], "starlink_dual-olia-queue=fq_codel-s0"),
        (["scenario=single_link", "controller=maco", "seed=3"], "single_link-maco-s3"),
    ):
        monkeypatch.setattr(
            sys, "argv", ["orbitcc-sim", *args, "duration_s=0.5", "plot=false", "print_table=false"]
        )
        sim.main()
        out = capsys.readouterr().out
        assert f"outputs/sim/{name}/" in out, out


def test_leaderboard_merge_bad_arguments_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        leaderboard_merge.main(["only-one-dir"])
    assert exit_info.value.code == 2
    assert "orbitcc-leaderboard-merge: error: usage:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        leaderboard_merge.main([str(tmp_path / "out"), str(tmp_path / "missing")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("orbitcc-leaderboard-merge: error: ") and "missing" in err


def test_validate_mistyped_option_suggests_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, hint in (
        (["--jbos", "2"], "did you mean --jobs?"),
        (["matrix=full"], "did you mean --matrix?"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            validate.parse_args(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert hint in err and "options: -h, --help, --matrix" in err, err


def test_suggestions_are_close_spellings_then_the_presets_own_names() -> None:
    keys = ["core_capacity_mbps", "reverse_capacity_mbps", "buffer_bdp", "loss_rate"]
    assert _suggest("capacity_mbps", keys) == ["core_capacity_mbps", "reverse_capacity_mbps"]
    assert _suggest("loss_rat", keys) == ["loss_rate"]
    assert _suggest("zzz", keys) == []


# ---------------------------------------------- issue 37, item 3: training --


def test_training_that_finishes_no_episode_or_no_evaluation_says_so_and_exits_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("stable_baselines3")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WANDB_MODE", "disabled")
    # 2 envs x 32 steps: single_link's episode is far longer; no evaluation.
    tiny = [
        "scenario=single_link",
        "agent.total_timesteps=64",
        "agent.num_envs=2",
        "agent.n_steps=32",
        "agent.batch_size=32",
        "logger.progress=false",
    ]
    monkeypatch.setattr(sys, "argv", ["orbitcc-train", *tiny])
    with pytest.raises(SystemExit) as exit_info:
        train.main()
    captured = capsys.readouterr()
    assert exit_info.value.code == train.EXIT_UNTRAINED == 3
    assert "warning: agent.eval_every_steps = 0" in captured.err  # said before training
    assert "error: no training episode finished in 64 steps (2 envs x 32 steps each" in captured.err
    assert "allow_no_episode=true" in captured.err
    assert "was never evaluated" in captured.err and "allow_unevaluated=true" in captured.err
    # The time reported is the command's (imports and setup included), beside
    # the training's own.
    took = float(captured.out.split("the command took ")[1].split(" s wall")[0])
    trained = float(captured.out.split("episodes in ")[1].split(" s of training")[0])
    assert took >= trained
    (run,) = (tmp_path / "outputs" / "train").iterdir()
    assert (run / "model.zip").is_file()  # the checkpoint is kept; the status says why not trust it

    # Asked for: exit 0, nothing said.
    monkeypatch.setattr(
        sys, "argv", ["orbitcc-train", *tiny, "allow_no_episode=true", "allow_unevaluated=true"]
    )
    train.main()
    captured = capsys.readouterr()
    assert "error" not in captured.err and "warning" not in captured.err


def test_training_problems_name_each_condition() -> None:
    from orbitcc.agents.config import TrainConfig

    cfg = TrainConfig()
    ok = {"episodes": 3, "timesteps": 4096, "checkpoint": "best", "curve": [{}]}
    assert train.training_problems(ok, cfg) == []
    none = {**ok, "episodes": 0}
    (problem,) = train.training_problems(none, cfg)
    assert problem.startswith("no training episode finished in 4096 steps")
    unevaluated = {k: v for k, v in ok.items() if k != "curve"}
    (problem,) = train.training_problems(unevaluated, cfg)
    assert "never evaluated" in problem
    cfg.allow_unevaluated = cfg.allow_no_episode = True
    assert train.training_problems({**unevaluated, "episodes": 0}, cfg) == []


def test_train_without_the_train_extra_says_what_to_install() -> None:
    """`make run` installs no torch: orbitcc-train then names the missing
    package and the install command, exit 2, instead of a traceback."""
    import subprocess

    script = (
        "import sys; sys.modules['torch'] = None; "  # importing torch now fails
        "sys.argv = ['orbitcc-train', 'agent.total_timesteps=100']; "
        "from orbitcc.cli import train; train.main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("orbitcc-train: error: training needs the train extra")
    assert "torch is not installed" in proc.stderr and "make install" in proc.stderr
