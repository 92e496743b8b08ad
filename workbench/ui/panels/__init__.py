"""The docked panels and the jaxpr view, each bound to the session."""
