"""Fixtures of the browser test: headless Chromium, the screenshots' folder, the site built
from docs/ and a report.html of `dcnsim reproduce`.

Chromium and chromedriver come from the distribution (`make test-browser` installs them on
Debian/Ubuntu when run as root). Without them the tests skip with a message, except under CI
(the CI variable set), where they fail: CI never passes without having looked at the pages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagecheck import start_chromium

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DCNSIM_SHOTS", ROOT / "site-shots"))


def _unavailable(why: str):
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI is set: the browser test does not skip)", pytrace=False)
    pytest.skip(why)


def _chromium() -> tuple[str, str] | None:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="session")
def browser():
    found = _chromium()
    if found is None:
        _unavailable("Chromium or chromedriver is missing: on Debian/Ubuntu, "
                     "apt-get install chromium chromium-driver (or run make test-browser as root)")
    driver = start_chromium(*found)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def shots() -> Path:
    """Where the screenshots go (site-shots/ or $DCNSIM_SHOTS), emptied first."""
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)
    return SHOTS


def pytest_terminal_summary(terminalreporter):
    if SHOTS.is_dir() and any(SHOTS.iterdir()):
        terminalreporter.write_line(f"browser test: screenshots in {SHOTS}")


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site, built strictly from this tree's docs/ and mkdocs.yml (not a stale site/)."""
    out = tmp_path_factory.mktemp("site")
    # not --quiet, which makes mkdocs 1.6 stop counting warnings (strict would pass anything)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                    "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)], check=True, cwd=ROOT,
                   env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return out


def _core_built() -> bool:
    try:
        from dcnsim import _core
    except ImportError:
        return False
    return not getattr(_core, "FAKE", False) and hasattr(_core, "run")


# The cheapest figure that makes a full report: MERP's Table 1 (SRPT and PS exact, MERP and
# pFabric packet by packet on a few flows), a few seconds.
REPORT_ARGS = ["merp", "--figure", "table1"]


@pytest.fixture(scope="session")
def report(tmp_path_factory) -> Path:
    """The folder of a `dcnsim reproduce` run, with its report.html."""
    if not _core_built():
        _unavailable("the compiled core is not built (make build)")
    out = tmp_path_factory.mktemp("reproduce")
    subprocess.run([sys.executable, "-m", "dcnsim", "reproduce", *REPORT_ARGS,
                    "--out", str(out), "-q"], check=True)
    return out
