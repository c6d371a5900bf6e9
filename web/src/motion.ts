// Short animations: cards dealt slide in (CSS, class "dealt"), and at the end of a street the bets in front of
// the seats slide into the pot. None at all for a person who asked for reduced motion.
export function reducedMotion(): boolean {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

const GATHER_MS = 350;

/** The chips drawn now, where they are on the screen: taken before the seats are drawn again. */
export function chipsOnScreen(root: Element): { chip: Element; box: DOMRect }[] {
  return [...root.querySelectorAll(".chips")].map((chip) => ({ chip, box: chip.getBoundingClientRect() }));
}

/** Copies of `chips` slide from where they were into `pot`, then go. */
export function gatherInto(pot: Element | null, chips: { chip: Element; box: DOMRect }[]): void {
  if (pot === null || chips.length === 0 || reducedMotion()) return;
  const target = pot.getBoundingClientRect();
  for (const { chip, box } of chips) {
    const copy = chip.cloneNode(true) as HTMLElement;
    copy.removeAttribute("data-testid");
    copy.setAttribute("aria-hidden", "true");
    copy.classList.add("gathering");
    Object.assign(copy.style, { position: "fixed", left: `${box.left}px`, top: `${box.top}px`, transform: "none" });
    document.body.append(copy);
    const dx = target.left + target.width / 2 - (box.left + box.width / 2);
    const dy = target.top + target.height / 2 - (box.top + box.height / 2);
    const flight = copy.animate(
      [{ transform: "translate(0, 0)", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px)`, opacity: 0.2 }],
      { duration: GATHER_MS, easing: "ease-in" });
    flight.onfinish = () => copy.remove();
    flight.oncancel = () => copy.remove();
  }
}
