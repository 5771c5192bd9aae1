import { html, layout } from "./html.js";

export interface ChatPageWorld {
  name: string;
  agents: { name: string; displayName: string }[];
}

/**
 * The chat page of one world: the timeline is filled by the script from the event stream.
 * `fixedName` is the login's name (a person of `channels.web.users`): shown, never asked.
 */
export function renderChatPage(world: ChatPageWorld, worlds: readonly string[], fixedName?: string): string {
  const nav = worlds.map(
    (name) =>
      html`<a href="/chat?world=${encodeURIComponent(name)}"${name === world.name ? html` aria-current="page"` : ""}>${name}</a>`,
  );
  const agents = world.agents.map((agent) => html`<code>@${agent.name}</code> `);
  return layout(
    `${world.name}`,
    html`<header class="bar">
  <strong class="brand">Roundtable</strong>
  <nav class="worlds">${nav}</nav>
  <a class="operator-link" href="/operator">Operator view</a>
  <form class="logout" method="post" action="/logout"><button type="submit">Log out</button></form>
</header>
<main class="chat" id="chat" data-world="${world.name}"${fixedName === undefined ? "" : html` data-person="${fixedName}"`}>
  <p class="hint">World <strong>${world.name}</strong>. Address agents with ${agents}at the start of a line; chat commands such as <code>/help</code> work here too.</p>
  <ol class="timeline" id="timeline" aria-live="polite"></ol>
  <p class="working" id="working" aria-live="polite" hidden></p>
  <p class="status" id="status" role="status">connecting\u2026</p>
  <form class="composer" id="composer" autocomplete="off">
    ${
      fixedName === undefined
        ? html`<label class="name">Your name <input id="name" name="name" maxlength="40" required></label>`
        : html`<label class="name">You are <input id="name" name="name" value="${fixedName}" readonly></label>`
    }
    <textarea id="text" name="text" rows="2" placeholder="Message ${world.name} (Enter sends, Shift+Enter for a new line)"></textarea>
    <label class="files">Files <input id="files" name="files" type="file" multiple></label>
    <button type="submit">Send</button>
  </form>
  <p class="notice" id="notice" role="alert" hidden></p>
</main>`,
    "/assets/console.js",
  );
}
