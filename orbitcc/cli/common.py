"""What every console script shares: ``--help`` and one-line config errors.

Hydra's own ``--help`` lists every config group of the tree, including the
``*_schema`` entries that only validate YAML files; ours starts with what the
script does and lists only the groups it composes, with their presets (read
from configs/ at run time, so new presets appear by themselves). Hydra's
page stays reachable with ``--hydra-help``.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def print_help(prog: str, doc: str, groups: Sequence[str]) -> None:
    from orbitcc.config import available

    print(doc.strip("\n"))
    print(f"\nusage: {prog} [group=preset ...] [key=value ...]\n")
    if groups:
        print("config groups (group=preset):")
        width = max(len(g) for g in groups)
        for g in groups:
            presets = [p for p in available(g) if not p.endswith("_schema")]
            print(f"  {g.ljust(width)}  {', '.join(presets)}")
    print("\nany field can be overridden (e.g. seed=3, scenario.loss_rate=0.01);")
    print(f"`{prog} --cfg job` prints the composed config, `--hydra-help` Hydra's options.")


def handle_help(prog: str, doc: str, groups: Sequence[str], argv: list[str] | None = None) -> None:
    """Prints our help and exits when ``-h``/``--help`` is among the arguments."""
    args = sys.argv[1:] if argv is None else argv
    if "-h" in args or "--help" in args:
        try:
            print_help(prog, doc, groups)
        except BrokenPipeError:  # `| head`
            pass
        sys.exit(0)


# What Hydra and our run record put in a run folder before the task refuses
# its input: a folder holding only these is removed on refusal.
_RECORD_FILES = {".hydra", "config.yaml", "command.txt"}


def remove_refused_run_dir() -> None:
    """Removes the Hydra run folder of a refused run when it holds nothing but
    the run record (.hydra/, the job log, config.yaml, command.txt), and its
    parents (below the working folder) left empty: a refused run leaves no output folder."""
    import shutil
    from pathlib import Path

    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return
    try:
        run_dir = Path(HydraConfig.get().runtime.output_dir)
    except Exception:  # noqa: BLE001 - no run folder to clean
        return
    if not run_dir.is_dir():
        return
    entries = list(run_dir.iterdir())
    if any(e.name not in _RECORD_FILES and e.suffix != ".log" for e in entries):
        return
    logging.shutdown()  # Hydra's file handler holds the job log open
    shutil.rmtree(run_dir, ignore_errors=True)
    cwd = Path.cwd().resolve()
    parent = run_dir.resolve().parent
    while parent != cwd and cwd in parent.parents and not any(parent.iterdir()):
        parent.rmdir()  # outputs/sim/<name>/ and up, when this run made them
        parent = parent.parent


def one_line_errors(
    prog: str, errors: tuple[type[BaseException], ...] = (ValueError,)
) -> Callable[[F], F]:
    """Turns the given exceptions raised by a Hydra task into one message on
    stderr and exit status 2 (a config or input error, not a crash)."""

    def deco(fn: F) -> F:
        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            _task_starts()
            try:
                return fn(*args, **kwargs)
            except errors as err:
                message = " ".join(str(err).split())  # one line, however it was built
                print(f"{prog}: error: {message}", file=sys.stderr)
                remove_refused_run_dir()
                sys.exit(2)
            except SystemExit as done:
                if done.code == 2:  # a refusal the task reported itself
                    remove_refused_run_dir()
                raise

        return wrapper  # type: ignore[return-value]

    return deco


# --- Hydra's composition errors, in orbitcc's words -------------------------
#
# Hydra composes the config before our task runs, and reports a typo there in
# its own words ("Could not override 'controler'. To append to your config use
# +controler=maco", exit 1). run_app() has Hydra raise those errors instead
# (HYDRA_FULL_ERROR=1 while composing, the user's own value restored as soon
# as the task starts) and turns them into one orbitcc message and exit 2.

_task_started = False
_user_full_error: str | None = None


def _task_starts() -> None:
    """Called first thing in every task: from here on Hydra reports errors as
    the user asked (HYDRA_FULL_ERROR as it was before run_app set it)."""
    global _task_started
    _task_started = True
    if _user_full_error is None:
        os.environ.pop("HYDRA_FULL_ERROR", None)
    else:
        os.environ["HYDRA_FULL_ERROR"] = _user_full_error


def _suggest(name: str, known: Sequence[str]) -> list[str]:
    """Up to 3 of ``known`` a typo of ``name`` may have meant: close spellings,
    then keys that end (or start) with it (capacity_mbps -> core_capacity_mbps)."""
    out = difflib.get_close_matches(name, list(known), n=3, cutoff=0.7)
    out += [k for k in known if k != name and (k.endswith("_" + name) or k.startswith(name + "_"))]
    return list(dict.fromkeys(out))[:3]


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    close = _suggest(name, known)
    return f"did you mean {' or '.join(close)}? " if close else ""


def _presets(group: str) -> list[str]:
    from orbitcc.paths import available

    return [p for p in available(group) if not p.endswith("_schema")]


def _task_overrides(argv: Sequence[str]) -> list[str]:
    """The ``key=value`` overrides of a command line (no flags, no hydra.*)."""
    out = []
    for arg in argv:
        if arg.startswith("-") or "=" not in arg:
            continue
        if arg.lstrip("+~").startswith("hydra."):
            continue
        out.append(arg)
    return out


def _compose_base(config_name: str, overrides: list[str]) -> Any:
    """The config composed from ``overrides`` (group choices only), with
    hydra.runtime.choices; None when even that fails."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from orbitcc.paths import CONFIG_DIR

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            return compose(config_name=config_name, overrides=overrides, return_hydra_config=True)
    except Exception:  # noqa: BLE001 - the caller falls back to Hydra's text
        return None
    finally:
        GlobalHydra.instance().clear()


