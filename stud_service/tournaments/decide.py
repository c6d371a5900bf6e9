"""decide(state, command) -> [events]: check a command against a tournament and say what happens.

A command yields every event it causes: a sit & go's last registration starts it (tables, seating draw);
a table's hand end folds its chips, eliminates, places, closes entries at the bubble, balances or breaks
the table, runs hand for hand and finishes the tournament.  A refused command raises a TournamentError
and changes nothing (decide applies its events to a private copy to see what follows them).

Draws (``draws``): the first event that draws is a DrawRevealed of the seed committed before; the
command's ``next_draw`` is committed after the last (DrawCommitted), unless the tournament ended.

Decisions where RULES.md §11 is silent (as a well-run online room does it; docs/tournaments.md):

- Entries (late registration, re-entry) close at the end of their last level, or at the bubble if it comes
  first; the prize pool and each place's prize are fixed then (PrizesFixed).  Players out while entries
  are open are placed when they close (a later hand's players above an earlier hand's): how many players
  the tournament has is not known before.
- The default payout table counts players, not entries: a re-entry grows the pool, not the places paid.
- A player out of chips may re-enter while re-entry is open and they have re-entries left; their earlier
  elimination gets no place (a player has one place).  Late entrants and re-entries take a drawn empty seat
  of the shortest table; when every table is full a table opens, and balancing fills it.
- Balancing: the table whose hand ended gives a player when it is one of the longest and two or more
  above the shortest; the player is drawn among its players, and their seat among the empty seats of the
  shortest tables.  A table is broken when the players fit in one table fewer and it is one of those with
  the fewest; its players go, in a drawn order, to drawn empty seats of the tables then shortest.
- Hand for hand begins when one player more than the places paid is left at more than one table, and ends
  when a round is over after the bubble burst (or when one table is left): the round's eliminations are
  one hand for places, so players out at two tables in the bubble round are ordered by their chips.
- Cancellation after the start: each player still in is paid first the prize of the worst place not yet
  fixed (every one of them has reached it), then the rest by chips or equally (§11); fees are not refunded
  once the tournament has started, and refunded with the buy-in before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from stud_service.tournaments.commands import (
    UNREGISTER_REASONS,
    AdvanceLevel,
    CancelTournament,
    CreateTournament,
    DealTableHand,
    EndTableHand,
    NextDraw,
    ReEnter,
    Register,
    StartTournament,
    Unregister,
)
from stud_service.tournaments.dealing import Hold, hold_of
from stud_service.tournaments.draws import SEED_BYTES, Draw, is_commitment, opens, seed_of
from stud_service.tournaments.errors import (
    AlreadyRegistered,
    AlreadyStarted,
    HandReportMismatch,
    InvalidTournamentEvent,
    LevelNotDue,
    MalformedTournamentCommand,
    NoTournament,
    NotRegistered,
    ReEntryNotAllowed,
    RegistrationClosed,
    StartNotDue,
    StillInTournament,
    TableHandRunning,
    TableOnHold,
    TournamentConfigError,
    TournamentError,
    TournamentExists,
    TournamentFull,
    TournamentNotStarted,
    TournamentOver,
    UnknownTable,
)
from stud_service.tournaments.events import (
    BreakStarted,
    DrawCommitted,
    DrawRevealed,
    HandForHandEnded,
    HandForHandStarted,
    LevelStarted,
    PlacesFixed,
    PlayerMoved,
    PlayerReEntered,
    PlayerRegistered,
    PlayerSeated,
    PlayersEliminated,
    PlayerUnregistered,
    PrizesFixed,
    TableBroken,
    TableHandDealt,
    TableHandEnded,
    TableOpened,
    TournamentCancelled,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
)
from stud_service.tournaments.evolve import apply_in_place, replay
from stud_service.tournaments.rules.balancing import break_table, breaks_table, moves_a_player, player_to_move
from stud_service.tournaments.rules.cancellation import cancellation_payouts
from stud_service.tournaments.rules.hand_for_hand import (
    hand_for_hand_due,
    hand_for_hand_over,
    hand_for_hand_round_over,
)
from stud_service.tournaments.rules.levels import late_registration_open, level_ends_ms, re_entry_open
from stud_service.tournaments.rules.payouts import prize_of_places, prizes_by_place, shared_place_prizes
from stud_service.tournaments.rules.places import Place, is_eliminated, places_for_hand, places_for_hands
from stud_service.tournaments.rules.seating import draw_empty_seat, seating_draw, tables_needed
from stud_service.tournaments.state import (
    Group,
    Status,
    TournamentState,
    current_level,
    entries_open,
    entries_total,
    paid_places,
    payout_table,
    players_left,
    table_counts,
    table_id_for,
    tables_that_can_deal,
)
from stud_service.tournaments.structure import CancellationPayout, TournamentConfig, TournamentKind

# A tournament's id names its stream and, with "-t" and a number of up to five digits, each of its tables'
# (a table id is 1..63 characters of [a-z0-9-], a letter first).
TOURNAMENT_ID = re.compile(r"[a-z][a-z0-9-]{0,55}")
MAX_PLAYER_ID_CHARS = 64
MAX_BY_CHARS = 100
MAX_REASON_CHARS = 500


class _Recorder:
    """Collects events and applies each to a private copy, so later steps see them; reveals the committed
    draw when a step first draws."""

    def __init__(self, state: TournamentState, now_ms: int, next_draw: NextDraw | None) -> None:
        self.state = state.copy()
        self.events: list[Any] = []
        self.now = now_ms
        self.next_draw = next_draw
        self._draw: Draw | None = None

    def emit(self, event: Any) -> None:
        self.events.append(event)
        apply_in_place(self.state, event)

    def draw(self) -> Draw:
        if self._draw is None:
            state = self.state
            seed = seed_of(state.secret)
            if seed is None or not opens(seed, state.commitment):
                raise InvalidTournamentEvent(f"draw {state.draw}'s secret does not open its commitment")
            self.emit(DrawRevealed(state.draw, seed.hex(), self.now))
            self._draw = Draw(seed)
        return self._draw

    def close(self) -> list[Any]:
        """The events, with the next draw committed if this command revealed one and the tournament is on."""
        next_draw = self.next_draw
        if self._draw is not None and self.state.status in (Status.REGISTERING, Status.RUNNING):
            if next_draw is None:
                raise MalformedTournamentCommand("next_draw", "this command draws: it must commit the next")
            draw = self.state.draw + 1
            self.emit(DrawCommitted(draw, next_draw.commitment, dict(next_draw.secret), self.now))
        return self.events


# --- checks -------------------------------------------------------------------------------------------

def _config(state: TournamentState) -> TournamentConfig:
    if state.config is None:
        raise NoTournament("there is no tournament yet: create it first")
    return state.config


def _not_over(state: TournamentState) -> TournamentConfig:
    config = _config(state)
    if state.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentOver(f"the tournament is {state.status.value.lower()}")
    return config


def _running(state: TournamentState) -> TournamentConfig:
    config = _not_over(state)
    if state.status is not Status.RUNNING:
        raise TournamentNotStarted("the tournament has not started")
    return config


def _player(player_id: Any) -> str:
    if not isinstance(player_id, str) or not 0 < len(player_id) <= MAX_PLAYER_ID_CHARS \
            or not player_id.isprintable():
        most = MAX_PLAYER_ID_CHARS
        raise MalformedTournamentCommand("player_id", f"a player id is 1..{most} printable characters")
    return player_id


def _check_next_draw(next_draw: Any, field: str = "next_draw") -> None:
    if next_draw is None:
        return
    if not isinstance(next_draw, NextDraw) or not is_commitment(next_draw.commitment):
        raise MalformedTournamentCommand(field, "a draw's commitment is 64 lowercase hex digits")
    seed = seed_of(next_draw.secret)
    if seed is None or len(seed) != SEED_BYTES or not opens(seed, next_draw.commitment):
        says = f"a draw's secret is a {SEED_BYTES}-byte seed that opens its commitment"
        raise MalformedTournamentCommand(field, says)


def _text(value: Any, field: str, most: int, required: bool) -> str:
    if not isinstance(value, str) or len(value) > most or not value.isprintable() or (required and not value):
        least = 1 if required else 0
        raise MalformedTournamentCommand(field, f"{field} is {least}..{most} printable characters")
    return value


# --- registration and the start --------------------------------------------------------------------------

def _create(state: TournamentState, cmd: CreateTournament) -> list[Any]:
    if state.config is not None:
        raise TournamentExists(f"tournament {state.tournament_id!r} already exists")
    if not isinstance(cmd.tournament_id, str) or not TOURNAMENT_ID.fullmatch(cmd.tournament_id):
        raise TournamentConfigError("tournament_id", "must be 1..56 characters of [a-z0-9-], a letter first")
    if not isinstance(cmd.config, TournamentConfig):
        raise TournamentConfigError("config", "must be a TournamentConfig")
    cmd.config.validate()
    if cmd.first_draw is None:
        raise MalformedTournamentCommand("first_draw", "the seating draw is committed when the tournament is")
    _check_next_draw(cmd.first_draw, "first_draw")
    by = _text(cmd.by, "by", MAX_BY_CHARS, required=False)
    return [TournamentCreated(cmd.tournament_id, cmd.config, cmd.now_ms, by),
            DrawCommitted(1, cmd.first_draw.commitment, dict(cmd.first_draw.secret), cmd.now_ms)]


def _register(state: TournamentState, cmd: Register) -> _Recorder:
    config = _not_over(state)
    player = _player(cmd.player_id)
    _check_next_draw(cmd.next_draw)
    if player in state.entries:
        raise AlreadyRegistered(f"player {player!r} is already registered")
    if len(state.registered) >= config.max_entrants:
        raise TournamentFull(f"all {config.max_entrants} places are taken")
    late = late_registration_open(current_level(state), config.late_registration_levels)
    if state.status is Status.RUNNING and not (entries_open(state) and late):
        raise RegistrationClosed("registration is closed")
    rec = _Recorder(state, cmd.now_ms, cmd.next_draw)
    rec.emit(PlayerRegistered(player, cmd.now_ms))
    if state.status is Status.RUNNING:
        _seat_newcomer(rec, player)
    elif config.kind is TournamentKind.SIT_AND_GO and len(rec.state.registered) == config.max_entrants:
        _start(rec)
    _settle(rec)
    return rec


def _unregister(state: TournamentState, cmd: Unregister) -> list[Any]:
    _not_over(state)
    if cmd.player_id not in state.entries:
        raise NotRegistered(f"player {cmd.player_id!r} is not registered")
    if state.status is not Status.REGISTERING:
        raise AlreadyStarted("the tournament has started: entries are not refunded now")
    if cmd.reason not in UNREGISTER_REASONS:
        raise MalformedTournamentCommand("reason", f"must be one of {', '.join(UNREGISTER_REASONS)}")
    return [PlayerUnregistered(cmd.player_id, cmd.now_ms, cmd.reason)]


def _re_enter(state: TournamentState, cmd: ReEnter) -> _Recorder:
    config = _running(state)
    _check_next_draw(cmd.next_draw)
    player = cmd.player_id
    if player not in state.entries:
        raise NotRegistered(f"player {player!r} is not registered")
    if player in state.seat_of:
        raise StillInTournament(f"player {player!r} still has chips")
    used = state.entries[player] - 1
    if not entries_open(state) or not re_entry_open(current_level(state), config.re_entry_until_level, used,
                                                   config.re_entries):
        raise ReEntryNotAllowed(f"no re-entry for {player!r}: {used} of {config.re_entries} used, re-entry "
                                f"until level {config.re_entry_until_level}")
    rec = _Recorder(state, cmd.now_ms, cmd.next_draw)
    rec.emit(PlayerReEntered(player, used + 2, cmd.now_ms))
    _seat_newcomer(rec, player)
    _settle(rec)
    return rec


def _start_tournament(state: TournamentState, cmd: StartTournament) -> list[Any] | _Recorder:
    config = _not_over(state)
    _check_next_draw(cmd.next_draw)
    if state.status is Status.RUNNING:
        raise AlreadyStarted("the tournament has started")
    if config.kind is TournamentKind.SIT_AND_GO:
        raise StartNotDue("a sit & go starts when its last seat is taken")
    if cmd.now_ms < config.start_ms:
        raise StartNotDue(f"the tournament starts at {config.start_ms} ms, it is {cmd.now_ms} ms")
    if len(state.registered) < config.min_entrants:
        refunds = tuple((player, config.buy_in + config.fee) for player in state.registered)
        too_few = f"fewer than {config.min_entrants} entrants"
        return [TournamentCancelled("", too_few, refunds, (), cmd.now_ms)]
    rec = _Recorder(state, cmd.now_ms, cmd.next_draw)
    _start(rec)
    _settle(rec)
    return rec


def _start(rec: _Recorder) -> None:
    """§11 Kinds and Seating: the tables open and every entrant's seat is drawn."""
    state = rec.state
    config = _config(state)
    rec.emit(TournamentStarted(len(state.registered), rec.now))
    rec.emit(LevelStarted(0, 1, rec.now, rec.now))
    assert state.tournament_id is not None
    table_ids = [table_id_for(state.tournament_id, number)
                 for number in range(1, tables_needed(len(state.registered), config.seats_per_table) + 1)]
    for table_id in table_ids:
        rec.emit(TableOpened(table_id, rec.now))
    seating = seating_draw(state.registered, table_ids, config.seats_per_table, rec.draw())
    for player, table_id, seat in seating:
        rec.emit(PlayerSeated(player, table_id, seat, config.starting_stack, rec.now))


