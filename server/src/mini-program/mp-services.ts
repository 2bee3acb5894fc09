/** The mini-program's server side built from the configuration: the platform, the access token and the codes. */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { Metrics } from '../metrics/metrics';
import type { SelfUrl } from '../self-url';
import type { DevPlugin } from '../plugins/dev-plugin';
import { MpAccessToken } from './access-token';
import { MiniProgramCodes } from './mini-program-codes';
import { MpCodeStore } from './mp-code-store';
import { MpPlatform } from './mp-platform';
import { MpTokenStore } from './mp-token-store';

/** The platform's own server API (`MP_API_URL` in production by default). */
export const PLATFORM_API_URL = 'https://api.weixin.qq.com';
/** One call of the platform's API at most. */
const CALL_TIMEOUT_MS = 10_000;

/** `MP_API_URL`, or a development plug-in's when it plays the platform, or the platform's. */
export function mpApiUrl(config: Config, selfUrl: SelfUrl, plugin?: Pick<DevPlugin, 'mpApiUrl'>): string {
  if (config.MP_API_URL) return config.MP_API_URL;
  const self = selfUrl();
  return plugin && self ? plugin.mpApiUrl(self) : PLATFORM_API_URL;
}

export interface MiniProgramServices {
  codes: MiniProgramCodes;
  /** Absent without MP_APPID and MP_SECRET. */
  token?: MpAccessToken;
}

export function createMiniProgram(
  config: Config,
  handle: DbHandle,
  masterKey: Buffer,
  selfUrl: SelfUrl,
  metrics: Metrics,
  log: Logger,
  clock: Clock,
  plugin?: DevPlugin,
): MiniProgramServices {
  const codeOpts = { page: config.MP_CODE_PAGE, envVersion: config.MP_CODE_ENV_VERSION, clock };
  const store = new MpCodeStore(handle.db);
  if (!config.MP_APPID || !config.MP_SECRET) {
    return { codes: new MiniProgramCodes(store, null, null, { ...codeOpts, notConfigured: 'set MP_APPID and MP_SECRET to show the mini-program code' }) };
  }
  const platform = new MpPlatform(
    { baseUrl: () => mpApiUrl(config, selfUrl, plugin), appId: config.MP_APPID, secret: config.MP_SECRET, timeoutMs: CALL_TIMEOUT_MS, clock },
    metrics,
  );
  const token = new MpAccessToken(
    new MpTokenStore(handle.db),
    platform,
    masterKey,
    { appId: config.MP_APPID, timeoutMs: CALL_TIMEOUT_MS, clock },
    metrics,
    log.child({ part: 'mini-program' }),
  );
  return { codes: new MiniProgramCodes(store, platform, token, { ...codeOpts, notConfigured: null }), token };
}
