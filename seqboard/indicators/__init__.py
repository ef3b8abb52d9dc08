"""Indicators: sinks of the session's events (GPIO, LED matrix, terminal, dashboard).

Each is a callable ``indicator(event, view)`` subscribed with ``Session.subscribe``; none
holds game logic, all read the same :meth:`Session.view` snapshot.
"""
