"""Sweeps: one base scenario, a grid of overrides, every point run in its own process.

A sweep file (TOML) names a base scenario and a grid::

    scenario = "dumbbell.toml"          # optional: relative to the sweep file
    [base]                              # optional: keys set on top of it (or the whole scenario)
    stop_s = 0.05
    [grid]                              # key path -> list of values; the Cartesian product runs
    transport.protocol = ["tcp", "dctcp"]
    workload.load = [0.2, 0.6]
    seed = [1, 2]

:func:`sweep` expands the grid, validates every point with the core before anything runs, and
runs the points on a local process pool (a fresh process per point) or, given a scheduler
address, on a Dask distributed cluster. Each finished point is a result directory
``OUT/<point>/`` (the core's files plus ``point.json``), moved into place in one rename, so an
interrupted sweep resumes with only the missing points. The result is one DataFrame of all
summaries, flattened, with a column per grid key; it is also written to ``OUT/summaries.csv``.

``dcnsim.sweep`` is the function :func:`sweep`; reach this module's other names with
``from dcnsim.sweep import load_spec, run_sweep, collect``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import shutil
import signal
import sys
import tomllib
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import api, progress, toml_values
# What a sweep leaves in its folder, and reading it back: re-exported, the module's public names.
from .sweep_folder import (FAILURES_JSON, POINT_JSON, SUMMARIES_CSV, SWEEP_JSON, collect,
                           flatten_summary, grid_keys)

if TYPE_CHECKING:  # imported where used, so that ``import dcnsim`` stays quick
    import multiprocessing

    import pandas as pd

#: Keys a sweep file may hold at its top level.
SWEEP_KEYS = ("name", "scenario", "base", "grid")
#: Prefixes of the temporary folders a point is written into before its rename.
TMP_PREFIX, OLD_PREFIX = ".tmp-", ".old-"
#: Longest readable point name before the hashed fallback.
MAX_NAME = 80


class SweepError(ValueError):
    """A broken sweep (file, grid or every point invalid); ``str(e)`` names the key path."""


class SchedulerLost(RuntimeError):
    """The Dask scheduler went away during a sweep: the points that finished are kept, the
    others are not recorded as failed (they did not fail); the same sweep resumes."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a sweep: the points that finished are kept (the same sweep
    resumes), the ones that were running are stopped and leave nothing behind; ``str(e)``
    says how many points finished, ``signum`` which signal it was."""

    def __init__(self, message: str, signum: int = signal.SIGINT) -> None:
        super().__init__(message)
        self.signum = signum


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread while :func:`sigterm_as_interrupt` is in force, so
    that whatever stops cleanly on Ctrl-C stops the same way on SIGTERM (a sweep: its workers
    stopped, its finished points kept)."""

    signum = signal.SIGTERM


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``) in
    the main thread instead of killing the process at once, which left a sweep's workers
    running on their own. Only where SIGTERM has its default action: a handler of the
    caller's own is left alone. The default action is back afterwards."""
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL):
        yield
        return

    def terminated(signum: int, frame: Any) -> None:
        raise Terminated("terminated (SIGTERM)")

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@dataclass(frozen=True)
class Point:
    """One scenario of the grid: its folder name, its grid values and the core's arguments."""

    name: str
    values: dict[str, Any]
    overrides: list[str]
    text: str
    fmt: str
    base_dir: str
    #: Why the point cannot run, found before the core sees it (a NaN in its grid values).
    error: str | None = None
    #: The memory budget of the point's run (``dcnsim.run``'s ``max_memory``); not part of
    #: the scenario, so not of the point's name either.
    max_memory: int | str | None = None
    #: How many points share that budget, running side by side: each has that fraction.
    memory_share: int = 1


