#!/usr/bin/env bash
# Copies built files into an installed layout under PREFIX (tools/install.sh
# builds them and calls this; //tests/capi:install_test calls it on its
# runfiles). Everything is copied, never linked back, so the tree works with
# the checkout and the build tree gone:
#   PREFIX/include/oxinfer/oxinfer.h
#   PREFIX/lib/liboxinfer.so.1.1.0, liboxinfer.so.1, liboxinfer.so
#   PREFIX/lib/oxinfer/plugins/*.so
#   PREFIX/lib/pkgconfig/oxinfer.pc
#   PREFIX/share/oxinfer/default_model/
#   PREFIX/bin/oxinfer, PREFIX/bin/oxinfer-server
# usage: install_tree.sh PREFIX LIBRARY HEADER DIST_DIR PC_TEMPLATE
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 PREFIX LIBRARY HEADER DIST_DIR PC_TEMPLATE" >&2; exit 2; }
prefix=$1; library=$2; header=$3; dist=$4; pc_template=$5
version=1.1.0
mkdir -p "$prefix" && prefix=$(cd "$prefix" && pwd)
for f in "$library" "$header" "$dist/bin/oxinfer" "$pc_template"; do
  [ -f "$f" ] || { echo "install: missing $f (build first: tools/install.sh)" >&2; exit 1; }
done
mkdir -p "$prefix/include/oxinfer" "$prefix/lib/oxinfer/plugins" "$prefix/lib/pkgconfig" \
  "$prefix/share/oxinfer/default_model" "$prefix/bin"
install -m 0644 "$header" "$prefix/include/oxinfer/oxinfer.h"
install -m 0755 "$library" "$prefix/lib/liboxinfer.so.$version"
ln -sfn "liboxinfer.so.$version" "$prefix/lib/liboxinfer.so.1"
ln -sfn "liboxinfer.so.1" "$prefix/lib/liboxinfer.so"
for so in "$dist"/lib/oxinfer/plugins/*.so; do
  install -m 0755 "$so" "$prefix/lib/oxinfer/plugins/"
done
for f in "$dist"/share/oxinfer/default_model/*; do
  install -m 0644 "$f" "$prefix/share/oxinfer/default_model/"
done
install -m 0755 "$dist/bin/oxinfer" "$prefix/bin/oxinfer"
if [ -f "$dist/bin/oxinfer-server" ]; then
  install -m 0755 "$dist/bin/oxinfer-server" "$prefix/bin/oxinfer-server"
fi
tmp=$(mktemp "$prefix/lib/pkgconfig/.oxinfer.pc.XXXX")
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$pc_template" > "$tmp"
chmod 0644 "$tmp"
mv -f "$tmp" "$prefix/lib/pkgconfig/oxinfer.pc"
echo "installed oxinfer $version under $prefix"
echo "  build against it: cc app.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs oxinfer)"
