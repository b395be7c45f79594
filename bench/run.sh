#!/usr/bin/env bash
# bench/run.sh: every tracetap benchmark behind one command. Builds what it needs (release
# build dir), runs the items, prints ONE table and writes it to bench/RESULTS.md with the
# machine it ran on. Benchmarks measure; they never fail on speed (a non-zero exit means a part
# did not run). 127.0.0.1 only, ephemeral ports, every wait has a deadline, everything stops.
#
# usage: bench/run.sh [--quick] [--only ITEM] [--build DIR] [--out FILE]
#   ITEM: decode | triggers | pipeline (includes the memory rows) | chain | latency | rtt | soak | dashboard | mqtt
#   --quick: short runs (checks the script; numbers are rough), the soak is 20 s, not 10 min
#   --build: build dir (default build-bench, set up with --buildtype=release when missing)
#   --out:   results file (default bench/RESULTS.md; --quick and --only write nothing unless
#            given --out)
# Knobs (env): PIPE_RATE (file source events/s, 100000), SOAK_S (600), SOAK_RATE (20000),
#   RTT_CONFS (the rtt item's configurations, "rtt:default rtt:best tracetap:default tracetap:best"),
#   RTT_RATES (its rates, "300 1000 2000 3000 4000"; dap-hs "... 4000 6000 8000"), RTT_LINKS (the
#   links it runs on, "jtag dap-fs dap-hs").
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
QUICK=0 ONLY= BUILD=$src/build-bench OUT=
usage() { sed -n '8,13s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--only) ONLY=${2:?--only needs an item}; shift ;;
	--build) BUILD=${2:?--build needs a dir}; shift ;;
	--out) OUT=${2:?--out needs a file}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
case $ONLY in '' | decode | triggers | pipeline | chain | latency | rtt | soak | dashboard | mqtt) ;; *) usage >&2; exit 2 ;; esac
[ -z "$OUT" ] && [ $QUICK = 0 ] && [ -z "$ONLY" ] && OUT=$here/RESULTS.md
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
q() { [ $QUICK = 1 ] && echo "$1" || echo "$2"; }

# ---- build
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" "$src" --buildtype=release || exit 1
fi
# the simulated CMSIS-DAP probe exists when the build found libusb's headers
fakeusb=()
grep -q '^build tests/sim/libtt-fakeusb.so:' "$BUILD/build.ninja" && fakeusb=(tests/sim/libtt-fakeusb.so)
ninja -C "$BUILD" daemon/tracetapd client/tracetap tests/sim/tt-simtarget tests/sim/tt-fw-threadx \
	tests/live/check_seq tests/integration/tt-bench-link tests/e2e/tt-e2e-latency \
	bench/tt-bench-decode bench/tt-bench-clients bench/tt-bench-naive bench/tt-bench-rtt \
	bench/tt-bench-triggers "${fakeusb[@]}" >/dev/null || exit 1
export TRACETAPD=$BUILD/daemon/tracetapd TAIL=$BUILD/client/tracetap
export SIMTARGET=$BUILD/tests/sim/tt-simtarget FW_THREADX=$BUILD/tests/sim/tt-fw-threadx
export CHECK_SEQ=$BUILD/tests/live/check_seq NAIVE=$BUILD/bench/tt-bench-naive
CLIENTS=$BUILD/bench/tt-bench-clients
RTT_CLIENT=$BUILD/bench/tt-bench-rtt LATENCY=$BUILD/tests/e2e/tt-e2e-latency
FAKEUSB=$BUILD/tests/sim/libtt-fakeusb.so
. "$src/tests/sim/lib.sh"
. "$here/lib.sh"
. "$here/rtt.sh"

