#!/usr/bin/env python3
"""`meson install` puts the Python module where the system's python3
imports it from (Debian's /usr/bin/python3 does not search meson's default
PREFIX/lib/python3/dist-packages under /usr/local).

Usage: python_install_test.py MESON BUILDDIR PREFIX LIBDIR

Installs the build into a temporary --destdir, then asks /usr/bin/python3
whether the directory the module went to is on its sys.path, and imports
it from there (liburisan from the same destdir).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

SYSTEM_PYTHON = "/usr/bin/python3"


def main():
    meson, build, prefix, libdir = sys.argv[1:5]
    if not os.path.exists(SYSTEM_PYTHON):
        print(f"SKIP: no {SYSTEM_PYTHON}")
        return 77
    dest = tempfile.mkdtemp(prefix="urisan-destdir-")
    try:
        r = subprocess.run([meson, "install", "-C", build, "--destdir", dest, "--no-rebuild",
                            "--quiet"], capture_output=True, timeout=300)
        assert r.returncode == 0, r.stderr.decode()[-2000:]
        mods = glob.glob(os.path.join(dest, "**", "urisan.cpython-*.so"), recursive=True)
        if not mods:
            print("SKIP: the Python module is not built")
            return 77
        assert len(mods) == 1, mods
        where = os.path.dirname(mods[0])[len(dest):]
        path = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print('\\n'.join(sys.path))"],
                              capture_output=True, check=True).stdout.decode().split("\n")
        assert os.path.normpath(where) in [os.path.normpath(p) for p in path if p], \
            f"installed to {where}, which {SYSTEM_PYTHON} does not search: {path}"
        assert os.path.isfile(os.path.join(dest + where, "urisan-stubs", "__init__.pyi"))
        libs = os.path.join(dest + prefix, libdir) if not os.path.isabs(libdir) \
            else dest + libdir
        env = dict(os.environ, PYTHONPATH=dest + where, LD_LIBRARY_PATH=libs,
                   PYTHONDONTWRITEBYTECODE="1")
        r = subprocess.run([SYSTEM_PYTHON, "-c",
                            "import urisan, sys; print(urisan.__file__); "
                            "print(urisan.check('http://u:p@127.0.0.1/')['verdict'])"],
                           capture_output=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr.decode()
        out = r.stdout.decode().split()
        assert out[0].startswith(dest + where) and out[1] == "deny", out
        print(f"ok: {SYSTEM_PYTHON} imports urisan from {where}")
        return 0
    finally:
        shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
