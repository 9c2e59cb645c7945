"""The Lua doors of tests/door_equality.py: urisan.check in LuaJIT and in
Lua 5.3 (--door door_lua:LuaJITDoor --door door_lua:Lua53Door).

URISAN_LUA_DOORS names, for each Lua ABI, the interpreter and the module
directory: "5.1=/usr/bin/luajit=BUILD/lua/5.1;5.3=/usr/bin/lua5.3=BUILD/lua/5.3"
(tests/meson.build sets it). Each answers (verdict, flags, the flags of each nested URL listed) for every input, through
door_verdicts.lua, under the door test's profile and policy file.
"""
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def lua_doors():
    out = {}
    for item in os.environ.get("URISAN_LUA_DOORS", "").split(";"):
        parts = item.split("=", 2)
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


class LuaDoor:
    NAME = "lua"
    LUA = None      # the ABI in URISAN_LUA_DOORS

    def __init__(self, ns=None):
        found = lua_doors().get(self.LUA)
        if found is None:
            raise SystemExit("door_lua: %s is not in URISAN_LUA_DOORS" % self.LUA)
        self.lua, self.cpath = found

    def want(self, row):
        return (row["verdict"], tuple(row["flags"]),
                tuple(tuple(n["flags"]) for n in row.get("nested", [])))

    def reference(self, cfg, tmp):
        return cfg["args"]

    def answers(self, urls, cfg):
        with tempfile.NamedTemporaryFile(prefix="urisan-lua-door-") as f:
            for u in urls:
                f.write(b"%d\n" % len(u) + u)
            f.flush()
            argv = [self.lua, os.path.join(HERE, "door_verdicts.lua"), f.name, cfg["profile"]]
            if cfg["policy"]:
                argv.append(cfg["policy"])
            env = dict(os.environ, LUA_CPATH=os.path.join(self.cpath, "?.so"))
            if os.environ.get("URISAN_SANITIZER_PRELOAD"):  # a sanitizer build
                env["LD_PRELOAD"] = os.environ["URISAN_SANITIZER_PRELOAD"]
            r = subprocess.run(argv, capture_output=True, env=env)
        if r.returncode != 0:
            raise RuntimeError("%s door_verdicts.lua: exit %d: %s" % (self.lua, r.returncode,
                                                                       r.stderr[-400:]))
        lines = r.stdout.decode().splitlines()
        assert len(lines) == len(urls), (len(lines), len(urls))
        res = {}
        for i, line in enumerate(lines):
            v, fl, nested = line.split("\t")
            count, _, nested = nested.partition(":")
            res[i] = (v, tuple(x for x in fl.split(",") if x),
                      tuple(tuple(x for x in n.split(",") if x) for n in nested.split("|"))
                      if count != "0" else ())
        return res


class LuaJITDoor(LuaDoor):
    """The 5.1 ABI: LuaJIT (nginx, rspamd), or PUC Lua 5.1 without it."""
    NAME = "lua-5.1"
    LUA = "5.1"


class Lua53Door(LuaDoor):
    """Lua 5.3 (HAProxy)."""
    NAME = "lua-5.3"
    LUA = "5.3"
