"""The hostile-input suite: every method of every service, over every transport, sprayed with requests
generated from the descriptors (tests/hostile_cases.py), each checked for a precise refusal that changes
nothing (tests/hostile_world.py); the server's memory flat over repeats; every table playing on afterwards.

Size: ``STUD_HOSTILE_CASES`` cases per method and transport (the CI default is small; ``make fuzz`` runs a
large one), drawn with the seed ``STUD_HOSTILE_SEED``.

Defects known and being fixed elsewhere are listed in ``KNOWN``: the spray does not fail on a case a known
defect covers, and the defect's own test (strict xfail) sends those cases and fails until the fix lands;
then its entry goes.
"""

from __future__ import annotations

import gc
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace

import pytest
import pytest_asyncio
from google.api import annotations_pb2
from google.protobuf.descriptor import MethodDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hostile_cases import SEED, Case, Sampler, per_method, speaks
from hostile_wire import CALL_SECONDS, GRPC_TRANSPORT, JSON_TRANSPORTS, TRANSPORTS
from hostile_world import (
    STUD_SERVICES,
    Violation,
    World,
    client,
    every_table_plays_a_hand,
    hostile_world,
    methods_over,
    rss,
)

from stud_service.auth import Role

# A spray's time grows with its size (seconds at the CI default, minutes for make fuzz).
pytestmark = pytest.mark.timeout(max(180, 6 * per_method()))


@dataclass(frozen=True)
class Defect:
    """A defect known and being fixed elsewhere: the cases it ``covers`` (a case and a transport)."""

    reason: str
    covers: Callable[[Case, str], bool]


# Defects known and being fixed on another branch, by a short name: the spray does not fail on a case one
# covers, and the defect's own test below is a strict xfail until the fix lands (then its entry goes).
# For example: "player-names": Defect("issue 37 part 2: players/ names with NUL are INTERNAL",
#     lambda case, transport: case.method.name == "GetPlayerStanding" and case.family == "string")
KNOWN: dict[str, Defect] = {}


def known_defect(case: Case, transport: str) -> str | None:
    return next((key for key, defect in KNOWN.items() if defect.covers(case, transport)), None)


@pytest_asyncio.fixture(scope="module")
async def world(make_database) -> AsyncIterator[World]:
    async with hostile_world(await make_database(migrated=True)) as world:
        yield world


def has_route(method: MethodDescriptor) -> bool:
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    return rule.WhichOneof("pattern") not in (None, "custom")


def sprayed(world: World, transport: str, size: int) -> list[tuple[Case, str]]:
    sampler = Sampler(size)
    found = []
    for method in methods_over(transport):
        if transport == "route" and not has_route(method):
            continue
        for case in sampler.sample(world.cases(method), transport, transport in JSON_TRANSPORTS):
            found.append((case, transport))
    return found


async def spray(world: World, cases: list[tuple[Case, str]]) -> tuple[list[Violation], dict[str, int]]:
    unexpected: list[Violation] = []
    known: dict[str, int] = {}
    for case, transport in cases:
        violations = await world.run(case, transport)
        defect = known_defect(case, transport)
        if violations and defect is not None:
            known[defect] = known.get(defect, 0) + 1
        else:
            unexpected += violations
    return unexpected, known


def report(violations: list[Violation]) -> str:
    shown = "\n".join(str(violation)[:700] for violation in violations[:40])
    more = f"\n... and {len(violations) - 40} more" if len(violations) > 40 else ""
    return f"{len(violations)} violations:\n{shown}{more}"


@pytest.mark.long
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_every_method_refuses_hostile_input_precisely_and_changes_nothing(world, transport) -> None:
    cases = sprayed(world, transport, per_method())
    violations, known = await spray(world, cases)
    print(f"\n{transport}: {len(cases)} cases; known defects hit: {known}")
    for violation in violations:
        print("VIOLATION", str(violation)[:400])
    assert not violations, report(violations)


