"""`rosenblatt serve`'s page driven in headless Chromium as a person would use it: a
SpamAssassin spam pasted into the page is explained with `classify --explain --format
jsonl`'s verdict and contributions (each coloured word its feature's, red towards spam and
green towards ham, deeper for a larger contribution); its words are reached and read by
keyboard; the same spam judged over rspamd's protocol is taken apart from the recent
verdicts by keyboard with the credential, and not without it; and "this is ham" is
refused without the credential and, with it typed into the page, learns the message and
the page shows the score move. Skips, saying why (pytest -rs prints it), where selenium,
chromium or chromedriver is absent (.ci/run installs them)."""

import json
import urllib.request

import pytest

import pagedriver

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    pytest.skip("no selenium (pip install selenium)", allow_module_level=True)

_found = pagedriver.browser_paths()
if isinstance(_found, str):
    pytest.skip(_found, allow_module_level=True)

#: Messages of each class the filter is trained on.
TRAINED = 30


def classify(store, message):
    """`classify --explain --format jsonl -m STORE MESSAGE`: its one record. (A filter's
    exit code is its verdict: 0 spam, 1 ham.)"""
    out = pagedriver.run(
        "classify", "--explain", "--format", "jsonl", "-m", store, message, codes=(0, 1)
    )
    return json.loads(out)


def num(x):
    """A number as the page writes it (four decimals)."""
    return f"{x:.4f}"


