// The latency meter (GLI-19): the server's latest measure of the round trip to this page, from its views, its
// watch's heartbeats and their answers (TableView.round_trip).
import { durationMs } from "@bufbuild/protobuf/wkt";
import { h } from "./dom";
import { type RoundTrip, RoundTripSource } from "./gen/stud/v1/table_pb";

const SOURCES = new Map<RoundTripSource, string>([
  [RoundTripSource.TCP, "connection"],
  [RoundTripSource.HEARTBEAT, "heartbeat"],
]);

export interface LatencyMeter {
  element: HTMLElement;
  show(roundTrip: RoundTrip | undefined): void;
}

export function latencyMeter(): LatencyMeter {
  const element = h("p", { class: "latency", "data-testid": "latency", role: "status", "aria-live": "off" });
  return {
    element,
    show(roundTrip) {
      if (roundTrip?.time === undefined) return;
      const ms = durationMs(roundTrip.time);
      const source = SOURCES.get(roundTrip.source) ?? "";
      element.dataset.source = source;
      element.dataset.ms = String(ms);
      element.textContent = `Round trip ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms${source ? ` (${source})` : ""}`;
      element.classList.toggle("slow", ms >= 500);
    },
  };
}
