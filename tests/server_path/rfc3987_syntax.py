"""Stands in for ``rfc3987_syntax`` in the Jupyter servers the tests start (this folder is on
their ``PYTHONPATH``): jsonschema imports it, when installed, to check the "iri" format, and
it builds a Lark grammar as it is imported, 2 s of every server start. Without it jsonschema
leaves that format unchecked; no schema a server validates here has one."""

raise ImportError("left out of the test servers: its grammar takes 2 s to build")
