// The table as the caller may see it (kept current by watch.ts), laid out as a card room's: the oval with its
// seats (seats.ts), the action clock as a bar on the seat to act, and below it the player's buttons, or the
// pre-actions before their turn. Seated players act with buttons built from the view's legal actions, on the
// view's turn.
import { durationMs, timestampDate } from "@bufbuild/protobuf/wkt";
import { requestId, tables } from "./api";
import { fill, h, redraw } from "./dom";
import { refusalAlert, refusalOf } from "./errors";
import { actionName, money, seatName } from "./format";
import { gameBanner } from "./games";
import type { TableEvent } from "./gen/stud/v1/events_pb";
import { ActionType, ClockKind, type LegalAction, type TableView } from "./gen/stud/v1/table_pb";
import { chatPanel } from "./chat";
import { ServerClock } from "./clock";
import { perFrame } from "./frames";
import { historyDownloads } from "./history";
import { latencyMeter } from "./latency";
import { chipsOnScreen, gatherInto } from "./motion";
import { narrate } from "./narrate";
import { lasts, type PreAction, preActionBoxes, preActionChoice } from "./preactions";
import { handSummary, resultList, type SeatHooks, tableOval } from "./seats";
import { principal } from "./session";
import { sitDownForm } from "./sitdown";
import { soundToggle, sounds } from "./sounds";
import { gameFacts } from "./table_head";
import { tableInfoPanel } from "./table_info";
import { seatControls } from "./table_seat";
import { tournamentPanel } from "./tournament_panel";
import { watchTable } from "./watch";

const LOG_LINES = 40;
// The clock "runs low" from here on: the bar turns urgent, and the player hears it once.
const LOW_SECONDS = 5;

function actionLabel(action: LegalAction, currency: string): string {
  const amount = money(action.amount, currency);
  switch (action.type) {
    case ActionType.FOLD: return "Fold";
    case ActionType.CHECK: return "Check";
    case ActionType.CALL: return `Call ${amount}`;
    case ActionType.BRING_IN: return `Bring in ${amount}`;
    case ActionType.COMPLETE: return `Complete to ${amount}`;
    case ActionType.BET: return `Bet ${amount}`;
    case ActionType.RAISE: return `Raise to ${amount}`;
    default: return actionName(action.type);
  }
}

/** Each seat's card count and bet at the last drawing of a street: more cards are newly dealt, a bigger bet's
 * chips newly put in. */
class SinceLastDrawing {
  private hand: bigint | undefined = undefined;
  private street = "";
  private cards = new Map<number, number>();
  private bets = new Map<number, bigint>();

  /** Starts a street's drawing; the first drawing of a page animates nothing. */
  hooks(view: TableView, first: boolean): Pick<SeatHooks, "newCards" | "betGrew"> {
    const street = `${view.hand?.handNumber}:${view.hand?.street}`;
    if (view.hand?.handNumber !== this.hand) { this.hand = view.hand?.handNumber; this.cards = new Map(); }
    if (street !== this.street) {
      this.street = street;
      this.bets = new Map();
    }
    return {
      newCards: (seat, count) => {
        const before = this.cards.get(seat) ?? 0;
        this.cards.set(seat, count);
        return first ? 0 : Math.max(0, count - before);
      },
      betGrew: (seat, bet) => {
        const before = this.bets.get(seat) ?? 0n;
        this.bets.set(seat, bet);
        return !first && bet > before;
      },
    };
  }
}