def _seat_newcomer(rec: _Recorder, player: str) -> None:
    """§11 Entry: a late entrant or a re-entry is seated with the starting stack."""
    state = rec.state
    config = _config(state)
    seat = draw_empty_seat(state.tables, config.seats_per_table, rec.draw())
    if seat is None:
        assert state.tournament_id is not None
        rec.emit(TableOpened(table_id_for(state.tournament_id, state.tables_opened + 1), rec.now))
        seat = draw_empty_seat(state.tables, config.seats_per_table, rec.draw())
        assert seat is not None
    rec.emit(PlayerSeated(player, seat[0], seat[1], config.starting_stack, rec.now))


# --- the level clock and the tables ----------------------------------------------------------------------

def _advance_level(state: TournamentState, cmd: AdvanceLevel) -> _Recorder:
    config = _running(state)
    _check_next_draw(cmd.next_draw)
    ends = level_ends_ms(config.levels, state.level_index, state.level_starts_ms)
    if ends is None:
        raise LevelNotDue("the last level lasts to the end")
    if cmd.now_ms < ends:
        raise LevelNotDue(f"the level ends at {ends} ms, it is {cmd.now_ms} ms")
    rec = _Recorder(state, cmd.now_ms, cmd.next_draw)
    index = state.level_index + 1
    if config.levels[index].is_break:
        rec.emit(BreakStarted(index, ends, cmd.now_ms))
    else:
        rec.emit(LevelStarted(index, current_level(state) + 1, ends, cmd.now_ms))
    _settle(rec)
    return rec


