#!/usr/bin/env bash
# tests/daemon/install-test.sh: `meson install` into a scratch DESTDIR puts everything a bench
# PC needs where it belongs, and the installed daemon serves the installed dashboard.
set -euo pipefail
build=${1:?usage: install-test.sh BUILDDIR}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet > "$dest.log" 2>&1 ||
  { cat "$dest.log"; exit 1; }
rm -f "$dest.log"
prefix=$(meson introspect "$build" --buildoptions | jq -r '.[] | select(.name == "prefix") | .value')
missing=0
for f in sbin/tracetapd bin/tracetap share/tracetap/web/index.html \
         share/man/man8/tracetapd.8 share/man/man1/tracetap.1 share/man/man5/tracetapd.json.5 \
         share/bash-completion/completions/tracetap; do
  if [ -e "$dest$prefix/$f" ]; then echo "ok: $prefix/$f"; else echo "MISSING: $prefix/$f"; missing=1; fi
done
for pat in 'tracetapd.service' 'tracetap/tracetapd.json' '60-tracetap-probes.rules'; do
  if f=$(find "$dest" -path "*$pat" | head -1) && [ -n "$f" ]; then echo "ok: ${f#$dest}";
  else echo "MISSING: $pat"; missing=1; fi
done
exit $missing
