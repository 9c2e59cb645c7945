"""What the dns_ tests share: the DNS responder (dns_server.py) started on
127.0.0.1 with a zone, stopped by its PID (also on failure), and HTTP
origins on 127.0.0.1 that count every request they get."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class DnsServer:
    """with DnsServer(zone) as dns: dns.addr is "127.0.0.1:PORT"."""

    def __init__(self, zone):
        self.zone = zone

    def __enter__(self):
        self.dir = tempfile.TemporaryDirectory()
        zf = os.path.join(self.dir.name, "zone.json")
        with open(zf, "w") as f:
            json.dump(self.zone, f)
        self.port_file = os.path.join(self.dir.name, "port")
        self.log = os.path.join(self.dir.name, "queries.log")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "dns_server.py"), zf,
                                      "--port-file", self.port_file, "--log", self.log])
        deadline = time.time() + 20
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                self.proc.kill()
                raise RuntimeError("the DNS responder did not start")
            time.sleep(0.01)
        with open(self.port_file) as f:
            self.port = int(f.read())
        self.addr = f"127.0.0.1:{self.port}"
        return self

    def queries(self, name=None):
        try:
            with open(self.log) as f:
                lines = [ln.split() for ln in f]
        except FileNotFoundError:
            return []
        return [ln for ln in lines if name is None or ln[0] == name]

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.dir.cleanup()
        return False


class Origin:
    """An HTTP origin on 127.0.0.1:PORT (address given) that answers every
    GET with its name, or with a redirect to `redirect`; counts requests
    and keeps their Host headers."""

    def __init__(self, host="127.0.0.1", name="origin", redirect=None):
        self.host, self.name, self.redirect = host, name, redirect
        self.requests = []

    def __enter__(self):
        origin = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: Content-Length on every answer
            wbufsize = 65536                # the head and the body in one write
            disable_nagle_algorithm = True

            def do_GET(self):
                origin.requests.append((self.path, self.headers.get("Host")))
                if origin.redirect:
                    self.send_response(302)
                    self.send_header("Location", origin.redirect)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = origin.name.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer((self.host, 0), H)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        return False
