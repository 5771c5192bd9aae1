import { Api } from "grammy";

/**
 * Telegram `getMe` through grammY's `Api` (honours `apiRoot`): `bot @name`.
 *
 * grammY is a CommonJS package. `check` loads this file lazily and this file imports grammY
 * statically: in the esbuild bundle a dynamic `import("grammy")` becomes a chunk that exports
 * only `default` (`Api` was undefined: "Api is not a constructor"), while a static import keeps
 * the named exports. scripts/bundle.mjs refuses a bundle with such a default-only chunk.
 */
export async function telegramIdentity(token: string, apiRoot: string | undefined, timeoutMs: number): Promise<string> {
  const api = new Api(token, { timeoutSeconds: timeoutMs / 1000, ...(apiRoot === undefined ? {} : { apiRoot }) });
  const me = await api.getMe();
  return `bot @${me.username}`;
}
