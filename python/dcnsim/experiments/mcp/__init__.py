"""MCP: L. Chen, S. Hu, K. Chen, H. Wu, D. H. K. Tsang, "Towards Minimal-Delay
Deadline-Driven Data Center TCP", HotNets 2013 (seed 003). §5, Figs. 3–4 (:mod:`.figures`).

(Draft: the set-up and the outcome are written after the full run.)
"""

from ..figure import Paper
from .figures import FIG3_4

PAPER = Paper(
    name="mcp",
    citation="L. Chen, S. Hu, K. Chen, H. Wu, D. H. K. Tsang, Towards Minimal-Delay "
             "Deadline-Driven Data Center TCP (MCP), HotNets 2013 (seed 003_4484ef2efd3a255c).",
    figures=(FIG3_4,),
    note="The paper's numbers come from a 30 s fluid (Matlab) model; ours from packet-level runs "
         "of 20 000 flows per point. Sizes, deadlines and the load are read from one sentence "
         "each; the module doc of dcnsim.experiments.mcp gives our readings.",
)
