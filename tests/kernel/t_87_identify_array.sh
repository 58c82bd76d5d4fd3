# SPDX-License-Identifier: GPL-2.0-only
# ssa identify's array geometry (Documentation/identify.rst, "Array
# geometry"), told only the device: ssastripe volumes over ssadisk members
# (preset ssa1999 at a drawn speed, each spindle at a random phase) whose
# layout is drawn at random (seeded, five draws: stripe over 2 to 6
# members, or mirror of 2 or 3 copies over 2 or 3 sets; a chunk of 8 to
# 256 KiB in 4 KiB steps; and one ssadisk alone, which must come out as a
# single disk) are measured by python3 -m ssa.identify_array
# --quick, which must give the layout, the copies, the width and the chunk
# exactly.  Reads only.  Clocked: the order in which reads complete, and
# their times, are what the instruction clock gives.

identify_array_hidden() {
	local rc=0 i out n layout chunk nm opts devs j table
	mkdir -p "$WORK"
	"$TOP/.venv/bin/python3" - "$WORK/ia-draws" > "$WORK/ia-draws.txt" <<'PY' || { fail "draws"; return 1; }
import json, random, sys
rng = random.Random(20261129 + 87)
cap = 131072                      # one 64 MiB ramdisk, in sectors
kinds = ["stripe", "mirror", "stripe", "mirror", "stripe", "single"]
with open(sys.argv[1], "w") as f:
    for i, kind in enumerate(kinds):
        chunk = 8 * rng.randint(2, 64)
        if kind == "stripe":
            members, copies = rng.randint(2, 6), 1
        elif kind == "single":          # one ssadisk: a volume of one member
            members, copies = 1, 1
        else:
            copies = 3 if i == 3 else 2
            members = copies * rng.randint(2, 6 // copies)
        sets = members // copies
        rpm = rng.choice([5400, 7200, 10000, 15000])
        per = cap // chunk * chunk
        d = {"layout": kind, "chunk": chunk, "members": members, "copies": copies,
             "sets": sets, "rpm": rpm, "len": per * sets}
        f.write(json.dumps(d) + "\n")
        print(kind, chunk, members, copies, rpm, per * sets)
PY
	i=0
	while read -r layout chunk nm copies rpm n; do
		devs=""
		for ((j = 0; j < nm; j++)); do
			dmsetup create ssat-iad$j --table \
				"0 131072 ssadisk /dev/ram$j 0 4 preset ssa1999 rpm $rpm" ||
				{ fail "draw $i: member $j refused"; rc=1; }
			devs+="/dev/mapper/ssat-iad$j 0 "
		done
		opts=""
		[ "$layout" = mirror ] && opts="2 copies $copies"
		table="0 $n ssastripe $layout $chunk $nm $devs$opts"
		# a single disk: the ssadisk itself, no array over it
		[ "$layout" = single ] && table="0 $n linear /dev/mapper/ssat-iad0 0"
		if [ $rc = 0 ] && dmsetup create ssat-ia --table "$table"; then
			info "draw $i: $layout, chunk $chunk, $nm members, copies $copies, $rpm rpm"
			out=$WORK/ia-$i.json
			local t0=$SECONDS
			if ! PYTHONPATH="$TOP/tools/pylib" "$TOP/.venv/bin/python3" -m ssa.identify_array \
				/dev/mapper/ssat-ia --quick --json --seed $((i + 1)) > "$out" \
				2> "$WORK/ia-$i.log"; then
				fail "draw $i: identify failed: $(tail -1 "$WORK/ia-$i.log")"
				rc=1
			fi
			info "draw $i: $((SECONDS - t0)) s"
			dmsetup remove ssat-ia
		else
			fail "draw $i: volume refused"
			rc=1
		fi
		for ((j = 0; j < nm; j++)); do dmsetup remove ssat-iad$j 2>/dev/null; done
		i=$((i + 1))
		[ $rc = 0 ] || break
	done < "$WORK/ia-draws.txt"
	[ $rc = 0 ] || return 1
	"$TOP/.venv/bin/python3" - "$WORK" <<'PY' || rc=1
import json, sys
work = sys.argv[1]
draws = [json.loads(l) for l in open(f"{work}/ia-draws")]
bad = 0
for i, d in enumerate(draws):
    out = json.load(open(f"{work}/ia-{i}.json"))
    r = out["result"]
    if d["layout"] == "single":
        d["sets"] = 1
    want = {"layout": d["layout"], "copies": d["copies"], "width": d["sets"],
            "chunk_sectors": d["chunk"] if d["sets"] > 1 else None}
    got = {k: r[k] for k in want}
    ok = got == want
    print(f"# draw {i}: {d['layout']} chunk {d['chunk']} sectors, {d['members']} members, "
          f"{d['copies']} copies, {d['rpm']} rpm -> {r['layout']} chunk {r['chunk_sectors']}, "
          f"width {r['width']}, copies {r['copies']}, turn {r['round_s'] * 1e3:.3f} ms, "
          f"confidence {r['confidence']}, {out['reads']} reads, {out['elapsed_s']:.1f} s: "
          f"{'ok' if ok else 'WRONG'}")
    bad += not ok
sys.exit(1 if bad else 0)
PY
	[ $rc = 0 ] || { fail "a hidden geometry was not recovered"; return 1; }
	return 0
}

register_clocked identify_array_hidden identify_array_hidden
