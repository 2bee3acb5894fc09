/** Whether the database answers now: what `GET /health` reports, so a load balancer stops routing to an instance whose database is away. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';

export class DatabaseProbe {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly timeoutMs: number,
  ) {}

  /** `undefined` when a trivial query answers within the time limit; otherwise why not. */
  async problem(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.timeoutMs} ms`), this.timeoutMs);
    });
    try {
      return await Promise.race([
        sql`select 1`.execute(this.db).then(
          () => undefined,
          (e: Error) => e.message || String(e),
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
