import { type ChannelFixture, runChannelContract } from "./channel-contract.js";
import type { ContractSink } from "./contract-sink.js";
import { ToyChannel, ToyPlatform, toyMessageLimit } from "./toy-channel.js";

/** The toy channel (tests/channels/toy-channel.ts) on its in-memory platform. */
async function startToy(sink: ContractSink): Promise<ChannelFixture> {
  const toy = new ToyPlatform();
  const adapter = new ToyChannel(toy);
  await adapter.start(sink);
  const person = { id: "u-ana", displayName: "Ana", isBot: false };
  let presses = 0;
  return {
    adapter,
    chat: adapter.chat,
    person: { id: person.id, name: person.displayName },
    async deliverMessage(text) {
      const id = toy.post(text, [], false);
      await toy.deliver({ kind: "message", id, from: person, text });
      return { platformMessageId: id, raw: { id, text } };
    },
    async redeliver(delivered) {
      const { id, text } = delivered.raw as { id: string; text: string };
      await toy.deliver({ kind: "message", id, from: person, text });
    },
    async deliverOwnEcho(sent, text) {
      const bot = { id: "u-bot", displayName: "roundtable", isBot: true };
      await toy.deliver({ kind: "message", id: sent.ids[0] ?? "", from: bot, text });
    },
    async deliverClick(sent, card, choice) {
      presses += 1;
      const button = toy.find(sent.ids[0] ?? "")?.buttons.find((each) => each === `${card.approvalId}:${choice}`);
      const answer = await toy.deliver({ kind: "press", id: `press-${presses}`, from: person, button: button ?? "" });
      return answer === undefined ? {} : { privateText: answer };
    },
    async shownMessages() {
      return toy.messages.map((message) => ({ id: message.id, text: message.text, buttons: message.buttons.length }));
    },
    async close() {
      await adapter.stop();
    },
  };
}

runChannelContract({ name: "toy", maxMessageLength: toyMessageLimit, start: startToy });
