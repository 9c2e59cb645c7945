#!/usr/bin/env python3
"""install_test.py MESON BUILDDIR PREFIX LIBDIR CC CXX|- [CFLAGS...]

What `meson install` installs works from where it is installed:
  1. every installed header compiles on its own, and all of them together
     in every order, as C99 -pedantic -Werror (and C++ when a C++
     compiler is given), with only the install's include directory;
  2. one program a pkg-config name (tests/installed/*.c: urisan,
     urisan-host, urisan-mail, and one with every header) builds with
     `pkg-config --cflags --libs NAME` of the installed .pc files and runs;
  3. the Lua module is where each Lua interpreter of the machine looks
     for the prefix (its package.cpath: PREFIX/lib/lua/5.x under
     /usr/local), and `require "urisan"` loads it from there.
tools/deb-check.sh runs 1 and 2 on the Debian packages.

URISAN_HEADER_ORDERS=sample (the quick size) compiles, instead of every
order of all the headers, every ordered pair of two headers and all of
them in each rotation of their order and of its reverse: each header
after each other one, and each first and last among all.
"""
import glob
import itertools
import os
import shutil
import subprocess
import sys
import tempfile

FAILED = []


def check(cond, why):
    if not cond:
        print("FAIL " + why)
        FAILED.append(why)

SAN = []
HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = {"urisan": "urisan.c", "urisan-host": "urisan_host.c", "urisan-mail": "urisan_mail.c",
            "urisan-net": "urisan_net.c"}
# Headers of no pkg-config name of their own: the libcurl helper, header
# only (pkg-config urisan-net libcurl), compiled when libcurl's is there.
HEADER_ONLY = {"urisan_curl.h": "libcurl"}
LUAS = {"5.1": ["luajit", "lua5.1"], "5.3": ["lua5.3"], "5.4": ["lua5.4"]}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def compile_headers(cc, incdir, headers, lang, tmp):
    """Each header alone, then all in every order (-fsyntax-only)."""
    std = ["-x", "c", "-std=c99"] if lang == "c" else ["-x", "c++", "-std=c++11"]
    if os.environ.get("URISAN_HEADER_ORDERS") == "sample":
        rots = [headers[i:] + headers[:i] for i in range(len(headers))]
        orders = [list(p) for p in itertools.permutations(headers, 2)]
        orders += [o for r in rots for o in (r, r[::-1]) if len(headers) > 2]
    else:
        orders = [list(p) for p in itertools.permutations(headers)]
    sets = [[h] for h in headers] + orders
    for hs in sets:
        src = "".join("#include <%s>\n" % h for h in hs) + "int main(void) { return 0; }\n"
        r = run([cc, *std, "-pedantic", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                 "-I", incdir, "-"], input=src)
        check(r.returncode == 0, "%s: %s does not compile against the installed headers:\n%s"
              % (lang, " + ".join(hs), r.stderr[-1500:]))
    print("ok: %s: %d installed headers compile alone and in %d orders together"
          % (lang, len(headers), len(sets) - len(headers)))


