"""A stand-in Kubernetes API server for the exec-credential tests: HTTPS on
127.0.0.1 with the certificate it is given, it records each request's
`Authorization` header (a JSON line in --log) and answers only discovery
(`/api`, `/apis`), to a bearer token; anything else is 404.

Usage: kube_api_standin.py --cert PEM --key PEM --log FILE
Prints "listening PORT" once it accepts connections.
"""
import argparse, json, ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

arguments = argparse.ArgumentParser()
arguments.add_argument("--cert", required=True)
arguments.add_argument("--key", required=True)
arguments.add_argument("--log", required=True)
options = arguments.parse_args()


class APIHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        authorization = self.headers.get("Authorization")
        with open(options.log, "a") as log:
            log.write(json.dumps({"path": self.path, "authorization": authorization}) + "\n")
        if not (authorization or "").startswith("Bearer "):
            return self.answer(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                     "reason": "Unauthorized", "code": 401})
        path = self.path.partition("?")[0]
        if path == "/api":
            return self.answer(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % self.server.server_address[1]}]})
        if path == "/apis":
            return self.answer(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": []})
        self.answer(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})


server = ThreadingHTTPServer(("127.0.0.1", 0), APIHandler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(options.cert, options.key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