def _deal(state: TournamentState, cmd: DealTableHand) -> list[Any]:
    _config(state)
    hold = hold_of(state, cmd.table_id)
    if hold is Hold.NOT_STARTED:
        raise TournamentNotStarted("the tournament has not started")
    if hold is Hold.OVER:
        raise TournamentOver(f"the tournament is {state.status.value.lower()}")
    if hold is Hold.CLOSED:
        raise UnknownTable(f"{cmd.table_id!r} is not one of the tournament's open tables")
    if hold is Hold.IN_HAND:
        raise TableHandRunning(f"hand {state.in_hand[cmd.table_id]} is still running at {cmd.table_id}")
    if hold is not Hold.NONE:
        raise TableOnHold(f"{cmd.table_id} may not deal now ({hold.value})", hold.value)
    if not isinstance(cmd.hand, int) or cmd.hand <= state.last_hand.get(cmd.table_id, 0):
        raise HandReportMismatch(f"{cmd.table_id} dealt hand {state.last_hand.get(cmd.table_id, 0)} already")
    if cmd.seated is not None and (not isinstance(cmd.seated, tuple | list)
                                   or not all(isinstance(player, str) for player in cmd.seated)):
        raise MalformedTournamentCommand("seated", "the players a table seats are player ids")
    players = tuple(sorted(state.tables[cmd.table_id].values()))
    if cmd.seated is not None and tuple(sorted(cmd.seated)) != players:
        # Players moved there (or away) since the table looked: it seats them first, then asks again.
        raise TableOnHold(f"{cmd.table_id} seats {', '.join(sorted(cmd.seated))}, not the tournament's "
                          f"{', '.join(players)}", Hold.SEATING.value)
    return [TableHandDealt(cmd.table_id, cmd.hand, state.level_index, cmd.now_ms)]


