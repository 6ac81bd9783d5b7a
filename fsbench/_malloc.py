"""Keep freed NumPy temporaries in the process instead of returning them to the OS (glibc only).

Kernel selectors allocate several N×N temporaries per iteration. With glibc's default settings,
freed blocks of that size are unmapped (or trimmed from the heap top) and the next allocation
page-faults every page again; on a virtual machine that costs more than the arithmetic for
moderate D (measured by ``make bench``: one SAS iteration at N = 500, D = 30 took 5.1 ms with the
defaults and 1.8 ms with the settings below). :func:`tune_malloc` raises the mmap and trim
thresholds so that freed blocks are reused. It is called once per worker process by the runner
(and by the benchmarks, which measure the same configuration); elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_done = False


def tune_malloc(mmap_threshold: int = 1 << 30, trim_threshold: int = 1 << 32) -> bool:
    """Set glibc's mmap/trim thresholds for this process; return whether it applied."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl): leave the allocator alone
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    # mallopt takes an int: clip to INT_MAX
    ok = mallopt(_M_MMAP_THRESHOLD, min(mmap_threshold, 2**31 - 1)) == 1
    ok = mallopt(_M_TRIM_THRESHOLD, min(trim_threshold, 2**31 - 1)) == 1 and ok
    _done = ok
    return ok
