"""The HTML report of ``dcnsim reproduce``: one self-contained file, readable offline.

Per figure: what it shows, our plot (embedded as base64 PNG), and a table of the paper's
numbers against ours with the ratio, the gap and the verdict of each claim; at the top a count
of verdicts, the tolerance rule, and the paper's figures not implemented yet.

It renders what :mod:`dcnsim.experiments.runner` hands it (the default tolerance included) and
imports nothing of :mod:`dcnsim.experiments`: the runner imports this module, not the other way
round (issue 38).
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path
from typing import Any

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td.text { text-align: left; }
td.source { text-align: left; font-size: 0.85em; color: #555; max-width: 380px; }
.reproduced { background: #e3f4e3; } .differs { background: #fbe3e0; }
.not-measured { background: #f0f0f0; color: #777; }
img { max-width: 100%; border: 1px solid #eee; }
.note { color: #555; font-size: 0.9em; }
"""


def _num(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{float(v):.4g}"


def _claims_table(table) -> str:
    if table.empty:
        return "<p class='note'>The paper reports no number for this figure in our data table.</p>"
    head = ("<tr><th>metric</th><th>x</th><th>protocol</th><th>paper</th><th>ours</th>"
            "<th>ours / paper</th><th>gap</th><th>tolerance</th><th>verdict</th>"
            "<th>paper says</th></tr>")
    rows = []
    for r in table.itertuples():
        cls = r.verdict.replace(" ", "-")
        rows.append(
            f"<tr class='{cls}'><td class='text'>{html.escape(r.metric)}</td>"
            f"<td class='text'>{html.escape(str(r.x))}</td>"
            f"<td class='text'>{html.escape(r.protocol)}</td><td>{_num(r.paper)}</td>"
            f"<td>{_num(r.ours)}</td><td>{_num(r.ratio)}</td><td>{_num(r.gap)}</td>"
            f"<td>{r.tolerance:g}</td><td class='text'>{r.verdict}"
            + (f"<br><span class='note'>{html.escape(r.note)}</span>" if r.note else "")
            + "</td>"
            f"<td class='source'>{html.escape(r.source)}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _image(path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"<img alt='{html.escape(Path(path).name)}' src='data:image/png;base64,{data}'>"


def _provenance_line(p: dict) -> str:
    code = f"dcnsim {p['dcnsim']}"
    if p.get("commit"):
        code += f", commit {p['commit'][:12]}"
        if p.get("uncommitted_changes"):
            code += " with uncommitted changes"
    return f"Run {p['started']} to {p['ended']} (UTC); {code}; details in run.json."


def write_html(rep, path: str | Path) -> Path:
    """Writes the report of a :class:`~dcnsim.experiments.runner.Reproduction`."""
    paper = rep.paper
    counts = {v: 0 for v in ("reproduced", "differs", "not measured")}
    for f in rep.figures:
        for v in f.comparison["verdict"]:
            counts[v] += 1
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>dcnsim reproduce {html.escape(paper.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>dcnsim reproduce {html.escape(paper.name)}{' (quick)' if rep.quick else ''}</h1>",
        f"<p>{html.escape(paper.citation)}</p>",
    ]
    if paper.note:
        parts.append(f"<p class='note'>{html.escape(paper.note)}</p>")
    if rep.provenance:
        parts.append(f"<p class='note'>{html.escape(_provenance_line(rep.provenance))}</p>")
    parts.append(
        f"<p><b>{counts['reproduced']}</b> claims reproduced, <b>{counts['differs']}</b> differ, "
        f"<b>{counts['not measured']}</b> not measured.</p>"
        "<p class='note'>Rule: a claim is reproduced when |ours − paper| ≤ tolerance × |paper| "
        "(for a paper value of 0, |ours| ≤ tolerance); the tolerance is given per claim, "
        f"{rep.default_tolerance:g} when none is. “Not measured”: this run has no number for the "
        + ("claim, mostly because quick mode did not run its point (a load, a size, a network, "
           "a seed); the full run measures them.</p>" if rep.quick else
           "claim: our figure does not produce it.</p>")
    )
    if rep.quick:
        parts.append("<p class='note'>Quick mode: fewer flows, loads and seeds than the paper; "
                     "numbers are indicative only.</p>")
    for f in rep.figures:
        fig = f.figure
        parts.append(f"<h2>{html.escape(fig.id)}: {html.escape(fig.title)}</h2>")
        parts.append(f"<p>{html.escape(fig.shows)}</p>")
        if f.points:
            parts.append(f"<p class='note'>{f.points} simulation points; result folders in "
                         f"{html.escape(str(Path(rep.out) / fig.id))}.</p>")
        else:
            parts.append("<p class='note'>Computed exactly, without simulation.</p>")
        if f.failures:
            items = "".join(f"<li>{html.escape(x)}</li>" for x in f.failures)
            parts.append(f"<p class='differs'>Failed points (left out):</p><ul>{items}</ul>")
        parts.append(_image(f.png))
        parts.append(_claims_table(f.comparison))
    if paper.pending:
        parts.append("<h2>Not yet implemented</h2><table><tr><th>figure</th><th>shows</th>"
                     "<th>needs</th></tr>")
        for p in paper.pending:
            parts.append(f"<tr><td class='text'>{html.escape(p.id)}</td><td class='text'>"
                         f"{html.escape(p.shows)}</td><td class='text'>{html.escape(p.needs)}"
                         "</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>\n")
    path = Path(path)
    path.write_text("".join(parts), encoding="utf-8")
    return path
