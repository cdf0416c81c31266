"""``dcnsim reproduce``: run a paper's figures, compare with its numbers, write the report.

For each figure: run its sweep (resumable, like any sweep) into ``OUT/<figure>/``, measure our
numbers, draw ``OUT/<figure>.png`` with the paper's values as markers, and compare every claim.
Then ``OUT/data.csv`` (our numbers), ``OUT/comparison.csv`` (claim by claim),
``OUT/report.html`` (self-contained: the images are embedded) and ``OUT/run.json`` (the
figures run, when, and the code's version and commit: :mod:`dcnsim.provenance`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import provenance, report
from ..sweep import SWEEP_JSON, collect, load_spec, run_sweep, write_summaries
from . import claims as claims_mod
from .figure import MEASURE_COLUMNS, Figure, Paper, Runs, SweepDef


@dataclass
class FigureResult:
    """What one figure produced: our numbers, the claim table, the PNG, failed points."""

    figure: Figure
    ours: pd.DataFrame
    comparison: pd.DataFrame
    png: Path
    failures: list[str] = field(default_factory=list)
    points: int = 0


@dataclass
class Reproduction:
    paper: Paper
    quick: bool
    out: Path
    figures: list[FigureResult]
    #: The tolerance of a claim that gives none, for the report's statement of the rule.
    default_tolerance: float = claims_mod.DEFAULT_TOLERANCE
    #: What ``OUT/run.json`` holds: the figures, when, and the code's version and commit.
    provenance: dict = field(default_factory=dict)

    @property
    def failed_points(self) -> int:
        return sum(len(f.failures) for f in self.figures)


def _run_sweeps(paper: Paper, fig: Figure, out: Path, quick: bool, workers, scheduler, force,
                quiet, say, shared_done: set[str],
                max_memory: int | str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Runs the figure's sweeps (resumable) into ``OUT/<figure>/[<part>/]`` (a shared sweep
    into ``OUT/<shared>/[<part>/]``, forced at most once per call: ``shared_done``); returns
    their summaries, one row per point (named relative to the figure's folder: ``part/point``,
    ``../<shared>/point``), and failures."""
    frames, failures = [], []
    for sd in fig.sweeps():
        if quick and sd.full_only:
            continue
        folder = _sweep_folder(fig, sd, out)
        spec = load_spec(sd.spec(quick))
        spec.name = f"{paper.name}-{sd.shared or fig.id}" + (f"-{sd.part}" if sd.part else "")
        if sd.inputs is not None:
            # the scenarios name their input files relative to the sweep's folder
            sd.inputs(folder, quick)
            spec.base_dir = str(folder.resolve())
        again = force and str(folder) not in shared_done
        if sd.shared:
            shared_done.add(str(folder))
        outcome = run_sweep(spec, folder, workers=workers, scheduler=scheduler, force=again,
                            quiet=quiet, log=say, max_memory=max_memory)
        failures += [f"{f.point.name}: {f.error}" for f in outcome.failures]
        frames.append(_named(collect(folder, spec.points()), fig, sd, out))
    return pd.concat(frames, ignore_index=True), failures


def _sweep_folder(fig: Figure, sd: SweepDef, out: Path) -> Path:
    """``OUT/<figure>/[<part>/]``, or ``OUT/<shared>/[<part>/]`` for a shared sweep."""
    base = out / (sd.shared or fig.id)
    return base / sd.part if sd.part else base


def _named(summaries: pd.DataFrame, fig: Figure, sd: SweepDef, out: Path) -> pd.DataFrame:
    """Points named relative to the figure's folder, where :class:`Runs` looks for them."""
    rel = Path(os.path.relpath(_sweep_folder(fig, sd, out), out / fig.id)).as_posix()
    if rel != ".":
        summaries["point"] = rel + "/" + summaries["point"]
    if sd.part:
        summaries.insert(1, "part", sd.part)
    return summaries


