"""The window's side of the engine: a kernel client (jupyter_client, zmq), transport only.

``engine_client.EngineClient`` is the facade; ``transport`` (sockets, signing, the
I/O thread), ``routing`` (pending requests, superseding by key), ``launch`` (our own
kernel process and its log), ``supervision`` (heartbeat, crash loops, restart),
``stop`` (Stop and its device probe) and ``attach`` (connection files, SSH) are its
parts. Nothing is imported here, so that ``workbench.client.attach`` stays cheap.
"""
