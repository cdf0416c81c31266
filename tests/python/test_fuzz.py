"""Property-based fuzzing of the scenario dict path (issue 36): mutations of the example
scenarios, shrunk so that each run is quick, through ``dcnsim.run(dict, out=...)``.

Every mutated scenario must end in one of two ways:

- :class:`dcnsim.ScenarioError` whose message starts with a key path, and no output folder;
- a finished run whose scenario.json holds every value given, and no NaN or infinity.

Never a panic, another exception, a value silently changed or dropped, or a non-finite value
accepted. Mutations: a value of the wrong type, an unknown key, NaN and infinities, negative
numbers, other small numbers, huge numbers (:data:`HUGE`, up to 1.7e308), a deleted key.

To keep every run small, whatever the mutations: every example stops at :data:`STOP_S` of
simulated time (a huge flow size, accepted, would otherwise run for hours), and each run has a
memory budget of :data:`MAX_MEMORY` (a huge flow count or topology is refused by the estimate,
naming its key, instead of allocating). Left out by design: deleting ``workload.flows`` (the
default is 1000 flows, up to 15 s a run), deleting ``stop_s`` or setting it to another small
number (a number of another type included), and numbers between :data:`SMALL_MAX` and the
smallest huge one.
"""

from __future__ import annotations

import copy
import faulthandler
import json
import math
import os
import re
import resource
import signal
import tempfile
import tomllib
from contextlib import contextmanager
from pathlib import Path

import pytest

import dcnsim
from conftest import ROOT, real_core_available

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytestmark = pytest.mark.skipif(
    not real_core_available(), reason="the compiled core dcnsim._core is not built"
)

#: Examples without files beside them (a dict's relative paths start at the working directory).
EXAMPLES = ["bcube", "demo", "jellyfish", "leafspine_asymmetric_lb", "leafspine_failure",
            "parkinglot", "star_incast", "tree_pareto"]
#: Top-level keys of a scenario: an error message starts with a path under one of them.
TOP_KEYS = {"name", "seed", "stop_s", "topology", "transport", "routing", "workload", "output",
            "failures", "engine"}
#: The unknown key the mutations add.
UNKNOWN = "zz_fuzz"
#: The largest number the "other small number" mutation writes: topology sizes (k, hosts,
#: switches, n of BCube) and flow counts stay small, so no run takes long or much memory.
SMALL_MAX = 6
#: Huge numbers: past 32 bits, 2^53 (the last integer a float holds), 64 bits, and the
#: floats up to the largest.
HUGE = [2**31, 2**32 + 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 1e15, 1e300, 1.7e308]
#: Simulated time every example stops at: a run then simulates at most this long, whatever
#: size a mutation gives its flows (2 TB flows at 10 Gb/s run for half an hour of simulated
#: time otherwise). Mutations may still make it negative, huge, non-finite or of a wrong type.
STOP_S = 0.002
#: The memory budget of each run, below MEMORY_HEADROOM: the estimate refuses what would not
#: fit, before the address-space limit could abort the process.
MAX_MEMORY = "512M"
#: Wall-time cap of one run; more is a failure (a mutation that makes a run explode).
RUN_TIMEOUT_S = 20
#: Address space the process may add while fuzzing: a run that allocates more aborts the test
#: instead of the machine.
MEMORY_HEADROOM = 2 << 30


def _shrunk(name: str) -> dict:
    s = tomllib.loads((ROOT / "examples" / f"{name}.toml").read_text())
    wl = s["workload"]
    if "flows" in wl:
        wl["flows"] = min(wl["flows"], 12)
    if "rounds" in wl:
        wl["rounds"] = 2
    if isinstance(wl.get("sizes"), dict) and "kb" in wl["sizes"]:
        wl["sizes"]["kb"] = min(wl["sizes"]["kb"], 20)
    s["stop_s"] = min(s.get("stop_s", STOP_S), STOP_S)
    return s


