# SPDX-License-Identifier: GPL-2.0-only
# ssatrace, the libbpf tracer: records match fio and the status counters,
# timestamps are ordered, response times agree with fio's, JSON and
# histogram modes, filters, a ring-buffer overrun that loses records
# without harm, and two volumes traced at once.

CHECK_SSAT=$TOP/tests/kernel/check_ssatrace.py

ssat_ready() {
	[ -x "$SSATRACE" ] || { skip "build/ssatrace/ssatrace not built"; return 1; }
}

# sum of a member field over members 0..N-1
msum() {
	local n=$2 f=$3 m t=0
	for ((m = 0; m < n; m++)); do t=$((t + $(mstat "$1" $m "$f"))); done
	echo $t
}

ssatrace_record() {	# ssatrace_record csv|json
	local fmt=$1 rc=0
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" 2 queue_depth 1 || return 1
	local r0 d0
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	d0=$(msum ssat-s 4 dlow)
	ssatrace_start record --format "$fmt" -o "$WORK/rec.$fmt" || { fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/60:32k/20:64k/20 --iodepth=4 --number_ios=1500 \
		--output-format=json --output="$WORK/fio.json") || { fail "fio failed"; rc=1; }
	sleep 1
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/rec.$fmt" --format "$fmt" > "$WORK/sum.json" ||
		{ fail "record check failed"; rc=1; }
	cat "$WORK/sum.json"
	local requests dispatched
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	dispatched=$(( $(msum ssat-s 4 dlow) - d0 ))
	python3 - "$WORK/sum.json" "$WORK/fio.json" "$requests" "$dispatched" <<'PY' || rc=1
import json, sys
s = json.load(open(sys.argv[1]))
jobs = json.load(open(sys.argv[2]))["jobs"]
requests, dispatched = int(sys.argv[3]), int(sys.argv[4])
ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
clat = sum(j[d]["clat_ns"]["mean"] * j[d]["total_ios"] for j in jobs for d in ("read", "write")) / ios
fio = s["by_comm"].get("fio", {"records": 0, "mean_resp_ns": 0})
ok = True
def want(what, got, exp):
    global ok
    print(f"# {what}: {got} (want {exp})")
    if got != exp:
        print(f"FAIL: {what}")
        ok = False
want("records = requests in status", s["records"], requests)
want("children = dispatched in status", s["children"], dispatched)
want("fio's records = fio's I/Os", fio["records"], ios)
err = abs(fio["mean_resp_ns"] - clat) / clat
print(f"# mean response {fio['mean_resp_ns']/1e3:.1f} us, fio clat mean {clat/1e3:.1f} us, {err:.1%} apart")
if err > 0.10:
    print("FAIL: mean response time more than 10 % from fio's completion latency")
    ok = False
sys.exit(0 if ok else 1)
PY
	grep -q " 0 lost" "$WORK/ssatrace.err" || { fail "records were lost"; rc=1; }
	grep -q " 0 children with missing events" "$WORK/ssatrace.err" || { fail "child events were missed"; rc=1; }
	return $rc
}

