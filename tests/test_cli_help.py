"""Every argument of every ``stud-service`` command says in ``--help`` what it is for."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from stud_service.cli import build_parser


def _unexplained(parser: argparse.ArgumentParser, command: str) -> Iterator[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _unexplained(sub, f"{command} {name}")
        elif not isinstance(action, argparse._HelpAction) and not action.help:
            yield f"{command}: {'/'.join(action.option_strings) or action.dest}"


def test_every_argument_of_every_command_has_help() -> None:
    assert list(_unexplained(build_parser(), "stud-service")) == []


def test_verify_shuffle_says_what_its_table_and_hand_are() -> None:
    def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices

    text = commands(commands(build_parser())["hands"])["verify-shuffle"].format_help()
    assert "table id" in text and "hand number" in text
