// The login address `/login#token=…` fills the form from its fragment and submits it. The
// fragment is never sent to a server; it is removed from the address bar and history first.
const match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash);
const form = document.getElementById("login");
if (match && form) {
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
  const field = form.querySelector('input[name="token"]');
  try {
    field.value = decodeURIComponent(match[1]);
  } catch {
    field.value = match[1];
  }
  form.submit();
}
