/**
 * The providers' house (design 6.1, docs/architecture.md "Adding a wallet"): the platforms' words stay
 * in `payments/providers/`, and `social-v2` is removable: nothing imports it but its registry line,
 * and the kit without its folder and line type-checks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importGraph } from '../../../test/support/import-graph';

const SRC = path.join(__dirname, '../..');
const ROOT = path.join(SRC, '../..');

/**
 * The platforms' field names and error codes. Words that name the kit's own table columns
 * (`out_trade_no`, `transaction_id`, `sub_mch_id` of the bill lines…) are the database's, which the
 * issue leaves aside; these are not columns anywhere.
 */
const PLATFORM_WORDS = [
  'trade_state',
  'total_fee',
  'refund_fee',
  'refund_status',
  'mch_id',
  'sub_appid',
  'sp_mchid',
  'result_code',
  'return_code',
  'err_code',
  'time_end',
  'req_info',
  'unsplit_amount',
  'SYSTEMERROR',
  'SYSTEM_ERROR',
  'FREQUENCY_LIMITED',
  'BIZERR_NEED_RETRY',
  'ORDERNOTEXIST',
  'ORDER_NOT_EXIST',
  'REFUNDNOTEXIST',
  'ORDERCLOSED',
  'ORDERPAID',
  'ORDER_NOT_READY',
  'NOTPAY',
  'USERPAYING',
  'REFUNDCLOSE',
  'PAYERROR',
];

/** Outside the providers: the migrations (table history). (The sandbox, which plays the platforms, is its own package: `sandbox/`.) */
const EXEMPT = /^(payments\/providers\/|db\/migrations\/)/;

function sources(): string[] {
  return (fs.readdirSync(SRC, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
}

describe('the payment providers', () => {
  it('keep their platforms’ words: none appears in server/src outside payments/providers/', () => {
    const found: string[] = [];
    for (const file of sources().filter((f) => !EXEMPT.test(f))) {
      const text = fs.readFileSync(path.join(SRC, file), 'utf8');
      for (const w of PLATFORM_WORDS) if (new RegExp(`\\b${w}\\b`).test(text)) found.push(`${file}: ${w}`);
    }
    expect(found).toEqual([]);
  });

  it('finds a platform word where there is one', () => {
    const text = fs.readFileSync(path.join(SRC, 'payments/providers/protocol-v2/facts.ts'), 'utf8');
    expect(PLATFORM_WORDS.filter((w) => new RegExp(`\\b${w}\\b`).test(text))).toEqual(expect.arrayContaining(['trade_state', 'SYSTEMERROR']));
  });

  it('social-v2 is imported by its registry line only', () => {
    const graph = importGraph(SRC, true);
    const offenders = [...graph]
      .filter(([file]) => !file.startsWith('payments/providers/social-v2/') && file !== 'payments/providers/registry.ts')
      .flatMap(([file, deps]) => deps.filter((d) => d.startsWith('payments/providers/social-v2/')).map((d) => `${file} -> ${d}`));
    expect(offenders).toEqual([]);
  });
});

describe('a kit without social-v2', () => {
  // One type-check of a copy of the kit's TypeScript.
  jest.setTimeout(180_000);

  it('type-checks once its folder and its registry line are gone', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-without-v2-'));
    try {
      // The kit's packages (the service, what it shares with the front ends, its sandbox), without
      // build output; the packages are the checkout's own. Tests are left out: those about protocol v2
      // go with it, and the others are checked with the kit by `npm run typecheck`.
      for (const entry of ['tsconfig.json', 'package.json', 'shared', 'server', 'sandbox']) {
        if (!fs.existsSync(path.join(ROOT, entry))) continue;
        fs.cpSync(path.join(ROOT, entry), path.join(tmp, entry), {
          recursive: true,
          filter: (src) => !/[/\\](node_modules|dist|data|coverage)([/\\]|$)/.test(src.slice(ROOT.length)),
        });
        if (fs.existsSync(path.join(ROOT, entry, 'node_modules')))
          fs.symlinkSync(path.join(ROOT, entry, 'node_modules'), path.join(tmp, entry, 'node_modules'));
      }
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'));
      const providers = path.join(tmp, 'server/src/payments/providers');
      fs.rmSync(path.join(providers, 'social-v2'), { recursive: true });
      const registry = path.join(providers, 'registry.ts');
      const before = fs.readFileSync(registry, 'utf8');
      const after = before.replace("import { socialV2 } from './social-v2';\n", '').replace('[socialV3, socialV2, ', '[socialV3, ');
      expect(after).not.toBe(before);
      expect(after).not.toMatch(/socialV2/);
      fs.writeFileSync(registry, after);
      // Every file of the kit must build without it.
      fs.writeFileSync(
        path.join(tmp, 'tsconfig.check.json'),
        JSON.stringify({
          extends: './tsconfig.json',
          include: ['shared/src', 'server/src', 'sandbox/src'],
          exclude: ['**/*.test.ts', '**/*.test.tsx', 'node_modules', '**/dist'],
        }),
      );
      let out = '';
      try {
        execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', path.join(tmp, 'tsconfig.check.json')], {
          cwd: tmp,
          encoding: 'utf8',
        });
      } catch (e) {
        out = String((e as { stdout?: string }).stdout ?? e);
      }
      expect(out).toBe('');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
