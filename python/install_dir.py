"""Where `meson install` puts the module: a directory the interpreter
imports from. Usage: install_dir.py PREFIX MESON_DEFAULT

meson's default for a prefix other than /usr is PREFIX/lib/python3/
dist-packages, which Debian's python3 does not search (it searches
/usr/local/lib/python3.X/dist-packages and /usr/lib/python3/dist-packages).
The first of these that is on sys.path wins: meson's default,
PREFIX/lib/python3.X/dist-packages, PREFIX/lib/python3.X/site-packages;
none (a prefix no interpreter searches): meson's default.
"""
import os
import sys

prefix, default = sys.argv[1], sys.argv[2]
if not os.path.isabs(default):
    default = os.path.join(prefix, default)
ver = "python%d.%d" % sys.version_info[:2]
path = [os.path.normpath(p) for p in sys.path if p]
for cand in (default, os.path.join(prefix, "lib", ver, "dist-packages"),
             os.path.join(prefix, "lib", ver, "site-packages")):
    if os.path.normpath(cand) in path:
        print(cand)
        break
else:
    print(default)
