// The development token a person pasted into the login form: kept in sessionStorage (gone with the tab), sent
// as `authorization: Bearer ...`. The page never checks it: the service does, on every call.

const KEY = "stud.token";

export interface Principal {
  player: string;
  role: string;
  expires?: Date;
}

export function token(): string | null {
  return sessionStorage.getItem(KEY);
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
