"""Remote play between boards and the club view, over an MQTT broker (docs/remote.md).

``protocol`` (topics, join codes, signed and checked messages), ``client`` (the paho-mqtt
link), ``game`` (one board's side of a remote game), ``start`` (create, join, resume),
``club`` (the read-only view of every table), ``sim`` (a simulated person at a board, for
tests and benchmarks).
"""