def finished_runs(fig: Figure, out: str | os.PathLike[str]) -> Runs | None:
    """What ``fig``'s sweeps have left in ``out`` (by this or an earlier ``reproduce``,
    quick or full), without running anything; None if none of them ran there."""
    out = Path(out)
    frames = [_named(collect(folder), fig, sd, out) for sd in fig.sweeps()
              if ((folder := _sweep_folder(fig, sd, out)) / SWEEP_JSON).is_file()]
    if not frames:
        return None
    return Runs(out / fig.id, pd.concat(frames, ignore_index=True))


def _known(paper: Paper, fig: Figure, known: dict[str, frozenset[str]],
           fig_claims: pd.DataFrame, ours: pd.DataFrame) -> frozenset[str]:
    """The metrics ``fig`` reports, from data/metrics/; a figure without claims (a paper of the
    tests) may have no list, and then reports what it reports."""
    if fig.id in known:
        return known[fig.id]
    if len(fig_claims):
        raise claims_mod.UnknownMetric(
            f"{fig.id}: data/metrics/{paper.name}.csv lists no metric of the figure, so its "
            f"claims' metrics cannot be checked")
    return frozenset(ours["metric"])


def reproduce(
    paper: Paper,
    out: str | os.PathLike[str],
    figure: str | None = None,
    quick: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = True,
    log: Callable[[str], None] | None = None,
    include_long: bool = False,
    max_memory: int | str | None = None,
) -> Reproduction:
    """Reproduces ``paper`` (one ``figure``, or all its runnable figures) into ``out``.

    Without ``figure``, a full run leaves out the figures marked ``long`` (an hour or more)
    unless ``include_long``; ``quick`` runs them (small). ``max_memory`` is the memory budget
    of each sweep, shared by its points that run side by side (:func:`~dcnsim.sweep.run_sweep`;
    the sweeps run one after another). Raises ``KeyError`` for an unknown
    figure id and ``ValueError`` when the paper has no runnable figure yet.
    """
    if not paper.figures:
        raise ValueError(f"{paper.name}: no figure is implemented yet")
    say = log or (lambda line: None)
    if figure:
        figures = [paper.figure(figure)]
    else:
        figures = [f for f in paper.figures if include_long or quick or not f.long]
        for f in paper.figures:
            if f not in figures:
                say(f"{paper.name} {f.id}: left out, a long run "
                    f"(--figure {f.id} or --all to run it)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = provenance.utc_now()
    all_claims = claims_mod.load_claims(paper.name)
    known = claims_mod.load_metrics(paper.name)
    results = []
    shared_done: set[str] = set()
    for fig in figures:
        say(f"{paper.name} {fig.id}: {fig.title}")
        runs, failures, points = None, [], 0
        if fig.sweeps():
            summaries, failures = _run_sweeps(paper, fig, out, quick, workers, scheduler, force,
                                              quiet, say, shared_done, max_memory)
            (out / fig.id).mkdir(exist_ok=True)
            write_summaries(summaries, out / fig.id / "summaries.csv")
            runs, points = Runs(out / fig.id, summaries), len(summaries)
        ours = fig.measure(runs)[MEASURE_COLUMNS].assign(figure=fig.id)
        fig_claims = all_claims[all_claims["figure"] == fig.id]
        png = out / f"{fig.id}.png"
        fig.plot(ours, fig_claims, runs, png)
        fig_known = _known(paper, fig, known, fig_claims, ours)
        comparison = claims_mod.compare(ours, fig_claims, fig_known)
        results.append(FigureResult(fig, ours, comparison, png, failures, points))
    rep = Reproduction(paper, quick, out, results)
    pd.concat([r.ours for r in results])[["figure", *MEASURE_COLUMNS]].to_csv(
        out / "data.csv", index=False)
    pd.concat([r.comparison for r in results]).to_csv(out / "comparison.csv", index=False)
    rep.provenance = {"paper": paper.name, "figures": [f.id for f in figures], "quick": quick,
                      "started": started, "ended": provenance.utc_now(),
                      **provenance.code_version()}
    (out / "run.json").write_text(json.dumps(rep.provenance, indent=2) + "\n")
    report.write_html(rep, out / "report.html")
    return rep
