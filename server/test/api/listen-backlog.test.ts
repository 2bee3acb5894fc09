/**
 * A rush of connections while the service is busy: the kernel queues them for it (the listen
 * backlog) instead of dropping them, so a terminal reconnecting with thousands of others is not
 * left to retry its SYN after 1, 3, 7 … seconds. The service is stopped (SIGSTOP) while the
 * connections are made, so none of them can be accepted meanwhile: all have to fit in the queue.
 */
import net from 'node:net';
import { startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

const RUSH = 1_500; // well past Node's default backlog of 511

describe('the listen backlog', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    svc = await startServiceProcess({});
  }, 60_000);
  afterAll(async () => {
    svc?.child.kill('SIGCONT');
    await svc?.stop();
  });

  it(`queues ${RUSH} connections made while the service cannot accept any`, async () => {
    const port = Number(new URL(svc.url).port);
    svc.child.kill('SIGSTOP');
    const sockets: net.Socket[] = [];
    try {
      let connected = 0;
      for (let i = 0; i < RUSH; i++) {
        const s = net.connect(port, '127.0.0.1', () => connected++);
        s.on('error', () => undefined);
        sockets.push(s);
      }
      // Every connection is made by the kernel, into the queue. One that did not fit has its SYN
      // dropped, and the service, stopped, frees no room in the queue for its retries: it never connects.
      await waitFor(() => connected === RUSH, `${RUSH} connections queued`);
      expect(connected).toBe(RUSH);
    } finally {
      svc.child.kill('SIGCONT');
      for (const s of sockets) s.destroy();
    }
    // And the service, resumed, is still answering.
    expect((await fetch(`${svc.url}/health`)).status).toBe(200);
  });
});
