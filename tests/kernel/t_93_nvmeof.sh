# SPDX-License-Identifier: GPL-2.0-only
# Members over the network: raid5 and mirror volumes whose members are
# NVMe-oF namespaces, exported by the kernel's NVMe target (nvmet, TCP
# transport) on the guest's loopback interface and connected to by its
# NVMe/TCP host.  Each member has a port of its own, so that taking one
# port down fails one member: fio verify runs, the member fails under
# writes, the volume goes on degraded, the port comes back, the member is
# rebuilt, and the data read from the rebuilt member alone is right.  The
# ssatrace fork/join records show the network in the members' service
# times: they are compared with the same load on a volume over the local
# devices the namespaces export.  make check-full only.
#
# Uses wait_synced and parity_ok (t_98), copies_identical (t_97).

NVMET=/sys/kernel/config/nvmet
NV_PORT0=4420

# nvmeof_up N: export LOOPS[0..N-1] as namespace 1 of the subsystems
# ssat-nvme-0.. (port NV_PORT0 + i each, 127.0.0.1) and connect to them
# the way "nvme connect" does (nvme-cli 2.3 cannot set fast_io_fail_tmo):
# a lost port fails I/O after 1 s, the host retries every second and gives
# the controller up after 120 s.  Sets NVDEVS (the host's block devices)
# and NVCTRLS (their controllers, nvmeK).
nvmeof_up() {
	local n=$1 i s p reply ctrl dev fd
	NVDEVS=() NVCTRLS=()
	modprobe nvmet-tcp 2>/dev/null && modprobe nvme-tcp 2>/dev/null ||
		{ skip "no nvmet-tcp or nvme-tcp module"; return; }
	ip link set lo up || { skip "no loopback interface"; return; }
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[ -d $NVMET ] || { skip "no nvmet configfs"; return; }
	for ((i = 0; i < n; i++)); do
		s=$NVMET/subsystems/ssat-nvme-$i p=$NVMET/ports/$((i + 1))
		mkdir "$s" "$s/namespaces/1" "$p" || return 1
		echo 1 > "$s/attr_allow_any_host"
		echo "${LOOPS[$i]}" > "$s/namespaces/1/device_path"
		echo 1 > "$s/namespaces/1/enable" || { fail "cannot enable namespace $i"; return 1; }
		echo tcp > "$p/addr_trtype"
		echo ipv4 > "$p/addr_adrfam"
		echo 127.0.0.1 > "$p/addr_traddr"
		echo $((NV_PORT0 + i)) > "$p/addr_trsvcid"
		ln -s "$s" "$p/subsystems/ssat-nvme-$i" || return 1
		exec {fd}<> /dev/nvme-fabrics || return 1
		echo "transport=tcp,traddr=127.0.0.1,trsvcid=$((NV_PORT0 + i)),nqn=ssat-nvme-$i,ctrl_loss_tmo=120,reconnect_delay=1,fast_io_fail_tmo=1" >&"$fd"
		read -r reply <&"$fd"
		exec {fd}>&-
		[[ $reply == instance=* ]] || { fail "connect to ssat-nvme-$i: '$reply'"; return 1; }
		ctrl=nvme${reply#instance=}
		ctrl=${ctrl%%,*}
		NVCTRLS+=("$ctrl")
		dev=$(nvme_namespace "$ctrl") || { fail "no namespace on $ctrl"; return 1; }
		NVDEVS+=("/dev/$dev")
	done
	info "namespaces: ${NVDEVS[*]} (controllers ${NVCTRLS[*]})"
}

# nvme_namespace CTRL: the block device of namespace 1 behind controller
# CTRL: the multipath head (in the subsystem's sysfs directory) when the
# host has native multipath, else the controller's own; waits for its node
nvme_namespace() {
	local ctrl=$1 nqn d b i
	nqn=$(cat "/sys/class/nvme/$ctrl/subsysnqn")
	for ((i = 0; i < 100; i++)); do
		for d in /sys/class/nvme-subsystem/*/ "/sys/class/nvme/$ctrl/"; do
			[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$nqn" ] || continue
			for b in "$d"nvme*n1; do
				b=${b##*/}
				[[ $b == *c*n1 ]] && continue	# a path of a multipath head
				[ -b "/dev/$b" ] && { echo "$b"; return 0; }
			done
		done
		sleep 0.1
	done
	return 1
}

