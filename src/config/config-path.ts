/** A place inside a config file: keys and list indexes from the top. */
export type ConfigPath = ReadonlyArray<PropertyKey>;

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `["worlds", 0, "agents", 1]` → `worlds[0].agents[1]`; odd keys are quoted: `chats["-100"]`. */
export function formatConfigPath(path: ConfigPath): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (typeof part === "string" && identifier.test(part)) text += text === "" ? part : `.${part}`;
    else text += `[${JSON.stringify(String(part))}]`;
  }
  return text;
}

/** Reads the value at `path` in plain data, or `undefined`. */
export function valueAtPath(data: unknown, path: ConfigPath): unknown {
  let current = data;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/** A short description of a value for error messages: `"six"`, `12`, `a list`, `a mapping`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}
