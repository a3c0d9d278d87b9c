"""Manager's CPU and memory numbers to Kubernetes quantities."""

from __future__ import annotations

from decimal import Decimal


def cpus_to_millicores(cpus: Decimal) -> str:
    """``1`` -> ``1000m``, ``0.5`` -> ``500m``; callers have checked at most 3 decimals."""
    return f"{int(cpus * 1000)}m"


def memory_mb_to_quantity(memory_mb: int) -> str:
    """Manager's memoryMb is mebibytes in practice (1024 means 1 GiB), so ``Mi``."""
    return f"{memory_mb}Mi"


def parse_cpu_quantity(value: str) -> Decimal | None:
    """Kubernetes CPU quantity (``500m``, ``1``, ``1.5``) back to cores, or None."""
    try:
        if value.endswith("m"):
            return Decimal(value[:-1]) / 1000
        return Decimal(value)
    except (ArithmeticError, ValueError):
        return None


_MEMORY_FACTORS = {
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "k": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
}


def parse_memory_mb(value: str) -> int | None:
    """Kubernetes memory quantity back to whole MiB (rounded down), or None."""
    number, factor = value, 1
    for suffix, suffix_factor in _MEMORY_FACTORS.items():
        if value.endswith(suffix):
            number, factor = value[: -len(suffix)], suffix_factor
            break
    try:
        return int(Decimal(number) * factor // 1024**2)
    except (ArithmeticError, ValueError):
        return None
