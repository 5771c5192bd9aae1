import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { NewApproval, NewMessage, NewToolCall } from "../../src/world/records.js";
import type { Store } from "../../src/world/store.js";

/** What a contract run needs: a store on a fresh, migrated database, and a way to dispose of it. */
export interface StoreFixture {
  store: Store;
  close(): Promise<void>;
}

/**
 * The store of one contract suite: opened before its tests, closed after them. Call it in the
 * suite's `describe`; the store it returns stands for the one opened (it exists only once the
 * suite's tests run).
 */
export function storeOpenedFor(open: () => Promise<StoreFixture>): Store {
  let fixture: StoreFixture | undefined;
  beforeAll(async () => {
    fixture = await open();
  });
  afterAll(async () => {
    await fixture?.close();
  });
  const opened = (): Store => {
    if (!fixture) throw new Error("the contract suite's store is used before it is opened");
    return fixture.store;
  };
  return new Proxy({} as Store, {
    get(_target, property) {
      const store = opened();
      const value: unknown = Reflect.get(store, property);
      return typeof value === "function" ? value.bind(store) : value;
    },
  });
}

/** Record builders for the contract suites; ids are unique so tests sharing a database keep apart. */
export function contractBuilders(currentStore: () => Store) {
  const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
  const chatKey = () => `telegram::${unique("chat")}:`;

  function message(chat: string, overrides: Partial<NewMessage> = {}): NewMessage {
    return {
      id: unique("msg"),
      chatKey: chat,
      author: { kind: "human", id: "u1", name: "Ana" },
      text: "hello",
      ...overrides,
    };
  }

  function toolCall(
    chat: string,
    turnId: string,
    messageId: string,
    overrides: Partial<NewToolCall> = {},
  ): NewToolCall {
    return {
      id: unique("call"),
      chatKey: chat,
      agent: "alice",
      turnId,
      messageId,
      step: 1,
      providerCallId: unique("provider"),
      name: "shell_cmd",
      argumentsJson: '{"command":"ls"}',
      ...overrides,
    };
  }

  async function storedCall(chat = chatKey()) {
    const turnId = unique("turn");
    const step = await currentStore().addModelStep(
      message(chat, { author: { kind: "agent", id: "alice", name: "alice" } }),
      [toolCall(chat, turnId, "placeholder")],
    );
    const call = step.calls[0];
    if (!call) throw new Error("no call stored");
    return call;
  }

  function approval(chat: string, toolCallId: string, overrides: Partial<NewApproval> = {}): NewApproval {
    return {
      id: unique("approval"),
      shortId: unique("s"),
      chatKey: chat,
      world: "team",
      agent: "alice",
      turnId: unique("turn"),
      toolCallId,
      requestedFor: "u1",
      reason: "shell_cmd needs approval",
      expiresAt: new Date("2030-01-01T00:30:00.000Z"),
      ...overrides,
    };
  }

  return { unique, chatKey, message, toolCall, storedCall, approval };
}
