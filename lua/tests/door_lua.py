"""The Lua doors of tests/door_equality.py: urisan.check in LuaJIT and in
Lua 5.3 (--door door_lua:LuaJITDoor --door door_lua:Lua53Door), and the
rspamd plugin's reading (--door door_lua:RspamdDoor): urisan.check_link in
LuaJIT on the URL text rspamd hands the plugin.

URISAN_LUA_DOORS names, for each Lua ABI, the interpreter and the module
directory: "5.1=/usr/bin/luajit=BUILD/lua/5.1;5.3=/usr/bin/lua5.3=BUILD/lua/5.3"
(tests/meson.build sets it).

lua-5.1 and lua-5.3 answer the whole table urisan.check gives each input
(door_dump.lua), under the door test's profile and policy file; it must
be check --json's object in the Lua form doc/lua.md promises (lua_form):
every key of the JSON present, a JSON null urisan.null, an array a
sequence, an object a table of string keys, true/false booleans, a
number an integer, a string the bytes (the command writes a byte that is
no UTF-8 as \\u00XX: compared so). A table keeps no order: key for key,
value for value. An empty JSON object and an empty array are both an
empty table (check --json has no empty object today).

rspamd answers the whole table urisan.check_link gives the text rspamd
hands the plugin (the input's A-label host in Unicode): check's object
of the input in the same Lua form, and `written`, the text, where the
link was converted (doc/lua.md: check of the URI a client opens).
"""
import codecs
import json
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _as_cli(e):
    return ("".join(chr(x) for x in e.object[e.start:e.end]), e.end)


codecs.register_error("urisan-lua-cli", _as_cli)


def cli_text(b):
    """How check --json writes bytes: UTF-8 kept, any other byte as the
    character of its value (\\u00XX)."""
    return b.decode("utf-8", "urisan-lua-cli")


def from_dump(v):
    """A value of door_dump.lua's JSON, its strings as check --json writes
    them; what no JSON value is ("?:" ...) stays a marker, which differs."""
    if isinstance(v, str):
        if v.startswith("?:"):
            return "<lua %s>" % v[2:]
        if v.startswith("h:"):
            return cli_text(bytes.fromhex(v[2:]))
        return v
    if isinstance(v, list):
        return [from_dump(x) for x in v]
    if isinstance(v, dict):
        return {k: from_dump(x) for k, x in v.items()}
    return v


def load_dump(line):
    """A line of door_dump.lua (bytes) as from_dump's value."""
    v = json.loads(line)
    return from_dump(v) if b'"h:' in line or b'"?:' in line else v


def lua_form(v):
    """check --json's value as the Lua module gives it (doc/lua.md), in
    door_dump.lua's terms: the same, but an empty object is an empty
    table, which door_dump.lua writes as []."""
    if isinstance(v, dict):
        return {k: lua_form(x) for k, x in v.items()} if v else []
    if isinstance(v, list):
        return [lua_form(x) for x in v]
    return v


def lua_doors():
    out = {}
    for item in os.environ.get("URISAN_LUA_DOORS", "").split(";"):
        parts = item.split("=", 2)
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


