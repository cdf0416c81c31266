"""Fixtures: a fake compiled core, scenario files, and whether the real core is built."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
try:
    import dcnsim  # noqa: F401  (installed with `maturin develop` or `pip install .`)
except ImportError:  # not installed: test the source tree (with the fake core only)
    sys.path.insert(0, str(ROOT / "python"))

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fake_core as _fake  # noqa: E402

STAR = """\
name = "tiny"
seed = 7

[topology]
kind = "star"
hosts = 4

[transport]
protocol = "dctcp"

[workload]
kind = "poisson"
sizes = "websearch"
load = 0.3
flows = 30
"""


def real_core_available() -> bool:
    """True when the compiled extension is built and importable (not the fake)."""
    try:
        core = importlib.import_module("dcnsim._core")
    except ImportError:
        return False
    return not getattr(core, "FAKE", False) and hasattr(core, "run")


@pytest.fixture
def fake_core(monkeypatch):
    """Replaces dcnsim._core by a fresh fake for one test; returns the fake module."""
    import dcnsim

    fake = _fake.make()
    monkeypatch.setitem(sys.modules, "dcnsim._core", fake)
    monkeypatch.setattr(dcnsim, "_core", fake, raising=False)
    return fake


@pytest.fixture
def star_file(tmp_path) -> Path:
    """A tiny star scenario as a TOML file."""
    path = tmp_path / "star.toml"
    path.write_text(STAR)
    return path


@pytest.fixture
def demo_file() -> Path:
    return ROOT / "examples" / "demo.toml"
