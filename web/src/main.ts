/*
 * The web table: the lobby, a table to watch and play, and the hand replayer, talking to the service only
 * through its published API (TableService, AuditService) over the Connect protocol.
 *
 * Routes (in the fragment, so the service serves one page): #/ the lobby, #/tables/{id} a table,
 * #/tables/{id}/hands its hands, #/tables/{id}/hands/{n} the replayer, #/tournaments/{id} a tournament (a player in
 * it who opens it is taken to their table), #/tournaments/{id}/info the same page, staying there;
 * any of them may end in ?token=JWT.
 *
 * Hooks for browser tests (data-testid unless said otherwise; stable: change them with the tests):
 *   login-form, login-token, login-submit, login-error, logged-in (data-player), logout
 *   lobby, lobby-refresh, lobby-table-{id}, open-table-{id}, seated-{id}, game-{id} (the game, or a mixed
 *   table's rotation) with current-game-{id} (a mixed table's game now and what follows)
 *   tournaments, tournaments-refresh, lobby-tournament-{id}, open-tournament-{id}, tournament-state-{id},
 *   tournament-level-{id}, tournament-countdown-{id}, tournament-entrants-{id}, register-{id}, unregister-{id},
 *   my-table-{id}; a countdown has data-seconds (the seconds left on the server's clock)
 *   a tournament's page: tournament-facts, register, unregister, my-table, tournament-tables with
 *   watch-table-{table id}, tournament-places; at a tournament's table, tournament-panel with tournament-name
 *   (a link to the tournament's page); both: tournament-state, tournament-level, tournament-stakes,
 *   level-countdown, players-left, average-stack, prize-pool, winner, tournament-you with tournament-rank,
 *   tournament-place or tournament-registered
 *   table-title, table-facts (data-version: the view's table version, never shown) with game-name; table-info
 *   (a details) with table-info-list; sound-toggle (aria-pressed)
 *   felt, seats, seat-{N} (data-player when occupied; class "to-act" on the seat to act), seat-{N}-player,
 *   seat-{N}-stack, seat-{N}-cards, seat-{N}-bet (data-amount), seat-{N}-clock (the countdown bar on the seat
 *   to act: data-seconds, data-clock); sit-here-{N}, sit-down-form, sit-seat, sit-buy-in, sit-down
 *   a card the page was sent: .card[data-card="As"]; a card it was not: .card.back (no data-card)
 *   hand, hand-number, street, pot-total ("Pot $x + bets $y"), pots and pot-{i} (side pots), result,
 *   last-result (data-hand) with downloads: download-pokerstars, download-phh; action-clock, announcer (the
 *   aria-live region), event-log (li[data-version]), connection (data-state: live | reconnecting | stopped)
 *   actions (data-turn: the view's turn) with buttons [data-action="CALL"] (the ActionType name, and
 *   data-amount), or before the turn pre-actions: pre-check-fold, pre-call-any, pre-fold-any (checkboxes);
 *   seat-controls with sit-in, sit-out, top-up-open, leave (leave-confirm, leave-cancel)
 *   error (data-reason: the ErrorInfo reason; data-code: the status code's name)
 *   current-game (above the felt: data-game, the Variant name of the game now; data-hands-left) with
 *   current-game-name, game-coming and game-hints (li[data-hint="bring-in" | "first-to-act" | "winner"])
 *   open-replayer, hands (hands-need-login without a token), hand-{n} (data-game); replay-game (data-game),
 *   replay-prev, replay-next,
 *   replay-prev-street, replay-next-street, replay-streets (data-street), replay-step (data-index),
 *   verification, verify-checks, shuffle, commitment, server-seed, deck-root, cards-checked, shuffle-order;
 *   [data-passed] on each verdict
 */
import { fill, h } from "./dom";
import { showLobby } from "./lobby";
import { showLogin } from "./login";
import { showHands, showReplay } from "./replayer";
import { logIn } from "./session";
import { showTable } from "./table";
import { showTournament } from "./tournament_page";

const main = document.getElementById("main")!;
const login = document.getElementById("login")!;
let current = new AbortController();
let routed = false;

/** A link may carry a token in its fragment (`#/tables/t1?token=...`, as the demo prints one for spectators):
 * the page keeps it for the tab, as if pasted into the login form, and drops it from the address bar. */
function takeLinkToken(): void {
  const [path, query] = location.hash.split("?", 2);
  if (query === undefined) return;
  const jwt = new URLSearchParams(query).get("token");
  if (jwt) logIn(jwt);
  history.replaceState(null, "", `${location.pathname}${location.search}${path}`);
}

function route(): void {
  takeLinkToken();
  current.abort();
  current = new AbortController();
  showLogin(login, route);
  const path = decodeURIComponent(location.hash.replace(/^#/, "")) || "/";
  const match = /^\/tables\/([a-z0-9-]+)(?:\/hands(?:\/(\d+))?)?\/?$/.exec(path);
  const tournament = /^\/tournaments\/([a-z0-9-]+)(\/info)?\/?$/.exec(path);
  if (path === "/") {
    showLobby(main, current.signal);
  } else if (match && path.includes("/hands/")) {
    showReplay(main, match[1], match[2], current.signal);
  } else if (match && path.includes("/hands")) {
    showHands(main, match[1], current.signal);
  } else if (match) {
    showTable(main, match[1], current.signal);
  } else if (tournament) {
    showTournament(main, tournament[1], tournament[2] === undefined, current.signal);
  } else {
    fill(main, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Back to the tables")));
  }
  // After a move within the page, keyboard and screen-reader users continue from the new content.
  if (routed) main.focus();
  routed = true;
}

window.addEventListener("hashchange", route);
route();
