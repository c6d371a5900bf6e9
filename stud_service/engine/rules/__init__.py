"""The rules of RULES.md, one function per rule, named after it.

- ``dealing``:  antes, dealing order, face up/down by street, the community card (§2)
- ``bring_in``: who brings in, who acts first on later streets (§3, §4)
- ``betting``:  bet sizes, the open-pair option, the cap, who may raise, when betting is over (§3, §4)
- ``pots``:     uncalled bets and side pots (§5)
- ``showdown``: showdown order, mucking, hand values, splitting and the odd chip (§5, §6)
- ``rake``:     the rake's cap, amount, the pots it comes from and each player's share (§10)
- ``waiting``:  the waiting list and seat offers (docs/waiting-list.md)
- ``rotation``: the game of each hand at a mixed table (§13)
"""
