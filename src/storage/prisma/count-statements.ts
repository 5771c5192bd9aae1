import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";

/** How many SQL statements a database client has sent (for `/metrics` and the bench). */
export interface StatementCount {
  value: number;
}

/**
 * The same driver adapter factory, counting every statement its connections and transactions
 * send (queries, executes and transaction control). A Proxy keeps every other member as it is.
 */
export function countStatements(factory: SqlDriverAdapterFactory, count: StatementCount): SqlDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "connect" || typeof value !== "function") return value;
      return async (...args: unknown[]) => countOn(await value.apply(target, args), count);
    },
  });
}

function countOn<T extends SqlDriverAdapter | Transaction>(queryable: T, count: StatementCount): T {
  return new Proxy(queryable, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      switch (property) {
        case "queryRaw":
        case "executeRaw":
        case "commit":
        case "rollback":
          return (...args: unknown[]) => {
            count.value += 1;
            return value.apply(target, args);
          };
        case "startTransaction":
          return async (...args: unknown[]) => {
            count.value += 1;
            return countOn((await value.apply(target, args)) as Transaction, count);
          };
        default:
          return value.bind(target);
      }
    },
  });
}
