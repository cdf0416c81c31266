"""PDQ and M-PDQ: C.-Y. Hong, M. Caesar, P. B. Godfrey, "Finishing Flows Quickly with
Preemptive Scheduling" (seed 004: its §6 Multipath PDQ and §7). No figure runs yet: PDQ,
M-PDQ, RCP, D3, BCube and Jellyfish are not implemented."""

from .figure import Paper, Pending

PAPER = Paper(
    name="pdq",
    citation="C.-Y. Hong, M. Caesar, P. B. Godfrey, Finishing Flows Quickly with Preemptive "
             "Scheduling, SIGCOMM 2012 (seed 004_b3d41cadfd69cbd2: §6 M-PDQ).",
    pending=(
        Pending("fig11a", "BCube(2,3) random permutation: FCT with 1 vs 3 subflows",
                "M-PDQ and BCube"),
        Pending("fig11b-c", "subflow count sweep at 100 % load", "M-PDQ and BCube"),
        Pending("fig12", "flow aging on a fat-tree: worst and mean FCT", "PDQ"),
    ),
)
