/**
 * The HTTP server the Express application runs on, with the settings held detail calls need.
 *
 * Its requests and responses are instances of classes whose prototypes the application uses as
 * `app.request` and `app.response`, so Express's per-request `Object.setPrototypeOf` changes
 * nothing. After a real prototype change V8 gives every request and response that then gains a
 * property (Express adds `next`, `baseUrl`, `params`, `locals`…) a hidden class of its own. And
 * `res.locals` starts as an ordinary object rather than Express's null-prototype one, which V8
 * keeps as a hash table.
 * Inline caches stay monomorphic; the heap per held call and the CPU per request it saves are in
 * docs/performance.md, "Express gives every request a hidden class of its own".
 */
import http from 'node:http';
import type { Express } from 'express';

export function createHttpServer(app: Express): http.Server {
  const server = http.createServer({ IncomingMessage: requestClass(app), ServerResponse: responseClass(app) }, app);
  // Held detail calls last up to 55 s; keep sockets open a little longer than that.
  server.requestTimeout = 70_000;
  server.headersTimeout = 75_000;
  server.keepAliveTimeout = 65_000;
  return server;
}

/** Puts `prototype` in the place of `app[key]` (Express's own prototype object, which holds only `app`). */
function adopt(app: Express, key: 'request' | 'response', prototype: object): void {
  const express = app[key];
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(express));
  for (const name of Reflect.ownKeys(express)) Object.defineProperty(prototype, name, Object.getOwnPropertyDescriptor(express, name)!);
  (app as unknown as Record<string, object>)[key] = prototype;
}

function requestClass(app: Express): typeof http.IncomingMessage {
  class KitRequest extends http.IncomingMessage {}
  adopt(app, 'request', KitRequest.prototype);
  return KitRequest;
}

function responseClass(app: Express): typeof http.ServerResponse {
  class KitResponse extends http.ServerResponse {
    locals: Record<string, unknown> = {};
  }
  adopt(app, 'response', KitResponse.prototype);
  return KitResponse as unknown as typeof http.ServerResponse;
}
