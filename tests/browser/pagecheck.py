"""The checks of the browser test: open a page in headless Chromium, keep a screenshot of it,
and list what is wrong with it: errors on the console (a script's uncaught exception, a
console.error, a resource that failed to load), images that did not load, and links within
the site that lead to no file or to no anchor of their page."""

from __future__ import annotations

import base64
import functools
import http.server
import threading
import time
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

# Screenshots are cut at this height (px): a long report still gives a picture one can open.
MAX_SHOT_HEIGHT = 12_000
IMAGE_TIMEOUT_S = 10.0


@contextmanager
def served(folder: Path):
    """Serves `folder` over HTTP on 127.0.0.1 (a free port) for the time of the block; yields
    the base URL (ending with /). HTTP rather than file:// so that the page's scripts (the
    search's web worker) run as they do on a web server."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # the test reports failures itself
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def start_chromium(chromium: str, chromedriver: str):
    """A headless Chromium driven by Selenium through the distribution's chromedriver (given by
    path, so that Selenium never tries to download one), keeping the console's messages."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--hide-scrollbars", "--no-first-run"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))


_IMAGES_SETTLED = """
for (const img of document.images) { if (img.loading === 'lazy') img.loading = 'eager'; }
return Array.from(document.images).every(img => img.complete);
"""
_BROKEN_IMAGES = """
return Array.from(document.images)
    .filter(img => !img.complete || img.naturalWidth === 0)
    .map(img => (img.currentSrc || img.getAttribute('src') || '(no src)').slice(0, 120));
"""
_LINKS = "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href);"


def check_page(driver, url: str, shot: Path) -> tuple[list[str], list[str]]:
    """Opens `url`, saves a screenshot of the whole page (up to MAX_SHOT_HEIGHT) at `shot` and
    returns (problems, links): the console errors and the images that did not load, and every
    link of the page as the browser resolved it (for `missing_targets`)."""
    driver.get_log("browser")  # what earlier pages left on the console is not this page's
    driver.get(url)
    deadline = time.monotonic() + IMAGE_TIMEOUT_S
    while driver.execute_script("return document.readyState") != "complete" or not (
            driver.execute_script(_IMAGES_SETTLED)):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(0.3)  # scripts run at load (the search's worker) have their moment to fail
    problems = [f"image did not load: {src}" for src in driver.execute_script(_BROKEN_IMAGES)]
    problems += [f"console {e['level'].lower()}: {e['message']}"
                 for e in driver.get_log("browser")
                 if e["level"] == "SEVERE" and not _default_favicon(e["message"])]
    save_screenshot(driver, shot)
    return problems, driver.execute_script(_LINKS)


def _default_favicon(message: str) -> bool:
    """The browser asks for /favicon.ico by itself when a page names no icon (a report.html
    does not, and opened from disk it has no server to ask): not the page's error."""
    return message.split(" ", 1)[0].endswith("/favicon.ico") and "404" in message


def save_screenshot(driver, shot: Path) -> None:
    """The whole page, not only the window (Chrome DevTools' captureBeyondViewport)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": max(1, size["width"]),
            "height": max(1, min(size["height"], MAX_SHOT_HEIGHT)), "scale": 1}
    png = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "clip": clip})["data"]
    shot.parent.mkdir(parents=True, exist_ok=True)
    shot.write_bytes(base64.b64decode(png))


def blank(shot: Path) -> bool:
    """True if the screenshot is one flat colour: nothing was drawn."""
    from PIL import Image

    with Image.open(shot) as image:
        lo, hi = image.convert("L").getextrema()
    return lo == hi


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and (name == "id" or (tag == "a" and name == "name")):
                self.ids.add(value)


@functools.lru_cache(maxsize=None)
def anchors_of(page: Path) -> frozenset[str]:
    parser = _Anchors()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


def missing_targets(links: list[str], base_url: str, root: Path) -> list[str]:
    """The links under `base_url` (the served folder `root`) that lead to no file of `root`, or
    to an anchor (#name) that the target page does not have. Links elsewhere (another site,
    mailto:, javascript:) are not this test's business."""
    problems = []
    for link in links:
        if not link.startswith(base_url):
            continue
        address, fragment = urldefrag(link)
        path = unquote(urlsplit(address).path)[len(urlsplit(base_url).path):]
        target = root / path
        if path == "" or path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"broken link: {link} (no file {target.relative_to(root)})")
        elif fragment and target.suffix == ".html" and unquote(fragment) not in anchors_of(target):
            problems.append(f"broken link: {link} (no #{fragment} in {target.relative_to(root)})")
    return problems
