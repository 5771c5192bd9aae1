import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The identity endpoints `roundtable check` calls, on one local port:
 * - OpenAI `GET /v1/models` (Bearer key), answering the model list or OpenAI's 401 error body;
 * - Telegram `POST /bot<token>/getMe`, answering the bot or Telegram's 401.
 * Records every request's method and path.
 */
export interface IdentityFakes {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

export async function startIdentityFakes(options: {
  openAIKey: string;
  telegramToken: string;
}): Promise<IdentityFakes> {
  const requests: IdentityFakes["requests"] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    requests.push({ method: request.method ?? "", path });
    request.resume();
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET" && path === "/v1/models") {
      if (request.headers.authorization !== `Bearer ${options.openAIKey}`) {
        json(401, {
          error: {
            message: "Incorrect API key provided.",
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key",
          },
        });
        return;
      }
      json(200, {
        object: "list",
        data: [
          { id: "gpt-4.1", object: "model", created: 1_700_000_000, owned_by: "fake" },
          { id: "gpt-4o", object: "model", created: 1_700_000_000, owned_by: "fake" },
        ],
      });
      return;
    }
    const telegram = /^\/bot([^/]+)\/getMe$/.exec(path);
    if (telegram) {
      if (telegram[1] !== options.telegramToken) {
        json(401, { ok: false, error_code: 401, description: "Unauthorized" });
        return;
      }
      json(200, {
        ok: true,
        result: { id: 4242, is_bot: true, first_name: "Fake", username: "fake_roundtable_bot" },
      });
      return;
    }
    json(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
