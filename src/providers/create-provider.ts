import type { ProviderConfig, ProviderType } from "../config/schema.js";
import { ConfigError } from "../errors/roundtable-error.js";
import type { Logger } from "../log/logger.js";
import type { ModelProvider, ModelRequest, StreamPart } from "./model-provider.js";
import { officialAnthropicBaseUrl, officialGeminiBaseUrl, officialOpenAIBaseUrl } from "./official-base-urls.js";
import { type Sleep, withRetries } from "./with-retries.js";

/** The environment a provider's key and base URL fall back to. */
export type ProviderEnvironment = Record<string, string | undefined>;

export interface CreateProviderOptions {
  /** Defaults to `process.env`. */
  env?: ProviderEnvironment;
  /** Injected in tests so retries don't wait for real seconds. */
  sleep?: Sleep;
  /** Jitter source for the backoff. */
  random?: () => number;
}

const providerTypes: readonly ProviderType[] = ["openai", "anthropic", "google", "scripted"];

/**
 * The wire protocol of `providers.<name>`: its `type`, else the key name itself when that is
 * `openai`, `anthropic`, `google` or `scripted`.
 */
export function resolveProviderType(name: string, config: Pick<ProviderConfig, "type">): ProviderType {
  if (config.type) return config.type;
  const byName = providerTypes.find((type) => type === name);
  if (byName) return byName;
  throw new ConfigError(
    `providers.${name}: cannot tell which API it speaks; set type: openai (also for Ollama, vLLM, OpenRouter, LiteLLM), anthropic, google or scripted`,
  );
}

/** Key and base URL after the environment fallbacks, as the provider will use them. */
export interface ResolvedEndpoint {
  type: ProviderType;
  apiKey: string | undefined;
  baseUrl: string;
}

/**
 * Config first, then the environment: `OPENAI_API_KEY` / `OPENAI_BASE_URL` (ends in `/v1`),
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`, `GEMINI_API_KEY` or `GOOGLE_API_KEY` /
 * `GEMINI_BASE_URL` or `GOOGLE_GEMINI_BASE_URL` (bare origins); the environment applies only
 * to the provider named `openai`, `anthropic` or `google` (others say `${VAR}` in the config).
 * An OpenAI-compatible server at a custom base URL (Ollama, vLLM) needs no key: a placeholder
 * is sent.
 */
export function resolveEndpoint(name: string, config: ProviderConfig, env: ProviderEnvironment): ResolvedEndpoint {
  const type = resolveProviderType(name, config);
  // Only the provider named after its type reads the environment: a key for api.openai.com
  // must never travel to `providers.openrouter` or `providers.ollama` by accident.
  const ownName = name === type;
  const pick = (...names: string[]) =>
    ownName ? names.map((variable) => env[variable]).find((value) => value !== undefined && value !== "") : undefined;
  switch (type) {
    case "openai": {
      const baseUrl = checkedUrl(name, config.baseUrl ?? pick("OPENAI_BASE_URL") ?? officialOpenAIBaseUrl);
      const custom = new URL(baseUrl).hostname !== "api.openai.com";
      const apiKey = config.apiKey ?? pick("OPENAI_API_KEY") ?? (custom ? "not-needed" : undefined);
      return { type, apiKey, baseUrl };
    }
    case "anthropic":
      return {
        type,
        apiKey: config.apiKey ?? pick("ANTHROPIC_API_KEY"),
        baseUrl: checkedUrl(name, config.baseUrl ?? pick("ANTHROPIC_BASE_URL") ?? officialAnthropicBaseUrl),
      };
    case "google":
      return {
        type,
        apiKey: config.apiKey ?? pick("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        baseUrl: checkedUrl(
          name,
          config.baseUrl ?? pick("GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL") ?? officialGeminiBaseUrl,
        ),
      };
    case "scripted":
      // Built in: no key, no network; `baseUrl` means nothing to it.
      return { type, apiKey: undefined, baseUrl: "builtin:scripted" };
  }
}

/**
 * The provider for `providers.<name>`, wrapped in {@link withRetries} (config `maxRetries`,
 * transient errors only; the SDKs' own retries are off). A missing key does not fail here:
 * each call then fails with `provider.auth` naming the variable to set, so one unused
 * provider does not stop the service.
 */
export function createProvider(
  name: string,
  config: ProviderConfig,
  logger: Logger,
  options: CreateProviderOptions = {},
): ModelProvider {
  const endpoint = resolveEndpoint(name, config, options.env ?? process.env);
  const common = { name, apiKey: endpoint.apiKey, baseUrl: endpoint.baseUrl, timeoutMs: config.timeout };
  const inner = newProvider(endpoint.type, common, config.api);
  logger.debug(
    { provider: name, type: endpoint.type, baseUrl: endpoint.baseUrl, hasKey: endpoint.apiKey !== undefined },
    "provider ready",
  );
  return withRetries(inner, {
    logger,
    maxRetries: config.maxRetries,
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.random === undefined ? {} : { random: options.random }),
  });
}

type CommonSettings = { name: string; apiKey: string | undefined; baseUrl: string; timeoutMs: number };

/**
 * The provider of `type`, its SDK loaded by its first call: a process holds only the SDKs of
 * the providers its agents actually call (an SDK is megabytes of heap for good once imported:
 * the OpenAI SDK about 6.6 MiB, docs/performance.md "Idle memory"), and loading one (tens of
 * milliseconds of compiling) never holds up the start. Calls made while it loads wait for the
 * same load; a failed load fails those calls and the next call tries again.
 */
function newProvider(type: ProviderType, common: CommonSettings, api: ProviderConfig["api"]): ModelProvider {
  let loading: Promise<ModelProvider> | undefined;
  let loaded: ModelProvider | undefined;
  const load = () => {
    loading ??= loadProvider(type, common, api).then(
      (provider) => {
        loaded = provider;
        return provider;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  async function* whenLoaded(request: ModelRequest, signal: AbortSignal | undefined): AsyncGenerator<StreamPart> {
    const provider = await load();
    yield* provider.stream(request, signal);
  }
  return {
    name: common.name,
    // Once loaded, its stream as it is: a layer less for every streamed token to go through.
    stream: (request, signal) => (loaded ? loaded.stream(request, signal) : whenLoaded(request, signal)),
  };
}

async function loadProvider(
  type: ProviderType,
  common: CommonSettings,
  api: ProviderConfig["api"],
): Promise<ModelProvider> {
  switch (type) {
    case "openai": {
      const { OpenAIProvider } = await import("./openai/openai-provider.js");
      return new OpenAIProvider({ ...common, api });
    }
    case "anthropic": {
      const { AnthropicProvider } = await import("./anthropic/anthropic-provider.js");
      return new AnthropicProvider(common);
    }
    case "google": {
      const { GoogleProvider } = await import("./google/google-provider.js");
      return new GoogleProvider(common);
    }
    case "scripted": {
      const { ScriptedModelProvider } = await import("./scripted/scripted-model-provider.js");
      return new ScriptedModelProvider({ name: common.name });
    }
  }
}

/** The base URL without a trailing slash; one that is not a URL is a config error. */
function checkedUrl(name: string, url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  if (!URL.canParse(trimmed))
    throw new ConfigError(
      `providers.${name}.baseUrl: expected a URL such as https://host/v1, got ${JSON.stringify(url)}`,
    );
  return trimmed;
}
