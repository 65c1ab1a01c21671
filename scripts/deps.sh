#!/usr/bin/env bash
# Install every Debian 12 package lab needs (idempotent: apt skips what is
# there). Run as root: `make deps`.
set -euo pipefail

pkgs=(
	# build the CLI and its tests
	gcc make pkg-config libvirt-dev libglib2.0-dev libjson-c-dev libcmocka-dev cppcheck
	# fuzz the parsers (libFuzzer), memcheck, lint the shell
	clang libclang-rt-14-dev valgrind shellcheck
	# run guests: libvirt + QEMU, validate XML
	libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils
	# kernels: source, build dependencies, ccache, quilt for humans
	linux-source-6.1 bc bison flex libelf-dev libssl-dev dwarves xz-utils cpio ccache quilt
	# guest test helpers: lab-netns loads nft rulesets (libnftables)
	libnftables-dev
	# images and seeds
	mmdebstrap cloud-image-utils e2fsprogs genisoimage
	# the review's HTML report is checked in a real headless browser
	chromium
	# memory dumps of guests that died (lab stress) open in crash(8)
	crash
	# many hosts: libvirt's remote protocol over ssh; the tests start their
	# own sshd on 127.0.0.1 (Debian enables ssh.service where systemd runs)
	openssh-client openssh-server
)

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root (apt-get install needs it): sudo make deps" >&2
	exit 1
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages installed"
	exit 0
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