def _end_hand(state: TournamentState, cmd: EndTableHand) -> _Recorder:
    _running(state)
    _check_next_draw(cmd.next_draw)
    table_id = cmd.table_id
    if table_id not in state.tables:
        raise UnknownTable(f"{table_id!r} is not one of the tournament's open tables")
    if state.in_hand.get(table_id) != cmd.hand:
        raise HandReportMismatch(f"{table_id} is not dealing hand {cmd.hand}")
    chips = _checked_chips(state, table_id, cmd.chips)
    rec = _Recorder(state, cmd.now_ms, cmd.next_draw)
    rec.emit(TableHandEnded(table_id, cmd.hand, chips, cmd.now_ms))
    out = tuple(sorted(((player, start) for player, start, end in chips if is_eliminated(end)),
                       key=lambda entry: (-entry[1], entry[0])))
    if out:
        rec.emit(PlayersEliminated(table_id, cmd.hand, out, cmd.now_ms))
        in_round = rec.state.hand_for_hand and table_id in rec.state.round_dealt
        if not entries_open(rec.state) and not in_round:
            _fix_places(rec, places_for_hand(out, players_left(rec.state)))
    _settle(rec, table_id)
    return rec


def _checked_chips(state: TournamentState, table_id: str, chips: Any) -> tuple[tuple[str, int, int], ...]:
    if not isinstance(chips, tuple | list) or not all(
            isinstance(row, tuple | list) and len(row) == 3 and isinstance(row[0], str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in row[1:]) for row in chips):
        raise MalformedTournamentCommand("chips", "chips are (player, at the start, at the end) for each")
    rows = tuple(sorted((player, start, end) for player, start, end in chips))
    players = [player for player, _, _ in rows]
    if players != list(state.dealt_in[table_id]):
        dealt = ", ".join(state.dealt_in[table_id])
        raise HandReportMismatch(f"the players of {table_id}'s hand are {dealt}")
    for player, start, end in rows:
        if start != state.chips[player] or end < 0:
            raise HandReportMismatch(f"{player!r} held {state.chips[player]} chips, not {start}")
    if sum(end for _, _, end in rows) != sum(start for _, start, _ in rows):
        raise HandReportMismatch("the chips at the end of the hand are not those at its start")
    return rows


