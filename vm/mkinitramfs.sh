#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the classroom VM's initramfs for one kernel.
#
#   mkinitramfs.sh NAME KERNEL_DIR RTLAB_BIN DATA_ROOT BUSYBOX OUT
#
# NAME is stock, rt, lab or fcse; KERNEL_DIR holds what fetch-debian.sh or build-lab.sh
# wrote (release, and for Debian kernels modules/ and modules.load); RTLAB_BIN is the rtlab
# binary, copied with the shared libraries ldd lists; DATA_ROOT holds lessons/, labs/,
# slides/ and vm/ (the source tree or an installed data dir); BUSYBOX is a static busybox.
# The labs' reference solutions and mutants stay out unless WITH_SOLUTIONS=1.
# A kernel for another board than the host's (KERNEL_DIR/machine names it, e.g.
# versatilepb) gets a foreign image: BUSYBOX is the guest's (its applet list comes from
# $BUSYBOX_HOST, a host busybox of the same version), the static programs of
# KERNEL_DIR/bin/ go into /usr/bin, and nothing of the host is copied (no rtlab, no
# iproute2, lessons or terminfo). Writes OUT, a gzip-compressed newc cpio archive.
set -euo pipefail

usage="usage: mkinitramfs.sh NAME KERNEL_DIR RTLAB_BIN DATA_ROOT BUSYBOX OUT"
[ $# -eq 6 ] || { echo "$usage" >&2; exit 2; }
name=$1 kdir=$2 bin=$3 data=$4 busybox=$5 out=$6

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc/rtlab-vm,proc,sys,dev,tmp,var/tmp,run,state,root}
mkdir -p "$root/usr/share/rtlab" "$root/usr/lib/rtlab-vm" "$root/lib/terminfo"

