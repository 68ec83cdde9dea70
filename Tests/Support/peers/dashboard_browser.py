"""Drives the dashboard in headless Chromium (Debian's chromium and chromium-driver) through
Selenium, for DashboardBrowserTests: signs in through the form, reads the cookie's flags,
the figures on the page, looks a customer up, measures a phone-width view, and saves a
screenshot of each view. JavaScript is off in the browser: the page must work without it.

It checks nothing against the store itself: it prints what it saw as one JSON object on
stdout, and the Swift test compares that with the store. Nothing here may download a
browser or a driver: both paths are given explicitly, and Selenium Manager is off.

usage: dashboard_browser.py BASE_URL TOKEN CUSTOMER_ID ENVIRONMENT SCREENSHOT_DIR
"""
import json
import os
import sys
import urllib.parse

# No Selenium Manager: nothing is looked up or downloaded.
os.environ["SE_OFFLINE"] = "true"
os.environ.pop("SE_MANAGER_PATH", None)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    # The page has no script and must not need one: JavaScript is off for every page.
    options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def click_and_wait(driver, element):
    """Clicks a link or a form's button and waits for the next page: click() may return
    before the answer arrives, and reading the page or the cookies then reads the old ones."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 20).until(expected_conditions.staleness_of(page))


def texts(driver, selector):
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]


def view(driver, name, shots):
    """What one view shows: its headings, captions, table cells, and whether it rendered."""
    path = os.path.join(shots, name + ".png")
    driver.save_screenshot(path)
    body = driver.find_element(By.TAG_NAME, "body")
    return {
        "url": driver.current_url,
        "title": driver.title,
        "h1": texts(driver, "h1"),
        "h2": texts(driver, "h2"),
        "strong": texts(driver, "p strong"),
        "cells": texts(driver, "td"),
        "captions": texts(driver, "figcaption"),
        "story": texts(driver, "ol.story li"),
        "alerts": texts(driver, "[role=alert]"),
        "svgCount": len(driver.find_elements(By.TAG_NAME, "svg")),
        "scriptTags": driver.page_source.count("<script"),
        "bodyTextLength": len(body.text),
        "bodyHeight": body.size["height"],
        "h1Displayed": all(element.is_displayed() for element in driver.find_elements(By.TAG_NAME, "h1")),
        "screenshot": path,
        "screenshotBytes": os.path.getsize(path),
    }


def overflow(driver):
    """The page's width against the viewport's, read through the DevTools protocol (the
    page's own JavaScript is off)."""
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    return {"contentWidth": metrics["cssContentSize"]["width"],
            "viewportWidth": metrics["cssLayoutViewport"]["clientWidth"]}


def main():
    base, token, customer, environment, shots = sys.argv[1:6]
    os.makedirs(shots, exist_ok=True)
    report = {}
    driver = browser()
    try:
        # JavaScript really is off: a page whose script would retitle it keeps its title.
        driver.get("data:text/html,<title>off</title><script>document.title='on'</script>")
        report["javascriptEnabled"] = driver.title != "off"
        driver.get(base + "/dashboard")
        report["form"] = view(driver, "1-sign-in", shots)
        report["form"]["fields"] = [element.get_attribute("name") for element in driver.find_elements(By.TAG_NAME, "input")]
        field = driver.find_element(By.CSS_SELECTOR, "form[method=post] input[name=token]")
        field.send_keys(token)
        click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button[type=submit]"))
        cookie = driver.get_cookie("storekeeper_dashboard") or {}
        report["cookie"] = {key: cookie.get(key) for key in ("httpOnly", "secure", "sameSite", "path", "expiry", "domain")}
        report["cookieCarriesToken"] = token in (cookie.get("value") or "")
        report["afterSignIn"] = {"url": driver.current_url, "h1": texts(driver, "h1")}
        # The view's link, as a person would follow it.
        click_and_wait(driver, driver.find_element(By.LINK_TEXT, environment))
        report["overview"] = view(driver, "2-overview", shots)
        report["overview"]["active"] = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "p")
                                        if element.text.startswith("Active subscriptions:")]

        lookup = driver.find_element(By.CSS_SELECTOR, "form[method=get] input[name=customer]")
        lookup.send_keys(customer)
        click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[method=get] button[type=submit]"))
        report["customer"] = view(driver, "3-customer", shots)

        driver.get(base + "/dashboard?environment=" + environment + "&customer=no-such-customer-42")
        report["missing"] = view(driver, "4-no-such-customer", shots)

        # A phone: 390×844 CSS pixels, three device pixels each.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        driver.get(base + "/dashboard?environment=" + environment)
        report["phoneOverview"] = view(driver, "5-phone-overview", shots) | overflow(driver)
        driver.get(base + "/dashboard?customer=" + urllib.parse.quote(customer, safe=""))
        report["phoneCustomer"] = view(driver, "6-phone-customer", shots) | overflow(driver)
    finally:
        driver.quit()
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
