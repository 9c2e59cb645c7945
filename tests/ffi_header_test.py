#!/usr/bin/env python3
"""ffi_header_test.py CC FLAT_HEADER LIBURISAN.so VERSION [CFLAGS...]

The installed urisan.h (include/flat, generated) is usable without
urisan_flags.def and by FFI tools:
  1. a C99 -pedantic -Werror program that includes only it compiles, links
     against the shared library and runs (enum values, version macros,
     urisan_version() all agree);
  2. cffi (Debian python3-cffi): `cpp -P -DURISAN_CDEF urisan.h` goes into
     ffi.cdef() unchanged, the library is dlopen'ed and urisan_check is
     called through it (skipped with a message when cffi is missing);
  3. ctypes: urisan_version() and urisan_flag_name() of the same library.
"""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile

from testlib import check, failures

cc, header, lib, version = sys.argv[1:5]
cflags = sys.argv[5:]      # a sanitizer build's -fsanitize=...
# A sanitizer build preloads its runtime into this python (meson sets
# LD_PRELOAD); the compiler and the test program must not inherit it.
os.environ.pop("LD_PRELOAD", None)


C_PROG = r"""
#include <stdio.h>
#include <string.h>
#include "urisan.h"
#ifdef URISAN_FLAG
#error "the flat header must not need the X-macro"
#endif
int main(void)
{
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const char *in = "http://127.0.0.1:8080/a/../b";
    if (strcmp(urisan_version(), URISAN_VERSION) != 0) return 10;
    if (URISAN_VERSION_NUMBER != URISAN_VERSION_MAJOR * 10000 + URISAN_VERSION_MINOR * 100 + URISAN_VERSION_PATCH) return 11;
    if (urisan_check(in, strlen(in), NULL, &u, &r, &d) != URISAN_OK) return 12;
    if (!urisan_span_present(u.host) || u.port_value != 8080) return 13;
    if (!(r.flags & URISAN_F(IP_LOOPBACK)) || !(r.flags & URISAN_F(DOT_SEGMENTS))) return 14;
    if (urisan_flag_from_name("idn", 3) != URISAN_FLAG_IDN) return 15;
    if (strcmp(urisan_status_name(URISAN_E_TOO_MANY), "too_many") != 0) return 16;
    if (strcmp(urisan_rule_reason_name(URISAN_REASON_HOST_NOT_ALLOWED), "host_not_allowed") != 0) return 17;
    printf("%s %s\n", urisan_version(), urisan_verdict_name(d.verdict));
    return 0;
}
"""

tmp = tempfile.mkdtemp(prefix="urisan-ffi-")
try:
    incdir = os.path.join(tmp, "include")
    os.mkdir(incdir)
    shutil.copy(header, os.path.join(incdir, "urisan.h"))   # alone: no .def
    src = os.path.join(tmp, "t.c")
    exe = os.path.join(tmp, "t")
    with open(src, "w") as f:
        f.write(C_PROG)
    libdir = os.path.dirname(os.path.abspath(lib))
    r = subprocess.run([cc] + cflags + ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror",
                        "-I", incdir, src, "-o", exe, "-L", libdir, "-lurisan",
                        "-Wl,-rpath," + libdir], capture_output=True, text=True)
    check(r.returncode == 0, "C99 -pedantic program with the flat header alone compiles and links"
          + ("" if r.returncode == 0 else ":\n" + r.stderr))
    if r.returncode == 0:
        r = subprocess.run([exe], capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.split()[0] == version,
              "it runs: urisan_version() %r, status %d" % (r.stdout.strip(), r.returncode))

    # The declarations cffi gets: the preprocessor's view with URISAN_CDEF.
    r = subprocess.run([cc, "-E", "-P", "-DURISAN_CDEF", "-x", "c", header],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "#" not in r.stdout,
          "cpp -P -DURISAN_CDEF gives plain declarations")
    cdef = r.stdout
    try:
        import cffi
    except ImportError:
        cffi = None
        print("SKIP cffi: python3-cffi is not installed for %s" % sys.executable)
    if cffi is not None:
        ffi = cffi.FFI()
        try:
            ffi.cdef(cdef)
            ok = True
        except Exception as e:          # a parse error names the line
            ok = False
            print(e)
        check(ok, "ffi.cdef() accepts the header")
        if ok:
            L = ffi.dlopen(os.path.abspath(lib))
            check(ffi.string(L.urisan_version()).decode() == version, "cffi: urisan_version()")
            u = ffi.new("urisan_uri *")
            rep = ffi.new("urisan_report *")
            dec = ffi.new("urisan_decision *")
            s = b"javascript:alert(1)"
            st = L.urisan_check(s, len(s), ffi.NULL, u, rep, dec)
            check(st == L.URISAN_E_OK and dec.verdict == L.URISAN_DENY
                  and rep.flags & (1 << L.URISAN_FLAG_DANGEROUS_SCHEME),
                  "cffi: urisan_check(javascript:) denies with dangerous_scheme")
            check(ffi.sizeof("urisan_uri") > 0 and L.URISAN_FLAG_IDN == 25,
                  "cffi: enum values expanded")

    cl = ctypes.CDLL(os.path.abspath(lib))
    cl.urisan_version.restype = ctypes.c_char_p
    cl.urisan_flag_name.restype = ctypes.c_char_p
    cl.urisan_flag_name.argtypes = [ctypes.c_int]
    check(cl.urisan_version().decode() == version, "ctypes: urisan_version()")
    check(cl.urisan_flag_name(0) == b"invalid", "ctypes: urisan_flag_name(0)")
finally:
    shutil.rmtree(tmp)

sys.exit(1 if failures else 0)
