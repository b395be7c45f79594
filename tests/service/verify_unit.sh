#!/bin/bash
# tests/service/verify_unit.sh UNIT TRACETAPD: `systemd-analyze verify` of the generated unit
# (installed paths substituted by meson). verify needs the ExecStart binary to exist, so the
# copy verified here points ExecStart at the built tracetapd; everything else is unchanged.
# It also checks the settings the service depends on are present.
set -eu
unit=$1
bin=$(realpath "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=[^ ]*|ExecStart=$bin|" "$unit" >"$dir/tracetapd.service"
grep -q "^ExecStart=$bin --config /" "$dir/tracetapd.service" || { echo "ExecStart not substituted"; exit 1; }
for want in 'Type=notify' 'WatchdogSec=' 'Restart=on-failure' 'ExecReload=/bin/kill -HUP $MAINPID' \
	'DynamicUser=yes' 'SupplementaryGroups=plugdev' 'DeviceAllow=char-usb_device rw' \
	'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK' 'StateDirectory=tracetap' \
	'ConfigurationDirectory=tracetap' 'CapabilityBoundingSet=' 'NoNewPrivileges=yes'; do
	grep -qxF -- "$want" "$dir/tracetapd.service" || grep -q "^$want" "$dir/tracetapd.service" ||
		{ echo "missing: $want"; exit 1; }
done
out=$(systemd-analyze verify --man=no "$dir/tracetapd.service" 2>&1) || { echo "$out"; exit 1; }
# verify also prints warnings with status 0 for the unit itself: none allowed.
if printf '%s\n' "$out" | grep -F "tracetapd.service"; then
	echo "systemd-analyze verify reported the lines above"
	exit 1
fi
echo "systemd-analyze verify: ok"
