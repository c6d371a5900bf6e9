"""Money: player accounts, the house's rake account and players' standing, each a stream of the event log.

Modules: ``names`` (stream ids and resource names), ``accounts`` (an account's decide and evolve steps),
``players`` (suspension), ``transfers`` (which table events move money), ``errors`` (the refusals), and
``book`` (the :class:`~stud_service.ledger.book.Ledger`: all of it on the event log). docs/money.md
describes the model: where money enters, moves and leaves, and how reconciliation proves it.
"""
