// Where a tournament stands and where the caller stands in it, drawn from a Tournament and a TournamentView:
// shared by the tournament's page and the panel above a tournament table.
import { requestId, tournaments } from "./api";
import { h } from "./dom";
import { tableId } from "./format";
import type { Tournament, TournamentView } from "./gen/stud/v1/tournament_pb";
import { TournamentState } from "./gen/stud/v1/tournament_pb";
import { principal } from "./session";
import { chips, countdown, levelStakes, levelText, ordinal, prizeMoney, stateName } from "./tournament_format";

/** State, level and stakes, the countdown to the next level, players left, average stack, prize pool. */
export function standing(tournament: Tournament): HTMLElement {
  const running = tournament.state === TournamentState.RUNNING;
  const clock = running ? tournament.clock : undefined;
  const facts: (Node | string)[] = [h("span", { "data-testid": "tournament-state" }, stateName(tournament.state))];
  if (clock !== undefined) {
    facts.push(" · ", h("span", { "data-testid": "tournament-level" }, levelText(clock)));
    const stakes = levelStakes(clock.stakes);
    if (stakes) facts.push(" · ", h("span", { "data-testid": "tournament-stakes" }, stakes));
    facts.push(" · ", countdown(tournament, "level-countdown"));
  }
  if (tournament.handForHand) facts.push(" · ", h("strong", {}, "Hand for hand"));
  const counts: (Node | string)[] = running
    ? [h("span", { "data-testid": "players-left" }, `${tournament.playersLeft} of ${tournament.entrants} players left`),
      " · ", h("span", { "data-testid": "average-stack" }, `average stack ${chips(tournament.averageStack)}`)]
    : [h("span", { "data-testid": "players-left" }, `${tournament.entrants}/${tournament.maxEntrants} registered`)];
  counts.push(" · ", h("span", { "data-testid": "prize-pool" }, tournament.playMoney ? "play money"
    : `prize pool ${prizeMoney(tournament, tournament.prizePool)}`));
  if (tournament.winner) counts.push(" · ", h("span", { "data-testid": "winner" }, `won by ${tournament.winner}`));
  return h("div", { class: "standing" }, h("p", {}, facts), h("p", {}, counts));
}

/** The caller's rank, stack, place and prize; null when they have not entered. */
export function standingOfPlayer(view: TournamentView): HTMLElement | null {
  const tournament = view.tournament;
  if (!view.registered || tournament === undefined) return null;
  const parts: (Node | string)[] = [];
  if (view.rank > 0) {
    parts.push(h("strong", { "data-testid": "tournament-rank" }, `Rank ${view.rank} of ${tournament.playersLeft}`),
      ` · your stack ${chips(view.stack)} after your table's last hand`);
  } else if (view.place !== undefined) {
    const shared = view.place.lastPlace > view.place.place ? ` (shared to ${ordinal(view.place.lastPlace)})` : "";
    parts.push(h("strong", { "data-testid": "tournament-place" }, `You finished ${ordinal(view.place.place)}${shared}`));
  } else {
    parts.push(h("strong", { "data-testid": "tournament-registered" }, "You are registered"));
  }
  if (view.prize > 0n) parts.push(` · prize ${prizeMoney(tournament, view.prize)}`);
  return h("p", { class: "you", "data-testid": "tournament-you" }, parts);
}

export interface Registration {
  /** The reply's view: the caller's registration, and their table if it started the tournament. */
  done(view: TournamentView | undefined): void | Promise<void>;
  refused(error: unknown): void;
}

/**
 * What a player may do about a tournament from the lobby or its page: go to their table once seated; else
 * Register while registration is open, or Unregister before the start. Test ids end with `suffix`.
 */
export function registrationControls(tournament: Tournament, view: TournamentView | undefined, suffix: string,
  signal: AbortSignal, registration: Registration): Node | null {
  if (view?.table) {
    return h("a", { href: `#/tables/${encodeURIComponent(tableId(view.table))}`, "data-testid": `my-table${suffix}` },
      "Go to your table");
  }
  const me = principal();
  if (me === null || me.role !== "player") return null;
  const name = tournament.name;
  const button = (label: string, testid: string, run: () => Promise<{ view?: TournamentView }>): HTMLElement => {
    const element = h("button", { type: "button", "data-testid": `${testid}${suffix}`, onclick: async () => {
      element.disabled = true;  // one request per click; a retry is a new click
      try {
        await registration.done((await run()).view);
      } catch (error) {
        if (signal.aborted) return;
        registration.refused(error);
        element.disabled = false;
      }
    } }, label);
    return element;
  };
  if (view?.registered && tournament.state === TournamentState.REGISTERING) {
    return button("Unregister", "unregister",
      () => tournaments.unregisterTournament({ name, requestId: requestId() }, { signal }));
  }
  if (tournament.registrationOpen && !view?.registered) {
    return button("Register", "register",
      () => tournaments.registerTournament({ name, requestId: requestId() }, { signal }));
  }
  return null;
}
