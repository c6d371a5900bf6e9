// The lobby's tournaments: ListTournaments (public), refreshed every few seconds, and for a signed-in player
// their registration in each open one (GetTournamentView) with Register and Unregister. A player whose
// tournament starts while the lobby is open is taken to their table.
import { tournaments } from "./api";
import { ServerClock } from "./clock";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import { gamesText } from "./games";
import { type Tournament, TournamentState, type TournamentView } from "./gen/stud/v1/tournament_pb";
import { principal } from "./session";
import { registrationControls } from "./tournament_view";
import {
  buyInText, countdown, levelText, prizeMoney, runCountdowns, stateName, tickCountdowns, tournamentId,
} from "./tournament_format";
import { goToTable } from "./tournament_watch";
import { sleep } from "./watch";

const MAX_PAGES = 10;
const REFRESH_MS = 5_000;
// A signed-in player's registration is looked up for at most this many tournaments still open or running
// (ListTournaments does not say whether the caller is in one).
const MAX_VIEWS = 50;

export function tournamentLobby(signal: AbortSignal): HTMLElement {
  const clock = new ServerClock();
  const me = principal();
  const player = me !== null && me.role === "player";
  const body = h("tbody", {});
  const status = h("p", { class: "status", role: "status", "data-testid": "tournaments-status" }, "Loading tournaments…");
  const problems = h("div", { class: "problems" });
  // Tournaments this page saw the player registered in before they started: when one starts, to the table.
  const waiting = new Set<string>();
  let leaving = false;
  const section = h("section", { class: "tournaments", "aria-labelledby": "tournaments-title" },
    h("h1", { id: "tournaments-title" }, "Tournaments"),
    h("div", { class: "toolbar" },
      h("button", { type: "button", "data-testid": "tournaments-refresh", onclick: () => void load() }, "Refresh")),
    status, problems,
    h("div", { class: "scroll" },
      h("table", { class: "lobby", "data-testid": "tournaments" },
        h("thead", {}, h("tr", {}, ["Tournament", "Game", "State", "Level", "Next level", "Entrants", "Prize pool",
          "Buy-in", ""].map((title) => h("th", { scope: "col" }, title)))),
        body)));
  runCountdowns(body, clock, signal);

  function controls(tournament: Tournament, view: TournamentView | undefined): Node | null {
    return registrationControls(tournament, view, `-${tournamentId(tournament)}`, signal, {
      async done(reply) {
        fill(problems);
        if (reply?.table) { leaving = true; await goToTable(reply.table, signal); return; }
        await load();
      },
      refused(error) { fill(problems, refusalAlert(error)); void load(); },
    });
  }

  function row(tournament: Tournament, view: TournamentView | undefined): HTMLElement {
    const id = tournamentId(tournament);
    const stakes = tournament.clock?.stakes;
    return h("tr", { "data-testid": `lobby-tournament-${id}` },
      h("td", {}, h("a", { href: `#/tournaments/${encodeURIComponent(id)}`, "data-testid": `open-tournament-${id}` },
        tournament.displayName || id)),
      h("td", {}, gamesText(tournament)),
      h("td", { "data-testid": `tournament-state-${id}` }, stateName(tournament.state),
        view?.registered ? h("span", { class: "badge" }, "registered") : null),
      h("td", { "data-testid": `tournament-level-${id}` }, levelText(tournament.clock),
        stakes ? ` (${stakes.smallBet}/${stakes.bigBet})` : ""),
      h("td", {}, countdown(tournament, `tournament-countdown-${id}`)),
      h("td", { "data-testid": `tournament-entrants-${id}` }, `${tournament.entrants}/${tournament.maxEntrants}`),
      h("td", {}, tournament.playMoney ? "—" : prizeMoney(tournament, tournament.prizePool)),
      h("td", {}, buyInText(tournament)),
      h("td", {}, controls(tournament, view)));
  }

  async function views(found: Tournament[]): Promise<Map<string, TournamentView>> {
    const open = found.filter((t) => t.state === TournamentState.REGISTERING || t.state === TournamentState.RUNNING)
      .slice(0, MAX_VIEWS);
    const settled = await Promise.allSettled(open.map((t) => tournaments.getTournamentView({ name: t.name }, { signal })));
    const byName = new Map<string, TournamentView>();
    settled.forEach((result, index) => { if (result.status === "fulfilled") byName.set(open[index].name, result.value); });
    return byName;
  }

  async function load(): Promise<void> {
    try {
      const found: Tournament[] = [];
      let pageToken = "";
      for (let page = 0; page < MAX_PAGES; page++) {
        const response = await tournaments.listTournaments({ pageSize: 100, pageToken },
          { signal, onHeader: (headers) => clock.observeDateHeader(headers) });
        found.push(...response.tournaments);
        pageToken = response.nextPageToken;
        if (!pageToken) break;
      }
      const mine = player ? await views(found) : new Map<string, TournamentView>();
      if (signal.aborted || leaving) return;
      const started = [...mine.values()].find((view) => view.table && waiting.has(view.tournament?.name ?? ""));
      for (const [name, view] of mine) if (view.registered && !view.table) waiting.add(name);
      fill(body, found.map((t) => row(t, mine.get(t.name))));
      tickCountdowns(body, clock);
      status.textContent = found.length === 0 ? "No tournaments yet."
        : `${found.length} tournament${found.length === 1 ? "" : "s"}.`;
      if (started) { leaving = true; await goToTable(started.table, signal); }
    } catch (error) {
      if (!signal.aborted) fill(status, refusalAlert(error));
    }
  }

  void (async () => {
    while (!signal.aborted) {
      await load();
      await sleep(REFRESH_MS, signal);
    }
  })();
  return section;
}
