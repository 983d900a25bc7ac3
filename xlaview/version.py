"""The version of xlaview (one place: the package, the window and the command line read it)."""

__version__ = "0.1.0"
