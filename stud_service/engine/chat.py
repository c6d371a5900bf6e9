"""The table chat (docs/chat.md): what ``decide`` answers to the chat's commands, and how ``evolve`` applies
the chat's events.

The chat's events are the table's, in its log: ordered with its play (a hand's history shows what was said
during it), delivered by the same watch streams, and refused by the same rules on every replica: the rate
limit counts the messages the log holds, not a replica's memory.
"""

from __future__ import annotations

from typing import Any

from stud_service.engine.commands import DeleteChat, MuteChat, SendChat
from stud_service.engine.errors import (
    ChatMessageNotFound,
    ChatMuted,
    ChatNamesCard,
    ChatRateLimited,
    ChatSilencedAllIn,
    ChatSpectatorsSilent,
    ChatTextRefused,
    MalformedCommand,
    NoTable,
)
from stud_service.engine.events import ChatMessageDeleted, ChatMessageSent, ChatMuteSet
from stud_service.engine.rules.chat import (
    MAX_CHAT_CHARS,
    MAX_CHAT_REASON_CHARS,
    chat_names_a_card,
    chat_rate_allows,
    chat_recent,
    chat_retry_after_ms,
    chat_silenced_by_all_in,
    chat_text_problem,
)
from stud_service.engine.state import ChatState, TableState

MAX_PLAYER_ID_CHARS = 128


def _table(state: TableState) -> None:
    if state.config is None:
        raise NoTable("there is no table yet: create it first")


def _player_id(value: object, field: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_PLAYER_ID_CHARS or not value.isprintable():
        raise MalformedCommand(field, f"a player id is 1..{MAX_PLAYER_ID_CHARS} printable characters")
    return value


def _reason(value: object) -> str:
    """An operator's reason: plain text, 1..MAX_CHAT_REASON_CHARS characters."""
    if not isinstance(value, str) or len(value) > MAX_CHAT_REASON_CHARS \
            or chat_text_problem(value) is not None:
        raise MalformedCommand("reason", f"a reason is plain text of 1..{MAX_CHAT_REASON_CHARS} characters,"
                                         " without control characters")
    return value


# --- decide ------------------------------------------------------------------------------------------

def send_chat(state: TableState, cmd: SendChat) -> list[Any]:
    """A message, or the refusal that says why not: the text first (whoever sends it), then who may write
    now (muted, spectators, the all-in silence), cards during a hand, and the rate limit last."""
    _table(state)
    config = state.config
    assert config is not None
    player = _player_id(cmd.player_id, "player_id")
    problem = chat_text_problem(cmd.text)
    if problem is not None:
        raise ChatTextRefused(problem, MAX_CHAT_CHARS)
    chat = state.chat
    if player in chat.muted:
        raise ChatMuted("an operator muted you at this table")
    seat = state.seat_of(player)
    if seat is None and not config.chat_spectators:
        raise ChatSpectatorsSilent("only the players seated at this table may write in its chat")
    hand = state.hand
    if hand is not None:
        own = hand.players.get(seat) if seat is not None else None
        someone_all_in = any(p.all_in and not p.folded for p in hand.players.values())
        if chat_silenced_by_all_in(config.chat_all_in_silence, own is not None and not own.folded,
                                   someone_all_in):
            raise ChatSilencedAllIn("a player is all-in: the players still in the hand may not chat until"
                                    " it ends")
        if chat_names_a_card(cmd.text):
            raise ChatNamesCard("while a hand runs, the chat may not name cards (such as As, 10h or a suit"
                                " sign)")
    sent = chat.sent.get(player, ())
    if not chat_rate_allows(sent, cmd.now_ms):
        wait = chat_retry_after_ms(sent, cmd.now_ms)
        raise ChatRateLimited(f"too many messages: wait {wait} ms", wait)
    return [ChatMessageSent(chat.messages + 1, player, seat, cmd.text, cmd.now_ms)]


def mute_chat(state: TableState, cmd: MuteChat) -> list[Any]:
    """Mute (or unmute) a player at this table; nothing when they already are (or are not)."""
    _table(state)
    player = _player_id(cmd.player_id, "player_id")
    by = _player_id(cmd.by, "by")
    reason = _reason(cmd.reason)
    if not isinstance(cmd.muted, bool):
        raise MalformedCommand("muted", "muted is true or false")
    if (player in state.chat.muted) == cmd.muted:
        return []
    return [ChatMuteSet(player, cmd.muted, by, reason, cmd.now_ms)]


def delete_chat(state: TableState, cmd: DeleteChat) -> list[Any]:
    """Delete a message sent at this table; nothing when it is deleted already."""
    _table(state)
    by = _player_id(cmd.by, "by")
    reason = _reason(cmd.reason)
    number = cmd.number
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number <= state.chat.messages:
        raise ChatMessageNotFound(f"this table has no chat message {number!r}")
    if number in state.chat.deleted:
        return []
    return [ChatMessageDeleted(number, by, reason, cmd.now_ms)]


CHAT_DECIDE: dict[type, Any] = {SendChat: send_chat, MuteChat: mute_chat, DeleteChat: delete_chat}


# --- evolve ------------------------------------------------------------------------------------------

def _message_sent(state: TableState, e: ChatMessageSent) -> None:
    chat = state.chat
    # Only the times that may still count against the rate limit are kept: the state stays small.
    sent = {player: recent for player, times in chat.sent.items() if (recent := chat_recent(times, e.at_ms))}
    sent[e.player_id] = (*sent.get(e.player_id, ()), e.at_ms)
    state.chat = ChatState(e.number, chat.muted, chat.deleted, sent)


def _message_deleted(state: TableState, e: ChatMessageDeleted) -> None:
    chat = state.chat
    state.chat = ChatState(chat.messages, chat.muted, chat.deleted | {e.number}, chat.sent)


def _mute_set(state: TableState, e: ChatMuteSet) -> None:
    chat = state.chat
    muted = chat.muted | {e.player_id} if e.muted else chat.muted - {e.player_id}
    state.chat = ChatState(chat.messages, muted, chat.deleted, chat.sent)


CHAT_APPLY: dict[type, Any] = {
    ChatMessageSent: _message_sent,
    ChatMessageDeleted: _message_deleted,
    ChatMuteSet: _mute_set,
}
