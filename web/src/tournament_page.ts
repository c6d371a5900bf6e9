// A tournament's page: its structure and standing, its tables (anyone may watch one), its places, and for a
// signed-in player their registration (Register, Unregister) and table. Kept current by WatchTournament with a
// token, by GetTournament every few seconds without one (the lobby is public). A player who opens a running
// tournament they are in, or whose tournament starts while the page is open, is taken to their table; the
// `/info` route (the link from a table) stays on the page.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { tournaments } from "./api";
import { ServerClock } from "./clock";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import { tableId } from "./format";
import { gamesText } from "./games";
import { type Tournament, TournamentState, type TournamentView } from "./gen/stud/v1/tournament_pb";
import { principal } from "./session";
import {
  buyInText, chips, kindName, levelStakes, ordinal, prizeMoney, runCountdowns, tickCountdowns,
} from "./tournament_format";
import { registrationControls, standing, standingOfPlayer } from "./tournament_view";
import { goToTable, watchTournament } from "./tournament_watch";
import { sleep } from "./watch";

const POLL_MS = 5_000;

function structure(tournament: Tournament): HTMLElement {
  return h("p", { class: "facts", "data-testid": "tournament-facts" },
    `${kindName(tournament.kind)} · ${gamesText(tournament)} · buy-in ${buyInText(tournament)}`
    + ` · ${chips(tournament.startingStack)} chips · ${tournament.seatsPerTable} seats a table`);
}

function tableList(tournament: Tournament, mine: string): HTMLElement | null {
  if (tournament.tables.length === 0) return null;
  return h("section", {}, h("h2", {}, "Tables"),
    h("ul", { "data-testid": "tournament-tables" }, tournament.tables.map((table) => {
      const id = tableId(table.table);
      return h("li", {}, h("a", { href: `#/tables/${encodeURIComponent(id)}`, "data-testid": `watch-table-${id}` },
        table.table === mine ? `Your table, ${id}` : `Watch ${id}`), ` · ${table.players} players`);
    })));
}

function places(tournament: Tournament): HTMLElement | null {
  if (tournament.places.length === 0) return null;
  return h("section", {}, h("h2", {}, "Places"),
    h("ol", { class: "places", "data-testid": "tournament-places" }, tournament.places.map((place) =>
      h("li", {}, `${ordinal(place.place)}: ${place.playerId}`,
        place.prize > 0n ? ` · ${prizeMoney(tournament, place.prize)}` : ""))));
}

function levels(tournament: Tournament): HTMLElement {
  const now = tournament.state === TournamentState.RUNNING ? tournament.clock?.index : undefined;
  return h("details", { class: "levels" }, h("summary", {}, "Levels"),
    h("ol", {}, tournament.levels.map((level, index) => h("li", { class: index === now ? "now" : undefined },
      level.isBreak ? "Break" : levelStakes(level.stakes),
      level.duration ? `, ${Number(level.duration.seconds) / 60} min` : ""))));
}

export function showTournament(main: HTMLElement, id: string, follow: boolean, signal: AbortSignal): void {
  const name = `tournaments/${id}`;
  const me = principal();
  const clock = new ServerClock();
  const title = h("h1", {}, id);
  const about = h("div", {});
  const you = h("section", { class: "you-box", "aria-label": "You" });
  const problems = h("div", { class: "problems", "data-testid": "problems" });
  const rest = h("div", {});
  fill(main, h("p", {}, h("a", { href: "#/" }, "← Lobby")), title, about, you, problems, rest);
  runCountdowns(about, clock, signal);
  let waitingForStart = false;
  let leaving = false;
  let shownVersion = -1n;

  function take(table: string): void {
    if (leaving) return;
    leaving = true;
    void goToTable(table, signal);
  }

  function show(tournament: Tournament | undefined, view?: TournamentView): void {
    // A call's reply and the watch both carry views: never go back to an older one.
    if (tournament === undefined || tournament.version < shownVersion) return;
    shownVersion = tournament.version;
    title.textContent = tournament.displayName || id;
    fill(about, structure(tournament), standing(tournament));
    tickCountdowns(about, clock);
    fill(you, view ? standingOfPlayer(view) : null, registrationControls(tournament, view, "", signal, {
      done(reply) {
        fill(problems);
        if (reply?.table) take(reply.table);  // the last seat of a sit & go: it started
        else if (reply) show(reply.tournament, reply);
      },
      refused(error) { fill(problems, refusalAlert(error)); },
    }));
    fill(rest, tableList(tournament, view?.table ?? ""), places(tournament), levels(tournament));
    if (view?.table && (follow || waitingForStart)) take(view.table);
    waitingForStart = Boolean(view?.registered && !view.table && tournament.state === TournamentState.REGISTERING);
  }

  if (me === null) {
    // No token: the public lobby's row, polled.
    void (async () => {
      while (!signal.aborted) {
        try {
          show(await tournaments.getTournament({ name },
            { signal, onHeader: (headers) => clock.observeDateHeader(headers) }));
        } catch (error) {
          if (!signal.aborted) fill(problems, refusalAlert(error));
        }
        await sleep(POLL_MS, signal);
      }
    })();
    return;
  }
  void watchTournament(name, signal, {
    view: (view) => show(view.tournament, view),
    event(event) { if (event.time) clock.observe(timestampDate(event.time)); },
    connection() { /* every message redraws the page; a drop is retried quietly */ },
    stopped(error) { fill(problems, refusalAlert(error)); },
  });
}
