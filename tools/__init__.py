"""Development tools, run from a checkout and never installed on the Pi:
``python -m tools.fitting`` and ``python -m tools.tuning`` (docs/players.md)."""
