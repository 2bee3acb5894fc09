/**
 * docs/signing.md's callback receiver on plain `node:http` runs as written, with plain node (and
 * `@kit/shared` pointed at this checkout's build of the package): a signed callback reaches `onEvent` and is answered `OK`, a
 * forged one is refused with 401 and reaches nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateTestCallback } from '@kit/shared';
import { freePort } from '../../../server/test/support/process';
import { waitFor } from '../../../server/test/support/wait';
import { buildTargets } from '../../../scripts/frontends';

const ROOT = path.resolve(__dirname, '../../..');
const doc = fs.readFileSync(path.join(ROOT, 'docs/signing.md'), 'utf8');
const creds = { appId: 'app_doc_callback', appSecret: 'doc-callback-secret-0123456789' };

function block(name: string): string {
  const m = new RegExp(`<!-- tested: ${name} -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!m) throw new Error(`no tested block "${name}"`);
  return m[1];
}

beforeAll(async () => {
  expect((await buildTargets(['shared'], { say: () => undefined }))[0].status).not.toBe('failed');
}, 120_000);

it('the node:http receiver of docs/signing.md takes a signed callback and refuses a forged one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-callback-doc-'));
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, block('callback-node-http').replace(`from '@kit/shared'`, `from '${pathToFileURL(path.join(ROOT, 'shared/dist/index.mjs')).href}'`));
  const port = await freePort();
  const child = spawn(process.execPath, [file], { cwd: dir, env: { ...process.env, PORT: String(port), KIT_APP_SECRET: creds.appSecret } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const url = `http://127.0.0.1:${port}/hooks/kit?shop=1`;
    const send = async (secret: string, prepayId: string) => {
      const cb = generateTestCallback({ url, appId: creds.appId, appSecret: secret, event: { prepayId } });
      const res = await fetch(cb.url, { method: 'POST', headers: cb.headers, body: cb.body });
      return { status: res.status, text: await res.text() };
    };
    // The first signed callback, sent again until the receiver listens (it refuses nothing before that).
    let exited = false;
    child.once('exit', () => (exited = true));
    const first = await waitFor(
      async () => {
        if (exited) throw new Error(`the receiver exited:\n${out}`);
        return send(creds.appSecret, 'DocPaid1').catch(() => undefined);
      },
      'the receiver to start',
      30_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${out}`);
    });
    expect(first).toEqual({ status: 200, text: 'OK' });
    expect(await send('not-the-secret', 'DocForged1')).toMatchObject({ status: 401 });
    expect((await fetch(`http://127.0.0.1:${port}/elsewhere`, { method: 'POST' })).status).toBe(404);
    const events = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(events).toEqual([expect.objectContaining({ prepayId: 'DocPaid1', status: 'finish' })]);
  } finally {
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
