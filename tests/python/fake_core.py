"""A stand-in for the compiled ``dcnsim._core``, for testing the Python layer alone.

It follows the extension's API (see python/dcnsim/_core.pyi) and returns synthetic but
self-consistent columns; it knows a sketch of the scenario schema, enough to refuse unknown
keys with the key path as the real core does. It lives in tests only.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tomllib
import types
from pathlib import Path

import numpy as np
import pandas as pd

FAKE = True

_SCHEMA = {
    "name": None, "seed": None, "stop_s": None, "failures": None,
    "topology": {"kind", "k", "hosts", "link_gbps", "link_delay_us", "buffer_pkts", "buffer_kb",
                 "ecn_k_pkts"},
    "transport": {"protocol", "mss_bytes", "init_cwnd_pkts", "min_rto_us"},
    "routing": {"lb", "reroute_delay_us"},
    "workload": {"kind", "sizes", "load", "flows"},
    "output": {"series_interval_us"},
}

CATALOG = {
    "protocols": [("tcp", "TCP NewReno"), ("dctcp", "DCTCP: ECN-proportional window cuts")],
    "lbs": [("ecmp", "per-flow hash over equal-cost paths")],
    "topologies": [("star", "N hosts on one switch"), ("fattree", "k-ary fat-tree")],
    "workloads": [("poisson", "Poisson arrivals at a target load")],
    "sizes": [("websearch", "DCTCP paper web-search CDF")],
}

CLASSES = [("<100KB", 0, 100_000), ("100KB-1MB", 100_000, 1_000_000), (">1MB", 1_000_000, 2**63)]


class ScenarioError(ValueError):
    """Bad input; str(e) is 'key.path: message'."""


def _parse_value(raw: str):
    try:
        return tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def make() -> types.ModuleType:
    """A fresh fake module. Attributes tests may set: ``fail_run`` (a message: run raises
    ScenarioError after validation), ``interrupt`` (run raises KeyboardInterrupt),
    ``fail_write`` (an errno: writing the result directory fails with it, as the core raises
    ``OSError(errno, "could not write results: <reason>", out_dir)``); ``calls`` records
    (function name, overrides)."""
    m = types.ModuleType("dcnsim._core")
    m.FAKE = True
    m.__version__ = "0.0.0+fake"
    m.ScenarioError = ScenarioError
    m.calls = []
    m.fail_run = None
    m.interrupt = False
    m.fail_write = None

    def resolve(scenario, fmt, base_dir, overrides):
        assert fmt in ("toml", "json"), fmt
        assert os.path.isabs(base_dir), base_dir
        try:
            tree = tomllib.loads(scenario) if fmt == "toml" else json.loads(scenario)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
            raise ScenarioError(f"{'TOML syntax' if fmt == 'toml' else 'JSON'}: {e}") from None
        for o in overrides:
            path, sep, raw = o.partition("=")
            if not sep:
                raise ScenarioError(f"{o}: an override must look like key.path=value")
            node, parts = tree, path.strip().split(".")
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            node[parts[-1]] = _parse_value(raw)
        for key, value in tree.items():
            if key not in _SCHEMA:
                raise ScenarioError(f"{key}: unknown field `{key}`")
            if isinstance(_SCHEMA[key], set):
                for sub in value:
                    if sub not in _SCHEMA[key]:
                        raise ScenarioError(f"{key}.{sub}: unknown field `{sub}`, expected one of {sorted(_SCHEMA[key])}")
        for table in ("topology", "workload"):
            if "kind" not in tree.get(table, {}):
                raise ScenarioError(f"{table}: missing field `kind`")
        tree.setdefault("seed", 1)
        tree.setdefault("transport", {}).setdefault("protocol", "dctcp")
        tree.setdefault("routing", {}).setdefault("lb", "ecmp")
        tree.setdefault("output", {}).setdefault("series_interval_us", 0)
        tree["topology"].setdefault("link_gbps", 10.0)
        if tree["transport"]["protocol"] not in ("tcp", "dctcp"):
            raise ScenarioError(f"transport.protocol: unknown protocol '{tree['transport']['protocol']}'")
        return tree

    # The budget keywords are taken and not enforced (the real core's tests check them).
    def validate(scenario, fmt, base_dir, overrides, max_memory=None, memory_share=1):
        m.calls.append(("validate", list(overrides)))
        return json.dumps(resolve(scenario, fmt, base_dir, overrides))

    def run(scenario, fmt, base_dir, overrides, out_dir, quiet, progress, columns=True,
            max_memory=None, memory_share=1):
        m.calls.append(("run", list(overrides)))
        s = resolve(scenario, fmt, base_dir, overrides)
        if m.fail_run:
            raise ScenarioError(m.fail_run)
        flows = _flows(s)
        if progress is not None:
            progress(float(np.nanmax(flows["start_s"])) / 2, len(flows["flow_id"]) // 2, len(flows["flow_id"]))
        if m.interrupt:
            raise KeyboardInterrupt
        series = _series(s, flows)
        summary = json.dumps(_summary(s, flows))
        if out_dir is not None and m.fail_write:
            raise OSError(m.fail_write, f"could not write results: {os.strerror(m.fail_write)}",
                          str(out_dir))
        if out_dir is not None:
            _write(out_dir, s, flows, summary, series)
        if not columns:
            flows = series = None
        return {"flows": flows, "summary": summary, "series": series, "scenario": json.dumps(s)}

    m.validate = validate
    m.run = run
    m.available_memory = lambda: 8_000_000_000
    m.catalog = lambda: {k: list(v) for k, v in CATALOG.items()}
    return m


def _flows(s) -> dict[str, np.ndarray]:
    n = int(s["workload"].get("flows", 40))
    rng = np.random.default_rng(int(s["seed"]))
    size = np.round(rng.lognormal(11.5, 1.8, n)).astype(np.uint64) + 1000
    start = np.cumsum(rng.exponential(1e-4, n))
    ideal = size.astype(float) * 8 / (s["topology"]["link_gbps"] * 1e9) + 5e-6
    factor = 1.5 if s["transport"]["protocol"] == "dctcp" else 3.0
    fct = ideal * factor * rng.lognormal(0.0, 0.5, n)
    finish = start + fct
    stop = s.get("stop_s")
    unfinished = finish > stop if stop else np.arange(n) == n - 1
    finish[unfinished] = np.nan
    fct[unfinished] = np.nan
    deadline = np.where(np.arange(n) % 3 == 0, ideal * 4, np.nan)
    met = np.where(np.isnan(deadline), np.nan, (fct <= deadline).astype(float))
    return {
        "flow_id": np.arange(n, dtype=np.uint64),
        "src": (np.arange(n) % 4).astype(np.uint32),
        "dst": ((np.arange(n) + 1) % 4).astype(np.uint32),
        "size_bytes": size,
        "start_s": start,
        "finish_s": finish,
        "fct_s": fct,
        "ideal_fct_s": ideal,
        "slowdown": fct / ideal,
        "deadline_s": deadline,
        "met_deadline": met,
        "retransmits": rng.integers(0, 3, n).astype(np.uint64),
        "timeouts": np.zeros(n, dtype=np.uint64),
        "bytes_delivered": np.where(unfinished, size // 2, size).astype(np.uint64),
        "terminated_s": np.full(n, np.nan),
        "data_packets": (size // 1460 + 1).astype(np.uint64),
        "spurious_retransmits": np.zeros(n, dtype=np.uint64),
        "ooo_arrivals": np.zeros(n, dtype=np.uint64),
        "dupacks_reorder": np.zeros(n, dtype=np.uint64),
        "dupacks_loss": np.zeros(n, dtype=np.uint64),
        "queue_delay_mean_s": np.full(n, 1e-5),
        "host_delay_mean_s": np.zeros(n),
    }


def _series(s, flows):
    if not s["output"]["series_interval_us"]:
        return None
    t = np.arange(5, dtype=float) * s["output"]["series_interval_us"] * 1e-6
    return {
        "time_s": np.tile(t, 2),
        "kind": np.array(["queue_bytes"] * 5 + ["link_util"] * 5, dtype=object),
        "id": np.zeros(10, dtype=np.uint64),
        "value": np.linspace(0, 1, 10),
    }


def _stats(x):
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return {"mean": None, "p50": None, "p99": None, "p999": None}
    return {"mean": float(x.mean()), "p50": float(np.percentile(x, 50)),
            "p99": float(np.percentile(x, 99)), "p999": float(np.percentile(x, 99.9))}


def _summary(s, f):
    done = ~np.isnan(f["fct_s"])
    by_size = []
    for name, lo, hi in CLASSES:
        sel = (f["size_bytes"] >= lo) & (f["size_bytes"] < hi) & done
        fs, ss = _stats(f["fct_s"][sel]), _stats(f["slowdown"][sel])
        by_size.append({"class": name, "lo_bytes": lo, "hi_bytes": hi, "count": int(sel.sum()),
                        "fct_mean_s": fs["mean"], "fct_p99_s": fs["p99"],
                        "slowdown_mean": ss["mean"], "slowdown_p99": ss["p99"]})
    with_dl = int((~np.isnan(f["deadline_s"])).sum())
    met = int(np.nansum(f["met_deadline"]))
    return {
        "name": s.get("name"), "protocol": s["transport"]["protocol"], "lb": s["routing"]["lb"],
        "topology": s["topology"]["kind"], "seed": s["seed"],
        "flows": {"total": len(done), "finished": int(done.sum()), "unfinished": int((~done).sum())},
        "fct_s": _stats(f["fct_s"]), "slowdown": _stats(f["slowdown"]), "by_size": by_size,
        "deadlines": {"with_deadline": with_dl, "met": met,
                      "miss_rate": (with_dl - met) / with_dl if with_dl else 0.0},
        "packets": {"sent": 1000, "delivered": 990, "dropped": 10, "ecn_marked": 5},
        "run": {"wall_s": 0.01, "events": 12345, "sim_time_s": float(np.nanmax(f["finish_s"])),
                "peak_packets": 64},
    }


def _write(out_dir, s, flows, summary, series):
    """Writes the result directory as the core does: into a temporary sibling, then renamed."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    pd.DataFrame(flows).to_csv(tmp / "flows.csv", index=False)
    (tmp / "summary.json").write_text(summary)
    (tmp / "scenario.json").write_text(json.dumps(s))
    (tmp / "ports.csv").write_text("port,node,peer,drops\n0,0,1,0\n")
    if series is not None:
        pd.DataFrame(series).to_csv(tmp / "series.csv", index=False)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
