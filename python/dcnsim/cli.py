"""The ``dcnsim`` command: ``run``, ``validate``, ``list``, ``demo``, ``sweep``, ``plot``,
``reproduce``.

Bad input (a scenario error, a missing or unreadable file) prints ``error: <message>`` on
stderr and exits with code 2, like a usage error; nothing is written then (the core writes a
result directory only when the run succeeds). Results that cannot be written (a full disk, a
read-only folder) exit with code 74 (``EX_IOERR`` of sysexits.h), the OS's reason in the
message. Ctrl-C exits with code 130, SIGTERM with 143 (128 + the signal, as a shell reports
a process the signal killed); either way a sweep stops its running points first and keeps
the finished ones for the next run.

Commands import pandas, matplotlib and Dask (up to a second) only when they run, inside the
functions that need them: ``list``, ``validate`` and ``run`` need none of them and start in a
tenth of a second.
"""

from __future__ import annotations

import errno
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from . import api, tables
from .api import OutputError
from .sweep import (FAILURES_JSON, SUMMARIES_CSV, SchedulerLost, SweepError, collect, load_spec,
                    run_sweep, sigterm_as_interrupt)

#: Exit code for bad input (same as click's usage errors).
EXIT_BAD_INPUT = 2
#: Exit code of a sweep or reproduction in which some points failed (the others finished), or
#: that lost its Dask scheduler.
EXIT_SOME_FAILED = 1
#: Exit code when results cannot be written: a full disk, a read-only or forbidden folder
#: (``EX_IOERR`` of sysexits.h).
EXIT_IO_ERROR = 74
#: Exit code after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130
#: Exit code after SIGTERM (128 + SIGTERM), which is handled as Ctrl-C is.
EXIT_TERMINATED = 143
#: OS errors that are the machine's, never the input's, wherever they come from.
IO_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG})

_set_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override a scenario key, e.g. --set transport.protocol=tcp (repeatable).",
)


