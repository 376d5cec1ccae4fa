#!/usr/bin/env bash
# Instructions per field-of-view computation on every bench map and radius, counted by
# callgrind (see examples/count_instructions.rs). Repeatable to the instruction, so a change
# to the scan can be compared before and after on a busy machine.
#
#   cargo build --release --example count_instructions -p viewshed_core
#   bash crates/viewshed_core/benches/count_instructions.sh [BINARY] > after.tsv
#
# BINARY defaults to target/release/examples/count_instructions; COUNT (default 1000) is
# the number of computations per map and radius.
set -euo pipefail
bin=${1:-target/release/examples/count_instructions}
count=${COUNT:-1000}
printf 'map\tradius\tinstructions\n'
for map in open forest pillars20 cave dungeon; do
    for radius in 4 8 16 32 unlimited; do
        collected=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --toggle-collect='*count_instructions*computations*' \
            "$bin" "$map" "$radius" "$count" 2>&1 |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        printf '%s\t%s\t%s\n' "$map" "$radius" "$((collected / count))"
    done
done
