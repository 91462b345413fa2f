#!/usr/bin/env bash
# A real older Linux system for opkit's load tests: a Debian 11 (bullseye) root
# made with debootstrap from Debian's own archive (glibc 2.31, libstdc++ up to
# GLIBCXX_3.4.28, python3 3.9), with a venv at /opt/tf holding tensorflow-cpu
# 2.10.1 (and numpy<1.24) from PyPI. Ops opkit builds are loaded there with
# `chroot ROOT /opt/tf/bin/python ...`, so a library that needs a newer glibc or
# libstdc++ than the oldest system it claims fails to load, as it would on a user's.
#
# Usage: scripts/debian11-root.sh [DIR]
#   DIR defaults to ${OPKIT_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/opkit-test}/debian11-root.
#   Prints the root's absolute path as its only stdout line; progress goes to stderr.
# Made once per machine and reused: 1.3 GiB on disk (1.1 GiB of it the venv),
# 3 to 5 minutes the first time (measured: debootstrap ~130 s, pip 45-150 s);
# later runs return at once. Needs root (chroot, and a /proc mounted only while
# pip and the checks run), debootstrap (scripts/setup.sh installs it) and network
# access to deb.debian.org and PyPI (the host's proxy variables and local CAs
# in /usr/local/share/ca-certificates are passed on to pip in the root).
# Safe to run concurrently (flock on DIR.lock); it builds in DIR.partial.<pid>
# and moves that into place only when complete; the stamp DIR/.opkit-complete,
# written last, records what was installed.
set -euo pipefail

mirror=http://deb.debian.org/debian
tf_req=tensorflow-cpu==2.10.1
numpy_req='numpy<1.24'
want_tf=2.10.1
want_glibc=2.31

die() { echo "debian11-root: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
  echo "debian11-root: needs root (chroot); run as root" >&2
  exit 3
fi
if ! command -v debootstrap >/dev/null 2>&1 && [ ! -x /usr/sbin/debootstrap ]; then
  echo "debian11-root: debootstrap is missing; scripts/setup.sh installs debootstrap (or: apt-get install debootstrap)" >&2
  exit 3
fi
export PATH="$PATH:/usr/sbin:/sbin"

dir=${1:-${OPKIT_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test}/debian11-root}
mkdir -p "$(dirname "$dir")"
dir="$(cd "$(dirname "$dir")" && pwd -P)/$(basename "$dir")"

exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.opkit-complete" ]; then
  echo "$dir"
  exit 0
fi

# Unmounts whatever is mounted below $1 (deepest first), e.g. a /proc left by a killed run.
unmount_below() {
  local m
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done < <(awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r)
}

# We hold the lock, so any partial root is left from an interrupted run.
for old in "$dir".partial.*; do
  [ -e "$old" ] || continue
  echo "debian11-root: removing $old, left from an interrupted run" >&2
  unmount_below "$old"
  rm -rf --one-file-system "$old"
done
if [ -e "$dir" ]; then # a root without its stamp: incomplete, never used
  echo "debian11-root: removing incomplete $dir" >&2
  unmount_below "$dir"
  rm -rf --one-file-system "$dir"
fi

work="$dir.partial.$$"
cleanup() {
  local rc=$?
  unmount_below "$work"
  if [ $rc -ne 0 ] && [ -e "$work" ]; then
    echo "debian11-root: failed (exit $rc); removing $work" >&2
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "debian11-root: making $dir (once; a few minutes) ..." >&2
start=$SECONDS
# python3-venv brings python3 (3.9) and the ensurepip wheels, so no python3-pip;
# ca-certificates lets pip reach PyPI over https.
debootstrap --variant=minbase --include=python3-venv,ca-certificates \
  bullseye "$work" "$mirror" >&2
rm -f "$work"/var/cache/apt/archives/*.deb
cp -L /etc/resolv.conf "$work/etc/resolv.conf"

# Runs a command in the root with a clean environment (plus the host's proxy
# and package index settings, when it has them).
in_root() {
  local pass=() v
  for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_INDEX_URL PIP_EXTRA_INDEX_URL; do
    [ -n "${!v:-}" ] && pass+=("$v=${!v}")
  done
  chroot "$work" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt "${pass[@]}" "$@"
}

# /proc only while pip and the checks run; the trap unmounts it on any exit.
# venv, pip's wheel installs and the TF import were seen to work without it;
# it is there for anything pip builds from source.
mount -t proc proc "$work/proc"

echo "debian11-root: debootstrap done in $((SECONDS - start)) s" >&2
# The host's local CAs (e.g. a TLS-intercepting proxy's), so pip in the root
# trusts what pip on the host trusts. PIP_CERT (in_root) points pip at this
# store: a pip from PyPI would otherwise use its own certifi bundle.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$work/usr/local/share/ca-certificates/"
  in_root update-ca-certificates >&2
fi

echo "debian11-root: installing $tf_req into /opt/tf ..." >&2
in_root python3 -m venv /opt/tf
# The bundled pip (20.3) predates much of PyPI's metadata; a current one resolves faster.
in_root /opt/tf/bin/python -m pip install --quiet --no-cache-dir --upgrade pip >&2
in_root /opt/tf/bin/python -m pip install --quiet --no-cache-dir "$tf_req" "$numpy_req" >&2

tf=$(in_root /opt/tf/bin/python -c 'import tensorflow as tf; print(tf.__version__)' | tail -n 1) ||
  die "tensorflow does not import in the root"
[ "$tf" = "$want_tf" ] || die "the root's tensorflow is '$tf', not $want_tf"
glibc=$(in_root ldd --version | awk 'NR == 1 { print $NF }')
[ "$glibc" = "$want_glibc" ] || die "the root's glibc is '$glibc', not $want_glibc"
python=$(in_root /opt/tf/bin/python -c 'import platform; print(platform.python_version())')
numpy=$(in_root /opt/tf/bin/python -c 'import numpy; print(numpy.__version__)')
glibcxx=$(grep -ao 'GLIBCXX_3\.4\.[0-9]*' "$work/usr/lib/x86_64-linux-gnu/libstdc++.so.6" | sort -uV | tail -n 1)

umount "$work/proc"
mv "$work" "$dir"
cat >"$dir/.opkit-complete" <<EOF
debian bullseye $(cat "$dir/etc/debian_version") from $mirror
glibc $glibc
libstdc++ $glibcxx
python $python
tensorflow-cpu $tf
numpy $numpy
made $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - start)) s
EOF
echo "debian11-root: done in $((SECONDS - start)) s: glibc $glibc, $glibcxx, python $python, tensorflow-cpu $tf" >&2
echo "$dir"
