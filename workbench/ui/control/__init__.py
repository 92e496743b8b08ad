"""Models and controllers: the session, requests, trace and lesson controllers (no widgets)."""
