// The operator view refreshes itself every few seconds (the server renders it).

async function refresh() {
  try {
    const response = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("operator");
    const header = page.querySelector("header.bar");
    if (fresh) document.getElementById("operator").replaceWith(fresh);
    if (header) document.querySelector("header.bar").replaceWith(header);
  } catch {
    // The service may be restarting; the next tick tries again.
  }
}

setInterval(refresh, 3000);
