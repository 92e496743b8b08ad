"""How an engine is driven, whichever client drives it: the one interface the window and the
commands use (``protocol``), and the routing of requests behind it (``routing``).

The kernel's client (``client.engine_client``) and the in-process engine the window's tests
use (``engine.inprocess``) both implement it with this one router, so the tests run the
superseding and ordering the application runs.
"""