export function showTable(main: HTMLElement, id: string, signal: AbortSignal): void {
  const name = `tables/${id}`;
  const me = principal();
  const title = h("h1", { "data-testid": "table-title" }, id);
  // data-version: the table's log version the page shows (for tests; players are shown no internal numbers).
  const facts = h("p", { class: "facts", "data-testid": "table-facts" });
  const connection = h("span", { class: "connection", "data-testid": "connection", role: "status" }, "Connecting…");
  const clock = h("p", { class: "clock", "data-testid": "action-clock", role: "timer", "aria-live": "off" });
  const felt = h("div", { class: "felt", "data-testid": "felt" });
  const actions = h("section", { class: "actions", "data-testid": "actions", "aria-label": "Your actions" });
  const problems = h("div", { class: "problems", "data-testid": "problems" });
  const controls = seatControls(name, signal, {
    done: (reply) => { fill(problems); if (reply.view) render(reply.view); },
    refused: (error) => { if (!signal.aborted) showProblem(error); },
  });
  const sitDown = h("section", { class: "sit-down-slot" });
  // A tournament's table: the tournament above it (tournament_panel.ts), once the first view says whose it is.
  const tournamentSlot = h("div", {});
  const lastResult = h("section", { class: "last-result", "data-testid": "last-result", "aria-label": "Last hand" });
  const log = h("ol", { class: "log", "data-testid": "event-log", reversed: true });
  const announcer = h("div", { class: "visually-hidden", "aria-live": "polite", "data-testid": "announcer" });
  const info = tableInfoPanel();
  const chat = chatPanel(name, signal);
  const game = gameBanner();
  const meter = latencyMeter();
  fill(main,
    h("div", { class: "table-bar" },
      h("nav", { class: "table-nav", "aria-label": "Table" },
        h("a", { href: "#/" }, "← Tables"),
        h("a", { href: `#/tables/${encodeURIComponent(id)}/hands`, "data-testid": "open-replayer" }, "Hands played"),
        info.element, soundToggle()),
      h("div", { class: "link-state" }, connection, meter.element)),
    h("header", { class: "table-head" }, h("div", { class: "table-title" }, title, facts), controls.element),
    tournamentSlot, problems, felt, actions, sitDown,
    h("div", { class: "table-side" },
      lastResult, chat.element,
      h("details", { class: "log-box", open: true }, h("summary", {}, "Table log"), log)),
    announcer);
  // The game, prominent: right above the facts line, wherever the layout puts that.
  facts.before(game.element);

  let view: TableView | null = null;
  let actionsKey = "";
  let sitDownKey = "";
  let announced = "";
  let deadline: Date | null = null;
  let clockMs = 0;  // the whole of the clock that runs now: the action clock, or the time bank's reserve
  let warned = "";  // the turn whose low clock the player heard
  let chimed = 0n;  // the turn whose start the player heard
  let preAction: { kind: PreAction; hand: bigint } | null = null;
  let autoActed = 0n;  // the turn a pre-action acted on
  let streetKey = "";
  let logged = 0;
  const motion = new SinceLastDrawing();
  const handsDealtIn = new Set<bigint>();
  // Who sits where, for the log's lines (players who have left keep their names there).
  const names = new Map<number, string>();
  const who = (seat: number) => names.get(seat) ?? `Seat ${seat}`;

  // The deadline is the server's time (clock.ts), learnt from the events' record times.
  const serverClock = new ServerClock();

  function showClock(): void {
    const bar = felt.querySelector<HTMLElement>(".clock-bar");
    if (deadline === null) { clock.textContent = ""; delete clock.dataset.clock; return; }
    const seconds = serverClock.secondsUntil(deadline);
    const seat = view?.hand?.toActSeat ?? 0;
    const mine = seat === view?.viewerSeat;
    // RULES.md section 7: once the action clock has run out, the player's time bank runs.
    const bank = view?.clock === ClockKind.TIME_BANK;
    clock.dataset.clock = bank ? "TIME_BANK" : "ACTION";
    clock.textContent = `${mine ? "Your" : `Seat ${seat}'s`} ${bank ? "time bank" : "clock"}: ${seconds} s`;
    const low = seconds <= LOW_SECONDS;
    clock.classList.toggle("urgent", low);
    clock.classList.toggle("time-bank", bank);
    if (bar) {
      const left = Math.max(0, deadline.getTime() - serverClock.now());
      const share = clockMs > 0 ? Math.min(1, left / clockMs) : 0;
      bar.dataset.seconds = String(seconds);
      bar.dataset.clock = clock.dataset.clock;
      bar.classList.toggle("urgent", low);
      bar.firstElementChild?.setAttribute("style", `width:${(share * 100).toFixed(1)}%`);
    }
    const key = `${view?.turn}:${clock.dataset.clock}`;
    if (mine && low && seconds > 0 && warned !== key) { warned = key; sounds.clockLow(); }
  }
  const tick = setInterval(showClock, 250);
  signal.addEventListener("abort", () => clearInterval(tick), { once: true });

  function showProblem(error: unknown): void {
    fill(problems, refusalAlert(error));
  }

  function render(next: TableView): void {
    // An Act's reply and the watch both carry views: never go back to an older one.
    if (view !== null && next.version < view.version) return;
    const first = view === null;
    view = next;
    facts.dataset.version = String(next.version);
    meter.show(next.roundTrip);
    if (next.table) game.show(next.table, next.hand);
    chat.view(next);
    const table = next.table;
    for (const seat of next.seats) names.set(seat.seat, seat.playerId);
    title.textContent = table?.displayName || id;
    const tournament = table?.tournament;
    if (tournament && tournamentSlot.childElementCount === 0) {
      fill(tournamentSlot, tournamentPanel(tournament.tournament, name, serverClock, signal));
    }
    if (table) { fill(facts, gameFacts(table)); info.show(table); }
    const hand = next.hand;
    if (preAction !== null && preAction.hand !== hand?.handNumber) preAction = null;
    const mine = next.seats.find((seat) => seat.seat === next.viewerSeat);
    if (hand && mine?.inHand) handsDealtIn.add(hand.handNumber);
    // The street's end: the bets drawn before slide into the pot.
    const street = `${hand?.handNumber}:${hand?.street}:${hand?.complete}`;
    const bets = street !== streetKey && !first ? chipsOnScreen(felt) : [];
    streetKey = street;
    redraw(felt, tableOval(next, [handSummary(next), clock], {
      openSeat: (seat) => openSeatButton(next, seat),
      ...motion.hooks(next, first),
    }));
    gatherInto(felt.querySelector("[data-testid=pot-total]"), bets);
    deadline = next.actionDeadline ? timestampDate(next.actionDeadline) : null;
    clockMs = clockLength(next);
    showClock();
    // The hand's result stays on show below the table while the next hand is played.
    if (hand !== undefined && unshownResult(next)) {
      lastResult.dataset.hand = String(hand.handNumber);
      const mayExport = handsDealtIn.has(hand.handNumber) || me?.role === "auditor" || me?.role === "operator";
      fill(lastResult, h("h2", {}, `Last hand (${hand.handNumber})`), resultList(next),
        mayExport && !hand.voided ? historyDownloads(id, hand.handNumber, problems, signal) : null);
    }
    renderActions(next);
    controls.show(next);
    renderSitDown(next);
    announceTurn(next);
  }

  /** Whether `next` ends a hand whose result the page has not shown yet. */
  function unshownResult(next: TableView): boolean {
    return Boolean(next.hand?.complete) && lastResult.dataset.hand !== String(next.hand?.handNumber);
  }

  /** The whole of the clock running now, in milliseconds: the bar's full width. */
  function clockLength(next: TableView): number {
    if (next.clock === ClockKind.TIME_BANK) {
      const acting = next.seats.find((seat) => seat.seat === next.hand?.toActSeat);
      return acting?.timeBank ? durationMs(acting.timeBank) : 0;
    }
    return next.table?.actionClock ? durationMs(next.table.actionClock) : 30_000;
  }

  function announceTurn(next: TableView): void {
    const toAct = next.hand && !next.hand.complete ? next.hand.toActSeat : 0;
    const key = `${next.hand?.handNumber}:${next.hand?.complete}:${next.turn}:${toAct}`;
    if (key === announced) return;
    announced = key;
    if (next.hand?.complete) {
      const results = [...resultList(next).children].map((item) => item.textContent).join("; ");
      announcer.textContent = `Hand ${next.hand.handNumber} is over: ${results}`;
      return;
    }
    if (toAct === 0) return;
    const player = next.seats.find((seat) => seat.seat === toAct)?.playerId;
    announcer.textContent = toAct === next.viewerSeat
      ? `Your turn: ${next.legalActions.map((a) => actionLabel(a, next.table?.currencyCode ?? "")).join(", ")}`
      : `${seatName(toAct, player).replace(/^s/, "S")} to act`;
  }

  /** Whether the viewer holds live cards in the running hand and may act later in it: pre-actions apply. */
  function awaitingTurn(next: TableView): boolean {
    const mine = next.seats.find((seat) => seat.seat === next.viewerSeat);
    return next.hand !== undefined && !next.hand.complete && mine !== undefined && mine.inHand && !mine.folded
      && !mine.allIn;
  }

  // Rebuilt only when the choice changes, so a focused button or box keeps its focus while other views arrive.
  function renderActions(next: TableView): void {
    const legal = next.legalActions;
    const waiting = legal.length === 0 && awaitingTurn(next);
    const key = waiting ? `pre|${next.hand?.handNumber}`
      : `${next.turn}|${legal.map((a) => `${a.type}:${a.amount}`).join(",")}`;
    if (key === actionsKey) return;
    actionsKey = key;
    actions.dataset.turn = String(next.turn);
    if (waiting) {
      fill(actions, preActionBoxes(preAction?.kind ?? null, (kind) => {
        preAction = kind === null || !next.hand ? null : { kind, hand: next.hand.handNumber };
      }));
      return;
    }
    if (legal.length === 0) {
      fill(actions, next.viewerSeat === 0 ? null : h("p", { class: "waiting" }, "Not your turn."));
      return;
    }
    const currency = next.table?.currencyCode ?? "";
    const buttons = legal.map((action) => h("button", {
      type: "button", class: `act act-${actionName(action.type).toLowerCase()}`,
      "data-action": actionName(action.type), "data-amount": String(action.amount),
      onclick: () => void act(next, action),
    }, actionLabel(action, currency)));
    // No button takes the focus by itself (a stray Enter would fold): the live region announces the turn.
    fill(actions, h("h2", {}, "Your turn"), h("div", { class: "buttons" }, buttons));
    const chosen = preAction === null ? undefined : preActionChoice(preAction.kind, legal);
    if (preAction !== null && chosen !== undefined && autoActed !== next.turn) {
      autoActed = next.turn;
      if (!lasts(preAction.kind)) preAction = null;
      void act(next, chosen);
    } else if (chimed !== next.turn) {
      chimed = next.turn;
      sounds.yourTurn();
    }
  }

  async function act(at: TableView, action: LegalAction): Promise<void> {
    for (const button of actions.querySelectorAll("button")) button.disabled = true;
    try {
      const reply = await tables.act({
        name, seat: at.viewerSeat, action: action.type, amount: action.amount, turn: at.turn, requestId: requestId(),
      }, { signal });
      fill(problems);
      if (reply.view) render(reply.view);
    } catch (error) {
      if (signal.aborted) return;
      showProblem(error);
      actionsKey = "";  // the buttons come back with the next view (or now, if the refusal changed nothing)
      if (view) renderActions(view);
    }
  }

  async function call(run: () => Promise<{ view?: TableView }>): Promise<void> {
    try {
      const reply = await run();
      fill(problems);
      if (reply.view) render(reply.view);
    } catch (error) {
      if (!signal.aborted) showProblem(error);
    }
  }

  function openSeats(next: TableView): number[] {
    const taken = new Set(next.seats.map((seat) => seat.seat));
    return Array.from({ length: next.table?.maxSeats ?? 0 }, (_, i) => i + 1).filter((seat) => !taken.has(seat));
  }

  function canSit(next: TableView): boolean {
    // A tournament's table takes no one but the players the tournament seats there.
    return me !== null && me.role === "player" && next.viewerSeat === 0 && next.table?.tournament === undefined;
  }

  function openSeatButton(next: TableView, seat: number): Node | null {
    if (!canSit(next)) return null;
    return h("button", {
      type: "button", class: "sit-here", "data-testid": `sit-here-${seat}`,
      onclick: () => {
        const select = sitDown.querySelector<HTMLSelectElement>("select[name=seat]");
        if (select) select.value = String(seat);
        sitDown.querySelector<HTMLInputElement>("input[name=buy-in]")?.focus();
      },
    }, "Sit here");
  }

  function renderSitDown(next: TableView): void {
    const table = next.table;
    const open = openSeats(next);
    const key = canSit(next) && table ? `${open.join(",")}|${table.minBuyIn}|${table.maxBuyIn}` : "";
    if (key === sitDownKey) return;
    sitDownKey = key;
    if (!key || table === undefined) { fill(sitDown); return; }
    if (open.length === 0) {
      fill(sitDown, h("p", {}, "The table is full."));
      return;
    }
    fill(sitDown, sitDownForm(table, open, (seat, buyIn) => void call(
      () => tables.sitDown({ name, seat, buyIn, requestId: requestId() }, { signal }))));
  }

  function record(event: TableEvent): void {
    if (event.recordTime) serverClock.observe(timestampDate(event.recordTime));
    if (event.event.case === "gameChanged") game.changed(event.event.value, view?.table);
    chat.event(event);
    const e = event.event;
    if (e.case === "playerSeated") names.set(e.value.seat, e.value.playerId);
    if (e.case === "handStarted") for (const player of e.value.players) names.set(player.seat, player.playerId);
    const line = narrate(event, view?.table?.currencyCode ?? "", who);
    if (!line) return;
    // Newest first, numbered from the first line this page logged (the list counts down: `reversed`).
    logged += 1;
    log.prepend(h("li", { "data-version": String(event.version), value: logged }, line));
    while (log.children.length > LOG_LINES) log.lastElementChild?.remove();
  }

  // What the lobby shows of the table (GetTable is public), for a visitor who is not logged in.
  async function showPublicSummary(): Promise<void> {
    try {
      const table = await tables.getTable({ name }, { signal });
      title.textContent = table.displayName || id;
      game.show(table);
      fill(facts, gameFacts(table));
    } catch {
      // The refusal above already says what is wrong.
    }
  }

  // The watch's views are drawn at the screen's pace (frames.ts); a hand's result always, before the next hand.
  const renderSoon = perFrame(render, (waiting: TableView, next: TableView) =>
    unshownResult(waiting) && waiting.hand?.handNumber !== next.hand?.handNumber);
  void watchTable(name, signal, {
    view: renderSoon,
    event: record,
    roundTrip: meter.show,
    connection(state, retryMs) {
      connection.dataset.state = state;
      connection.textContent = state === "live" ? "Live" : `Reconnecting in ${Math.round(retryMs / 1000)} s…`;
    },
    stopped(error) {
      connection.dataset.state = "stopped";
      connection.textContent = "Not watching";
      showProblem(error);
      if (refusalOf(error).reason === "TOKEN_MISSING") {
        problems.append(h("p", {}, "Watching a table needs a token: log in above (a player who is not seated watches as a spectator)."));
        void showPublicSummary();
      }
    },
  });
}
