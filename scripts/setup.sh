#!/usr/bin/env bash
# Installs opkit's build and test dependencies from Debian's packages.
# g++-11: the host compiler of the CUDA 11.8 nvcc opkit fetches for CUDA 11 SDKs.
# Idempotent: when everything is present it changes nothing; otherwise it runs
# apt-get update once, then one apt-get install.
set -euo pipefail

packages=(
  g++ g++-11 cmake ninja-build pkg-config binutils git
  libcli11-dev libyaml-cpp-dev libfmt-dev libarchive-dev libcurl4-openssl-dev
  nlohmann-json3-dev libelf-dev zlib1g-dev libzydis-dev libssl-dev libkainjow-mustache-dev libgtest-dev
  python3 python3-pip python3-venv
  clang libclang-rt-14-dev clang-format clang-tidy
  nginx openssl patch make curl
  ccache distcc redis-server iproute2 debootstrap
  zsh fish groff-base man-db dpkg-dev
  libxml2-dev libxml2-utils libinih-dev python3-yaml
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present" >&2
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