# The most cases a known defect's own test sends (drawn from all it covers, on every transport).
DEFECT_CASES = 40


def covered_by(world: World, key: str) -> list[tuple[Case, str]]:
    defect = KNOWN[key]
    found = [(case, transport) for transport in TRANSPORTS for method in methods_over(transport)
             if transport != "route" or has_route(method)
             for case in world.cases(method)
             if speaks(case, transport, transport in JSON_TRANSPORTS) and defect.covers(case, transport)]
    random.Random(f"{SEED}:{key}").shuffle(found)
    return found[:DEFECT_CASES]


if KNOWN:  # each known defect's cases alone, while there are any

    @pytest.mark.parametrize("key", [
        pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=defect.reason))
        for key, defect in KNOWN.items()
    ])
    async def test_the_cases_of_a_known_defect_are_refused_precisely_and_change_nothing(world, key) -> None:
        """Fails while the defect is there (strict xfail): when its fix lands this passes, the xfail turns
        into a failure, and the defect's entry in KNOWN goes (the spray then covers its cases)."""
        cases = covered_by(world, key)
        assert cases, f"no case covers {key}"
        violations = [found for case, transport in cases for found in await world.run(case, transport)]
        assert not violations, report(violations)


async def test_a_token_valid_for_a_century_is_refused_on_every_method(world) -> None:
    """Tokens have a longest lifetime (--max-token-lifetime): one for a hundred years is refused by every
    method, the public lobby's too (a token sent must be valid)."""
    for method in (method for service in STUD_SERVICES for method in service.methods):
        case = next(case for case in world.cases(method) if case.family == "caller")
        # Every method refuses: a watch is given as long as a call to say so, not a live watch's moment.
        outcome = await world.send(replace(case, caller="century"), GRPC_TRANSPORT,
                                   watch_seconds=CALL_SECONDS)
        assert (outcome.code, outcome.reason) == ("UNAUTHENTICATED", "TOKEN_INVALID"), (method.name, outcome)


# Cases per method and transport in the batch sent twice for the memory check.
MEMORY_CASES = 4
# How much the second batch may grow the process (server and client both live in it): generous, as the
# allocator keeps what it has; a leak of the requests (1 MiB strings among them) would pass it many times.
MEMORY_GROWTH_BOUND = 48 * 1024 * 1024


async def test_memory_stays_flat_over_repeats(world) -> None:
    batch = [(case, transport) for transport in TRANSPORTS for case, transport in sprayed(world, transport,
                                                                                          MEMORY_CASES)
             if known_defect(case, transport) is None]
    await spray(world, batch)  # the warm-up (the sprays above ran these already, too)
    gc.collect()
    before = rss()
    violations, _known = await spray(world, batch)
    gc.collect()
    grown = rss() - before
    print(f"\nmemory: {len(batch)} requests again grew RSS by {grown / 2**20:.1f} MiB")
    assert not violations, report(violations)
    assert grown < MEMORY_GROWTH_BOUND, f"{len(batch)} requests again grew RSS by {grown / 2**20:.1f} MiB"


async def test_every_table_plays_a_new_hand_afterwards(world) -> None:
    """Dealing back on, bots play one hand at every table in the log (the world's and any the spray
    created): none was left unplayable. Run last."""
    errors = len(world.log.errors)
    before = await every_table_plays_a_hand(world)
    operator = client(world.channel, "house", Role.OPERATOR)
    for table_id, started in before.items():
        view = await operator.view(table_id)
        assert view.table.hands_started > started, table_id
    assert not world.log.errors[errors:], world.log.errors[errors : errors + 3]
    health = health_pb2_grpc.HealthStub(world.channel)
    assert (await health.Check(health_pb2.HealthCheckRequest(), timeout=5)).status == \
        health_pb2.HealthCheckResponse.SERVING
    print(f"\n{world.sent} requests; outcomes: {world.outcomes.most_common(16)}")
