#!/usr/bin/env bash
# tests/nuttx/stacks.sh: `tracetap analyze` of a NuttX RAM image whose stacks are coloured as
# CONFIG_STACK_COLORATION colours them (nx_stackimage: two tasks used to depths it prints, one
# task never coloured): each coloured task's painted figure is exactly its depth (used) and the
# rest (free), in the JSON and the text; the uncoloured task is "no fill pattern"; without the
# colour (a layout that does not give it) there are no painted figures at all. Live: tracetapd
# following the same image through the file probe walks the task table and reads the stacks:
# /api/stats gives the same figures (by pid; the notes name the tasks otherwise).
# usage: stacks.sh TRACETAP NX_STACKIMAGE TRACETAPD
set -euo pipefail
tracetap=$1 mk=$2 tracetapd=$3
work=$(mktemp -d) dpid=""
stop_daemon() { # SIGTERM, then wait for it to exit (under valgrind: its summary written)
	[ -z "$dpid" ] || { kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null || true; }
	dpid=""
}
trap 'stop_daemon; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$mk" "$work/ram.bin" > "$work/mk.out"
read -r first < "$work/mk.out"
opt() { sed -n "s/.* $1=\([0-9a-fx]*\).*/\1/p" <<<"$first"; }
drv=$(sed -n 's/^driver=\(0x[0-9a-f]*\).*/\1/p' <<<"$first")
[ -n "$drv" ] || fail "nx_stackimage: $(cat "$work/mk.out")"
args=(--format nuttx --address "$drv")
for k in pidhash npidhash tcb_pid tcb_name tcb_name_size tcb_stack_base tcb_stack_size; do
	args+=(--format-opt "$k=$(opt $k)")
done

${TT_WRAP-} "$tracetap" analyze --json "${args[@]}" --format-opt stack_color=0xdeadbeef \
	"$work/ram.bin" > "$work/stats.json" || fail "tracetap analyze --json failed"
# painted NAME FIELD [KEY]: the painted figure's field of the task whose KEY (default name) is
# NAME, "" when absent
painted() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["threads"] if str(t.get(sys.argv[4])) == sys.argv[2]]
p = t[0].get("stack", {}).get("painted", {}) if t else {}
print(p.get(sys.argv[3], ""))' "$work/stats.json" "$1" "$2" "${3:-name}"
}
${TT_WRAP-} "$tracetap" analyze "${args[@]}" --format-opt stack_color=0xdeadbeef \
	"$work/ram.bin" > "$work/text" || fail "tracetap analyze (text) failed"
n=0
while read -r _ pid name size used; do
	got_used=$(painted "$name" used) got_free=$(painted "$name" free)
	[ "$(painted "$name" state)" = painted ] || fail "$name (pid $pid): not painted: $(painted "$name" state)"
	[ "$got_used" = "$used" ] && [ "$got_free" = $((size - used)) ] ||
		fail "$name: painted used $got_used free $got_free; the image used $used of $size"
	[ "$(painted "$name" source)" = "painted stack" ] || fail "$name: painted figure not labelled"
	grep -qE "^ +$size +$used +$((size - used)) +$name\$" "$work/text" ||
		fail "$name: no painted row $size $used $((size - used)) in the text"
	n=$((n + 1))
done < <(grep '^task ' "$work/mk.out")
[ "$n" -eq 2 ] || fail "nx_stackimage named $n coloured tasks, not 2"
[ "$(painted plain state)" = "no fill pattern" ] ||
	fail "the uncoloured task's stack: '$(painted plain state)', not 'no fill pattern'"
grep -qE "^ +512 +no fill pattern +plain\$" "$work/text" || fail "no 'no fill pattern' row in the text"
# NuttX's notes carry no stack pointer: the stack object gives the bounds ("registry") and no
# traced figure (the whole stack as "free" would be a number no event showed)
traced=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sorted({(t["stack"]["source"], "min_free" in t["stack"]) for t in d["threads"] if "stack" in t}))' \
	"$work/stats.json")
[ "$traced" = "[('registry', False)]" ] || fail "traced figures for NuttX tasks: $traced"
echo "ok: the coloured tasks' high-water marks exact, the uncoloured task has no fill pattern"

# No colour known (an architecture tracetap does not know, and no stack_color): no figures.
${TT_WRAP-} "$tracetap" analyze --json "${args[@]}" "$work/ram.bin" > "$work/stats.json" ||
	fail "tracetap analyze without a colour failed"
[ -z "$(painted painted_a state)" ] || fail "a painted figure without a colour: $(painted painted_a state)"
echo "ok: no colour, no painted figures"

# Live: tracetapd --probe file: of the image (a budget that reads every stack within a second).
${TT_WRAP-} "$tracetapd" --port 0 --log-level info --name nx "${args[@]}" \
	--format-opt stack_color=0xdeadbeef --base 0x20000000 --stack-budget 65536 \
	--probe "file:$work/ram.bin" > /dev/null 2> "$work/d.log" &
dpid=$!
port=""
for _ in $(seq 600); do # 60 s at most
	port=$(sed -n 's/.*dashboard at http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$work/d.log" | head -n 1)
	[ -n "$port" ] || ! kill -0 "$dpid" 2>/dev/null && break
	sleep 0.1
done
[ -n "$port" ] || fail "tracetapd did not start: $(cat "$work/d.log")"
settled() {
	curl -sf "http://127.0.0.1:$port/api/stats?target=nx" > "$work/stats.json" || return 1
	[ "$(painted 1 state id)" = painted ] && [ "$(painted 2 state id)" = painted ] &&
		[ "$(painted 3 state id)" = "no fill pattern" ]
}
ok=""
for _ in $(seq 600); do # 60 s at most
	if settled; then ok=1; break; fi
	kill -0 "$dpid" 2>/dev/null || fail "tracetapd exited: $(cat "$work/d.log")"
	sleep 0.1
done
[ -n "$ok" ] || fail "live: no painted figures in /api/stats within 60 s: $(cat "$work/stats.json")"
while read -r _ pid name size used; do
	[ "$(painted "$pid" used id)" = "$used" ] && [ "$(painted "$pid" free id)" = $((size - used)) ] ||
		fail "live: pid $pid: painted used $(painted "$pid" used id) free $(painted "$pid" free id); the image used $used of $size"
done < <(grep '^task ' "$work/mk.out")
stop_daemon
echo "ok: tracetapd over the file probe: the same painted figures in /api/stats, pid 3 no fill pattern"
