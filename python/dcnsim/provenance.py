"""Where a result comes from: the code that made it and when, so that it can be rerun.

``dcnsim reproduce`` writes this as ``OUT/run.json`` beside ``comparison.csv``; the paper
pages (``docs/papers/``) cite a committed run by it.
"""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from pathlib import Path

#: The package's source folder: a git checkout when dcnsim is installed for development
#: (``make build``), an installed wheel otherwise.
_SOURCE = Path(__file__).resolve().parent


def utc_now() -> str:
    """The current time, UTC, to the second, ISO 8601."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def code_version() -> dict:
    """The dcnsim version and, when the package runs from a git checkout, its commit and
    whether the checkout had uncommitted changes (``commit`` is None outside a checkout)."""
    from . import __version__

    commit, dirty = None, None
    try:
        commit = _git("rev-parse", "HEAD")
        # Untracked files (results, a venv) are not the code; modified tracked files are.
        dirty = _git("status", "--porcelain", "--untracked-files=no") != ""
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"dcnsim": __version__, "commit": commit, "uncommitted_changes": dirty,
            "python": platform.python_version()}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=_SOURCE, capture_output=True, text=True,
                          check=True, timeout=10).stdout.strip()