# nvme_port_down I / nvme_port_up I: take member I's port off the network
# (the target drops its connections; the host starts reconnecting) and
# bring it back, waiting until the host's controller is live again
nvme_port_down() { rm "$NVMET/ports/$(($1 + 1))/subsystems/ssat-nvme-$1"; }
nvme_port_up() {
	local i
	ln -s "$NVMET/subsystems/ssat-nvme-$1" "$NVMET/ports/$(($1 + 1))/subsystems/ssat-nvme-$1" || return 1
	for ((i = 0; i < 300; i++)); do
		[ "$(cat "/sys/class/nvme/${NVCTRLS[$1]}/state")" = live ] && return 0
		sleep 0.1
	done
	fail "${NVCTRLS[$1]} not live 30 s after its port came back: $(cat "/sys/class/nvme/${NVCTRLS[$1]}/state")"
}

# nvmeof_down: disconnect every controller and take the target apart
nvmeof_down() {
	local c d
	for c in "${NVCTRLS[@]}"; do
		echo 1 > "/sys/class/nvme/$c/delete_controller" 2>/dev/null
	done
	for d in $NVMET/ports/*/subsystems/ssat-nvme-*; do
		[ -L "$d" ] && rm "$d"
	done
	for d in $NVMET/subsystems/ssat-nvme-*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/namespaces/1/enable"
		rmdir "$d/namespaces/1" "$d"
	done
	for d in $NVMET/ports/*; do
		[ -d "$d" ] && [ "$(ls "$d/subsystems" | wc -l)" = 0 ] && rmdir "$d"
	done
	NVCTRLS=() NVDEVS=()
}

# nvme_service NAME DEV: 400 random 4 KiB reads one at a time on DEV,
# traced by ssatrace; prints the mean member service time in µs
nvme_service() {
	local name=$1 dev=$2
	ssatrace_start record --format csv -D "$name" -o "$WORK/$name.csv" || return 1
	fio --name=svc --filename="$dev" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=1 --number_ios=400 --size=8m --output="$WORK/svc.out" >/dev/null 2>&1 ||
		{ ssatrace_stop; fail "fio on $name"; return 1; }
	ssatrace_stop || return 1
	python3 - "$WORK/$name.csv" <<'EOF'
import os, sys
sys.path.insert(0, os.environ["TOP"] + "/tests/kernel")
import check_ssatrace as cs
kids = [c for r in cs.read_csv(sys.argv[1]) if r["op"] == "read" for c in r["children"]]
if len(kids) < 400:
    sys.exit(f"{len(kids)} children traced for 400 reads")
print(round(sum(c["completed_ns"] - c["dispatched_ns"] for c in kids) / len(kids) / 1000, 1))
EOF
}

# nvme_fail_by_port I NAME HEALTH: take member I's port down and write to a
# scratch row of the volume (sector 0, every member) until its health is
# HEALTH (bounded: 60 s)
nvme_fail_by_port() {
	local i=$1 name=$2 want=$3 t
	nvme_port_down "$i" || return 1
	for ((t = 0; t < 120; t++)); do
		dd if=/dev/urandom of="/dev/mapper/$name" bs=64k count=3 oflag=direct status=none 2>/dev/null
		[ "$(vstat "$name" health)" = "$want" ] && return 0
		sleep 0.5
	done
	fail "health $(vstat "$name" health), not $want, 60 s after member $i's port went down"
}

# nvmeof_layout raid5|mirror
nvmeof_layout() {
	local layout=$1 rc=0 n=4 f=2 msz=$((12 << 11)) chunk=128 vsz t
	[ "$layout" = mirror ] && n=2 f=1
	vsz=$(((n - 1) * msz))
	[ "$layout" = mirror ] && vsz=$msz
	# the first 3 rows (3 MiB at most) are scratch; old data after them,
	# degraded writes in the second half
	local base=$((3 << 20)) half=$((vsz * 512 / 2)) mb=$((msz >> 11)) svc_local svc_net
	local old="--name=old --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio --bs=64k
		--offset=$base --size=$((half - base)) --verify=crc32c --randseed=7"
	loop_members $n $mb || return 1
	local local_members="" members="" health i
	for ((i = 0; i < n; i++)); do local_members+="${LOOPS[$i]} 0 "; done
	# zeroed members: in sync from the start
	local opts=()
	[ "$layout" = raid5 ] && opts=(2 initial_sync off)
	vol_create ssat-l "$vsz" "$layout" $chunk "${local_members% }" "${opts[@]}" || return 1
	svc_local=$(nvme_service ssat-l /dev/mapper/ssat-l) || { vol_remove ssat-l; return 1; }
	vol_remove ssat-l

	nvmeof_up $n || { t=$?; nvmeof_down; return $t; }
	for ((i = 0; i < n; i++)); do members+="${NVDEVS[$i]} 0 "; done
	vol_create ssat-v "$vsz" "$layout" $chunk "${members% }" "${opts[@]}" || { nvmeof_down; return 1; }
	svc_net=$(nvme_service ssat-v /dev/mapper/ssat-v) || rc=1
	info "mean member service time, 4 KiB random reads: $svc_local µs local, $svc_net µs over NVMe/TCP"
	python3 -c "import sys; sys.exit(not $svc_net > $svc_local)" 2>/dev/null ||
		{ fail "the network does not show in the members' service times ($svc_net <= $svc_local µs)"; rc=1; }

	fio $old --rw=write --output="$WORK/old.out" >/dev/null 2>&1 || { fail "writing old data"; rc=1; }
	klog_mark
	health=$(printf 'A%.0s' $(seq $n)); health="${health:0:$f}D${health:$((f + 1))}"
	nvme_fail_by_port $f ssat-v "$health" || rc=1
	klog_since | grep -q "member $f (.*) failed" || { fail "kernel log does not name member $f"; rc=1; }
	# degraded: fio verifies random writes over the second half
	(cd "$WORK" && fio --name=new --filename=/dev/mapper/ssat-v --direct=1 --ioengine=libaio \
		--rw=randwrite --bssplit=4k/40:64k/40:256k/20 --iodepth=8 --offset=$half \
		--size=$((vsz * 512 - half)) --verify=crc32c --verify_fatal=1 --verify_backlog=16 \
		--time_based --runtime=3 --output="$WORK/new.out" >/dev/null 2>&1) ||
		{ tail -20 "$WORK/new.out"; fail "fio verify of degraded writes"; rc=1; }
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-1.out" >/dev/null 2>&1 ||
		{ fail "old data wrong while degraded"; rc=1; }

	# the port comes back; the member is rebuilt in place
	nvme_port_up $f || { nvmeof_down; return 1; }
	klog_mark
	dmsetup suspend ssat-v &&
		dmsetup load ssat-v --table "0 $vsz ssastripe $layout $chunk $n ${members}2 rebuild $f" &&
		dmsetup resume ssat-v || { fail "cannot load the rebuild table"; rc=1; }
	for ((t = 0; t < 1200; t++)); do
		[ "$(vstat ssat-v health)" = "$(printf 'A%.0s' $(seq $n))" ] &&
			[ "$(dmsetup status ssat-v | awk '{print $(NF-2)}')" = idle ] && break
		sleep 0.1
	done
	expect_eq "health after the rebuild" "$(vstat ssat-v health)" "$(printf 'A%.0s' $(seq $n))" || rc=1
	klog_since | grep -qE "member $f .*rebuilt|rebuild of member $f done" ||
		{ fail "kernel log does not report the rebuild"; rc=1; }
	if [ "$layout" = raid5 ]; then
		parity_ok ssat-v || rc=1
	else
		copies_identical ssat-v || rc=1
	fi
	# the rebuilt member carries its share alone: fail another, read back
	dmsetup message ssat-v 0 fail $(((f + 1) % n)) || rc=1
	fio $old --rw=read --verify_only=1 --verify_fatal=1 --output="$WORK/old-2.out" >/dev/null 2>&1 ||
		{ fail "old data wrong with the rebuilt member in use"; rc=1; }
	vol_remove ssat-v
	nvmeof_down
	return $rc
}
if [ "$FULL" = 1 ]; then
	register nvmeof_raid5 nvmeof_layout raid5
	register nvmeof_mirror nvmeof_layout mirror
fi
