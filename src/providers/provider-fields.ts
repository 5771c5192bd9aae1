/**
 * Provider-specific fields are kept raw under the provider type's name
 * (`{ google: { thoughtSignature } }`, `{ openai: { extra_content } }`; the OpenAI Responses
 * API under `openai-responses`), so each provider reads
 * back only what it wrote and ignores what another provider left.
 */
export type ProviderNamespace = "openai" | "openai-responses" | "anthropic" | "google";

/** The fields a provider of this type stored, if any. */
export function ownFields(
  fields: Record<string, unknown> | undefined,
  namespace: ProviderNamespace,
): Record<string, unknown> | undefined {
  const own = fields?.[namespace];
  if (own === null || typeof own !== "object" || Array.isArray(own)) return undefined;
  return own as Record<string, unknown>;
}

/** `{ [namespace]: fields }`, or undefined when there is nothing to keep. */
export function namespaced(
  namespace: ProviderNamespace,
  fields: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  if (Object.keys(kept).length === 0) return undefined;
  return { [namespace]: kept };
}