@dataclass
class Spec:
    """A parsed sweep: the base scenario (as the core's arguments) and the grid."""

    text: str
    fmt: str
    base_dir: str
    base_overrides: list[str]
    grid: dict[str, list[Any]]
    name: str = "sweep"

    def points(self) -> list[Point]:
        """The Cartesian product of the grid, in grid order (first key varies slowest)."""
        keys = list(self.grid)
        combos = itertools.product(*(self.grid[k] for k in keys)) if keys else [()]
        names = _names(keys)
        pts = []
        for combo in combos:
            values = dict(zip(keys, combo))
            overrides = self.base_overrides + [f"{k}={toml_value(v)}" for k, v in values.items()]
            pts.append(
                Point(_point_name(names, values), values, overrides, self.text, self.fmt,
                      self.base_dir, _value_error(values))
            )
        return pts


def _value_error(values: Mapping[str, Any]) -> str | None:
    """The message for the first grid value a scenario cannot hold (NaN, infinity, a date),
    naming its key path; None when every value can be sent. (The core is imported only for
    such a value: a grid expands without it.)"""
    for key, v in values.items():
        try:
            api.json_ready(v, key)
        except ValueError as e:  # dcnsim.ScenarioError
            return str(e)
    return None


# ---------------------------------------------------------------------------------------------
# Reading a sweep


def load_spec(sweep: str | os.PathLike[str] | Mapping[str, Any]) -> Spec:
    """A :class:`Spec` from a sweep file path or a dict of the same shape.

    In a dict, ``scenario`` may also be a scenario dict, and relative paths are taken from the
    working directory. Raises :class:`SweepError` naming the key for a malformed sweep, and
    :class:`dcnsim.ScenarioError` naming the key path for a base value a scenario cannot hold
    (NaN, infinity, a date). A grid value of that kind fails its point alone.
    """
    if isinstance(sweep, Mapping):
        raw, here = dict(sweep), Path.cwd()
    else:
        path = Path(sweep)
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise SweepError(f"{path}: not valid TOML: {e}") from None
        here = path.resolve().parent
    for key in raw:
        if key not in SWEEP_KEYS:
            raise SweepError(f"{key}: unknown key in a sweep file (valid: {', '.join(SWEEP_KEYS)})")
    scenario, base = raw.get("scenario"), raw.get("base", {})
    if not isinstance(base, Mapping):
        raise SweepError("base: must be a table of scenario keys")
    if scenario is None and not base:
        raise SweepError("scenario: a sweep needs a base scenario (`scenario = \"file.toml\"` "
                         "and/or a [base] table)")
    for key, value in _leaves(base):
        api.json_ready(value, key)  # a NaN or a date in the base: refused, naming the key
    if scenario is None:
        text, fmt, base_dir, base_overrides = api.scenario_json(base), "json", str(here), []
    elif isinstance(scenario, Mapping):
        text, fmt, base_dir = api.scenario_json(scenario), "json", str(here)
        base_overrides = [f"{k}={toml_value(v)}" for k, v in _leaves(base)]
    elif isinstance(scenario, str):
        file = here / scenario
        if not file.is_file():
            raise SweepError(f"scenario: no such file {file}")
        text, fmt, base_dir = api.scenario_args(file)
        base_overrides = [f"{k}={toml_value(v)}" for k, v in _leaves(base)]
    else:
        raise SweepError("scenario: must be a path to a scenario file (relative to the sweep)")
    grid_raw = raw.get("grid", {})
    if not isinstance(grid_raw, Mapping):
        raise SweepError("grid: must be a table of key paths to lists of values")
    grid: dict[str, list[Any]] = {}
    for key, values in _leaves(grid_raw):
        if not isinstance(values, list):
            raise SweepError(f"grid.{key}: must be a list of values, e.g. [{toml_value(values)}]")
        if not values:
            raise SweepError(f"grid.{key}: empty list (give at least one value)")
        grid[key] = values
    name = str(raw.get("name") or (Path(sweep).stem if not isinstance(sweep, Mapping) else "sweep"))
    return Spec(text, fmt, base_dir, base_overrides, grid, name)


