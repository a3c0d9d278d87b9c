"""The kubectl boundary: the only place that runs a process.

Building argv (``commands``, ``runner``), running kubectl under bounds and process groups
(``runner``, ``bounds``, ``interrupts``), the node's kubeconfig/context/namespace (``config``),
translating kubectl's failures into typed errors (``kubectl_errors``), checking the shape
of its JSON (``shapes``) and showing the commands to operators as bash they can paste (the
``-v`` log and ``--dry-run`` plans: ``transcript``). It may import the contract (error
types, names, redaction); never the rules or the operations: it knows how to talk to
kubectl, not what the answers mean.
"""
