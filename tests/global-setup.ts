// Placeholder: the storage work replaces this with PostgreSQL start-up for the contract suite.
export default function setup(): void {}