def _leaves(table: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """``(key.path, value)`` for every non-table value; dotted keys and nested tables alike."""
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            yield from _leaves(v, path + ".")
        else:
            yield path, v


def toml_value(v: Any) -> str:
    """``v`` written as a TOML value, the syntax of a ``--set`` override; :class:`SweepError`
    when it has none."""
    try:
        return toml_values.toml_value(v)
    except toml_values.NoTomlValue as e:
        raise SweepError(str(e)) from None


def _names(keys: list[str]) -> dict[str, str]:
    """Short names of the grid keys for folder names: the last path part, unless two clash."""
    last = [k.rsplit(".", 1)[-1] for k in keys]
    return {k: (s if last.count(s) == 1 else k) for k, s in zip(keys, last)}


def _point_name(names: Mapping[str, str], values: Mapping[str, Any]) -> str:
    """A stable, readable folder name: ``protocol-tcp_load-0.2_seed-1``.

    A table or list value is named by its scalars in order and a short hash of the whole
    (``failures-leaf1-spine0-0.005-0.015-3128`` for one link failure, ``failures-none-4f53``
    for an empty list): readable, and two values with the same scalars still differ. A name
    that is too long becomes ``p-<hash>`` of all values. The same grid values always give the
    same name.
    """
    if not values:
        return "base"
    parts = []
    for k, v in values.items():
        if isinstance(v, (bool, int, float, str)):
            text = toml_value(v).strip('"')
        else:
            text = "-".join(_scalars(v)) or "none"
            text = f"{text[:MAX_NAME // 2]}-{_digest(v, 4)}"
        parts.append(f"{names[k]}-{text}")
    name = re.sub(r"[^A-Za-z0-9._=-]+", "-", "_".join(parts)).strip("-.")
    if len(name) > MAX_NAME or not name:
        name = "p-" + _digest(values, 12)
    return name


def _scalars(v: Any) -> list[str]:
    """The scalar leaves of a table or list value, in order, as text."""
    if isinstance(v, Mapping):
        return [x for item in v.values() for x in _scalars(item)]
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in _scalars(item)]
    return [toml_value(v).strip('"')]


def _digest(v: Any, n: int) -> str:
    return hashlib.sha256(json.dumps(v, sort_keys=True, default=str).encode()).hexdigest()[:n]


# ---------------------------------------------------------------------------------------------
# Running one point (in a worker process)


def run_point(point: Point, out: str) -> dict[str, Any]:
    """Runs ``point`` into ``out/<point.name>`` atomically; returns its summary.

    The core writes the result into a temporary folder beside the final one, ``point.json``
    joins it, and one rename publishes it; an existing folder (``force``) is swapped out and
    removed only after that. Runs in the worker process; raises what the core raises, and
    :class:`~dcnsim.api.OutputError` when the result cannot be written.
    """
    root = Path(out)
    final = root / point.name
    tmp = root / f"{TMP_PREFIX}{point.name}-{uuid.uuid4().hex[:8]}"
    try:
        # columns=False: only the summary crosses into Python, so the worker never imports numpy
        raw = api.core().run(
            point.text, point.fmt, point.base_dir, list(point.overrides), str(tmp), True, None,
            columns=False, **api._budget(point.max_memory, point.memory_share),
        )
        (tmp / POINT_JSON).write_text(
            json_text({"name": point.name, "grid": point.values, "overrides": point.overrides}),
            encoding="utf-8",
        )
        old = None
        if final.exists():
            old = root / f"{OLD_PREFIX}{point.name}-{uuid.uuid4().hex[:8]}"
            final.rename(old)
        tmp.rename(final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as e:  # the core's, or ours: the result could not be written
        raise api.output_error(e) from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return json.loads(raw["summary"])


# ---------------------------------------------------------------------------------------------
# The sweep


@dataclass
class Failure:
    """A point that did not produce a result: its name, grid values, overrides and error;
    ``io`` when its result could not be written (a full disk), which is no fault of the
    point."""

    point: Point
    error: str
    io: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"point": self.point.name, "grid": self.point.values,
                "overrides": self.point.overrides, "error": self.error}


