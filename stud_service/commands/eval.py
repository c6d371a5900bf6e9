"""``stud-service eval``: evaluate cards from the command line.

    $ stud-service eval As Ks Qs Js Ts 2c 3d
    royal flush: A♠ K♠ Q♠ J♠ 10♠
    $ stud-service eval --low 8h 6c 4d 2s Ac Kd Kh
    8-6-4-2-A low: 8♥ 6♣ 4♦ 2♠ A♣
"""

from __future__ import annotations

import argparse
import sys

from stud_service.cards import CardParseError, cards_pretty, parse_cards
from stud_service.native import EvaluationError, evaluate_eight_or_better, evaluate_high, evaluate_low


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval", help="evaluate 5 to 7 cards (high, --low or --eight)",
        description="Print the best five of 5 to 7 cards and what they make. Cards read like As Td 2c 10h.",
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--low", action="store_true", help="ace-to-five low (Razz)")
    kind.add_argument("--eight", action="store_true", help="eight-or-better low (Stud Hi-Lo)")
    parser.add_argument("cards", nargs="+", metavar="CARD", help="cards such as As Kd 10h 2c")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        cards = parse_cards(args.cards)
        if args.low:
            hand = evaluate_low(cards)
        elif args.eight:
            hand = evaluate_eight_or_better(cards)
            if hand is None:
                print("no qualifying low (eight or better)")
                return 0
        else:
            hand = evaluate_high(cards)
    except (CardParseError, EvaluationError) as error:
        print(f"stud-service eval: {error}", file=sys.stderr)
        return 2
    print(f"{hand.description}: {cards_pretty(hand.cards)}")
    return 0
