"""Checks mpc's HTML report in headless Chromium: the page loads from the
file alone, its script runs without errors (it marks the body
data-ready="yes"), and it shows its pictures. Writes a screenshot.

usage: check_html.py REPORT.html SCREENSHOT.png
Prints what it found; exits 1 naming the first problem.
"""
import os
import re
import subprocess
import sys
import tempfile

page, screenshot = sys.argv[1:3]
html = open(page, encoding="utf-8").read()
# Self-contained: no scripts, styles or images from anywhere else.
external = re.findall(r'(?:src|href)\s*=\s*"(?!#)[^"]*"|<link\b|@import|url\(', html)
if external:
    sys.exit("the page loads other files: %s" % external[:3])
for address in re.findall(r'https?://[^"\s<]+', html):
    if address != "http://www.w3.org/2000/svg":
        sys.exit("the page names %s" % address)

flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]
url = "file://" + os.path.abspath(page)
with tempfile.TemporaryDirectory() as profile:
    dom = subprocess.run(["chromium", *flags, "--user-data-dir=" + profile, "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
with tempfile.TemporaryDirectory() as profile:
    shot = subprocess.run(["chromium", *flags, "--user-data-dir=" + profile,
                           "--window-size=1280,2000", "--screenshot=" + screenshot, url],
                          capture_output=True, text=True, timeout=120)
errors = [line for line in dom.stderr.splitlines()
          if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
if errors:
    sys.exit("script errors:\n" + "\n".join(errors))
if 'data-ready="yes"' not in dom.stdout:
    sys.exit("the page's script did not finish (no data-ready on the body)")
if not os.path.exists(screenshot) or os.path.getsize(screenshot) < 10000:
    sys.exit("no screenshot: " + shot.stderr[-500:])
print("ready; program %s" % re.search(r'data-program="([^"]*)"', dom.stdout).group(1))
print("pictures: %d" % dom.stdout.count("<svg"))
print("graph ops: %d" % len(re.findall(r'<g class="op"', dom.stdout)))
print("decisions: %d" % dom.stdout.count('<tr data-storage='))
for heading in re.findall(r"<h2>([^<]*)</h2>", dom.stdout):
    print("section: " + heading)
print("screenshot: %d bytes" % os.path.getsize(screenshot))
