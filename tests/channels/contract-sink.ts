import type {
  ApprovalClick,
  ClickResult,
  CommandResult,
  InboundCommand,
  InboundMessage,
  InboundSink,
  IngressResult,
} from "../../src/world/inbound.js";

/**
 * The world's side of the channel port, for the contract suite: records everything an adapter
 * hands in and answers clicks as the test says. It does not dedupe: the suite checks what the
 * adapter hands in, so that the world can dedupe on it.
 */
export class ContractSink implements InboundSink {
  readonly messages: InboundMessage[] = [];
  readonly clicks: ApprovalClick[] = [];
  readonly commands: InboundCommand[] = [];
  clickResult: ClickResult = { status: "decided", text: "Approved once." };

  async message(message: InboundMessage): Promise<IngressResult> {
    this.messages.push(message);
    if (message.ownEcho === true) return { status: "ignored", reason: "the service's own message" };
    return { status: "accepted", messageId: `contract-${this.messages.length}` };
  }

  async click(click: ApprovalClick): Promise<ClickResult> {
    this.clicks.push(click);
    return this.clickResult;
  }

  async command(command: InboundCommand): Promise<CommandResult> {
    this.commands.push(command);
    return { status: "done", text: `/${command.name} done.` };
  }

  /** Messages the world would take as new input (own echoes left out). */
  input(): InboundMessage[] {
    return this.messages.filter((message) => message.ownEcho !== true);
  }
}
