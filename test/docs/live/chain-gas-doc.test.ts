/**
 * docs/chain.md's gas figures are what a real EVM node (anvil) measures: the deployment, the first
 * anchor, and the rule for every later one (a base, plus calldata's price of each non-zero byte of
 * the two block numbers, less the saving of each zero byte of the two hashes), over ranges of every
 * size and block numbers of one to three bytes; and the examples the page gives follow from it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ANVIL_KEY, startAnvil, type Anvil } from '../../../server/test/support/anvil';
import { AnchorChain } from '../../../server/src/chain/anchor/anchor-evm';

const doc = fs.readFileSync(path.join(__dirname, '../../../docs/chain.md'), 'utf8').replace(/\s+/g, ' ');
const num = (text: string) => Number(text.replace(/,/g, ''));
/** The first number the pattern captures in the page (whitespace folded). */
const figure = (re: RegExp): number => {
  const m = re.exec(doc);
  if (!m) throw new Error(`docs/chain.md does not say ${re}`);
  return num(m[1]);
};

const said = {
  deploy: figure(/deploying ([\d,]+)/),
  base: figure(/An anchor costs ([\d,]+) gas/),
  perNonZero: figure(/plus (\d+) for each non-zero byte of its `fromBlock` and `toBlock`/),
  perZeroHashByte: figure(/less (\d+) for each zero byte of `lastBlockHash` and `root`/),
  firstExtra: figure(/The first anchor costs ([\d,]+) more/),
  first: figure(/([\d,]+) for blocks 1\.\.1/),
};

const nonZeroBytes = (n: number) => [...Buffer.from(n.toString(16).padStart(64, '0'), 'hex')].filter((b) => b !== 0).length;
const zeroBytes = (hex: string) => [...Buffer.from(hex, 'hex')].filter((b) => b === 0).length;
/** What the page's rule says an anchor after the first costs. */
const rule = (fromBlock: number, toBlock: number, lastBlockHash: string, root: string) =>
  said.base + said.perNonZero * (nonZeroBytes(fromBlock) + nonZeroBytes(toBlock)) - said.perZeroHashByte * (zeroBytes(lastBlockHash) + zeroBytes(root));

describe('docs/chain.md gas figures, measured on anvil', () => {
  let anvil: Anvil;
  const chains: AnchorChain[] = [];
  beforeAll(async () => {
    anvil = await startAnvil();
  }, 60_000);
  afterAll(async () => {
    for (const c of chains) c.destroy();
    await anvil?.stop();
  });

  it('the deployment, the first anchor and every later one, whatever the range size, are as the page says', async () => {
    const deployer = await AnchorChain.connect(anvil.url, { key: ANVIL_KEY, pollingMs: 50 });
    chains.push(deployer);
    const { contract, gasUsed } = await deployer.deploy();
    expect(Number(gasUsed)).toBe(said.deploy);
    const writer = await AnchorChain.connect(anvil.url, { key: ANVIL_KEY, contract, pollingMs: 50 });
    chains.push(writer);

    const plain = 'ab'.repeat(32);
    const first = await writer.anchor({ fromBlock: 1, toBlock: 1, lastBlockHash: plain, root: plain }, 1, 20_000);
    expect(Number(first.gasUsed)).toBe(said.first);
    expect(said.first).toBe(rule(1, 1, plain, plain) + said.firstExtra);

    // [size, lastBlockHash, root]: one to three bytes of block numbers, ranges of 1 to 200,000 blocks, hashes with zero bytes.
    const oneZero = `00${'cd'.repeat(31)}`;
    const ranges: Array<[number, string, string]> = [
      [1, plain, plain],
      [1, plain, oneZero],
      [60, plain, plain],
      [10_000, plain, plain],
      [1, plain, plain],
      [60_000, oneZero, oneZero],
      [200_000, plain, plain],
      [1, plain, plain],
      [1, '00'.repeat(32), '00'.repeat(32)],
    ];
    let from = 2;
    const measured: Array<{ from: number; to: number; gas: number }> = [];
    for (const [size, lastBlockHash, root] of ranges) {
      const to = from + size - 1;
      const e = await writer.anchor({ fromBlock: from, toBlock: to, lastBlockHash, root }, 1, 20_000);
      expect({ from, to, gas: Number(e.gasUsed) }).toEqual({ from, to, gas: rule(from, to, lastBlockHash, root) });
      measured.push({ from, to, gas: Number(e.gasUsed) });
      from = to + 1;
    }
    // The examples the page gives follow from the rule.
    expect(doc).toContain(`blocks 2..255 uses ${fmt(rule(2, 255, plain, plain))} (${fmt(rule(2, 255, plain, oneZero))} with one zero byte`);
    expect(doc).toContain(`below 65,536 at most ${fmt(rule(65_535, 65_535, plain, plain))}`);
    expect(doc).toContain(`below 16,777,216 at most ${fmt(rule(16_777_215, 16_777_215, plain, plain))}`);
    const perDay = 1_440 * rule(16_777_215, 16_777_215, plain, plain);
    expect(doc).toContain(`at most 1,440 × ${fmt(rule(16_777_215, 16_777_215, plain, plain))} ≈ ${(perDay / 1e6).toFixed(1)} million gas a day`);
    // The measured ranges really spanned one to three bytes of block numbers.
    expect(new Set(measured.map((m) => nonZeroBytes(m.to)))).toEqual(new Set([1, 2, 3]));
  }, 120_000);
});

const fmt = (n: number) => n.toLocaleString('en-US');
