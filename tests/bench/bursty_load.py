#!/usr/bin/env python3
"""A noisy neighbour for labs: busy for 0.1-1 s, idle for 0.1-1 s, again, until killed (one CPU at
the most). Two of them on a 2-vCPU runner load it the way other jobs' bursts do. Seeded: the same
seed gives the same bursts.

Usage: tests/bench/bursty_load.py [SEED] &   (kill it when done)
"""
import random
import sys
import time

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
while True:
    until = time.time() + rng.uniform(0.1, 1.0)
    while time.time() < until:
        pass
    time.sleep(rng.uniform(0.1, 1.0))
