"""Resource quantities as the API server stores them: its canonical form.

A port of k8s.io/apimachinery ``pkg/api/resource``: ``ParseQuantity`` (quantity.go: the
format is the suffix's, binary ``Ki``…``Ei``, decimal ``n``…``E`` or none, or a decimal
exponent ``e3``; a binary quantity below 1 is decimal; a non-zero value is rounded up, away
from zero, to a multiple of 1n) and ``CanonicalizeBytes`` (quantity.go: a binary quantity
stays binary only when it is a whole number at least 1024 in size, written with the largest
power of 1024 that divides it; ``AsCanonicalBytes`` in amount.go: a decimal one is a whole
mantissa and an exponent, a multiple of 3, as small a mantissa as that allows; suffix.go
names the exponent). So ``1000m`` is stored as ``1``, ``1024Mi`` as ``1Gi``, ``0.5`` as
``500m``, ``1000`` as ``1k``, ``1536Mi`` stays ``1536Mi``, ``1e3`` stays ``1e3``.
"""

from __future__ import annotations

import re
from fractions import Fraction

_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<decimal>[numkMGTPE])|[eE](?P<exponent>[+-]?[0-9]+))?"
)
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()} | {0: ""}
_BINARY_SUFFIX = {power: suffix for suffix, power in _BINARY.items()}
_NANO = Fraction(1, 10**9)
_MAX = Fraction(2**63 - 1)  # maxAllowed: a larger quantity is capped


def canonical(text: str) -> str | None:
    """The form the API server stores ``text`` in, or None when it is no quantity."""
    match = _QUANTITY.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    value = Fraction(match["number"])
    if match["binary"]:
        value *= Fraction(1024) ** _BINARY[match["binary"]]
        form = "binary" if abs(value) >= 1 else "decimal"
    elif match["exponent"] is not None:
        if abs(int(match["exponent"])) > 100:
            return None
        value *= Fraction(10) ** int(match["exponent"])
        form = "exponent"
    else:
        value *= Fraction(10) ** _DECIMAL.get(match["decimal"] or "", 0)
        form = "decimal"
    value = max(-_MAX, min(_MAX, value))
    if value:
        nanos = abs(value) / _NANO
        whole = -(-nanos.numerator // nanos.denominator)  # inf.RoundUp: away from zero
        value = (whole if value > 0 else -whole) * _NANO
    if value == 0:
        return "0"
    if form == "binary" and abs(value) >= 1024 and value.denominator == 1:
        amount, power = int(value), 0
        while amount % 1024 == 0 and power < 6:
            amount, power = amount // 1024, power + 1
        return f"{amount}{_BINARY_SUFFIX.get(power, '')}"
    return _decimal(value, form)


def _decimal(value: Fraction, form: str) -> str:
    """``AsCanonicalBytes``: mantissa and an exponent that is a multiple of 3."""
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    mantissa = int(value)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3:  # Go's % truncates: -1 and -2 go down to -3, 1 and 2 down to 0
        mantissa *= 10
        exponent -= 1
    if form == "exponent":
        return f"{mantissa}" + (f"e{exponent}" if exponent else "")
    suffix = _DECIMAL_SUFFIX.get(exponent)
    return f"{mantissa}{suffix}" if suffix is not None else f"{mantissa}e{exponent}"


def canonical_resources(container: dict[str, object]) -> None:
    """A container's limits and requests in the stored form, in place."""
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return
    for group in ("limits", "requests"):
        amounts = resources.get(group)
        if not isinstance(amounts, dict):
            continue
        for name, amount in list(amounts.items()):
            number = isinstance(amount, int | float) and not isinstance(amount, bool)
            stored = canonical(str(amount)) if isinstance(amount, str) or number else None
            if stored is not None:
                amounts[name] = stored
