import { batchedRead } from './batched-read';

interface Row {
  key: string;
  n: number;
}

function source(rows: Row[]) {
  const calls: Array<{ one: string } | { many: string[] }> = [];
  let failNext = false;
  const fail = () => {
    if (!failNext) return;
    failNext = false;
    throw new Error('connection lost');
  };
  const read = batchedRead<Row>(
    async (key) => {
      calls.push({ one: key });
      fail();
      return rows.find((r) => r.key === key);
    },
    async (keys) => {
      calls.push({ many: keys });
      fail();
      return rows.filter((r) => keys.includes(r.key)).reverse();
    },
    (r) => r.key,
  );
  return { read, calls, failOnce: () => (failNext = true) };
}

const ROWS = [
  { key: 'a', n: 1 },
  { key: 'b', n: 2 },
  { key: 'c', n: 3 },
];

it('sends the distinct keys asked in one turn as one read, and gives each caller its own row', async () => {
  const s = source(ROWS);
  const got = await Promise.all([s.read('a'), s.read('c'), s.read('a'), s.read('zzz')]);
  expect(got).toEqual([ROWS[0], ROWS[2], ROWS[0], undefined]);
  expect(s.calls).toEqual([{ many: ['a', 'c', 'zzz'] }]);
});

it('reads a key asked alone with the single-row read', async () => {
  const s = source(ROWS);
  expect(await Promise.all([s.read('b'), s.read('b')])).toEqual([ROWS[1], ROWS[1]]);
  expect(await s.read('nope')).toBeUndefined();
  expect(s.calls).toEqual([{ one: 'b' }, { one: 'nope' }]);
});

it('starts a new read for keys asked after a turn has been sent', async () => {
  const s = source(ROWS);
  const first = s.read('a');
  await new Promise((r) => setImmediate(r));
  const second = s.read('b');
  expect(await Promise.all([first, second])).toEqual([ROWS[0], ROWS[1]]);
  expect(s.calls).toEqual([{ one: 'a' }, { one: 'b' }]);
});

it('fails every caller of a read that fails, and the next turn reads again', async () => {
  const s = source(ROWS);
  s.failOnce();
  const failed = await Promise.allSettled([s.read('a'), s.read('b')]);
  expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(await s.read('a')).toEqual(ROWS[0]);
});
