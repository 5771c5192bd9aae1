// The chat page: the timeline comes from the server's event stream (a snapshot, then live
// items); messages and approval clicks are POSTed as JSON. Text is always set as text, never
// as markup.

const chat = document.getElementById("chat");
const world = chat.dataset.world;
const timeline = document.getElementById("timeline");
const statusLine = document.getElementById("status");
const workingLine = document.getElementById("working");
const notice = document.getElementById("notice");
const form = document.getElementById("composer");
const nameInput = document.getElementById("name");
const textInput = document.getElementById("text");
const filesInput = document.getElementById("files");

// A person's login fixes the name (the server takes it from the login, never from the page);
// with the shared token the name typed here is a label.
const person = chat.dataset.person;
if (!person) {
  nameInput.value = localStorage.getItem("roundtable.name") || "guest";
  nameInput.addEventListener("change", () => localStorage.setItem("roundtable.name", nameInput.value.trim()));
}

/** What the page sends as its name: nothing when the login names the person. */
function typedName() {
  return person ? undefined : nameInput.value.trim();
}

const choiceLabels = { once: "Approve once", session: "Approve for this session", deny: "Deny" };
const stateWords = {
  approved: "Approved",
  denied: "Denied",
  expired: "Expired (no decision in time)",
  skipped: "Skipped",
};

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function randomId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function showNotice(text) {
  notice.textContent = text;
  notice.hidden = !text;
}

// A small, safe subset of Markdown: fenced code, inline code, bold.
function renderMarkdown(container, text) {
  const parts = text.split(/```[^\n]*\n?/);
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      container.append(element("pre", "code", part.replace(/\n$/, "")));
      return;
    }
    const paragraph = element("span", "text");
    for (const piece of part.split(/(`[^`\n]+`|\*\*[^*\n]+\*\*)/)) {
      if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) {
        paragraph.append(element("code", "", piece.slice(1, -1)));
      } else if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) {
        paragraph.append(element("strong", "", piece.slice(2, -2)));
      } else if (piece) {
        paragraph.append(document.createTextNode(piece));
      }
    }
    container.append(paragraph);
  });
}

function avatar(author) {
  if (author.avatarUrl) {
    const image = element("img", "avatar");
    image.src = author.avatarUrl;
    image.alt = "";
    return image;
  }
  const initial = element(
    "span",
    `avatar initial kind-${author.kind}`,
    (author.displayName || "?").slice(0, 1).toUpperCase(),
  );
  initial.setAttribute("aria-hidden", "true");
  return initial;
}

function renderMessage(item) {
  const extra = `${item.kind === "draft" ? " draft" : ""}${item.private ? " private" : ""}`;
  const node = element("li", `item message kind-${item.author.kind}${extra}`);
  node.append(avatar(item.author));
  const body = element("div", "body");
  const header = element("div", "author", item.author.displayName);
  if (item.author.displayName !== item.author.name && item.author.kind === "agent") {
    header.append(element("span", "handle", ` @${item.author.name}`));
  }
  if (item.private) header.append(element("span", "handle", " · only you see this"));
  body.append(header);
  const text = element("div", "content");
  renderMarkdown(text, item.text);
  if (item.kind === "draft") text.append(element("span", "cursor", "▍"));
  body.append(text);
  if (item.files && item.files.length > 0) body.append(renderFiles(item.files));
  if (item.kind === "draft") {
    const stop = element("button", "stop", "Stop");
    stop.type = "button";
    stop.title = "End this chat's unfinished turns (/stop)";
    stop.addEventListener("click", () => command("stop", stop));
    body.append(stop);
  }
  node.append(body);
  return node;
}

// A message's files: each a link to the server's file route (a relative `/chat/file?…` address
// the server built); an image is shown too, inside its link.
function renderFiles(files) {
  const list = element("div", "files-posted");
  for (const file of files) {
    if (typeof file.url !== "string" || !file.url.startsWith("/chat/file?")) continue;
    const link = element("a", "file");
    link.href = file.url;
    link.target = "_blank";
    link.rel = "noopener";
    if (file.image) {
      const image = element("img", "file-image");
      image.src = file.url;
      image.alt = file.name;
      link.append(image);
    }
    link.append(element("span", "file-name", file.name));
    list.append(link);
  }
  return list;
}

// Indented for reading only when that loses nothing (a compact JSON text that parses back to
// itself); otherwise the bytes are shown exactly as the model sent them: what is approved is what
// was shown.
function prettyArguments(json) {
  try {
    const parsed = JSON.parse(json);
    return JSON.stringify(parsed) === json ? JSON.stringify(parsed, null, 2) : json;
  } catch {
    return json;
  }
}

/** `2026-11-26 15:49:15 UTC`: the time as the operator view and the logs write it, not the browser's locale. */
function utcTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : `${date.toISOString().replace("T", " ").slice(0, 19)} UTC`;
}

