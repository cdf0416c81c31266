"""The Python entry points: scenario in, :class:`~dcnsim.results.Results` out.

These functions turn what a user has in hand (a path to a TOML file, or a dict) into the
arguments of the compiled core and the core's columns into DataFrames. They never interpret the
scenario themselves: the schema, its defaults and its error messages live in Rust, once.

Only :func:`run` needs pandas (through :mod:`dcnsim.results`), and imports it when called:
``dcnsim list``, ``validate`` and ``run`` (which calls :func:`run_summary`) never load it.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Union

from .progress import progress_bar

if TYPE_CHECKING:
    from .results import Results

#: A scenario as a user gives it: a path to a TOML (or ``.json``) file, or a dict.
ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: A memory budget: bytes (an int), a size with a unit (``"8G"``, ``"1.5GiB"``, ``"500M"``),
#: ``"unlimited"``, or None for the memory the machine has available when the run starts.
MaxMemory = Union[int, str, None]


def core() -> ModuleType:
    """The compiled extension ``dcnsim._core``, imported on first use.

    Call this instead of importing ``_core`` at module level, so that the package (and its
    tests, which substitute a fake core) can be imported before the extension is built.
    """
    return importlib.import_module("dcnsim._core")


def scenario_args(scenario: ScenarioLike) -> tuple[str, str, str]:
    """``(text, fmt, base_dir)`` for the core, from a path or a dict.

    A file is sent as its text, as TOML unless it ends in ``.json``; relative paths inside it
    are resolved against its folder. A dict is sent as JSON, relative to the working directory.
    Raises ``FileNotFoundError`` for a missing file and ``TypeError`` for anything else.
    """
    if isinstance(scenario, Mapping):
        return json.dumps(scenario), "json", os.getcwd()
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        text = path.read_text(encoding="utf-8")
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return text, fmt, str(path.resolve().parent)
    raise TypeError(
        f"a scenario is a path to a TOML file or a dict, not {type(scenario).__name__}"
    )


def _override_list(overrides: Iterable[str] | str) -> list[str]:
    if isinstance(overrides, str):
        return [overrides]
    return [str(o) for o in overrides]


def _budget(max_memory: MaxMemory) -> dict[str, Any]:
    """The core's ``max_memory`` keyword, left out when None (the core's default)."""
    return {} if max_memory is None else {"max_memory": max_memory}


def validate(scenario: ScenarioLike, overrides: Iterable[str] = (), *,
             max_memory: MaxMemory = None) -> dict[str, Any]:
    """Checks a scenario without running it; returns it resolved, every default filled in.

    Call it to catch a mistake before a long run or a sweep. ``overrides`` are
    ``"key.path=value"`` strings applied on top of the scenario, as ``--set`` does. The
    memory estimate of the run is checked against ``max_memory`` as :func:`run` checks it;
    ``result["_resolved"]["memory"]`` holds the estimate and the budget.
    Raises :class:`dcnsim.ScenarioError` naming the key path of the first problem.
    """
    text, fmt, base_dir = scenario_args(scenario)
    return json.loads(core().validate(text, fmt, base_dir, _override_list(overrides),
                                      **_budget(max_memory)))


def run(
    scenario: ScenarioLike,
    *,
    overrides: Iterable[str] = (),
    out: str | os.PathLike[str] | None = None,
    quiet: bool = True,
    max_memory: MaxMemory = None,
) -> Results:
    """Simulates ``scenario`` and returns its :class:`Results`.

    ``overrides`` are ``"key.path=value"`` strings (``"transport.protocol=tcp"``). With ``out``,
    the core also writes a result directory there (flows.csv, summary.json, scenario.json,
    ports.csv, series.csv, trace.csv) atomically: a run that fails leaves no directory behind,
    and missing parent folders are created only once the run has succeeded. Unless ``quiet``,
    progress shows on stderr: a bar after two seconds on a terminal, else a plain line every
    five seconds. Ctrl-C stops the run with ``KeyboardInterrupt``. Raises
    :class:`dcnsim.ScenarioError` for bad input, and for a run whose memory estimate passes
    ``max_memory`` (bytes, ``"8G"``, ``"unlimited"``; by default the memory available), before
    it allocates, or whose memory passes it while it runs.
    """
    from .results import Results

    raw = _run_core(scenario, overrides, out, quiet, columns=True, max_memory=max_memory)[0]
    out_dir = None if out is None else str(Path(out))
    return Results.from_core(raw, scenario=json.loads(raw["scenario"]), path=out_dir)


def run_summary(
    scenario: ScenarioLike,
    *,
    overrides: Iterable[str] = (),
    out: str | os.PathLike[str] | None = None,
    quiet: bool = True,
    max_memory: MaxMemory = None,
) -> dict[str, Any]:
    """Like :func:`run`, but returns only the summary dict (summary.json).

    The core still writes the whole result directory when ``out`` is given. No per-flow
    columns cross into Python, so neither numpy nor pandas is imported: ``dcnsim run`` uses
    this to start fast.
    """
    return _run_core(scenario, overrides, out, quiet, columns=False, max_memory=max_memory)[1]


def _run_core(
    scenario: ScenarioLike,
    overrides: Iterable[str],
    out: str | os.PathLike[str] | None,
    quiet: bool,
    columns: bool,
    max_memory: MaxMemory = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The core's raw output and the parsed summary, with progress shown unless ``quiet``."""
    text, fmt, base_dir = scenario_args(scenario)
    ovr = _override_list(overrides)
    out_dir = None if out is None else str(Path(out))
    with progress_bar(quiet) as callback:
        raw = core().run(text, fmt, base_dir, ovr, out_dir, quiet, callback, columns=columns,
                         **_budget(max_memory))
        summary = json.loads(raw["summary"])
        if callback is not None:  # leave the progress (if it showed) at the final count
            flows = summary.get("flows", {})
            callback(
                float(summary.get("run", {}).get("sim_time_s", 0.0)),
                int(flows.get("finished", 0)),
                int(flows.get("total", 0)),
            )
    return raw, summary


def catalog() -> dict[str, list[tuple[str, str]]]:
    """What the core knows, as ``{"protocols"|"lbs"|"topologies"|"workloads"|"sizes":
    [(name, one-line description), ...]}``; ``dcnsim list`` prints it."""
    return {k: [tuple(item) for item in v] for k, v in core().catalog().items()}
