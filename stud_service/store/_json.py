"""Parsing stored events fast: ``orjson`` when it is installed, the standard library otherwise.

Events are read as ``payload::text`` and parsed here rather than by psycopg's jsonb loader: on a
replay, parsing is most of the cost of reading. orjson refuses integers beyond 64 bits; such a
payload (never written by the engine) falls back to the standard parser, so the values are the same.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # optional speed-up
    orjson = None


def _loads_std(text: str) -> Any:
    return json.loads(text)


def _loads_fast(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


loads = _loads_std if orjson is None else _loads_fast
