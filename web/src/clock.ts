// The server's time as this page can know it. Deadlines and level ends are the server's times; this browser's
// clock may run ahead or behind. Its lead over the server is at most the smallest gap seen between a time the
// server stamped (an event's record time) and the moment it arrived here, since the gap also holds the
// network's delay, never less than the lead.
export class ServerClock {
  private lead = Number.POSITIVE_INFINITY;

  /** A time the server stamped, just received. */
  observe(serverTime: Date): void {
    this.lead = Math.min(this.lead, Date.now() - serverTime.getTime());
  }

  /** The server's HTTP Date header of a reply just received: whole seconds, so its middle is the estimate. */
  observeDateHeader(headers: Headers): void {
    const date = Date.parse(headers.get("date") ?? "");
    if (!Number.isNaN(date)) this.observe(new Date(date + 500));
  }

  /** The server's time now, in milliseconds since 1970 (this clock's, until the server stamped anything). */
  now(): number {
    return Date.now() - (Number.isFinite(this.lead) ? this.lead : 0);
  }

  /** Whole seconds from now until `end` on the server's clock, never below 0. */
  secondsUntil(end: Date): number {
    return Math.max(0, Math.ceil((end.getTime() - this.now()) / 1000));
  }
}
