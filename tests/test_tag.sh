#!/bin/sh
# test_tag.sh: PLACEHOLDER, being written this session.
echo "1..0 # SKIP not written yet"