def _check_memory(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--max-memory``: refused at once (exit code 2) unless the core can read it."""
    if value is None:
        return None
    try:
        core = api.core()
    except ImportError:
        return value  # the missing core is reported where the command needs it
    try:
        core.parse_memory(value)
    except core.ScenarioError as e:
        raise click.BadParameter(str(e)) from None
    return value


def _memory_option(text: str = "Memory budget: refuse a run whose estimate passes SIZE "
                   "(bytes, 500M, 8G, 1.5GiB, or unlimited). Default: the memory available "
                   "now.") -> Any:
    return click.option("--max-memory", "max_memory", metavar="SIZE", callback=_check_memory,
                        help=text)


#: --max-memory of the commands that run points side by side.
_SHARED_MEMORY_HELP = (
    "Memory budget of the whole command (bytes, 500M, 8G, 1.5GiB, or unlimited; default: the "
    "memory available when it starts): the points that run side by side on local workers, "
    "min(--workers, points), each get an equal share of it. With --scheduler, each point "
    "gets all of it.")


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turns bad input into ``error: ...`` and exit code 2, results that cannot be written
    into exit code 74, Ctrl-C into exit code 130 and SIGTERM into 143."""
    try:
        core = api.core()
    except ImportError as e:
        _fail(f"the compiled core dcnsim._core is not available ({e}); "
              "build it with `make` or `pip install .`", code=1)
    try:
        yield
    except (core.ScenarioError, SweepError) as e:
        _fail(str(e))
    except SchedulerLost as e:
        _fail(str(e), code=EXIT_SOME_FAILED)
    except OutputError as e:
        _fail(str(e), code=EXIT_IO_ERROR)
    except OSError as e:
        name = e.filename if e.filename is not None else ""
        _fail(f"{name}: {e.strerror or e}" if name else str(e),
              code=EXIT_IO_ERROR if e.errno in IO_ERRNOS else EXIT_BAD_INPUT)
    except UnicodeDecodeError as e:
        _fail(f"scenario is not UTF-8 text: {e}")
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (sweep.Terminated, or a sweep's)
        terminated = getattr(e, "signum", None) == signal.SIGTERM
        _fail(str(e) or "interrupted",
              code=EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dcnsim", prog_name="dcnsim")
def cli() -> None:
    """dcnsim: packet-level data center network simulator."""


@cli.command()
@click.argument("scenario", metavar="SCENARIO.toml")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write flows.csv, summary.json, scenario.json, ports.csv (+ series.csv) here.",
)
@_set_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar, no summary table.")
@_memory_option()
def run(scenario: str, out: Path | None, overrides: tuple[str, ...], quiet: bool,
        max_memory: str | None) -> None:
    """Simulate SCENARIO.toml and print a short summary."""
    # The core writes the result directory; the table needs only the summary, not DataFrames.
    with _user_errors():
        summary = api.run_summary(scenario, overrides=overrides, out=out, quiet=quiet,
                                  max_memory=max_memory)
    if not quiet:
        click.echo(tables.summary_table(summary))
    if out is not None:
        click.echo(f"wrote {out}", err=quiet)


@cli.command()
@click.argument("scenario", metavar="SCENARIO.toml")
@_set_option
@_memory_option()
def validate(scenario: str, overrides: tuple[str, ...], max_memory: str | None) -> None:
    """Check SCENARIO.toml without running it (its memory estimate included)."""
    with _user_errors():
        resolved = api.validate(scenario, overrides=overrides, max_memory=max_memory)
    memory = resolved.get("_resolved", {}).get("memory")
    needs = (f"; needs about {memory['estimate']} of memory (budget {memory['budget']})"
             if memory else "")
    click.echo(f"ok: {describe(resolved, default_name=Path(scenario).stem)}{needs}")


def describe(s: dict[str, Any], default_name: str = "scenario") -> str:
    """One line naming a resolved scenario: name, topology, protocol, path choice, workload."""
    topo = s.get("topology", {})
    size = " ".join(f"{k}={topo[k]}" for k in ("k", "hosts") if topo.get(k) is not None)
    link = f"{topo['link_gbps']:g} Gbps" if isinstance(topo.get("link_gbps"), (int, float)) else ""
    wl = s.get("workload", {})
    wl_bits = [str(wl.get("kind", "?"))]
    if wl.get("sizes") is not None:
        wl_bits.append(str(wl["sizes"]))
    if wl.get("load") is not None:
        wl_bits.append(f"load {wl['load']}")
    flows = f", {wl['flows']} flows" if wl.get("flows") is not None else ""
    return (
        f"{s.get('name') or default_name}: "
        + " ".join(b for b in (str(topo.get("kind", "?")), size, link) if b)
        + f", {s.get('transport', {}).get('protocol', '?')}"
        + f" over {s.get('routing', {}).get('lb', '?')}"
        + f", {' '.join(wl_bits)}{flows}, seed {s.get('seed', '?')}"
    )


_CATALOG_TITLES = {
    "protocols": "protocols (transport.protocol)",
    "lbs": "path choices (routing.lb)",
    "topologies": "topologies (topology.kind)",
    "workloads": "workloads (workload.kind)",
    "sizes": "flow size distributions (workload.sizes)",
}


@cli.command(name="list")
def list_cmd() -> None:
    """List protocols, path choices, topologies, workloads and size distributions."""
    with _user_errors():
        cat = api.catalog()
    blocks = []
    for key in [*_CATALOG_TITLES, *(k for k in cat if k not in _CATALOG_TITLES)]:
        items = cat.get(key)
        if not items:
            continue
        width = max(len(name) for name, _ in items)
        lines = [_CATALOG_TITLES.get(key, key)]
        lines += [f"  {name.ljust(width)}  {desc}" for name, desc in items]
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))


