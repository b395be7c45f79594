# bench/rtt.sh: the RTT item of bench/run.sh (sourced after tests/sim/lib.sh and bench/lib.sh;
# uses run.sh's row, item, q, cpu_ticks, HZ). OpenOCD's own RTT and tracetap side by side on the
# same simulated link: tt-simtarget --cortex-m examined by OpenOCD's cortex_m target
# (tests/sim/sim-cm3.cfg), and one tt-fw-threadx that writes every event both into a ThreadX
# trace buffer and, as a 32-byte record with the same write time, into a SEGGER RTT up-buffer
# (--rtt-off). Needs RTT_CLIENT (tt-bench-rtt), TAIL, LATENCY (tt-e2e-latency), SIMTARGET,
# FW_THREADX, TRACETAPD, FAKEUSB (libtt-fakeusb.so) and the sim configs in $src/tests/sim. See
# bench/README.md.
#
# Every configuration runs on each link of RTT_LINKS: jtag (remote_bitbang, a round trip per
# JTAG scan), dap-fs and dap-hs (the simulated CMSIS-DAP probe over SWD, full speed: 64-byte
# packets, 1 ms round trip; high speed: 512 bytes, 125 us), through OpenOCD's own
# interface/cmsis-dap.cfg with libtt-fakeusb.so preloaded.

RTT_BASE=0x20000000 RTT_RAM=0x40000 RTT_OFF=0x12000 RTT_K=0 RTT_LINK=jtag

# rtt_chain RATE RTT_BYTES [FW ARGS...]: a fresh workload, simulator and OpenOCD (TCL on an ephemeral port):
# RSTART (the workload's start, ns), RPIDS (to stop), OPID, RCTL (simulator control socket),
# OPORT (TCL port).
rtt_chain() {
	local k=$((RTT_K += 1)) v
	local ram=$TT_TMP/rtt$k.bin log=$TT_TMP/rttocd$k.log end=$((SECONDS + 15))
	tt_spawn "rfw$k" "$FW_THREADX" --ram "$ram" --base $RTT_BASE --size $RTT_RAM --buf-size 0x10000 \
		--rate "$1" --rtt-off $RTT_OFF --rtt-size "$2" --time cycles --tick-hz 100000000 "${@:3}"
	tt_expect "rfw$k" ' mono_start_ns=([0-9]+)'
	RSTART=${BASH_REMATCH[1]} v="TT_PID_rfw$k"
	RPIDS=("${!v}")
	RCTL=$TT_TMP/rsim$k.ctl
	local link=() env=() iface=()
	[ "$RTT_LINK" = jtag ] || link=(--cmsis-dap)
	tt_spawn "rsim$k" "$SIMTARGET" --ctl "$RCTL" --cortex-m --ram "$ram" --base $RTT_BASE \
		--size $RTT_RAM "${link[@]}"
	tt_expect "rsim$k" '^listening port=([0-9]+)$'
	v="TT_PID_rsim$k"
	RPIDS+=("${!v}")
	case $RTT_LINK in
	jtag) iface=(-f "$src/tests/sim/remote-bitbang.cfg" -c "remote_bitbang port ${BASH_REMATCH[1]}") ;;
	dap-fs | dap-hs)
		env=("LD_PRELOAD=$FAKEUSB" "TT_SIM_DAP=${BASH_REMATCH[1]}" "TT_SIM_DAP_USB=$([ "$RTT_LINK" = dap-fs ] && echo full || echo high)")
		iface=(-f interface/cmsis-dap.cfg) ;;
	esac
	env "${env[@]}" openocd "${iface[@]}" \
		-f "$src/tests/sim/sim-cm3.cfg" -c "gdb_port disabled" -c "telnet_port disabled" \
		-c "tcl_port 0" -c "bindto 127.0.0.1" -l "$log" >/dev/null 2>&1 &
	OPID=$!
	TT_PIDS+=("$OPID")
	RPIDS+=("$OPID")
	until grep -qs 'Listening on port [0-9]* for tcl' "$log"; do
		[ $SECONDS -lt $end ] || tt_die "OpenOCD (RTT item) did not listen: $(tail -n 5 "$log")"
		sleep 0.05
	done
	OPORT=$(sed -n 's/.*Listening on port \([0-9]*\) for tcl.*/\1/p' "$log")
	OCD_PORT=$OPORT
}
rtt_stop() {
	kill "${RPIDS[@]}" 2>/dev/null
	wait "${RPIDS[@]}" 2>/dev/null
	tt_unspawn "rfw$RTT_K"
	tt_unspawn "rsim$RTT_K"
}
# rtt_server INTERVAL_MS: OpenOCD's RTT on the block, polled every INTERVAL_MS, its server on an
# ephemeral port (RPORT).
rtt_server() {
	ocd_cmd "capture {rtt setup $((RTT_BASE + RTT_OFF - 0x2000)) 0x4000 \"SEGGER RTT\"; rtt polling_interval $1; rtt start; rtt server start 0 0}"
	RPORT=$(sed -n 's/.*Listening on port \([0-9]*\) for rtt connections.*/\1/p' <<<"$OCD_REPLY")
	[ -n "$RPORT" ] || tt_die "OpenOCD's RTT did not start: $OCD_REPLY"
}
# rtt_daemon CONF [ARGS...]: tracetapd on the chain's OpenOCD (CONF best: --latency 10).
rtt_daemon() {
	local dargs=(--name rtt --pointer $RTT_BASE --probe "openocd:127.0.0.1:$OPORT" --log-level notice
		--web "$src/web" "${@:2}")
	[ "$1" = best ] && dargs+=(--latency 10)
	bench_daemon "$TT_TMP/rtt-daemon$RTT_K.err" "${dargs[@]}"
	RPIDS+=("$DP")
}
# rtt_sim_io: "bytes AP_transactions" the simulator moved so far (reads + writes).
rtt_sim_io() {
	local r
	r=$(timeout 10 "$SIMTARGET" --ctl "$RCTL" --send stats) || tt_die "simulator stats: $r"
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { print v["bytes_read"] + v["bytes_written"], v["ap_reads"] + v["ap_writes"] }' <<<"$r"
}

