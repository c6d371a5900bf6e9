"""The tables this replica runs: their live state, writes, the dealer, clocks, watchers and ownership.

``runtime``    live tables on this replica: optimistic writes, the dealer, action clocks, watcher fan-out
``ownership``  table leases in PostgreSQL: which replica owns (deals and times) which table
"""