function renderCard(item) {
  const card = item.card;
  const node = element("li", `item card state-${card.state}`);
  node.append(element("div", "card-title", `${card.agentDisplayName || card.agent} wants to run ${card.tool}`));
  if (card.reasoning) node.append(element("div", "card-reasoning", card.reasoning));
  if (card.lengthNotice) node.append(element("div", "card-length", card.lengthNotice));
  node.append(element("pre", "arguments", prettyArguments(card.argumentsJson)));
  if (card.invisibleNotice) node.append(element("div", "card-warning", card.invisibleNotice));
  const meta = element("div", "card-meta");
  const parts = [`approval ${card.shortId}`];
  if (card.reason) parts.push(card.reason);
  if (card.requestedFor) parts.push(`asked for ${card.requestedFor}`);
  if (card.state === "pending") parts.push(`expires ${utcTime(card.expiresAt)}`);
  meta.textContent = parts.join(" · ");
  node.append(meta);
  if (card.state === "pending") for (const line of card.status || []) node.append(element("div", "card-status", line));
  if (card.state === "pending") {
    const buttons = element("div", "buttons");
    for (const choice of ["once", "session", "deny"]) {
      const button = element("button", `choice choice-${choice}`, choiceLabels[choice]);
      button.type = "button";
      button.addEventListener("click", () => decide(card.approvalId, choice, buttons));
      buttons.append(button);
    }
    node.append(buttons);
  } else {
    let outcome = stateWords[card.state] || card.state;
    if (card.state === "approved") outcome += card.choice === "session" ? " for this session" : " once";
    if (card.state === "skipped" && card.note) outcome += `: ${card.note}`;
    else if (card.decidedBy) outcome += ` by ${card.decidedBy}`;
    node.append(element("div", "outcome", outcome));
  }
  return node;
}

function render(item) {
  const node = item.kind === "card" ? renderCard(item) : renderMessage(item);
  node.dataset.id = item.id;
  return node;
}

function upsert(item) {
  const stuckToBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  const existing = timeline.querySelector(`[data-id="${CSS.escape(item.id)}"]`);
  const node = render(item);
  if (existing) existing.replaceWith(node);
  else timeline.append(node);
  if (stuckToBottom) window.scrollTo(0, document.body.scrollHeight);
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { error: text.trim() };
  }
  if (!response.ok) throw new Error(answer.error || `${response.status} ${response.statusText}`);
  return answer;
}

async function decide(approvalId, choice, buttons) {
  for (const button of buttons.querySelectorAll("button")) button.disabled = true;
  try {
    const answer = await post("/chat/approvals", { world, name: typedName(), approvalId, choice });
    showNotice(answer.status === "decided" ? "" : answer.text);
    if (answer.status !== "decided") for (const button of buttons.querySelectorAll("button")) button.disabled = false;
  } catch (error) {
    showNotice(error.message);
    for (const button of buttons.querySelectorAll("button")) button.disabled = false;
  }
}

async function command(name, button) {
  button.disabled = true;
  try {
    const answer = await post("/chat/commands", {
      world,
      name: typedName(),
      command: name,
      clientId: randomId(),
    });
    showNotice(answer.status === "done" ? "" : answer.text);
  } catch (error) {
    showNotice(error.message);
    button.disabled = false;
  }
}

/** A chosen file as the upload route takes it: its name and its bytes in base64. */
function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener("load", () => {
      const url = String(reader.result);
      resolve({ name: file.name, data: url.slice(url.indexOf(",") + 1) });
    });
    reader.addEventListener("error", () => reject(new Error(`cannot read ${file.name}`)));
    reader.readAsDataURL(file);
  });
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = textInput.value;
  const chosen = [...(filesInput?.files ?? [])];
  if (!text.trim() && chosen.length === 0) return;
  if (!person) localStorage.setItem("roundtable.name", nameInput.value.trim());
  try {
    const message = { world, name: typedName(), text, clientId: randomId() };
    const answer =
      chosen.length === 0
        ? await post("/chat/messages", message)
        : await post("/chat/uploads", { ...message, files: await Promise.all(chosen.map(readFile)) });
    textInput.value = "";
    if (filesInput) filesInput.value = "";
    // Commands and resets are answered in the chat itself; other refusals are shown here.
    const quiet = answer.status !== "ignored" || /^chat (command|reset)/.test(answer.reason || "");
    showNotice(answer.status === "unbound" || !quiet ? answer.reason || "" : "");
  } catch (error) {
    showNotice(error.message);
  }
});

textInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});

// The stream is opened under the page's name, so answers meant for this person alone reach it;
// a new name opens a new stream.
let events;
function connect() {
  events?.close();
  const name = person ? "" : `&name=${encodeURIComponent(nameInput.value.trim())}`;
  events = new EventSource(`/chat/events?world=${encodeURIComponent(world)}${name}`);
  events.addEventListener("open", () => {
    statusLine.textContent = "connected";
    statusLine.className = "status connected";
  });
  events.addEventListener("error", () => {
    statusLine.textContent = "reconnecting…";
    statusLine.className = "status reconnecting";
  });
  events.addEventListener("message", onEvent);
}
if (!person) nameInput.addEventListener("change", connect);

function onEvent(message) {
  const event = JSON.parse(message.data);
  if (event.type === "snapshot") {
    timeline.replaceChildren(...event.items.map(render));
    window.scrollTo(0, document.body.scrollHeight);
  } else if (event.type === "item") {
    upsert(event.item);
  } else if (event.type === "removed") {
    timeline.querySelector(`[data-id="${CSS.escape(event.id)}"]`)?.remove();
  } else if (event.type === "working") {
    showWorking(event.agent, event.text);
  }
}

// What each agent is doing right now ("alice is thinking…"), one line for all of them.
const working = new Map();
function showWorking(agent, text) {
  if (text) working.set(agent, text);
  else working.delete(agent);
  workingLine.textContent = [...working.values()].join(" · ");
  workingLine.hidden = working.size === 0;
}

connect();