# rtt_trial rtt|tracetap CONF RATE SECS: one trial; sets TRIAL to
# "received missing p50 p99 ocd_cpu bytes_per_record" (over the measured window), and for
# tracetap STAGES to bench/stages.py's line (tracetapd at --log-level debug prints its stage
# lines: a few hundred short lines a second at these rates).
rtt_trial() {
	local who=$1 conf=$2 rate=$3 secs=$4 skip=3 size=1024 iv=100 c0 c1 io0 io1 out n miss p50 p99
	[ "$conf" = best ] && size=16384 iv=10
	rtt_chain "$rate" "$size"
	if [ "$who" = rtt ]; then
		rtt_server "$iv"
		"$RTT_CLIENT" "$RPORT" $((skip + secs)) "$skip" "$RSTART" >"$TT_TMP/rtt-client.txt" &
		local cp=$!
	else
		rtt_daemon "$conf" --start-at-now --log-level debug
		"$TAIL" tail --json --duration $((skip + secs)) "ws://127.0.0.1:$HPORT/" \
			2>"$TT_TMP/rtt-tail.err" | tee "$TT_TMP/rtt-tail.jsonl" |
			"$LATENCY" "$RSTART" 100000000 $((skip * 1000)) "$TT_TMP/rtt-arrivals.txt" \
			>"$TT_TMP/rtt-client.txt" &
		local cp=$!
	fi
	sleep "$skip" # the window starts when the workload has run SKIP seconds
	c0=$(cpu_ticks "$OPID") io0=$(rtt_sim_io)
	# a client that received nothing in the window (tt-e2e-latency: n=0) is a trial with loss,
	# not a broken bench
	wait "$cp" || echo "  ($who $conf at $rate/s: the client reported: $(cat "$TT_TMP/rtt-client.txt"))" >&2
	c1=$(cpu_ticks "$OPID") io1=$(rtt_sim_io)
	out=$(cat "$TT_TMP/rtt-client.txt")
	if [ "$who" = rtt ]; then
		n=$(field "$out" records) miss=$(field "$out" missing)
	else
		local gaps lost missed
		read -r n gaps lost missed < <(bench_tail_loss "$TT_TMP/rtt-tail.jsonl" "$TT_TMP/rtt-tail.err")
		miss=$((lost + missed))
		STAGES=$(python3 "$here/stages.py" "$TT_TMP/rtt-daemon$RTT_K.err" "$TT_TMP/rtt-arrivals.txt" \
			"$RSTART" 100000000) || STAGES="stages n=0"
	fi
	p50=$(field "$out" p50_ms) p99=$(field "$out" p99_ms)
	rtt_stop
	TRIAL=$(awk -v n="$n" -v m="$miss" -v a="$p50" -v b="$p99" -v c=$((c1 - c0)) -v hz="$HZ" -v s="$secs" \
		-v by=$((${io1% *} - ${io0% *})) -v r="$rate" 'BEGIN {
		printf "%d %d %s %s %.2f %.1f\n", n, m, a, b, c / hz / s, by / (r * s) }')
}

