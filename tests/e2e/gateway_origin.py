#!/usr/bin/env python3
"""Origin server for the gateway end-to-end test (tests/e2e/gateway_e2e.py).

usage: gateway_origin.py LOGFILE

Listens on 127.0.0.1 on a free port, prints the port on stdout, and
answers every request (any method) with 200 and a body echoing the
request target it received ("origin saw: <target>"). Before answering,
it appends repr() of the target's bytes, one per line, to LOGFILE, so
the test can prove that a denied request never reached the origin and
an allowed one arrived unchanged. HTTP/1.1 with Content-Length, so
gateways can keep their connections open.
"""
import http.server
import sys
import threading

LOCK = threading.Lock()
LOG = None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        target = self.path.encode("latin-1", "replace")
        with LOCK:
            LOG.write(repr(target).encode("ascii") + b"\n")
            LOG.flush()
        n = int(self.headers.get("Content-Length") or 0)
        if n > 0:
            self.rfile.read(n)
        body = b"origin saw: " + target + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = answer  # noqa: N815

    def log_message(self, fmt, *args):  # keep the test output quiet
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass   # a gateway closing its idle connections is no error


def main():
    global LOG
    LOG = open(sys.argv[1], "ab", buffering=0)
    srv = Server(("127.0.0.1", 0), Handler)
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
