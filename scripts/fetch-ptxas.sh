#!/usr/bin/env bash
# fetch-ptxas.sh DEST_DIR
#
# Fetches NVIDIA's ptxas (CUDA 12.4: PTX ISA 8.4, targets up to sm_90a, so
# wgmma kernels assemble too) from Debian 13 "trixie" non-free (package
# nvidia-cuda-toolkit, which ships /usr/bin/ptxas) and installs only that
# binary as DEST_DIR/ptxas. It is used by the ptx/
# tests to check generated PTX; nothing at run time needs it.
#
# The system's apt configuration is not touched: apt runs with a private
# sources list, lists directory, cache and an empty dpkg status, all under a
# temporary directory that is removed on exit. The .deb is ~84 MB (ptxas
# itself ~30 MB, statically linked except for libc/libm/libpthread; it runs on
# Debian 12). Idempotent: exits at once if DEST_DIR/ptxas is already release
# 12.4 or newer (an older one is replaced).
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 DEST_DIR" >&2
	exit 2
fi
dest=$1
release() { "$1" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p'; }
if [ -x "$dest/ptxas" ]; then
	read -r major minor _ <<<"$(release "$dest/ptxas") 0 0"
	if [ "${major:-0}" -gt 12 ] || { [ "${major:-0}" -eq 12 ] && [ "${minor:-0}" -ge 4 ]; }; then
		exit 0
	fi
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/dl"
chmod 755 "$tmp" "$tmp/dl"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ -r "$keyring" ]; then
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie non-free" >"$tmp/sources.list"
else
	echo "deb http://deb.debian.org/debian trixie non-free" >"$tmp/sources.list"
fi

apt_opts=(
	-o "Dir::Etc::SourceList=$tmp/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$tmp/lists"
	-o "Dir::Cache=$tmp/cache"
	-o "Dir::State::status=/dev/null"
	-o "APT::Sandbox::User=root"
	-o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
	-o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
	-o "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false"
	-o "Acquire::IndexTargets::deb::CNF::DefaultEnabled=false"
	-o "Acquire::Languages=none"
)
if [ "$(id -u)" != 0 ]; then
	# Unprivileged apt cannot drop to the _apt user; that is fine here.
	apt_opts+=(-o "Debug::NoLocking=1")
fi

apt-get "${apt_opts[@]}" -qq update
(cd "$tmp/dl" && apt-get "${apt_opts[@]}" -qq download nvidia-cuda-toolkit)
deb=$(ls "$tmp"/dl/nvidia-cuda-toolkit_*.deb)
member=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -E '(^|/)usr/bin/ptxas$' | head -n1)
if [ -z "$member" ]; then
	echo "fetch-ptxas: no usr/bin/ptxas in $deb" >&2
	exit 1
fi
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "$member"
install -m 0755 "$tmp/$member" "$dest/ptxas"
"$dest/ptxas" --version
