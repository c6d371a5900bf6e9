"""Bots that play through the public gRPC API only, for the demo, tests and the load benchmark.

``StudClient``  a thin authenticated client of ``stud.v1.TableService``
``events_of``   the events one watch message reports, batched or not
``Bot``         sits at a table and plays every turn it is given (``strategy`` picks the action)
"""

from stud_service.bots.client import StudClient, error_reason, events_of
from stud_service.bots.player import Bot, Strategy, cautious_strategy, random_strategy

__all__ = [
    "Bot",
    "Strategy",
    "StudClient",
    "cautious_strategy",
    "error_reason",
    "events_of",
    "random_strategy",
]
