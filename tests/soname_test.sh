#!/bin/sh
# soname_test.sh READELF LIBURISAN.so VERSION SRCDIR
# The soname rule of README "Library versions": liburisan.so.MAJOR, or
# liburisan.so.0.MINOR while MAJOR is 0; debian/control's runtime package
# is named after the soname (Debian policy 8.1), so a version bump that
# changes the ABI also renames it there.
set -eu
readelf=$1 lib=$2 version=$3 src=$4
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
if [ "$major" = 0 ]; then want="liburisan.so.0.$minor"; else want="liburisan.so.$major"; fi
got=$("$readelf" -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
echo "version $version: soname $got (rule: $want)"
[ "$got" = "$want" ] || { echo "FAIL: soname $got, the rule says $want"; exit 1; }
if [ -f "$src/debian/control" ]; then
    pkg="liburisan${want#liburisan.so.}"
    if ! grep -qx "Package: $pkg" "$src/debian/control"; then
        echo "FAIL: debian/control has no 'Package: $pkg' for soname $want:"
        echo "      rename the library package (and debian/$pkg.install, Depends) after the soname"
        exit 1
    fi
    echo "debian/control: Package: $pkg"
fi
