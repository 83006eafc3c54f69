"""Screenshots of `rosenblatt serve`'s page, in headless Chromium: docs/page-filter.png
(the filter in service), docs/page-history.png (the recent verdicts) and
docs/page-explain.png (a spam taken apart, one word's details shown). The filter is
trained on 400 messages of each class of the shipped SpamAssassin corpus; 16 messages it
was not trained on are judged over rspamd's protocol and two learned from the page's
JSON, so that the counts, the chart and the history have something to show. Run by
docs/screenshots.sh, which builds the program and finds selenium; takes under a minute."""

import base64
import pathlib
import sys
import tempfile
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "browser"))
import pagedriver  # noqa: E402

DOCS = pathlib.Path(__file__).resolve().parent
WIDTH = 1100


def post(url, body, headers=None):
    """POSTs `body` to `url`; the answer's body."""
    req = urllib.request.Request(url, data=body, method="POST", headers=headers or {})
    with urllib.request.urlopen(req) as r:
        return r.read()


def whole(driver):
    """Makes the viewport as tall as the page (a window is bounded by the screen), so
    that the page is drawn whole and nothing scrolls."""
    height = driver.execute_script("return document.documentElement.scrollHeight;")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": height + 100, "deviceScaleFactor": 1, "mobile": False},
    )


def shot(driver, selector, name, from_top=False):
    """The page's full width over the element `selector` (from the page's top when
    `from_top`), written to docs/NAME."""
    whole(driver)
    top, bottom = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return [r.top + window.scrollY, r.bottom + window.scrollY];",
        selector,
    )
    top = 0 if from_top else max(0, top - 8)
    png = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "clip": {"x": 0, "y": top, "width": WIDTH,
                                   "height": bottom + 8 - top, "scale": 1}},
    )["data"]

    (DOCS / name).write_bytes(base64.b64decode(png))
    print(f"docs/{name}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        dir = pathlib.Path(tmp)
        store, rest = pagedriver.filter_store(dir, 400)
        with pagedriver.Serve(store.name, dir, ["--history", "100"], cwd=dir) as daemon:
            for spam, ham in zip(rest["spam"][:8], rest["ham"][:8]):
                for m in (spam, ham):
                    post(daemon.url + "checkv2", m.read_bytes())
            key = {"Password": pagedriver.KEY}
            post(daemon.url + "v1/learn?class=spam", rest["spam"][8].read_bytes(), key)
            post(daemon.url + "v1/learn?class=ham", rest["ham"][8].read_bytes(), key)

            driver = pagedriver.chrome(WIDTH, 1000)
            try:
                driver.get(daemon.url)
                driver.find_element("id", "key").send_keys(pagedriver.KEY)
                driver.execute_script("return refresh();")
                shot(driver, "#filter", "page-filter.png", from_top=True)
                shot(driver, "#recent", "page-history.png")
                # The spam the history judged first, pasted and explained, and the word
                # that adds most towards spam given the focus, which shows its details.
                driver.execute_script(
                    "document.getElementById('message').value = arguments[0];",
                    rest["spam"][0].read_text(errors="replace"),
                )
                driver.find_element("id", "explain-button").click()
                driver.execute_script(
                    "return new Promise((done) => { const t = setInterval(() => {"
                    " if (!document.getElementById('result').hidden) { clearInterval(t); done(); }"
                    " }, 50); });"
                )
                whole(driver)
                driver.execute_script(
                    "const ws = [...document.querySelectorAll('#text .w')];"
                    "ws.sort((a, b) => b.dataset.contribution - a.dataset.contribution);"
                    "ws[0].focus();"
                )
                shot(driver, "#explain", "page-explain.png")
            finally:
                driver.quit()


if __name__ == "__main__":
    main()
