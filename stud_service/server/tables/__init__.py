"""The tables this replica runs: their live state, writes, the dealer, clocks, watchers and ownership.

``runtime``    :class:`TableRuntime`, what the services use: it hands each job to one of the parts below
``live``       one table's state on this replica (``LiveTable``), a table as of a version (``TableAt``)
``cache``      tables loaded on first use and followed in the log, each event applied exactly once
``writes``     the optimistic write path: turns, request ids, conflicts, money moved with the events
``deadlines``  the action clock, the waiting list's seat offers and interrupted hands, fired by the owner
``dealer``     the next hand after the pause, by the owner alone
``tournament_tables``  a tournament's tables opened and driven between hands, its level clock, by owners
``seeds``      each hand's server seed, committed a hand ahead and dealt with the client seeds
``fanout``     every applied event to each watch stream's queue, with a bound for slow readers
``owned``      which tables this replica owns, its clients' interest in each, unloading the unused
``ownership``  table (and tournament) leases in PostgreSQL, renewed in rounds, following the clients
``rake``       the house's rake swept into its accounts
``tasks``      the background tasks, retried through store outages until done
``settings``   the pause between hands, dealing, the rake's sweeps, unloading (replaceable while running)
"""
