"""Spec -> Deployment YAML, through the one Jinja2 template."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from .naming import CONTAINER_NAME, identity_labels, workload_labels
from .quantities import cpus_to_millicores, memory_mb_to_quantity

if TYPE_CHECKING:
    import jinja2

    from .spec import ContainerSpec

TEMPLATE_NAME = "deployment.yaml.j2"


@cache
def _environment() -> jinja2.Environment:
    # Imported here: jinja2 costs start-up time that most commands never need.
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("kubectl_adapter.templates", "."),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )


def render_manifest(spec: ContainerSpec, namespace: str) -> str:
    """Render the Deployment for ``spec`` in ``namespace`` (always explicit: see docs)."""
    template = _environment().get_template(TEMPLATE_NAME)
    return (
        template.render(
            name=spec.hostname,
            namespace=namespace,
            labels=workload_labels(spec.container_id, spec.node_id),
            selector=identity_labels(spec.container_id),
            container_name=CONTAINER_NAME,
            image=spec.image,
            command=list(spec.entrypoint) if spec.entrypoint else None,
            env=spec.env,
            cpu=cpus_to_millicores(spec.cpus),
            memory=memory_mb_to_quantity(spec.memory_mb),
        ).rstrip("\n")
        + "\n"
    )