def pkg_programs(cc, dest, pcdir, libdir, names, env):
    penv = dict(env, PKG_CONFIG_SYSROOT_DIR=dest,
                PKG_CONFIG_PATH=pcdir + ":" + env.get("PKG_CONFIG_PATH", ""))
    renv = dict(env, LD_LIBRARY_PATH=libdir)
    tmp = tempfile.mkdtemp(prefix="urisan-pc-")
    try:
        for name, src in [(n, PROGRAMS[n]) for n in names] + [(" ".join(names), "all.c")]:
            r = run(["pkg-config", "--cflags", "--libs", *name.split()], env=penv)
            check(r.returncode == 0, "pkg-config %s: %s" % (name, r.stderr))
            if r.returncode:
                continue
            flags = r.stdout.split()
            exe = os.path.join(tmp, src[:-2])
            r = run([cc, *SAN, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror",
                     os.path.join(HERE, "installed", src), "-o", exe, *flags], env=env)
            check(r.returncode == 0, "%s with pkg-config %s (%s) does not build:\n%s"
                  % (src, name, " ".join(flags), r.stderr[-1500:]))
            if r.returncode:
                continue
            r = run([exe], env=renv)
            check(r.returncode == 0, "%s (pkg-config %s) exits %d:\n%s%s"
                  % (src, name, r.returncode, r.stdout, r.stderr))
            print("ok: pkg-config %s: %s builds and runs: %s" % (name, src, r.stdout.strip()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def lua_modules(dest, prefix, libdir, env):
    for abi, luas in LUAS.items():
        mods = [m for m in glob.glob(os.path.join(dest, "**", "lua", abi, "urisan.so"),
                                     recursive=True)]
        if not mods:
            print("ok: no Lua %s module built" % abi)
            continue
        check(len(mods) == 1, "Lua %s: more than one urisan.so: %s" % (abi, mods))
        where = os.path.dirname(mods[0])[len(dest):]
        for lua in luas:
            exe = shutil.which(lua)
            if exe is None:
                continue
            r = run([exe, "-e", "print(package.cpath)"])
            cpath = [os.path.dirname(p) for p in r.stdout.strip().split(";")]
            check(where in cpath, "%s does not search %s, where `meson install` (prefix %s) put "
                  "urisan.so: package.cpath is %s" % (lua, where, prefix, r.stdout.strip()))
            r = run([exe, "-e", 'local u = require "urisan"; io.write(package.searchpath '
                     'and package.searchpath("urisan", package.cpath) or "", " ", '
                     '(u.verdict("javascript:x")))'],
                    env=dict(env, LUA_CPATH=dest + where + "/?.so", LD_LIBRARY_PATH=libdir))
            check(r.returncode == 0 and r.stdout.endswith("deny"),
                  "%s: require \"urisan\" from %s: %s%s" % (lua, where, r.stdout, r.stderr))
            print("ok: %s searches %s; require \"urisan\" loads it" % (lua, where))


def main():
    meson, build, prefix, libdir, cc = sys.argv[1:6]
    cxx = sys.argv[6] if sys.argv[6] != "-" else ""
    global SAN
    SAN = sys.argv[7:]     # a sanitizer build's -fsanitize=...: the programs link its library
    env = dict(os.environ)
    preload = env.pop("LD_PRELOAD", None)   # a sanitizer build's runtime: not for cc
    dest = tempfile.mkdtemp(prefix="urisan-destdir-")
    try:
        r = run([meson, "install", "-C", build, "--destdir", dest, "--no-rebuild", "--quiet"])
        assert r.returncode == 0, r.stderr[-2000:]
        inc = dest + prefix + "/include"
        lib = os.path.join(dest + prefix, libdir) if not os.path.isabs(libdir) else dest + libdir
        headers = sorted(os.path.basename(h) for h in glob.glob(inc + "/*.h"))
        check("urisan.h" in headers, "no urisan.h installed in %s" % inc)
        for h, pc in HEADER_ONLY.items():
            if h in headers and run(["pkg-config", "--exists", pc]).returncode != 0:
                print("note: %s not compiled: no %s development files" % (h, pc))
                headers.remove(h)
        compile_headers(cc, inc, headers, "c", dest)
        if cxx:
            compile_headers(cxx, inc, headers, "c++", dest)
        names = [n for n in PROGRAMS if os.path.exists(os.path.join(lib, "pkgconfig", n + ".pc"))]
        own = [h for h in headers if h not in HEADER_ONLY]
        check(len(names) == len(own), "headers %s but pkg-config names %s" % (own, names))
        pkg_programs(cc, dest, os.path.join(lib, "pkgconfig"), lib, names, env)
        # the Lua interpreters load a sanitizer build's module: its runtime first
        lua_modules(dest, prefix, lib, dict(env, LD_PRELOAD=preload) if preload else env)
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
