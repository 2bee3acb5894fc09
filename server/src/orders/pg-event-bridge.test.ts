import { payloads } from './pg-event-bridge';

describe('payloads of order events (one NOTIFY per turn)', () => {
  test('the events of a turn go behind the sender in one payload', () => {
    expect(payloads('inst1', ['P1 finish', 'P2 refunded'])).toEqual(['inst1 P1 finish P2 refunded']);
  });

  test('an instance of the previous version, reading `<instance> <prepayId> <status>`, gets the first event right', () => {
    const [origin, prepayId, status] = payloads('inst1', ['P1 finish', 'P2 cancel'])[0].split(' ');
    expect({ origin, prepayId, status }).toEqual({ origin: 'inst1', prepayId: 'P1', status: 'finish' });
  });

  test("no payload reaches PostgreSQL's limit of 8,000 bytes; every event is sent once, in order", () => {
    const events = Array.from({ length: 1_000 }, (_, i) => `P${String(i).padStart(30, '0')} finish`);
    const out = payloads('inst1', events);
    expect(out.length).toBeGreaterThan(1);
    for (const p of out) expect(Buffer.byteLength(p)).toBeLessThan(8_000);
    expect(out.flatMap((p) => p.split(' ').slice(1))).toEqual(events.flatMap((e) => e.split(' ')));
  });

  test('nothing to send, no payload', () => {
    expect(payloads('inst1', [])).toEqual([]);
  });
});
