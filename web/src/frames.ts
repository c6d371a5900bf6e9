// Drawing at the screen's pace, not the network's: a table whose hands go fast (bots, a replay catching up, a
// page that was busy) sends views quicker than a slow device can lay them out, and drawing each one in turn
// would keep the page's thread busy for as long as the table runs, deaf to the player's clicks. Only the
// newest view waiting is drawn, once per animation frame; frames stop in a hidden tab, so a timer draws it
// there instead (the turn's sound still plays).

const HIDDEN_MS = 250;

/**
 * `draw`, called with the newest value offered since the last call, at most once per animation frame (or
 * HIDDEN_MS while no frame comes). `mustDraw(waiting, next)` says a waiting value may not be skipped: it is
 * drawn at once, before `next` takes its place.
 */
export function perFrame<T>(draw: (value: T) => void, mustDraw: (waiting: T, next: T) => boolean):
  (value: T) => void {
  let waiting: { value: T } | null = null;
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    timer = undefined;
    const drawn = waiting;
    waiting = null;
    if (drawn) draw(drawn.value);
  }

  return (next: T) => {
    if (waiting && mustDraw(waiting.value, next)) flush();
    waiting = { value: next };
    if (timer === undefined) {
      frame = requestAnimationFrame(flush);
      timer = setTimeout(flush, HIDDEN_MS);
    }
  };
}
