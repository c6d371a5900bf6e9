"""Subcommands of the ``stud-service`` command line, one module each."""
