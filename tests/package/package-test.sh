#!/usr/bin/env bash
# tests/package/package-test.sh SRCDIR: the Debian package, as a lab builds and installs it.
# Builds it with `dpkg-buildpackage -b` from a copy of the tree (the files git sees, so the
# tree itself is not written to), runs lintian (every tag fails the test unless
# debian/tracetap.lintian-overrides explains it), installs it on this machine with dpkg, checks
# the files, the conffile, that the service is enabled but not started while the configuration
# is the shipped example, `tracetapd --check-config` of that example, `systemd-analyze verify`
# of the installed unit and that the installed daemon serves the installed dashboard; then
# removes it (the conffile stays), purges it, and checks that nothing of it is left: files,
# links, state, the conffile, a user, dpkg's record.
# Needs root (or sudo without a password) and no tracetap installed already; skips (77) with
# the reason otherwise, and where dpkg-buildpackage, debhelper or lintian are not installed.
set -euo pipefail
src=$(realpath "${1:?usage: package-test.sh SRCDIR}")
skip() { echo "SKIP: $*"; exit 77; }

for tool in dpkg-buildpackage dh lintian systemd-analyze dpkg-deb; do
  command -v "$tool" > /dev/null || skip "$tool is not installed (tests/setup.sh installs it)"
done
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2> /dev/null || skip "installing a package needs root or sudo without a password"
  SUDO=(sudo -n)
fi
if dpkg-query -W -f='${db:Status-Status}' tracetap 2> /dev/null | grep -qv '^not-installed$'; then
  skip "a tracetap package is already on this machine: the test would remove it"
fi
for p in /etc/tracetap /var/lib/tracetap /var/lib/private/tracetap; do
  [ ! -e "$p" ] || skip "$p exists already (another install of tracetap): the test would remove it"
done

. "$src/tests/daemon/lib.sh"
installed=0 state_made=0 private_made=0
on_exit() { # a failed run leaves nothing installed or made either
  [ $installed = 0 ] || "${SUDO[@]}" dpkg --purge tracetap > /dev/null 2>&1 || true
  [ $state_made = 0 ] || "${SUDO[@]}" rm -rf /var/lib/tracetap /var/lib/private/tracetap || true
  [ $private_made = 0 ] || "${SUDO[@]}" rmdir /var/lib/private 2> /dev/null || true
}
t0=$SECONDS
step() { echo "--- $* ($((SECONDS - t0)) s)"; }

