/** Types of `run.mjs`, for `scripts/start.ts`. */
/** Builds `server/dist/main.js` and `server/dist/kit.js` unless it is up to date with its sources; true when it built. */
export declare function ensureBundle(): Promise<boolean>;
/** The compiled `server/src/service.ts`, brought up to date first. */
export declare function loadService(): Promise<typeof import('./src/service')>;
/** The compiled `server/src/kit/main.ts`, brought up to date first. */
export declare function loadKit(): Promise<typeof import('./src/kit/main')>;
