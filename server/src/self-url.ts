/**
 * This service's own base URL (`http://host:port` plus BASE_PATH), read when it is needed.
 *
 * Why a reader and not a string: with `PORT=0` (tests, several instances on one host) the port is
 * known only once the HTTP server listens, and the server is created from the Express application,
 * which is built from the services (the server adopts the application's request and response
 * prototypes, `http/server.ts`). So the few parts that need the URL get this reader at
 * construction, and `runtime.ts` makes it answer once the server listens, before any request is
 * served and before any worker starts. Before that it answers undefined, as it always does for the
 * `kit` command without `PUBLIC_URL` (it serves nothing).
 *
 * Who reads it: the channels' gateways when the sandbox plays the platform (`payments/providers/endpoints.ts`),
 * the notify URL when `PUBLIC_URL` is unset, and the mini-program router's payer login when the
 * sandbox plays the platform's login (`MP_LOGIN_URL` unset). All of them reach the platform, or let
 * it reach this service, over HTTP as a real one would. The front-end routers' calls of the public
 * API do not: they run in-process (`routes/in-process.ts`).
 */
export type SelfUrl = () => string | undefined;

/** The reader `runtime.ts` hands to the composition root, and sets once the server listens. */
export class ListeningUrl {
  private url: string | undefined;
  constructor(initial?: string) {
    this.url = initial?.replace(/\/+$/, '');
  }
  readonly read: SelfUrl = () => this.url;
  /** Called once, by `runtime.ts`, when the HTTP server listens. */
  listening(url: string): void {
    this.url = url.replace(/\/+$/, '');
  }
}
