"""Type stub of the compiled extension ``dcnsim._core`` (crates/dcnsim-py).

Use the wrappers in :mod:`dcnsim` rather than these functions directly; they take paths and
dicts, build DataFrames and show progress.
"""

from collections.abc import Callable
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

class ScenarioError(ValueError):
    """Bad input, or a run too large for its memory budget; ``str(e)`` is
    ``"key.path: message"``."""

class InternalError(ScenarioError):
    """A Rust panic met while handling the scenario (a bug; the message says where). Raised
    instead of pyo3's PanicException, which ``except Exception`` would not catch."""

class _RunOutput(TypedDict):
    # flow_id u64, src u32, dst u32, size_bytes u64, start_s f64, finish_s f64 (NaN if
    # unfinished), fct_s f64 (NaN), ideal_fct_s f64, slowdown f64 (NaN), deadline_s f64 (NaN if
    # none; relative to start), met_deadline f64 (1.0 / 0.0, NaN if no deadline),
    # retransmits u64, timeouts u64, bytes_delivered u64, terminated_s f64 (NaN unless the
    # protocol terminated the flow), data_packets u64, spurious_retransmits u64,
    # ooo_arrivals u64, dupacks_reorder u64, dupacks_loss u64, queue_delay_mean_s f64 and
    # host_delay_mean_s f64 (NaN if no data packet was sent); None when run with columns=False
    flows: dict[str, npt.NDArray[np.generic]] | None
    # the summary as JSON text
    summary: str
    # time_s f64, kind object (str), id u64, value f64; None when series are off (or
    # columns=False)
    series: dict[str, npt.NDArray[np.generic]] | None
    # the scenario as run, every default filled in (what scenario.json holds), as JSON text
    scenario: str
    # time_s f64, flow_id u32, event object (str: send | receive | timeout), seq u64, ack u64,
    # payload u32, retransmit bool, cwnd_bytes u64; None without output.trace_flow (or with an
    # empty list, or columns=False)
    trace: dict[str, npt.NDArray[np.generic]] | None
    # flow_id u32, hop u32, port u32, node list[str], peer list[str], packets list[int | None]
    # (None under the flow-level engine); None without output.paths (or columns=False)
    paths: dict[str, npt.NDArray[np.generic] | list[str] | list[int | None]] | None

def run(
    scenario: str,
    fmt: Literal["toml", "json"],
    base_dir: str,
    overrides: list[str],
    out_dir: str | None,
    quiet: bool,
    progress: Callable[[float, int, int], None] | None,
    columns: bool = True,
    max_memory: int | str | None = None,
    memory_share: int = 1,
) -> _RunOutput:
    """Simulates the scenario text. Releases the GIL; calls ``progress(sim_time_s,
    flows_done, flows_total)`` about every 0.2 s of wall time (it may raise
    KeyboardInterrupt to stop). With ``out_dir``, writes the result directory atomically;
    when it cannot, raises ``OSError(errno, "could not write results: <the OS's reason>",
    out_dir)`` (no directory left; an existing one unchanged).
    With ``columns=False``, flows, series, trace and paths are None (no numpy array is made,
    so numpy is not imported); summary and scenario are returned as always. ``max_memory``: the
    memory budget (bytes, "8G", "unlimited"; None: the memory available); a run whose
    estimate, or whose memory while it runs, passes it raises ScenarioError.
    ``memory_share``: runs that go side by side (a sweep's workers); each has that fraction
    of the budget, and the messages say so."""

def validate(
    scenario: str,
    fmt: Literal["toml", "json"],
    base_dir: str,
    overrides: list[str],
    max_memory: int | str | None = None,
    memory_share: int = 1,
) -> str:
    """The resolved scenario (defaults filled in) as JSON text, with ``_resolved`` (flows,
    hosts, topology, memory: estimate_bytes, estimate (as the core prints sizes), budget_bytes,
    budget, parts); raises
    ScenarioError, also for a run whose memory estimate passes ``max_memory``."""

def parse_memory(text: str) -> int | None:
    """The bytes of a memory size ("8G", "1.5GiB", "123"), None for "unlimited"; raises
    ScenarioError otherwise."""

def available_memory() -> int:
    """The memory available now, in bytes: the default budget."""

def catalog() -> dict[str, list[tuple[str, str]]]:
    """``{"protocols"|"lbs"|"topologies"|"workloads"|"sizes": [(name, description), ...]}``."""

def _panic_for_tests(message: str) -> None:
    """Panics in the core with ``message``; raises InternalError (for tests of that)."""
