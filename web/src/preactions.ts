// Pre-actions: what the player chooses before their turn, acted on as soon as the view gives them the turn
// (with that view's `turn`, so a choice never lands on a later turn than the one it was made for).
//   check/fold       the next turn: check when it is free, else fold
//   call any         the next turn: call whatever is bet, or check
//   fold to any bet  the rest of the hand: check when it is free, fold to any bet
// A choice that the turn does not allow (the bring-in, which may not be folded) leaves the turn to the player.
import { h } from "./dom";
import { ActionType, type LegalAction } from "./gen/stud/v1/table_pb";

export type PreAction = "check-fold" | "call-any" | "fold-any";

const CHOICES: { kind: PreAction; label: string }[] = [
  { kind: "check-fold", label: "Check/fold" },
  { kind: "call-any", label: "Call any" },
  { kind: "fold-any", label: "Fold to any bet" },
];

const PREFERENCES: Record<PreAction, ActionType[]> = {
  "check-fold": [ActionType.CHECK, ActionType.FOLD],
  "call-any": [ActionType.CALL, ActionType.CHECK],
  "fold-any": [ActionType.CHECK, ActionType.FOLD],
};

/** The legal action a pre-action takes on this turn, if it takes one. */
export function preActionChoice(kind: PreAction, legal: LegalAction[]): LegalAction | undefined {
  for (const type of PREFERENCES[kind]) {
    const action = legal.find((offered) => offered.type === type);
    if (action !== undefined) return action;
  }
  return undefined;
}

/** Whether the choice stays after it was used once (for the rest of the hand). */
export function lasts(kind: PreAction): boolean {
  return kind === "fold-any";
}

/** The three boxes, at most one ticked: `chosen` is ticked, `choose` is told of each change. */
export function preActionBoxes(chosen: PreAction | null, choose: (kind: PreAction | null) => void): HTMLElement {
  const boxes = CHOICES.map(({ kind, label }) => {
    const input = h("input", {
      type: "checkbox", id: `pre-${kind}`, "data-testid": `pre-${kind}`, checked: kind === chosen,
      onchange: (event: Event) => {
        const ticked = (event.target as HTMLInputElement).checked;
        for (const other of form.querySelectorAll("input")) if (other !== event.target) other.checked = false;
        choose(ticked ? kind : null);
      },
    });
    return h("label", { class: "pre-action", for: `pre-${kind}` }, input, " ", label);
  });
  const form = h("fieldset", { class: "pre-actions", "data-testid": "pre-actions" },
    h("legend", {}, "Before your turn"), boxes);
  return form;
}
