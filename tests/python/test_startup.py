"""The quick commands stay quick: ``list``, ``validate``, ``run`` and ``--help`` must not import
pandas, numpy, matplotlib, tqdm or Dask, which cost up to a second before anything happens.

This checks which modules a fresh interpreter has loaded, not how long it took: a timed test
would fail on a busy machine. bench/cli_startup.py measures the time (bench/RESULTS.md).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, real_core_available

HEAVY = ("pandas", "numpy", "matplotlib", "tqdm", "dask", "distributed")

# Runs the CLI in this interpreter, then prints which heavy modules it loaded.
SCRIPT = f"""
import sys
from dcnsim.cli import cli
try:
    cli(sys.argv[1:], prog_name="dcnsim")
except SystemExit as e:
    code = e.code
print("loaded:", *sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)
sys.exit(code)
"""

needs_core = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)


def loaded_after(*args) -> list[str]:
    """The heavy modules loaded by a fresh ``dcnsim ARGS``; fails if the command fails."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, args)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stderr.strip().splitlines()[-1].split()[1:]


def test_help_and_import_dcnsim_load_nothing_heavy():
    assert loaded_after("--help") == []
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-c", f"import sys, dcnsim; "
                        f"print(*[m for m in {HEAVY!r} if m in sys.modules])"],
                       capture_output=True, text=True, env=env, check=True)
    assert p.stdout.split() == []


@needs_core
def test_list_and_validate_load_nothing_heavy(star_file):
    assert loaded_after("list") == []
    assert loaded_after("validate", star_file, "--set", "transport.protocol=tcp") == []


@needs_core
def test_run_loads_nothing_heavy(star_file, tmp_path):
    assert loaded_after("run", star_file, "--out", tmp_path / "r") == []
    assert (tmp_path / "r" / "flows.csv").is_file()
