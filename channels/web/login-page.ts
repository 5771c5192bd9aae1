import { html, layout } from "./html.js";

/**
 * The login form. A login address (`/login#token=…`, printed at start and by `roundtable
 * web-login`) fills and submits it from the fragment, which never reaches a server or a log.
 */
export function renderLoginPage(next: string, problem?: string): string {
  return layout(
    "Log in",
    html`<main class="login">
  <h1>Roundtable</h1>
  <form method="post" action="/login" id="login">
    <label>Console token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
    <input type="hidden" name="next" value="${next}">
    <button type="submit">Log in</button>
  </form>
  ${problem === undefined ? "" : html`<p class="notice" role="alert">${problem}</p>`}
  <p class="hint">Your own token of <code>channels.web.users</code>, or the service's <code>WEB_CONSOLE_TOKEN</code> (<code>roundtable web-login</code> prints a login address).</p>
</main>`,
    "/assets/login.js",
  );
}
