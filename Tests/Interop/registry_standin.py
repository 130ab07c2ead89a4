"""A stand-in container registry (the distribution API's /v2/ subset that
`docker manifest inspect` reads: the ping, one manifest, its config blob) on 127.0.0.1, for the docker credential
helper's test. It lets in only requests whose `Authorization: Basic`
password is an access token the OpenID provider accepts at its userinfo
endpoint, and appends each request's verdict to --log as a JSON line.

HTTPS with the certificate it is given (docker speaks only TLS to a
registry it is not told is on plain http; `--insecure` skips the check).

Usage: registry_standin.py --cert PEM --key PEM --userinfo URL --log FILE
Prints "listening PORT" once it accepts connections.
"""
import argparse, base64, hashlib, json, ssl, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

arguments = argparse.ArgumentParser()
arguments.add_argument("--cert", required=True)
arguments.add_argument("--key", required=True)
arguments.add_argument("--userinfo", required=True)
arguments.add_argument("--log", required=True)
options = arguments.parse_args()

CONFIG = b'{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}'
LAYER = b"not really a tar"
MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
MANIFEST = json.dumps({
    "schemaVersion": 2, "mediaType": MEDIA_TYPE,
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "size": len(CONFIG),
               "digest": "sha256:" + hashlib.sha256(CONFIG).hexdigest()},
    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "size": len(LAYER),
                "digest": "sha256:" + hashlib.sha256(LAYER).hexdigest()}]}).encode()


def provider_accepts(token):
    request = urllib.request.Request(options.userinfo, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return json.load(answer).get("sub")
    except (urllib.error.URLError, ValueError):
        return None


class RegistryHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.serve(head=True)

    def do_GET(self):
        self.serve(head=False)

    def serve(self, head):
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
        if subject is None:
            return self.answer(401, b'{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}',
                               "application/json", head, [("WWW-Authenticate", 'Basic realm="registry"')])
        path = self.path.partition("?")[0]
        if path == "/v2/":
            return self.answer(200, b"{}", "application/json", head)
        if path.startswith("/v2/") and "/manifests/" in path:
            return self.answer(200, MANIFEST, MEDIA_TYPE, head,
                               [("Docker-Content-Digest", "sha256:" + hashlib.sha256(MANIFEST).hexdigest())])
        if path.startswith("/v2/") and path.endswith("/blobs/sha256:" + hashlib.sha256(CONFIG).hexdigest()):
            return self.answer(200, CONFIG, "application/octet-stream", head)
        self.answer(404, b'{"errors":[{"code":"NAME_UNKNOWN","message":"not here"}]}', "application/json", head)

    def answer(self, status, body, content_type, head, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Docker-Distribution-API-Version", "registry/2.0")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", 0), RegistryHandler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(options.cert, options.key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
