"""The transport pages of the manual are their module docs: each docs/transports/<name>.md is
what docs/tools/transport_pages.py makes of the module doc today (edit the module doc, then
run the script)."""

from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT, real_core_available

SCRIPT = ROOT / "docs" / "tools" / "transport_pages.py"
_spec = importlib.util.spec_from_file_location("transport_pages", SCRIPT)
pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pages)


@pytest.mark.parametrize("name", sorted(pages.PAGES))
def test_the_page_is_the_module_doc_of_today(name):
    written = (ROOT / "docs" / "transports" / f"{name}.md").read_text(encoding="utf-8")
    assert written == pages.page(name), (
        f"docs/transports/{name}.md differs from its module doc: run "
        "python3 docs/tools/transport_pages.py")


@pytest.mark.skipif(not real_core_available(), reason="the compiled core is not built")
def test_every_protocol_has_a_page():
    import dcnsim

    covered = {p for _, protocols, _, _ in pages.PAGES.values() for p in protocols}
    listed = {name for name, _ in dcnsim.catalog()["protocols"]}
    assert listed <= covered, f"protocols without a page: {sorted(listed - covered)}"
