"""Manager's CPU and memory numbers to Kubernetes quantities, and back."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

MEBIBYTE = 1024**2


def cpus_to_millicores(cpus: Decimal) -> str:
    """``1`` -> ``1000m``, ``0.5`` -> ``500m``; callers have checked at most 3 decimals.

    Exact (``Fraction``): ``Decimal`` arithmetic rounds to 28 digits.
    """
    return f"{int(Fraction(cpus) * 1000)}m"


def memory_mb_to_quantity(memory_mb: int) -> str:
    """Manager's memoryMb is mebibytes in practice (1024 means 1 GiB), so ``Mi``."""
    return f"{memory_mb}Mi"


# Manager's cores and memory are caps, as on an LXC container (which reserves nothing): they
# become the limits. The scheduler reserves this share of them (requests), so Manager's
# defaults (4 CPUs, 4096 MB) do not fill a small node each (docs/reconfiguration.md).
REQUEST_SHARE = Fraction(1, 4)


def cpu_request(cpus: Decimal) -> str:
    """The CPU request for a limit of ``cpus``: a quarter, in whole millicores, at least 1m."""
    return f"{max(1, int(Fraction(cpus) * 1000 * REQUEST_SHARE))}m"


def memory_request(memory_mb: int) -> str:
    """The memory request for a limit of ``memory_mb``: a quarter, in whole MiB, at least 1Mi."""
    return f"{max(1, int(memory_mb * REQUEST_SHARE))}Mi"


# The quantity grammar of k8s.io/apimachinery (resource.Quantity): a signed decimal number,
# then a binary-SI suffix, a decimal-SI suffix, or a decimal exponent. The API server stores
# the canonical form, so what comes back is not what was sent (1024Mi -> 1Gi, 1000m -> 1).
_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE](?P<exponent>[+-]?[0-9]+))?"
)
_FACTORS: dict[str, Fraction] = {
    "Ki": Fraction(1024),
    "Mi": Fraction(1024**2),
    "Gi": Fraction(1024**3),
    "Ti": Fraction(1024**4),
    "Pi": Fraction(1024**5),
    "Ei": Fraction(1024**6),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_MAX_EXPONENT = 100  # far beyond any real quantity; keeps 10**exponent cheap


def _parse_quantity(value: str) -> Fraction | None:
    match = _QUANTITY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    number = Fraction(Decimal(match["number"]))
    if match["suffix"]:
        return number * _FACTORS[match["suffix"]]
    if match["exponent"]:
        exponent = int(match["exponent"])
        if abs(exponent) > _MAX_EXPONENT:
            return None
        return number * Fraction(10) ** exponent
    return number


def quantity_value(value: str) -> Fraction | None:
    """A quantity's exact value (``1Gi`` and ``1024Mi`` alike), or None for other text."""
    return _parse_quantity(value)


# Cached: a list of thousands of workloads repeats the same few quantities.
@lru_cache(maxsize=1024)
def parse_cpu_quantity(value: str) -> Decimal | None:
    """Kubernetes CPU quantity (``500m``, ``1``, ``1.5``, ``2k``) back to cores, or None."""
    amount = _parse_quantity(value)
    if amount is None:
        return None
    # CPU is meaningful to the millicore (Kubernetes rounds finer requests up to 1m).
    return Decimal(amount.numerator) / Decimal(amount.denominator)


@lru_cache(maxsize=1024)
def parse_memory_mb(value: str) -> int | None:
    """Kubernetes memory quantity (``512Mi``, ``1Gi``, ``1G``) back to whole MiB, rounded down."""
    amount = _parse_quantity(value)
    if amount is None:
        return None
    return int(amount // MEBIBYTE)


def same_quantity(a: object, b: object) -> bool:
    """Two quantities with the same value (``1`` and ``1000m``, ``1Gi`` and ``1024Mi``): the
    API server stores the canonical form, so what comes back is not what was sent, and a
    writer that read it back (``kubectl rollout undo``) sends that form."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    x, y = _parse_quantity(a), _parse_quantity(b)
    return x is not None and x == y
