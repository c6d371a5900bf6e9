// The hand replayer: AuditService.ListHands for the table, ReplayHand of one hand stepped through event by
// event and street by street, and the hand's verification (VerifyHand) and shuffle evidence (VerifyShuffle).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { audit, tables } from "./api";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import { money, streetName, variantName } from "./format";
import type { HandSummary, ReplayStep } from "./gen/stud/v1/audit_pb";
import type { VerifyHandResponse, VerifyShuffleResponse } from "./gen/stud/v1/audit_service_pb";
import { Street, Variant } from "./gen/stud/v1/table_pb";
import { narrate } from "./narrate";
import { handSummary, tableOval } from "./seats";
import { principal } from "./session";

const MAX_PAGES = 10;

export function showHands(main: HTMLElement, id: string, signal: AbortSignal): void {
  const back = h("p", {}, h("a", { href: `#/tables/${encodeURIComponent(id)}` }, "← Table"));
  if (principal() === null) {
    fill(main, back, h("h1", {}, `Hands at ${id}`),
      h("p", { "data-testid": "hands-need-login" }, "The hand histories need a token: log in above (a player sees the hands they played)."));
    return;
  }
  const list = h("ol", { class: "hands", "data-testid": "hands" });
  const status = h("p", { role: "status" }, "Loading hands…");
  fill(main, back, h("h1", {}, `Hands at ${id}`), status, list);
  void (async () => {
    try {
      // The pots in the table's currency, as the table shows them (GetTable is public).
      const currency = (await tables.getTable({ name: `tables/${id}` }, { signal })).currencyCode;
      const hands: HandSummary[] = [];
      let pageToken = "";
      for (let page = 0; page < MAX_PAGES; page++) {
        const reply = await audit.listHands({ parent: `tables/${id}`, pageSize: 200, pageToken }, { signal });
        hands.push(...reply.hands);
        pageToken = reply.nextPageToken;
        if (!pageToken) break;
      }
      status.textContent = hands.length === 0 ? "No hands you may see at this table yet." : `${hands.length} hands.`;
      fill(list, hands.map((hand) => {
        const players = hand.players.map((p) => p.playerId).join(", ");
        const when = hand.startTime ? timestampDate(hand.startTime).toLocaleString() : "";
        const label = `Hand ${hand.handNumber}`;
        return h("li", { "data-testid": `hand-${hand.handNumber}`, "data-game": Variant[hand.variant] },
          hand.complete
            ? h("a", { href: `#/tables/${encodeURIComponent(id)}/hands/${hand.handNumber}` }, label)
            : h("span", {}, `${label} (still running)`),
          ` · ${variantName(hand.variant)} · ${when} · ${players}${hand.complete ? ` · pot ${money(hand.pot, currency)}` : ""}`);
      }));
    } catch (error) {
      if (!signal.aborted) fill(status, refusalAlert(error));
    }
  })();
}

/** The index of the first step of each street, in the order the hand went through them. */
function streetStarts(steps: ReplayStep[]): { street: Street; start: number }[] {
  const starts: { street: Street; start: number }[] = [];
  steps.forEach((step, index) => {
    const street = step.state?.hand?.street ?? Street.UNSPECIFIED;
    if (starts.length === 0 || starts[starts.length - 1].street !== street) starts.push({ street, start: index });
  });
  return starts;
}