@dataclass
class Outcome:
    """What :func:`run_sweep` did: points run now, points kept from before, failures."""

    ran: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def io_failures(self) -> list[Failure]:
        """The failures that are the disk's, not the points' (no space, read-only, ...)."""
        return [f for f in self.failures if f.io]


def is_done(point: Point, out: Path, resolved: Mapping[str, Any]) -> bool:
    """True when ``out/<point>`` holds a finished run of this very scenario.

    A folder whose scenario.json differs from the point's resolved scenario (the sweep file
    changed since) does not count: the point runs again.
    """
    d = out / point.name
    if not ((d / POINT_JSON).is_file() and (d / "summary.json").is_file()):
        return False
    try:
        stored = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return _without_null_transport_keys(stored) == resolved


def _without_null_transport_keys(scenario: dict[str, Any]) -> dict[str, Any]:
    """``scenario`` without the ``transport`` keys that are null: scenario.json files written
    before each transport read its own keys listed every transport's keys, unset ones as null;
    a point they record is the same run."""
    transport = scenario.get("transport")
    if not isinstance(transport, dict):
        return scenario
    kept = {k: v for k, v in transport.items() if v is not None}
    return {**scenario, "transport": kept}


def check_points(points: list[Point]) -> tuple[dict[str, dict[str, Any]], list[Failure]]:
    """Validates every point with the core; returns resolved scenarios by name and failures.

    Raises :class:`SweepError` when two points share a folder name, or when every point is
    invalid (the sweep itself is broken: an unknown key, a bad base scenario).
    """
    seen: dict[str, Point] = {}
    for p in points:
        if p.name in seen:
            raise SweepError(f"grid: points {seen[p.name].values} and {p.values} would share "
                             f"the folder {p.name!r}")
        seen[p.name] = p
    resolved, failures = {}, []
    for p in points:
        scenario = _validate(p) if p.error is None else p.error
        if isinstance(scenario, str):
            failures.append(Failure(p, scenario))
        else:
            resolved[p.name] = scenario
    if failures and not resolved:
        first = failures[0]
        raise SweepError(str(first.error) if len(points) == 1 else
                         f"{first.error} (every point of the grid fails; first: {first.point.name})")
    return resolved, failures


def _validate(p: Point) -> dict[str, Any] | str:
    """The point's resolved scenario, or the core's error refusing it (within its budget)."""
    core = api.core()
    try:
        scenario = json.loads(core.validate(p.text, p.fmt, p.base_dir, list(p.overrides),
                                            **api._budget(p.max_memory, p.memory_share)))
    except core.ScenarioError as e:
        return str(e)
    scenario.pop("_resolved", None)
    return scenario


