"""A readable account of a finished hand, cards with suit symbols (``stud-service hands show``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from stud_service.audit.history import FULL, hand_events
from stud_service.audit.records import HandRecord
from stud_service.cards import card_pretty
from stud_service.currency import money_text, stakes_text
from stud_service.engine.events import started_game
from stud_service.wording import ACTION_VERBS, STREET_NAMES, VARIANT_NAMES


def _card(card: int | None) -> str:
    return "??" if card is None else card_pretty(card)


def narrate(record: HandRecord, viewer: str | None = None) -> str:
    """The hand as text; ``viewer`` (a player id) hides what that player did not see."""
    events = [payload for _version, payload in hand_events(record, viewer or FULL)]
    started = events[0]
    config = started["config"]
    names = {int(seat): str(player) for seat, player, _stack in started["seats"]}
    currency = str(config.get("currency", ""))

    def money(amount: int) -> str:
        return money_text(amount, currency)

    at = datetime.fromtimestamp(started["at_ms"] / 1000, UTC)
    lines = [
        f"tables/{record.table_id}/hands/{record.hand} — {VARIANT_NAMES[started_game(started)]}"
        f" {stakes_text(*(config[f] for f in ('small_bet', 'big_bet', 'ante', 'bring_in')), currency)}"
        f" — {at:%Y-%m-%d %H:%M:%S} UTC",
        f"Deck commitment {started['commitment']}",
        "Seats: " + ", ".join(f"{seat} {names[seat]} ({money(n)})" for seat, _, n in started["seats"]),
    ]
    street = 0
    dealt: dict[int, list[str]] = {}
    for payload in events:
        kind = payload["type"]
        if kind == "AntePosted":
            continue
        if kind == "CardDealt":
            if payload["street"] != street:
                street = payload["street"]
                dealt = {}
                lines.append(f"{STREET_NAMES[street]}:")
            text = _card(payload["card"])
            if payload["seat"] is None:
                lines.append(f"  community card {text}")
                continue
            dealt.setdefault(payload["seat"], []).append(text if payload["face_up"] else f"[{text}]")
            continue
        if dealt:
            for seat, cards in sorted(dealt.items()):
                lines.append(f"  seat {seat} {names[seat]}: {' '.join(cards)}")
            dealt = {}
        if kind in ("HandShown", "HandMucked") and "Showdown:" not in lines:
            lines.append("Showdown:")
        lines.extend(_describe(payload, names, money))
    return "\n".join(lines) + "\n"


def _describe(payload: dict[str, Any], names: dict[int, str], money: Callable[[int], str]) -> list[str]:
    kind = payload["type"]
    if kind == "PlayerActed":
        seat = payload["seat"]
        verb = ACTION_VERBS[payload["action"]]
        amount = f" {money(payload['amount'])}" if payload["action"] not in ("FOLD", "CHECK", "CALL") else ""
        if payload["action"] == "CALL":
            amount = f" {money(payload['chips'])}"
        notes = (" (timed out)" if payload.get("timeout") else "") + (
            " — all in" if payload["all_in"] else ""
        )
        return [f"  seat {seat} {names[seat]} {verb}{amount}{notes}"]
    if kind == "UncalledBetReturned":
        return [f"  {money(payload['amount'])} uncalled returned to seat {payload['seat']}"]
    if kind == "HandShown":
        made = " / ".join(part for part in (payload.get("high"), payload.get("low")) if part)
        cards = " ".join(_card(c) for c in payload["cards"])
        return [f"  seat {payload['seat']} {names[payload['seat']]} shows {cards}: {made}"]
    if kind == "HandMucked":
        return [f"  seat {payload['seat']} {names[payload['seat']]} mucks"]
    if kind == "HandVoided":  # RULES.md §12
        by = "the table (interrupted)" if payload["automatic"] else payload["operator"]
        returned = ", ".join(f"seat {seat} {money(amount)}" for seat, amount in payload["returned"])
        return [f"Voided by {by}: {payload['reason']}", f"  returned: {returned or 'nothing'}"]
    if kind == "HandEnded":
        out = ["Result:"]
        for pot in payload["pots"]:
            label = (
                f"side pot {pot['pot']}" if pot["pot"] else "main pot" if len(payload["pots"]) > 1 else "pot"
            )
            for award in pot["awards"]:
                hand = f" with {award['hand']}" if award.get("hand") else ""
                half = (
                    f" ({award['half']} half)"
                    if award["half"] in ("high", "low") and len(pot["awards"]) > 1
                    else ""
                )
                out.append(
                    f"  seat {award['seat']} {names[award['seat']]} wins {money(award['amount'])}"
                    f" from the {label}{half}{hand}"
                )
        if payload.get("rake"):  # RULES.md §10: taken before the pots were awarded
            shares = ", ".join(f"seat {seat} {money(part)}" for seat, part in payload.get("rake_shares", ()))
            out.append(f"  rake {money(payload['rake'])} (contributed: {shares})")
        out.append(
            "Stacks after the hand: " + ", ".join(f"{seat} {money(n)}" for seat, n in payload["stacks"])
        )
        if payload.get("server_seed"):
            out.append(f"Server seed (revealed) {payload['server_seed']}")
        return out
    return []
