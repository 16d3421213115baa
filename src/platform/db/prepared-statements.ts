// Hot statements, prepared once per connection. A statement whose text begins with the marker
// `/* prepared:<name> */` is sent to PostgreSQL as the named prepared statement <name>: each pooled
// connection parses and plans it once, and afterwards sends only its parameters. Only marked
// statements are named, so the set per connection stays small and fixed (statements that Kysely
// builds with varying text, such as IN lists, are never kept). PGlite ignores the marker (a comment).
//
// Every marked text must be fixed: the same name with another text is a bug, and PostgreSQL would
// answer with the first text's plan. A connection pooler in transaction mode must support
// protocol-level prepared statements (PgBouncer 1.21 and later).
import pg from 'pg'

const MARKER = /^\/\* prepared:([a-z_]+) \*\//

/** Marks a statement's text as one to prepare under name (see above). */
export const preparedAs = (name: string) => `/* prepared:${name} */`

export class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: overrides pg.Client.query, whose overloads return different types
  override query(...args: unknown[]): any {
    const [text, values] = args
    if (typeof text === 'string' && (args.length === 1 || (args.length === 2 && Array.isArray(values)))) {
      const name = MARKER.exec(text)?.[1]
      if (name !== undefined)
        return (super.query as (config: pg.QueryConfig) => Promise<pg.QueryResult>)({
          name,
          text,
          values: values as unknown[] | undefined,
        })
    }
    return (super.query as (...rest: unknown[]) => unknown)(...args)
  }
}
