"""The fault/race suite reuses the end-to-end fixtures: the real kubectl against the fake API
server (tests/fakecluster), whose fault injection each test drives."""

from __future__ import annotations

from tests.e2e.conftest import cluster  # noqa: F401  (re-exported fixture)
