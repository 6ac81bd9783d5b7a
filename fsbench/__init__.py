"""fsbench: reproducible benchmarks of kernel-based feature selection."""

__version__ = "0.1.0"
