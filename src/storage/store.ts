/** The storage port lives with the world it serves (docs/architecture.md, "Ports"); re-exported here for storage code. */
export type { EventToDeliver, RoutedTurn, SettledEnd, Store } from "../world/store.js";