# The histograms are counted in BPF and printed as what each gained since
# the last print, so the counts summed over all prints must equal what the
# status counters say happened: one response time per request, one queueing
# and one service time per dispatched child, per member.
ssatrace_hist() {
	local rc=0 m r0 d d0=()
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" 2 queue_depth 1 || return 1
	mkdir -p "$WORK"
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	for m in 0 1 2 3; do d0+=("$(mstat ssat-s $m dlow)"); done
	ssatrace_start hist -i 1 -D ssat-s > "$WORK/hist.txt" ||
		{ cat "$WORK/hist.txt"; fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randrw --bssplit=4k/70:64k/30 --iodepth=8 --time_based --runtime=3 \
		--output-format=terse >/dev/null) || { fail "fio failed"; rc=1; }
	sleep 1.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	head -30 "$WORK/hist.txt"
	local re
	for re in "device 254:[0-9]+ read: response time" "device 254:[0-9]+ write: response time" \
		"member 3 low: queueing time" "member 0 low: service time" \
		"^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\*"; do
		grep -Eq "$re" "$WORK/hist.txt" || { fail "histogram output lacks /$re/"; rc=1; }
	done
	[ "$(grep -c "read: response time" "$WORK/hist.txt")" -ge 2 ] ||
		{ fail "-i 1 over 3 s printed fewer than two read histograms"; rc=1; }
	local sums requests
	sums=$(python3 "$CHECK_SSAT" "$WORK/hist.txt" --format hist)
	info "sums: $sums"
	hsum() { python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2], 0))' "$sums" "$1"; }
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	expect_eq "response times counted vs requests in status" "$(hsum response)" $requests || rc=1
	for m in 0 1 2 3; do
		d=$(( $(mstat ssat-s $m dlow) - d0[m] ))
		expect_eq "member $m queueing times vs dispatched" "$(hsum m$m.low.queueing)" $d || rc=1
		expect_eq "member $m service times vs dispatched" "$(hsum m$m.low.service)" $d || rc=1
	done
	expect_eq "high-class times (none issued)" "$(hsum high)" 0 || rc=1
	grep -Eq " 0 times lost.* 0 children with missing events" "$WORK/ssatrace.err" ||
		{ fail "times were lost or child events missed"; rc=1; }
	return $rc
}

ssatrace_filters() {
	local rc=0 n
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" || return 1
	vol_create ssat-o 8192 stripe 8 "$(ram_members 2)" || return 1
	load() {
		(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
			--rw=randrw --bs=4k --iodepth=4 --number_ios=400 --output-format=terse >/dev/null)
	}
	ssatrace_start record -O write -o "$WORK/w.csv" || return 1
	load; sleep 0.5; ssatrace_stop
	n=$(tail -n +2 "$WORK/w.csv" | wc -l)
	[ "$n" -gt 0 ] || { fail "-O write recorded nothing"; rc=1; }
	tail -n +2 "$WORK/w.csv" | cut -d, -f5 | grep -qv '^write$' && { fail "-O write recorded other ops"; rc=1; }
	ssatrace_start record -D ssat-o -o "$WORK/o.csv" || return 1
	load; sleep 0.5; ssatrace_stop
	expect_eq "records for the idle device" "$(tail -n +2 "$WORK/o.csv" | wc -l)" 0 || rc=1
	ssatrace_start record -m 100000 -o "$WORK/m.csv" || return 1	# >= 100 ms: none
	load; sleep 0.5; ssatrace_stop
	expect_eq "records slower than 100 ms" "$(tail -n +2 "$WORK/m.csv" | wc -l)" 0 || rc=1
	"$SSATRACE" record -D /dev/ssat-nonexistent 2>/dev/null && { fail "unknown device accepted"; rc=1; }
	"$SSATRACE" frobnicate 2>/dev/null && { fail "unknown mode accepted"; rc=1; }
	"$SSATRACE" hist --disk -d 1 2>/dev/null && { fail "hist --disk accepted"; rc=1; }
	return $rc
}

# Stop ssatrace while a fast volume runs: the 16 MiB ring buffer fills, the
# BPF side counts what it could not send, and nothing breaks.
ssatrace_overrun() {
	local rc=0 r0 requests rec lost
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s 65536 stripe 8 "$(ram_members 4)" || return 1
	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	ssatrace_start record -o "$WORK/rec.csv" || return 1
	kill -STOP $SSAT_PID
	(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=16 --time_based --runtime=8 --output-format=terse >/dev/null)
	kill -CONT $SSAT_PID
	sleep 1
	ssatrace_stop || { fail "ssatrace exited with an error"; rc=1; }
	cat "$WORK/ssatrace.err"
	requests=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) - r0 ))
	rec=$(sed -n 's/^ssatrace: \([0-9]*\) records, \([0-9]*\) lost.*/\1/p' "$WORK/ssatrace.err")
	lost=$(sed -n 's/^ssatrace: \([0-9]*\) records, \([0-9]*\) lost.*/\2/p' "$WORK/ssatrace.err")
	info "requests=$requests records=$rec lost=$lost"
	[ "${lost:-0}" -gt 0 ] || { fail "no loss reported though the buffer must have filled"; rc=1; }
	expect_eq "records + lost = requests" "$((rec + lost))" "$requests" || rc=1
	expect_eq "records in the file" "$(tail -n +2 "$WORK/rec.csv" | wc -l)" "$rec" || rc=1
	return $rc
}