machine=
[ -e "$kdir/machine" ] && machine=$(cat "$kdir/machine")
cp "$busybox" "$root/bin/busybox"
for a in $("${BUSYBOX_HOST:-$busybox}" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
# The kernel runs /sbin/modprobe when a driver asks for another (ext4 for crc32c).
ln -sf ../bin/busybox "$root/sbin/modprobe"

cp "$data/vm/init" "$root/init"
chmod 0755 "$root/init"
cp "$data"/vm/guest/*.sh "$root/usr/lib/rtlab-vm/" 2>/dev/null || true

# copy_prog SRC DEST: copy the program SRC to DEST inside the image, with every shared
# library ldd lists, at the paths the dynamic loader expects.
copy_prog() {
	local src=$1 dest=$2 libs
	libs=$(ldd "$src" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }') || {
		echo "mkinitramfs: ldd $src failed" >&2
		return 1
	}
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest"
	for lib in $libs; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# host_progs: rtlab and what it runs (its data, tools, terminals and locale): an image for
# the host's own board only.
host_progs() {
	copy_prog "$bin" /usr/bin/rtlab
	# The ftrace lab's cross-check tools (Debian packages rtla and trace-cmd), when the host
	# has them: `rtla timerlat` runs on the rt and lab kernels. Missing ones are only noted;
	# the lab then records "not installed" as the reason.
	for tool in rtla trace-cmd; do
		if path=$(command -v "$tool"); then
			copy_prog "$path" "/usr/bin/$tool"
		else
			echo "mkinitramfs: $tool is not installed on this host (Debian package $tool):" \
				"the VM's ftrace cross-check will say so" >&2
		fi
	done

	# iproute2's ip and tc for the networking labs: network namespaces, veth pairs, a bridge
	# and tc netem (busybox's tc has no netem, its ip no netns). Programs find them first in
	# PATH (/usr/sbin); but this busybox's shell runs its own applets before it searches PATH,
	# so shell commands reach them through the functions in /etc/rtlab-vm/shell.sh, which the
	# login shell's profile and init's headless commands read.
	for tool in ip tc; do
		path=$(PATH=/usr/sbin:/sbin:$PATH command -v "$tool") || {
			echo "mkinitramfs: iproute2's $tool is missing (apt-get install iproute2)" >&2
			exit 1
		}
		copy_prog "$path" "/usr/sbin/$tool"
	done
	if [ -d /etc/iproute2 ]; then cp -R /etc/iproute2 "$root/etc/iproute2"; fi
	cat > "$root/etc/rtlab-vm/shell.sh" <<-'SHELL'
	# Read by the VM's shells: iproute2's ip and tc rather than busybox's applets.
	ip() { /usr/sbin/ip "$@"; }
	tc() { /usr/sbin/tc "$@"; }
	SHELL

	for d in lessons labs slides; do
		[ -d "$data/$d" ] && cp -RL "$data/$d" "$root/usr/share/rtlab/$d"
	done
	# The labs' reference solutions and mutants (each one change away from the
	# reference) are for teachers: not in the image unless WITH_SOLUTIONS=1.
	if [ "${WITH_SOLUTIONS:-0}" != 1 ] && [ -d "$root/usr/share/rtlab/labs" ]; then
		find "$root/usr/share/rtlab/labs" -mindepth 2 -maxdepth 2 -type d \
			\( -name reference -o -name mutants \) -exec rm -rf {} +
	fi

	# Terminal descriptions for the serial console and the usual host terminals: the first
	# three are needed, the others copied when the host has them (the VM's init falls back to
	# xterm-256color for a host terminal it has no description of).
	for t in linux vt100 xterm-256color xterm xterm-color vt220 screen screen-256color tmux \
		tmux-256color rxvt-unicode rxvt-unicode-256color dumb; do
		found=
		for dir in /etc/terminfo /lib/terminfo /usr/lib/terminfo /usr/share/terminfo; do
			f=$dir/${t:0:1}/$t
			if [ -e "$f" ]; then
				mkdir -p "$root/lib/terminfo/${t:0:1}"
				cp -L "$f" "$root/lib/terminfo/${t:0:1}/$t"
				found=1
				break
			fi
		done
		case "$found:$t" in
		:linux|:vt100|:xterm-256color)
			echo "mkinitramfs: no terminfo entry for $t (install ncurses-base/ncurses-term)" >&2
			exit 1 ;;
		esac
	done

	# The C.UTF-8 locale (Debian's libc-bin), so that rtlab draws with the same characters
	# as on a UTF-8 host; without it the VM stays in the C locale (VT100 line drawing).
	if [ -d /usr/lib/locale/C.utf8 ]; then
		mkdir -p "$root/usr/lib/locale"
		cp -R /usr/lib/locale/C.utf8 "$root/usr/lib/locale/C.utf8"
	else
		echo "mkinitramfs: no /usr/lib/locale/C.utf8 on this host: the VM's screens use" \
			"VT100 line drawing instead of UTF-8" >&2
	fi
}

if [ -n "$machine" ]; then
	cp "$kdir"/bin/* "$root/usr/bin/"
	echo "$machine" > "$root/etc/rtlab-vm/machine"
	echo "# Read by the VM's shells: busybox's applets only on this board." \
		> "$root/etc/rtlab-vm/shell.sh"
else
	host_progs
fi

if [ -d "$kdir/modules" ]; then
	cp -R "$kdir/modules/lib/modules" "$root/lib/"
	cp "$kdir/modules.load" "$root/etc/rtlab-vm/modules.load"
fi
echo "$name" > "$root/etc/rtlab-vm/kernel"
cp "$kdir/release" "$root/etc/rtlab-vm/release"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
# PID 1 is a script that does not answer busybox's poweroff signal: act directly.
cat > "$root/etc/profile" <<'PROFILE'
PS1='rtlab-vm:\w# '
. /etc/rtlab-vm/shell.sh
poweroff() { sync; umount /work /state 2>/dev/null; /bin/busybox poweroff -f; }
reboot() { sync; umount /work /state 2>/dev/null; /bin/busybox reboot -f; }
PROFILE
if [ -n "$machine" ]; then
	# Boards without a power-off (versatilepb): the reset ends QEMU (-no-reboot).
	echo 'poweroff() { reboot; }' >> "$root/etc/profile"
fi

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	"${BUSYBOX_HOST:-$busybox}" cpio -o -H newc 2>/dev/null | gzip -9n) > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $name -> $out ($(stat -c %s "$out") bytes)" >&2
