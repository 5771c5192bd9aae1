import { html, layout } from "./html.js";

/** The login form shown when `WEB_CONSOLE_TOKEN` is set and the request did not carry it. */
export function renderLoginPage(next: string, problem?: string): string {
  return layout(
    "Log in",
    html`<main class="login">
  <h1>Roundtable</h1>
  <form method="post" action="/login">
    <label>Console token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
    <input type="hidden" name="next" value="${next}">
    <button type="submit">Log in</button>
  </form>
  ${problem === undefined ? "" : html`<p class="notice" role="alert">${problem}</p>`}
  <p class="hint">The token is the service's <code>WEB_CONSOLE_TOKEN</code>.</p>
</main>`,
  );
}
