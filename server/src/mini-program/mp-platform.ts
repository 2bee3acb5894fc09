/**
 * The platform's server API for the mini-program (`MP_API_URL`): `stable_token` and
 * `getwxacodeunlimit`. The platform answers a failure as `{errcode, errmsg}` with HTTP 200, so the
 * body decides, never the status; an answer of 5xx, no answer or an unreadable one is "unreachable".
 * URLs carry the access token: no message quotes one.
 */
import type { Clock } from '@kit/shared/clock';
import type { Metrics } from '../metrics/metrics';

/** Which call of the platform's API. */
export type MpApi = 'stable_token' | 'getwxacodeunlimit';

/** The platform answered `{errcode, errmsg}` with a non-zero errcode. */
export class MpPlatformError extends Error {
  constructor(
    readonly api: MpApi,
    readonly errcode: number,
    readonly errmsg: string,
  ) {
    super(`${api} answered errcode ${errcode}: ${errmsg.slice(0, 160)}`);
    this.name = 'MpPlatformError';
  }
}

/** The platform could not be reached, or answered something that is neither its answer nor its error. */
export class MpPlatformUnreachable extends Error {
  constructor(
    readonly api: MpApi,
    why: string,
  ) {
    super(`${api}: ${why}`);
    this.name = 'MpPlatformUnreachable';
  }
}

/** What `getwxacodeunlimit` is asked for (the platform's field names). */
export interface UnlimitedCodeRequest {
  scene: string;
  page: string;
  check_path: boolean;
  env_version: 'release' | 'trial' | 'develop';
  width: number;
}

export interface MpPlatformOptions {
  /** Resolved per call: the sandbox's URL is known only once this service listens. */
  baseUrl: () => string;
  appId: string;
  secret: string;
  timeoutMs: number;
  clock: Clock;
  fetch?: typeof fetch;
}

export class MpPlatform {
  constructor(
    private readonly opts: MpPlatformOptions,
    private readonly metrics: Metrics,
  ) {}

  /** `POST /cgi-bin/stable_token`: the deployment's access token and its lifetime in seconds. */
  async stableToken(force: boolean): Promise<{ accessToken: string; expiresIn: number }> {
    const body = { grant_type: 'client_credential', appid: this.opts.appId, secret: this.opts.secret, force_refresh: force };
    const answer = await this.post('stable_token', '/cgi-bin/stable_token', body);
    const json = this.json('stable_token', answer);
    if (typeof json.access_token !== 'string' || !json.access_token || typeof json.expires_in !== 'number' || !(json.expires_in > 0)) {
      throw this.unreachable('stable_token', 'the answer held no access_token and expires_in');
    }
    return { accessToken: json.access_token, expiresIn: json.expires_in };
  }

  /** `POST /wxa/getwxacodeunlimit`: the image the platform drew, with its content type. */
  async unlimitedCode(accessToken: string, request: UnlimitedCodeRequest): Promise<{ contentType: string; image: Buffer }> {
    const answer = await this.post('getwxacodeunlimit', `/wxa/getwxacodeunlimit?access_token=${encodeURIComponent(accessToken)}`, request);
    const contentType = answer.contentType.split(';')[0].trim().toLowerCase();
    if (contentType.startsWith('image/') && answer.body.length > 0) return { contentType, image: answer.body };
    this.json('getwxacodeunlimit', answer);
    throw this.unreachable('getwxacodeunlimit', `the answer was neither an image nor an error (${contentType || 'no content type'})`);
  }

  private async post(api: MpApi, path: string, body: object): Promise<{ status: number; contentType: string; body: Buffer }> {
    const url = `${this.opts.baseUrl().replace(/\/+$/, '')}${path}`;
    let res: Response;
    let bytes: Buffer;
    try {
      res = await (this.opts.fetch ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: this.opts.clock.timeout(this.opts.timeoutMs),
      });
      bytes = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      // Never the error itself: it may quote the URL, which carries the token.
      throw this.unreachable(api, (e as Error)?.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs} ms` : 'the platform cannot be reached');
    }
    if (res.status >= 500) throw this.unreachable(api, `the platform answered HTTP ${res.status}`);
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: bytes };
  }

  /** The JSON of an answer; a non-zero errcode is thrown as MpPlatformError. */
  private json(api: MpApi, answer: { status: number; body: Buffer }): Record<string, unknown> {
    let json: unknown;
    try {
      json = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw this.unreachable(api, `the platform answered HTTP ${answer.status} without JSON`);
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw this.unreachable(api, 'the answer was not a JSON object');
    const o = json as Record<string, unknown>;
    if (o.errcode !== undefined && o.errcode !== 0) {
      const errcode = Number(o.errcode);
      this.metrics.mpPlatformError(api, Number.isFinite(errcode) ? String(errcode) : 'unknown');
      throw new MpPlatformError(api, Number.isFinite(errcode) ? errcode : -1, String(o.errmsg ?? ''));
    }
    return o;
  }

  private unreachable(api: MpApi, why: string): MpPlatformUnreachable {
    this.metrics.mpPlatformError(api, 'unreachable');
    return new MpPlatformUnreachable(api, why);
  }
}