ROWS=()  # "item|measure|value"
row() { ROWS+=("$1|$2|$3"); printf '  %-10s %-62s %s\n' "$1" "$2" "$3"; }
field() { local v=${1##*"$2"=}; [ "$v" = "$1" ] && echo "?" || echo "${v%% *}"; }
# item NAME TITLE: the item's header line, and the load average as it starts (a row).
item() { echo "== $2"; row "$1" "load average (1/5/15 min) as it starts" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$SECONDS

# ---- 1. decode + JSON per format, one core
if want decode; then
	item decode "decode + JSON encode, one core"
	n=$(q 200000 1000000)
	rm -f "$TT_TMP/tx.bin"
	# RAM = 4 KiB below the buffer, header and registry (4 KiB), n entries: a full buffer
	"$FW_THREADX" --ram "$TT_TMP/tx.bin" --base 0x20000000 --size $((0x2000 + n * 32)) --rate 0 \
		--count "$n" --time counter >/dev/null || tt_die "tt-fw-threadx could not write the image"
	"$BUILD/bench/tt-bench-decode" "$(q 0.3 3)" "$TT_TMP/tx.bin" 0x20000000 0x20001000 "$n" "$n" \
		>"$TT_TMP/decode.txt" || tt_die "tt-bench-decode: $(cat "$TT_TMP/decode.txt")"
	while read -r line; do
		case $line in
		analysis*)
			row decode "$(field "$line" format): decode alone / + live analysis" \
				"$(field "$line" decode_per_s) / $(field "$line" with_analysis_per_s) events/s ($(field "$line" overhead_pct)% more CPU; the analysis holds $(field "$line" memory_bytes) B, $(field "$line" memory_10min_bytes) B with 10 minutes of load history; all from the start)" ;;
		*)
			row decode "$(field "$line" format) ($(field "$line" records) records, $(field "$line" image_bytes) B image)" \
				"$(field "$line" records_per_s) events/s ($(field "$line" json_mb_per_s) MB/s of JSON)" ;;
		esac
	done <"$TT_TMP/decode.txt"
fi

# ---- 1b. the trigger engine's cost per record: the hub alone, no trigger, 10 triggers
if want triggers; then
	item triggers "trigger engine per record (hub publish + matching, one core)"
	"$BUILD/bench/tt-bench-triggers" "$(q 300000 2000000)" >"$TT_TMP/triggers.txt" 2>/dev/null ||
		tt_die "tt-bench-triggers: $(cat "$TT_TMP/triggers.txt")"
	while read -r line; do
		row triggers "triggers: $(field "$line" n)" "$(field "$line" ns_per_record) ns/record ${line#*ns_per_record=* }"
	done <"$TT_TMP/triggers.txt"
fi

# ---- 2 and 5. host pipeline (file source, real tracetapd, real WebSocket clients) and memory
# cpu_ticks PID: user + system clock ticks of a process so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# mem PID: "RSS MiB (peak MiB)" from /proc/PID/status.
mem() {
	awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.1f MiB (peak %.1f MiB)", r / 1024, h / 1024 }' \
		"/proc/$1/status"
}
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
HZ=$(getconf CLK_TCK)
RAM=$TT_TMP/pipe.bin
FWARGS=(--ram "$RAM" --base 0x20000000 --size 0x200000 --buf-size 0x80000 --time counter)
# host_daemon: the workload's buffer (20 start-up events, then it exits) and tracetapd following
# it through the file probe, history 100,000 records.
host_daemon() {
	rm -f "$RAM"
	"$FW_THREADX" "${FWARGS[@]}" --rate 0 --count 20 >/dev/null || tt_die "tt-fw-threadx failed"
	bench_daemon "$TT_TMP/host-daemon.err" --name pipe --probe "file:$RAM" --base 0x20000000 \
		--pointer 0x20000000 --web "$src/web" --history 100000 --log-level notice
}
# host_writer RATE: the workload writing the same buffer again (a reset record), FP.
host_writer() {
	"$FW_THREADX" "${FWARGS[@]}" --rate "$1" >/dev/null &
	FP=$!
	TT_PIDS+=("$FP")
}

# wait_history SECONDS: until the daemon's 100,000-record history is full.
wait_history() {
	local end=$((SECONDS + $1))
	until [ "$(bench_metric "$HPORT" tracetap_history_records)" -ge 100000 ]; do
		[ $SECONDS -lt $end ] || tt_die "the history did not fill in $1 s"
		sleep 0.2
	done
}

if want pipeline; then
	rate=${PIPE_RATE:-100000} secs=$(q 2 8)
	item pipeline "host pipeline: file source at $rate events/s -> tracetapd -> 1/10/100 WebSocket clients"
	host_daemon
	sleep 2
	row memory "daemon idle (target attached, 20 events, no client)" "$(mem "$DP")"
	host_writer "$rate"
	wait_history 20
	sleep 1
	row memory "history full (100,000 records), writer at $rate/s, no client" "$(mem "$DP")"
	for n in 1 10 100; do
		c0=$(cpu_ticks "$DP") l0=$(bench_metric "$HPORT" tracetap_lost_events_total)
		e0=$(bench_metric "$HPORT" tracetap_events_total)
		"$CLIENTS" "$HPORT" "$n" "$secs" >"$TT_TMP/clients$n.txt" &
		cp=$!
		if [ "$n" = 100 ]; then
			sleep "$(awk -v s="$secs" 'BEGIN { print s / 2 }')"
			row memory "100 clients connected, streaming (history full)" "$(mem "$DP")"
		fi
		wait "$cp" || tt_die "tt-bench-clients $n failed: $(cat "$TT_TMP/clients$n.txt")"
		c1=$(cpu_ticks "$DP") l1=$(bench_metric "$HPORT" tracetap_lost_events_total)
		e1=$(bench_metric "$HPORT" tracetap_events_total)
		r=$(cat "$TT_TMP/clients$n.txt")
		echo "  $r"
		t=$(field "$r" secs)
		row pipeline "$n client(s): events/s per client, median (min-max)" \
			"$(field "$r" rate_median) ($(field "$r" rate_min)-$(field "$r" rate_max))"
		row pipeline "$n client(s): daemon CPU; deliveries/s; deliveries per daemon CPU-s" \
			"$(awk -v c=$((c1 - c0)) -v hz="$HZ" -v t="$t" -v d="$(field "$r" records_total)" \
				'BEGIN { printf "%.2f cores; %.0f/s; %.0f", c / hz / t, d / t, c ? d * hz / c : 0 }')"
		row pipeline "$n client(s): losses" \
			"slow client: $(field "$r" lost) records in $(field "$r" gap_msgs) gaps ($(field "$r" clients_with_loss) of $n clients), source lapped: $((l1 - l0)) of $((e1 - e0 + l1 - l0))"
	done
	kill "$FP"
	wait "$FP" 2>/dev/null
	row memory "after the runs (history full, no client)" "$(mem "$DP")"
	kill "$DP"
	wait "$DP" 2>/dev/null
fi

# ---- 3 and 4. through real OpenOCD and the simulated target (tests/e2e/bench.sh parts)
run_e2e() {
	PARTS=$1 TRIAL_S=$(q 3 5) STEPS=$(q 2 6) LAT_S=$(q 3 10) bash "$src/tests/e2e/bench.sh" \
		"$BUILD/tests/integration/tt-bench-link" "$BUILD/tests/e2e/tt-e2e-latency" \
		"$src/tests/sim/openocd-sim.cfg" >"$TT_TMP/e2e-$2.txt" 2>&1 ||
		tt_die "tests/e2e/bench.sh ($1) failed: $(tail -n 20 "$TT_TMP/e2e-$2.txt")"
	grep -E '^(trial|naive|websocket|steady|link|read)' "$TT_TMP/e2e-$2.txt" | sed 's/^/  /'
}
res() { sed -n "s/^result $1=//p" "$TT_TMP/e2e-$2.txt"; }
if want chain; then
	item chain "through real OpenOCD and the simulated target: tracetap vs a naive dumping reader"
	run_e2e "link bpe lossless naive" chain
	row chain "raw link, 4 KiB read_memory (tt-bench-link)" \
		"$(res link_kib_s chain) KiB/s = $(res link_entries_s chain) entries/s"
	row chain "probe bytes per delivered event at 1,000/s: tracetap / naive" \
		"$(res bpe chain) / $(res naive_bpe chain) (naive: $(res naive_poll_ms chain) ms a dump, $(res naive_lost_1000 chain) lost in 8 s)"
	row chain "highest lossless rate: tracetap / naive (events/s)" \
		"$(res lossless chain) / $(res naive_lossless chain)"
	row chain "  as a fraction of the raw link: tracetap / naive" \
		"$(res lossless_frac chain) / $(res naive_lossless_frac chain)"
	row chain "ratio tracetap/naive: lossless rate; bytes per event" \
		"$(awk -v a="$(res lossless chain)" -v b="$(res naive_lossless chain)" -v c="$(res bpe chain)" \
			-v d="$(res naive_bpe chain)" 'BEGIN { printf "%.2f; %.2f", b ? a / b : 0, d ? c / d : 0 }')"
fi
if want latency; then
	item latency "latency, target write -> WebSocket client (tracetap tail --json)"
	run_e2e wslatency latency
	for r in 100 1000 10000; do
		row latency "$r events/s: p50 / p99 (ms)" "$(res "ws_latency_$r" latency)"
		row latency "$r events/s: loss" "$(res "ws_loss_$r" latency)"
	done
fi

# ---- OpenOCD's RTT and tracetap on the same simulated link (bench/rtt.sh)
if want rtt; then
	rtt_item
fi

# ---- 5. soak: RSS every 10 s (2 s in --quick) while streaming to 10 clients
if want soak; then
	secs=$(q 20 "${SOAK_S:-600}") step=$(q 2 10) rate=${SOAK_RATE:-20000}
	item memory "soak: $secs s, writer at $rate/s, 10 clients, RSS every $step s"
	host_daemon
	host_writer "$rate"
	wait_history 60 # the history ring filling is not growth: sample from there on
	"$CLIENTS" "$HPORT" 10 $((secs + 2)) >"$TT_TMP/soak-clients.txt" &
	cp=$!
	end=$((SECONDS + 10))
	until [ "$(bench_metric "$HPORT" tracetap_clients)" -ge 10 ]; do
		[ $SECONDS -lt $end ] || tt_die "the 10 soak clients did not connect"
		sleep 0.1
	done
	fd0=$(ls "/proc/$DP/fd" | wc -l) # with the 10 clients connected, as at the end
	: >"$TT_TMP/soak.txt"
	for ((t = 0; t <= secs; t += step)); do
		echo "$t $(rss_kib "$DP")" >>"$TT_TMP/soak.txt"
		[ $t -lt "$secs" ] && sleep "$step"
	done
	fd1=$(ls "/proc/$DP/fd" | wc -l)
	wait "$cp"
	kill "$FP" "$DP"
	wait "$FP" "$DP" 2>/dev/null
	echo "  $(cat "$TT_TMP/soak-clients.txt")"
	# least-squares slope (KiB/min) over every sample and over the second half only (the history
	# ring's pages are first touched during the first laps of its byte ring)
	row memory "soak $secs s: RSS first -> last; slope all / second half (least squares)" "$(awk '
		function slope(from,   i, n, x, y, xx, xy) {
			for (i = from; i <= N; i++) { n++; x += t[i]; y += r[i]; xx += t[i] * t[i]; xy += t[i] * r[i] }
			return (n * xy - x * y) / (n * xx - x * x) * 60
		}
		{ N++; t[N] = $1; r[N] = $2 }
		END { printf "%.1f -> %.1f MiB; %+.1f / %+.1f KiB/min (%d samples)", r[1] / 1024, r[N] / 1024,
		      slope(1), slope(int(N / 2) + 1), N }' "$TT_TMP/soak.txt")"
	row memory "soak $secs s: open fds first -> last; client losses" \
		"$fd0 -> $fd1; $(field "$(cat "$TT_TMP/soak-clients.txt")" lost) records"
fi

# ---- 6. dashboard frame time in real Chromium (tests/browser/bench.mjs: requestAnimationFrame
# deltas in the page, real tracetapd following tt-fw-threadx through the process probe)
if want dashboard; then
	rate=20000
	item dashboard "dashboard in headless Chromium while $rate events/s stream"
	bdir=$src/tests/browser
	if ! command -v node >/dev/null || [ ! -x /usr/bin/chromium ] || [ ! -d "$bdir/node_modules/playwright-core" ]; then
		row dashboard "frame time p50 / p95 / p99 / max (ms), goal p95 < 33" "not run: needs node, /usr/bin/chromium and npm ci in tests/browser"
	else
		PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TT_BUILD_ROOT=$BUILD TT_SOURCE_ROOT=$src TT_WEB=$src/web \
			TT_DAEMON=$TRACETAPD node "$bdir/bench.mjs" --process --rate "$rate" \
			--seconds "$(q 3 10)" --warmup "$(q 2 4)" >"$TT_TMP/dashboard.txt" 2>&1 ||
			tt_die "tests/browser/bench.mjs failed: $(tail -n 20 "$TT_TMP/dashboard.txt")"
		sed 's/^/  /' "$TT_TMP/dashboard.txt"
		ft=$(sed -n 's/^frame time: *//p' "$TT_TMP/dashboard.txt")
		row dashboard "frame time p50 / p95 / p99 / max (ms), goal p95 < 33" \
			"$(echo "$ft" | awk '{ printf "%s / %s / %s / %s", $2, $5, $8, $11 }')"
		row dashboard "records/s received by the page; frames; long tasks (> 50 ms)" \
			"$(sed -n 's/^received: *\([0-9]*\).*/\1/p' "$TT_TMP/dashboard.txt"); $(sed -n 's/^frames: *\([0-9]*\) *long tasks (>50 ms): \([0-9]*\).*/\1; \2/p' "$TT_TMP/dashboard.txt")"
	fi
fi

# ---- 7. a lab through an MQTT broker (bench/mqtt_bench.py): N publishing daemons, one central
bench_mqtt() {
	local n=$(q 3 20) rate=2000 secs=$(q 3 10) r
	item mqtt "lab: $n daemons at $rate events/s -> mosquitto -> central daemon -> 10 WebSocket clients"
	command -v mosquitto >/dev/null || { row mqtt "skipped" "mosquitto not installed"; return; }
	python3 "$here/mqtt_bench.py" "$TRACETAPD" "$TAIL" "$FW_THREADX" "$CLIENTS" "$n" "$rate" "$secs" \
		>"$TT_TMP/mqtt.txt" 2>&1 || tt_die "bench/mqtt_bench.py failed: $(tail -n 5 "$TT_TMP/mqtt.txt")"
	r() { sed -n "s/^result $1=//p" "$TT_TMP/mqtt.txt"; }
	row mqtt "lossless ($(r events) events in $secs s, central and its 10 clients)" "$(r lossless)"
	row mqtt "broker hop (bench tail -> central tail): p50 / p99 ms" "$(r hop_ms)"
	row mqtt "CPU" "$(r cpu)"
	row mqtt "10 clients of the central daemon" "$(r clients)"
	row mqtt "deliveries per CPU-s: broker + central / a bench daemon directly; ratio" \
		"$(r path_per_cpu_s) / $(r direct_per_cpu_s); $(r ratio)"
}
want mqtt && bench_mqtt

# ---- the table
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
table() {
	echo "| item | measure | value |"
	echo "|---|---|---|"
	printf '%s\n' "${ROWS[@]}" | awk -F'|' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
}
echo
echo "== results ($(date -u +%FT%TZ), $((SECONDS - T0)) s, load before/after: $LOAD0 / $LOAD1)"
printf '%s\n' "${ROWS[@]}" | awk -F'|' '{ printf "%-9s %-62s %s\n", $1, $2, $3 }'
if [ -n "$OUT" ]; then
	{
		echo "# tracetap benchmark results"
		echo
		echo "Written by \`bench/run.sh$([ $QUICK = 1 ] && echo " --quick")$([ -n "$ONLY" ] && echo " --only $ONLY")\` (what each row means and how it is measured: \`bench/README.md\`)."
		echo
		echo "- date: $(date -u +%FT%TZ), run time $((SECONDS - T0)) s"
		echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(uname -sr)"
		echo "- openocd: $(openocd --version 2>&1 | head -n1)"
		echo "- libwebsockets: $(pkg-config --modversion libwebsockets 2>/dev/null || echo unknown), libuv: $(pkg-config --modversion libuv 2>/dev/null || echo unknown)"
		echo "- build: ${BUILD#"$src"/} ($(grep -o '"name": "buildtype", "value": "[a-z]*"' "$BUILD/meson-info/intro-buildoptions.json" | sed 's/.*"value": //')), $(cc --version | head -n1)"
		echo "- load average (1/5/15 min) before: $LOAD0, after: $LOAD1 (the cores are shared with other work)"
		echo
		table
	} >"$OUT"
	echo "written to $OUT"
fi