def run_sweep(
    spec: Spec,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = True,
    log: Callable[[str], None] | None = None,
    max_memory: int | str | None = None,
) -> Outcome:
    """Runs the points of ``spec`` that are not finished in ``out`` (all of them with ``force``).

    Invalid points (a bad value at some grid point, or a run too large for its share of the
    memory budget) are failures and do not run; the others run on ``workers`` local
    processes (default: every core), one fresh process per point, or on the Dask cluster at
    ``scheduler``. ``max_memory`` (as :func:`dcnsim.run` takes it; default: the memory
    available now) is the whole sweep's: the points that run side by side on local workers,
    min(workers, points still to run), each have an equal share of it (a point that does not
    fit even alone fails first with the whole of it); on Dask, each point has all of it.
    ``log`` receives one line per failure. Unless
    ``quiet``, stderr shows the points done: a bar on a terminal, else a line every few
    seconds (:mod:`dcnsim.progress`).

    ``failures.json`` lists the failed points; a point listed there by an earlier run that has
    a finished result since (a Dask worker finished it after its sweep gave up on it) is
    dropped from it first. Ctrl-C stops the running points (their temporary folders are
    removed), keeps the finished ones and raises :class:`SweepInterrupted`: running the same
    sweep again resumes. SIGTERM does the same (:func:`sigterm_as_interrupt`; its
    :class:`SweepInterrupted` has ``signum`` SIGTERM). Raises
    :class:`~dcnsim.api.OutputError` when the sweep folder cannot be written.
    """
    out = Path(out)
    points = spec.points()
    workers = workers or os.cpu_count() or 1
    # First with the whole budget (a point that does not fit alone fails here), which tells the
    # points still to run; those that run side by side then share it, min(workers, to do).
    points = [replace(p, max_memory=max_memory) for p in points]
    resolved, failures = check_points(points)
    todo = [p for p in points if p.name in resolved
            and (force or not is_done(p, out, resolved[p.name]))]
    share = _memory_of_points(max_memory, len(todo), workers, scheduler)
    if share.get("memory_share", 1) > 1:
        todo = [replace(p, **share) for p in todo]
        points = [next((t for t in todo if t.name == p.name), p) for p in points]
        for p in todo:
            error = _validate(p)
            if isinstance(error, str):
                failures.append(Failure(p, error))
                del resolved[p.name]
        todo = [p for p in todo if p.name in resolved]
    try:
        out.mkdir(parents=True, exist_ok=True)
        _clean_temporaries(out)
        _write_json(out / SWEEP_JSON, {
            "name": spec.name, "grid": spec.grid, "base_overrides": spec.base_overrides,
            "points": [{"name": p.name, "grid": p.values} for p in points]})
    except OSError as e:
        raise api.output_error(e) from None
    outcome = Outcome(failures=list(failures))
    running = {p.name for p in todo}
    outcome.kept = [p.name for p in points if p.name in resolved and p.name not in running]
    earlier = _read_failures(out)
    _write_failures(out, points, outcome, earlier)  # without the points finished since
    say = log or (lambda line: None)
    for f in failures:
        say(f"point {f.point.name} ({', '.join(f.point.overrides) or 'base'}) is invalid: {f.error}")
    bar = progress.counter(spec.name, "point", total=len(points),
                           initial=len(outcome.kept) + len(failures), disable=quiet)
    try:
        def done(p: Point, error: str | None, io: bool = False) -> None:
            bar.update(1)
            if error is None:
                outcome.ran.append(p.name)
            else:
                outcome.failures.append(Failure(p, error, io))
                with bar.external_write_mode(file=sys.stderr):  # keep the bar intact
                    say(f"point {p.name} ({', '.join(p.overrides) or 'base'}) failed: {error}")

        with sigterm_as_interrupt():
            if scheduler:
                _run_dask(todo, out, scheduler, done)
            else:
                _run_local(todo, out, workers, done)
    except SchedulerLost as e:
        bar.close()
        # no temporaries are removed: the cluster's workers may still be writing points
        try:
            _write_failures(out, points, outcome, earlier)
        except OSError:
            pass
        finished = _count_done(points, out, resolved)
        raise SchedulerLost(
            f"{e}; {finished}/{len(points)} points finished, kept in {out}; the same sweep "
            "again runs the rest (points still running on the cluster's workers may finish "
            "meanwhile, and are then kept)") from None
    except KeyboardInterrupt as e:
        bar.close()
        if not scheduler:  # the stopped points' temporary folders; Dask's tasks still run
            _clean_temporaries(out)
        try:
            _write_failures(out, points, outcome, earlier)
        except OSError:
            pass  # the interrupt is what to report; the next run rewrites the file
        finished = _count_done(points, out, resolved)  # a worker may end unheard
        signum = getattr(e, "signum", signal.SIGINT)
        how = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
        raise SweepInterrupted(
            f"{how}: {finished}/{len(points)} points finished, kept in {out}; "
            "the same sweep again runs the rest", signum) from None
    finally:
        bar.close()
    _write_failures(out, points, outcome, earlier)
    return outcome


