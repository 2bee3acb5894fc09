/** The kit refuses to ask for a code whose scene the platform would refuse (docs/screens.md, "If the prepay id grows"). */
import { systemClock } from '@kit/shared/clock';
import { KitError } from '@kit/shared';
import { MiniProgramCodes } from './mini-program-codes';
import type { MpCodeStore } from './mp-code-store';

const untouched = new Proxy({} as MpCodeStore, {
  get: () => () => {
    throw new Error('the store must not be used');
  },
});

it('refuses an id that makes a scene of more than 32 characters, saying what still works', async () => {
  const codes = new MiniProgramCodes(untouched, null, null, { page: 'pages/pay/index', envVersion: 'release', notConfigured: null, clock: systemClock });
  const refused = await codes.draw('x'.repeat(17)).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(KitError);
  expect(refused).toMatchObject({ error: 'mp_scene_invalid', httpStatus: 500 });
  expect((refused as KitError).message).toMatch(/has 33 characters; the platform accepts at most 32: .*scan-code QR/);
});

it('says what to set when the mini-program is not configured', async () => {
  const codes = new MiniProgramCodes(untouched, null, null, {
    page: 'pages/pay/index',
    envVersion: 'release',
    notConfigured: 'set MP_APPID and MP_SECRET',
    clock: systemClock,
  });
  await expect(codes.draw('Ab3dE6gH9jK1')).rejects.toMatchObject({ error: 'mp_not_configured', message: 'set MP_APPID and MP_SECRET' });
});
