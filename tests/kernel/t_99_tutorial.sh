# SPDX-License-Identifier: GPL-2.0-only
# The tutorial of Documentation/experiments.rst, run as a user would copy
# it: the literal block after "Tutorial:" is extracted and run with bash -e.
# It must succeed, trace exactly the requests ssaload issued, and compare
# must choose the raid5 model from the tables file.

tutorial_raid5() {
	local doc=$TOP/Documentation/experiments.rst dir=$WORK/tutorial rc=0 n
	[ -x "$TOP/build/ssaload/ssaload" ] || { skip "build/ssaload/ssaload not built"; return; }
	rm -rf "$dir"
	mkdir -p "$dir"
	# the first literal block of the section: indented lines after the "::"
	awk '/^Tutorial:/ { sec = 1 } sec && /::$/ { blk = 1; next }
	     blk && /^[^ ]/ { exit } blk { sub(/^    /, ""); print }' "$doc" > "$dir/tutorial.sh"
	grep -q "ssa compare" "$dir/tutorial.sh" || { fail "no tutorial block found in $doc"; return 1; }
	ln -s "$TOP/build" "$dir/build"
	ln -s "$TOP/tools" "$dir/tools"
	(cd "$dir" && timeout 900 bash -e tutorial.sh) > "$dir/out.txt" 2>&1 ||
		{ cat "$dir/out.txt"; fail "the tutorial's commands failed"; rc=1; }
	cat "$dir/out.txt"
	n=$(grep -c ',ssaload,0,' "$dir/tut.csv" 2>/dev/null)
	expect_eq "requests traced from ssaload" "$n" 850 || rc=1
	grep -q "^model raid5" "$dir/out.txt" || { fail "compare did not choose the raid5 model"; rc=1; }
	grep -q "±" "$dir/out.txt" || { fail "compare printed no measured mean with its interval"; rc=1; }
	[ -s "$dir/tut.png" ] || { fail "no plot"; rc=1; }
	for n in tut tut-d0 tut-d1 tut-d2 tut-d3 tut-d4; do dmsetup remove "$n" 2>/dev/null; done
	return $rc
}

register tutorial_raid5 tutorial_raid5