def _memory_of_points(max_memory: int | str | None, points: int, workers: int,
                      scheduler: str | None) -> dict[str, Any]:
    """Each point's budget: on local workers, an equal share of the sweep's budget
    (``max_memory``, else the memory available now) among the points that run side by side,
    min(workers, points), ``points`` being those still to run, so that together they stay within it. On Dask, the whole budget:
    each point runs on some worker's machine (whose memory available is the default), and
    Dask's own per-worker memory limit is what shares a machine."""
    side_by_side = min(workers, points)
    if scheduler or side_by_side <= 1:
        return {"max_memory": max_memory}
    if max_memory is None:
        # read once: each worker's own reading would miss what the others will still take
        max_memory = api.core().available_memory()
    return {"max_memory": max_memory, "memory_share": side_by_side}


def _count_done(points: list[Point], out: Path, resolved: Mapping[str, Any]) -> int:
    """How many points have a finished result in ``out``, as a resume would find them."""
    return sum(1 for p in points if p.name in resolved and is_done(p, out, resolved[p.name]))


def json_text(data: Any) -> str:
    """``data`` as JSON text that any JSON reader takes: a NaN or an infinity (a grid value
    that fails its point) is written as null, since JSON has no such numbers (Python would
    write a bare ``NaN``); dates and other objects as their text. The failed point's error,
    name and overrides still say what the value was."""
    return json.dumps(_finite(data), indent=2, default=str, allow_nan=False) + "\n"


def _finite(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, Mapping):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def _write_json(path: Path, data: Any) -> None:
    """``data`` as JSON into ``path`` (:func:`json_text`), by a rename: never a half-written
    file."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}-{uuid.uuid4().hex[:8]}")
    try:
        tmp.write_text(json_text(data), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _read_failures(out: Path) -> list[dict[str, Any]]:
    """The entries of ``out/failures.json`` (none when it is missing or unreadable)."""
    try:
        entries = json.loads((out / FAILURES_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("point"), str)]


def _write_failures(out: Path, points: list[Point], outcome: Outcome,
                    earlier: list[dict[str, Any]]) -> None:
    """Writes ``failures.json`` (removes it when there is none): this run's failures, and the
    earlier entries of points that are still unfinished and have not run now. An earlier
    entry of a point that has a finished result (kept or run now), or that is no longer in
    the grid, is dropped. Raises :class:`~dcnsim.api.OutputError`."""
    order = {p.name: i for i, p in enumerate(points)}
    settled = (set(outcome.kept) | set(outcome.ran) | {f.point.name for f in outcome.failures})
    entries = [f.as_dict() for f in outcome.failures]
    entries += [e for e in earlier if e["point"] in order and e["point"] not in settled]
    entries.sort(key=lambda e: order.get(e["point"], len(order)))
    path = out / FAILURES_JSON
    try:
        if entries:
            _write_json(path, entries)
        elif path.exists():
            path.unlink()
    except OSError as e:
        raise api.output_error(e) from None


def _clean_temporaries(out: Path) -> None:
    """Removes what an interrupted point left behind (its temporary or swapped-out folder).
    Two sweeps must not write into one folder at the same time."""
    # the core's own temporary folder of a point's temporary folder starts with "." + TMP_PREFIX
    for d in out.iterdir():
        if d.name.startswith((TMP_PREFIX, OLD_PREFIX, "." + TMP_PREFIX)):
            if d.is_dir():
                shutil.rmtree(d, ignore_errors=True)
            else:
                d.unlink(missing_ok=True)


def _error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _pool_context() -> multiprocessing.context.BaseContext:
    """Fresh processes that start fast: a fork server that has imported dcnsim and loaded the
    core once forks each worker, instead of a new interpreter per point (spawn). Plain fork
    is not an option: it copies the parent's threads and locks."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["dcnsim.sweep", "dcnsim._core"])
    return ctx

#: The signals the parent alone acts on: a worker has them blocked, then ignored.
PARENT_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


