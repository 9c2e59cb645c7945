#!/bin/sh
# soname_test.sh READELF LIB.so VERSION SRCDIR
# The soname rule of README "Library versions", for liburisan and
# liburisan-mail alike: LIB.so.MAJOR, or LIB.so.0.MINOR while MAJOR is 0;
# debian/control's runtime package is named after the soname (Debian
# policy 8.1), so a version bump that changes the ABI also renames it there.
set -eu
readelf=$1 lib=$2 version=$3 src=$4
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
base=$(basename "$lib"); base=${base%%.so*}
if [ "$major" = 0 ]; then want="$base.so.0.$minor"; else want="$base.so.$major"; fi
got=$("$readelf" -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
echo "version $version: soname $got (rule: $want)"
[ "$got" = "$want" ] || { echo "FAIL: soname $got, the rule says $want"; exit 1; }
if [ -f "$src/debian/control" ]; then
    pkg="$base${want#"$base".so.}"
    if ! grep -qx "Package: $pkg" "$src/debian/control"; then
        echo "FAIL: debian/control has no 'Package: $pkg' for soname $want:"
        echo "      rename the library package (and debian/$pkg.install, Depends) after the soname"
        exit 1
    fi
    echo "debian/control: Package: $pkg"
fi
