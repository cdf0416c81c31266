"""The paper pages (docs/papers/) against the committed runs they are written from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dcnsim.cli import cli
from dcnsim.experiments import paper_pages
from dcnsim.experiments.paper_pages import PageError

PAGES = Path(__file__).resolve().parents[2] / "docs" / "papers"


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    """A copy of docs/papers to break."""
    copy = tmp_path / "papers"
    shutil.copytree(PAGES, copy)
    return copy


def test_committed_pages_are_up_to_date():
    """Regenerating the claims tables from the committed runs gives the committed pages."""
    assert paper_pages.stale(PAGES) == [], (
        "a paper page's generated block is out of date: run `dcnsim docs papers`")


def test_every_paper_has_a_page_and_a_run():
    for paper in paper_pages.PAPERS:
        run = paper_pages.read_run(PAGES / "data", paper)
        assert run.rows and run.meta["parts"]
        figures = {r["figure"] for r in run.rows}
        listed = {f for part in run.meta["parts"] for f in part["figures"]}
        assert figures == listed, paper


def test_a_changed_table_is_caught_and_rewritten(pages: Path):
    page = pages / "pace.md"
    page.write_text(page.read_text().replace("| reproduced |", "| differs |", 1))
    assert paper_pages.stale(pages) == [page]
    assert paper_pages.write(pages) == [page]
    assert paper_pages.stale(pages) == []


def test_prose_outside_the_block_is_kept(pages: Path):
    page = pages / "core.md"
    page.write_text(page.read_text() + "\nA last line of prose.\n")
    assert paper_pages.stale(pages) == []
    assert page.read_text().endswith("A last line of prose.\n")


def test_the_check_command_fails_on_a_stale_page(pages: Path):
    page = pages / "tr.md"
    page.write_text(page.read_text().replace("| reproduced |", "| differs |", 1))
    result = CliRunner().invoke(cli, ["docs", "papers", "--dir", str(pages), "--check"])
    assert result.exit_code == 1
    assert "out of date" in result.output and "tr.md" in result.output
    result = CliRunner().invoke(cli, ["docs", "papers", "--dir", str(pages)])
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(cli, ["docs", "papers", "--dir", str(pages),
                                    "--check"]).exit_code == 0


def _rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, message", [
    ("figure,metric,x,protocol,paper,ours,", "figure,metric,x,protocol,paper,mine,",
     "missing column(s) ours; unknown column(s) mine"),
    (",reproduced,", ",kind of,", "verdict 'kind of'"),
    (",0.0,0.0,", ",0.0,zero,", "column 'ours' is 'zero', not a number"),
])
def test_a_malformed_run_fails_with_a_clear_message(pages: Path, old, new, message):
    _rewrite(pages / "data" / "core.csv", old, new)
    with pytest.raises(PageError) as err:
        paper_pages.render(pages)
    assert message in str(err.value)
    assert "core.csv" in str(err.value)
    result = CliRunner().invoke(cli, ["docs", "papers", "--dir", str(pages)])
    assert result.exit_code != 0 and message in result.output


def test_a_short_row_names_its_line(pages: Path):
    path = pages / "data" / "mcp.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = "fig3-4,miss_query,1\n"
    path.write_text("".join(lines))
    with pytest.raises(PageError, match=r"mcp\.csv, line 4: 3 fields, expected 12"):
        paper_pages.render(pages)


def test_a_run_without_its_origin_fails(pages: Path):
    meta = pages / "data" / "pdq.run.json"
    data = json.loads(meta.read_text())
    del data["parts"][0]["commit"]
    meta.write_text(json.dumps(data))
    with pytest.raises(PageError, match=r"pdq\.run\.json: parts\[0\] has no 'commit'"):
        paper_pages.render(pages)


def test_a_page_without_its_markers_fails(pages: Path):
    page = pages / "mcp.md"
    page.write_text(page.read_text().replace(paper_pages.CLAIMS_END, ""))
    with pytest.raises(PageError, match="needs exactly one"):
        paper_pages.render(pages)
