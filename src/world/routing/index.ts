export { addressBack } from "./address-back.js";
export { parseAddresses } from "./parse-addresses.js";
export { routeMessage } from "./route-message.js";
export { turnLimitNotice, turnLimitReached } from "./turn-limit.js";
export { unaddressedNotice, unknownAgentNotice } from "./unknown-agent-notice.js";
