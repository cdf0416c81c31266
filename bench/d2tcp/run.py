#!/usr/bin/env python3
"""Runs issue 32's D2TCP measurements and prints their tables (markdown): the issue's two
leaf-spine cases under each `d2tcp_late`, the OLDI fan-in sweep, and the small cases of
README.md. Results go under bench/out/d2tcp/ (a run directory that exists is reused).

    cargo build --release -p dcnsim
    python3 bench/d2tcp/run.py [--core target/release/dcnsim-core] [--only issue|fanin|small]
                               [--workers 2]

About 25 s for the issue cases, 4 min for the fan-in sweep and 1 s for the small cases on
two busy cores.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "bench", "out", "d2tcp")
SEEDS = (1, 2)


def run_all(core, jobs, workers):
    """jobs: (out dir, scenario, [--set values]); skips directories already written."""

    def one(job):
        out, scen, sets = job
        if os.path.exists(os.path.join(out, "summary.json")):
            return
        cmd = [core, scen, "--out", out]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"{' '.join(cmd)}\n{r.stderr}")

    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(one, jobs))


def flows(out):
    with open(os.path.join(out, "flows.csv")) as f:
        return list(csv.DictReader(f))


def miss_rate(out):
    dl = [f for f in flows(out) if f["deadline_s"]]
    return sum(f["met_deadline"] != "true" for f in dl) / len(dl)


def cell(vals):
    mean = 100 * sum(vals) / len(vals)
    return f"{mean:.1f} ({' / '.join(f'{100 * v:.1f}' for v in vals)})"


ISSUE_CASES = [("1: U[2,10] ms, load 0.7", 0.7, 2, 10), ("2: U[1,4] ms, load 0.8", 0.8, 1, 4)]
ISSUE_SCHEMES = [
    ("DCTCP", ['transport.protocol="dctcp"']),
    ('D2TCP "d_max" (before)', ['transport.d2tcp_late="d_max"']),
    ('D2TCP "dctcp"', ['transport.d2tcp_late="dctcp"']),
    ('D2TCP "d_min" (after, default)', []),
    ('D2TCP "close"', ['transport.d2tcp_late="close"']),
    ("DCTCP, abort at deadline", ['transport.protocol="dctcp"', "workload.abort_at_deadline=true"]),
    ("D2TCP, abort at deadline", ["workload.abort_at_deadline=true"]),
]


def issue(core, workers):
    scen = os.path.join(HERE, "issue32_leafspine.toml")
    jobs, table = [], {}
    for ci, (_, load, lo, hi) in enumerate(ISSUE_CASES):
        for si, (_, sets) in enumerate(ISSUE_SCHEMES):
            for seed in SEEDS:
                out = os.path.join(OUT, "issue", f"case{ci + 1}_scheme{si}_seed{seed}")
                base = [f"workload.load={load}", f"seed={seed}",
                        f'workload.deadline={{dist="uniform",min_ms={lo},max_ms={hi}}}']
                jobs.append((out, scen, base + sets))
                table.setdefault((ci, si), []).append(out)
    run_all(core, jobs, workers)
    print("### Issue 32's cases: deadline miss rate, % (mean of seeds 1 / 2)\n")
    print("| scheme | " + " | ".join(c[0] for c in ISSUE_CASES) + " |")
    print("|---|" + "---|" * len(ISSUE_CASES))
    for si, (name, _) in enumerate(ISSUE_SCHEMES):
        print(f"| {name} | "
              + " | ".join(cell([miss_rate(o) for o in table[(ci, si)]])
                           for ci in range(len(ISSUE_CASES))) + " |")
    print()


FANIN = (10, 20, 40)
LOADS = (0.3, 0.5)
FANIN_SCHEMES = [
    ("DCTCP", ['transport.protocol="dctcp"']),
    ("D2TCP", []),
    ('D2TCP "d_max"', ['transport.d2tcp_late="d_max"']),
]


def fanin(core, workers):
    scen = os.path.join(HERE, "oldi_fanin.toml")
    gen = os.path.join(HERE, "make_oldi_flows.py")
    os.makedirs(os.path.join(OUT, "fanin"), exist_ok=True)
    jobs, table = [], {}
    for mode in ("query", "flow"):
        for alpha in ("1.0", "0.0"):
            for fan in FANIN:
                for load in LOADS:
                    for seed in SEEDS:
                        csv_path = os.path.join(OUT, "fanin", f"flows_{mode}_{fan}_{load}_{seed}.csv")
                        if not os.path.exists(csv_path):
                            subprocess.run(
                                [sys.executable, gen, "--hosts", "48", "--host-gbps", "10",
                                 "--parents", "4", "--fanin", str(fan), "--resp-kb", "200",
                                 "--oldi-load", str(load), "--bg-load", "0.1",
                                 "--slack-min", "1.2", "--slack-max", "4",
                                 "--queries", str(2000 // fan), "--seed", str(seed),
                                 "--out", csv_path]
                                + (["--per-flow-deadline"] if mode == "flow" else []),
                                check=True)
                        for si, (_, sets) in enumerate(FANIN_SCHEMES):
                            out = os.path.join(
                                OUT, "fanin", f"{mode}_a{alpha}_{fan}_{load}_{si}_{seed}")
                            jobs.append((out, scen, [f'workload.file="{csv_path}"',
                                                     f"transport.dctcp_init_alpha={alpha}"]
                                         + sets))
                            table.setdefault((mode, alpha, fan, load, si), []).append(out)
    run_all(core, jobs, workers)
    for mode, what in (("query", "one deadline per query (every response of a burst alike)"),
                       ("flow", "one deadline per response")):
        for alpha in ("1.0", "0.0"):
            print(f"### Fan-in, {what}, initial α = {alpha}: miss rate, % (seeds 1 / 2)\n")
            print("| fan-in | load | " + " | ".join(s[0] for s in FANIN_SCHEMES) + " |")
            print("|---|---|" + "---|" * len(FANIN_SCHEMES))
            for fan in FANIN:
                for load in LOADS:
                    print(f"| {fan} | {load} | " + " | ".join(
                        cell([miss_rate(o) for o in table[(mode, alpha, fan, load, si)]])
                        for si in range(len(FANIN_SCHEMES))) + " |")
            print()


def small(core, workers):
    """The small cases: two 1 MB flows with different deadlines; one burst of 20 alike; two
    bursts of 10 with different deadlines. A 10 Gb/s star with 400-packet buffers."""
    d = os.path.join(OUT, "small")
    os.makedirs(d, exist_ok=True)
    scen = os.path.join(d, "star.toml")
    with open(scen, "w") as f:
        f.write('[topology]\nkind = "star"\nhosts = 21\nlink_gbps = 10\nlink_delay_us = 1\n'
                'buffer_pkts = 400\n[transport]\nprotocol = "d2tcp"\n'
                '[workload]\nkind = "flows"\nfile = "two.csv"\n')
    cases = {
        "two": ["1,0,1000000,0,0.00158", "2,0,1000000,0,0.010"],
        "burst": [f"{i},0,200000,0,0.0032" for i in range(1, 21)],
        "bursts": [f"{i},0,100000,0,0.0016" for i in range(1, 11)]
        + [f"{i},0,200000,0,0.010" for i in range(11, 21)],
    }
    jobs = []
    for name, rows in cases.items():
        with open(os.path.join(d, f"{name}.csv"), "w") as f:
            f.write("src,dst,size_bytes,start_s,deadline_s\n" + "\n".join(rows) + "\n")
        for proto in ("dctcp", "d2tcp"):
            jobs.append((os.path.join(d, f"{name}_{proto}"), scen,
                         [f'workload.file="{name}.csv"', f'transport.protocol="{proto}"']))
    run_all(core, jobs, workers)
    print("### Small cases (10 Gb/s star): completion times, ms\n")
    print("| case | DCTCP | D2TCP |")
    print("|---|---|---|")
    for name, label in (("two", "A (1 MB, due 1.58 ms) / B (1 MB, due 10 ms)"),
                        ("burst", "20 × 200 KB, all due 3.2 ms: first / last"),
                        ("bursts", "10 × 100 KB due 1.6 ms: last; missed of 10")):
        row = []
        for proto in ("dctcp", "d2tcp"):
            fl = flows(os.path.join(d, f"{name}_{proto}"))
            fct = [1e3 * float(x["fct_s"]) for x in fl]
            if name == "two":
                row.append(f"{fct[0]:.3f} / {fct[1]:.3f}")
            elif name == "burst":
                row.append(f"{min(fct):.3f} / {max(fct):.3f}, missed {sum(x['met_deadline'] != 'true' for x in fl)}")
            else:
                a = [x for x in fl if x["size_bytes"] == "100000"]
                row.append(f"{max(1e3 * float(x['fct_s']) for x in a):.3f}; "
                           f"{sum(x['met_deadline'] != 'true' for x in a)}")
        print(f"| {label} | {row[0]} | {row[1]} |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--core", default=os.path.join(ROOT, "target", "release", "dcnsim-core"))
    ap.add_argument("--only", choices=("issue", "fanin", "small"))
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    if not os.path.exists(a.core):
        sys.exit(f"{a.core}: not found (cargo build --release -p dcnsim, or --core)")
    for name, f in (("small", small), ("issue", issue), ("fanin", fanin)):
        if a.only in (None, name):
            f(a.core, a.workers)


if __name__ == "__main__":
    main()
