"""What auditing a hand costs, against PokerKit doing the same job on the same hands in the same run.

- replay: our re-decided replay of a hand's log (every command re-checked by the engine, every event
  compared), against PokerKit replaying the PHH export of that hand (``HandHistory`` iteration);
- full verification without the database: replay + shuffle recomputation + chips ledger, against the
  same PokerKit replay (PokerKit checks no shuffle and no hash chain: the ratio shows what the extra
  guarantees cost);
- PHH export: ``to_phh`` of a hand, against PokerKit's ``HandHistory.dumps`` of the same hand;
- the shuffle: our HMAC-SHA256 Fisher-Yates deck from seeds, against ``random.SystemRandom().shuffle``
  (the CSPRNG shuffle a service without commitments would use).

The hands are 300 hands of each variant played by the seeded random players; hands that touch a rule
PokerKit handles differently (see tests/test_phh_pokerkit.py) are left out of both sides.

Run: ``.venv/bin/python benchmarks/bench_audit.py``.  Prints microseconds per hand (best of 5) and the
ratio ours / peer.
"""

from __future__ import annotations

import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from pokerkit import HandHistory

from stud_service.audit.phh import to_phh
from stud_service.audit.records import HandRecord
from stud_service.audit.replay_check import replay_hand
from stud_service.audit.simulate import simulate_table
from stud_service.audit.verify import check_record
from stud_service.engine import Variant, event_to_json
from stud_service.shuffle import deck_order

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_phh_pokerkit import known_differences  # noqa: E402  (the one list of documented differences)

HANDS_PER_VARIANT = 300


def best_microseconds(operation: Callable[[], object], repeat: int, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            operation()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def hands() -> list[HandRecord]:
    records = []
    for index, variant in enumerate(Variant):
        table = simulate_table(f"bench-{index}", variant, HANDS_PER_VARIANT, seed=500 + index)
        current = None
        for events in table.commands:
            payloads = [event_to_json(e) for e in events]
            if payloads[0]["type"] == "HandStarted":
                current = []
            if current is not None:
                current.extend(payloads)
                if any(p["type"] == "HandEnded" for p in payloads):
                    records.append(HandRecord.from_payloads(table.table_id, current[0]["hand"], current))
                    current = None
    return [record for record in records if not known_differences(record)]


def main() -> None:
    warnings.simplefilter("ignore")
    records = hands()
    items = [[(s.version, s.payload) for s in record.events] for record in records]
    texts = [to_phh(record) for record in records]
    histories = [HandHistory.loads(text) for text in texts]
    count = len(records)

    def each(operation: Callable[[int], object]) -> Callable[[], None]:
        def run() -> None:
            for index in range(count):
                operation(index)
        return run

    rows = []
    ours = best_microseconds(each(lambda i: replay_hand(items[i], records[i].hand)), 1) / count
    peer = best_microseconds(each(lambda i: list(histories[i])), 1) / count
    rows.append(("replay one hand", ours, peer, "PokerKit HandHistory replay"))
    ours = best_microseconds(each(lambda i: check_record(records[i])), 1) / count
    rows.append(("verify one hand (no DB)", ours, peer, "PokerKit HandHistory replay"))
    ours = best_microseconds(each(lambda i: to_phh(records[i])), 1) / count
    peer = best_microseconds(each(lambda i: histories[i].dumps()), 1) / count
    rows.append(("PHH export of one hand", ours, peer, "PokerKit HandHistory.dumps"))
    seed = bytes(range(32))
    system = random.SystemRandom()
    ours = best_microseconds(lambda: deck_order(seed, {1: "client seed"}), 2000)
    peer = best_microseconds(lambda: system.shuffle(list(range(52))), 2000)
    rows.append(("shuffle a deck", ours, peer, "random.SystemRandom().shuffle"))

    print(f"{count} hands (Seven Card Stud, Stud Hi-Lo, Razz); microseconds per operation, best of 5\n")
    print(f"{'operation':<26} {'ours':>10} {'peer':>10} {'ours/peer':>10}  peer")
    for name, ours_us, peer_us, peer_name in rows:
        print(f"{name:<26} {ours_us:>10.1f} {peer_us:>10.1f} {ours_us / peer_us:>10.2f}  {peer_name}")


if __name__ == "__main__":
    main()
