"""Python values written as TOML text, the syntax of a ``--set`` override (``key.path=value``).

Below both of its users: :mod:`dcnsim.api` writes a dict of overrides with it, and
:mod:`dcnsim.sweep` its base and grid values (and the points' folder names).
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Mapping
from typing import Any


class NoTomlValue(ValueError):
    """A value TOML cannot write (a set, an object); ``str(e)`` names it and its type."""


def toml_value(v: Any) -> str:
    """``v`` written as a TOML value, the syntax of a ``--set`` override."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string
    if isinstance(v, (datetime.date, datetime.time)):  # TOML's own date and time literals
        return v.isoformat()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise NoTomlValue(f"cannot write {v!r} ({type(v).__name__}) as a scenario value")
