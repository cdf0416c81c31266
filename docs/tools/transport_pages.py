"""Writes docs/transports/<name>.md from the module docs of the transports.

The module doc at the top of each transport's ``mod.rs`` (``crates/dcnsim/src/protocols/``) is
the source of truth for its paper, parameters and the readings made where the paper is
silent. This script turns those ``//!`` lines into the manual's transport pages: rustdoc's
intra-doc links become plain code, headings move one level down under the page's title, and
a short header says which ``transport.protocol`` values the page covers. Edit the module
doc, then run ``python3 docs/tools/transport_pages.py`` from the repository root.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "crates/dcnsim/src/protocols"
OUT = ROOT / "docs/transports"

# page -> (title, protocol names, intro, module files in order)
PAGES: dict[str, tuple[str, list[str], str, list[str]]] = {
    "tcp": ("TCP NewReno and DCTCP", ["tcp", "dctcp"],
            "NewReno (`tcp`) and DCTCP (`dctcp`) share one sender and receiver; their window "
            "policies are two congestion controllers. D2TCP and MCP are further variants of the "
            "same family, on their own pages ([D2TCP](d2tcp.md), [MCP](mcp.md)).",
            ["tcp/mod.rs", "tcp/cc/newreno.rs", "tcp/cc/dctcp.rs"]),
    "d2tcp": ("D2TCP", ["d2tcp"],
              "DCTCP with a deadline-aware window cut. It takes every key of "
              "[DCTCP](tcp.md) as well as its own.", ["d2tcp/mod.rs"]),
    "mcp": ("MCP", ["mcp"],
            "A deadline-aware window update. Flows without a deadline run [DCTCP](tcp.md); "
            "MCP takes every DCTCP key as well as its own.", ["mcp/mod.rs"]),
    "rcp": ("RCP", ["rcp"], "Explicit rates from every link, emulating processor sharing.",
            ["rcp/mod.rs"]),
    "d3": ("D3", ["d3"], "Deadline-driven rate reservations, first come first served.",
           ["d3/mod.rs"]),
    "pfabric": ("pFabric", ["pfabric"],
                "Priority scheduling by remaining size in the switches, minimal rate control "
                "at the hosts.", ["pfabric/mod.rs"]),
    "pdq": ("PDQ and M-PDQ", ["pdq", "mpdq"],
            "Preemptive flow scheduling by the switches; `mpdq` splits each flow into PDQ "
            "subflows (Multipath PDQ, §6 of the same paper).", ["pdq/mod.rs"]),
    "merp": ("MERP", ["merp"],
             "Flow scheduling by minimum expansion ratio, with its route control MEMR "
             "(`routing.lb = \"memr\"`, see [Path choices](../path-choices.md)).",
             ["merp/mod.rs"]),
    "pace": ("PACE", ["pace"],
             "Receiver-driven credits cut by every port to a weighted max-min share.",
             ["pace/mod.rs"]),
}

LINK_CODE = re.compile(r"\[(`[^`\]]+`)\]\((?!https?:)[^)\s]+\)")  # [`x`](path) -> `x`
LINK_TEXT = re.compile(r"\[([^\]`]+)\]\((?!https?:)[^)\s]*(?:::|#|@)[^)\s]*\)")  # [text](a::b)
SHORT = re.compile(r"(?<!\\)\[(`[^`\]]+`)\](?!\()")  # [`x`] -> `x`


def module_doc(path: Path) -> list[str]:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//!"):
            if lines and line.strip():  # the first item after the doc ends it
                break
            continue
        lines.append(line[4:] if line.startswith("//! ") else line[3:])
    return lines


def convert(lines: list[str], drop_title: bool) -> str:
    out = []
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        if not in_code:
            if line.startswith("#"):
                if drop_title and i == 0:
                    continue
                if not drop_title:  # sections are `#` in the module: one level down
                    line = "#" + line
            line = LINK_CODE.sub(r"\1", line)
            line = LINK_TEXT.sub(r"\1", line)
            line = SHORT.sub(r"\1", line)
            # Python-Markdown indents a list item's blocks by 4 spaces (rustdoc: 2), and
            # starts a list only after a blank line.
            indent = len(line) - len(line.lstrip(" "))
            if indent and line.strip():
                line = " " * indent + line
            prev = out[-1] if out else ""
            prev_indent = len(prev) - len(prev.lstrip(" "))
            if re.match(r"\s*[-*] ", line) and prev.strip() \
                    and not re.match(r"\s*[-*] ", prev) and prev_indent <= 2 * indent:
                out.append("")  # after its parent's text, not a sibling's
        out.append(line)
    return "\n".join(out).strip() + "\n"


def page(name: str) -> str:
    title, protocols, intro, files = PAGES[name]
    values = ", ".join(f'`transport.protocol = "{p}"`' for p in protocols)
    sources = ", ".join(f"`crates/dcnsim/src/protocols/{f}`" for f in files)
    parts = [
        f"# {title}\n",
        f"{values}. {intro}\n",
        "Every key with its default and unit is also listed in "
        "[Scenario files](../scenarios.md#transport). The text below is the module doc of "
        f"{sources}, the source of truth (this page is generated from it by "
        "`docs/tools/transport_pages.py`).\n",
    ]
    for f in files:
        lines = module_doc(SRC / f)
        first = lines[0] if lines else ""
        if f.endswith("mod.rs"):
            text = convert(lines, drop_title=first.startswith("# "))
        else:  # a controller's doc: a section of its own
            heading = {"newreno.rs": "The NewReno controller",
                       "dctcp.rs": "The DCTCP controller"}[Path(f).name]
            text = f"## {heading}\n\n" + convert(lines, drop_title=False).replace(
                "\n## ", "\n### ")
        parts.append(text)
    return "\n".join(parts)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        (OUT / f"{name}.md").write_text(page(name), encoding="utf-8")


if __name__ == "__main__":
    main()
