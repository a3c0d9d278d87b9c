"""``kubectl.config``: which kubeconfig files and which context kubectl uses, read without
running kubectl (``check`` shows the context)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.kubectl.config import (
    ClusterConfig,
    context_in_use,
    current_context_of,
    discovery_stamp,
    kubeconfig_usable,
)

# As kubectl writes it (kubectl config view --raw of the fake cluster, trimmed).
KUBECONFIG = """\
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTi==
    server: https://127.0.0.1:6443
  name: fake
contexts:
- context:
    cluster: fake
    namespace: manager
    user: admin
  name: fake
current-context: {value}
kind: Config
preferences: {{}}
users:
- name: admin
  user:
    token: abcdefgh1234
"""


@pytest.mark.parametrize(
    ("line", "context"),
    [
        ("fake", "fake"),
        ('"kind-kind"', "kind-kind"),
        ("'it''s'", "it's"),
        ("gke_proj_us-east1_c1  # the prod one", "gke_proj_us-east1_c1"),
        ('"a # b"', "a # b"),
        ('""', None),
        ("", None),
    ],
)
def test_the_current_context_of_a_yaml_kubeconfig(line: str, context: str | None) -> None:
    assert current_context_of(KUBECONFIG.format(value=line)) == context


def test_only_the_top_level_key_counts() -> None:
    nested = "contexts:\n- context:\n    current-context: no\n  name: a\n"
    assert current_context_of(nested) is None
    assert current_context_of("apiVersion: v1\nkind: Config\n") is None


def test_a_json_kubeconfig() -> None:
    assert current_context_of(json.dumps({"current-context": "j", "kind": "Config"})) == "j"
    assert current_context_of('{"current-context": ""}') is None
    assert current_context_of("{not json") is None


@settings(deadline=None)  # a loaded machine must not fail a parse of a few lines
@given(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:@/ #'\"-]{0,60}", fullmatch=True),
    st.sampled_from(["yaml", "json"]),
)
def test_any_context_name_as_a_yaml_or_json_writer_quotes_it(name: str, form: str) -> None:
    document = {"apiVersion": "v1", "kind": "Config", "current-context": name, "users": []}
    text = yaml.safe_dump(document, width=1000) if form == "yaml" else json.dumps(document)
    assert current_context_of(text) == name


def write(path: Path, context: str) -> str:
    path.write_text(KUBECONFIG.format(value=context), encoding="utf-8")
    return str(path)


def test_the_context_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write(tmp_path / "a.yaml", '""')
    second = write(tmp_path / "b.yaml", "second")
    third = write(tmp_path / "c.yaml", "third")
    missing = str(tmp_path / "missing.yaml")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([missing, first, second, third]))
    # kubectl's merge: the first file that sets current-context wins; unset and "" do not set it
    assert context_in_use(ClusterConfig()) == "second"
    assert context_in_use(ClusterConfig(context="given")) == "given"
    assert context_in_use(ClusterConfig(kubeconfig=third)) == "third"
    assert context_in_use(ClusterConfig(kubeconfig=first)) is None
    assert not kubeconfig_usable(ClusterConfig(kubeconfig=first))
    assert kubeconfig_usable(ClusterConfig(kubeconfig=first, context="x"))
    assert kubeconfig_usable(ClusterConfig())
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG")
    assert context_in_use(ClusterConfig()) is None  # ~/.kube/config does not exist
    (tmp_path / ".kube").mkdir()
    write(tmp_path / ".kube" / "config", "home")
    assert context_in_use(ClusterConfig()) == "home"


def test_discovery_stamp_counts_what_glob_finds(tmp_path: Path) -> None:
    """discovery_stamp looks with os alone: the same files as glob's pattern, hidden folders
    and folders without servergroups.json left out; a missing cache is (0, 0)."""
    import glob

    assert discovery_stamp(str(tmp_path / "absent")) == (0, 0)
    for name in ("127.0.0.1_6443", "host_443", ".hidden", "empty"):
        (tmp_path / "discovery" / name).mkdir(parents=True)
    for name in ("127.0.0.1_6443", "host_443", ".hidden"):
        (tmp_path / "discovery" / name / "servergroups.json").write_text("{}")
    os.utime(tmp_path / "discovery" / "host_443" / "servergroups.json", ns=(1, 7_000_000_000))
    os.utime(tmp_path / "discovery" / "127.0.0.1_6443" / "servergroups.json", ns=(1, 9_000))
    pattern = os.path.join(glob.escape(str(tmp_path)), "discovery", "*", "servergroups.json")
    assert len(glob.glob(pattern)) == 2
    assert discovery_stamp(str(tmp_path)) == (2, 7_000_000_000)
