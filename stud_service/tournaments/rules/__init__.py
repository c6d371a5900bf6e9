"""RULES.md §11, one short function per rule, each named after it and citing it
(tests/test_tournament_rules.py holds a test named after each).  Pure: draws come in as a ``Draw`` on a
committed seed."""
