"""Headless Chromium opens every page of the docs site and a report.html of `dcnsim reproduce`:
each gets a screenshot (site-shots/), and the test fails on a console error, an image that did
not load or a link within the site that leads nowhere."""

from __future__ import annotations

from pagecheck import blank, check_page, missing_targets, served


def _html_pages(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.html"))


def test_every_page_of_the_site_renders_without_errors_and_its_links_lead_somewhere(
        browser, site, shots):
    pages = _html_pages(site)
    assert "index.html" in pages and len(set(pages) - {"index.html", "404.html"}) >= 1
    problems = []
    with served(site) as base:
        for page in pages:
            shot = shots / ("site-" + page.removesuffix(".html").replace("/", "-") + ".png")
            found, links = check_page(browser, base + page, shot)
            found += missing_targets(links, base, site)
            assert any(link.startswith(base) for link in links), f"{page}: no link to the site"
            problems += [f"{page}: {p}" for p in found]
            assert not blank(shot), f"{page}: the screenshot is blank"
    assert not problems, "\n".join(problems)


def test_a_reproduce_report_renders_with_its_figure(browser, report, shots):
    with served(report) as base:
        problems, links = check_page(browser, base + "report.html", shots / "report.png")
        problems += missing_targets(links, base, report)
        figures = browser.execute_script(
            "return Array.from(document.images).filter(i => i.naturalWidth > 0).length")
    assert not problems, "\n".join(problems)
    assert figures >= 1, "the report shows no figure"
    assert not blank(shots / "report.png"), "the screenshot of the report is blank"