def _point_process(fn: Callable[[Point, str], Any], point: Point, out: str, conn: Any) -> None:
    """A worker process: runs one point and sends back ``(error text or None, io)``.

    Ctrl-C and SIGTERM are ignored here (forked by the fork server, it has them blocked from
    the start: :func:`_start_fork_server`): from a terminal, or from a service manager, they
    reach the whole process group, and the parent decides (it stops the workers itself, with
    SIGKILL), so a point is never reported as failed for being stopped."""
    for s in PARENT_SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    try:
        fn(point, out)
    except BaseException as e:  # the point's own error, sent back as text
        result = (_error_text(e), isinstance(e, OSError))
    else:
        result = (None, False)
    try:
        conn.send(result)
        conn.close()
    except OSError:  # the parent is gone (killed): nobody to tell
        pass


def _death_text(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        how = f"killed by {name}"
    else:
        how = f"exit code {exitcode}"
    return f"the worker process died ({how}: a crash, or out of memory)"


def _run_local(todo: list[Point], out: Path, workers: int,
               done: Callable[..., None],
               fn: Callable[[Point, str], Any] = run_point) -> None:
    """Runs each point in a fresh process of its own, up to ``workers`` at a time, so a point
    never inherits another's state and a process that dies (a crash, an out-of-memory kill)
    fails its own point only. ``done(point, error, io)`` is called in the order points end.

    On Ctrl-C or SIGTERM (any exception), the points not started are dropped and the running
    workers are killed before the exception goes on: no worker outlives the sweep, and none
    of them is reported. ``fn`` is the point function
    (a seam for tests)."""
    from collections import deque
    from multiprocessing.connection import wait

    if not todo:
        return
    ctx = _pool_context()
    _start_fork_server(ctx)
    queue = deque(todo)
    running: dict[Any, tuple[Any, Point]] = {}  # the result pipe's end -> (process, point)
    try:
        while queue or running:
            while queue and len(running) < workers:
                p = queue.popleft()
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_point_process, args=(fn, p, str(out), send),
                                   name=f"dcnsim-point-{p.name}", daemon=True)
                with _signals_deferred():  # a started process is always known, to be stopped
                    proc.start()
                    running[recv] = (proc, p)
                send.close()  # the child holds the other copy: EOF here when it dies
            # a timeout, so that a signal handled by another thread is noticed soon too
            for conn in wait(list(running), timeout=0.5):
                proc, p = running.pop(conn)
                try:
                    error, io = conn.recv()
                except (EOFError, OSError):
                    error, io = None, None
                conn.close()
                proc.join()
                if io is None:
                    done(p, _death_text(proc.exitcode))
                else:
                    done(p, error, io)
    except BaseException:
        _stop([proc for proc, _ in running.values()])
        for conn in running:
            conn.close()
        raise


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Holds Ctrl-C and SIGTERM back until the block ends, and acts on the first one then as
    its handler would have (in the main thread; a handler that records them stands in
    meanwhile, so no other code can let them through)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum))
                for s in PARENT_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if caught:
        handler = previous[caught[0]]
        if callable(handler):
            handler(caught[0], None)  # Python's SIGINT handler raises KeyboardInterrupt
        elif handler == signal.SIG_DFL and caught[0] == signal.SIGTERM:
            signal.raise_signal(caught[0])  # what it would have done: end the process
        elif handler == signal.SIG_DFL:
            raise KeyboardInterrupt


def _start_fork_server(ctx: Any) -> None:
    """Starts the fork server (if ``ctx`` uses one) with SIGINT and SIGTERM blocked, so that
    every worker it forks has them blocked from its first instruction: Ctrl-C at a terminal
    (or SIGTERM to the group) reaches the whole process group, and the parent alone decides
    what happens to its workers. The fork server exits when the parent does (its pipe
    closes). The resource tracker starts first, as it sets the signal mask itself."""
    if ctx.get_start_method() != "forkserver" or not hasattr(signal, "pthread_sigmask"):
        return
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, PARENT_SIGNALS)
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop(procs: list[Any]) -> None:
    """Kills worker processes and waits for them. SIGKILL at once: they ignore SIGTERM
    (:func:`_point_process`), and a stopped point's state is thrown away either way (the
    parent removes its temporary folder)."""
    for proc in procs:
        if proc.is_alive():
            proc.kill()
    for proc in procs:
        proc.join()


