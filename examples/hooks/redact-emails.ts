// Redact e-mail addresses before any model sees them (docs/hooks.md). Routing and every later
// request view see the redacted text; the stored platform payload keeps the original.
import type { OnEvent } from "roundtable/hooks";

const email = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;

export const onEvent: OnEvent = (event) => {
  if (event.type !== "message") return undefined;
  const text = event.message.text.replace(email, "[email]");
  if (text === event.message.text) return undefined;
  return { ...event, message: { ...event.message, text } };
};