BASES = {name: _shrunk(name) for name in EXAMPLES}


def _paths(tree, prefix=()):
    """Every path into the tree (tuples of keys and list indices), tables and leaves."""
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    for k, v in items:
        path = (*prefix, k)
        yield path
        if isinstance(v, (dict, list)):
            yield from _paths(v, path)


def _get(tree, path):
    for k in path:
        tree = tree[k]
    return tree


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


WRONG_TYPES = ["text", "", True, False, [1, 2], [], {"a": 1}, {}, 3, 0.5]
NON_FINITE = [math.nan, math.inf, -math.inf]
SMALL = [0, 1, 2, SMALL_MAX, 0.0, 0.5, 1.5, -0.0]


@st.composite
def mutated(draw):
    """``(example, scenario, [mutation descriptions])``: one to three mutations."""
    name = draw(st.sampled_from(EXAMPLES))
    s = copy.deepcopy(BASES[name])
    done = []
    kinds = ["wrong_type", "unknown_key", "non_finite", "negative", "small", "huge", "delete"]
    # Kept as they bound every run's length (module doc).
    no_delete = {("workload", "flows"), ("stop_s",)}
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(kinds))
        paths = list(_paths(s))
        leaves = [p for p in paths if not isinstance(_get(s, p), (dict, list))]
        numbers = [p for p in leaves if _is_number(_get(s, p))]
        if kind == "unknown_key":
            tables = [()] + [p for p in paths if isinstance(_get(s, p), dict)]
            at = draw(st.sampled_from(tables))
            _get(s, at)[UNKNOWN] = copy.deepcopy(draw(st.sampled_from([1, "x", [1], {"a": 1}])))
            done.append(f"unknown key at {at}")
            continue
        if kind == "delete":
            keys = [p for p in paths if p not in no_delete]
            at = draw(st.sampled_from(keys))
            parent = _get(s, at[:-1])
            del parent[at[-1]]
            done.append(f"deleted {at}")
            continue
        pool = numbers if kind in ("negative", "small", "huge") else leaves
        if kind == "small":
            pool = [p for p in pool if p != ("stop_s",)]
        if not pool:
            continue
        at = draw(st.sampled_from(pool))
        old = _get(s, at)
        if kind == "wrong_type":
            # A number of another type is no wrong type for stop_s, only a longer run.
            new = draw(st.sampled_from([v for v in WRONG_TYPES if type(v) is not type(old)
                                        and not (at == ("stop_s",) and _is_number(v))]))
        elif kind == "non_finite":
            new = draw(st.sampled_from(NON_FINITE))
        elif kind == "negative":
            new = draw(st.sampled_from([-old, -1, -0.5] if old else [-1, -0.5]))
        elif kind == "small":
            new = draw(st.sampled_from(SMALL))
        else:
            new = draw(st.sampled_from(HUGE))
        _get(s, at[:-1])[at[-1]] = copy.deepcopy(new)  # later mutations may change it
        done.append(f"{kind} {at} = {new!r}")
    return name, s, done


def _with(name: str, at: tuple, value) -> tuple[str, dict, list[str]]:
    """The example ``name`` with one value set, as :func:`mutated` draws cases."""
    s = copy.deepcopy(BASES[name])
    _get(s, at[:-1])[at[-1]] = value
    return name, s, [f"huge {at} = {value!r}"]


class TooSlow(Exception):
    pass


