/** A tiny browser of one front end's router: keeps its login cookie, sends and reads JSON. */
export class PageClient<B = any> {
  cookie = '';
  /** `base`: the router's API root, e.g. `<service>/console/api`. */
  constructor(private readonly base: string) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: B }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      this.cookie = pair.slice(pair.indexOf('=') + 1) ? pair : '';
    }
    return { status: res.status, body: (await res.json()) as B };
  }
}
