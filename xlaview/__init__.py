"""xlaview: a desktop explorer for XLA compiler dumps."""

__version__ = "0.1.0"
