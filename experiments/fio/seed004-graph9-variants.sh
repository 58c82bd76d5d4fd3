#!/usr/bin/env bash
# Seed 004, Graph 9: where a 16 KB split of the request can come from, measured
# by hand beside the spec (the lab builds one volume a point; these stacks
# add a layer it does not build).  Run in a guest on the instruction clock:
#
#   tools/vm -i -o build/g9var -- experiments/fio/seed004-graph9-variants.sh build/g9var
#
# Eight ssadisk cheetah73 members, an 8-wide ssastripe `stripe` volume with a
# 128 KB unit (seed004-graph9's), sequential reads one at a time (the
# spec's fio job, 48 requests from byte 0) of SIZES bytes, through:
#
#   plain     the volume, as the spec measures it;
#   striped   the kernel's `striped` target, one device, 16 KB chunk, on top:
#             DM splits every bio at the 16 KB boundaries (max_io_len) and
#             sends the parts down at once;
#   below     the same `striped` layer under the volume, on each member (a
#             second volume over them): each member's piece cut at 16 KB;
#   maxsect   max_sectors_kb = 16 on the volume and its members: bio-based DM
#             in 6.1 splits by it only for a target that sets max_io_len
#             (dm.c, max_io_len()), and neither ssastripe nor ssadisk does;
#   serial    each request read as its 16 KB-multiple part and then, once
#             that part is in, the rest (fio replaying an I/O log): the
#             parts in series, as the seed's section 9 says a request can
#             be "broken up into a series of smaller, serialized requests".
#
# Writes OUT/variants.csv: variant,size,bandwidth_Bps (fio's read bw_bytes).
set -euo pipefail
out=${1:-build/g9var}
mkdir -p "$out"
sizes=${SIZES:-"1032192 1040384 1048576 1056768 1064960 1073152 1081344"}
n=48

# udev would probe each new device, and through an ssadisk every probe read
# is a modelled access: hold its queue, and let dmsetup make the nodes
# itself (it would wait for udev otherwise), as the lab does
export DM_DISABLE_UDEV=1
if command -v udevadm > /dev/null; then
	udevadm control --stop-exec-queue || true
fi
modprobe brd rd_nr=8 rd_size=65536
members=()
for i in 0 1 2 3 4 5 6 7; do
	dmsetup create g9-d$i --table "0 131072 ssadisk /dev/ram$i 0 4 preset cheetah73 phase random"
	members+=("/dev/mapper/g9-d$i" 0)
done
dmsetup create g9-vol --table "0 1048576 ssastripe stripe 256 8 ${members[*]}"
dmsetup create g9-split --table "0 1048576 striped 1 32 /dev/mapper/g9-vol 0"
below=()
for i in 0 1 2 3 4 5 6 7; do
	dmsetup create g9-s$i --table "0 131072 striped 1 32 /dev/mapper/g9-d$i 0"
	below+=("/dev/mapper/g9-s$i" 0)
done
dmsetup create g9-vol2 --table "0 1048576 ssastripe stripe 256 8 ${below[*]}"

bw() {	# bw VARIANT SIZE: fio's read bandwidth (the first bw_bytes: jobs[0].read)
	echo "$1,$2,$(grep -m1 '"bw_bytes"' "$out/$1-$2.json" | tr -dc 0-9)" >> "$out/variants.csv"
}

run() {	# run VARIANT DEV SIZE [extra fio args]
	local v=$1 dev=$2 s=$3
	shift 3
	fio --output-format=json --output="$out/$v-$s.json" --name=seqread --filename="$dev" \
		--direct=1 --ioengine=psync --iodepth=1 --rw=read --bs="$s" --offset=0 \
		--number_ios=$n "$@" > /dev/null
	bw "$v" "$s"
}

echo "variant,size,bandwidth_Bps" > "$out/variants.csv"
# a first run warms the guest (its first fio run is off: ENVIRONMENT.md)
fio --name=warm --filename=/dev/mapper/g9-vol --direct=1 --ioengine=psync --rw=read \
	--bs=1m --number_ios=8 > /dev/null
for s in $sizes; do
	run plain /dev/mapper/g9-vol "$s"
	run striped /dev/mapper/g9-split "$s"
	run below /dev/mapper/g9-vol2 "$s"
	# the serialized split: an I/O log of the 16 KB-multiple part, then the rest
	log=/tmp/g9-$s.log
	{
		echo "fio version 2 iolog"
		echo "/dev/mapper/g9-vol add"
		echo "/dev/mapper/g9-vol open"
		body=$((s / 16384 * 16384))
		for ((i = 0; i < n; i++)); do
			echo "/dev/mapper/g9-vol read $((i * s)) $body"
			if ((s > body)); then
				echo "/dev/mapper/g9-vol read $((i * s + body)) $((s - body))"
			fi
		done
		echo "/dev/mapper/g9-vol close"
	} > "$log"
	fio --output-format=json --output="$out/serial-$s.json" --name=seqread \
		--filename=/dev/mapper/g9-vol --direct=1 --ioengine=psync --iodepth=1 \
		--read_iolog="$log" > /dev/null
	bw serial "$s"
done
for d in g9-vol g9-d0 g9-d1 g9-d2 g9-d3 g9-d4 g9-d5 g9-d6 g9-d7; do
	echo 16 > /sys/block/dm-$(dmsetup info -c --noheadings -o minor "$d")/queue/max_sectors_kb
done
for s in $sizes; do
	run maxsect /dev/mapper/g9-vol "$s"
done
dmsetup remove g9-vol2 g9-s0 g9-s1 g9-s2 g9-s3 g9-s4 g9-s5 g9-s6 g9-s7
dmsetup remove g9-split g9-vol g9-d0 g9-d1 g9-d2 g9-d3 g9-d4 g9-d5 g9-d6 g9-d7
if command -v udevadm > /dev/null; then
	udevadm control --start-exec-queue || true
fi
cat "$out/variants.csv"
