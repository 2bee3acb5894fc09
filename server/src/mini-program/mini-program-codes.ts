/**
 * The mini-program code of an order (specification 1.2, "Mini-program payment"): the platform draws
 * it for the scene `sm.pay?prepayid=<id>` (`getwxacodeunlimit`), and it is kept per order so that a
 * redraw of the POS display does not call the platform again.
 */
import type { Clock } from '@kit/shared/clock';
import { buildScene, KitError, sceneProblem } from '@kit/shared';
import { INVALID_TOKEN_ERRCODES, type MpAccessToken } from './access-token';
import { MpPlatformError, MpPlatformUnreachable, type MpPlatform, type UnlimitedCodeRequest } from './mp-platform';
import type { MpCodeStore } from './mp-code-store';

/** The code's width in pixels (the platform draws 280–1280; 430 is its default). */
export const CODE_WIDTH = 430;

export interface MiniProgramCodeOptions {
  page: string;
  envVersion: 'release' | 'trial' | 'develop';
  /** Why no code can be drawn at all (the app id or secret are not set); null when it can. */
  notConfigured: string | null;
  /** The service's clock: when a code was drawn. */
  clock: Clock;
}

export interface MiniProgramCode {
  contentType: string;
  image: Buffer;
}

export class MiniProgramCodes {
  constructor(
    private readonly store: MpCodeStore,
    private readonly platform: MpPlatform | null,
    private readonly tokens: MpAccessToken | null,
    private readonly opts: MiniProgramCodeOptions,
  ) {}

  /** The code kept for the order, if one was drawn. */
  async stored(prepayId: string): Promise<MiniProgramCode | undefined> {
    const row = await this.store.find(prepayId);
    return row ? { contentType: row.content_type, image: row.image } : undefined;
  }

  /**
   * Has the platform draw the order's code, and keeps it. The scene must be one the platform accepts:
   * the prepay id's length may change (specification 2.1), and an id of more than 16 characters makes a
   * scene of more than 32, which is refused here, saying so, rather than cut or sent to be refused.
   */
  async draw(prepayId: string): Promise<MiniProgramCode> {
    const scene = buildScene(prepayId);
    const problem = sceneProblem(scene);
    if (problem) {
      throw new KitError(
        'mp_scene_invalid',
        `${problem}: this order cannot have a mini-program code; the scan-code QR (and the plain link code, POS_MP_CODE=link) still work`,
      );
    }
    if (this.opts.notConfigured || !this.platform || !this.tokens) throw new KitError('mp_not_configured', this.opts.notConfigured ?? undefined);
    const request: UnlimitedCodeRequest = {
      scene,
      page: this.opts.page,
      // A trial or develop version's page need not exist in the released one.
      check_path: this.opts.envVersion === 'release',
      env_version: this.opts.envVersion,
      width: CODE_WIDTH,
    };
    const code = await this.fromPlatform(request);
    await this.store.insert({ prepay_id: prepayId, scene, content_type: code.contentType, image: code.image, created_at: this.opts.clock.now() });
    // Two redraws at once: both drew, the first stored wins and both show it.
    return (await this.stored(prepayId)) ?? code;
  }

  /** Deletes codes drawn before `before`. */
  purge(before: number): Promise<number> {
    return this.store.purge(before);
  }

  /** One call, and after an invalid token exactly one more with its replacement. */
  private async fromPlatform(request: UnlimitedCodeRequest): Promise<MiniProgramCode> {
    const platform = this.platform!;
    const tokens = this.tokens!;
    try {
      const token = await tokens.current();
      try {
        return await platform.unlimitedCode(token, request);
      } catch (e) {
        if (!(e instanceof MpPlatformError && INVALID_TOKEN_ERRCODES.has(e.errcode))) throw e;
        return await platform.unlimitedCode(await tokens.replace(token), request);
      }
    } catch (e) {
      if (e instanceof MpPlatformUnreachable) throw new KitError('mp_code_unavailable', e.message);
      if (e instanceof MpPlatformError) throw new KitError('mp_code_failed', e.message);
      throw e;
    }
  }
}
