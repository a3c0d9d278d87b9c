"""`FakeCluster`: the Python handle tests use (see README.md for the contract)."""

from __future__ import annotations

import contextlib
import copy
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import yaml

from .api import Api
from .controller import Controller
from .defaults import apply_defaults
from .faults import FailRule, Faults, Hook, RequestLog, RequestRecord
from .nodes import Node
from .podsim import BEHAVIOURS, parse_stop_delay
from .rbac import ADMIN, Authorizer, UserInfo, service_account_user
from .resources import info_for_object
from .selectors import object_filter
from .server import CLOSE, EXPIRE, RESET, ServerState, _Server, make_server
from .timeutil import now_rfc3339
from .tls import KubeconfigWriter, Tls

T = TypeVar("T")
# How long a scheduled Pod takes to run, and a deleted one to go: the demo's, the tests' and
# the standalone server's (`python -m tests.fakecluster`, `./dev cluster`) defaults.
DEFAULT_POD_READY_DELAY = 0.3
DEFAULT_TERMINATION_DELAY = 0.2
RBAC_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")


class FakeCluster:
    def __init__(
        self,
        workdir: str | Path,
        *,
        namespaces: Iterable[str] = ("default",),
        default_namespace: str = "default",
        pod_ready_delay: float = DEFAULT_POD_READY_DELAY,
        termination_delay: float = DEFAULT_TERMINATION_DELAY,
        port: int = 0,
        host: str = "127.0.0.1",
        nodes: int = 1,
        node_cpu: str = "4",
        node_memory: str = "8Gi",
        context: str = "fake",
        uid_seed: str | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.kubeconfig = self.workdir / "kubeconfig"
        self.context = context
        self.host = host
        self.port = port
        self.default_namespace = default_namespace
        self.admin_token = "admin-" + secrets.token_hex(16)
        from .store import Store

        self.store = Store(uid_seed)
        self._nodes = [
            Node(f"fake-node-{i + 1}", node_cpu, node_memory, f"172.18.0.{i + 2}")
            for i in range(nodes)
        ]
        self.controller = Controller(
            self.store,
            nodes=self._nodes,
            pod_ready_delay=pod_ready_delay,
            termination_delay=termination_delay,
        )
        self.authorizer = Authorizer(self.store)
        self.faults = Faults()
        self._log = RequestLog()
        self._tokens: dict[str, UserInfo] = {self.admin_token: ADMIN}
        self._state = ServerState(
            Api(self.store, self.controller, self.authorizer, self._issue_token),
            self.faults,
            self._log,
            self._tokens,
        )
        self._tls = Tls()
        self._httpd: _Server | None = None
        self._serve_thread: threading.Thread | None = None
        self._kc: KubeconfigWriter | None = None
        ns_all = list(dict.fromkeys([*namespaces, default_namespace]))
        for ns in ns_all:
            self._seed(
                "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
            )
        for node in self._nodes:
            self._seed("nodes", node.to_object())

    def _seed(self, resource: str, obj: dict[str, Any]) -> None:
        apply_defaults(resource, obj)
        self.store.create(resource, obj)

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> FakeCluster:
        self.controller.start()
        self._listen()
        self._kc = KubeconfigWriter(self.kubeconfig, self.server_url, self._tls.ca_pem)
        self._kc.users["admin"] = self.admin_token
        self._kc.contexts[self.context] = ("admin", self.default_namespace)
        self._kc.current = self.context
        self._kc.write()
        return self

    def _listen(self) -> None:
        self._state.stopping.clear()
        httpd = make_server(self.host, self.port, self._state, self._tls.server_context())
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._serve_thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"fakecluster-https-{self.port}",
            daemon=True,
        )
        self._serve_thread.start()

    def _close_listener(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._state.stopping.set()
        self.faults.black_hole_released.set()
        httpd.shutdown()
        httpd.server_close()
        with self._state.conns_lock:
            conns = list(self._state.conns)
        import socket

        for c in conns:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
        self.store.touch()
        if self._serve_thread is not None:
            self._serve_thread.join(timeout=5)

    def stop(self) -> None:
        self._close_listener()
        self.controller.stop()
        self.store.close()

    def __enter__(self) -> FakeCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def server_url(self) -> str:
        return f"https://{self.host}:{self.port}"

    @property
    def ca_pem(self) -> bytes:
        return self._tls.ca_pem

    # -- identities --------------------------------------------------------
    def add_user(self, name: str, groups: Iterable[str] = ()) -> str:
        token = f"user-{secrets.token_hex(16)}"
        self._tokens[token] = UserInfo(name, (*groups, "system:authenticated"))
        return token

    def add_service_account(self, namespace: str, name: str) -> str:
        """A bearer token for `system:serviceaccount:<namespace>:<name>` (no SA object)."""
        token = f"sa-{secrets.token_hex(16)}"
        self._tokens[token] = service_account_user(namespace, name)
        return token

    def _issue_token(self, namespace: str, name: str, seconds: int) -> str:
        """A TokenRequest's token: JWT-shaped (as real ServiceAccount tokens are, so output
        redaction meets what it meets on a cluster), valid until the fake stops."""
        import base64
        import json

        def part(doc: dict[str, Any]) -> str:
            return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

        claims = {
            "iss": "https://kubernetes.default.svc.cluster.local",
            "sub": f"system:serviceaccount:{namespace}:{name}",
            "exp": int(time.time()) + seconds,
            "jti": secrets.token_hex(8),
        }
        token = f"{part({'alg': 'RS256', 'kid': 'fake'})}.{part(claims)}.{secrets.token_hex(32)}"
        self._tokens[token] = service_account_user(namespace, name)
        return token

    def add_user_context(self, name: str, token: str, namespace: str | None = None) -> str:
        """Write a context `name` (user `name`, given token) into the kubeconfig."""
        assert self._kc is not None, "start the cluster first"
        self._kc.users[name] = token
        self._kc.contexts[name] = (name, namespace or self.default_namespace)
        self._kc.write()
        return name

    def revoke_token(self, token: str) -> None:
        self._tokens.pop(token, None)

    # -- RBAC --------------------------------------------------------------
    def load_rbac(
        self, source: str | Path | dict[str, Any] | Iterable[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Create or replace RBAC objects from YAML text, a YAML file, a dict or dicts."""
        docs: list[dict[str, Any]]
        if isinstance(source, Path) or (
            isinstance(source, str) and "\n" not in source and Path(source).is_file()
        ):
            docs = list(yaml.safe_load_all(Path(source).read_text()))
        elif isinstance(source, str):
            docs = list(yaml.safe_load_all(source))
        elif isinstance(source, dict):
            docs = [source]
        else:
            docs = list(source)
        flat: list[dict[str, Any]] = []
        for d in docs:
            if not d:
                continue
            if d.get("kind") == "List" or d.get("kind", "").endswith("List"):
                flat.extend(d.get("items") or [])
            else:
                flat.append(d)
        out = []
        for d in flat:
            if d.get("kind") not in RBAC_KINDS:
                continue
            out.append(self.create_object(d, replace=True))
        return out

    def clear_rbac(self) -> None:
        for res in ("roles", "rolebindings", "clusterroles", "clusterrolebindings"):
            for o in self.store.list(res):
                self.store.remove(res, o["metadata"].get("namespace", ""), o["metadata"]["name"])

    # -- objects -----------------------------------------------------------
    def get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        return self.store.get(resource, namespace or "", name)

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        pred = object_filter(label_selector, field_selector)
        return [o for o in self.store.list(resource, namespace) if pred(o)]

    def create_object(
        self, obj: dict[str, Any], *, replace: bool = False, manager: str = "fakecluster"
    ) -> dict[str, Any]:
        """Admin-side create (or replace) of any served kind, with API defaults."""
        info = info_for_object(obj)
        if info is None:
            raise ValueError(f"unsupported kind {obj.get('apiVersion')}/{obj.get('kind')}")
        obj = copy.deepcopy(obj)
        md = obj.setdefault("metadata", {})
        if info.namespaced:
            md.setdefault("namespace", self.default_namespace)
        else:
            md.pop("namespace", None)
        apply_defaults(info.resource, obj)
        ns = md.get("namespace", "")
        with self.store.lock:
            old = self.store.get(info.resource, ns, md["name"])
            if old is not None:
                if not replace:
                    raise ValueError(f"{info.resource} {ns}/{md['name']} already exists")
                for k in ("uid", "creationTimestamp"):
                    md[k] = old["metadata"][k]
                return self.store.replace(info.resource, obj, manager=manager)
            return self.store.create(info.resource, obj, manager=manager)

    def delete_object(
        self, resource: str, namespace: str | None, name: str, *, propagation: str | None = None
    ) -> None:
        self.controller.delete(resource, namespace or "", name, propagation=propagation)

    def events(self, namespace: str, involved_name: str | None = None) -> list[dict[str, Any]]:
        sel = f"involvedObject.name={involved_name}" if involved_name else None
        return self.list("events", namespace, field_selector=sel)

    # -- failure simulation ------------------------------------------------
    def set_image_behaviour(self, image_substring: str, behaviour: str | None) -> None:
        """Force pods whose image contains `image_substring` to `behaviour` (None: remove).

        behaviour: "ok", "pull_error", "crash", "oom" or "never_ready". Applies to pods
        created afterwards."""
        if behaviour is None:
            self.controller.kubelet.overrides.pop(image_substring, None)
            return
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"behaviour must be one of {BEHAVIOURS}")
        self.controller.kubelet.overrides[image_substring] = behaviour

    def set_stop_delay(self, image_substring: str, seconds: float | str | None) -> None:
        """Containers whose image contains `image_substring` take `seconds` to stop once their
        Pod is deleted (``"grace"``: they ignore SIGTERM and are killed, exit 137, when the
        Pod's grace period ends); None removes the rule. Other Pods take termination_delay."""
        if seconds is None:
            self.controller.kubelet.stop_delays.pop(image_substring, None)
            return
        self.controller.kubelet.stop_delays[image_substring] = parse_stop_delay(seconds)

    def set_pod_stop_delay(self, namespace: str, name: str, seconds: float | str | None) -> None:
        """Like set_stop_delay, for one Pod (it wins over the image rules)."""
        key = (namespace, name)
        if seconds is None:
            self.controller.kubelet.pod_stop_delays.pop(key, None)
            return
        self.controller.kubelet.pod_stop_delays[key] = parse_stop_delay(seconds)

    def set_pod_ready(
        self,
        namespace: str,
        name: str,
        ready: bool,
        *,
        seconds_ago: float = 0.0,
        probe_message: str = "HTTP probe failed with statuscode: 503",
    ) -> dict[str, Any]:
        """A running Pod loses its readiness (``ready=False``: a failing readiness probe) or
        gets it back, and keeps it so (the kubelet does not undo it). The containers keep
        running; Ready/ContainersReady turn False ContainersNotReady; the controllers react
        (readyReplicas/availableReplicas drop, Available False, Progressing stays
        NewReplicaSetAvailable). ``seconds_ago`` dates the transition in the past, so a rule
        that waits 60 s for it is testable at once."""
        return self.controller.kubelet.set_ready(
            namespace, name, ready, seconds_ago=seconds_ago, probe_message=probe_message
        )

    def evict_pod(
        self,
        namespace: str,
        name: str,
        message: str = "The node was low on resource: memory. Threshold quantity: 100Mi, "
        "available: 52Mi. Container main was using 612Mi, request is 0, has larger consumption "
        "of memory. ",
        *,
        phase: str = "Failed",
        reason: str = "Evicted",
    ) -> dict[str, Any]:
        """End a Pod as the kubelet does under node pressure (phase Failed, reason Evicted;
        ``phase="Succeeded"`` for a completed one). Like real Kubernetes, nothing deletes the
        ended Pod: its ReplicaSet stops counting it and creates a replacement."""
        with self.store.lock:
            pod = self.store.get("pods", namespace, name)
            if pod is None:
                raise KeyError(f"pods {namespace}/{name}")
            st = pod["status"]
            now = now_rfc3339()
            st["phase"], st["reason"], st["message"] = phase, reason, message
            for cs in st.get("containerStatuses") or []:
                running = cs.get("state", {}).get("running") or {}
                cs["state"] = {
                    "terminated": {
                        "exitCode": 0 if phase == "Succeeded" else 137,
                        "reason": "Completed" if phase == "Succeeded" else "Error",
                        "startedAt": running.get("startedAt", now),
                        "finishedAt": now,
                        "containerID": cs.get("containerID", ""),
                    }
                }
                cs["ready"], cs["started"] = False, False
            conds = [c for c in st.get("conditions") or [] if c["type"] != "DisruptionTarget"]
            for c in conds:
                if c["type"] in ("Ready", "ContainersReady") and c.get("status") != "False":
                    c.update(status="False", lastTransitionTime=now, reason="PodFailed")
                    c.pop("message", None)
            if reason == "Evicted":
                conds.insert(
                    0,
                    {
                        "type": "DisruptionTarget",
                        "status": "True",
                        "lastProbeTime": None,
                        "lastTransitionTime": now,
                        "reason": "TerminationByKubelet",
                        "message": message,
                    },
                )
            st["conditions"] = conds
            return self.store.replace("pods", pod, manager="kubelet", subresource="status")

    def fail_next(
        self,
        count: int,
        status_code: int,
        method: str | None = None,
        path_regex: str | None = None,
        retry_after: int | None = None,
        *,
        include_discovery: bool = False,
        body: dict[str, Any] | bytes | None = None,
        content_type: str | None = None,
    ) -> None:
        """Answer the next `count` matching API requests with a real-looking Status.

        ``body`` replaces it (bytes are sent as they are, e.g. a proxy's HTML page with
        ``content_type="text/html"``; any status code, 200 included)."""
        self.faults.add(
            FailRule(
                count,
                status_code,
                method,
                re.compile(path_regex) if path_regex else None,
                retry_after,
                include_discovery,
                body,
                content_type,
            )
        )

    def on_request(
        self,
        *,
        before: Callable[[], Any] | None = None,
        after: Callable[[], Any] | None = None,
        method: str | None = None,
        path_regex: str | None = None,
        query: dict[str, str] | None = None,
        kubectl_command: str | None = None,
        count: int = 1,
    ) -> Hook:
        """Run ``before`` when the next matching request arrives (before it is handled) and
        ``after`` once it was handled, before the answer goes out. The request waits for
        both, so a competing operation lands exactly there. ``kubectl_command`` matches the
        ``Kubectl-Command`` header (e.g. ``kubectl rollout``); ``query`` is a subset match.
        The returned hook's ``fired`` event is set once ``before`` ran; ``errors`` holds what its
        callbacks raised."""
        hook = Hook(
            before,
            after,
            method,
            re.compile(path_regex) if path_regex else None,
            dict(query or {}),
            kubectl_command,
            count,
        )
        self.faults.add_hook(hook)
        return hook

    def clear_faults(self) -> None:
        self.faults.clear()
        with self._state.watches.lock:
            self._state.watches.expire_next = 0

    def down(self) -> None:
        """Stop listening (connection refused) and drop open connections."""
        self._close_listener()

    def up(self) -> None:
        """Listen again on the same port."""
        if self._httpd is None:
            self._listen()

    def restart(self, seconds: float) -> threading.Thread:
        """An API server restart: ``down()`` now (every connection and watch dropped,
        connections refused), ``up()`` on the same port after ``seconds``. Returns the
        thread that brings it up (``join()`` it to wait)."""
        self.down()

        def later() -> None:
            time.sleep(seconds)
            self.up()

        thread = threading.Thread(target=later, name="fakecluster-restart", daemon=True)
        thread.start()
        return thread

    def close_watches(self, path_regex: str | None = None) -> int:
        """End the open watch streams (whose path matches) cleanly, as the API server does
        when a watch's ``timeoutSeconds`` runs out: the last chunk, then the connection closes.
        Returns how many."""
        return self._cut_watches(CLOSE, path_regex)

    def reset_watches(self, path_regex: str | None = None) -> int:
        """Reset the connections of the open watches (TCP RST): the client reads
        ``connection reset by peer`` mid-stream. Returns how many."""
        return self._cut_watches(RESET, path_regex)

    def expire_watches(
        self, path_regex: str | None = None, *, open_ones: bool = True, next_ones: int = 0
    ) -> int:
        """Send a 410 Expired ERROR event (``too old resource version: X (Y)``), as the watch
        cache does for a resourceVersion it no longer has, and end the stream: to the open
        watches (``open_ones``) and to the next ``next_ones`` new watches, whose path matches.
        Returns how many open watches were expired."""
        w = self._state.watches
        with w.lock:
            w.expire_next = next_ones
            w.expire_regex = re.compile(path_regex) if path_regex else None
        return self._cut_watches(EXPIRE, path_regex) if open_ones else 0

    def open_watches(self, path_regex: str | None = None) -> int:
        """How many watch streams are open (whose path matches)."""
        rx = re.compile(path_regex) if path_regex else None
        with self._state.watches.lock:
            return sum(1 for p in self._state.watches.paths.values() if not rx or rx.search(p))

    def _cut_watches(self, how: str, path_regex: str | None) -> int:
        n = self._state.watches.cut(how, path_regex)
        self.store.touch()  # the streams wait on the store's condition: wake them
        return n

    def black_hole(self, on: bool = True, path_regex: str | None = None) -> None:
        """Accept connections but never answer (only requests whose path matches
        `path_regex`, if given: discovery keeps working and only the operation hangs)."""
        self.faults.set_black_hole(on, path_regex)

    def black_hole_after(self, method: str | None = None, path_regex: str | None = None) -> None:
        """The next matching request is carried out (its change stored, as the API server
        does before it answers), then its answer is lost and every request hangs, as with
        ``black_hole(True)``, until ``black_hole(False)``: a write that reached the server
        whose client never learns it (the connection cut after the request left)."""
        with self.faults.lock:
            self.faults.hole_after = (method, re.compile(path_regex) if path_regex else None)

    def latency(self, seconds: float) -> None:
        self.faults.latency = seconds

    # -- observation -------------------------------------------------------
    @property
    def requests(self) -> list[RequestRecord]:
        return self._log.snapshot()

    def clear_requests(self) -> None:
        self._log.clear()

    @property
    def mark_available_times(self) -> dict[str, float]:
        return dict(self.controller.available_times)

    def history(
        self, resource: str, namespace: str | None = None, *, since: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """Every change of ``resource`` objects (oldest first) as a watch from ``since`` (a
        resourceVersion; None: the whole watch log) would see it: (ADDED|MODIFIED|DELETED,
        object). Shows states a poll can miss, e.g. ErrImagePull before ImagePullBackOff."""
        return [
            (ev.type, copy.deepcopy(ev.obj))
            for ev in self.store.log(since)
            if ev.resource == resource and (namespace is None or ev.namespace == namespace)
        ]

    def wait_for(self, predicate: Callable[[], T], timeout: float = 10.0, message: str = "") -> T:
        """Wait (on the store's condition variable) until `predicate()` is truthy."""
        deadline = time.monotonic() + timeout
        with self.store.cond:
            while True:
                value = predicate()
                if value:
                    return value
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(message or f"condition not met within {timeout}s")
                self.store.cond.wait(min(remaining, 0.25))

    @contextlib.contextmanager
    def controllers_held(self) -> Iterator[None]:
        """Inside, no controller (nor the kubelet) acts: the API server answers and stores, the
        cluster does not react yet, as when kube-controller-manager lags behind a write."""
        self.controller.hold()
        try:
            yield
        finally:
            self.controller.hold(False)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until the controllers have reconciled every write made so far (a ReplicaSet
        for a new template, the revision annotation, scaling, the status), so that what a test
        reads is what the cluster made of those writes, not a moment before it reacted."""
        self.wait_for(
            self.controller.settled,
            timeout,
            f"the controllers did not reconcile the last writes within {timeout}s",
        )