# Two volumes at once: both number their requests from the same start, so
# only the device tells them apart in ssatrace's request table.  Each
# device's records and children match its own status counters, up to what
# the "nested" count says was missed; no request is recorded twice.
ssatrace_two_devices() {
	local rc=0 v a b
	local -A r0 d0 dev
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" || return 1
	vol_create ssat-o 8192 stripe 8 "$(ram_members 2)" || return 1
	for v in ssat-s ssat-o; do
		r0[$v]=$(( $(vstat $v req_r) + $(vstat $v req_w) ))
		d0[$v]=$(msum $v "$([ $v = ssat-s ] && echo 4 || echo 2)" dlow)
		dev[$v]=$(dmsetup info -c --noheadings -o major,minor $v | tr -d ' ')
	done
	ssatrace_start record -o "$WORK/two.csv" || { fail "ssatrace did not start"; return 1; }
	(cd "$WORK" && fio --direct=1 --ioengine=libaio --rw=randrw --bssplit=4k/50:16k/25:64k/25 \
		--iodepth=8 --number_ios=800 --output-format=terse \
		--name=s --filename=/dev/mapper/ssat-s --name=o --filename=/dev/mapper/ssat-o \
		>/dev/null) || { fail "fio failed"; rc=1; }
	sleep 1
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 "$CHECK_SSAT" "$WORK/two.csv" > "$WORK/two.json" || { fail "record check failed"; rc=1; }
	cat "$WORK/two.json"
	# A handler interrupted by an interrupt that fires the same event on
	# that CPU is not run again (ram members complete in the submitting
	# task, null_blk ones in a timer interrupt): each such "nested" miss
	# may cost one record or one child's timestamp, and no more.
	local missed short=0 got
	missed=$(sed -n 's/.* \([0-9]*\) events missed (nested).*/\1/p' "$WORK/ssatrace.err")
	for v in ssat-s ssat-o; do
		a=$(( $(vstat $v req_r) + $(vstat $v req_w) - ${r0[$v]} ))
		b=$(( $(msum $v "$([ $v = ssat-s ] && echo 4 || echo 2)" dlow) - ${d0[$v]} ))
		got=$(jq_dev "$WORK/two.json" "${dev[$v]}" records)
		info "$v (${dev[$v]}): $got records of $a requests"
		[ "$got" -le "$a" ] || { fail "$v: more records than requests"; rc=1; }
		[ "$got" -gt 0 ] || { fail "$v: no records"; rc=1; }
		short=$((short + a - got))
		if [ "${missed:-0}" = 0 ]; then
			expect_eq "$v records" "$got" "$a" || rc=1
			expect_eq "$v children" "$(jq_dev "$WORK/two.json" "${dev[$v]}" children)" "$b" || rc=1
		fi
	done
	local inc
	inc=$(jq_dev "$WORK/two.json" "" incomplete_children)
	[ $((short + inc)) -le "${missed:-0}" ] ||
		{ fail "$short requests unrecorded and $inc children incomplete, but only ${missed:-0} events missed"; rc=1; }
	grep -q " 0 lost (ring buffer full), 0 requests untracked" "$WORK/ssatrace.err" ||
		{ fail "records were lost or requests untracked"; rc=1; }
	return $rc
}

# jq_dev SUMMARY DEV FIELD: a per-device count from check_ssatrace.py's
# summary; DEV "" for a top-level count
jq_dev() {
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); d=s["by_dev"].get(sys.argv[2], {}) if sys.argv[2] else s; print(d.get(sys.argv[3], 0))' "$@"
}

