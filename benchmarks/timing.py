"""Timing protocol of the speed benchmarks and the machine description stored with every result.

Protocol (stated in every result file under ``"method"``):

* one BLAS/OpenMP thread (:func:`threadpoolctl.threadpool_limits`; Ramona et al. 2012 timed on one core),
  benchmarks run one at a time in a single process;
* every function is called once as a warm-up (not recorded), then ``repeats`` times; the functions
  compared with each other are called **round-robin** (A, B, A, B, ...) so that a change of machine
  load affects them alike;
* the reported value is the **median CPU time** (:func:`time.process_time`, user + system time of the
  process, which excludes the time the process waits for a core while other jobs run); the median
  wall-clock time is recorded as well;
* a function whose warm-up call exceeds its time budget is timed by that single call (recorded as
  ``"runs": 1, "cold": true``), so that ``make bench`` stays within minutes;
* the minor page faults of each call are counted too (``resource.getrusage``): on this kind of
  virtual machine a first touch of freshly ``mmap``-ed memory costs microseconds per 4 KiB page, so
  large temporaries can cost more than the arithmetic done on them.
"""

from __future__ import annotations

import os
import platform

try:
    import resource
except ImportError:  # pragma: no cover - not on POSIX
    resource = None
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy
import sklearn
from threadpoolctl import threadpool_info

METHOD = (
    "one BLAS thread (threadpoolctl), glibc malloc tuned as in fsbench's workers (fsbench._malloc), one "
    "benchmark at a time; one warm-up call, then round-robin calls of "
    "the compared functions; value = median CPU time (time.process_time) over the runs (wall time also "
    "recorded); a function whose warm-up call exceeds its budget is timed by that single call (cold)"
)


@dataclass
class Timing:
    """CPU and wall seconds of every recorded run of one function."""

    name: str
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    faults: list[int] = field(default_factory=list)
    cold: bool = False

    def add(self, cpu: float, wall: float, faults: int) -> None:
        self.cpu.append(cpu)
        self.wall.append(wall)
        self.faults.append(faults)

    @property
    def median(self) -> float:
        return float(np.median(self.cpu))

    def as_dict(self) -> dict[str, object]:
        return {
            "median_cpu_s": self.median,
            "median_wall_s": float(np.median(self.wall)),
            "min_cpu_s": float(np.min(self.cpu)),
            "runs": len(self.cpu),
            "median_page_faults": float(np.median(self.faults)),
            "cold": self.cold,
            "cpu_s": [round(t, 6) for t in self.cpu],
        }


def _minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource is not None else 0


def _timed(fn: Callable[[], object]) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and minor page faults (fresh memory touched) of one call."""
    f0 = _minor_faults()
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    c1, w1 = time.process_time(), time.perf_counter()
    return c1 - c0, w1 - w0, _minor_faults() - f0


def measure(
    fns: dict[str, Callable[[], object]],
    repeats: int | dict[str, int] = 7,
    budget_s: float | dict[str, float] = 20.0,
) -> dict[str, Timing]:
    """Time every function of ``fns``: one warm-up call each, then round-robin until ``repeats``.

    ``repeats`` and ``budget_s`` may be given per function name. A function stops being called once
    its recorded runs reach its ``repeats`` or their total CPU time its ``budget_s`` (at least one
    run is always recorded). A warm-up call longer than the budget becomes the only recorded run.
    """
    reps = {k: repeats[k] if isinstance(repeats, dict) else repeats for k in fns}
    budget = {k: budget_s[k] if isinstance(budget_s, dict) else budget_s for k in fns}
    out = {k: Timing(k) for k in fns}
    for k, fn in fns.items():
        cpu, wall, faults = _timed(fn)
        if cpu > budget[k]:
            out[k].add(cpu, wall, faults)
            out[k].cold = True
    while True:
        active = [
            k for k in fns if len(out[k].cpu) < reps[k] and (not out[k].cpu or sum(out[k].cpu) < budget[k])
        ]
        if not active:
            return out
        for k in active:
            out[k].add(*_timed(fns[k]))


def cpu_model() -> str:
    """``model name`` from /proc/cpuinfo (Linux), else :func:`platform.processor`."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> dict[str, object]:
    """CPU model, core count, BLAS libraries (threadpoolctl) with their thread counts, versions, load."""
    pools = [
        {
            k: p.get(k)
            for k in ("user_api", "internal_api", "version", "num_threads", "threading_layer", "architecture")
        }
        | {"filepath": p.get("filepath", "")}
        for p in threadpool_info()
    ]
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "threadpools": pools,
        "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def blas_summary(env: dict[str, object]) -> str:
    """One line, e.g. ``openblas 0.3.31 (SkylakeX), 1 thread``, for the BLAS numpy uses."""
    blas = [p for p in env["threadpools"] if p["user_api"] == "blas"]
    numpy_blas = [p for p in blas if f"{os.sep}numpy" in str(p.get("filepath", ""))]
    p = (numpy_blas or blas or [None])[0]
    if p is None:
        return "unknown BLAS"
    threads = {q["num_threads"] for q in blas}
    return (
        f"{p['internal_api']} {p['version']} ({p.get('architecture') or '?'}), "
        f"{'/'.join(str(t) for t in sorted(threads))} thread(s)"
    )
