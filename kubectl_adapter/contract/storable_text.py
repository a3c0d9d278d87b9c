"""Text as Manager writes it and as the API server can store it, for the spec's text fields.

kubectl sends the object as JSON that escapes only C0 controls, and the server reads apply
bodies as YAML, which refuses other non-printable characters (DEL, C1, U+FFFE/U+FFFF) and
folds U+0085 into a space; NUL ends C strings and lone surrogates are not UTF-8.
"""

from __future__ import annotations

import re
from decimal import Decimal

# C0 controls but tab, LF and CR; DEL and the C1 controls; the BMP noncharacters:
UNSTORABLE_BMP = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff"
# ... plus what no pattern can name alike in ECMA-262 and Python: lone surrogates and the
# astral noncharacters (SPEC_DIFFERENCES["astral-noncharacter-or-lone-surrogate"]).
_UNSTORABLE_BEYOND = r"\ud800-\udfff" + "".join(
    rf"\U{plane:04X}FFFE\U{plane:04X}FFFF" for plane in range(1, 17)
)
_UNSTORABLE = re.compile(f"[{UNSTORABLE_BMP}{_UNSTORABLE_BEYOND}]")
TEXT_PATTERN = f"^[^{UNSTORABLE_BMP}]*$"
STORABLE_TEXT_RULE = (
    "control characters other than tab, LF and CR, surrogates and noncharacters "
    "cannot be stored by Kubernetes"
)


def unstorable_characters(text: str) -> list[str]:
    """The characters of ``text`` the API server cannot store, as ``U+XXXX`` (first 5)."""
    found: list[str] = []
    for match in _UNSTORABLE.finditer(text):
        code = f"U+{ord(match.group()):04X}"
        if code not in found:
            found.append(code)
        if len(found) == 5:
            break
    return found


def check_text(text: str, what: str = "") -> None:
    """Text that cannot reach a container unchanged: NUL (C strings end there), lone
    surrogates (not UTF-8), and whatever else the API server cannot store."""
    prefix = f"{what} " if what else ""
    bad = unstorable_characters(text)
    if bad:
        raise ValueError(f"{prefix}must not contain {', '.join(bad)} ({STORABLE_TEXT_RULE})")


def js_number(value: float) -> str:
    """ECMAScript ``Number::toString``: shortest round-trip digits, like Python's repr, but
    exponent notation only below 1e-6 or from 1e21 on, and written ``1e-7`` / ``1.5e+21``."""
    if value == 0:
        return "0"  # also -0, as String(-0) is "0"
    sign = "-" if value < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    assert isinstance(exponent, int)
    k, n = len(digits), exponent + len(digits)  # value = 0.DIGITS * 10**n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + text
