"""The checker itself fails where it should: pages made broken on purpose, each in one way."""

from __future__ import annotations

import base64

import pytest

from pagecheck import blank, check_page, missing_targets, served

# a 1x1 PNG
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

PAGES = {
    "good.html": '<h1 id="top">fine</h1><img src="pixel.png"><a href="other.html#part">x</a>'
                 '<a href="#top">top</a><a href="https://example.org/">elsewhere</a>',
    "other.html": '<p id="part">the part</p><a href="sub/">folder</a>',
    "sub/index.html": '<a href="../good.html">back</a>',
    "missing-image.html": '<img src="nowhere.png">',
    "console-error.html": '<script>console.error("something broke")</script>',
    "exception.html": '<script>null.property</script>',
    "empty.html": "",
    "broken-links.html": '<a href="gone.html">a</a><a href="other.html#nope">b</a>',
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    for name, body in PAGES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"<!doctype html><html><body>{body}</body></html>")
    (root / "pixel.png").write_bytes(PIXEL)
    with served(root) as base:
        yield root, base


def _check(browser, pages, name, tmp_path):
    root, base = pages
    problems, links = check_page(browser, base + name, tmp_path / "shot.png")
    assert (tmp_path / "shot.png").read_bytes().startswith(b"\x89PNG")
    return problems, missing_targets(links, base, root)


def test_good_pages_pass(browser, pages, tmp_path):
    for name in ("good.html", "other.html", "sub/index.html"):
        assert _check(browser, pages, name, tmp_path) == ([], [])


def test_an_image_that_did_not_load_fails(browser, pages, tmp_path):
    problems, _ = _check(browser, pages, "missing-image.html", tmp_path)
    assert any(p.startswith("image did not load:") and "nowhere.png" in p for p in problems)
    # and the browser reports its 404 on the console too
    assert any(p.startswith("console severe:") and "404" in p for p in problems)


def test_console_errors_and_exceptions_fail(browser, pages, tmp_path):
    problems, _ = _check(browser, pages, "console-error.html", tmp_path)
    assert len(problems) == 1 and "something broke" in problems[0]
    problems, _ = _check(browser, pages, "exception.html", tmp_path)
    assert len(problems) == 1 and "TypeError" in problems[0]


def test_links_to_no_file_or_no_anchor_fail(browser, pages, tmp_path):
    problems, broken = _check(browser, pages, "broken-links.html", tmp_path)
    assert problems == []
    assert len(broken) == 2
    assert "gone.html" in broken[0] and "no file gone.html" in broken[0]
    assert "no #nope in other.html" in broken[1]


def test_a_page_that_draws_nothing_gives_a_blank_screenshot(browser, pages, tmp_path):
    assert _check(browser, pages, "empty.html", tmp_path) == ([], [])
    assert blank(tmp_path / "shot.png")
    _check(browser, pages, "good.html", tmp_path)
    assert not blank(tmp_path / "shot.png")
