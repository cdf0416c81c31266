"""Plain-text tables of summaries, for the terminal. Call after a run; nothing here computes
statistics, it only formats what the core's summary already holds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def fmt_time(seconds: Any) -> str:
    """A duration with a unit that keeps 3 significant digits readable: µs, ms or s."""
    if not _is_number(seconds):
        return "-"
    s = float(seconds)
    if s < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if s < 1.0:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def fmt_num(value: Any, digits: int = 3) -> str:
    """A plain number with ``digits`` significant digits, or "-" when absent."""
    if not _is_number(value):
        return "-"
    return f"{float(value):.{digits}g}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _grid(rows: list[list[str]], right_from: int = 1) -> str:
    """Aligns rows of cells; columns from ``right_from`` on are right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [
            c.ljust(w) if i < right_from else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def summary_table(summary: Mapping[str, Any]) -> str:
    """The short report ``dcnsim run`` prints: counts, FCT, slowdown, size classes, cost."""
    flows = summary.get("flows", {})
    fct = summary.get("fct_s", {})
    sd = summary.get("slowdown", {})
    run = summary.get("run", {})
    head = " / ".join(
        str(summary[k]) for k in ("name", "protocol", "lb", "topology") if summary.get(k)
    )
    lines = [f"{head}  (seed {summary.get('seed', '-')})"]
    # Flows that never started (stop_s came first) are counted apart from unfinished ones.
    apart = [f"{flows[k]} {word}" for k, word in (("unfinished", "unfinished"),
                                                  ("unstarted", "not started")) if flows.get(k)]
    lines.append(
        f"flows      {flows.get('finished', '-')} / {flows.get('total', '-')} finished"
        + (f"  ({', '.join(apart)})" if apart else "")
    )
    lines.append(
        f"FCT        mean {fmt_time(fct.get('mean'))}   p50 {fmt_time(fct.get('p50'))}"
        f"   p99 {fmt_time(fct.get('p99'))}   p99.9 {fmt_time(fct.get('p999'))}"
    )
    lines.append(
        f"slowdown   mean {fmt_num(sd.get('mean'))}   p50 {fmt_num(sd.get('p50'))}"
        f"   p99 {fmt_num(sd.get('p99'))}   p99.9 {fmt_num(sd.get('p999'))}"
    )
    dl = summary.get("deadlines", {})
    if dl.get("with_deadline"):
        lines.append(
            f"deadlines  {dl.get('met', '-')} / {dl['with_deadline']} met"
            f"   miss rate {fmt_num(100 * dl.get('miss_rate', float('nan')))} %"
            + (f"   ({dl['terminated']} terminated)" if dl.get("terminated") else "")
        )
    lines.append(
        f"run        wall {fmt_time(run.get('wall_s'))}   {run.get('events', '-')} events"
        f"   sim time {fmt_time(run.get('sim_time_s'))}"
    )
    by_size = summary.get("by_size") or []
    if by_size:
        rows = [["size class", "flows", "mean FCT", "p99 FCT", "mean slowdown", "p99 slowdown"]]
        for c in by_size:
            rows.append(
                [
                    str(c.get("class", "?")),
                    str(c.get("count", "-")),
                    fmt_time(c.get("fct_mean_s")),
                    fmt_time(c.get("fct_p99_s")),
                    fmt_num(c.get("slowdown_mean")),
                    fmt_num(c.get("slowdown_p99")),
                ]
            )
        lines += ["", _grid(rows)]
    return "\n".join(lines)


def comparison_table(summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """Side-by-side table of several runs (one per label, e.g. protocol): mean and p99 FCT and
    mean slowdown, per size class and over all flows. The size classes of the first run are
    the rows; ``dcnsim demo`` prints this."""
    labels = list(summaries)
    first = summaries[labels[0]]
    classes = [c.get("class") for c in first.get("by_size") or []]

    def by_class(s: Mapping[str, Any], name: str) -> Mapping[str, Any]:
        for c in s.get("by_size") or []:
            if c.get("class") == name:
                return c
        return {}

    groups = [("mean FCT", "fct_mean_s", "mean", fmt_time),
              ("p99 FCT", "fct_p99_s", "p99", fmt_time),
              ("mean slowdown", "slowdown_mean", "mean", fmt_num)]
    rows = [["", ""] + [g[0] if i == 0 else "" for g in groups for i in range(len(labels))]]
    rows.append(["size class", "flows"] + [lab for _ in groups for lab in labels])
    for name in classes:
        row = [str(name), str(by_class(first, name).get("count", "-"))]
        for _, key, _, fmt in groups:
            row += [fmt(by_class(summaries[lab], name).get(key)) for lab in labels]
        rows.append(row)
    total = [ "all", str(first.get("flows", {}).get("finished", "-"))]
    for title, _, overall, fmt in groups:
        src = "fct_s" if "FCT" in title else "slowdown"
        total += [fmt(summaries[lab].get(src, {}).get(overall)) for lab in labels]
    rows.append(total)
    return _grid(rows, right_from=1)
