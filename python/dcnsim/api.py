"""The Python entry points: scenario in, :class:`~dcnsim.results.Results` out.

These functions turn what a user has in hand (a path to a TOML file, or a dict) into the
arguments of the compiled core and the core's columns into DataFrames. They never interpret the
scenario themselves: the schema, its defaults and its error messages live in Rust, once.

Only :func:`run` needs pandas (through :mod:`dcnsim.results`), and imports it when called:
``dcnsim list``, ``validate`` and ``run`` (which calls :func:`run_summary`) never load it.
"""

from __future__ import annotations

import datetime
import importlib
import json
import math
import numbers
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Union

from .progress import progress_bar
from .toml_values import NoTomlValue, toml_value

if TYPE_CHECKING:
    from .results import Results

#: A scenario as a user gives it: a path to a TOML (or ``.json``) file, or a dict.
ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: The integers a scenario may hold: what fits in 64 bits (signed or unsigned).
INT_MIN, INT_MAX = -(2**63), 2**64 - 1
#: What a scenario value may be, for the messages that refuse anything else.
VALID_VALUES = "numbers, strings, booleans, lists and tables"


class OutputError(OSError):
    """Results could not be written (disk full, read-only file system, no permission, ...).

    An ``OSError`` that keeps the OS's ``errno``, its reason (in ``strerror``) and the path;
    ``str(e)`` reads ``"<path>: could not write results: No space left on device"``. It is not
    bad input: ``dcnsim`` exits with code 74 (``EX_IOERR``) for it, not 2.
    """

    def __str__(self) -> str:
        reason = self.strerror or (self.args[0] if self.args else "")
        return f"{self.filename}: {reason}" if self.filename is not None else str(reason)


def output_error(e: OSError, doing: str = "could not write results") -> OutputError:
    """``e`` as an :class:`OutputError` whose reason starts with ``doing`` (unless it already
    does), errno and path kept."""
    if isinstance(e, OutputError):
        return e
    reason = e.strerror or str(e)
    if not reason.startswith(doing):
        reason = f"{doing}: {reason}"
    if e.errno is None:
        err = OutputError(reason)
        err.filename = e.filename
    elif e.filename is None:
        err = OutputError(e.errno, reason)
    else:
        err = OutputError(e.errno, reason, e.filename)
    return err


def json_ready(value: Any, path: str = "") -> Any:
    """``value`` (a scenario dict, or one value of it at key ``path``) as plain JSON data.

    Raises :class:`dcnsim.ScenarioError` naming the key path for what JSON (and the core)
    cannot hold: NaN and infinities, integers beyond 64 bits, dates and times, keys that are
    not strings, objects of other types. Integers and floats of other types (numpy's) become
    ``int`` and ``float`` of the same value; tuples become lists. Nothing else is changed.
    """
    where = path or "scenario"
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        v = int(value)
        if not INT_MIN <= v <= INT_MAX:
            raise _error(f"{where}: {v} is out of range (an integer must fit in 64 bits)")
        return v
    if isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise _error(f"{where}: {v} is not a finite number (NaN and infinities are refused;"
                         " give a finite number)")
        return v
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _error(f"{where}: the key {k!r} is not a string (keys are strings)")
            out[k] = json_ready(v, f"{path}.{k}" if path else k)
        return out
    if isinstance(value, (list, tuple)):
        return [json_ready(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        raise _error(f"{where}: a date or time ({value.isoformat()}) is not a valid scenario "
                     f"value (valid: {VALID_VALUES})")
    raise _error(f"{where}: a value of type {type(value).__name__} ({value!r:.40}) is not a "
                 f"valid scenario value (valid: {VALID_VALUES})")


def _error(message: str) -> Exception:
    return core().ScenarioError(message)


def scenario_json(scenario: Mapping[str, Any]) -> str:
    """A scenario dict as JSON text for the core, checked by :func:`json_ready` first."""
    return json.dumps(json_ready(scenario), allow_nan=False)


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
    are resolved against its folder. A dict is sent as JSON, relative to the working directory;
    a value JSON cannot hold (NaN, infinity, a date) raises :class:`dcnsim.ScenarioError`
    naming its key path (:func:`json_ready`). Raises ``FileNotFoundError`` for a missing file
    and ``TypeError`` for anything else.
    """
    if isinstance(scenario, Mapping):
        return scenario_json(scenario), "json", os.getcwd()
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        text = path.read_text(encoding="utf-8")
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return text, fmt, str(path.resolve().parent)
    raise TypeError(
        f"a scenario is a path to a TOML file or a dict, not {type(scenario).__name__}"
    )


#: ``overrides``: ``"key.path=value"`` strings, or a dict ``{"key.path": value}``.
Overrides = Iterable[str] | str | Mapping[str, Any]


def _override_list(overrides: Overrides) -> list[str]:
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        # Each value written as the TOML value a `--set` reads, its Python type kept ("0.5"
        # stays text, 0.5 a number); NaN reaches the core as TOML's nan, refused naming its key.
        out = []
        for key, value in overrides.items():
            try:
                out.append(f"{key}={toml_value(value)}")
            except NoTomlValue as e:
                raise _error(f"{key}: {e}") from None
        return out
    return [str(o) for o in overrides]


def _budget(max_memory: MaxMemory, share: int = 1) -> dict[str, Any]:
    """The core's ``max_memory`` and ``memory_share`` keywords, each left out at the core's
    default (None: the memory available; 1: the whole budget)."""
    kw: dict[str, Any] = {} if max_memory is None else {"max_memory": max_memory}
    if share != 1:
        kw["memory_share"] = share
    return kw


def validate(scenario: ScenarioLike, overrides: Overrides = (), *,
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
    overrides: Overrides = (),
    out: str | os.PathLike[str] | None = None,
    quiet: bool = True,
    max_memory: MaxMemory = None,
) -> Results:
    """Simulates ``scenario`` and returns its :class:`Results`.

    ``overrides`` are ``"key.path=value"`` strings (``"transport.protocol=tcp"``) or a dict
    (``{"transport.protocol": "tcp", "workload.load": 0.8}``). With ``out``,
    the core also writes a result directory there (flows.csv, summary.json, scenario.json,
    ports.csv, and series.csv, trace.csv and paths.csv when their outputs are on) atomically: a run that fails leaves no directory behind,
    and missing parent folders are created only once the run has succeeded. Unless ``quiet``,
    progress shows on stderr: a bar after two seconds on a terminal, else a plain line every
    five seconds. Ctrl-C stops the run with ``KeyboardInterrupt``. Raises
    :class:`dcnsim.ScenarioError` for bad input, and for a run whose memory estimate passes
    ``max_memory`` (bytes, ``"8G"``, ``"unlimited"``; by default the memory available), before
    it allocates, or whose memory passes it while it runs; :class:`OutputError` (an ``OSError``)
    when the results cannot be written, with the OS's reason ("No space left on device").
    """
    from .results import Results

    raw = _run_core(scenario, overrides, out, quiet, columns=True, max_memory=max_memory)[0]
    out_dir = None if out is None else str(Path(out))
    return Results.from_core(raw, scenario=json.loads(raw["scenario"]), path=out_dir)


def run_summary(
    scenario: ScenarioLike,
    *,
    overrides: Overrides = (),
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
    overrides: Overrides,
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
        try:
            raw = core().run(text, fmt, base_dir, ovr, out_dir, quiet, callback, columns=columns,
                             **_budget(max_memory))
        except OSError as e:  # the core's only OSError: writing the result directory
            if out_dir is None:
                raise
            raise output_error(e) from None
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
