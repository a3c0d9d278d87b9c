"""The contract: what Manager sends and what it reads back.

The spec Manager sends (``spec_rules``: each field's validator and JSON Schema, defined once;
``spec``, ``spec_input`` and ``storable_text`` parse it within bounds), the names and labels
that identify its containers (``naming``), the statuses and JSON documents it reads
(``statuses``, ``models``, ``schemas``), the error types and exit codes it decides retries
from (``errors``, with ``redact`` keeping secrets out of every message), and the capabilities
and permissions it is promised. This is the bottom layer: it imports nothing else of the
package, so the vocabulary never depends on how it is computed.
"""