export function showReplay(main: HTMLElement, id: string, handNumber: string, signal: AbortSignal): void {
  const name = `tables/${id}/hands/${handNumber}`;
  const status = h("p", { role: "status" }, "Loading the hand…");
  const streets = h("ol", { class: "streets", "data-testid": "replay-streets", "aria-label": "Streets" });
  // RULES.md section 13: a hand is played in its own game, whatever its table plays now.
  const game = h("p", { class: "replay-game", "data-testid": "replay-game" });
  const position = h("p", { class: "step", "data-testid": "replay-step", "aria-live": "polite" });
  const board = h("div", { class: "felt" });
  const verification = h("section", { class: "verification", "data-testid": "verification", "aria-label": "Verification" });
  const shuffle = h("section", { class: "verification", "data-testid": "shuffle", "aria-label": "Shuffle" });
  const button = (label: string, testid: string, onclick: () => void) =>
    h("button", { type: "button", "data-testid": testid, onclick }, label);
  let steps: ReplayStep[] = [];
  let at = 0;
  const controls = h("div", { class: "buttons replay-controls" },
    button("« Previous street", "replay-prev-street", () => go(streetStep(-1))),
    button("◀ Previous", "replay-prev", () => go(at - 1)),
    button("Next ▶", "replay-next", () => go(at + 1)),
    button("Next street »", "replay-next-street", () => go(streetStep(1))));
  for (const control of controls.querySelectorAll("button")) control.disabled = true;  // until the steps come
  fill(main,
    h("p", {}, h("a", { href: `#/tables/${encodeURIComponent(id)}/hands` }, "← Hands")),
    h("h1", {}, `Hand ${handNumber} at ${id}`),
    game, status, streets, controls, position, board, verification, shuffle);

  function streetStep(direction: 1 | -1): number {
    const starts = streetStarts(steps);
    if (starts.length === 0) return 0;  // not loaded yet
    let current = 0;
    while (current + 1 < starts.length && starts[current + 1].start <= at) current++;
    // Back: to the start of this street, or of the one before when already there.
    if (direction < 0) return starts[current].start < at ? starts[current].start : starts[Math.max(0, current - 1)].start;
    return starts[Math.min(starts.length - 1, current + 1)].start;
  }

  function go(index: number): void {
    if (steps.length === 0) return;
    at = Math.max(0, Math.min(steps.length - 1, index));
    const step = steps[at];
    const current = step.state?.hand?.street ?? Street.UNSPECIFIED;
    fill(streets, streetStarts(steps).map((s) => h("li", {
      class: s.street === current ? "current" : "", "aria-current": s.street === current ? "step" : undefined,
    }, s.street === Street.UNSPECIFIED ? "Deal" : streetName(s.street))));
    streets.dataset.street = Street[current];
    const who = (seat: number) => step.state?.seats.find((s) => s.seat === seat)?.playerId ?? `Seat ${seat}`;
    const line = step.event ? narrate(step.event, step.state?.table?.currencyCode ?? "", who) || step.event.type : "";
    position.textContent = `Event ${at + 1} of ${steps.length}: ${line}`;
    position.dataset.index = String(at);
    if (step.state) fill(board, tableOval(step.state, [handSummary(step.state)]));
    for (const testid of ["replay-prev", "replay-prev-street"]) {
      controls.querySelector<HTMLButtonElement>(`[data-testid=${testid}]`)!.disabled = at === 0;
    }
    for (const testid of ["replay-next", "replay-next-street"]) {
      controls.querySelector<HTMLButtonElement>(`[data-testid=${testid}]`)!.disabled = at === steps.length - 1;
    }
  }

  void (async () => {
    try {
      steps = (await audit.replayHand({ name }, { signal })).steps;
      const played = steps.find((step) => step.state?.hand?.game)?.state?.hand?.game ?? Variant.UNSPECIFIED;
      if (played !== Variant.UNSPECIFIED) {
        game.dataset.game = Variant[played];
        game.textContent = `Played as ${variantName(played)}`;
      }
      status.textContent = `${steps.length} events.`;
      go(0);
    } catch (error) {
      if (!signal.aborted) fill(status, refusalAlert(error));
    }
  })();
  // VerifyHand reads every card of the hand: auditors' and operators' only. A player checks the shuffle's
  // evidence below, the cards it may see.
  if (["auditor", "operator"].includes(principal()?.role ?? "")) {
    void audit.verifyHand({ name }, { signal }).then((reply) => fill(verification, verifyHandReport(reply)),
      (error) => { if (!signal.aborted) fill(verification, h("h2", {}, "Verification"), refusalAlert(error)); });
  } else {
    fill(verification, h("h2", {}, "Verification"), h("p", { "data-testid": "verification-auditors" },
      "The whole hand's verification is for auditors; the shuffle's evidence below proves the cards you may see."));
  }
  void audit.verifyShuffle({ name }, { signal }).then((reply) => fill(shuffle, shuffleReport(reply)),
    (error) => { if (!signal.aborted) fill(shuffle, h("h2", {}, "Shuffle"), refusalAlert(error)); });
}

function verdict(passed: boolean): HTMLElement {
  return h("strong", { class: passed ? "pass" : "fail", "data-passed": String(passed) }, passed ? "✔ passed" : "✘ failed");
}

function verifyHandReport(reply: VerifyHandResponse): Node[] {
  return [
    h("h2", {}, "Verification ", verdict(reply.passed)),
    h("ul", { "data-testid": "verify-checks" }, reply.checks.map((check) => h("li", { "data-check": check.check },
      `${check.check}: `, verdict(check.passed), check.message ? ` — ${check.message} (version ${check.version})` : ""))),
  ];
}

function shuffleReport(reply: VerifyShuffleResponse): (Node | null)[] {
  const row = (term: string, value: Node | string, testid?: string) =>
    [h("dt", {}, term), h("dd", { "data-testid": testid }, value)];
  const reveal = reply.serverSeed
    ? h("code", { class: "hex" }, reply.serverSeed)
    : reply.publicRevealTime
      ? `not revealed to you yet; public from ${timestampDate(reply.publicRevealTime).toLocaleString()}`
      : "not revealed to you (auditors see it)";
  const order = [reply.commitmentVersion, ...reply.clientSeedVersions, reply.handStartedVersion].join(" < ");
  return [
    h("h2", {}, "Shuffle ", verdict(reply.passed)),
    reply.message ? h("p", {}, reply.message) : null,
    h("dl", {},
      row("Commitment (SHA-256 of the server seed)", h("code", { class: "hex" }, reply.deckCommitment), "commitment"),
      row("Server seed", reveal, "server-seed"),
      row("Deck root", reply.deckRoot ? h("code", { class: "hex" }, reply.deckRoot) : "none (hand logged before proofs)", "deck-root"),
      row("Cards proven to you", `${reply.cardsChecked} checked, ${reply.proofs.length} proofs`, "cards-checked"),
      row("Order in the log (versions)", `commitment < client seeds < hand start: ${order}`, "shuffle-order"),
    ),
  ];
}
