/**
 * Child process of the long-poll scenario: opens one held `waitForFinish` call per order id read from
 * stdin and prints, as one JSON line, when each answer arrived (epoch ms with fractions), so the
 * server process's memory is measured without the client's sockets in it.
 */
import http from 'node:http';
import { encodeQuery, signRequest } from '@kit/shared';

async function main() {
  const input = JSON.parse(await new Promise<string>((resolve) => {
    let text = '';
    process.stdin.on('data', (d) => (text += d)).on('end', () => resolve(text));
  })) as { url: string; appId: string; appSecret: string; ids: string[] };
  const base = new URL(input.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: input.ids.length + 10 });
  const now = () => performance.timeOrigin + performance.now();
  const answered: Record<string, number> = {};
  await Promise.all(
    input.ids.map(
      (id) =>
        new Promise<void>((resolve, reject) => {
          const path = `/submerchant-pay/prePay/${id}`;
          const q = signRequest({ method: 'GET', path, query: { waitForFinish: '1' } }, input);
          http
            .get({ host: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}?${encodeQuery(q)}`, agent }, (res) => {
              res.resume();
              res.on('end', () => {
                answered[id] = now();
                resolve();
              });
            })
            .on('error', reject);
        }),
    ),
  );
  agent.destroy();
  process.stdout.write(JSON.stringify(answered) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