# --- what follows a change: entries, places, balancing, hand for hand, the end -----------------------------

def _settle(rec: _Recorder, table_id: str | None = None) -> None:
    state = rec.state
    if state.status is not Status.RUNNING:
        return
    config = _config(state)
    if entries_open(state) and _entries_close(state, config):
        _fix_prizes(rec)
        _fix_places(rec, places_for_hands(state.unplaced, players_left(state)))
    if _finish(rec):
        return
    if table_id is not None and table_id in state.tables:
        _balance(rec, table_id, config.seats_per_table)
    if state.hand_for_hand:
        round_over = hand_for_hand_round_over(tables_that_can_deal(state), state.round_dealt, state.in_hand)
        if round_over and state.unplaced:  # §11: the round's players out count as out in one hand
            _fix_places(rec, places_for_hand(_one_hand(state.unplaced), players_left(state)))
        if (round_over or not state.round_dealt) and hand_for_hand_over(
                players_left(state), paid_places(state), len(state.tables)):
            rec.emit(HandForHandEnded(players_left(state), rec.now))
    elif not entries_open(state) and hand_for_hand_due(
            players_left(state), paid_places(state), len(state.tables)):
        rec.emit(HandForHandStarted(players_left(state), rec.now))
    _finish(rec)


def _entries_close(state: TournamentState, config: TournamentConfig) -> bool:
    """Entries close after their last level, or at the bubble (one player more than the places paid)."""
    return current_level(state) > config.entries_close_level or players_left(state) <= paid_places(state) + 1


def _one_hand(groups: tuple[Group, ...]) -> Group:
    return tuple(entry for group in groups for entry in group)


def _fix_prizes(rec: _Recorder) -> None:
    state = rec.state
    config = _config(state)
    pool = entries_total(state) * config.buy_in
    rec.emit(PrizesFixed(entries_total(state), len(state.registered), pool,
                         prizes_by_place(pool, payout_table(state)), rec.now))


def _fix_places(rec: _Recorder, places: list[Place]) -> None:
    """Places with their prizes: shared places share theirs (a draw for odd units)."""
    if not places:
        return
    prizes = rec.state.prizes
    assert prizes is not None
    fixed = []
    for place, last in sorted({(place, last) for _, place, last in places}):
        sharing = [player for player, at, _ in places if at == place]
        odd_units = prize_of_places(prizes, place, last) % len(sharing)
        won = shared_place_prizes(prizes, place, last, sharing, rec.draw() if odd_units else None)
        fixed.extend((player, place, last, won[player]) for player in sorted(sharing))
    rec.emit(PlacesFixed(tuple(fixed), rec.now))


