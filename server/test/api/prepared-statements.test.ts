/**
 * PostgreSQL runs the hot queries as named prepared statements. A rolling upgrade adds a column to a
 * table under instances still running: their statements of that table, prepared before, are refused
 * from then on ("cached plan must not change result type"). Through real HTTP: an order read on
 * every pooled connection before the change is read after it too, and a new order can be made.
 */
import pg from 'pg';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';

const postgres = backends().find((b) => b.name === 'postgres');
(postgres ? describe : describe.skip)('named prepared statements when a table changes under them [postgres]', () => {
  let kit: TestKit;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = postgres!.env();
    kit = await startTestKit(postgres!, env);
  });
  afterAll(async () => {
    await kit?.close();
    await postgres!.cleanup();
  });

  test('reads and creations go on after another instance adds a column', async () => {
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
    // Enough reads at once that every pooled connection has prepared the read.
    const readAll = () => Promise.all(Array.from({ length: 24 }, () => app.client.prepayDetail(prepayId)));
    expect((await readAll()).every((d) => d.totalAmount === '1.00')).toBe(true);

    const admin = new pg.Client({ connectionString: env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER TABLE "${env.DATABASE_SCHEMA}".prepay_orders ADD COLUMN added_by_upgrade text`);
    } finally {
      await admin.end();
    }

    expect((await readAll()).every((d) => d.totalAmount === '1.00')).toBe(true);
    expect((await readAll()).every((d) => d.totalAmount === '1.00')).toBe(true);
    await expect(app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '2.00' })).resolves.toHaveProperty('prepayId');
  });
});