@cli.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results/demo"),
    show_default=True,
    help="Result folder: OUT/tcp, OUT/dctcp, and the comparison files.",
)
@click.option("--flows", type=click.IntRange(min=1), help="Number of flows (default 2000).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@_memory_option("Memory budget of each of the two runs, which go one after the other (bytes, "
                "500M, 8G, 1.5GiB, or unlimited). Default: the memory available when each "
                "starts.")
def demo(out: Path, flows: int | None, quiet: bool, max_memory: str | None) -> None:
    """TCP NewReno vs DCTCP on a k=4 fat-tree with the web-search workload."""
    from . import demo as demo_mod

    with _user_errors():
        results = demo_mod.run_demo(
            out, flows=flows, quiet=quiet, log=lambda line: click.echo(line, err=True),
            max_memory=max_memory,
        )
    click.echo(tables.comparison_table({p: r.summary for p, r in results.items()}))
    click.echo(f"\nwrote {out}/flows.csv, {out}/summary.json, {out}/fct_by_size.png")


@cli.command()
@click.argument("sweep_file", metavar="SWEEP.toml")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Sweep folder: one result folder per point, summaries.csv, sweep.json.")
@click.option("--workers", "-j", type=click.IntRange(min=1),
              help="Local processes (default: every core).")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Run on this Dask distributed scheduler instead of local processes.")
@click.option("--force", is_flag=True, help="Re-run points that are already finished.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@_memory_option(_SHARED_MEMORY_HELP)
def sweep(sweep_file: str, out: Path, workers: int | None, scheduler: str | None, force: bool,
          quiet: bool, max_memory: str | None) -> None:
    """Run every point of the grid in SWEEP.toml; finished points are kept (resume)."""
    with _user_errors():
        spec = load_spec(sweep_file)
        outcome = run_sweep(
            spec, out, workers=workers, scheduler=scheduler, force=force, quiet=quiet,
            log=lambda line: click.echo(line, err=True), max_memory=max_memory,
        )
        frame = collect(out, spec.points())
        try:
            frame.to_csv(out / SUMMARIES_CSV, index=False)
        except OSError as e:
            raise api.output_error(e) from None
    total = len(frame)
    click.echo(
        f"{total - len(outcome.failures)}/{total} points finished "
        f"({len(outcome.ran)} run now, {len(outcome.kept)} kept); wrote {out / SUMMARIES_CSV}",
        err=quiet,
    )
    if outcome.failures:
        click.echo(f"error: {len(outcome.failures)} point(s) failed, listed in "
                   f"{out / FAILURES_JSON}", err=True)
        if outcome.io_failures:  # not the points' fault: the disk's
            click.echo(f"error: {len(outcome.io_failures)} of them could not write their "
                       f"results ({outcome.io_failures[0].error})", err=True)
            sys.exit(EXIT_IO_ERROR)
        sys.exit(EXIT_SOME_FAILED)


@cli.command()
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--load", metavar="VALUE",
              help="Sweep folder: the load at which fct_cdf.png and slowdown_by_size.png are "
                   "drawn, a value of the grid's *load key (default: the highest).")
@click.option("--point", multiple=True, metavar="KEY=VALUE",
              help="Sweep folder: the grid point of fct_cdf.png and slowdown_by_size.png, by "
                   "grid values (KEY a grid key or its last part: --point load=0.5 "
                   "--point failures=...); repeatable; grid keys left out are pooled.")
@click.option("--from", "start", type=float, metavar="SECONDS",
              help="Run folder: time-series plots start at this simulated time (s).")
@click.option("--to", "end", type=float, metavar="SECONDS",
              help="Run folder: time-series plots end at this simulated time (s).")
@click.option("--ports", metavar="LIST",
              help="Run folder: the ports drawn in queue.png and link_util.png, comma-separated "
                   "port ids (ports.csv's port) or node names (all ports out of the node), "
                   "e.g. --ports 3,7 or --ports leaf0.")
def plot(directory: Path, load: str | None, point: tuple[str, ...], start: float | None,
         end: float | None, ports: str | None) -> None:
    """Draw the standard plots of a run or sweep folder into DIR/plots/.

    A run folder: FCT CDF, FCT and slowdown by size, and its time series (goodput, queues,
    link utilisation, Jain's index). A sweep folder: FCT against load, and the FCT CDF and
    slowdown by size class per protocol at one grid point.
    """
    from . import plots

    chosen_ports = None if ports is None else ports.split(",")
    with _user_errors():
        try:
            files = plots.plot_dir(directory, load=load, point=point, start=start, end=end,
                                   ports=chosen_ports)
        except plots.PlotOptionError as e:
            _fail(str(e))
    for f in files:
        click.echo(f"wrote {f}")
    if not files:
        click.echo(f"{directory}: nothing to plot (no finished flows, no series)", err=True)


@cli.command()
@click.argument("paper", required=False)
@click.option("--list", "list_papers", is_flag=True, help="List papers and figures, then exit.")
@click.option("--figure", "figure_id", metavar="ID",
              help="Only this figure (default: all but the long runs, marked in --list).")
@click.option("--all", "include_long", is_flag=True,
              help="All figures, the long runs too.")
@click.option("--quick", is_flag=True, help="Fewer flows, loads and seeds: minutes on 2 cores.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: results/reproduce/PAPER).")
@click.option("--workers", "-j", type=click.IntRange(min=1), help="Local processes (default: all cores).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="Run the sweeps on this Dask scheduler.")
@click.option("--force", is_flag=True, help="Re-run simulation points already finished.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@_memory_option("Memory budget of each figure's sweep (they run one after the other), as "
                "`dcnsim sweep --max-memory` takes it: the points that run side by side share "
                "it equally. Default: the memory available when each sweep starts.")
def reproduce(paper: str | None, list_papers: bool, figure_id: str | None, include_long: bool,
              quick: bool, out: Path | None, workers: int | None, scheduler: str | None,
              force: bool, quiet: bool, max_memory: str | None) -> None:
    """Re-run a paper's figures (merp, pace, tr, mcp, pdq, core) and compare with its numbers."""
    from . import experiments
    from .experiments import runner

    if list_papers:
        click.echo(_paper_list(experiments.PAPERS))
        return
    if paper is None:
        _fail("name a paper (" + ", ".join(experiments.PAPERS) + ") or use --list")
    try:
        p = experiments.get(paper)
    except KeyError as e:
        _fail(e.args[0])
    if not p.figures:
        pending = ", ".join(f.id for f in p.pending)
        _fail(f"{p.name}: not yet implemented — no figure of this paper runs yet "
              f"(pending: {pending}); see `dcnsim reproduce --list`", code=EXIT_SOME_FAILED)
    if figure_id is not None and figure_id not in [f.id for f in p.figures]:
        pending = [f.id for f in p.pending]
        why = " is not yet implemented" if figure_id in pending else " is not a figure of it"
        _fail(f"--figure: {figure_id!r}{why}; runnable: {', '.join(f.id for f in p.figures)}")
    out = out or Path("results") / "reproduce" / p.name
    with _user_errors():
        rep = runner.reproduce(p, out, figure=figure_id, quick=quick, workers=workers,
                               scheduler=scheduler, force=force, quiet=quiet,
                               log=lambda line: click.echo(line, err=True),
                               include_long=include_long, max_memory=max_memory)
    for f in rep.figures:
        counts = f.comparison["verdict"].value_counts()
        click.echo(f"{f.figure.id}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in
                                                 ("reproduced", "differs", "not measured"))
                   + f"  -> {f.png}")
    click.echo(f"wrote {out / 'report.html'}, {out / 'data.csv'}, {out / 'comparison.csv'}, "
               f"{out / 'run.json'}")
    if rep.failed_points:
        click.echo(f"error: {rep.failed_points} simulation point(s) failed; see the report",
                   err=True)
        sys.exit(EXIT_SOME_FAILED)


@cli.group()
def docs() -> None:
    """Write the generated parts of the manual (docs/)."""


@docs.command(name="papers")
@click.option("--dir", "pages_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("docs") / "papers", show_default=True,
              help="The paper pages' folder; its data/ holds the committed runs.")
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 if a page's claims table is out of date.")
def docs_papers(pages_dir: Path, check: bool) -> None:
    """Rewrite each paper page's claims table (and the index's table of runs) from the committed
    runs in DIR/data/<paper>.csv and <paper>.run.json."""
    from .experiments import paper_pages

    try:
        if check:
            old = paper_pages.stale(pages_dir)
            for page in old:
                click.echo(f"out of date: {page}")
            if old:
                sys.exit(1)
            click.echo("the paper pages are up to date")
            return
        changed = paper_pages.write(pages_dir)
    except paper_pages.PageError as e:
        _fail(str(e))
    for page in changed:
        click.echo(f"wrote {page}")
    if not changed:
        click.echo("the paper pages are up to date")


def _paper_list(papers) -> str:
    blocks = []
    for p in papers.values():
        lines = [f"{p.name}  {p.citation}"]
        for f in p.figures:
            long = "(a long run, an hour or more: --figure or --all) " if f.long else ""
            lines.append(f"  {f.id:<12} {long}{f.shows}")
        for f in p.pending:
            lines.append(f"  {f.id:<12} not yet implemented (needs {f.needs}): {f.shows}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main() -> None:
    """Console-script entry point (``dcnsim``). SIGTERM is handled as Ctrl-C is (a sweep
    stops its workers and keeps its finished points), with exit code 143."""
    with sigterm_as_interrupt():
        cli(prog_name="dcnsim")
