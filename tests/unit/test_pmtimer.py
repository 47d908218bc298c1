#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python definition of the PM timer (pylib/pvsmmlab/pmtimer.py)
against the VMM's C one (host/vmm/pm_ticks.c, loaded with ctypes), at the
edges (the 2^24 wrap, 64-bit overflow of ns * HZ, the last ns) and at
seeded random points.  Usage: test_pmtimer.py path/to/libpmticks.so
"""
import ctypes
import os
import random
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from pvsmmlab import checker, pmtimer  # noqa: E402

U64 = (1 << 64) - 1


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.pm_timer_ticks_from_ns.restype = ctypes.c_uint32
    lib.pm_timer_ticks_from_ns.argtypes = [ctypes.c_uint64]
    lib.pm_timer_total_ticks.restype = ctypes.c_uint64
    lib.pm_timer_total_ticks.argtypes = [ctypes.c_uint64]
    lib.pm_timer_ns_at_ticks.restype = ctypes.c_uint64
    lib.pm_timer_ns_at_ticks.argtypes = [ctypes.c_uint64]
    c = checker.Checker()

    wrap_ns = pmtimer.ns_at_ticks(1 << 24)
    edges = [0, 279, 280, 10**9, wrap_ns - 1, wrap_ns, wrap_ns + 1,
             U64 // pmtimer.HZ, U64 // pmtimer.HZ + 1, U64]
    rng = random.Random(0x9e3779b97f4a7c15)
    points = edges + [rng.getrandbits(rng.choice((32, 40, 48, 64)))
                      for _ in range(2000)]
    bad = [ns for ns in points
           if pmtimer.ticks_from_ns(ns) != lib.pm_timer_ticks_from_ns(ns)]
    c.check("pmtimer", "ticks_from_ns agrees with pm_ticks.c", not bad, str(bad[:3]))
    bad = [ns for ns in points
           if pmtimer.total_ticks(ns) & U64 != lib.pm_timer_total_ticks(ns)]
    c.check("pmtimer", "total_ticks agrees", not bad, str(bad[:3]))
    ticks = [0, 1, 2, 3579545, 1 << 23, 1 << 24] + \
        [rng.getrandbits(40) for _ in range(500)]
    bad = [t for t in ticks
           if pmtimer.ns_at_ticks(t) != lib.pm_timer_ns_at_ticks(t)]
    c.check("pmtimer", "ns_at_ticks agrees", not bad, str(bad[:3]))
    c.check("pmtimer", "wraps at 2^24", pmtimer.ticks_from_ns(wrap_ns) == 0 and
            pmtimer.ticks_from_ns(wrap_ns - 1) == pmtimer.MASK)
    c.check("pmtimer", "one tick is 279.4 ns", 279.3 < pmtimer.TICK_NS < 279.4)
    return c.report("pmtimer-py")


if __name__ == "__main__":
    sys.exit(main())
