"""MCP: deadline-aware transport minimizing per-packet delay (seed 003). No figure runs yet:
MCP itself is not implemented; its baselines DCTCP and D2TCP exist."""

from .figure import Paper, Pending

PAPER = Paper(
    name="mcp",
    citation="MCP: a distributed transport protocol for data center networks that minimizes "
             "per-packet delay while meeting flow deadlines (seed 003_4484ef2efd3a255c).",
    pending=(
        Pending("fig3-4", "128-host fat-tree, query / short / long flows with deadlines: "
                "deadline miss rate per class and goodput vs load; MCP vs DCTCP vs D2TCP",
                "MCP"),
    ),
)
