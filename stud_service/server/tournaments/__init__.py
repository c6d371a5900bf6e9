"""The tournaments this replica serves (docs/tournaments.md): each one's stream folded and followed, its
commands written with the money they move, its lobby order and its watchers.

``runtime``  :class:`TournamentRuntime`, the facade the services reach as ``TableRuntime.tournaments``
``live``     one tournament's state on this replica (``LiveTournament``), and what the facade shows of it
``cache``    tournaments loaded on first use and followed in the log, each event applied exactly once
``writes``   the optimistic write path: request ids, conflicts, money moved with the events
``money``    which tournament events move money, as the ledger's transfers
``lobby``    the lobby's order: scheduled tournaments by start, sit & gos by creation
``watch``    one tournament's events after a version, then as they come

It builds on the tables' generic pieces (``tables.followed``, ``tables.fanout``, ``tables.tasks``) and, of
the API, the refusals and request ids only; the tables know of it only the runtime they hold.
"""