# The tree as git sees it (tracked files and new ones not ignored: what a commit of the
# working tree would hold), or all of it but build folders outside a git checkout.
step "copy of the tree"
# what dpkg-buildpackage writes when run in a tree (it must not appear in this one)
products() { (cd "$src" && ls -d obj-* debian/.debhelper debian/tracetap debian/files \
  debian/*.substvars debian/debhelper-build-stamp ../tracetap_*.deb 2> /dev/null || true); }
before=$(products)
mkdir "$work/src"
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
  tar -C "$src" --exclude='./build*' --exclude='./obj-*' --exclude=node_modules -cf - . |
    tar -xf - -C "$work/src"
fi

# nocheck: the tree's suites run in CI's own builds; here the package is what is tested.
step "dpkg-buildpackage -b -us -uc"
logs=("$work/build.log")
(cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -b -us -uc) \
  > "$work/build.log" 2>&1 || fail "dpkg-buildpackage failed"
deb=$(ls "$work"/tracetap_*_*.deb)
[ "$(products)" = "$before" ] || fail "the build wrote into the source tree: $(products)"

step "lintian"
logs=("$work/lintian.log")
# every tag counts, info and pedantic included; an override that no longer matches is a tag too
lintian --fail-on error,warning,info,pedantic --pedantic -I "$work"/tracetap_*.changes \
  > "$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian reported the tags above"; }
grep -v 'running with root privileges' "$work/lintian.log" && fail "lintian: unexpected output"
# the overridden tags, for the log (with --show-overrides lintian fails on them too)
lintian --pedantic -I --show-overrides "$work"/tracetap_*.changes 2>&1 | grep '^O: ' | tee "$work/lintian.log"
echo "lintian: clean ($(grep -c '^O: ' "$work/lintian.log") overridden tags, explained in debian/tracetap.lintian-overrides)"

# What the package holds, and which of its directories were here before (those stay).
mapfile -t paths < <(dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }' | sed 's|/$||' | grep -v '^$')
pre=()
for p in "${paths[@]}"; do [ -e "$p" ] && [ -d "$p" ] && pre+=("$p"); done
wants=/etc/systemd/system/multi-user.target.wants/tracetapd.service

step "dpkg -i"
logs=("$work/install.log")
installed=1
"${SUDO[@]}" dpkg -i "$deb" > "$work/install.log" 2>&1 || fail "dpkg -i failed"
for f in /usr/sbin/tracetapd /usr/bin/tracetap /lib/systemd/system/tracetapd.service \
  /lib/systemd/system/tracetapd.service.d/debian.conf /lib/udev/rules.d/60-tracetap-probes.rules \
  /etc/tracetap/tracetapd.json /usr/share/tracetap/examples/tracetapd.json \
  /usr/share/tracetap/web/index.html /usr/share/tracetap/web/js/main.js \
  /usr/share/tracetap/prometheus/tracetap.rules.yml /usr/share/man/man8/tracetapd.8.gz \
  /usr/share/man/man1/tracetap.1.gz /usr/share/man/man5/tracetapd.json.5.gz \
  /usr/share/bash-completion/completions/tracetap /usr/share/doc/tracetap/copyright; do
  [ -f "$f" ] || fail "not installed: $f"
done
cmp -s "$src/systemd/tracetapd.json" /etc/tracetap/tracetapd.json || fail "the conffile is not the example"
dpkg-query -W -f='${Conffiles}\n' tracetap | grep -q '^ /etc/tracetap/tracetapd.json [0-9a-f]\{32\}$' ||
  fail "/etc/tracetap/tracetapd.json is not a conffile"
[ -L "$wants" ] || fail "the service is not enabled ($wants)"
getent passwd tracetap > /dev/null && fail "a user tracetap was created (the unit has DynamicUser=yes)"
echo "installed: $(dpkg -L tracetap | wc -l) paths, the service enabled"

step "the installed programs"
/usr/sbin/tracetapd --check-config --config /etc/tracetap/tracetapd.json ||
  fail "tracetapd --check-config rejects the installed example"
/usr/bin/tracetap --help > /dev/null || fail "tracetap --help"
# The installed daemon finds the installed dashboard by its built-in path (no --web).
logs=("$work/daemon.log")
/usr/sbin/tracetapd --config /etc/tracetap/tracetapd.json --port 0 > "$work/daemon.log" 2>&1 &
pids+=($!)
daemon_port "$work/daemon.log" 30
curl -sf "http://127.0.0.1:$port/" -o "$work/index.html" || fail "GET / from the installed tracetapd"
cmp -s "$work/index.html" /usr/share/tracetap/web/index.html || fail "/ is not the installed index.html"
kill "${pids[-1]}"
wait "${pids[-1]}" 2> /dev/null || true
echo "tracetapd serves /usr/share/tracetap/web"

step "systemd-analyze verify"
out=$(systemd-analyze verify --man=no /lib/systemd/system/tracetapd.service 2>&1) ||
  { echo "$out"; fail "systemd-analyze verify failed"; }
if printf '%s\n' "$out" | grep -F tracetapd; then fail "systemd-analyze verify reported the lines above"; fi
echo "systemd-analyze verify: ok"

# The start gate of debian/tracetapd.service.d/debian.conf, run as systemd runs it: skipped
# (exit 1..254) while the configuration is the example, allowed once it is edited.
step "the service is not started against the example"
cond=$(sed -n 's/^ExecCondition=//p' /lib/systemd/system/tracetapd.service.d/debian.conf)
[ -n "$cond" ] || fail "no ExecCondition in the drop-in"
eval "set -- $cond"
rc=0; "$@" 2> "$work/cond.err" || rc=$?
[ $rc -ge 1 ] && [ $rc -le 254 ] || fail "ExecCondition with the example: exit $rc, not a skip"
grep -q 'shipped example' "$work/cond.err" || fail "ExecCondition says nothing: $(cat "$work/cond.err")"
cp /etc/tracetap/tracetapd.json "$work/example.json"
sed 's/"bench-f4"/"lab-board"/' "$work/example.json" | "${SUDO[@]}" tee /etc/tracetap/tracetapd.json > /dev/null
rc=0; "$@" 2> "$work/cond.err" || rc=$?
"${SUDO[@]}" cp "$work/example.json" /etc/tracetap/tracetapd.json
[ $rc = 0 ] || fail "ExecCondition with an edited configuration: exit $rc"
if [ -d /run/systemd/system ]; then # systemd runs this machine: dpkg's start was skipped
  st=$(systemctl show -p ActiveState --value tracetapd.service)
  [ "$st" != active ] || fail "tracetapd.service was started against the example"
  echo "systemd: tracetapd.service $st"
fi
echo "start gate: skipped with the example, allowed once edited"

step "dpkg --remove"
# What the service makes when it runs (StateDirectory= with DynamicUser=), for purge to remove.
# (/var/lib/private is systemd's, for every dynamic user: removed at exit only if made here)
[ -d /var/lib/private ] || private_made=1
state_made=1
"${SUDO[@]}" mkdir -p /var/lib/private/tracetap
"${SUDO[@]}" ln -s private/tracetap /var/lib/tracetap
"${SUDO[@]}" dpkg --remove tracetap > "$work/install.log" 2>&1 || fail "dpkg --remove failed"
[ -f /etc/tracetap/tracetapd.json ] || fail "remove took the conffile (only purge may)"
[ ! -e /usr/sbin/tracetapd ] || fail "remove left /usr/sbin/tracetapd"

step "dpkg --purge"
"${SUDO[@]}" dpkg --purge tracetap > "$work/install.log" 2>&1 || fail "dpkg --purge failed"
installed=0
left=()
for p in "${paths[@]}"; do
  [ -e "$p" ] || [ -L "$p" ] || continue
  printf '%s\n' "${pre[@]}" | grep -qxF "$p" || left+=("$p")
done
for p in /etc/tracetap /var/lib/tracetap /var/lib/private/tracetap "$wants" \
  /var/lib/systemd/deb-systemd-helper-enabled/tracetapd.service \
  /var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/tracetapd.service; do
  [ -e "$p" ] || [ -L "$p" ] && left+=("$p")
done
[ ${#left[@]} = 0 ] || fail "left after purge: ${left[*]}"
state_made=0
getent passwd tracetap > /dev/null && fail "a user tracetap is left"
dpkg-query -W -f='${db:Status-Status}' tracetap 2> /dev/null | grep -qv '^not-installed$' &&
  fail "dpkg still knows tracetap: $(dpkg-query -W -f='${db:Status-Status}' tracetap)"
step "package-test: ok"
