/** The stored records are the world's types (docs/architecture.md, "Ports"); re-exported here for storage code. */
export type * from "../world/records.js";
