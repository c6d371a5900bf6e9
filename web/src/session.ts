// The development token a person pasted into the login form: kept in sessionStorage (gone with the tab), sent
// as `authorization: Bearer ...`. The page never checks it: the service does, on every call.

const KEY = "stud.token";
const DEVICE_KEY = "stud.device";

export interface Principal {
  player: string;
  role: string;
  expires?: Date;
}

export function token(): string | null {
  return sessionStorage.getItem(KEY);
}

/** This browser's device id: made up once (32 hex digits) and kept in localStorage, so every tab and visit of
 *  this browser sends the same one (docs/clients.md, "Player sessions and the device id"). */
export function deviceId(): string {
  let id = localStorage.getItem(DEVICE_KEY);
  if (id === null || !/^[0-9a-f]{32}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

export function logIn(jwt: string): void {
  sessionStorage.setItem(KEY, jwt.trim());
}

export function logOut(): void {
  sessionStorage.removeItem(KEY);
}

/** Who the token says the caller is (its `sub` and `role` claims), for display only; null if it is no JWT. */
export function principalOf(jwt: string): Principal | null {
  const parts = jwt.trim().split(".");
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")));
    if (typeof claims.sub !== "string") return null;
    return {
      player: claims.sub,
      role: typeof claims.role === "string" ? claims.role : "player",
      expires: typeof claims.exp === "number" ? new Date(claims.exp * 1000) : undefined,
    };
  } catch {
    return null;
  }
}

export function principal(): Principal | null {
  const jwt = token();
  return jwt === null ? null : principalOf(jwt);
}
