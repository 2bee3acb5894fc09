/** Types of `run.mjs`, for `scripts/start.ts`. */
/** Builds `server/dist/main.js` unless it is up to date with its sources; true when it built. */
export declare function ensureBundle(): Promise<boolean>;
/** The compiled `server/src/service.ts`, brought up to date first. */
export declare function loadService(): Promise<typeof import('./src/service')>;
