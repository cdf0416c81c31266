#!/usr/bin/env python3
"""The speed users see is the CLI's: `dcnsim run` on the dumbbell beside the Rust-only
`dcnsim-core` on the same scenario, and the quick commands `list` and `validate`.

    python3 bench/cli_startup.py [--runs 10] [--dcnsim PATH] [--core PATH]

Runs every command `--runs` times, round-robin (a change in the machine's load then hits all
of them alike), with stdout and stderr to /dev/null, and prints the median, min and max wall
time of each as a Markdown table (bench/RESULTS.md, "CLI start-up"). Needs `make build` (the
`dcnsim` command in .venv) and `cargo build --release -p dcnsim` (target/release/dcnsim-core).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = ROOT / "bench" / "scenarios" / "dumbbell.toml"


def measure(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU (user + system) is the steadier on a shared machine."""
    cpu0 = _children_cpu()
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, _children_cpu() - cpu0


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="runs of each command (default 10)")
    ap.add_argument("--dcnsim", default=str(ROOT / ".venv" / "bin" / "dcnsim"),
                    help="the dcnsim command (default: .venv/bin/dcnsim)")
    ap.add_argument("--core", default=str(ROOT / "target" / "release" / "dcnsim-core"),
                    help="the Rust runner (default: target/release/dcnsim-core)")
    args = ap.parse_args()
    dcnsim = args.dcnsim if Path(args.dcnsim).exists() else shutil.which("dcnsim")
    if dcnsim is None or not Path(args.core).exists():
        sys.exit("needs the dcnsim command (`make build`) and dcnsim-core "
                 "(`cargo build --release -p dcnsim`)")
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "dcnsim-core dumbbell.toml --out": [args.core, str(DUMBBELL), "--out", f"{tmp}/core"],
            "dcnsim run dumbbell.toml --out": [dcnsim, "run", str(DUMBBELL), "--out", f"{tmp}/cli"],
            "dcnsim validate dumbbell.toml": [dcnsim, "validate", str(DUMBBELL)],
            "dcnsim list": [dcnsim, "list"],
            "dcnsim --help": [dcnsim, "--help"],
        }
        for cmd in commands.values():  # warm-up: file cache, .pyc files
            measure(cmd)
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                w, c = measure(cmd)
                wall[name].append(w)
                cpu[name].append(c)

    med = statistics.median
    print(f"{args.runs} runs each, seconds\n")
    print("| command | wall median | wall min–max | CPU median |")
    print("|---|---|---|---|")
    for name in commands:
        w = wall[name]
        print(f"| `{name}` | {med(w):.3f} | {min(w):.3f}–{max(w):.3f} | {med(cpu[name]):.3f} |")
    run, core = "dcnsim run dumbbell.toml --out", "dcnsim-core dumbbell.toml --out"
    print(f"\n`dcnsim run` minus `dcnsim-core` (medians): {med(wall[run]) - med(wall[core]):.3f} s "
          f"wall, {med(cpu[run]) - med(cpu[core]):.3f} s CPU")


if __name__ == "__main__":
    main()