def explain_override_error(config_name: str, argv: Sequence[str], err: BaseException) -> str:
    """orbitcc's one-line message for a Hydra/OmegaConf error raised while
    composing ``config_name`` from the command line ``argv``: the key, what is
    wrong, "did you mean", the valid keys (or presets) of that node, and the
    chosen preset's own name for a generic setting."""
    from omegaconf import DictConfig, OmegaConf

    overrides = _task_overrides(argv)
    plain = _compose_base(config_name, [])
    groups = (
        {g for g in plain.hydra.runtime.choices if not g.startswith("hydra/")}
        if plain is not None
        else _config_groups()
    )
    choices = []
    for override in overrides:
        key, _, value = override.partition("=")
        if key.startswith(("+", "~")) or key not in groups:
            continue
        choices.append(override)
        presets = _presets(key)
        if value not in presets and value != "null":
            return (
                f"{key}={value} is no {key} preset; {_did_you_mean(value, presets)}"
                f"allowed: {', '.join(presets)}"
            )
    base = _compose_base(config_name, choices)
    if base is not None:
        picked = dict(base.hydra.runtime.choices)
        for override in overrides:
            key = override.partition("=")[0]
            if key.startswith(("+", "~")) or key in groups:
                continue
            parts = key.split(".")
            node: Any = base
            for depth, part in enumerate(parts):
                if not isinstance(node, DictConfig) or node._is_none():
                    break
                if part in node:
                    node = node._get_node(part)
                    continue
                where = ".".join(parts[:depth])
                keys = [str(k) for k in node.keys() if depth or k != "hydra"]
                if depth == 0:
                    keys += [g for g in sorted(groups) if g not in keys]
                preset = picked.get(where) if where else None
                own = ""
                if preset:
                    named = [k for k in keys if k.endswith("_" + part) or k.startswith(part + "_")]
                    if named:
                        own = (
                            f"the {preset} preset calls it {named[0]}"
                            + (f" (also {', '.join(named[1:])})" if named[1:] else "")
                            + "; "
                        )
                    schema = OmegaConf.get_type(node)
                    label = f"{where} ({preset}{', ' + schema.__name__ if schema else ''})"
                else:
                    label = where or "the config (keys and groups)"
                keys_hint = _did_you_mean(part, keys) if not own else ""
                return (
                    f"{key}: no such setting; {own}{keys_hint}"
                    f"valid keys of {label}: {', '.join(keys)}"
                )
    # Something else (a value of the wrong type, a syntax error): Hydra's own
    # reason, one line, without its advice to append with '+'.
    text = str(err)
    cause = err.__cause__
    if cause is not None and str(cause) not in text:
        text += f"; {cause}"
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip()
        and not line.strip().startswith(
            ("To append to your config", "Set the environment variable")
        )
    ]
    return "invalid configuration: " + "; ".join(lines)


