"""gateway_rows.py - the requests every gateway door must stop before the
origin, whatever the door: nginx and HAProxy in front of `urisan serve`
(gateway_e2e.py), the Lua blocks of doc/lua.md in nginx and HAProxy
(lua_e2e.py), and any door added later (call check_rows with its port
and its origin). Each row was allowed by some door before the library's
one request judgement: a Host that moves the target into a parameter or
a fragment, a list in Host, a value padded with the white space an
application strips, a "//" path.

A row passes when the gateway answers 403 and the origin never sees the
request; a gateway that refuses the request itself (400: nginx will not
take some of these Hosts) passes too, and is reported as such.
"""
import re
import socket

# (name, raw request, deny reasons one of which the 403 names (None: any))
ROWS = [
    ("Host with '?' moves the target into a parameter",
     b"GET /gw1/hq2?u=http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\n"
     b"Host: www.example.com?a=\r\nConnection: close\r\n\r\n", ["bad_host_header"]),
    ("Host with '#' moves the traversal into a fragment",
     b"GET /gw2/hq6/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n"
     b"Host: www.example.com#\r\nConnection: close\r\n\r\n", None),
    ("Host with a port and '?'",
     b"GET /gw3/ HTTP/1.1\r\nHost: www.example.com:80?a=\r\nConnection: close\r\n\r\n",
     ["bad_host_header"]),
    ("Host with '/?'",
     b"GET /gw4/ HTTP/1.1\r\nHost: www.example.com/?a=\r\nConnection: close\r\n\r\n",
     ["bad_host_header"]),
    ("a parameter padded with U+00A0",
     b"GET /gw5/c8?u=%C2%A0http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\n"
     b"Host: www.example.com\r\nConnection: close\r\n\r\n", ["nested_url"]),
    ("a '//' target",
     b"GET //gw6/169.254.169.254/latest/meta-data/ HTTP/1.1\r\n"
     b"Host: www.example.com\r\nConnection: close\r\n\r\n", ["double_slash_path"]),
    ("a list in Host",
     b"GET /gw7/ HTTP/1.1\r\nHost: 169.254.169.254,www.example.com\r\nConnection: close\r\n\r\n",
     ["bad_host_header"]),
]


def send(port, raw, timeout=20):
    """(status, headers) of raw sent to 127.0.0.1:port, read to the close."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    data = b""
    try:
        s.sendall(raw)
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            data += b
    finally:
        s.close()
    head = data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/\d\.\d (\d{3})", head[0]) if head else None
    hdrs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in head[1:])}
    return (int(m.group(1)) if m else None), hdrs


def check_rows(name, port, seen, log):
    """Send every row to the gateway at port; seen() lists the targets the
    origin received. Returns the failures (empty: every row stopped)."""
    failures = []
    for what, raw, reasons in ROWS:
        before = len(seen())
        status, hdrs = send(port, raw)
        marker = re.search(rb"/gw\d+/", raw.split(b" ")[1]).group(0)
        reached = [t for t in seen()[before:] if marker in t]
        got = hdrs.get("x-urisan-deny-reasons", "")
        if status == 403:
            ok = not reached and (reasons is None or not got or
                                  any(r in got.split(",") for r in reasons))
        else:
            ok = status == 400 and not reached
        log("  %-48s -> %s %s, origin %s  %s" % (what, status, got,
            "saw it" if reached else "never saw it", "ok" if ok else "WRONG"))
        if not ok:
            failures.append("%s: %s: %r -> %s %r, origin saw %r" % (name, what, raw, status,
                                                                  got, reached))
    return failures