class LuaDoor:
    NAME = "lua"
    LUA = None        # the ABI in URISAN_LUA_DOORS
    CALL = "check"
    ORDERED = False   # whole objects; a Lua table keeps no order

    def __init__(self, ns=None):
        found = lua_doors().get(self.LUA)
        if found is None:
            raise SystemExit("door_lua: %s is not in URISAN_LUA_DOORS" % self.LUA)
        self.lua, self.cpath = found

    def want(self, row):
        return lua_form(row)

    def reference(self, cfg, tmp):
        return cfg["args"]

    def answers(self, urls, cfg):
        lines = self.lua_lines("door_dump.lua", urls, cfg)
        return {i: load_dump(l) for i, l in enumerate(lines)}

    def lua_lines(self, script, urls, cfg):
        """script's output lines for urls (one each), under cfg."""
        with tempfile.NamedTemporaryFile(prefix="urisan-lua-door-") as f:
            for u in urls:
                f.write(b"%d\n" % len(u) + u)
            f.flush()
            argv = [self.lua, os.path.join(HERE, script), f.name, cfg["profile"]]
            if cfg["policy"]:
                argv.append(cfg["policy"])
            env = dict(os.environ, LUA_CPATH=os.path.join(self.cpath, "?.so"),
                       URISAN_DOOR_CALL=self.CALL)
            if os.environ.get("URISAN_SANITIZER_PRELOAD"):  # a sanitizer build
                env["LD_PRELOAD"] = os.environ["URISAN_SANITIZER_PRELOAD"]
            r = subprocess.run(argv, capture_output=True, env=env)
        if r.returncode != 0:
            raise RuntimeError("%s %s: exit %d: %s" % (self.lua, script, r.returncode,
                                                        r.stderr[-400:]))
        lines = r.stdout.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        assert len(lines) == len(urls), (len(lines), len(urls))
        return lines


class LuaJITDoor(LuaDoor):
    """The 5.1 ABI: LuaJIT (nginx, rspamd), or PUC Lua 5.1 without it."""
    NAME = "lua-5.1"
    LUA = "5.1"


class Lua53Door(LuaDoor):
    """Lua 5.3 (HAProxy)."""
    NAME = "lua-5.3"
    LUA = "5.3"


def unicode_form(u):
    """The URL text rspamd hands the plugin for u: its host's A-labels
    shown as U-labels (rspamd keeps a link as the message writes it, and
    a message writes an IDN in Unicode). None when u has no A-label in an
    http(s) host, or its labels do not decode (RFC 3492 punycode)."""
    m = re.match(rb"(?i)(https?://)([^/?#@\\]*@)?([^/?#:\\@]+)(.*)\Z", u, re.S)
    if m is None or b"xn--" not in m.group(3).lower():
        return None
    labels = []
    for lab in m.group(3).split(b"."):
        if lab[:4].lower() == b"xn--":
            try:
                lab = lab[4:].decode("ascii").encode("ascii").decode("punycode").encode("utf-8")
            except (UnicodeError, ValueError):
                return None
        labels.append(lab)
    return m.group(1) + (m.group(2) or b"") + b".".join(labels) + m.group(4)


class RspamdDoor(LuaJITDoor):
    """The rspamd plugin's call: urisan.check_link (LuaJIT) on the URL text
    rspamd hands it - an input with an A-label host written in Unicode, as
    in a message. It must answer as `urisan check` does for the input (the
    URI a browser opens). Answers the inputs whose Unicode form converts
    back to the input (check_link's "uri"; an input that is not the
    canonical A-label form of its U-labels, such as an upper-case or
    invalid A-label, is another URL) and every other ASCII input, as is
    (an input written in Unicode is another URL than the one check judges:
    the mail doors' tests compare those, tests/mail_links_test.py)."""
    NAME = "rspamd"
    CALL = "check_link"

    def wanted(self, i, row):
        """check's object of the input, and the text as `written` where
        check_link converted it"""
        want = lua_form(row)
        if i in self.written:
            want["written"] = self.written[i]
        return want

    def answers(self, urls, cfg):
        forms = [unicode_form(u) or u for u in urls]
        got = LuaDoor.answers(self, forms, cfg)
        out, self.written = {}, {}
        converted = 0
        for i, u in enumerate(urls):
            if forms[i] == u:
                if u.isascii() or got[i].get("uri") == cli_text(u):
                    out[i] = got[i]
            elif got[i].get("uri") == cli_text(u):
                out[i] = got[i]
                self.written[i] = cli_text(forms[i])
                converted += 1
        print("note: rspamd door: %d inputs given in Unicode (their host's A-labels as "
              "U-labels), %d as written" % (converted, len(out) - converted))
        return out
