#!/usr/bin/env python3
"""dcnsim against ns-3 on the two benchmark scenarios.

Runs, each as its own child process, one at a time:
  (a) ns-3 dumbbell            bench/out/bin/ns3-dumbbell
  (b) dcnsim dumbbell          bench/scenarios/dumbbell.toml
  (c) dcnsim fat-tree          bench/scenarios/fattree.toml; its flow list -> bench/out/fattree_flows.csv
  (d) ns-3 fat-tree            bench/out/bin/ns3-fattree on that same flow list
and measures each child's wall time, CPU time and peak RSS (os.wait4 rusage of that child), then
reads the simulators' own outputs (summary.json, flows.csv) and writes bench/out/compare.md
(printed too) and bench/out/compare.json.

    python3 bench/compare.py                    # everything
    python3 bench/compare.py --skip-ns3         # reuse bench/out/ns3/* from an earlier run
    python3 bench/compare.py --only fattree     # one scenario
    python3 bench/compare.py --only fattree_k8  # the k = 8 fat-tree (10/40 Gb/s, 0.1 s simulated;
                                                # not part of the default set: ns-3 needs ~10 min)
    python3 bench/compare.py --only fattree_k8 --k8-stop-s 0.01   # both cut to 0.01 s
    python3 bench/compare.py --skip-dcnsim      # ns-3 only (dcnsim columns "pending")
    python3 bench/compare.py --ns3-patches      # ns-3's fat-tree with the two RFC patches of
                                                # bench/ns3/rfc_patches.h (--renoSackFix, --cwrFix)

dcnsim command: target/release/dcnsim-core if built, else `dcnsim` on PATH (`dcnsim run`).
Without dcnsim flows, the ns-3 fat-tree runs on --flows FILE, or on a list made by
make_flows.py (2000 web-search flows, 60 % load, seed 1); the report says which.
"""
import argparse
import csv
import datetime
import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
OUT = os.environ.get("DCNSIM_BENCH_OUT", os.path.join(BENCH, "out"))  # override: for tests
NS3_BIN = os.path.join(OUT, "bin")
SCEN = os.path.join(BENCH, "scenarios")
FLOWS_CSV = os.path.join(OUT, "fattree_flows.csv")
FLOWS_K8_CSV = os.path.join(OUT, "fattree_k8_flows.csv")
#: ns-3 twin of bench/scenarios/fattree_k8.toml: 10 Gb/s host links (K = 65), 40 Gb/s fabric
#: (K = 260, dcnsim's DCTCP default at 40 Gb/s), 400-packet buffers.
NS3_K8_ARGS = ["--k=8", "--linkGbps=10", "--ecnK=65", "--fabricGbps=40", "--fabricEcnK=260",
               "--bufferPkts=400"]

SIZE_CLASSES = [  # decimal units, as in shared/workloads/README.md
    ("< 100 KB", lambda s: s < 100_000),
    ("100 KB – 1 MB", lambda s: 100_000 <= s <= 1_000_000),
    ("> 1 MB", lambda s: s > 1_000_000),
    ("all", lambda s: True),
]


# ----------------------------------------------------------------------------- running

