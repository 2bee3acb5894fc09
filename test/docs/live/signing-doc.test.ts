/**
 * docs/signing.md stays true: its shell recipes are run as written, with bash, openssl and curl —
 * the published vector is reproduced, and the signed curl call is accepted by a service started on
 * loopback (and refused when signed with another secret, so the check can fail).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KitClient } from '@kit/shared';
import { SIGNING_VECTORS } from '@kit/shared/signing-vectors';
import { backends } from '../../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../../server/test/support/kit';
import { freePort, runKitCommand, startServiceProcess } from '../../../server/test/support/process';

const doc = fs.readFileSync(path.join(__dirname, '../../../docs/signing.md'), 'utf8');
const readme = fs.readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
const run = promisify(execFile);

/** The `sh` code block right after `<!-- tested: NAME -->`. */
function recipe(name: string, text = doc): string {
  const m = new RegExp(`<!-- tested: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!m) throw new Error(`no tested block "${name}"`);
  return m[1];
}

async function bash(script: string, env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH, ...env }, timeout: 20_000, cwd });
  return stdout.trim();
}

describe('docs/signing.md', () => {
  it('shows the published vectors', () => {
    for (const v of SIGNING_VECTORS) {
      expect(doc).toContain(v.signature);
      expect(doc).toContain(v.canonicalQuery);
      expect(doc).toContain(v.body ? v.body : 'no body');
    }
  });

  it('reproduces the first vector with openssl, as written', async () => {
    expect(await bash(recipe('vector'))).toBe(SIGNING_VECTORS[0].signature);
  });

  describe.each(backends().map((b) => [b.name, b] as const))('the signed curl call on %s', (_name, backend) => {
    let kit: TestKit;
    beforeAll(async () => {
      kit = await startTestKit(backend);
    });
    afterAll(async () => {
      await kit?.close();
      await backend.cleanup();
    });

    it('is accepted, and creates the merchant', async () => {
      const { appId, appSecret } = await kit.newApp();
      const answer = JSON.parse(await bash(recipe('signed-call'), { KIT_URL: kit.url, APP_ID: appId, APP_SECRET: appSecret }));
      expect(answer).toMatchObject({ version: 1, status: 'success', data: { id: expect.stringMatching(/^PM/) } });
    });

    it('is accepted as the README tour writes it: the address and the ids from demo.json, the port that of the settings file', async () => {
      // As a newcomer runs the tour: a settings file with a port of its own (not 8080), the service started
      // from it, `demo create --out demo.json` from it too, then the README's shell lines in that folder.
      const { KIT_ENV_FILE: _off, ...env } = backend.env();
      const port = await freePort();
      const file = path.join(env.DATA_DIR!, 'kit.env');
      const settings = { ...env, PORT: String(port) };
      fs.writeFileSync(
        file,
        `${Object.entries(settings)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n')}\n`,
      );
      const service = await startServiceProcess({ KIT_ENV_FILE: file }, { port });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-readme-'));
      try {
        const created = await runKitCommand(['demo', 'create', '--out', path.join(dir, 'demo.json')], { KIT_ENV_FILE: file });
        expect(created.code).toBe(0);
        const demo = JSON.parse(fs.readFileSync(path.join(dir, 'demo.json'), 'utf8'));
        expect(demo.url).toBe(`http://127.0.0.1:${port}`);
        // Run twice in a row (the same body both times): two calls, not a replay. No KIT_URL in the environment.
        const answers = [];
        for (let i = 0; i < 2; i++) answers.push(JSON.parse(await bash(recipe('readme-signed-call', readme), {}, dir)));
        for (const answer of answers) expect(answer).toMatchObject({ version: 1, status: 'success', data: { id: expect.stringMatching(/^PM/) } });
        expect(answers[0].data.id).not.toBe(answers[1].data.id);

        // Step 3's curl pays a scan-code order at the same address.
        const client = new KitClient({ baseUrl: service.url, appId: demo.appId, appSecret: demo.appSecret });
        const { prepayId } = await client.createPrepay({ subMerchantId: demo.subMerchantId, totalAmount: '2.50' });
        const codeUrl = (await client.socialPayNative(prepayId)).args.code_url;
        const payLine = readme.split('\n').find((l) => l.startsWith('curl') && l.includes('/sandbox/pay'))!;
        expect(JSON.parse(await bash(payLine.replace('<the code_url under the QR>', codeUrl), {}, dir))).toMatchObject({ status: 'success' });
        expect((await client.waitForPayment(prepayId)).status).toBe('finish');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
        await service.stop();
      }
      // The recipe's `_t`, taken twice at once, differs: milliseconds, not whole seconds (which a second run in the same second would repeat).
      const tLine = recipe('readme-signed-call', readme)
        .split('\n')
        .find((l) => l.startsWith('T='))!;
      const [t1, t2] = (await bash(`${tLine}\nT1=$T\n${tLine}\necho "$T1 $T"`)).split(' ');
      expect(t1).toMatch(/^\d{13}$/);
      expect(t2).not.toBe(t1);
    }, 120_000);

    it('is refused when signed with another secret', async () => {
      const { appId } = await kit.newApp();
      const answer = JSON.parse(await bash(recipe('signed-call'), { KIT_URL: kit.url, APP_ID: appId, APP_SECRET: 'not-the-secret' }));
      expect(answer).toMatchObject({ status: 'fail', error: 'signature_mismatch' });
    });
  });
});
