#!/usr/bin/env bash
# Installs Debian's Slurm and MUNGE if they are missing (idempotent; needs
# root and the Debian archive). The packages' own services are not used: the
# tests start the daemons by hand with a private configuration.
set -euo pipefail
packages=(slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "install_slurm: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