def run_measured(cmd, run_dir, env=None):
    """Runs cmd as a child with stdout/stderr to run_dir; returns wall, CPU and peak RSS of
    that child alone (os.wait4), and writes them to run_dir/run.json."""
    os.makedirs(run_dir, exist_ok=True)
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    with open(os.path.join(run_dir, "stdout.txt"), "w") as so, \
            open(os.path.join(run_dir, "stderr.txt"), "w") as se:
        # wait4's ru_maxrss of a child forked from this Python process also counts the pages
        # it shared with Python before exec (~20 MiB); GNU time, when installed, measures the
        # program alone.
        # Beside run_dir, not in it: dcnsim replaces its output directory when it finishes,
        # which deleted GNU time's file (the report then fell back on wait4's figure).
        rss_file = os.path.normpath(run_dir) + ".maxrss_kib.txt"
        timed = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd if os.path.exists("/usr/bin/time") else cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(timed, stdout=so, stderr=se, env=env, cwd=REPO)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss_kib = ru.ru_maxrss
    if timed is not cmd and os.path.exists(rss_file):
        try:
            rss_kib = int(open(rss_file).read().split()[-1])
        except (ValueError, IndexError):
            pass
    m = {
        "cmd": cmd,
        "exit": proc.returncode,
        "wall_s": wall,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "peak_rss_mib": rss_kib / 1024.0,  # Linux: KiB
        "when": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    with open(os.path.join(run_dir, "run.json"), "w") as f:
        json.dump(m, f, indent=2)
    if proc.returncode != 0:
        tail = open(os.path.join(run_dir, "stderr.txt")).read()[-2000:]
        raise RuntimeError(f"{cmd[0]} exited {proc.returncode}; stderr tail:\n{tail}")
    return m


def ensure_ns3_built():
    need = [os.path.join(NS3_BIN, n) for n in ("ns3-dumbbell", "ns3-fattree")]
    if not all(os.path.exists(p) for p in need):
        subprocess.run(["bash", os.path.join(BENCH, "setup_ns3.sh")], check=True)


def dcnsim_command(scenario, out_dir):
    core = os.path.join(REPO, "target", "release", "dcnsim-core")
    if os.path.exists(core):
        return [core, scenario, "--out", out_dir]
    cli = shutil.which("dcnsim")
    if cli:
        return [cli, "run", scenario, "--out", out_dir]
    return None


def load_json(path):
    with open(path) as f:
        return json.load(f)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def write_flow_list(rows, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("src,dst,size_bytes,start_s\n")
        for r in rows:
            f.write(f"{int(r['src'])},{int(r['dst'])},{int(float(r['size_bytes']))},{r['start_s']}\n")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- the four runs

def run_ns3_dumbbell():
    d = os.path.join(OUT, "ns3", "dumbbell")
    m = run_measured([os.path.join(NS3_BIN, "ns3-dumbbell"), f"--out={d}"], d)
    return m


def run_ns3_fattree(flow_file, patches, name="fattree", args=()):
    d = os.path.join(OUT, "ns3", name)
    digest = sha256(flow_file)
    extra = ["--renoSackFix=1", "--cwrFix=1"] if patches else []
    m = run_measured([os.path.join(NS3_BIN, "ns3-fattree"), f"--flows={flow_file}", f"--out={d}",
                      "--progressS=0.02", *args, *extra], d)
    m["flow_file_sha256"] = digest
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(m, f, indent=2)
    return m


def run_dcnsim(name, sets=()):
    d = os.path.join(OUT, "dcnsim", name)
    cmd = dcnsim_command(os.path.join(SCEN, f"{name}.toml"), d)
    if cmd is None:
        print(f"dcnsim not found (no target/release/dcnsim-core, no dcnsim on PATH): "
              f"{name} pending", file=sys.stderr)
        return None
    for kv in sets:
        cmd += ["--set", kv]
    return run_measured(cmd, d)


# ----------------------------------------------------------------------------- metrics

def dig(d, *paths):
    """First value found at one of the dotted paths in nested dict d, with the path used."""
    for p in paths:
        cur = d
        for k in p.split("."):
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            else:
                cur = None
                break
        if cur is not None:
            return cur, p
    return None, None


def link_tx(summary, sim):
    """Packets simulated = packet transmissions on links, the same definition on both sides."""
    if sim == "ns3":
        return summary["packets"]["link_tx"], "packets.link_tx"
    v, p = dig(summary, "packets.link_tx", "packets.link_transmissions", "packets.transmissions",
               "packets.hops")
    if v is not None:
        return v, p
    v, p = dig(summary, "packets.sent")
    return v, (p + " (NOT link transmissions: host sends only)") if p else None


def percentile(xs, q):
    """Nearest-rank percentile (the smallest x with at least q of the values <= x)."""
    if not xs:
        return None
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]


def fct_table(rows, ideal=None):
    """Per size class: count, finished, mean and p99 FCT (s), mean slowdown if ideal given."""
    out = {}
    for name, pred in SIZE_CLASSES:
        sel = [(i, r) for i, r in enumerate(rows) if pred(int(float(r["size_bytes"])))]
        fcts, slows = [], []
        for i, r in sel:
            v = r.get("fct_s", "")
            if v not in ("", None, "nan", "NaN") and float(v) >= 0:
                fcts.append(float(v))
                if ideal is not None and ideal[i]:
                    slows.append(float(v) / ideal[i])
        out[name] = {
            "flows": len(sel),
            "finished": len(fcts),
            "mean_fct_s": sum(fcts) / len(fcts) if fcts else None,
            "p99_fct_s": percentile(fcts, 0.99),
            "mean_slowdown": sum(slows) / len(slows) if slows else None,
        }
    return out


def same_flows(a, b):
    """Whether two flow tables hold the same flows in the same order."""
    if len(a) != len(b):
        return False, f"{len(a)} vs {len(b)} flows"
    for i, (x, y) in enumerate(zip(a, b)):
        if (int(x["src"]), int(x["dst"]), int(float(x["size_bytes"]))) != \
                (int(y["src"]), int(y["dst"]), int(float(y["size_bytes"]))) or \
                abs(float(x["start_s"]) - float(y["start_s"])) > 1e-9:
            return False, f"first difference at flow {i}"
    return True, ""


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and any(xs) else None


def collect_dumbbell(sim, run):
    d = os.path.join(OUT, sim, "dumbbell")
    if not os.path.exists(os.path.join(d, "summary.json")):
        return None
    s = load_json(os.path.join(d, "summary.json"))
    run = run or (load_json(os.path.join(d, "run.json")) if os.path.exists(os.path.join(d, "run.json")) else {})
    r = {"run": run, "summary_path": d}
    r["link_tx"], r["link_tx_key"] = link_tx(s, sim)
    if sim == "ns3":
        r["events"] = s["run"]["events"]
        r["goodput_bps"] = s["goodput"]["total_bps"]
        r["goodput_window_bps"] = s["goodput"]["total_window_bps"]
        flows = read_csv(os.path.join(d, "flows.csv"))
        per = [float(f["goodput_bps"]) for f in flows]
        q = s["bottleneck_queue"]
        r["queue_mean_pkts"], r["queue_max_pkts"] = q["mean_window_pkts"], q["max_window_pkts"]
        r["drops"], r["marks"] = s["queues_all"]["drops"], s["queues_all"]["ecn_marks"]
        r["inner_wall_s"] = s["run"]["wall_s"]
    else:
        stop = 1.0
        r["events"], _ = dig(s, "run.events")
        flows = read_csv(os.path.join(d, "flows.csv"))
        per = []
        for f in flows:
            for k in ("bytes_delivered", "delivered_bytes", "rx_bytes", "bytes_received"):
                if f.get(k) not in (None, ""):
                    per.append(float(f[k]) * 8 / stop)
                    break
        r["goodput_bps"] = sum(per) if per else dig(s, "goodput.total_bps", "goodput_bps")[0]
        r["goodput_window_bps"], _ = dig(s, "goodput.total_window_bps")
        r["queue_mean_pkts"], _ = dig(s, "bottleneck_queue.mean_window_pkts", "queues.bottleneck.mean_pkts")
        r["queue_max_pkts"], _ = dig(s, "bottleneck_queue.max_window_pkts", "queues.bottleneck.max_pkts")
        r["drops"], _ = dig(s, "packets.dropped", "packets.drops", "drops")
        r["marks"], _ = dig(s, "packets.ecn_marked", "packets.marked", "packets.ecn_marks", "ecn_marks")
        r["inner_wall_s"], _ = dig(s, "run.wall_s")
    r["per_flow_min_bps"] = min(per) if per else None
    r["per_flow_max_bps"] = max(per) if per else None
    r["jain"] = jain(per)
    return r


def collect_fattree(sim, run, name="fattree"):
    d = os.path.join(OUT, sim, name)
    if not os.path.exists(os.path.join(d, "summary.json")):
        return None
    s = load_json(os.path.join(d, "summary.json"))
    run = run or (load_json(os.path.join(d, "run.json")) if os.path.exists(os.path.join(d, "run.json")) else {})
    rows = read_csv(os.path.join(d, "flows.csv"))
    r = {"run": run, "summary_path": d}
    r["link_tx"], r["link_tx_key"] = link_tx(s, sim)
    r["events"], _ = dig(s, "run.events")
    r["inner_wall_s"], _ = dig(s, "run.wall_s")
    if sim == "ns3":
        r["drops"], r["marks"] = s["queues_all"]["drops"], s["queues_all"]["ecn_marks"]
        r["flow_file_sha256"] = run.get("flow_file_sha256")
        r["flow_file"] = s.get("flow_file")
    else:
        r["drops"], _ = dig(s, "packets.dropped", "packets.drops", "drops")
        r["marks"], _ = dig(s, "packets.ecn_marked", "packets.marked", "packets.ecn_marks", "ecn_marks")
    r["fct"] = fct_table(rows)
    r["rows"] = rows
    return r


# ----------------------------------------------------------------------------- report

def fmt(v, unit="", digits=3):
    if v is None:
        return "pending"
    if isinstance(v, str):
        return v
    if unit == "Gb/s":
        return f"{v / 1e9:.3f}"
    if unit == "us":
        return f"{v * 1e6:.1f}"
    if unit == "ms":
        return f"{v * 1e3:.3f}"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 1000):
        return f"{int(v):,}"
    return f"{v:.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"


