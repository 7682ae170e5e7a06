#!/bin/sh
# Installs what kbtui needs to build and test on Debian (run as root or via sudo).
# CUDA is optional and not installed here: see --with-cuda in README.md.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake pkg-config \
	libncurses-dev libcurl4-openssl-dev libcjson-dev libpcre2-dev libyaml-dev libssl-dev \
	jq tmux time ca-certificates git bubblewrap groff-base mandoc tidy \
	slurmctld slurmd slurm-client munge >/dev/null
# (tests/test_slurm.sh starts a munged, slurmctld and slurmd of its own)
# simdjson for one benchmark only (bench/kbsimd): a release without the
# package still builds and tests everything else
apt-get install -y -qq --no-install-recommends libsimdjson-dev >/dev/null 2>&1 ||
	echo "setup-debian: libsimdjson-dev is not available here: make bench leaves simdjson out"
echo "setup-debian: build dependencies installed"
