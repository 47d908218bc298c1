# SPDX-License-Identifier: MIT
"""The PM timer's one definition of time, as host/vmm/pm_ticks.c and the
firmware's pm_math.asm compute it (include/pvsmm/abi.h):

    ticks = floor(kvmclock_ns * 3579545 / 10^9) mod 2^24

tests/unit/test_pmtimer.py checks these against the C functions.
"""

HZ = 3579545
NSEC_PER_SEC = 10**9
MASK = (1 << 24) - 1
TICK_NS = NSEC_PER_SEC / HZ      # one tick, ~279.4 ns


def total_ticks(ns):
    """Ticks since kvmclock 0, not wrapped."""
    return ns * HZ // NSEC_PER_SEC


def ticks_from_ns(ns):
    """The 24-bit counter a guest reads at kvmclock ns."""
    return total_ticks(ns) & MASK


def ns_at_ticks(ticks):
    """The first ns at which total_ticks(ns) >= ticks (ceil)."""
    return -(-ticks * NSEC_PER_SEC // HZ)