def ratio(a, b):
    """b / a, for 'dcnsim vs ns-3' columns."""
    if a in (None, 0) or b is None:
        return ""
    return f"{b / a:.3g}×"


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({cpu}), {mem}, {platform.system()} {platform.release()}"


def git_rev():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return "?"


def cost_rows(n, c):
    """Rows common to both scenarios: the runs' cost."""
    g = lambda r, *k: None if r is None else dig(r, *k)[0]
    nw, cw = g(n, "run.wall_s"), g(c, "run.wall_s")
    ncpu, ccpu = g(n, "run.cpu_s"), g(c, "run.cpu_s")
    nrss, crss = g(n, "run.peak_rss_mib"), g(c, "run.peak_rss_mib")
    ntx, ctx = g(n, "link_tx"), g(c, "link_tx")
    rows = [
        ("wall time, s (whole process)", fmt(nw), fmt(cw), ratio(cw, nw) and f"dcnsim {ratio(cw, nw)} faster"),
        ("CPU time, s (user + sys)", fmt(ncpu), fmt(ccpu), ratio(ccpu, ncpu) and f"dcnsim {ratio(ccpu, ncpu)} faster"),
        ("peak memory (max RSS), MiB", fmt(nrss), fmt(crss), ratio(nrss, crss)),
        ("packets simulated (link transmissions)", fmt(ntx), fmt(ctx), ratio(ntx, ctx)),
        ("packets simulated per wall-second", fmt(ntx / nw if ntx and nw else None),
         fmt(ctx / cw if ctx and cw else None),
         ratio(ntx / nw if ntx and nw else None, ctx / cw if ctx and cw else None)),
        ("packets simulated per CPU-second", fmt(ntx / ncpu if ntx and ncpu else None),
         fmt(ctx / ccpu if ctx and ccpu else None),
         ratio(ntx / ncpu if ntx and ncpu else None, ctx / ccpu if ctx and ccpu else None)),
        ("events executed", fmt(g(n, "events")), fmt(g(c, "events")), ""),
    ]
    return rows


