#!/usr/bin/env python3
"""Origin server for the Squid end-to-end test.

Listens on 127.0.0.1 on a free port, prints the port on stdout, and
answers every GET with 200 and a body that echoes the request target it
received ("origin saw: <target>"), so the test can prove that an allowed
request really reached the origin, unchanged. HTTP/1.1 with
Content-Length, so Squid can keep its server connections open.
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (http.server naming)
        body = b"origin saw: " + self.path.encode("latin-1", "replace") + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):  # keep the test output quiet
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
