// The tournament above one of its tables: its level and stakes, the countdown to the next level on the
// server's clock, players left and the average stack, and the caller's rank. A player moved to another table
// (balancing, a broken table) is taken there.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServerClock } from "./clock";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import type { TournamentView } from "./gen/stud/v1/tournament_pb";
import { runCountdowns, tickCountdowns, tournamentId } from "./tournament_format";
import { standing, standingOfPlayer } from "./tournament_view";
import { goToTable, watchTournament } from "./tournament_watch";

export function tournamentPanel(tournament: string, table: string, clock: ServerClock, signal: AbortSignal): HTMLElement {
  const id = tournamentId(tournament);
  const title = h("a", { href: `#/tournaments/${encodeURIComponent(id)}/info`, "data-testid": "tournament-name" }, id);
  const body = h("div", {});
  const panel = h("section", { class: "tournament-panel", "data-testid": "tournament-panel", "aria-label": "Tournament" },
    h("h2", {}, title), body);
  runCountdowns(body, clock, signal);
  let seatedHere = false;

  function show(view: TournamentView): void {
    const state = view.tournament;
    if (state === undefined) return;
    title.textContent = state.displayName || id;
    fill(body, standing(state), standingOfPlayer(view));
    tickCountdowns(body, clock);
    // Followed across moves: the player sat here and the tournament now seats them at another table.
    if (view.table === table) seatedHere = true;
    else if (seatedHere && view.table) void goToTable(view.table, signal);
  }

  void watchTournament(tournament, signal, {
    view: show,
    event(event) { if (event.time) clock.observe(timestampDate(event.time)); },
    connection() { /* the table's own connection line says whether the page is live */ },
    stopped(error) { fill(body, refusalAlert(error)); },
  });
  return panel;
}
