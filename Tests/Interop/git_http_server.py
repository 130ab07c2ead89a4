"""A git smart-HTTP server on 127.0.0.1 for the credential-helper tests:
Debian's `git http-backend` (CGI) behind Python's http.server, letting in
only requests whose `Authorization: Basic` password is an access token the
OpenID provider accepts at its userinfo endpoint (so: one it issued, still
valid). Each request's verdict is appended to --log as a JSON line.

Usage: git_http_server.py --root DIR --userinfo URL --log FILE
Prints "listening PORT" once it accepts connections.
"""
import argparse, base64, json, os, subprocess, sys, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

arguments = argparse.ArgumentParser()
arguments.add_argument("--root", required=True)
arguments.add_argument("--userinfo", required=True)
arguments.add_argument("--log", required=True)
options = arguments.parse_args()


def provider_accepts(token):
    """The subject the provider's userinfo endpoint names for this bearer token, or None."""
    request = urllib.request.Request(options.userinfo, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return json.load(answer).get("sub")
    except (urllib.error.URLError, ValueError):
        return None


class GitHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def serve(self):
        user, password = None, None
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                pass
        subject = provider_accepts(password) if password else None
        with open(options.log, "a") as log:
            log.write(json.dumps({"path": self.path, "method": self.command, "user": user,
                                  "password": password, "subject": subject}) + "\n")
        body = self.body()
        if subject is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        environment = dict(os.environ, GIT_PROJECT_ROOT=options.root, GIT_HTTP_EXPORT_ALL="1",
                           PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                           CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                           REMOTE_USER=subject, REMOTE_ADDR="127.0.0.1",
                           HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                           GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        result = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=environment)
        head, _, content = result.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)


server = ThreadingHTTPServer(("127.0.0.1", 0), GitHandler)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
