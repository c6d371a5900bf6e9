// Words and numbers as the page shows them.
import { type Duration, durationMs } from "@bufbuild/protobuf/wkt";
import { ActionType, Street, type Stakes, type Table, TableStatus, Variant } from "./gen/stud/v1/table_pb";

const VARIANTS: Record<Variant, string> = {
  [Variant.UNSPECIFIED]: "unknown game",
  [Variant.SEVEN_CARD_STUD]: "Seven Card Stud",
  [Variant.STUD_HI_LO]: "Stud Hi-Lo",
  [Variant.RAZZ]: "Razz",
};

export function variantName(variant: Variant): string {
  return VARIANTS[variant] ?? "unknown game";
}

const STREETS: Partial<Record<Street, string>> = {
  [Street.THIRD]: "Third street",
  [Street.FOURTH]: "Fourth street",
  [Street.FIFTH]: "Fifth street",
  [Street.SIXTH]: "Sixth street",
  [Street.SEVENTH]: "Seventh street",
  [Street.SHOWDOWN]: "Showdown",
};

export function streetName(street: Street): string {
  return STREETS[street] ?? "Between hands";
}

/** The API's enum name ("CALL"), as data-action carries it. */
export function actionName(action: ActionType): string {
  return ActionType[action] ?? String(action);
}

/** Digits after the point in the currency's major unit (2 for USD, 0 for JPY); 0 for play chips. */
export function minorDigits(currency: string): number {
  if (!currency) return 0;
  return new Intl.NumberFormat(undefined, { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Amounts are integers in the currency's smallest unit (cents); play chips are shown as they are. */
export function money(amount: bigint, currency: string): string {
  if (!currency) return amount.toLocaleString();
  const format = new Intl.NumberFormat(undefined, { style: "currency", currency });
  const digits = minorDigits(currency);
  const unit = 10n ** BigInt(digits);
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  // Formatting whole units and the fraction apart keeps amounts beyond 2^53 exact.
  const whole = format.formatToParts(0).map((part) => part.type === "integer"
    ? (magnitude / unit).toLocaleString()
    : part.type === "fraction" ? (magnitude % unit).toString().padStart(digits, "0") : part.value).join("");
  return negative ? `-${whole}` : whole;
}

/** An amount as a person types it: "20.00" for 2000 cents, "500" for 500 play chips. */
export function toMajor(amount: bigint, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return amount.toString();
  const unit = 10n ** BigInt(digits);
  return `${amount / unit}.${(amount % unit).toString().padStart(digits, "0")}`;
}

/** What a person typed ("20", "20.5") in the smallest unit, exactly; null when it is not such an amount. */
export function fromMajor(text: string, currency: string): bigint | null {
  const digits = minorDigits(currency);
  const match = /^\s*(\d+)(?:[.,](\d*))?\s*$/.exec(text);
  if (match === null || (match[2] ?? "").length > digits) return null;
  return BigInt(match[1]) * 10n ** BigInt(digits) + BigInt((match[2] ?? "").padEnd(digits, "0") || "0");
}

export function stakesText(stakes: Stakes | undefined, currency: string): string {
  if (stakes === undefined) return "";
  const parts = [`${money(stakes.smallBet, currency)}/${money(stakes.bigBet, currency)}`];
  if (stakes.ante > 0n) parts.push(`ante ${money(stakes.ante, currency)}`);
  parts.push(`bring-in ${money(stakes.bringIn, currency)}`);
  return parts.join(", ");
}

/** "t1" of "tables/t1". */
export function tableId(table: Table | string): string {
  const name = typeof table === "string" ? table : table.name;
  return name.replace(/^tables\//, "");
}

export function seatName(seat: number, player?: string): string {
  return player ? `seat ${seat} (${player})` : `seat ${seat}`;
}

/** Whether an operator stopped the table (rule book §12), and why: "" while it deals. */
export function stoppedText(table: Table): string {
  if (table.status === TableStatus.PAUSED) return `Paused: ${table.statusReason}`;
  if (table.status === TableStatus.CLOSED) return `Closed: ${table.statusReason}`;
  return "";
}

/** A Duration as whole seconds, rounded up ("12 s"): a time bank's reserve, what it used. */
export function secondsText(duration: Duration | undefined): string {
  return duration === undefined ? "" : `${Math.ceil(durationMs(duration) / 1000)} s`;
}
