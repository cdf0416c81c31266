"""TR: T. Zhang et al., "Fine-grained Load Balancing with Traffic-aware Rerouting in
DataCenter Networks" (seed 002). No figure runs yet: TR, RPS, DRB, Presto and LetFlow are not
implemented."""

from .figure import Paper, Pending

PAPER = Paper(
    name="tr",
    citation="T. Zhang, Y. Lei, Q. Zhang, S. Zou, J. Huang, F. Li, Fine-grained Load Balancing "
             "with Traffic-aware Rerouting in DataCenter Networks (seed 002_4f7d47fbf35aaaf3).",
    pending=(
        Pending("fig2-3", "leaf-spine with 5 bad paths: short-flow FCT and long-flow "
                "throughput of the baselines", "RPS, DRB, Presto, LetFlow"),
        Pending("fig6", "the RPS vs TR FCT model against simulation", "TR and RPS"),
        Pending("fig7-8", "small leaf-spine, Data Mining sizes: FCT, throughput, reordering",
                "TR and the baselines"),
        Pending("fig9-12", "10 × 10 leaf-spine at 40 Gb/s, four workloads", "TR and the baselines"),
    ),
)
