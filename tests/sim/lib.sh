# tests/sim/lib.sh: bash helpers for chain tests (sourced): start tt-simtarget, a workload and a
# real OpenOCD (TCL RPC over `tcl_port pipe`), wait for their readiness lines with deadlines,
# send RPC commands, and clean everything up on exit. Only bash and coreutils are needed.
#
# Callers set SIMTARGET (and FW_THREADX, OPENOCD_CFG) before sourcing, usually from meson.
# SIM_LINK=cmsis-dap (with FAKEUSB, the path of libtt-fakeusb.so): the simulator serves a
# CMSIS-DAP probe over SWD instead of remote_bitbang, and OpenOCD runs with that library
# preloaded (OPENOCD_CFG is then an interface config such as interface/cmsis-dap.cfg, or a
# complete one that sources it). TT_SIM_DAP_USB / TT_SIM_DAP_RTT_US pass through to it.

set -u
TT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tt-sim.XXXXXX")
TT_PIDS=()
TT_FAIL=0

tt_cleanup() {
	local p
	for p in "${TT_PIDS[@]}"; do
		# a test may have stopped it: continued first (a SIGCONT after the SIGTERM would
		# disturb a sanitizer's leak check at exit, which stops the process itself)
		[ "$(tt_proc_state "$p" 2>/dev/null)" = T ] && kill -CONT "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	for p in "${TT_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	if [ "$TT_FAIL" -ne 0 ] || [ -n "${TT_KEEP:-}" ]; then
		echo "logs kept in $TT_TMP" >&2
	else
		rm -rf "$TT_TMP"
	fi
}
trap tt_cleanup EXIT

tt_die() {
	TT_FAIL=1
	echo "FAIL: $*" >&2
	for f in "$TT_TMP"/*.err "$TT_TMP"/ocd.log; do
		[ -f "$f" ] && { echo "--- $f (tail)" >&2; tail -n 15 "$f" >&2; }
	done
	exit 1
}

tt_ok() { echo "ok: $*"; }

# tt_spawn NAME CMD...: runs CMD in the background, stdout readable line by line on the file
# descriptor stored in TT_FD_<NAME>, stderr in $TT_TMP/NAME.err, pid in TT_PID_<NAME>.
tt_spawn() {
	local name=$1 fd
	shift
	mkfifo "$TT_TMP/$name.out"
	"$@" >"$TT_TMP/$name.out" 2>"$TT_TMP/$name.err" &
	TT_PIDS+=($!)
	printf -v "TT_PID_$name" '%s' "$!"
	exec {fd}<>"$TT_TMP/$name.out"
	printf -v "TT_FD_$name" '%s' "$fd"
}

# tt_unspawn NAME: closes the shell's end of NAME's stdout (after NAME was stopped), so a script
# that spawns many processes does not hold their fifos open, nor pass them to what it starts next.
tt_unspawn() {
	local fdvar="TT_FD_$1" fd
	fd=${!fdvar:-}
	[ -n "$fd" ] && exec {fd}>&-
	unset "TT_FD_$1"
}

# tt_expect NAME REGEX [SECONDS]: reads NAME's stdout until a line matches (deadline: 10 s);
# the line is left in TT_LINE.
tt_expect() {
	local fdvar="TT_FD_$1" end=$((SECONDS + ${3:-10})) left
	while :; do
		left=$((end - SECONDS))
		[ "$left" -gt 0 ] || tt_die "$1: no line matching '$2' in time"
		IFS= read -r -t "$left" -u "${!fdvar}" TT_LINE || tt_die "$1: no line matching '$2'"
		[[ $TT_LINE =~ $2 ]] && return 0
	done
}

# tt_sim_start ARGS...: starts tt-simtarget (with a control socket) and sets SIM_PORT, SIM_CTL.
tt_sim_start() {
	local link=()
	[ "${SIM_LINK:-}" != cmsis-dap ] || link=(--cmsis-dap)
	SIM_CTL="$TT_TMP/sim.ctl"
	tt_spawn sim "$SIMTARGET" --ctl "$SIM_CTL" "${link[@]}" "$@"
	tt_expect sim '^listening port=([0-9]+)$'
	SIM_PORT=${BASH_REMATCH[1]}
}

# tt_ctl COMMAND: one control command; the reply is in TT_CTL_REPLY; fails the test on "err".
tt_ctl() {
	TT_CTL_REPLY=$(timeout 10 "$SIMTARGET" --ctl "$SIM_CTL" --send "$1") ||
		tt_die "control command '$1' failed: $TT_CTL_REPLY"
}

# sim_stat NAME: one counter of the simulator's `stats` reply (waits, wait_pending, ap_reads, ...).
sim_stat() {
	tt_ctl stats
	[[ $TT_CTL_REPLY =~ $1=([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# tt_ocd_args: OpenOCD's arguments for the simulator: OPENOCD_CFG, the simulator's port, then
# OPENOCD_TARGET_CFG when set (a board-style target config after an interface config), no GDB
# or telnet port (a test that wants one asks for it after these). TT_OCD_ENV: the environment
# to run it with (`env "${TT_OCD_ENV[@]}" openocd ...`): the fake libusb on the DAP link.
tt_ocd_args() {
	if [ "${SIM_LINK:-}" = cmsis-dap ]; then
		TT_OCD_ENV=("LD_PRELOAD=$FAKEUSB" "TT_SIM_DAP=$SIM_PORT")
		TT_OCD_ARGS=(-f "$OPENOCD_CFG")
	else
		TT_OCD_ENV=()
		TT_OCD_ARGS=(-f "$OPENOCD_CFG" -c "remote_bitbang port $SIM_PORT")
	fi
	[ -z "${OPENOCD_TARGET_CFG:-}" ] || TT_OCD_ARGS+=(-f "$OPENOCD_TARGET_CFG")
	TT_OCD_ARGS+=(-c "gdb_port disabled" -c "telnet_port disabled")
}

# tt_ocd_start [EXTRA -c ARGS...]: a real OpenOCD attached to the simulator, RPC over pipes.
tt_ocd_start() {
	rm -f "$TT_TMP/ocd.in" "$TT_TMP/ocd.rpc"
	mkfifo "$TT_TMP/ocd.in" "$TT_TMP/ocd.rpc"
	tt_ocd_args
	env "${TT_OCD_ENV[@]}" openocd "${TT_OCD_ARGS[@]}" -c "tcl_port pipe" "$@" \
		-l "$TT_TMP/ocd.log" <"$TT_TMP/ocd.in" >"$TT_TMP/ocd.rpc" 2>"$TT_TMP/ocd.err" &
	TT_PIDS+=($!)
	TT_PID_ocd=$!
	exec {TT_OCD_W}<>"$TT_TMP/ocd.in" {TT_OCD_R}<>"$TT_TMP/ocd.rpc"
	tt_rpc 'return ready'
	[ "$TT_RPC" = ready ] || tt_die "OpenOCD did not start: '$TT_RPC'"
}

# tt_rpc TCL: one TCL RPC command (deadline 20 s); the reply is in TT_RPC.
tt_rpc() {
	printf '%s\032' "$1" >&"$TT_OCD_W"
	IFS= read -r -d $'\032' -t "${2:-20}" -u "$TT_OCD_R" TT_RPC ||
		tt_die "no RPC reply to '$1'"
}

# tt_read ADDR WIDTH COUNT: read_memory through OpenOCD; TT_RC = 0 on success, TT_RPC = the
# values (or the error message).
tt_read() {
	tt_rpc "list [catch {read_memory $1 $2 $3} r] \$r"
	TT_RC=${TT_RPC%% *}
	TT_RPC=${TT_RPC#* }
	TT_RPC=${TT_RPC#\{}
	TT_RPC=${TT_RPC%\}}
}

# tt_ocd_stop: closes OpenOCD's stdin (it exits by itself) and waits for it.
tt_ocd_stop() {
	exec {TT_OCD_W}>&-
	local end=$((SECONDS + 10))
	while kill -0 "$TT_PID_ocd" 2>/dev/null; do
		[ $SECONDS -lt $end ] || tt_die "OpenOCD did not exit after its stdin closed"
		sleep 0.05
	done
}

# tt_board_ocd_start: an OpenOCD of the user's (not the test's pipe): TCL and GDB on ephemeral
# loopback ports (OCD_PORT, GDB_PORT), log in $TT_TMP/xocd.log.
tt_board_ocd_start() {
	local end=$((SECONDS + 10))
	tt_ocd_args
	env "${TT_OCD_ENV[@]}" openocd "${TT_OCD_ARGS[@]}" -c "tcl_port 0" -c "gdb_port 0" -c "bindto 127.0.0.1" \
		-l "$TT_TMP/xocd.log" >/dev/null 2>&1 &
	TT_PIDS+=("$!")
	until grep -qs 'Listening on port [0-9]* for gdb' "$TT_TMP/xocd.log"; do
		[ $SECONDS -lt $end ] || tt_die "OpenOCD did not listen: $(tail -n 5 "$TT_TMP/xocd.log")"
		sleep 0.05
	done
	OCD_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for tcl.*/\1/p' "$TT_TMP/xocd.log")
	GDB_PORT=$(sed -n 's/.*Listening on port \([0-9]*\) for gdb.*/\1/p' "$TT_TMP/xocd.log")
}

# ocd_cmd TCL: one command on that OpenOCD's TCL port from a client of its own, as a user's
# script or IDE would send it (reply in OCD_REPLY, errors included: OpenOCD has no error flag).
ocd_cmd() {
	local fd
	exec {fd}<>"/dev/tcp/127.0.0.1/$OCD_PORT" || tt_die "cannot reach OpenOCD's TCL port"
	printf '%s\032' "$1" >&"$fd"
	IFS= read -r -d $'\032' -t 20 -u "$fd" OCD_REPLY || tt_die "no reply to '$1'"
	exec {fd}>&-
}

# tt_api_field PORT NAME: a field of the (first) target's summary in tracetapd's /api/targets.
tt_api_field() {
	local j
	j=$(curl -sf "http://127.0.0.1:$1/api/targets") || return 1
	[[ $j =~ \"$2\":\"?([^,\"]*) ]] && echo "${BASH_REMATCH[1]}"
}

# tt_ok_rpc TCL: one command that must succeed (caught); its result is in TT_RPC.
tt_ok_rpc() {
	tt_rpc "list [catch {$1} r] \$r"
	[ "${TT_RPC%% *}" = 0 ] || tt_die "'$1' failed: ${TT_RPC#* }"
	TT_RPC=${TT_RPC#* }
	TT_RPC=${TT_RPC#\{}
	TT_RPC=${TT_RPC%\}}
}

# tt_wait_for SECONDS DESCRIPTION COMMAND...: runs COMMAND until it succeeds (deadline).
tt_wait_for() {
	local secs=$1 end=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		[ $SECONDS -lt $end ] || tt_die "$what: not within $secs s"
		sleep 0.05
	done
}

# tt_proc_state PID: the process state letter from /proc (R, S, T = stopped, ...).
tt_proc_state() { local st; read -r st </proc/"$1"/stat && st=${st##*) } && echo "${st%% *}"; }

# tt_hex N: the canonical 0x... form OpenOCD prints for N.
tt_hex() { printf '0x%x' "$1"; }