def verdict_line(c):
    """The page's verdict line for `classify`'s record `c`."""
    p = f", P(spam) {num(c['probability'])}"
    return f"{c['label']}: score {num(c['score'])}{p} (bias {num(c['bias'])})"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A daemon on a filter trained on the shipped corpus, a spam it was not trained on
    and that it judges spam, and Chromium at the page."""
    dir = tmp_path_factory.mktemp("page")
    store, rest = pagedriver.filter_store(dir, TRAINED)
    spam = None
    for f in rest["spam"]:
        raw = f.read_bytes()
        # A message a textarea holds as it is: UTF-8 without carriage returns, and short.
        if b"\r" in raw or len(raw) > 4000:
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if classify(store, f)["label"] == "spam":
            spam = f
            break
    assert spam is not None, "no spam of the corpus for the page"
    with pagedriver.Serve(store, dir) as daemon:
        driver = pagedriver.chrome()
        try:
            driver.get(daemon.url)
            driver.execute_cdp_cmd(
                "Browser.grantPermissions",
                {"origin": daemon.url.rstrip("/"),
                 "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
            )
            yield {"driver": driver, "store": store, "spam": spam, "url": daemon.url}
        finally:
            driver.quit()


def wait(driver, until, seconds=10):
    return WebDriverWait(driver, seconds).until(lambda d: until(d))


def paste(driver, text):
    """Puts `text` on the clipboard and pastes it (Ctrl+V) into the emptied message box."""
    failed = driver.execute_async_script(
        "const done = arguments[1];"
        "navigator.clipboard.writeText(arguments[0]).then(() => done(null), (e) => done(String(e)));",
        text,
    )
    assert failed is None, f"the clipboard refused the message: {failed}"
    box = driver.find_element(By.ID, "message")
    box.clear()
    box.click()
    box.send_keys(Keys.CONTROL, "v")
    wait(driver, lambda d: d.find_element(By.ID, "message").get_property("value") == text)


def explained(page):
    """Pastes the spam and explains it by keyboard (Ctrl+Enter in the box): the verdict
    line shown."""
    driver = page["driver"]
    driver.get(driver.current_url)
    paste(driver, page["spam"].read_text())
    driver.find_element(By.ID, "message").send_keys(Keys.CONTROL, Keys.ENTER)
    wait(driver, lambda d: d.find_element(By.ID, "result").is_displayed())
    return driver.find_element(By.ID, "verdict").text


#: Every coloured word of the explanation: its text, colour class, feature, contribution,
#: details, and the header field it is in ("" for the text).
WORDS = """
return [...document.querySelectorAll("#result .w")].map((w) => ({
  text: w.textContent,
  cls: [...w.classList].find((c) => /^[sh][1-5]$/.test(c)),
  feature: w.dataset.feature,
  contribution: Number(w.dataset.contribution),
  tip: w.dataset.tip,
  field: w.parentElement.id === "text" ? "" : w.parentElement.previousElementSibling.textContent,
}));
"""


def test_a_pasted_spam_is_explained_as_classify_explains_it(page):
    driver = page["driver"]
    line = explained(page)
    # The page read the very bytes of the file.
    pasted = driver.find_element(By.ID, "message").get_property("value")
    assert pasted.encode() == page["spam"].read_bytes()
    c = classify(page["store"], page["spam"])
    assert c["label"] == "spam"
    assert line == verdict_line(c)
    contributions = {f["feature"]: f["contribution"] for f in c["features"]}

    words = driver.execute_script(WORDS)
    body = [w for w in words if not w["field"]]
    assert len(body) > 10, f"{len(body)} words coloured in the text"
    assert any(w["field"] for w in words), "no header field word coloured"
    for w in words:
        prefix = f"{w['field']}:" if w["field"] else ""
        assert w["feature"] == prefix + w["text"].lower(), w
        assert w["feature"] in contributions, f"{w['feature']} is no feature classify names"
        assert w["contribution"] == contributions[w["feature"]], w
        toward = "s" if w["contribution"] > 0 else "h"
        assert w["cls"][0] == toward, f"{w['feature']} ({w['contribution']}) coloured {w['cls']}"
        assert w["feature"] in w["tip"] and num(w["contribution"]) in w["tip"], w
    # The colours' order is the contributions': red deepens as the contribution grows
    # towards spam, green as it grows towards ham.
    signed = lambda w: int(w["cls"][1]) * (1 if w["cls"][0] == "s" else -1)
    ordered = sorted(words, key=lambda w: w["contribution"])
    for a, b in zip(ordered, ordered[1:]):
        assert signed(a) <= signed(b), f"{a['feature']} {a['cls']} vs {b['feature']} {b['cls']}"
    reddest = max(words, key=signed)
    assert reddest["contribution"] == max(w["contribution"] for w in words)
    assert signed(reddest) > signed(min(words, key=signed))
    # The strongest features' table is classify's list, in its order.
    rows = [
        [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        for tr in driver.find_elements(By.CSS_SELECTOR, "#features tbody tr")
    ]
    assert rows == [
        [f["feature"], num(f["weight"]), num(f["value"]), num(f["contribution"])]
        for f in c["features"][:25]
    ]


def test_the_words_are_reached_and_read_by_keyboard(page):
    driver = page["driver"]
    explained(page)
    tip = driver.find_element(By.ID, "tip")
    assert not tip.is_displayed()
    # From the Explain button, Tab passes the learning buttons and reaches a word.
    driver.find_element(By.ID, "explain-button").send_keys("")
    active = driver.switch_to.active_element
    for _ in range(4):
        active.send_keys(Keys.TAB)
        active = driver.switch_to.active_element
        if "w" in active.get_attribute("class").split():
            break
    else:
        pytest.fail("Tab from the Explain button reaches no word")
    assert tip.is_displayed()
    assert tip.text == active.get_attribute("data-tip")
    assert active.get_attribute("data-feature") in tip.text
    # The arrow keys move to the next word of its block, whose details then show.
    block = active.find_element(By.XPATH, "..")
    first = active.get_attribute("data-feature")
    active.send_keys(Keys.ARROW_RIGHT)
    nxt = driver.switch_to.active_element
    assert nxt.find_element(By.XPATH, "..") == block
    assert nxt != active and "w" in nxt.get_attribute("class").split()
    assert tip.is_displayed() and tip.text == nxt.get_attribute("data-tip")
    nxt.send_keys(Keys.ARROW_LEFT)
    assert driver.switch_to.active_element.get_attribute("data-feature") == first
    # Escape hides the details; Tab leaves the block instead of walking its words.
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not tip.is_displayed()
    driver.switch_to.active_element.send_keys(Keys.TAB)
    after = driver.switch_to.active_element
    left = after.find_element(By.XPATH, "..") != block
    assert left or "w" not in after.get_attribute("class").split()


def test_a_recent_verdict_is_explained_by_keyboard_with_the_credential(page):
    driver = page["driver"]
    # The spam judged over rspamd's protocol is the newest recent verdict.
    request = urllib.request.Request(
        page["url"] + "checkv2", data=page["spam"].read_bytes(), method="POST"
    )
    urllib.request.urlopen(request).read()
    driver.get(page["url"])
    status = driver.find_element(By.ID, "status")
    first = (By.CSS_SELECTOR, "#history tbody tr:first-child button")
    wait(driver, lambda d: d.find_elements(*first))
    # Without the credential the message is not shown.
    driver.find_element(*first).send_keys(Keys.ENTER)
    wait(driver, lambda d: status.text)
    assert status.get_attribute("class") == "error" and "credential" in status.text
    assert not driver.find_element(By.ID, "result").is_displayed()
    # With it, Enter on the newest verdict's button takes it apart and moves the focus
    # to its verdict.
    driver.find_element(By.ID, "key").send_keys(pagedriver.KEY)
    driver.find_element(*first).send_keys(Keys.ENTER)
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "verdict")
    assert status.get_attribute("class") == ""
    c = classify(page["store"], page["spam"])
    assert driver.find_element(By.ID, "verdict").text == verdict_line(c)


def test_learning_as_ham_needs_the_credential_and_moves_the_score(page):
    driver = page["driver"]
    before = explained(page)
    status = driver.find_element(By.ID, "status")
    ham = driver.find_element(By.ID, "learn-ham")
    wait(driver, lambda d: ham.is_displayed())
    # Without the credential: refused, nothing learned.
    key = driver.find_element(By.ID, "key")
    key.clear()
    ham.click()
    wait(driver, lambda d: status.text)
    assert status.get_attribute("class") == "error"
    assert "credential" in status.text
    assert driver.find_element(By.ID, "verdict").text == before
    assert classify(page["store"], page["spam"])["score"] == pytest.approx(
        float(before.split("score ")[1].split(",")[0]), abs=1e-4
    )
    # With it typed into the page: learned, and the page shows the score move.
    key.send_keys(pagedriver.KEY)
    ham.click()
    wait(driver, lambda d: status.text.startswith("Learned as ham"))
    assert status.get_attribute("class") == ""
    wait(driver, lambda d: d.find_element(By.ID, "verdict").text != before)
    after = driver.find_element(By.ID, "verdict").text
    c = classify(page["store"], page["spam"])
    assert after == verdict_line(c)
    score = lambda line: float(line.split("score ")[1].split(",")[0])
    assert score(after) < score(before)
    # Refused again once the credential is gone.
    key.clear()
    driver.find_element(By.ID, "learn-spam").click()
    wait(driver, lambda d: status.get_attribute("class") == "error")
    assert "credential" in status.text
    assert classify(page["store"], page["spam"])["score"] == c["score"]