def _run_dask(todo: list[Point], out: Path, scheduler: str,
              done: Callable[..., None]) -> None:
    """The points as tasks on an existing Dask cluster; workers must see ``out`` and the
    scenario's files at the same paths (a shared file system).

    When the connection to the scheduler is lost, Dask cancels every future: that is not the
    points' failure, so none is reported and :class:`SchedulerLost` is raised, the client
    closed with its reconnection's tracebacks kept off stderr."""
    import concurrent.futures

    import distributed
    from distributed.comm import CommClosedError

    client = distributed.Client(scheduler)
    lost: str | None = None  # why the scheduler is taken for lost (for debugging)
    try:
        if not todo:
            return
        futures = [client.submit(run_point, p, str(out), key=f"dcnsim-{p.name}-{uuid.uuid4().hex[:8]}",
                                 pure=False, retries=0) for p in todo]
        by_key = {f.key: p for f, p in zip(futures, todo)}
        for fut in distributed.as_completed(futures):
            p = by_key[fut.key]
            try:
                fut.result()
            except Exception as e:
                # nobody else cancels these futures: the scheduler is gone (the error is a
                # cancellation, or the closed connection of fetching the result)
                if (fut.cancelled() or client.status != "running"
                        or isinstance(e, (concurrent.futures.CancelledError, CommClosedError))):
                    lost = _error_text(e)
                    break
                done(p, _error_text(e), isinstance(e, OSError))
            else:
                done(p, None)
    finally:
        if lost is None:
            client.close()
        else:
            with _no_logging():  # the client's reconnection attempt logs CancelledError
                client.close(timeout=5)
    if lost is not None:
        raise SchedulerLost(f"lost the connection to the Dask scheduler {scheduler}")


@contextmanager
def _no_logging() -> Iterator[None]:
    """Turns every logger off for a moment, then back to what it was."""
    import logging

    before = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(before)


# ---------------------------------------------------------------------------------------------
# Collecting: the whole sweep as one frame (reading its folder back: sweep_folder.py)


def sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any],
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = True,
    max_memory: int | str | None = None,
) -> pd.DataFrame:
    """Runs a sweep and returns one DataFrame of all its points' summaries.

    ``spec`` is a sweep file (TOML) or a dict of the same shape (``scenario``: a path or a
    scenario dict; ``base``; ``grid``: key path → list of values). Points already finished in
    ``out`` are kept unless ``force``. ``workers`` local processes (default: every core), or
    the Dask scheduler at ``scheduler`` (``"tcp://host:8786"``). Failed points are rows with
    ``status == "failed"`` and their ``error``; the frame is also written to
    ``out/summaries.csv``. ``max_memory`` is the sweep's memory budget, shared equally by the
    points that run side by side (:func:`run_sweep`). Raises :class:`SweepError` (or ``dcnsim.ScenarioError``) for a
    broken sweep, before anything runs.
    """
    s = load_spec(spec)
    run_sweep(s, out, workers=workers, scheduler=scheduler, force=force, quiet=quiet,
              max_memory=max_memory)
    frame = collect(out, s.points())
    write_summaries(frame, Path(out) / SUMMARIES_CSV)
    return frame


def write_summaries(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as summaries.csv, a table or list grid value (a failure schedule, a size
    distribution) written as JSON text, which reads back with ``json.loads``, instead of
    Python's repr."""
    def cell(v: Any) -> Any:
        if isinstance(v, (Mapping, list, tuple)):
            return json.dumps(v, sort_keys=True, default=str)
        return v

    text = {c: frame[c].map(cell) for c in frame.columns if frame[c].dtype == object}
    frame.assign(**text).to_csv(path, index=False)
