#!/usr/bin/env python3
"""The speed baseline for calib's smith loader: a plain Python loop that
json.loads every line of the given JSONL files, nothing else.

Usage: jsonl_baseline.py FILE...   (prints one line: bytes, lines, seconds, MB/s)
"""
import json
import sys
import time


def main(paths):
    total = 0
    lines = 0
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as f:
            for line in f:
                total += len(line)
                if line.strip():
                    json.loads(line)
                    lines += 1
    secs = time.perf_counter() - start
    print(f"python json.loads: {total} bytes, {lines} lines, {secs:.3f} s, {total / secs / 1e6:.1f} MB/s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
