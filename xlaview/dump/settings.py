"""xlaview's settings: environment variables, each parsed strictly (a whole
number with an optional K, M, G or T, within a sane range), so that a slip is
one line naming the setting, before anything starts, never an OverflowError
deep in a read."""

from __future__ import annotations

import os
import re

from xlaview.errors import XlaviewError

FILE_SIZE_LIMIT_ENV = "XLAVIEW_MAX_FILE_SIZE"
# The largest single files of real dumps are HLO texts of tens of MB (a 330k-
# instruction module is 46 MB) and kernel IR of a few hundred MB. A module
# beyond 2 GiB would need tens of GB to parse: a file that big in a dump is an
# accident or an attack, and the setting is there for the day it is neither.
DEFAULT_FILE_SIZE_LIMIT = 2 << 30
BUDGET_ENV = "XLAVIEW_MEMORY_BUDGET"
# Bytes of parsed HLO a window keeps (texts, modules and shared computations).
# Sized for the window's goal on a 1 GB dump (benchmarks/run.py scale): the
# whole window, its helper processes and Qt's documents under 2 GB.
DEFAULT_BUDGET = 768 << 20

# A size setting: a whole number of bytes, or of K, M, G or T (KiB... too).
_SIZE_SETTING = re.compile(r"\s*(\d{1,16})\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
# What a size setting may say: above a petabyte, it is a slip.
_SIZE_RANGE = (1, 1 << 50)
_UNIT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class SettingError(XlaviewError, ValueError):
    """An xlaview setting (an environment variable) that does not read."""


def size_setting(name: str, default: int) -> int:
    """A size in bytes from the environment variable ``name`` (bytes, or with
    a unit: ``500M``, ``4G``, ``4GiB``), else ``default``."""
    setting = os.environ.get(name, "").strip()
    if not setting:
        return default
    match = _SIZE_SETTING.fullmatch(setting)
    shown = setting if len(setting) <= 40 else setting[:37] + "..."
    if match is None:
        raise SettingError(
            f"{name}={shown!r}: expected a size, a whole number of bytes or of K, M, G or T "
            "(2G, 500M, 1000000)"
        )
    size = int(match[1]) * _UNIT[match[2].lower()]
    low, high = _SIZE_RANGE
    if not low <= size <= high:
        raise SettingError(f"{name}={shown!r}: expected a size from 1 byte to 1024T")
    return size


def file_size_limit() -> int:
    """The largest file xlaview reads, in bytes: ``XLAVIEW_MAX_FILE_SIZE``
    (bytes, or with a unit: ``500M``, ``4G``, ``4GiB``), else 2 GiB."""
    return size_setting(FILE_SIZE_LIMIT_ENV, DEFAULT_FILE_SIZE_LIMIT)


def memory_budget() -> int:
    """Bytes of parsed HLO a window keeps: ``XLAVIEW_MEMORY_BUDGET`` (bytes or
    ``1G``, ``500M``), else 768 MiB. What the budget does not keep is read again
    when asked (a pass step, mostly from computations still shared)."""
    return size_setting(BUDGET_ENV, DEFAULT_BUDGET)


def check_settings() -> None:
    """Every setting read once: `SettingError` for the first that does not."""
    file_size_limit()
    memory_budget()
