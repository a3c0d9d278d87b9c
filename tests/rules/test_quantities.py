"""CPU and memory: Manager's numbers to Kubernetes quantities, and the API's answers back."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.rules.quantities import (
    cpus_to_millicores,
    memory_mb_to_quantity,
    parse_cpu_quantity,
    parse_memory_mb,
)


@pytest.mark.parametrize(
    ("cpus", "quantity"),
    [
        ("1", "1000m"),
        ("0.5", "500m"),
        ("2", "2000m"),
        ("0.001", "1m"),
        ("1.5", "1500m"),
        ("12.345", "12345m"),
        ("1.000", "1000m"),
        ("1E+1", "10000m"),
        ("9223372036854775.807", "9223372036854775807m"),
        # Wider than Decimal's 28-digit context: still exact.
        ("123456789012345678901234567890.123", "123456789012345678901234567890123m"),
    ],
)
def test_cpus_to_millicores(cpus: str, quantity: str) -> None:
    assert cpus_to_millicores(Decimal(cpus)) == quantity


@pytest.mark.parametrize(("memory_mb", "quantity"), [(1, "1Mi"), (512, "512Mi"), (1024, "1024Mi")])
def test_memory_mb_to_quantity(memory_mb: int, quantity: str) -> None:
    assert memory_mb_to_quantity(memory_mb) == quantity


@pytest.mark.parametrize(
    ("quantity", "cpus"),
    [
        ("500m", "0.5"),
        ("1000m", "1"),
        ("1", "1"),  # the API server's canonical form of 1000m
        ("1500m", "1.5"),
        ("2", "2"),
        ("1.5", "1.5"),
        ("0.5", "0.5"),
        (".5", "0.5"),
        ("5.", "5"),
        ("1m", "0.001"),
        ("250000u", "0.25"),
        ("500000000n", "0.5"),
        ("2k", "2000"),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("15e-1", "1.5"),
        ("1Ki", "1024"),
        ("+1", "1"),
    ],
)
def test_parse_cpu_quantity(quantity: str, cpus: str) -> None:
    assert parse_cpu_quantity(quantity) == Decimal(cpus)


@pytest.mark.parametrize(
    ("quantity", "memory_mb"),
    [
        ("1024Mi", 1024),
        ("1Gi", 1024),  # the API server's canonical form of 1024Mi
        ("512Mi", 512),
        ("1.5Gi", 1536),
        ("1Ti", 1024**2),
        ("1Pi", 1024**3),
        ("1Ei", 1024**4),
        ("1048576Ki", 1024),
        ("1048576", 1),
        ("1048575", 0),  # rounded down to whole MiB
        ("1G", 953),
        ("1M", 0),
        ("2000M", 1907),
        ("1T", 953674),
        ("1P", 953674316),
        ("1E", 953674316406),
        ("1e9", 953),
        ("134217728k", 128000),
    ],
)
def test_parse_memory_mb(quantity: str, memory_mb: int) -> None:
    assert parse_memory_mb(quantity) == memory_mb


@pytest.mark.parametrize(
    "quantity",
    [
        "",
        "m",
        "Mi",
        "abc",
        "1 Gi",
        " 1",
        "1Gi ",
        "1gi",
        "1mi",
        "1KB",
        "1.2.3",
        "NaN",
        "Infinity",
        "inf",
        "1e",
        "1e+",
        "1e999999",
        "0x10",
        "--1",
        "1_000",
    ],
)
def test_unparseable_quantities(quantity: str) -> None:
    assert parse_cpu_quantity(quantity) is None
    assert parse_memory_mb(quantity) is None


@given(st.integers(1, 10**15))
def test_cpu_round_trip(millicores: int) -> None:
    cpus = Decimal(millicores) / 1000
    quantity = cpus_to_millicores(cpus)
    assert quantity == f"{millicores}m"
    assert parse_cpu_quantity(quantity) == cpus


@given(st.integers(1, (2**63 - 1) // 2**20))
def test_memory_round_trip(memory_mb: int) -> None:
    assert parse_memory_mb(memory_mb_to_quantity(memory_mb)) == memory_mb
    # The canonical binary forms the API server may answer with.
    if memory_mb % 1024 == 0:
        assert parse_memory_mb(f"{memory_mb // 1024}Gi") == memory_mb
    assert parse_memory_mb(f"{memory_mb * 1024}Ki") == memory_mb