def _config_groups() -> set[str]:
    from orbitcc.paths import CONFIG_DIR

    return {
        str(p.relative_to(CONFIG_DIR))
        for p in CONFIG_DIR.rglob("*")
        if p.is_dir() and any(p.glob("*.yaml")) and not p.name.startswith(("_", "."))
    }


# --- run folder names ----------------------------------------------------------

# Settings that change what a run measures enough to name its folder when the
# command line sets them (scenario.<key>=..., or these groups' presets).
_NAMED_SETTINGS = ("queue", "scheduler", "background_traffic")
_NAMED_GROUPS = ("randomize", "env", "reward")


def _name_part(value: str) -> str:
    from pathlib import PurePath

    if "/" in value:  # a trace file: its name, not its path
        value = PurePath(value).stem
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", value)[:40]


def run_name(kind: str, *, _root_: Any) -> str:
    """The run folder's name (the OmegaConf resolver ``orbitcc.run_name``):
    ``<scenario>-<controller or algo>[-<setting>=<value> ...]-s<seed>``, naming
    the controller that runs (the scenario's own when none is chosen) and every
    setting of _NAMED_SETTINGS (and trace) or preset of _NAMED_GROUPS that the
    command line sets, e.g. ``starlink_dual-olia-queue=fq_codel-s0``."""
    scenario = _root_.scenario
    if kind == "train":
        who = str(_root_.agent.algo)
    else:
        controller = _root_.get("controller")
        who = str(
            controller.name
            if controller is not None
            else scenario.get("controller", None) or "default"
        )
    parts = [str(scenario.name), who]
    task = list(_root_.hydra.overrides.task) if "hydra" in _root_ else []
    for override in task:
        key, _, value = override.lstrip("+~").partition("=")
        group_key = key in _NAMED_GROUPS and value not in ("none", "default", "null")
        last = key.rpartition(".")[2]
        if group_key or (
            key.startswith("scenario.") and (last in _NAMED_SETTINGS or "trace" in last)
        ):
            parts.append(f"{last}={_name_part(value)}")
    return "-".join([*parts, f"s{_root_.seed}"])


def register_run_name() -> None:
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("orbitcc.run_name"):
        OmegaConf.register_new_resolver("orbitcc.run_name", run_name)


def run_app(prog: str, app: Callable[[], Any], config_name: str) -> None:
    """Runs a ``@hydra.main`` app; an error while Hydra composes the config
    (before the task runs) becomes ``<prog>: error: <message>`` and exit 2."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    global _user_full_error, _task_started
    register_run_name()
    _user_full_error = os.environ.get("HYDRA_FULL_ERROR")
    _task_started = False
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        app()
    except (HydraException, OmegaConfBaseException) as err:
        if _task_started:
            raise
        message = explain_override_error(config_name, sys.argv[1:], err)
        print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
        sys.exit(2)
    finally:
        if not _task_started:
            _task_starts()


def unknown_option_hint(option: str, options: Sequence[str]) -> str:
    """ "did you mean --x? " for a mistyped command-line option (argparse CLIs)."""
    return _did_you_mean(option, options)


_IMPORTED = time.monotonic()


def command_seconds() -> float:
    """Wall seconds since this process started (interpreter start and imports
    included: what the person waited), from /proc; else since this module was
    imported."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.monotonic() - _IMPORTED


def is_process_entry(prog: str, module_file: str) -> bool:
    """Whether the running program is this CLI itself (its console script
    ``prog``, or ``python -m`` of ``module_file``), not a caller that imported
    it (a test calling ``main()`` in-process)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if not main_file:
        return False
    return os.path.basename(main_file) == prog or os.path.realpath(main_file) == os.path.realpath(
        module_file
    )


def exit_promptly(prog: str, run: Callable[[], None], module_file: str) -> None:
    """Runs a CLI's ``main``; when the CLI is the process, exits as soon as
    it returns: atexit handlers (W&B's, multiprocessing's), logging
    and both streams are flushed, then ``os._exit`` skips the interpreter's
    teardown. That teardown is a garbage collection over every object torch,
    SB3 and Hydra left (py-spy: ``gc_collect_main``), 2-3 s after the last
    line on 2 idle cores and ~22 s under load 20; the run's files are all
    closed by then. Called in-process (tests), it is just ``run()``."""
    if not is_process_entry(prog, module_file):
        run()
        return
    code: object = 0
    try:
        run()
    except SystemExit as stop:
        code = stop.code
    import atexit

    atexit._run_exitfuncs()
    logging.shutdown()
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)
