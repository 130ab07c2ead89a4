#!/usr/bin/env python3
"""A scripted stand-in for the person at the browser, for the login tests.

It does what a person does on the provider's pages, over plain HTTP:
  consent_browser.py URL                 GET the authorization page, POST the
                                         consent form, follow the provider's
                                         redirect to the loopback callback.
  consent_browser.py --print-redirect URL  as above, but print the redirect
                                         address instead of visiting it (the
                                         "browser on another machine": the
                                         test pastes it).
  consent_browser.py --follow URL        follow the provider's redirects (an
                                         IdP routed by `idp=`) until one leaves
                                         the web for an app's URL scheme, and
                                         hand that to the scheme handler's
                                         command, `$PASSKEY_PROGRAM invoke URL`.
  consent_browser.py --activate URL      the device flow: open the
                                         verification_uri_complete page and
                                         approve the user code on it.
A `file://` address (what `passkey login` hands a browser: its launch
page) is read and followed to the address its refresh names, as a browser
would; the log then says where the page was, its mode and its directory's.
Environment: CONSENT_WAIT_SCANS (`:`-separated counter files of
proc_watcher.py: wait until each has made two passes over /proc, as a real
browser is slow to start), CONSENT_USER (default alice), CONSENT_FIELD (the form field
naming the user: `user` for passkey-devserver, `sub` for oidc-provider-mock),
CONSENT_ACTION (allow or deny; sent as `action`), CONSENT_LOG (a file to
append what happened to, for the test to read), CONSENT_OPEN (`gio`: --follow
hands an app URL to `gio open`, as a desktop browser does, instead of
`$PASSKEY_PROGRAM invoke -`).
"""
import html
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)


def log(line):
    path = os.environ.get("CONSENT_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


def fetch(url, data=None):
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=body), timeout=15) as response:
            return response.status, response.headers, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode(errors="replace")


def wait_for_watchers():
    paths = [path for path in os.environ.get("CONSENT_WAIT_SCANS", "").split(":") if path]

    def count(path):
        try:
            with open(path) as f:
                return int(f.read() or 0)
        except (OSError, ValueError):
            return 0

    start = {path: count(path) for path in paths}
    deadline = time.monotonic() + 60
    while any(count(path) < start[path] + 2 for path in paths):
        if time.monotonic() > deadline:
            log("wait: the watchers made no progress")
            sys.exit(1)
        time.sleep(0.01)


def open_launch_page(address):
    path = urllib.parse.unquote(urllib.parse.urlsplit(address).path)
    page = os.lstat(path)
    folder = os.lstat(os.path.dirname(path))
    log(f"launch page: {path} mode {page.st_mode & 0o777:o} directory {folder.st_mode & 0o777:o}")
    with open(path) as f:
        content = f.read()
    match = re.search(r'<meta http-equiv="refresh" content="0;url=([^"]*)">', content)
    if not match:
        log("launch page: no refresh")
        sys.exit(1)
    url = html.unescape(match.group(1))
    log(f"launch page goes to: {url}")
    return url


def consent(url):
    status, _, _ = fetch(url)
    if status != 200:
        log(f"authorization page: HTTP {status}")
        sys.exit(1)
    form = {os.environ.get("CONSENT_FIELD", "user"): os.environ.get("CONSENT_USER", "alice")}
    action = os.environ.get("CONSENT_ACTION", "allow")
    if os.environ.get("CONSENT_FIELD", "user") == "user":
        form["action"] = action
    elif action == "deny":
        form = {"action": "deny"}
    status, headers, _ = fetch(url, form)
    location = headers.get("Location") if headers else None
    if status not in (302, 303) or not location:
        log(f"consent: HTTP {status}, no redirect")
        sys.exit(1)
    return location


def follow(url):
    import subprocess
    for _ in range(10):
        status, headers, _ = fetch(url)
        location = headers.get("Location") if headers else None
        if status not in (301, 302, 303, 307) or not location:
            log(f"follow: HTTP {status} without a redirect")
            sys.exit(1)
        location = urllib.parse.urljoin(url, location)
        if not location.startswith(("http://", "https://")) and os.environ.get("CONSENT_OPEN") == "gio":
            # As a desktop browser does: the app URL goes to its handler
            # through GIO (D-Bus activation), never on the handler's command line.
            log("follow: opening an app URL with gio open")
            opened = subprocess.run(["gio", "open", location], capture_output=True, text=True)
            log(f"gio open: exit {opened.returncode}: {opened.stderr.strip()}")
            sys.exit(opened.returncode)
        if not location.startswith(("http://", "https://")):
            log("follow: handing over an app URL")
            # On standard input: a command line is readable by every local user,
            # and `passkey invoke` refuses a URL with a query there.
            handler = subprocess.run([os.environ["PASSKEY_PROGRAM"], "invoke", "-"], input=location + "\n",
                                     capture_output=True, text=True)
            log(f"invoke: exit {handler.returncode}: {handler.stdout.strip()} {handler.stderr.strip()}")
            sys.exit(handler.returncode)
        url = location
    log("follow: too many redirects")
    sys.exit(1)


def main():
    wait_for_watchers()
    args = sys.argv[1:]
    if args and args[-1].startswith("file://"):
        args[-1] = open_launch_page(args[-1])
    if args and args[0] == "--follow":
        follow(args[1])
        return
    if args and args[0] == "--activate":
        url = args[1]
        status, _, _ = fetch(url)
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        form = {"user_code": query.get("user_code", ""), "user": os.environ.get("CONSENT_USER", "alice"),
                "action": os.environ.get("CONSENT_ACTION", "allow")}
        target = urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(query=""))
        status, _, _ = fetch(target, form)
        log(f"activate: HTTP {status}")
        sys.exit(0 if status in (200, 302, 303) else 1)
    if args and args[0] == "--print-redirect":
        print(consent(args[1]))
        return
    location = consent(args[0])
    status, _, _ = fetch(location)
    log(f"callback: HTTP {status}")


main()
