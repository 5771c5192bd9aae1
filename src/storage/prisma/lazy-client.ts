/**
 * A Prisma client made at its first statement. The statements a start and an idle process run
 * go around Prisma's client (`SqliteRawSql`, `PostgresRawSql`), so most processes would load its
 * generated client and start its engine (the WebAssembly query compiler: about 18 MiB of
 * resident memory) only for the rare statements that still take it (docs/performance.md,
 * "Idle memory"). Until then this stands in for the client: a statement made on it is lazy like
 * Prisma's own (it runs when awaited, or in `$transaction([...])`), and is made on the real
 * client once that exists.
 */

/** Prisma clients made by {@link lazyClient} in this process so far (tests read it). */
let created = 0;

/** How many Prisma clients this process has made at their first statement. */
export function prismaClientsCreated(): number {
  return created;
}

/** The client's methods that are not statements. */
interface Disconnectable {
  $disconnect(): Promise<void>;
}

/** A statement asked of the stand-in: made on the real client when it runs. */
class DeferredStatement<Client> implements PromiseLike<unknown> {
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly client: () => Promise<Client>,
    private readonly make: (client: Client) => PromiseLike<unknown>,
  ) {}

  /** The real client's statement, not yet run (for its `$transaction([...])`). */
  on(client: Client): PromiseLike<unknown> {
    return this.make(client);
  }

  // biome-ignore lint/suspicious/noThenProperty: a statement is a lazy promise, as Prisma's are.
  then<A = unknown, B = never>(
    onFulfilled?: ((value: unknown) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.running ??= this.client().then((client) => this.make(client));
    return this.running.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<unknown> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<unknown> {
    return this.then().finally(onFinally);
  }

  get [Symbol.toStringTag](): string {
    return "PrismaPromise";
  }
}

type Callable = (...arguments_: unknown[]) => PromiseLike<unknown>;

/**
 * A stand-in for the client `create` makes, typed as it. `create` runs at the first statement
 * (once; again after it failed). `$disconnect` disconnects the client if it was made, else
 * calls `disconnectUnused` (what the client's `$disconnect` would have closed: its connection).
 */
export function lazyClient<Client extends Disconnectable>(
  create: () => Promise<Client>,
  disconnectUnused: () => Promise<void> = () => Promise.resolve(),
): Client {
  let client: Client | undefined;
  let creating: Promise<Client> | undefined;
  const real = (): Promise<Client> => {
    creating ??= create().then(
      (made) => {
        created += 1;
        client = made;
        return made;
      },
      (error: unknown) => {
        creating = undefined;
        throw error;
      },
    );
    return creating;
  };
  const statement = (make: (made: Client) => PromiseLike<unknown>) => new DeferredStatement(real, make);
  const member = (made: Client, name: string): unknown => (made as unknown as Record<string, unknown>)[name];

  const models = new Map<string, unknown>();
  const model = (name: string) => {
    let stand = models.get(name);
    if (!stand) {
      stand = new Proxy(
        {},
        {
          get: (_, method) => {
            if (client) {
              const delegate = member(client, name) as Record<string | symbol, unknown>;
              const value = delegate[method];
              return typeof value === "function" ? value.bind(delegate) : value;
            }
            if (typeof method !== "string") return undefined;
            return (...arguments_: unknown[]) =>
              statement((made) => (member(made, name) as Record<string, Callable>)[method]?.(...arguments_) as never);
          },
        },
      );
      models.set(name, stand);
    }
    return stand;
  };

  const special: Record<string, unknown> = {
    async $connect() {
      const made = await real();
      await (member(made, "$connect") as () => Promise<void>).call(made);
    },
    async $disconnect() {
      if (!creating) return disconnectUnused();
      const made = await creating;
      await made.$disconnect();
    },
    $transaction(work: unknown, options?: unknown) {
      return real().then((made) => {
        const run = member(made, "$transaction") as (work: unknown, options?: unknown) => Promise<unknown>;
        if (!Array.isArray(work)) return run.call(made, work, options);
        const statements = work.map((item: unknown) => (item instanceof DeferredStatement ? item.on(made) : item));
        return run.call(made, statements, options);
      });
    },
  };

  return new Proxy({} as Client, {
    get(_, property) {
      if (typeof property !== "string") return undefined;
      if (property === "then") return undefined; // not a promise itself
      if (Object.hasOwn(special, property)) return special[property];
      if (client) {
        const value = member(client, property);
        return typeof value === "function" ? value.bind(client) : value;
      }
      if (property.startsWith("$")) {
        return (...arguments_: unknown[]) =>
          statement((made) => (member(made, property) as Callable).apply(made, arguments_));
      }
      return model(property);
    },
  });
}
