#!/bin/sh
# The reward-hack suite rows that need no GPU (tests/hacks/MANIFEST, cpu).
exec sh "${KB_SRCDIR:-.}/tests/hacks/run.sh"
