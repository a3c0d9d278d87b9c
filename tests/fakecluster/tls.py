"""A throwaway CA (trustme), the server's TLS context, and the kubeconfig file."""

from __future__ import annotations

import base64
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import trustme
import yaml


@dataclass
class Tls:
    ca: trustme.CA = field(default_factory=trustme.CA)

    def __post_init__(self) -> None:
        self._cert = self.ca.issue_cert("127.0.0.1", "localhost")

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._cert.configure_cert(ctx)
        ctx.set_alpn_protocols(["http/1.1"])
        return ctx

    @property
    def ca_pem(self) -> bytes:
        return self.ca.cert_pem.bytes()


@dataclass
class KubeconfigWriter:
    path: Path
    server_url: str
    ca_pem: bytes
    users: dict[str, str] = field(default_factory=dict)  # user name -> token
    contexts: dict[str, tuple[str, str]] = field(default_factory=dict)  # ctx -> (user, ns)
    current: str = "fake"

    def write(self) -> None:
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "preferences": {},
            "clusters": [
                {
                    "name": "fake",
                    "cluster": {
                        "server": self.server_url,
                        "certificate-authority-data": base64.b64encode(self.ca_pem).decode(),
                    },
                }
            ],
            "users": [{"name": u, "user": {"token": t}} for u, t in self.users.items()],
            "contexts": [
                {"name": c, "context": {"cluster": "fake", "user": u, "namespace": ns}}
                for c, (u, ns) in self.contexts.items()
            ],
            "current-context": self.current,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(yaml.safe_dump(doc, sort_keys=False))
        tmp.chmod(0o600)
        tmp.replace(self.path)
