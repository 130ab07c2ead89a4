#!/usr/bin/env python3
"""A real browser as the person at the login: Debian's headless Chromium,
driven through WebDriver (chromium-driver, with Selenium from the test venv).

  chromium_browser.py ADDRESS         the browser flow: open ADDRESS (what
                                      `passkey login` hands $BROWSER: its
                                      file:// launch page), let the page's
                                      refresh take the browser to the
                                      provider, approve there with the
                                      development shortcut as CHROMIUM_USER,
                                      let the provider redirect to the
                                      loopback listener, then reload that
                                      page once, as an impatient person does.
  chromium_browser.py --activate URL  the device flow: open
                                      verification_uri_complete and approve
                                      its user code.

Chromium behaves as people's browsers do — speculative preconnects,
/favicon.ico, keep-alive, redirects followed for real — which is what the
listener must survive. A screenshot of each page goes to CHROMIUM_SHOTS (a
directory); one line per step to CHROMIUM_LOG. Exit 0 only when the flow
reached the listener's page (or the device approval was accepted).
"""
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# A page that navigates (a submitted form, a refresh, a redirect) between
# finding an element and reading it makes the element stale: every wait
# looks again instead of failing.
STALE = (StaleElementReferenceException,)


def wait(driver, seconds, condition):
    return WebDriverWait(driver, seconds, ignored_exceptions=STALE).until(condition)


def body_text(driver):
    """The page's text, read again if the page changed under the read."""
    return wait(driver, 10, lambda d: (d.find_element(By.TAG_NAME, "body").text,))[0]


def log(line):
    path = os.environ.get("CHROMIUM_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--window-size=1000,800",
                     "--user-data-dir=" + tempfile.mkdtemp(prefix="chromium-profile.")):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


shots = 0


def screenshot(driver, name):
    global shots
    folder = os.environ.get("CHROMIUM_SHOTS")
    if folder:
        shots += 1
        driver.save_screenshot(os.path.join(folder, f"{shots:02d}-{name}.png"))


def approve(driver):
    """The provider's sign-in page: the development shortcut's form."""
    wait(driver, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "fieldset.shortcut input[name=user]"))
    screenshot(driver, "provider")

    def fill_and_allow(d):
        field = d.find_element(By.CSS_SELECTOR, "fieldset.shortcut input[name=user]")
        field.clear()
        field.send_keys(os.environ.get("CHROMIUM_USER", "alice"))
        d.find_element(By.CSS_SELECTOR, "fieldset.shortcut button[value=allow]").click()
        return True
    wait(driver, 30, fill_and_allow)


def browser_flow(driver, address):
    driver.get(address)
    log(f"opened the launch page; now at {driver.current_url.split('?')[0]}")
    approve(driver)
    wait(driver, 30, lambda d: d.current_url.startswith("http://127.0.0.1:")
                                and "/oauth2/" not in d.current_url and "/v1/" not in d.current_url)
    wait(driver, 10, lambda d: d.find_elements(By.TAG_NAME, "body"))
    text = body_text(driver)
    log(f"callback page: {text[:200]!r}")
    screenshot(driver, "callback")
    # A second visit to the one-shot callback (a reload): whatever the
    # browser shows, the login it already finished must stand.
    driver.refresh()
    wait(driver, 10, lambda d: d.execute_script("return document.readyState") == "complete")
    screenshot(driver, "callback-reloaded")
    log("reloaded the callback page")
    return bool(text)


def device_flow(driver, url):
    driver.get(url)
    approve(driver)
    wait(driver, 30, lambda d: "allow" not in d.find_element(By.TAG_NAME, "body").text.lower()
                                or d.current_url != url)
    text = body_text(driver)
    log(f"after approval: {text[:200]!r}")
    screenshot(driver, "device-approved")
    return True


def main():
    args = sys.argv[1:]
    driver = browser()
    try:
        if args[:1] == ["--activate"]:
            ok = device_flow(driver, args[1])
        else:
            ok = browser_flow(driver, args[-1])
    except Exception as error:  # the test reads the log: say what failed
        log(f"failed: {type(error).__name__}: {str(error)[:300]}")
        screenshot(driver, "failure")
        ok = False
    finally:
        driver.quit()
        log("done")
    sys.exit(0 if ok else 1)


main()
