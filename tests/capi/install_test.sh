#!/usr/bin/env bash
# Installs into a temporary prefix (tools/install_tree.sh, what
# tools/install.sh runs after building), then builds examples/embed.c with
# `cc embed.c $(pkg-config --cflags --libs oxinfer)` against the installed
# tree alone and runs it without arguments on the installed built-in model.
# Also: the header compiles as C99 and as C++, the library exports only
# oxinfer_* symbols under a versioned soname, and nothing installed points
# back into the checkout or the build tree.
set -euo pipefail
install_tree=$(readlink -f "$1"); library=$(readlink -f "$2"); header=$(readlink -f "$3")
pc_template=$(readlink -f "$5")
embed_c=$(readlink -f "$6")
fail() { echo "FAIL: $*"; exit 1; }
# The dist tree of runfiles is made of links; its real folder is the build tree.
dist_links=$(dirname "$(dirname "$4")")

work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/install.XXXX")
prefix="$work/prefix"
bash "$install_tree" "$prefix" "$library" "$header" "$dist_links" "$pc_template"

# Versioned soname, exports.
soname=$(readelf -d "$prefix/lib/liboxinfer.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "liboxinfer.so.1" ] || fail "soname is '$soname'"
others=$(nm -D --defined-only "$prefix/lib/liboxinfer.so.1" | awk '{print $3}' | grep -v '^oxinfer_' \
  | grep -v '^OXINFER_1$' || true)
[ -z "$others" ] || fail "exported besides oxinfer_*: $(echo "$others" | head -5)"
nm -D --defined-only "$prefix/lib/liboxinfer.so.1" | grep -q ' oxinfer_session_generate' \
  || fail "oxinfer_session_generate not exported"

# Nothing refers back: no symlink leaves the prefix, and no file names the
# checkout or the build tree.
for link in $(find "$prefix" -type l); do
  case "$(readlink -f "$link")" in "$prefix"/*) ;; *) fail "$link points outside the prefix" ;; esac
done
checkout=$(dirname "$(dirname "$embed_c")")
build_root=$(readlink -f "$library" | sed 's|/bazel-out/.*||')
for needle in "$checkout" "$build_root"; do
  if grep -rlF "$needle" "$prefix" > "$work/hits" 2>/dev/null; then
    fail "installed files mention $needle: $(head -3 "$work/hits")"
  fi
done
for elf in "$prefix/lib/liboxinfer.so.1" "$prefix"/lib/oxinfer/plugins/*.so "$prefix/bin/oxinfer"; do
  if readelf -d "$elf" | grep -E 'RUNPATH|RPATH' | grep -qE '_solib|bazel|/work/'; then
    fail "$elf has a run path into the build tree: $(readelf -d "$elf" | grep -E 'RUNPATH|RPATH')"
  fi
done

# The header alone, as C99 and as C++.
printf '#include <oxinfer/oxinfer.h>\nint main(void) { return oxinfer_api_version() == 0; }\n' > "$work/h.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$work/h.c" \
  || fail "the header as C99"
c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$prefix/include" "$work/h.c" \
  || fail "the header as C++"

# The example, built against the installed tree alone and run without arguments.
cp "$embed_c" "$work/embed.c"
cd "$work"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
echo "pkg-config: $(pkg-config --cflags --libs oxinfer)"
cc -std=c99 -Wall -Werror embed.c $(pkg-config --cflags --libs oxinfer) -o embed || fail "build"
env -u OXINFER_PLUGIN_PATH ./embed > out.txt 2> err.txt || { cat out.txt err.txt; fail "embed failed"; }
cat out.txt
grep -q "^model: $prefix/share/oxinfer/default_model" out.txt \
  || grep -q "^model: .*/share/oxinfer/default_model" out.txt || fail "not the installed built-in model"
grep -q '^calculate(1234.5 \* 6789 - 2^20) = 7332444.5$' out.txt || fail "calculate"
grep -q '^embed: ok$' out.txt || fail "embed did not finish"
# And the installed CLI runs from there too.
"$prefix/bin/oxinfer" -p "Hello" --max-tokens 4 --repeat-penalty 1.3 > /dev/null 2>&1 \
  || fail "the installed CLI"
echo PASS
