// A tournament's words and numbers as the page shows them. Money (buy-in, fee, prize pool, prizes) is in the
// tournament's currency; chips (stacks, stakes) are tournament chips, shown as plain numbers.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServerClock } from "./clock";
import { h } from "./dom";
import { money, stakesText } from "./format";
import {
  type Tournament, type TournamentClock, TournamentKind, type TournamentLevel, TournamentState,
} from "./gen/stud/v1/tournament_pb";

const STATES: Record<TournamentState, string> = {
  [TournamentState.UNSPECIFIED]: "unknown",
  [TournamentState.REGISTERING]: "Registering",
  [TournamentState.RUNNING]: "Running",
  [TournamentState.FINISHED]: "Finished",
  [TournamentState.CANCELLED]: "Cancelled",
};

export function stateName(state: TournamentState): string {
  return STATES[state] ?? "unknown";
}

export function kindName(kind: TournamentKind): string {
  return kind === TournamentKind.SCHEDULED ? "Scheduled" : "Sit & go";
}

/** "t1" of "tournaments/t1". */
export function tournamentId(tournament: Tournament | string): string {
  const name = typeof tournament === "string" ? tournament : tournament.name;
  return name.replace(/^tournaments\//, "");
}

export function chips(amount: bigint): string {
  return money(amount, "");
}

/** Money of the tournament (buy-in, prizes): in its currency, or play money. */
export function prizeMoney(tournament: Tournament, amount: bigint): string {
  return tournament.playMoney || !tournament.currencyCode ? `${chips(amount)} (play money)`
    : money(amount, tournament.currencyCode);
}

export function buyInText(tournament: Tournament): string {
  if (tournament.playMoney || !tournament.currencyCode) return "Free (play money)";
  return `${money(tournament.buyIn, tournament.currencyCode)} + ${money(tournament.fee, tournament.currencyCode)}`;
}

/** "Level 3", "Break after level 5"; "" before the start and after the end. */
export function levelText(clock: TournamentClock | undefined): string {
  if (clock === undefined) return "";
  return clock.isBreak ? `Break after level ${clock.level}` : `Level ${clock.level}`;
}

/** The level's stakes in chips, "" at a break. */
export function levelStakes(stakes: TournamentLevel["stakes"]): string {
  return stakes === undefined ? "" : stakesText(stakes, "");
}

/** "4:05", "1:02:03". */
export function durationText(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/**
 * The time left in the level running, counted down on the server's clock by `tickCountdowns`: an element with
 * data-end-ms (the level's end) and data-label ("Next level in"). Empty when no level ends (before the start,
 * the last level, after the end).
 */
export function countdown(tournament: Tournament, testid: string): HTMLElement {
  const clock = tournament.state === TournamentState.RUNNING ? tournament.clock : undefined;
  const element = h("span", { class: "countdown", role: "timer", "aria-live": "off", "data-testid": testid });
  if (clock === undefined) return element;
  if (clock.endTime === undefined) {
    element.textContent = "Last level";
    return element;
  }
  const next = tournament.levels[clock.index + 1];
  element.dataset.endMs = String(timestampDate(clock.endTime).getTime());
  element.dataset.label = clock.isBreak ? "Play resumes in" : next?.isBreak ? "Break in" : "Next level in";
  return element;
}

/** Brings every countdown inside `root` to the server's time now. */
export function tickCountdowns(root: Element, clock: ServerClock): void {
  for (const element of root.querySelectorAll<HTMLElement>("[data-end-ms]")) {
    const seconds = clock.secondsUntil(new Date(Number(element.dataset.endMs)));
    element.dataset.seconds = String(seconds);
    element.textContent = `${element.dataset.label} ${durationText(seconds)}`;
  }
}

/** Ticks the countdowns inside `root` every half second until `signal` aborts. */
export function runCountdowns(root: Element, clock: ServerClock, signal: AbortSignal): void {
  tickCountdowns(root, clock);
  const timer = setInterval(() => tickCountdowns(root, clock), 500);
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
}

/** "1st", "2nd", "3rd", "11th". */
export function ordinal(place: number): string {
  const tens = place % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][place % 10] ?? "th";
  return `${place}${suffix}`;
}
