"""Point functions for sweep tests; they live in a module so spawned workers can import them."""

from __future__ import annotations

import os

from dcnsim.sweep import run_point


def die_on_load_06(point, out: str) -> dict:
    """Runs the point, except the one with workload.load = 0.6: its process dies at once, as
    after a crash or an out-of-memory kill."""
    if point.values.get("workload.load") == 0.6:
        os._exit(3)
    return run_point(point, out)