# A slot whose join was never seen is taken back.  --test-keep-slots makes
# every join keep its slot, as if missed (test-only).  (1) After a table
# reload the ids start again: each request whose (device, id) is still in
# the table takes that slot back, so "given up" must equal the ids seen both
# before and after the reload.  (2) Once the table is full, forks go
# untracked until the slots are over 30 s old; then every request is
# recorded again, in a slot taken back.
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

ssatrace_given_up() {
	local rc=0 t r0 r1 r2
	ssat_ready || return $KSFT_SKIP
	vol_create ssat-s $((4 * 65536)) stripe 16 "$(nullb_members 4)" || return 1
	ssat_load() {	# N QD
		(cd "$WORK" && fio --name=s --filename=/dev/mapper/ssat-s --direct=1 \
			--ioengine=libaio --rw=randread --bs=4k --iodepth="$2" \
			--number_ios="$1" --output-format=terse >/dev/null) || fail "fio failed"
	}
	ssatrace_start record --test-keep-slots -D ssat-s -o "$WORK/a.csv" || return 1
	ssat_load 300 4 || rc=1
	t=$(mono_ns)
	dmsetup suspend ssat-s && dmsetup reload ssat-s --table "$(dmsetup table ssat-s)" &&
		dmsetup resume ssat-s || { fail "reload failed"; rc=1; }
	ssat_load 200 4 || rc=1
	sleep 0.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	python3 - "$WORK/a.csv" "$t" "$WORK/ssatrace.err" <<'PY' || rc=1
import csv, re, sys
t = int(sys.argv[2])
before, after = set(), set()
for r in csv.DictReader(open(sys.argv[1])):
    (before if int(r["fork_ns"]) < t else after).add(int(r["id"]))
given = int(re.search(r"(\d+) requests given up", open(sys.argv[3]).read()).group(1))
print(f"# {len(before)} ids before the reload, {len(after)} after, {len(before & after)} in both; "
      f"{given} given up")
ok = len(before) >= 300 and len(after) >= 200 and given == len(before & after) and given > 0
print("ok: given up = ids in both" if ok else "FAIL: given up should equal the ids in both")
sys.exit(0 if ok else 1)
PY

	r0=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	ssatrace_start record --test-keep-slots -D ssat-s -o "$WORK/b.csv" || return 1
	ssat_load 20000 32 || rc=1
	info "table filled; waiting 31 s for its slots to go stale"
	sleep 31
	t=$(mono_ns)
	r1=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	ssat_load 300 4 || rc=1
	sleep 0.5
	ssatrace_stop
	cat "$WORK/ssatrace.err"
	r2=$(( $(vstat ssat-s req_r) + $(vstat ssat-s req_w) ))
	python3 - "$WORK/b.csv" "$t" "$WORK/ssatrace.err" $((r1 - r0)) $((r2 - r1)) <<'PY' || rc=1
import csv, re, sys
t, err = int(sys.argv[2]), open(sys.argv[3]).read()
filled, late_req = int(sys.argv[4]), int(sys.argv[5])
rows = list(csv.DictReader(open(sys.argv[1])))
late = sum(int(r["fork_ns"]) >= t for r in rows)
count = lambda what: int(re.search(r"(\d+) " + what, err).group(1))
untracked, given = count("requests untracked"), count("requests given up")
print(f"# filling: {filled} requests, {len(rows) - late} recorded, {untracked} untracked; "
      f"after the wait: {late_req} requests, {late} recorded, {given} given up")
ok = True
for name, good in (("filling: records + untracked = requests", len(rows) - late + untracked == filled),
                   ("filling: the table filled up", untracked > 0),
                   ("after the wait: every request recorded", late == late_req and late >= 300),
                   ("after the wait: each in a slot taken back", given == late)):
    print(f"{'ok' if good else 'FAIL'}: {name}")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
	return $rc
}

register ssatrace_record_csv ssatrace_record csv
register ssatrace_record_json ssatrace_record json
register ssatrace_hist ssatrace_hist
register ssatrace_filters ssatrace_filters
register ssatrace_overrun ssatrace_overrun
register ssatrace_two_devices ssatrace_two_devices
register ssatrace_given_up ssatrace_given_up