@contextmanager
def _bounded():
    """At most RUN_TIMEOUT_S of wall time (the core notices the alarm within 0.2 s) and
    MEMORY_HEADROOM more address space. The core checks for signals only while it simulates,
    so a loop while it prepares the run would never see the alarm: past twice the time, the
    process exits with every thread's traceback (faulthandler) instead of hanging CI."""
    def alarm(signum, frame):
        raise TooSlow(f"a run took more than {RUN_TIMEOUT_S} s")

    old_handler = signal.signal(signal.SIGALRM, alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    used = _address_space()
    if used is not None:
        cap = used + MEMORY_HEADROOM
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY
                                                else min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_REAL, RUN_TIMEOUT_S)
    faulthandler.dump_traceback_later(2 * RUN_TIMEOUT_S, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


KEY_PATH = re.compile(r"^(?P<first>[A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z0-9_]+|\[\d+\])*: \S")


def _names_a_key(message: str) -> bool:
    """The message starts with a key path (``workload.load: ...``), or, for a top-level key
    left out, names it (``missing field `topology```, serde's words at the root)."""
    m = KEY_PATH.match(message)
    if m:
        return m["first"] in TOP_KEYS | {UNKNOWN}
    m = re.match(r"^missing field `(\w+)`", message)
    return bool(m) and m[1] in TOP_KEYS


def _leaves(tree, prefix=()):
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    for k, v in items:
        if isinstance(v, (dict, list)) and v:
            yield from _leaves(v, (*prefix, k))
        else:
            yield (*prefix, k), v


def _all_finite(tree) -> bool:
    if isinstance(tree, float):
        return math.isfinite(tree)
    if isinstance(tree, dict):
        return all(_all_finite(v) for v in tree.values())
    if isinstance(tree, list):
        return all(_all_finite(v) for v in tree)
    return True


#: Examples per test run: 60 in CI (a few seconds, the same ones every time); set
#: DCNSIM_FUZZ_EXAMPLES=2000 for a longer, random search.
EXAMPLES_RUN = int(os.environ.get("DCNSIM_FUZZ_EXAMPLES", "60"))


@settings(max_examples=EXAMPLES_RUN, deadline=None, derandomize="DCNSIM_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
# Found by this test: k + 1 wrapped to 0 for the largest k, and the build looped 2^64 times.
@example(_with("bcube", ("topology", "k"), 2**64 - 1))
# An integer beyond 2^53 given to a float key: held as the nearest float.
@example(_with("demo", ("workload", "load"), 2**53 + 1))
def test_a_mutated_example_is_refused_naming_a_key_or_runs_as_given(case):
    name, scenario, mutations = case
    for kind in {m.split()[0] for m in mutations}:  # the statistics show what was tried
        event(f"mutation: {kind}")
    given = copy.deepcopy(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "a" / "out"
        try:
            with _bounded():
                dcnsim.run(scenario, out=out, quiet=True, max_memory=MAX_MEMORY)
        except dcnsim.ScenarioError as e:
            message = str(e)
            event("refused")
            assert _names_a_key(message), f"{name} {mutations}: the error names no key: {message!r}"
            assert not (Path(tmp) / "a").exists(), f"{name} {mutations}: output left behind"
            return
        event("ran")
        assert scenario == given, f"{name} {mutations}: the dict given was changed"
        stored = json.loads((out / "scenario.json").read_text())
        assert _all_finite(stored), f"{name} {mutations}: a non-finite value in {stored}"
        for path, value in _leaves(given):
            try:
                got = _get(stored, path)
            except (KeyError, IndexError, TypeError):
                if value in ([], {}):  # an empty list or table: left out of scenario.json
                    continue
                pytest.fail(f"{name} {mutations}: {path} = {value!r} given, dropped from "
                            "scenario.json")
            assert _same(got, value), (
                f"{name} {mutations}: {path} = {value!r} given, {got!r} in scenario.json")


def _same(stored, given) -> bool:
    """Equal values, a boolean never standing for a number (True == 1 in Python); an empty
    table given is one with every default; an integer given to a key that holds a float is
    that float (2**53 + 1 becomes 2**53, as in any JSON reader), never another one."""
    if isinstance(stored, bool) or isinstance(given, bool):
        return stored is given
    if given == {}:
        return isinstance(stored, dict)
    if isinstance(stored, float) and isinstance(given, int):
        return stored == float(given)
    return stored == given
