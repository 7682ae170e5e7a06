#!/bin/sh
# test_annotate.sh: PLACEHOLDER, being written this session.
echo "1..0 # SKIP not written yet"
