"""No output column or summary field can go undocumented: a small run with every optional
file turned on, and each column of its CSV files and each field of its summary.json looked up
in docs/outputs.md.

The convention of docs/outputs.md: each file is a ``## `` section named after it
(``## flows.csv``); a CSV column is a table row of its own that starts with the column in
backticks (``| `fct_s` | s | ... |``); a summary field is named in backticks by its path,
``a.b`` for key ``b`` of object ``a`` and ``by_size[].class`` for a key of each element of a
list (``| `fct_s.mean`, `fct_s.p50` | ... |``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import dcnsim
from conftest import ROOT, real_core_available

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

OUTPUTS = ROOT / "docs" / "outputs.md"
CSV_FILES = ("flows.csv", "ports.csv", "series.csv", "paths.csv", "trace.csv")

# Every optional file on; flows with deadlines, a Poisson load (so summary.json's `load` has
# its window and most loaded link).
SCENARIO = {
    "seed": 3,
    "topology": {"kind": "star", "hosts": 4},
    "transport": {"protocol": "dctcp"},
    "workload": {"kind": "poisson", "sizes": "websearch", "load": 0.3, "flows": 20,
                 "deadline": {"dist": "fixed", "ms": 5}},
    "output": {"series_interval_us": 100, "paths": True, "trace_flow": [0]},
}


def sections(text: str) -> dict[str, list[str]]:
    """The page's lines by the ``## `` heading above them."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
        out.setdefault(current, []).append(line)
    return out


def field_paths(value, prefix: str = ""):
    """The paths of a JSON value's fields: ``a.b``, ``by_size[].class``; a list of scalars is
    one field."""
    if isinstance(value, dict):
        for key, v in value.items():
            yield from field_paths(v, f"{prefix}.{key}" if prefix else key)
    elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
        for v in value:
            yield from field_paths(v, f"{prefix}[]")
    else:
        yield prefix


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "run"
    dcnsim.run(SCENARIO, out=out)
    return out


@pytest.mark.parametrize("name", CSV_FILES)
def test_every_column_is_a_row_of_its_section(result_dir, name):
    with open(result_dir / name, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header, name
    lines = sections(OUTPUTS.read_text(encoding="utf-8")).get(name)
    assert lines is not None, f"docs/outputs.md has no section `## {name}`"
    missing = [c for c in header
               if not any(line.lstrip().startswith(f"| `{c}`") for line in lines)]
    assert not missing, f"docs/outputs.md, `## {name}`: no row for the columns {missing}"


def test_every_summary_field_is_named_in_its_section(result_dir):
    summary = json.loads((result_dir / "summary.json").read_text(encoding="utf-8"))
    paths = sorted(set(field_paths(summary)))
    assert "by_size[].fct_mean_s" in paths and "load.most_loaded.link" in paths, paths
    lines = sections(OUTPUTS.read_text(encoding="utf-8")).get("summary.json")
    assert lines is not None, "docs/outputs.md has no section `## summary.json`"
    text = "\n".join(lines)
    missing = [p for p in paths if f"`{p}`" not in text]
    assert not missing, f"docs/outputs.md, `## summary.json`: not named: {missing}"


def test_field_paths_and_sections():
    assert list(field_paths({"a": {"b": 1}, "c": [{"d": 1}, {"d": 2}], "e": [1, 2]})) == [
        "a.b", "c[].d", "c[].d", "e"]
    s = sections("# t\n## x.csv\n| `a` |\n## y.csv\n| `b` |\n")
    assert s["x.csv"] == ["## x.csv", "| `a` |"]
