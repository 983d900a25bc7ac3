"""Package data: the bundled sample dump and the application icon."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """A file shipped inside the package (also inside a PyInstaller bundle)."""
    return Path(str(resources.files("xlaview.resources").joinpath(*parts)))


def sample_dump() -> Path:
    """The real dump ``xlaview`` opens with no argument (packaging/make_sample_dump.py)."""
    return resource_path("sample", "attention_cpu")


def sample_dump_default_flags() -> Path:
    """The same program compiled with XLA's default flags (one fused attention)."""
    return resource_path("sample", "attention_cpu_default_flags")


def icon_path(extension: str = "svg") -> Path:
    return resource_path(f"xlaview.{extension}")
