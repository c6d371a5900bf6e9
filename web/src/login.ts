// The login form: a development token pasted in (README "Web table" says how to mint one).
import { fill, h } from "./dom";
import { logIn, logOut, principal, principalOf } from "./session";

/** Draws the login form, or who is logged in and a button to log out; `changed` redraws the page. */
export function showLogin(slot: HTMLElement, changed: () => void): void {
  const who = principal();
  if (who !== null) {
    const expiry = who.expires ? `, until ${who.expires.toLocaleTimeString()}` : "";
    fill(slot, h("div", { class: "who", "data-testid": "logged-in", "data-player": who.player },
      `Logged in as `, h("strong", {}, who.player), h("span", { class: "who-detail" }, ` (${who.role}${expiry})`), " ",
      h("button", { type: "button", "data-testid": "logout", onclick: () => { logOut(); changed(); } }, "Log out")));
    return;
  }
  const input = h("input", {
    id: "token", name: "token", type: "password", autocomplete: "off", spellcheck: "false", required: true,
    placeholder: "eyJ…", "data-testid": "login-token", "aria-describedby": "token-help",
  });
  const problem = h("p", { class: "refusal", role: "alert", "data-testid": "login-error", hidden: true });
  const form = h("form", {
    class: "login", "data-testid": "login-form", "aria-label": "Log in",
    onsubmit: (event: Event) => {
      event.preventDefault();
      if (principalOf(input.value) === null) {
        problem.hidden = false;
        problem.textContent = "That is not a token: paste the whole JWT (three parts separated by dots).";
        input.focus();
        return;
      }
      logIn(input.value);
      changed();
    },
  },
  h("label", { for: "token" }, "Development token"), " ",
  input, " ",
  h("button", { type: "submit", "data-testid": "login-submit" }, "Log in"),
  h("small", { id: "token-help" }, " from ", h("code", {}, "stud-service token --player NAME"),
    "; the lobby needs none."),
  problem);
  fill(slot, form);
}
