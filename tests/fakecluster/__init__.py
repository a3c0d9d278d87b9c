"""A local fake Kubernetes API server that the real kubectl 1.32 can talk to."""

from .cluster import FakeCluster
from .faults import RequestRecord

__all__ = ["FakeCluster", "RequestRecord"]