def table(rows, head=("metric", "ns-3", "dcnsim", "dcnsim vs ns-3")):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def report(db, ft, notes, k8=None, k8_stop=0.1):
    L = []
    L.append("# dcnsim vs ns-3: validation benchmark\n")
    L.append(f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M %Z').strip()}")
    L.append(f"- machine: {machine()}")
    L.append(f"- dcnsim tree: {git_rev()}; ns-3: 3.44 (PyPI `ns3` 3.44.post0 wheel, scenarios compiled with g++ -O2)")
    L.append("- cost: each run is one child process, measured alone (os.wait4 rusage); "
             "\"packets simulated\" = packet transmissions on links (data + ACK + control), "
             "see bench/README.md")
    for n in notes:
        L.append(f"- note: {n}")
    if db is not None:
        n, c = db.get("ns3"), db.get("dcnsim")
        g = lambda r, k: None if r is None else r.get(k)
        L.append("\n## Dumbbell: 8 DCTCP flows → 1 receiver, 10 Gb/s bottleneck, 1 s simulated\n")
        rows = cost_rows(n, c)
        rows += [
            ("goodput 0–1 s, Gb/s", fmt(g(n, "goodput_bps"), "Gb/s"), fmt(g(c, "goodput_bps"), "Gb/s"), ratio(g(n, "goodput_bps"), g(c, "goodput_bps"))),
            ("goodput 0.1–1 s, Gb/s", fmt(g(n, "goodput_window_bps"), "Gb/s"), fmt(g(c, "goodput_window_bps"), "Gb/s"), ""),
            ("per-flow goodput min / max, Gb/s",
             f"{fmt(g(n, 'per_flow_min_bps'), 'Gb/s')} / {fmt(g(n, 'per_flow_max_bps'), 'Gb/s')}",
             f"{fmt(g(c, 'per_flow_min_bps'), 'Gb/s')} / {fmt(g(c, 'per_flow_max_bps'), 'Gb/s')}", ""),
            ("Jain fairness (0–1 s)", fmt(g(n, "jain"), digits=4), fmt(g(c, "jain"), digits=4), ""),
            ("bottleneck queue mean (0.1–1 s), pkts", fmt(g(n, "queue_mean_pkts")), fmt(g(c, "queue_mean_pkts")), ""),
            ("bottleneck queue max (0.1–1 s), pkts", fmt(g(n, "queue_max_pkts")), fmt(g(c, "queue_max_pkts")), ""),
            ("drops (all queues)", fmt(g(n, "drops")), fmt(g(c, "drops")), ""),
            ("ECN marks (all queues)", fmt(g(n, "marks")), fmt(g(c, "marks")), ""),
        ]
        L.append(table(rows))
    sections = []
    if ft is not None:
        sections.append((ft, "\n## Fat-tree k = 4: 2000 web-search flows, Poisson, 60 % load, "
                             "DCTCP, ECMP\n"))
    if k8 is not None:
        sections.append((k8, f"\n## Fat-tree k = 8: 128 hosts at 10 Gb/s, 40 Gb/s fabric, web search "
                             f"Poisson at 50 % load, DCTCP, ECMP, {k8_stop:g} s simulated\n"))
    for ft, title in sections:
        n, c = ft.get("ns3"), ft.get("dcnsim")
        L.append(title)
        rows = cost_rows(n, c)
        g = lambda r, k: None if r is None else r.get(k)
        rows += [("drops (all queues)", fmt(g(n, "drops")), fmt(g(c, "drops")), ""),
                 ("ECN marks (all queues)", fmt(g(n, "marks")), fmt(g(c, "marks")), "")]
        L.append(table(rows))
        L.append("\nFlow completion times (FCT = last byte at the receiver − flow start, SYN/SYN-ACK "
                 "handshake included in both). Mean and p99 in ms; p99 is nearest-rank; slowdown = "
                 "FCT / dcnsim's ideal FCT of the same flow.\n")
        frows = []
        for name, _ in SIZE_CLASSES:
            nf = n["fct"][name] if n else None
            cf = c["fct"][name] if c else None
            gg = lambda x, k: None if x is None else x[k]
            frows.append((
                name,
                f"{gg(nf, 'finished') if nf else 'pending'}/{gg(nf, 'flows') if nf else ''}",
                f"{gg(cf, 'finished') if cf else 'pending'}/{gg(cf, 'flows') if cf else ''}",
                fmt(gg(nf, "mean_fct_s"), "ms"), fmt(gg(cf, "mean_fct_s"), "ms"),
                ratio(gg(nf, "mean_fct_s"), gg(cf, "mean_fct_s")),
                fmt(gg(nf, "p99_fct_s"), "ms"), fmt(gg(cf, "p99_fct_s"), "ms"),
                ratio(gg(nf, "p99_fct_s"), gg(cf, "p99_fct_s")),
                fmt(gg(nf, "mean_slowdown")), fmt(gg(cf, "mean_slowdown")),
            ))
        L.append(table(frows, ("size class", "ns-3 done", "dcnsim done", "ns-3 mean", "dcnsim mean",
                               "dcnsim/ns-3", "ns-3 p99", "dcnsim p99", "dcnsim/ns-3",
                               "ns-3 mean slowdown", "dcnsim mean slowdown")))
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------- main

def run_k8(a, notes):
    """The k = 8 fat-tree: dcnsim makes the flows, ns-3 runs the same list, both stop at
    a.k8_stop_s of simulated time (flows still running then are unfinished in both)."""
    name = "fattree_k8"
    sets = [] if a.k8_stop_s == 0.1 else [f"stop_s={a.k8_stop_s}"]
    c_run = None if a.skip_dcnsim else run_dcnsim(name, sets)
    dc_flows = os.path.join(OUT, "dcnsim", name, "flows.csv")
    if not os.path.exists(dc_flows):
        notes.append("fattree_k8: no dcnsim flow list; ns-3 not run")
        return {"ns3": collect_fattree("ns3", None, name), "dcnsim": None}
    write_flow_list(read_csv(dc_flows), FLOWS_K8_CSV)
    n_run = None
    if not a.skip_ns3:
        n_run = run_ns3_fattree(FLOWS_K8_CSV, a.ns3_patches, name,
                                NS3_K8_ARGS + [f"--maxSimS={a.k8_stop_s}"])
    k8 = {"ns3": collect_fattree("ns3", n_run, name), "dcnsim": collect_fattree("dcnsim", c_run, name)}
    notes.append(f"fattree_k8: ns-3 {' '.join(NS3_K8_ARGS)} --maxSimS={a.k8_stop_s}; flow list "
                 f"bench/out/fattree_k8_flows.csv (dcnsim's), sha256 {sha256(FLOWS_K8_CSV)}")
    if k8["ns3"] is not None and k8["dcnsim"] is not None:
        same, why = same_flows(k8["ns3"]["rows"], k8["dcnsim"]["rows"])
        if same:
            ideal = [float(r["ideal_fct_s"]) if r.get("ideal_fct_s") not in (None, "") else None
                     for r in k8["dcnsim"]["rows"]]
            for k in ("ns3", "dcnsim"):
                k8[k]["fct"] = fct_table(k8[k]["rows"], ideal)
            notes.append("fattree_k8: same flows in both (checked row by row); FCT rows count "
                         "the flows finished by the stop time")
        else:
            notes.append(f"WARNING: fattree_k8 flow lists differ ({why})")
    for k in ("ns3", "dcnsim"):
        if k8[k] is not None:
            k8[k].pop("rows", None)
    return k8


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-ns3", action="store_true", help="reuse bench/out/ns3/* from an earlier run")
    ap.add_argument("--skip-dcnsim", action="store_true", help="reuse bench/out/dcnsim/* (or leave pending)")
    ap.add_argument("--only", choices=["dumbbell", "fattree", "fattree_k8"])
    ap.add_argument("--k8-stop-s", type=float, default=0.1,
                    help="fattree_k8: simulated seconds for both simulators (default: the "
                         "scenario's 0.1)")
    ap.add_argument("--flows", help="fat-tree flow list for ns-3 when dcnsim provides none")
    ap.add_argument("--ns3-patches", action="store_true",
                    help="run ns-3's fat-tree with the RFC patches of bench/ns3/rfc_patches.h")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if not a.skip_ns3:
        ensure_ns3_built()
    notes = []
    results = {}

    db = ft = None
    if a.only in (None, "dumbbell"):
        n_run = None if a.skip_ns3 else run_ns3_dumbbell()
        c_run = None if a.skip_dcnsim else run_dcnsim("dumbbell")
        db = {"ns3": collect_dumbbell("ns3", n_run),
              "dcnsim": collect_dumbbell("dcnsim", c_run) if (c_run or a.skip_dcnsim) else None}
    if a.only in (None, "fattree"):
        c_run = None if a.skip_dcnsim else run_dcnsim("fattree")
        dc_flows = os.path.join(OUT, "dcnsim", "fattree", "flows.csv")
        have_dc = (c_run is not None or a.skip_dcnsim) and os.path.exists(dc_flows)
        if have_dc:
            write_flow_list(read_csv(dc_flows), FLOWS_CSV)
            source = "dcnsim's own flow list (bench/out/dcnsim/fattree/flows.csv)"
        elif a.flows:
            shutil.copyfile(a.flows, FLOWS_CSV)
            source = f"{a.flows} (given with --flows)"
        else:
            subprocess.run([sys.executable, os.path.join(BENCH, "make_flows.py"), "--out", FLOWS_CSV],
                           check=True)
            source = "make_flows.py (2000 web-search flows, 60 % load, seed 1), NOT dcnsim's flows"
        n_run = None if a.skip_ns3 else run_ns3_fattree(FLOWS_CSV, a.ns3_patches)
        ns3_summary = os.path.join(OUT, "ns3", "fattree", "summary.json")
        if os.path.exists(ns3_summary):
            with open(ns3_summary) as f:
                patches = json.load(f).get("senders", {}).get("patches", {})
            on = [k for k in ("reno_sack_fix", "cwr_fix") if patches.get(k)]
            notes.append("ns-3 fat-tree: " + (f"with the RFC patches {', '.join(on)} "
                                              "(bench/ns3/rfc_patches.h)" if on else "ns-3 as it is"))
        ft = {"ns3": collect_fattree("ns3", n_run),
              "dcnsim": collect_fattree("dcnsim", c_run) if have_dc else None}
        notes.append(f"fat-tree flow list: {source}; sha256 {sha256(FLOWS_CSV)}")
        if ft["ns3"] is not None and ft["dcnsim"] is not None:
            same, why = same_flows(ft["ns3"]["rows"], ft["dcnsim"]["rows"])
            if same:
                # Slowdown = FCT / ideal FCT, dcnsim's ideal for both (same flows, same order).
                ideal = [float(r["ideal_fct_s"]) if r.get("ideal_fct_s") not in (None, "") else None
                         for r in ft["dcnsim"]["rows"]]
                for k in ("ns3", "dcnsim"):
                    ft[k]["fct"] = fct_table(ft[k]["rows"], ideal)
                notes.append("ns-3 and dcnsim fat-tree runs used the same flows (checked row by row)")
            else:
                notes.append(f"WARNING: ns-3 and dcnsim fat-tree flow lists differ ({why}): the FCT "
                             "rows do not compare like with like; rerun without --skip-ns3")
        for k in ("ns3", "dcnsim"):
            if ft[k] is not None:
                ft[k].pop("rows", None)

    k8 = None
    if a.only == "fattree_k8":
        k8 = run_k8(a, notes)

    for sim_res in (db, ft, k8):
        for k in ("ns3", "dcnsim"):
            if sim_res and sim_res.get(k) and "not link transmissions" in str(sim_res[k].get("link_tx_key", "")).lower():
                notes.append(f"dcnsim summary has no link-transmission count; used {sim_res[k]['link_tx_key']}")
    md = report(db, ft, notes, k8, a.k8_stop_s)
    results = {"dumbbell": db, "fattree": ft, "fattree_k8": k8, "notes": notes}
    with open(os.path.join(OUT, "compare.json"), "w") as f:
        json.dump(results, f, indent=2, default=str)
    with open(os.path.join(OUT, "compare.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
