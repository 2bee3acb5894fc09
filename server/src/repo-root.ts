/**
 * The checkout's root folder, where the service finds the files it serves (the front ends' builds,
 * the API reference page). This module sits directly in `server/src`, and the compiled service
 * (`server/dist/main.js`, see `server/run.mjs`) directly in `server/dist`, so the root is two
 * levels up from either; a path written from a module's own folder would break in the bundle.
 */
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
