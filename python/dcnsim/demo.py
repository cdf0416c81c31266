"""The demo experiment: TCP NewReno vs DCTCP on a k=4 fat-tree, web-search workload.

``dcnsim demo`` (and ``make demo``) call :func:`run_demo`. It runs the scenario shipped in
``dcnsim/scenarios/demo.toml`` once per protocol, into ``OUT/<protocol>``, then writes the
comparison: ``OUT/flows.csv`` (both runs, with a ``protocol`` column), ``OUT/summary.json``
(``{"tcp": ..., "dctcp": ...}``) and ``OUT/fct_by_size.png``.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

import pandas as pd

from . import api, plots
from .results import Results

#: The protocols compared, in the order they run and appear in tables and plots.
PROTOCOLS = ("tcp", "dctcp")

TITLE = "TCP NewReno vs DCTCP, k=4 fat-tree, web-search load 0.6: FCT by flow size"


def run_demo(
    out: str | Path, flows: int | None = None, quiet: bool = False, log=None,
    max_memory: api.MaxMemory = None,
) -> dict[str, Results]:
    """Runs the demo into ``out`` and writes the comparison files; returns the Results by
    protocol. ``flows`` overrides ``workload.flows`` (for a quicker run); ``log`` is called
    with a line of text before each run; ``max_memory`` is each run's memory budget (they run
    one after the other), as :func:`dcnsim.run` takes it."""
    out = Path(out)
    common = [] if flows is None else [f"workload.flows={int(flows)}"]
    results: dict[str, Results] = {}
    with ExitStack() as stack:
        scenario = stack.enter_context(
            resources.as_file(resources.files("dcnsim") / "scenarios" / "demo.toml")
        )
        for proto in PROTOCOLS:
            if log is not None:
                log(f"running {proto} -> {out / proto}")
            results[proto] = api.run(
                scenario,
                overrides=common + [f"transport.protocol={proto}"],
                out=out / proto,
                quiet=quiet,
                max_memory=max_memory,
            )
    write_comparison(results, out)
    return results


def write_comparison(results: dict[str, Results], out: str | Path) -> None:
    """Writes flows.csv, summary.json and fct_by_size.png for runs labelled by protocol."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    frames = {p: r.flows for p, r in results.items()}
    combined = pd.concat(
        [f.assign(protocol=p)[["protocol", *f.columns]] for p, f in frames.items()],
        ignore_index=True,
    )
    combined.to_csv(out / "flows.csv", index=False)
    (out / "summary.json").write_text(
        json.dumps({p: r.summary for p, r in results.items()}, indent=2) + "\n",
        encoding="utf-8",
    )
    plots.fct_by_size(frames, out / "fct_by_size.png", title=TITLE)