def _finish(rec: _Recorder) -> bool:
    """§11 The winner is the last player with chips; the tournament ends when that player is known."""
    state = rec.state
    if state.status is not Status.RUNNING or players_left(state) != 1 or entries_open(state):
        return False
    if state.unplaced:  # the last hand-for-hand round's players out, the winner's round too
        _fix_places(rec, places_for_hand(_one_hand(state.unplaced), 1))
    (winner,) = state.seat_of
    _fix_places(rec, [(winner, 1, 1)])
    rec.emit(TournamentFinished(winner, rec.now))
    return True


def _balance(rec: _Recorder, table_id: str, seats_per_table: int) -> None:
    """§11 Balancing after the hand at ``table_id`` (between hands now): break it, or move players from it."""
    state = rec.state
    if len(state.tables) < 2:
        return
    if breaks_table(table_counts(state), table_id, seats_per_table):
        for player, to_table, seat in break_table(table_id, state.tables, seats_per_table, rec.draw()):
            rec.emit(PlayerMoved(player, table_id, to_table, seat, state.chips[player], rec.now))
        rec.emit(TableBroken(table_id, rec.now))
        return
    while moves_a_player(table_counts(state), table_id):
        player = player_to_move(list(state.tables[table_id].values()), rec.draw())
        seat = draw_empty_seat(state.tables, seats_per_table, rec.draw(), excluding=(table_id,))
        assert seat is not None
        rec.emit(PlayerMoved(player, table_id, seat[0], seat[1], state.chips[player], rec.now))


# --- cancellation -----------------------------------------------------------------------------------------

def _cancel(state: TournamentState, cmd: CancelTournament) -> _Recorder:
    config = _not_over(state)
    by = _text(cmd.by, "by", MAX_BY_CHARS, required=True)
    reason = _text(cmd.reason, "reason", MAX_REASON_CHARS, required=False)
    rec = _Recorder(state, cmd.now_ms, None)
    if state.status is Status.REGISTERING:
        refunds = tuple((player, config.buy_in + config.fee) for player in state.registered)
        rec.emit(TournamentCancelled(by, reason, refunds, (), cmd.now_ms))
        return rec
    pool = state.pool if state.prizes is not None else entries_total(state) * config.buy_in
    left = players_left(state)
    already_won = state.prizes[left - 1] if state.prizes is not None and left <= len(state.prizes) else 0
    payouts = cancellation_payouts(pool - sum(state.prizes_won.values()),
                                   {player: state.chips[player] for player in state.seat_of}, already_won,
                                   config.cancellation_payout is CancellationPayout.EQUAL, rec.draw())
    rec.emit(TournamentCancelled(by, reason, (), tuple(sorted(payouts.items())), cmd.now_ms))
    return rec


_HANDLERS: dict[type, Callable[[TournamentState, Any], list[Any] | _Recorder]] = {
    CreateTournament: _create, Register: _register, Unregister: _unregister, ReEnter: _re_enter,
    StartTournament: _start_tournament, AdvanceLevel: _advance_level, DealTableHand: _deal,
    EndTableHand: _end_hand, CancelTournament: _cancel,
}


def decide(state: TournamentState, command: Any) -> list[Any]:
    """The events ``command`` causes in ``state``, or a TournamentError saying why it is refused."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedTournamentCommand("command", f"unknown command {type(command).__name__}")
    result = handler(state, command)
    return result.close() if isinstance(result, _Recorder) else result


def execute(state: TournamentState, command: Any) -> tuple[list[Any], TournamentState]:
    """``decide`` and the state after its events in one step."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedTournamentCommand("command", f"unknown command {type(command).__name__}")
    result = handler(state, command)
    if isinstance(result, _Recorder):
        return result.close(), result.state
    return result, replay(result, state)


def execute_then(
    state: TournamentState, command: Any, then: Callable[[TournamentState], Any | None]
) -> tuple[list[Any], TournamentState]:
    """``execute(state, command)``, then the command ``then(state after it)`` (unless None) against the
    state its events left: the events of both as one change (one append), and the state after them; the
    second refused, the first's alone.  The same events as the two decided one after the other."""
    events, after = execute(state, command)
    follow = then(after)
    if follow is None:
        return events, after
    try:
        more = decide(after, follow)
    except TournamentError:
        return events, after
    for event in more:  # onto ``after``: execute's own copy, nobody else holds it
        apply_in_place(after, event)
    return [*events, *more], after
