// One line of text per event, for the table's log and the replayer.
import { cardLabel } from "./cards";
import type { TableEvent } from "./gen/stud/v1/events_pb";
import { ActionType, PotHalf } from "./gen/stud/v1/table_pb";
import { money, secondsText, streetName, variantName } from "./format";
import { gameChangedText } from "./games";

const VERBS: Record<ActionType, string> = {
  [ActionType.UNSPECIFIED]: "acts",
  [ActionType.FOLD]: "folds",
  [ActionType.CHECK]: "checks",
  [ActionType.CALL]: "calls",
  [ActionType.BRING_IN]: "brings in for",
  [ActionType.COMPLETE]: "completes to",
  [ActionType.BET]: "bets",
  [ActionType.RAISE]: "raises to",
};

const cards = (codes: number[]): string => codes.map(cardLabel).join(" ");

/** Who sits in a seat, as a line names them: the player's name when known, else "Seat 3". */
export type SeatNamer = (seat: number) => string;

const bySeatNumber: SeatNamer = (seat) => `Seat ${seat}`;

/** The event in words, amounts in the table's currency, players named by `who`; empty for an event this page
 * does not know. */
export function narrate(event: TableEvent, currency: string, who: SeatNamer = bySeatNumber): string {
  const e = event.event;
  const m = (amount: bigint): string => money(amount, currency);
  switch (e.case) {
    case "tableCreated":
      return `Table ${e.value.tableId} created`;
    case "playerSeated":
      return `${e.value.playerId} sits down in seat ${e.value.seat} with ${m(e.value.buyIn)}`;
    case "playerLeft":
      return `${e.value.playerId} leaves seat ${e.value.seat} with ${m(e.value.cashOut)}`;
    case "leaveRequested":
      return `${e.value.playerId} will leave after this hand`;
    case "playerSatOut":
      return `${who(e.value.seat)} sits out`;
    case "playerSatIn":
      return `${who(e.value.seat)} sits in`;
    case "playerToppedUp":
      return `${who(e.value.seat)} tops up ${m(e.value.amount)}`;
    case "clientSeedSet":
      return `${who(e.value.seat)} sets a client seed`;
    case "shuffleCommitted":
      return `Shuffle committed for hand ${e.value.nextHand}`;
    case "handStarted":
      return `Hand ${e.value.hand} (${variantName(e.value.game)}) starts: ${e.value.players.map((p) => `seat ${p.seat} ${p.playerId}`).join(", ")}`;
    case "antePosted":
      return `${who(e.value.seat)} posts the ante ${m(e.value.amount)}`;
    case "cardDealt": {
      const to = e.value.seat === 0 ? "The board" : who(e.value.seat);
      if (e.value.hidden) return `${to} gets a face-down card`;
      return `${to} gets ${cardLabel(e.value.card)}${e.value.faceUp ? " face up" : " face down"}`;
    }
    case "bettingRoundStarted":
      return `${streetName(e.value.street)}: ${who(e.value.firstSeat)} first to act`;
    case "playerActed": {
      const { seat, action, amount, timeout, allIn } = e.value;
      const sized = action === ActionType.FOLD || action === ActionType.CHECK ? "" : ` ${m(amount)}`;
      return `${who(seat)} ${VERBS[action] ?? "acts"}${sized}${allIn ? " (all in)" : ""}${timeout ? " (timed out)" : ""}`;
    }
    case "uncalledBetReturned":
      return `${m(e.value.amount)} returned to ${who(e.value.seat)}`;
    case "handShown": {
      const made = [e.value.high, e.value.low].filter(Boolean).join(" / ");
      return `${who(e.value.seat)} shows ${cards(e.value.cards)}${made ? `: ${made}` : ""}`;
    }
    case "handMucked":
      return `${who(e.value.seat)} mucks`;
    case "handEnded": {
      const awards = e.value.pots.flatMap((pot) => pot.awards.map((award) => {
        const half = award.potHalf === PotHalf.HIGH ? " (high)" : award.potHalf === PotHalf.LOW ? " (low)" : "";
        return `${who(award.seat)} wins ${m(award.amount)}${half}`;
      }));
      return `Hand ${e.value.hand} ends: ${awards.join(", ")}`;
    }
    case "waitingListJoined":
      return "A player joins the waiting list";
    case "waitingListLeft":
      return "A player leaves the waiting list";
    case "seatOffered":
      return `${who(e.value.seat)} is offered to the next player waiting`;
    case "tablePaused":
      return `The table is paused: ${e.value.reason}`;
    case "tableResumed":
      return `The table deals again: ${e.value.reason}`;
    case "tableClosed":
      return `The table is closed: ${e.value.reason}`;
    case "handVoided":
      return `Hand ${e.value.hand} is voided, every chip returned: ${e.value.reason}`;
    case "tableSettingsChanged":
      return `Settings changed (${e.value.fields.join(", ")}): ${e.value.reason}`;
    case "gameChanged":
      return gameChangedText(e.value);
    case "timeBankStarted":
      return `${who(e.value.seat)}'s time bank runs (${secondsText(e.value.reserve)})`;
    case "timeBankUsed":
      return `${who(e.value.seat)} used ${secondsText(e.value.used)} of its time bank (${secondsText(e.value.reserve)} left)`;
    case "timeBankRefilled":
      return `${who(e.value.seat)}'s time bank grows to ${secondsText(e.value.reserve)}`;
    default:
      return "";
  }
}
