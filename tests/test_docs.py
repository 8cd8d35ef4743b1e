"""Issue 37, item 5: docs whose examples run and whose numbers are true.

Every fenced block of docs/*.md says what it is: a ``python`` block runs here
(with ``orbitcc`` imported), unless the line before it is
``<!-- illustrative -->``; a ``bash`` block's orbitcc command lines (there and
in README) are composed as their CLI composes them, and its ``python -m`` /
``python tools/`` lines must name real scripts and their flags, and its
``python - <<'PY'`` scripts run on the output they read; ``console``
and ``text`` blocks are illustrative (docs/index.md states the rule). docs/ns3gym.md's blocks run in
its own tests against the server. The numbers below are each checked against
the code or config they describe; the docs site builds with ``mkdocs build
--strict`` (also ``make docs``, part of ``make test``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
LANGUAGES = {"python", "bash", "console", "text"}
ILLUSTRATIVE = "<!-- illustrative -->"
# Run by the ns3-gym tests against the server (issue 37, item 4).
OWN_TESTS = {"ns3gym.md"}


def _blocks(path: Path) -> list[tuple[int, str, str, bool]]:
    """(line, language, body, marked illustrative) of every fenced block."""
    lines = path.read_text().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if m:
            start, lang = i, m.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            marked = start > 0 and lines[start - 1].strip() == ILLUSTRATIVE
            out.append((start + 1, lang, "\n".join(lines[start + 1 : j]), marked))
            i = j + 1
        else:
            i += 1
    return out


def _doc_files() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def test_every_docs_block_says_what_it_is() -> None:
    bad = [
        f"{p.name}:{line} ```{lang}"
        for p in _doc_files()
        if p.name not in OWN_TESTS
        for line, lang, _, _ in _blocks(p)
        if lang not in LANGUAGES
    ]
    assert not bad, f"fences without a known language ({', '.join(sorted(LANGUAGES))}): {bad}"


PYTHON_BLOCKS = [
    (p, line, body)
    for p in _doc_files()
    if p.name not in OWN_TESTS
    for line, lang, body, marked in _blocks(p)
    if lang == "python" and not marked
]


def test_there_are_python_blocks_to_run() -> None:
    assert len(PYTHON_BLOCKS) >= 5


@pytest.mark.parametrize(
    ("path", "line", "body"),
    PYTHON_BLOCKS,
    ids=[f"{p.name}:{line}" for p, line, _ in PYTHON_BLOCKS],
)
def test_docs_python_block_runs(
    path: Path, line: int, body: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import orbitcc

    if "stable_baselines3" in body or "OrbitCCSB3VecEnv" in body:
        pytest.importorskip("stable_baselines3")
    if "make_multiagent" in body:
        pytest.importorskip("pettingzoo")
    monkeypatch.chdir(tmp_path)  # a block that writes, writes here
    namespace: dict = {"__name__": "__docs__", "orbitcc": orbitcc}
    exec(compile(body, f"{path}:{line}", "exec"), namespace)  # the docs block under test


# Every orbitcc command line of a ``bash`` block (docs/*.md and README) is
# composed as its CLI would compose it: the config groups, keys and values
# it names must exist and pass the schemas' checks. Running them is left to
# the CLI tests (most take minutes); a renamed key or a bad value fails here.
CLI_CONFIGS = {
    "orbitcc-sim": "sim",
    "orbitcc-train": "train",
    "orbitcc-eval": "eval",
    "orbitcc-leaderboard": "leaderboard",
    "orbitcc-bench": "bench",
}


def _cli_lines(body: str) -> list[tuple[str, str, list[str]]]:
    """(the line, the CLI's config, its arguments) of every orbitcc command
    line of a bash block; backslash continuations joined, ``NAME="..."``
    assignments of the block expanded, comments dropped."""
    import shlex

    env: dict[str, str] = {}
    out = []
    for raw in body.replace("\\\n", " ").split("\n"):
        m = re.match(r'^([A-Z_]+)="([^"]*)"', raw.strip())
        if m:
            env[m.group(1)] = m.group(2)
            continue
        line = re.sub(r"\$([A-Z_]+)\b", lambda v: env.get(v.group(1), v.group(0)), raw)
        tokens = shlex.split(line, comments=True)
        if tokens and tokens[0].rsplit("/", 1)[-1] in CLI_CONFIGS:
            out.append((raw.strip(), CLI_CONFIGS[tokens[0].rsplit("/", 1)[-1]], tokens[1:]))
    return out


CLI_LINES = [
    (p, line, command, config, args)
    for p in [*_doc_files(), README]
    for line, lang, body, _ in _blocks(p)
    if lang == "bash"
    for command, config, args in _cli_lines(body)
]


def _overrides(config: str, args: list[str]) -> list[str] | None:
    """The Hydra overrides the CLI composes from ``args`` (None: the line
    runs a subcommand that composes nothing, e.g. ``orbitcc-bench
    --compare``). A placeholder ``<...>`` becomes a path; a multirun sweep
    (``-m``, or orbitcc-train's seed list) composes its first value;
    ``hydra.*`` settings are Hydra's own."""
    if config == "bench":
        if args and args[0] in ("--compare", "--markdown"):
            return None
        from orbitcc.cli.bench import _translate_argv

        args = _translate_argv(args)
    if config == "train":  # a seed list runs as a multirun without -m
        from orbitcc.cli.train import seeds_as_multirun

        args = seeds_as_multirun(args)
    multirun = "-m" in args or "--multirun" in args
    out = []
    for arg in args:
        if arg.startswith("-") or "=" not in arg or arg.lstrip("+~").startswith("hydra."):
            continue
        arg = re.sub(r"<[^>]*>", "RUN", arg)
        key, _, value = arg.partition("=")
        if multirun and "," in value and not value.startswith("["):
            value = value.split(",")[0]
        out.append(f"{key}={value}")
    return out


def test_there_are_cli_lines_to_compose() -> None:
    configs = {config for *_, config, _ in CLI_LINES}
    assert configs == set(CLI_CONFIGS.values()), configs
    assert len(CLI_LINES) >= 30


@pytest.mark.parametrize(
    ("path", "line", "command", "config", "args"),
    CLI_LINES,
    ids=[f"{p.name}:{line}:{c.split()[0].rsplit('/', 1)[-1]}" for p, line, c, _, _ in CLI_LINES],
)
def test_docs_cli_line_composes(
    path: Path, line: int, command: str, config: str, args: list[str]
) -> None:
    import orbitcc.agents.config  # the train and eval schemas
    import orbitcc.baselines.leaderboard  # noqa: F401  (the leaderboard's)
    from orbitcc.config import compose_object

    overrides = _overrides(config, args)
    if overrides is None:
        return
    if config == "bench":
        from hydra.core.config_store import ConfigStore

        from orbitcc.cli.bench import BenchConfig

        ConfigStore.instance().store(name="bench_schema", node=BenchConfig)
    try:
        composed = compose_object(config, overrides)
        if config == "sim":  # and the core spec it builds (queue_params are read there)
            from orbitcc.runner import build_spec

            build_spec(composed)
    except ValueError as err:
        pytest.fail(f"{path.name}:{line}: `{command}` does not compose: {err}")


def _python_lines() -> list[tuple[Path, int, str, Path, list[str]]]:
    """(doc, line, the line, the script's source file, its --flags) of every
    ``python -m <module>`` / ``python tools/<x>.py`` line of a bash block."""
    import importlib.util
    import shlex

    out = []
    for p in [*_doc_files(), README]:
        for line, lang, body, _ in _blocks(p):
            if lang != "bash":
                continue
            for raw in body.replace("\\\n", " ").split("\n"):
                try:
                    tokens = shlex.split(re.sub(r"\[[^\]]*\]", "", raw), comments=True)
                except ValueError:
                    continue
                if not tokens or not tokens[0].endswith("python"):
                    continue
                if tokens[1:2] == ["-m"]:
                    spec = importlib.util.find_spec(tokens[2])
                    assert spec and spec.origin, f"{p.name}:{line}: no module {tokens[2]}"
                    source, rest = Path(spec.origin), tokens[3:]
                elif len(tokens) > 1 and tokens[1].endswith(".py"):
                    source, rest = ROOT / tokens[1], tokens[2:]
                else:
                    continue
                flags = [a.split("=")[0] for a in rest if a.startswith("--")]
                out.append((p, line, raw.strip(), source, flags))
    return out


def test_docs_python_command_lines_name_real_scripts_and_flags() -> None:
    """Every ``python -m`` module and ``python tools/...`` script a bash block
    runs exists, and declares every ``--flag`` the line gives it."""
    lines = _python_lines()
    assert len(lines) >= 10
    bad = [
        f"{p.name}:{line}: {flag} is not an option of {source.name} ({raw})"
        for p, line, raw, source, flags in lines
        for flag in flags
        if f'"{flag}"' not in source.read_text()
    ]
    missing = [
        f"{p.name}:{line}: {source}" for p, line, _, source, _ in lines if not source.is_file()
    ]
    assert not missing and not bad, missing + bad


def _heredocs() -> list[tuple[Path, int, str]]:
    """(doc, line, script) of every ``python - <<'PY'`` script of a bash block."""
    out = []
    for p in _doc_files():
        for line, lang, body, _ in _blocks(p):
            if lang == "bash":
                out += [(p, line, s) for s in re.findall(r"python - <<'PY'\n(.*?)\nPY", body, re.S)]
    return out


def test_docs_heredoc_scripts_run(tmp_path: Path) -> None:
    """The one heredoc script (leaderboard.md's paired t-tests over the
    leaderboard's per-seed scores) runs on a leaderboard.csv the leaderboard
    writes, here of the smoke suite (2 entrants x 2 cells x 2 seeds, seconds)
    in the folder the script reads. scipy comes with the docs extra that
    `make test` installs: a missing one fails here rather than skipping."""
    import scipy  # noqa: F401

    (script,) = [s for p, _, s in _heredocs() if p.name == "leaderboard.md"]
    assert len(_heredocs()) == 1
    out_dir = tmp_path / "outputs" / "leaderboard" / "quick"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.leaderboard",
            "suite=smoke",
            "report=false",
            "launcher.workers=1",
            f"hydra.run.dir={out_dir}",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1 and "cubic" in lines[0] and "bbr" in lines[0], run.stdout
    found = re.search(r"(\S+) +vs (\S+) +p = ([01]\.\d{4})  Holm-adjusted ([01]\.\d{4})$", lines[0])
    assert found, lines[0]
    # scipy's t-test (the doc's) and the leaderboard's own agree: the ranks
    # the leaderboard shares are the ones a reader recomputes.
    import csv

    import numpy as np

    from orbitcc.baselines.stats import paired_p

    rows = list(csv.DictReader((out_dir / "leaderboard.csv").open()))
    seeds = sorted(k for k in rows[0] if k.startswith("score_seed_"))
    score = {r["entrant"]: np.array([float(r[k]) for k in seeds]) for r in rows if r[seeds[0]]}
    ours = paired_p(score[found.group(1)], score[found.group(2)])
    assert float(found.group(3)) == pytest.approx(ours, abs=5e-5)
    assert float(found.group(4)) == pytest.approx(min(1.0, ours), abs=5e-5)  # one pair: m = 1


# ------------------------------------------------------------- the site --


def test_docs_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    nav = (ROOT / "mkdocs.yml").read_text()
    missing = [p.name for p in _doc_files() if f": {p.name}" not in nav]
    assert not missing, f"pages left out of mkdocs.yml's nav: {missing}"


# ----------------------------------------------------------- the numbers --


def _texts() -> dict[str, str]:
    out = {p.name: p.read_text() for p in _doc_files()}
    out["README.md"] = README.read_text()
    for p in sorted((ROOT / "configs" / "suite").glob("*.yaml")):
        out[f"configs/suite/{p.name}"] = p.read_text()
    return out


def test_maco_density_file_size_is_the_presets_everywhere() -> None:
    from orbitcc.config import compose_object

    size_mb = compose_object("sim", ["scenario=maco_density"]).scenario.file_bytes / 1e6
    assert size_mb == 100
    wrong = []
    for name, text in _texts().items():
        # a sentence that speaks of maco_density or its completion time
        for sentence in re.split(r"(?<=[.;|])\s", text):
            if "maco_density" not in sentence and "completion time" not in sentence:
                continue
            for mb in re.findall(r"\b(\d+) MB (?:file|completion)", sentence):
                if float(mb) != size_mb:
                    wrong.append(f"{name}: {mb} MB in {sentence.strip()[:100]!r}")
    assert not wrong, wrong


def test_quick_suite_numbers_in_docs_are_the_suites() -> None:
    from orbitcc.baselines.leaderboard import make_plan, suite_entrants
    from orbitcc.config import compose_object

    lb = compose_object("leaderboard", ["suite=quick"])
    plan = make_plan(lb.suite, suite_entrants(lb))
    cells, seeds = len(plan.cell_labels), len(lb.suite.seeds)
    controllers = len(plan.entrants)
    episodes = len(plan.cells)
    assert episodes == cells * controllers * seeds
    readme = README.read_text()
    assert f"the `quick` suite: {episodes} episodes" in readme
    board = (DOCS / "leaderboard.md").read_text()
    assert (
        f"the quick suite: {cells} scenario cells and {controllers} controllers, at most "
        f"{cells + controllers} compositions per\nworker instead of {cells * controllers}" in board
    )


def test_paper_suite_text_matches_bbr_single_path() -> None:
    from orbitcc.config import compose_object

    assert compose_object("sim", ["scenario=starlink_dual"]).scenario.bbr_single_path
    # the paper's single-path BBR exists (bbr_single_path), so no text may say
    # it is missing or that the paper suite's BBR drives both subflows
    for name, text in _texts().items():
        flat = " ".join(text.replace("#", " ").split())
        for claim in (
            "no single-path variant",
            "needs a single-path variant",
            "BBR drives both subflows of the multipath",
            "BBR drives both subflows uncoupled",
        ):
            assert claim not in flat, f"{name}: {claim!r}"


def test_real_suite_preset_is_in_the_checkout_and_docs_do_not_wait_for_it() -> None:
    from orbitcc.paths import available

    assert "starlink_leoreplayer" in available("scenario")
    assert "until it is in the checkout" not in (DOCS / "leaderboard.md").read_text()


def test_findings_tests_run_in_make_test_as_docs_say() -> None:
    slow = [p.name for p in ROOT.glob("tests/test_findings_*.py") if "mark.slow" in p.read_text()]
    text = (DOCS / "reproduction.md").read_text() + (DOCS / "testing.md").read_text()
    if not slow:
        assert "`make test` runs them" in text
        assert "(marker\n  `slow`; `make validate` runs them)" not in text


# --------------------------------------------------------------------------
# Numbers in README and docs/testing.md (issue 37 item 5): each is generated
# by a named command or checked here against the code.


def _between(text: str, begin: str, end: str) -> str:
    assert begin in text and end in text.split(begin, 1)[1], f"no {begin!r} ... {end!r} block"
    return text.split(begin, 1)[1].split(end, 1)[0]


def _figures(text: str) -> set[str]:
    """The numbers of a text, as written (1,234 / 24.6 / 104-137)."""
    return set(re.findall(r"\d[\d,]*(?:\.\d+)?(?:-\d+)?", text))


def test_readme_times_are_the_testing_times() -> None:
    """README's times sit in one marked block and each is a figure of
    docs/testing.md's Times table, which states its conditions and command:
    measured once, updated in both places together."""
    readme = _between(README.read_text(), "<!-- times:", "<!-- /times -->")
    table = _between((DOCS / "testing.md").read_text(), "<!-- times:", "<!-- /times -->")
    assert "docs/testing.md#times" in readme
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r][1:]
    assert rows and all(r.count("|") == 5 for r in rows), "what | time | conditions | command"
    stated = _figures(table)
    missing = sorted(_figures(readme.split("-->", 1)[1]) - stated - {"2"})  # "2 cores"
    assert not missing, f"README times not in docs/testing.md's Times: {missing}"
    # No other time of the build or of `make test` elsewhere in README.
    rest = README.read_text().replace(readme, "")
    assert not re.search(r"\d+ min(?:utes)?\b", rest), "a time outside README's times block"


def test_testing_counts_are_generated_and_the_findings_count_is_collected() -> None:
    """The test counts of docs/testing.md are the block `make test-counts`
    writes (tools/count_tests.py); its count of the findings tests is what
    pytest collects from tests/test_findings_*.py now."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import count_tests
    finally:
        sys.path.remove(str(ROOT / "tools"))
    from orbitcc.reproductions.docgen import begin_marker, end_marker

    text = (DOCS / "testing.md").read_text()
    block = _between(text, begin_marker(count_tests.SECTION), end_marker(count_tests.SECTION))
    assert "counted by `make test-counts`" in block
    stated = re.search(r"\*\*(\d+)\*\* check the\s+papers' findings", block)
    assert stated, block
    collected, _ = count_tests.pytest_counts(*count_tests.findings_files())
    assert int(stated.group(1)) == collected
    # Outside the block testing.md states no test count of its own.
    outside = text.replace(block, "")
    assert not re.search(r"\b\d[\d,]* (?:C\+\+ )?tests\b", outside.split("## Times")[0])


def test_readme_scenario_rows_are_the_presets() -> None:
    """README's preset table: starlink_dual's terrestrial capacity, subflows,
    background and handover interval; iridium_mptcp's subflows."""
    from orbitcc.config import compose_object
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    rows = {
        r.split("|")[1].strip(): r for r in README.read_text().splitlines() if r.startswith("| `")
    }
    dual = rows["`starlink_dual` (default)"]
    cfg = compose_object("sim", ["scenario=starlink_dual"]).scenario
    assert f"{cfg.core_capacity_mbps:g} Mb/s terrestrial segment" in dual
    assert cfg.background and cfg.background_traffic == "bulk" and "NewReno background" in dual
    # The handover interval the simulator shows (tests/test_leo_scenarios.py
    # checks the episode's handover times against this constant).
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from test_leo_scenarios import HANDOVER_INTERVAL_S
    finally:
        sys.path.remove(str(ROOT / "tests"))
    assert f"handover every {HANDOVER_INTERVAL_S:g} s" in dual
    for name, row in (("starlink_dual", dual), ("iridium_mptcp", rows["`iridium_mptcp`"])):
        env = OrbitCCEnv(scenario=name, controller=None, info_level=0)
        try:
            assert f"{env.num_subflows} " in row and "subflows" in row, (name, env.num_subflows)
        finally:
            env.close()


def test_readme_speed_figures_are_the_benchmarks() -> None:
    """README's speed claims are figures of docs/benchmarks.md's ns-3 table
    (orbitcc-bench / orbitcc-validate output, with its conditions there)."""
    intro = README.read_text().split("## Quick start")[0]
    bench = (DOCS / "benchmarks.md").read_text()
    for claim in re.findall(r"(\d+(?:-\d+)?)x", intro):
        assert f"**{claim}x**" in bench, claim
    cpu_ms = re.search(r"takes ~(\d+) CPU ms", intro)
    assert cpu_ms
    row = next(r for r in bench.splitlines() if r.startswith("| newreno-1-bdp |"))
    orbitcc_s = float(row.split("|")[3].split()[0])
    assert round(orbitcc_s * 1000, -1) == int(cpu_ms.group(1))


def test_ns3gym_defaults_in_docs_are_the_codes() -> None:
    """docs/ns3gym.md's defaults of the server and the client are their
    constants."""
    from orbitcc.ns3gym import client, server

    text = " ".join((DOCS / "ns3gym.md").read_text().split())
    assert f"`--timeout-s` ({server.DEFAULT_TIMEOUT_S:g} s)" in text
    assert server.DEFAULT_MAX_MESSAGE_BYTES == 1 << 20
    assert "`--max-message-bytes` (1 MiB by default" in text
    assert server.DEFAULT_MAX_CWND_BYTES == 64 * 2**20
    assert "`--max-cwnd-bytes` (64 MiB by default" in text
    assert f"the server notices within {server.POLL_MS / 1000:g} s" in text
    assert client.DEFAULT_MAX_MESSAGE_BYTES == 64 * 2**20
    assert "`max_message_bytes` (64 MiB by default)" in text
    layout = server.make_layout(
        "opengym",
        "single_link",
        ["scenario.transport=tcp"],
        None,
        "ns3gym",
        server.DEFAULT_MAX_CWND_BYTES,
    )  # --step-s not given
    try:
        step_s = layout.env.config.env.step_interval_s  # type: ignore[attr-defined]
    finally:
        layout.close()
    assert f"ns3-gym's `envTimeStep` ({step_s:g} s)" in text
    assert server.RL_TCP_ACT_HIGH == 65535 and "Box(0, 65535, (2,), uint64)" in text


def test_leaderboard_score_defaults_in_docs_are_the_composed_config() -> None:
    """docs/leaderboard.md's score defaults are those a run composes
    (ScoreConfig's), and its quick-suite line names the suite's
    controllers and seeds."""
    import orbitcc.baselines.leaderboard  # noqa: F401  (stores the leaderboard schemas)
    from orbitcc.baselines.leaderboard import make_plan, suite_entrants
    from orbitcc.config import compose_object

    lb = compose_object("leaderboard", ["suite=quick"])
    sc = lb.score
    text = " ".join((DOCS / "leaderboard.md").read_text().split())
    weights = {sc.throughput_weight, sc.delay_weight, sc.harm_weight, sc.loss_weight}
    assert weights == {1.0} and "w_T = w_D = w_H = w_L = 1," in text
    assert f"Q0 = {sc.queue_ref_ms:g} ms, floor {sc.floor:g}" in text
    controllers = len(make_plan(lb.suite, suite_entrants(lb)).entrants)
    assert f"{controllers} controllers, {len(lb.suite.seeds)} seeds;" in text
