"""seqboard: the app that ties sensing, the rules engine and the indicators together."""

__version__ = "0.1.0"
