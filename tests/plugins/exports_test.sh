#!/usr/bin/env bash
# Every plugin given exports exactly one symbol, oxinfer_plugin_entry: no
# instances of C++ standard library or Abseil templates that another plugin
# could bind to (tools/build_defs/plugin.bzl links every plugin with
# core/sdk/plugin_exports.lds). Checked with `nm -D --defined-only`.
#
# Allowed besides the entry, and only these: the symbols GNU ld itself defines
# in a shared object's dynamic table in some configurations (with the version
# script it makes them local, so today none appear):
#   _init _fini _edata _end __bss_start
set -euo pipefail
readonly LINKER_SYMBOLS=" _init _fini _edata _end __bss_start "

checked=0
failed=0
for so in "$@"; do
  case "$so" in
    *.so | *.dylib) ;;
    *) continue ;;
  esac
  if ! syms=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort -u); then
    echo "FAIL $so: nm could not read it"
    failed=$((failed + 1))
    continue
  fi
  entry=no
  extra=()
  for s in $syms; do
    if [ "$s" = oxinfer_plugin_entry ]; then
      entry=yes
    elif [[ "$LINKER_SYMBOLS" != *" $s "* ]]; then
      extra+=("$s")
    fi
  done
  checked=$((checked + 1))
  if [ "$entry" != yes ]; then
    echo "FAIL $so: does not export oxinfer_plugin_entry"
    failed=$((failed + 1))
  elif [ ${#extra[@]} -gt 0 ]; then
    echo "FAIL $so: exports ${#extra[@]} more symbol(s): ${extra[*]:0:10}"
    failed=$((failed + 1))
  else
    echo "ok   $so"
  fi
done

if [ "$checked" -lt 10 ]; then
  echo "FAIL: only $checked plugins checked; the list is wrong"
  exit 1
fi
if [ "$failed" -gt 0 ]; then
  echo "FAIL: $failed of $checked plugins export more than their entry"
  exit 1
fi
echo "PASS: $checked plugins export oxinfer_plugin_entry only"
