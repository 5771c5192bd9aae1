// The bench's trivial policy module (`npm run bench -- --hooks bench/trivial-hook.mjs`): it keeps
// every event, so the figures show what the interception point itself costs per message.
export function onEvent() {
  return undefined;
}
