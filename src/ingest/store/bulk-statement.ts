import { type Compilable, CompiledQuery, type Transaction } from "kysely";
import type { Database } from "../../db/schema";

/**
 * A multi-row statement of the store stage (insert 200 events, upsert 500 tag counts), built
 * by Kysely once per row count and dialect and then only re-run with new parameters.
 *
 * Why: building and compiling such a statement visits every value. For a batch of 500
 * bench:ingest errors that was ~6 % of the worker's time and ~2 KB of garbage per event,
 * and the SQL text, new each time, was hashed again by the statement cache. The SQL of a
 * multi-row insert depends only on its columns and its number of rows, so it is kept.
 *
 * The parameters are the rows' values in column order, row after row: what Kysely binds
 * for a VALUES list. Each new SQL text is checked against the parameters Kysely compiled
 * for the same rows, so a statement whose other clauses bind values fails at once.
 */
export class BulkStatement<Row extends object> {
  /** SQL by row count and dialect; the most recently used last. */
  private readonly texts = new Map<string, string>();

  constructor(
    /** The rows' keys, in the order the build lists them (Kysely's column order). */
    private readonly columns: readonly (keyof Row & string)[],
    private readonly build: (trx: Transaction<Database>, rows: Row[]) => Compilable<unknown>,
    /**
     * SQL texts kept, over all row counts and dialects: a batch's last chunk varies in size,
     * and a 200-row insert's text is ~9 KB.
     */
    private readonly capacity = 32,
  ) {}

  async execute<O = unknown>(trx: Transaction<Database>, rows: Row[]): Promise<O[]> {
    return (await this.run<O>(trx, rows)).rows;
  }

  /** Runs it and also says how many rows it inserted or changed. */
  async run<O = unknown>(
    trx: Transaction<Database>,
    rows: Row[],
  ): Promise<{ rows: O[]; affected: number }> {
    if (rows.length === 0) return { rows: [], affected: 0 };
    const parameters = this.parameters(rows);
    // One row's SQL names the dialect (its placeholders and quoting) for a few µs.
    const key = `${rows.length}\u0000${this.build(trx, rows.slice(0, 1)).compile().sql}`;
    let text = this.texts.get(key);
    // Re-inserted on use, so the first key is the least recently used: the full chunk size
    // (used by nearly every batch) is never pushed out by a run of odd last chunks.
    if (text !== undefined) this.texts.delete(key);
    else text = this.compile(trx, rows, parameters);
    this.texts.set(key, text);
    if (this.texts.size > this.capacity)
      this.texts.delete(this.texts.keys().next().value as string);
    const result = await trx.executeQuery<O>(CompiledQuery.raw(text, parameters));
    return { rows: result.rows, affected: Number(result.numAffectedRows ?? result.rows.length) };
  }

  private parameters(rows: Row[]): unknown[] {
    const values: unknown[] = new Array(rows.length * this.columns.length);
    let i = 0;
    for (const row of rows) {
      for (const column of this.columns) values[i++] = row[column];
    }
    return values;
  }

  private compile(trx: Transaction<Database>, rows: Row[], parameters: unknown[]): string {
    const compiled = this.build(trx, rows).compile();
    const same =
      compiled.parameters.length === parameters.length &&
      compiled.parameters.every((p, i) => p === parameters[i]);
    if (!same) {
      throw new Error(
        `BulkStatement: Kysely binds other parameters than the rows' ${this.columns.join(", ")}`,
      );
    }
    return compiled.sql;
  }
}
