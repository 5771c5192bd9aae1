import { html, layout, type RawHtml } from "./html.js";
import type { OperatorApproval, OperatorSnapshot } from "./operator-snapshot.js";

function when(date: Date | undefined): RawHtml | string {
  if (date === undefined) return "never";
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.replace("T", " ").slice(0, 19)} UTC</time>`;
}

function shorten(text: string, max = 160): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

function section(title: string, id: string, count: number | undefined, body: RawHtml | RawHtml[], empty: string) {
  const isEmpty = Array.isArray(body) ? body.length === 0 : false;
  return html`<section id="${id}">
  <h2>${title}${count === undefined ? "" : html` <span class="count">${count}</span>`}</h2>
  ${isEmpty ? html`<p class="empty">${empty}</p>` : body}
</section>`;
}

function approvalRow(approval: OperatorApproval, pending: boolean): RawHtml {
  return html`<tr data-approval="${approval.approvalId}">
  <td><code>${approval.shortId}</code></td>
  <td>${approval.world}</td>
  <td>${approval.agent}</td>
  <td><code>${approval.tool}</code> <code class="arguments">${shorten(approval.argumentsJson)}</code></td>
  <td class="chat-key">${approval.chatKey}</td>
  ${
    pending
      ? html`<td>${approval.deciders}</td><td>${when(approval.expiresAt)}</td>`
      : html`<td class="state state-${approval.state}">${approval.state}${approval.choice === undefined ? "" : ` (${approval.choice})`}</td><td>${approval.decidedBy ?? "\u2014"}</td><td>${when(approval.decidedAt)}</td><td>${approval.resultKind ?? "\u2014"}</td>`
  }
</tr>`;
}

/** The operator view: what the service is doing, rendered on the server (the script refreshes it). */
export function renderOperatorPage(snapshot: OperatorSnapshot): string {
  const worlds = snapshot.worlds.map(
    (
      world,
    ) => html`<li><strong>${world.name}</strong>${world.defaultAgent === undefined ? "" : html` <span class="muted">(default @${world.defaultAgent})</span>`}
  <a href="/chat?world=${encodeURIComponent(world.name)}">open chat</a>
  <ul>${world.agents.map((agent) => html`<li>${agent.displayName} <code>@${agent.name}</code> <span class="muted">${agent.provider} \u00b7 ${agent.model}</span></li>`)}</ul></li>`,
  );
  const channels = snapshot.channels.map(
    (channel) => html`<tr><td>${channel.platform}</td>
  <td class="${channel.connected ? "ok" : "bad"}">${channel.connected ? "connected" : "not connected"}</td>
  <td>${when(channel.lastReceivedAt)}</td></tr>`,
  );
  const chats = snapshot.chats.map(
    (
      chat,
    ) => html`<li><span class="chat-key">${chat.chatKey}</span> <span class="muted">${chat.platform}${chat.world === undefined ? "" : ` \u00b7 ${chat.world}`}</span>
  ${chat.webPath === undefined ? "" : html`<a href="${chat.webPath}">open</a>`}
  <ul>${chat.lastMessages.map((message) => html`<li><strong>${message.author}:</strong> ${shorten(message.text)} <span class="muted">${when(message.at)}</span></li>`)}</ul></li>`,
  );
  const usage = snapshot.usage.map(
    (
      row,
    ) => html`<tr class="${row.agent === undefined ? "total" : "share"}"><td>${row.world}</td><td>${row.agent ?? "all agents"}</td><td>${row.day}</td><td>${row.tokens}</td>
  <td>${row.costUsd === undefined ? "\u2014" : `$${row.costUsd.toFixed(4)}`}</td><td>${row.agent === undefined ? (row.limit ?? "none") : ""}</td></tr>`,
  );
  const errors = snapshot.errors.map(
    (error) =>
      html`<li>${when(error.at)} <span class="chat-key">${error.chatKey}</span> ${shorten(error.text, 300)}</li>`,
  );
  const body = html`<header class="bar">
  <strong class="brand">Roundtable</strong>
  <nav class="worlds">${snapshot.worlds.map((world) => html`<a href="/chat?world=${encodeURIComponent(world.name)}">${world.name}</a>`)}</nav>
  <span class="operator-link">Operator view \u00b7 ${when(snapshot.generatedAt)}</span>
</header>
<main class="operator" id="operator">
${section(
  "Pending approvals",
  "pending",
  snapshot.pendingApprovals.length,
  snapshot.pendingApprovals.length === 0
    ? []
    : html`<table><thead><tr><th>Id</th><th>World</th><th>Agent</th><th>Tool and arguments</th><th>Chat</th><th>Who may decide</th><th>Expires</th></tr></thead>
<tbody>${snapshot.pendingApprovals.map((approval) => approvalRow(approval, true))}</tbody></table>`,
  "No approval is waiting.",
)}
${section("Worlds and agents", "worlds", snapshot.worlds.length, html`<ul>${worlds}</ul>`, "")}
${section(
  "Channels",
  "channels",
  undefined,
  html`<table><thead><tr><th>Platform</th><th>Connection</th><th>Last message received</th></tr></thead><tbody>${channels}</tbody></table>`,
  "",
)}
${section("Recent chats", "chats", snapshot.chats.length, chats.length === 0 ? [] : html`<ul class="chats">${chats}</ul>`, "No chat yet.")}
${section(
  "Approval history",
  "history",
  snapshot.approvalHistory.length,
  snapshot.approvalHistory.length === 0
    ? []
    : html`<table><thead><tr><th>Id</th><th>World</th><th>Agent</th><th>Tool and arguments</th><th>Chat</th><th>Outcome</th><th>By</th><th>When</th><th>Result</th></tr></thead>
<tbody>${snapshot.approvalHistory.map((approval) => approvalRow(approval, false))}</tbody></table>`,
  "No approval decided yet.",
)}
${section(
  "Usage",
  "usage",
  undefined,
  usage.length === 0
    ? []
    : html`<table><thead><tr><th>World</th><th>Agent</th><th>Day (UTC)</th><th>Tokens</th><th>Cost</th><th>Daily limit</th></tr></thead><tbody>${usage}</tbody></table>`,
  "No usage recorded yet.",
)}
${section("Recent errors", "errors", snapshot.errors.length, errors.length === 0 ? [] : html`<ul>${errors}</ul>`, "No error.")}
</main>`;
  return layout("Operator view", body, "/assets/operator.js");
}