# rtt_idle rtt|tracetap CONF SECS: the cost of polling an idle target (20 events written, then
# none), with a client connected (OpenOCD's RTT reads a channel only while its server has a
# client): sets IDLE to "bytes/s AP_transactions/s ocd_cpu".
rtt_idle() {
	local who=$1 conf=$2 secs=$3 iv=100 c0 c1 io0 io1
	[ "$conf" = best ] && iv=10
	rtt_chain 1000 1024 --count 20 # then the workload exits: a core with nothing to trace
	if [ "$who" = rtt ]; then
		rtt_server "$iv"
		"$RTT_CLIENT" "$RPORT" $((secs + 3)) 0 "$RSTART" >/dev/null &
		RPIDS+=("$!")
	else
		rtt_daemon "$conf"
	fi
	sleep 2 # attach, search, the interval settles
	c0=$(cpu_ticks "$OPID") io0=$(rtt_sim_io)
	sleep "$secs"
	c1=$(cpu_ticks "$OPID") io1=$(rtt_sim_io)
	rtt_stop
	IDLE=$(awk -v c=$((c1 - c0)) -v hz="$HZ" -v s="$secs" -v by=$((${io1% *} - ${io0% *})) \
		-v ap=$((${io1#* } - ${io0#* })) 'BEGIN { printf "%.0f %.0f %.3f\n", by / s, ap / s, c / hz / s }')
}

# rtt_link_cost: what OpenOCD spends on this link, whoever asks, and what the link carries: its
# CPU per read_memory of one word (200 of them) and per word of 1,024-word reads (20 of them),
# each batch one TCL loop run inside OpenOCD (no client round trips), on an idle target; the
# raw link = the 4 KiB reads' bytes / their wall time (OpenOCD's own clock). Sets LINKCOST to
# "us_per_read us_per_word KiB_per_s".
rtt_link_cost() {
	local c0 c1 c2 ms
	rtt_chain 1000 1024 --count 20
	sleep 1
	c0=$(cpu_ticks "$OPID")
	ocd_cmd "for {set i 0} {\$i < 200} {incr i} {read_memory $RTT_BASE 32 1}"
	c1=$(cpu_ticks "$OPID")
	ocd_cmd "set t0 [clock milliseconds]; for {set i 0} {\$i < 20} {incr i} {read_memory $RTT_BASE 32 1024}; expr {[clock milliseconds] - \$t0}"
	ms=$OCD_REPLY
	c2=$(cpu_ticks "$OPID")
	rtt_stop
	LINKCOST=$(awk -v a=$((c1 - c0)) -v b=$((c2 - c1)) -v hz="$HZ" -v ms="$ms" \
		'BEGIN { printf "%.0f %.1f %.1f\n", a / hz / 200 * 1e6, b / hz / (20 * 1024) * 1e6,
		         (ms > 0 ? 20 * 4 / (ms / 1000) : 0) }')
}

# rtt_lossless_search WHO CONF BEST LOSSY SECS KIB: the highest lossless rate, finer than the
# rate list: from BEST (the list's highest lossless rate: every rate up to it was) and LOSSY
# (the first that lost, or "" when none did: then rates 1.5x apart are tried up to 1.25x what
# the raw link carries in entries, KIB KiB/s of 32-byte entries), the interval is halved until
# it is within 10% of BEST (--quick: at most 2 trials). Sets LOSSLESS. Each trial is one run
# of rtt_trial, so one lucky trial counts (the numbers are rough above 90% of the link).
rtt_lossless_search() {
	local who=$1 conf=$2 lo=$3 hi=$4 secs=$5 cap mid n miss left
	left=$(q 2 8)
	cap=$(awk -v k="$6" 'BEGIN { printf "%d", k * 1024 / 32 * 1.25 }')
	while [ "$left" -gt 0 ]; do
		if [ -z "$hi" ]; then # upwards while nothing lost
			[ "$lo" -gt 0 ] && [ "$lo" -lt "$cap" ] || break
			mid=$((lo * 3 / 2))
		else # halving [lo, hi) down to 10% of lo
			[ $((hi - lo)) -gt $((lo / 10 > 10 ? lo / 10 : 10)) ] || break
			mid=$(((lo + hi) / 2))
		fi
		rtt_trial "$who" "$conf" "$mid" "$secs"
		read -r n miss _ <<<"$TRIAL"
		echo "  $RTT_LINK $who $conf at $mid/s (search): received=$n missing=$miss"
		if [ "$miss" = 0 ] && [ "$n" -gt 0 ]; then lo=$mid; else hi=$mid; fi
		left=$((left - 1))
	done
	LOSSLESS=$lo
}

# rtt_link_name LINK: how the rows name a link.
rtt_link_name() {
	case $1 in
	jtag) echo "JTAG remote_bitbang" ;;
	dap-fs) echo "CMSIS-DAP SWD full speed (1 ms)" ;;
	dap-hs) echo "CMSIS-DAP SWD high speed (125 us)" ;;
	esac
}

# rtt_link_item LINK: every configuration on one link; rows prefixed with the link's name.
rtt_link_item() {
	local link=$1 secs rates who conf r best ok lname n miss p50 p99 cpu bpr b a c kib
	RTT_LINK=$link lname=$(rtt_link_name "$link")
	secs=$(q 3 8)
	rates=${RTT_RATES:-$(q "300 1000" "300 1000 2000 3000 4000")}
	[ "$link" = dap-hs ] && [ -z "${RTT_RATES:-}" ] && [ $QUICK = 0 ] && rates="300 1000 2000 4000 6000 8000"
	item rtt "OpenOCD RTT vs tracetap on $lname (cortex_m), 32-byte records"
	declare -A LL P50 P99 Q50 Q99 CPU BPR IDL ST
	rtt_link_cost
	read -r a b kib <<<"$LINKCOST"
	row rtt "$lname: raw link, 4 KiB read_memory inside OpenOCD" \
		"$kib KiB/s = $(awk -v k="$kib" 'BEGIN { printf "%.0f", k * 1024 / 32 }') entries/s"
	row rtt "$lname: OpenOCD CPU per read_memory of 1 word; per word of 1,024-word reads" \
		"$a us; $b us (1,000 records/s of 32 bytes = 8,000 words/s = $(awk -v b="$b" \
		'BEGIN { printf "%.2f", b * 8000 / 1e6 }') cores for the words alone)"
	for who in rtt tracetap; do
		for conf in default best; do
			case " ${RTT_CONFS:-rtt:default rtt:best tracetap:default tracetap:best} " in
			*" $who:$conf "*) ;; *) continue ;; esac
			best=0 ok=1 lossy=
			for r in $rates; do
				rtt_trial "$who" "$conf" "$r" "$secs"
				read -r n miss p50 p99 cpu bpr <<<"$TRIAL"
				echo "  $link $who $conf at $r/s: received=$n missing=$miss p50=$p50 p99=$p99 ms ocd_cpu=$cpu bytes/record=$bpr"
				[ "$who" = tracetap ] && ST[$who$conf$r]=$STAGES && echo "    $STAGES"
				# the highest rate up to which every rate tried was lossless
				if [ $ok = 1 ] && [ "$miss" = 0 ] && [ "$n" -gt 0 ]; then best=$r; else ok=0; fi
				[ $ok = 0 ] && [ -z "$lossy" ] && lossy=$r
				if [ "$r" = 1000 ]; then
					P50[$who$conf]=$p50 P99[$who$conf]=$p99 CPU[$who$conf]=$cpu BPR[$who$conf]=$bpr
				elif [ "$r" = 300 ]; then
					Q50[$who$conf]=$p50 Q99[$who$conf]=$p99
				fi
			done
			rtt_lossless_search "$who" "$conf" "$best" "${lossy:-}" "$secs" "$kib"
			LL[$who$conf]=$LOSSLESS
			rtt_idle "$who" "$conf" "$(q 2 5)"
			IDL[$who$conf]=$IDLE
		done
	done
	local name
	for who in rtt tracetap; do
		for conf in default best; do
			[ -n "${LL[$who$conf]:-}" ] || continue
			case $who$conf in
			rttdefault) name="RTT, default (rtt polling_interval 100, 1 KiB up-buffer)" ;;
			rttbest) name="RTT, best (rtt polling_interval 10, 16 KiB up-buffer)" ;;
			tracetapdefault) name="tracetap, defaults" ;;
			tracetapbest) name="tracetap, --latency 10" ;;
			esac
			row rtt "$lname: $name: highest lossless rate ($rates/s, then halving the step to 10%); % of the raw link in entries" \
				"${LL[$who$conf]}; $(awk -v l="${LL[$who$conf]}" -v k="$kib" \
				'BEGIN { printf "%.0f%%", (k > 0 ? l * 100 / (k * 1024 / 32) : 0) }')"
			row rtt "$lname: $name: p50 / p99 (ms) at 300/s; at 1,000/s" \
				"${Q50[$who$conf]:--} / ${Q99[$who$conf]:--}; ${P50[$who$conf]:--} / ${P99[$who$conf]:--}"
			row rtt "$lname: $name: at 1,000/s OpenOCD CPU; probe bytes/record" \
				"${CPU[$who$conf]:--} cores; ${BPR[$who$conf]:--}"
			read -r b a c <<<"${IDL[$who$conf]}"
			row rtt "$lname: $name: idle target: probe bytes/s; AP transactions/s; OpenOCD CPU" "$b; $a; $c cores"
			for r in 300 1000; do
				[ -n "${ST[$who$conf$r]:-}" ] || continue
				row rtt "$lname: $name: stages at $r/s, p50/p99 ms: wait; link; decode; publish; socket; client" \
					"$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
					END { printf "%s; %s; %s; %s; %s; %s", v["wait"], v["link"], v["decode"], v["publish"], v["socket"], v["client"] }' <<<"${ST[$who$conf$r]}")"
			done
		done
	done
	for conf in default best; do
		row rtt "$lname: ratio tracetap/RTT ($conf vs $conf): lossless rate; p50, p99 at 300/s; at 1,000/s; OpenOCD CPU; bytes/record" \
			"$(awk -v a="${LL[tracetap$conf]:-}" -v b="${LL[rtt$conf]:-}" -v c="${P50[tracetap$conf]:-}" \
				-v d="${P50[rtt$conf]:-}" -v e="${P99[tracetap$conf]:-}" -v f="${P99[rtt$conf]:-}" \
				-v g="${CPU[tracetap$conf]:-}" -v h="${CPU[rtt$conf]:-}" -v i="${BPR[tracetap$conf]:-}" \
				-v j="${BPR[rtt$conf]:-}" -v k="${Q50[tracetap$conf]:-}" -v l="${Q50[rtt$conf]:-}" \
				-v m="${Q99[tracetap$conf]:-}" -v n="${Q99[rtt$conf]:-}" \
				'function r(x, y) { return y + 0 ? sprintf("%.2f", x / y) : "-" }
				BEGIN { printf "%s; %s, %s; %s, %s; %s; %s", r(a, b), r(k, l), r(m, n), r(c, d), r(e, f), r(g, h), r(i, j) }')"
	done
}

rtt_item() {
	local link
	for link in ${RTT_LINKS:-jtag dap-fs dap-hs}; do
		if [ "$link" != jtag ] && [ ! -f "$FAKEUSB" ]; then
			item rtt "OpenOCD RTT vs tracetap on $(rtt_link_name "$link")"
			row rtt "$(rtt_link_name "$link")" "not run: no libtt-fakeusb.so (built without libusb)"
			continue
		fi
		rtt_link_item "$link"
	done
}
