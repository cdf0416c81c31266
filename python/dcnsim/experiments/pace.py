"""PACE: T. Carvalho, H. S. Kim, N. Neves, "PACE Your Network: Fair and Controllable
Multi-Tenant Data Center Networks" (seed 001). No figure runs yet: PACE itself is not
implemented. Its baselines (D3, DCTCP, TCP) and the parking lot exist, so their curves come
with the PACE issue."""

from .figure import Paper, Pending

PAPER = Paper(
    name="pace",
    citation="T. Carvalho, H. S. Kim, N. Neves, PACE Your Network: Fair and Controllable "
             "Multi-Tenant Data Center Networks (seed 001_1202a435dcded61e).",
    pending=(
        Pending("fig6", "parking lot, 10 flows started every 5/20/50 ms and stopped in reverse: "
                "per-flow rate over time and mean Jain index; PACE vs DCTCP, D3, TCP",
                "PACE"),
        Pending("table1", "64 and 250 flows: Jain index and efficiency", "PACE"),
        Pending("fig7", "composite scenario in 4 phases: throughput and the queue at F4",
                "PACE"),
        Pending("fig8", "controllability: weights 2, 1, 4", "PACE"),
    ),
)
